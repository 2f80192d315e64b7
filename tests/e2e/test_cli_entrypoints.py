"""Every `streamgaze` sub-command, and each of its modes, run as a user runs it: the installed console
script in a separate process (issue 23, deliverable 2). Inputs are the small fixtures of the other
tests (a 20-second demo world, the release fixtures, the VLM stub on loopback); outputs under tmp.

The in-process tests call ``streamgaze_hf.cli.main`` or the library; these check that the command a
user types works end to end (the `build-vl4gaze` import crash of issue 23 passed every in-process test).
The list of sub-commands is taken from the parser, and a test fails when a command has no run here.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import pytest

from streamgaze_hf.cli import build_parser

from ..fixtures.cli_entry import REPO, one_error_line, streamgaze
from ..fixtures.real_corpus import corpus

#: sub-command -> the tests below that run it through the console script
COVERED = {
    "world": "sg", "overlay": "test_streamgaze_commands",
    "gaze": "test_streamgaze_commands", "stats": "test_streamgaze_commands", "tasks-dir": "test_streamgaze_commands",
    "review": "test_streamgaze_commands", "export-sft": "test_streamgaze_commands",
    "clips": "test_streamgaze_commands", "stream-eval": "test_streamgaze_commands",
    "eval": "test_eval_submit_validate_compare_leaderboard", "submit": "test_eval_submit_validate_compare_leaderboard",
    "validate": "test_eval_submit_validate_compare_leaderboard",
    "compare": "test_eval_submit_validate_compare_leaderboard",
    "leaderboard": "test_eval_submit_validate_compare_leaderboard",
    "import-official-results": "test_import_release_and_official_results",
    "doctor": "test_failures_cli", "publish": "test_hub", "export-bids": "test_bids",
    # the leaderboard on the Hub
    "push-submission": "test_leaderboard_hub", "leaderboard sync": "test_leaderboard_hub",
    "leaderboard init": "test_leaderboard_first_steps",
    "leaderboard serve": "test_leaderboard_app", "leaderboard space": "test_leaderboard_service",
    "leaderboard flag": "test_flags_and_results_on_the_models_page",
    "leaderboard unflag": "test_flags_and_results_on_the_models_page",
    # evaluated by the leaderboard (the job's verb runs inside the Jobs stand-in's subprocess)
    "request-eval": "test_requests_run_as_hub_jobs", "leaderboard run-request": "test_requests_run_as_hub_jobs",
    # one sub-command per benchmark (the hidden ones answer with one error line)
    "build streamgaze": "sg", "build egogazevqa": "test_egogazevqa_raw_build", "build vl4gaze": "test_build_vl4gaze_modes",
    "build streameqa": "test_a_benchmark_without_that_importer_is_one_error",
    "import streamgaze": "test_import_release_and_official_results",
    "import egogazevqa": "test_egogazevqa_commands, test_real_egogazevqa",
    "import streameqa": "test_streameqa_commands",
    "import vl4gaze": "test_a_benchmark_without_that_importer_is_one_error",
    "report egogazevqa": "test_egogazevqa_commands", "report streameqa": "test_streameqa_commands",
    "report streamgaze": "test_a_benchmark_without_that_importer_is_one_error",
    "report vl4gaze": "test_a_benchmark_without_that_importer_is_one_error",
}
#: the old command names (hidden, deprecated for one version): argv -> (the name the note gives, the new command)
OLD_NAMES = {
    ("import-release",): ("import-release", "import streamgaze"),
    ("import-release", "--benchmark", "egogazevqa"): ("import-release", "import egogazevqa"),
    ("import-egogazevqa",): ("import-egogazevqa", "import egogazevqa"),
    ("import-streameqa",): ("import-streameqa", "import streameqa"),
    ("build-vl4gaze",): ("build-vl4gaze", "build vl4gaze"),
    ("build", "--benchmark", "egogazevqa"): ("build --benchmark egogazevqa", "build egogazevqa"),
    ("egogazevqa-report",): ("egogazevqa-report", "report egogazevqa"),
    ("streameqa-report",): ("streameqa-report", "report streameqa"),
}


def ok(proc) -> str:
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    return proc.stdout


def _sub(parser):
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def test_every_sub_command_is_covered():
    sub = _sub(build_parser())
    names = set()
    for name, child in sub.choices.items():
        inner = _sub(child)  # build / import / report: one sub-command per registered benchmark
        names |= {f"{name} {b}" for b in inner.choices} if name in ("build", "import", "report") else {name}
    assert names == set(COVERED)


@pytest.mark.parametrize("old", list(OLD_NAMES), ids=" ".join)
def test_an_old_name_runs_the_new_command_with_one_deprecation_line(old, tmp_path):
    """Each old name: its usage is the new command's, and stderr is the one deprecation line."""
    proc = streamgaze(*old, "--help", tmp=tmp_path)
    shown, new = OLD_NAMES[old]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: streamgaze {new} ")
    assert proc.stderr.splitlines() == [f"streamgaze: note: '{shown}' is deprecated; use '{new}'"]


def test_a_benchmark_without_that_importer_is_one_error(tmp_path):
    """`import vl4gaze` (VL4Gaze has only a raw build), `build streameqa` (a release only) and `report` of a
    benchmark without a report: one error line each, never a traceback; the old `import-release --benchmark
    vl4gaze` (a KeyError traceback before) adds only the deprecation line."""
    args = ("--out", tmp_path / "x", "--version", "1.0.0")
    vl4 = ("streamgaze import vl4gaze: error: vl4gaze has no official release to import: it has only a raw build "
           "(`streamgaze build vl4gaze ...`)")
    assert one_error_line(streamgaze("import", "vl4gaze", tmp_path, *args, tmp=tmp_path)) == vl4
    proc = streamgaze("import-release", tmp_path, "--benchmark", "vl4gaze", *args, tmp=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == ["streamgaze: note: 'import-release' is deprecated; use 'import vl4gaze'",
                                        "usage: streamgaze import vl4gaze", vl4]
    assert one_error_line(streamgaze("build", "streameqa", "--raw", tmp_path, *args, tmp=tmp_path)) == (
        "streamgaze build streameqa: error: streameqa has no raw build; import its release: `streamgaze import streameqa SRC "
        "--out DIR --version X.Y.Z`")
    for bench in ("streamgaze", "vl4gaze"):
        assert one_error_line(streamgaze("report", bench, tmp_path, tmp=tmp_path)) == (
            f"streamgaze report {bench}: error: {bench} has no report of its own; `streamgaze submit RUN ...` scores its runs")
    assert not (tmp_path / "x").exists()


def test_eval_takes_a_benchmark_name_before_lmms_eval_arguments(tmp_path):
    line = one_error_line(streamgaze("eval", "nosuch", "--", "--model", "x", tmp=tmp_path))
    assert line == ("streamgaze eval: error: unknown benchmark 'nosuch'; benchmarks are streamgaze, egogazevqa, "
                    "streameqa, vl4gaze (lmms-eval's arguments go after --)")
    line = one_error_line(streamgaze("eval", "egogazevqa", "--benchmark", "vl4gaze", "--", "--model", "x",
                                     tmp=tmp_path))
    assert line == "streamgaze eval: error: two benchmarks: egogazevqa and --benchmark vl4gaze; give one"


def test_no_package_shadows_a_submodule_with_a_future_import():
    """``from __future__ import annotations`` in a package's ``__init__`` binds the name
    ``annotations`` there: a submodule of that name is then unreachable as ``from pkg import
    annotations`` (issue 23's build-vl4gaze crash). Checked for every future feature and package."""
    clashes = []
    for init in sorted((REPO / "streamgaze_hf").rglob("__init__.py")) + sorted((REPO / "lmms_tasks").rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        names = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                 and node.module == "__future__" for a in node.names}
        for name in names:
            if (init.parent / f"{name}.py").exists() or (init.parent / name / "__init__.py").exists():
                clashes.append(f"{init.parent.relative_to(REPO)}/{name}")
    assert clashes == []


# ---------------------------------------------------------------------------------------------- StreamGaze


@pytest.fixture(scope="module")
def sg(tmp_path_factory):
    """`streamgaze world` (one 20 s video) and `streamgaze build` of it: (tmp, recording, dataset root)."""
    tmp = tmp_path_factory.mktemp("cli-sg")
    out = ok(streamgaze("world", "--out", tmp / "world", "--videos", 1, "--duration", 20, "--width", 96,
                        "--height", 72, "--fps", 8, tmp=tmp))
    recording = Path(out.strip())
    assert (recording / "video.mp4").is_file() and (recording / "gaze.csv").is_file()
    root = tmp / "ds" / "streamgaze"
    assert ok(streamgaze("build", "streamgaze", "--raw", tmp / "world", "--out", root, "--version", "1.0.0",
                         tmp=tmp)).strip() == str(root)
    assert (root / "manifest.json").is_file()
    return tmp, recording, root


@pytest.mark.slow  # 13 separate processes (about 1 s of start-up each) on one shared tiny dataset
def test_streamgaze_commands(sg, tmp_path):
    tmp, recording, root = sg
    assert ok(streamgaze("overlay", recording / "video.mp4", recording / "gaze.csv", "--out", tmp_path / "o.mp4",
                         tmp=tmp_path)).strip() == str(tmp_path / "o.mp4")
    assert (tmp_path / "o.mp4").stat().st_size > 0
    ok(streamgaze("gaze", recording, "--out", tmp_path / "g.csv", tmp=tmp_path))
    assert (tmp_path / "g.csv").read_text().splitlines()[0] == "t,x,y,valid,in_frame"
    assert "Questions per task" in ok(streamgaze("stats", root, tmp=tmp_path))
    assert "Questions per task" in ok(streamgaze("stats", "--dataset", root, tmp=tmp_path))
    tasks_dir = Path(ok(streamgaze("tasks-dir", tmp=tmp_path)).strip())
    assert (tasks_dir / "streamgaze").is_dir()
    # review: export the pages, import an annotator's CSV (fixations) and a question-verdict CSV
    assert "video page(s)" in ok(streamgaze("review", "export", root, "--out", tmp_path / "review", "--link",
                                            tmp=tmp_path))
    from ..fixtures.review_csv import GOOD, HEADER

    (tmp_path / "r.csv").write_text(HEADER + "\n" + GOOD + "\n", encoding="utf-8")
    ok(streamgaze("review", "import", "--benchmark", "streamgaze", tmp_path / "r.csv", "--out", tmp_path / "r.json",
                  tmp=tmp_path))
    assert json.loads((tmp_path / "r.json").read_text())
    guessed = streamgaze("review", "import", tmp_path / "r.csv", tmp=tmp_path)
    assert ok(guessed) and guessed.stderr.splitlines() == [
        "streamgaze: note: 'review import' guessing the benchmark is deprecated; use "
        "'review import --benchmark streamgaze'"]
    (tmp_path / "q.csv").write_text("question_id,video_id,task,decision,failed_criteria,corrected_answer,note,"
                                    "annotator,source\nq1,v1,spatial,drop,accuracy,,,ann1,world\n", encoding="utf-8")
    assert "kept 0, dropped 1" in ok(streamgaze("review", "import", "--benchmark", "egogazevqa", tmp_path / "q.csv",
                                                tmp=tmp_path))
    assert one_error_line(streamgaze("review", "import", "--dataset", root, tmp_path / "q.csv", tmp=tmp_path)) == (
        f"streamgaze review import: error: {tmp_path / 'q.csv'}: a question-verification CSV, not a review CSV of streamgaze")
    # export-sft (the demo dataset is an evaluation set: the flag says so)
    assert "samples" in ok(streamgaze("export-sft", "--dataset", root, "--out", tmp_path / "sft", "--allow-eval-data",
                                      tmp=tmp_path))
    assert (tmp_path / "sft" / "samples.jsonl").is_file()
    # clips: warm, stats, prune
    cache = tmp_path / "clips"
    assert "clips for" in ok(streamgaze("clips", "warm", "--dataset", root, "--tasks", "oi_easy", "--cache", cache, tmp=tmp_path))
    stats = json.loads(ok(streamgaze("clips", "stats", "--cache", cache, "--json", tmp=tmp_path)))
    assert stats["clips"] > 0
    assert "removed" in ok(streamgaze("clips", "prune", "--cache", cache, "--max-bytes", "0", tmp=tmp_path))
    # stream-eval with the built-in random model on two tasks
    assert "checkpoint protocol overall" in ok(streamgaze("stream-eval", "--dataset", root, "--out", tmp_path / "stream",
                                                          "--tasks", "oi_easy", "gta", tmp=tmp_path))


@pytest.mark.slow  # one real lmms-eval run (~10 s start-up), shared by submit / validate / compare / leaderboard
def test_eval_submit_validate_compare_leaderboard(sg, tmp_path):
    _, _, root = sg
    run = tmp_path / "run"
    proc = streamgaze("eval", "--dataset", root, "--", "--model", "streamgaze_random", "--tasks",
                      "streamgaze_oi_easy,streamgaze_gta", "--limit", 2, "--log_samples", "--output_path", run,
                      tmp=tmp_path, timeout=600)
    ok(proc)
    # the baseline never asks for a document's visuals (lmms-eval hands it doc_to_visual; it answers without):
    # said as such at the end of the run, not as "no question asked for video" (issue 55, item 9)
    assert proc.stderr.rstrip().splitlines()[-1] == ("streamgaze: video: the model read no video (it asked for no "
                                                     "document's visuals, as the random and oracle baselines do)")
    assert sorted(run.rglob("*_samples_streamgaze_*.jsonl"))
    sub = tmp_path / "sub.json"
    proc = streamgaze("submit", run, "--dataset", root, "--model-name", "Random", "--out", sub, tmp=tmp_path)
    assert ok(proc).startswith(f"{sub}: ")
    assert json.loads(sub.read_text())["model"]["name"] == "Random"
    assert "oi_easy" in ok(streamgaze("validate", sub, "--dataset", root, tmp=tmp_path))
    assert "oi_easy" in ok(streamgaze("compare", sub, sub, "--dataset", root, "--resamples", 100, tmp=tmp_path))
    site = Path(ok(streamgaze("leaderboard", sub, "--dataset", root, "--out", tmp_path / "site",
                              tmp=tmp_path)).strip())
    assert site.name == "index.html" and "Random" in site.read_text()


@pytest.mark.slow  # a release with tarballs and folders of six tiny videos (~6 s)
def test_import_release_and_official_results(tmp_path):
    from ..fixtures.release_fidelity_fixture import make_fidelity_release, official_outputs

    # holoassist videos as .tar.gz archives, egoexolearn videos as an extracted folder
    release = make_fidelity_release(tmp_path / "release", tmp_path / "video-cache", holoassist="tar")
    root = tmp_path / "ds" / "streamgaze"
    out = ok(streamgaze("import", "streamgaze", release, "--out", root, "--version", "1.0.0", tmp=tmp_path))
    assert "Imported" in out and (root / "manifest.json").is_file()
    results = official_outputs(release, tmp_path / "results_viz")
    out = ok(streamgaze("import-official-results", results, "--dataset", root, "--model-name", "Official",
                        "--out", tmp_path / "official.json", tmp=tmp_path))
    assert out.strip().endswith(str(tmp_path / "official.json"))
    assert json.loads((tmp_path / "official.json").read_text())["run"]["harness"] == "official-evaluator"
    folders = make_fidelity_release(tmp_path / "release2", tmp_path / "video-cache", holoassist="folder")
    old = streamgaze("import-release", folders, "--out", tmp_path / "ds2" / "streamgaze", "--version", "1.0.0",
                     tmp=tmp_path)  # the old name, deprecated: the same import and one note
    assert "Imported" in ok(old) and old.stderr.startswith(
        "streamgaze: note: 'import-release' is deprecated; use 'import streamgaze'\n")


# ---------------------------------------------------------------------------------------------- EgoGazeVQA


def _samples(path: Path, records: list[dict]) -> None:
    """An lmms-eval ``--log_samples`` file: one JSON line per document, its ``accuracy`` record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"doc_id": i, "accuracy": r}) + "\n" for i, r in enumerate(records)))


@pytest.mark.slow  # three processes and a fixture release with a clip to decode (~6 s)
def test_egogazevqa_commands(tmp_path, monkeypatch):
    from streamgaze_hf.benchmarks.egogazevqa import evaluation as ev

    from ..fixtures.egogazevqa_fixture import write_release

    release = write_release(tmp_path / "release")
    root = tmp_path / "ds" / "egogazevqa"
    assert "Imported 5 questions" in ok(streamgaze("import", "egogazevqa", release, "--out", root, "--version", "1.0.0",
                                                   tmp=tmp_path))
    other = ok(streamgaze("import-release", release, "--benchmark", "egogazevqa", "--out", tmp_path / "b" / "ego",
                          "--version", "1.0.0", tmp=tmp_path))
    assert "Imported 5 questions" in other
    # report egogazevqa over the records lmms-eval writes (score_doc of each document)
    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "default")
    for task in ("spatial", "temporal", "causal"):
        docs = ev.load_docs(task, "text", root)
        _samples(tmp_path / "run" / f"x_samples_egogazevqa_{task}_gazet.jsonl", [ev.score_doc(d, "A") for d in docs])
    out = ok(streamgaze("report", "egogazevqa", tmp_path / "run", "--json", tmp_path / "rep.json", tmp=tmp_path))
    assert "gaze text: accuracy" in out and json.loads((tmp_path / "rep.json").read_text())["text"]["all"]["n"] == 5


@pytest.mark.slow  # the raw EgoGazeVQA build: a 30 s narrated world, keyframes and QA through the VLM stub
def test_egogazevqa_raw_build(tmp_path):
    from ..fixtures.egogazevqa_world import ground_truth_responder, world_keyframes, write_narrated_world
    from ..fixtures.vlm_stub import VLMStub

    dirs = write_narrated_world(tmp_path / "world", n_videos=1)
    truth = {d.name: json.loads((d / "objects.json").read_text()) for d in dirs}
    keys = {d.name: world_keyframes(d) for d in dirs}
    index = {tuple(k[0] for k in ks[i:i + 9]): truth[vid] for vid, ks in keys.items()
             for i in range(0, len(ks) - 8, 9)}
    with VLMStub(ground_truth_responder(index)) as stub:
        out = ok(streamgaze("build", "egogazevqa", "--raw", tmp_path / "world", "--source", "world",
                            "--out", tmp_path / "ego", "--version", "1.0.0", "--vlm-url", stub.url,
                            "--vlm-model", "stub-vlm", tmp=tmp_path))
    assert (tmp_path / "ego" / "manifest.json").is_file() and str(tmp_path / "ego") in out


# ---------------------------------------------------------------------------------------------- StreamEQA


@pytest.mark.slow  # two processes and the fixture's HD-EPIC stand-in videos (~8 s)
def test_streameqa_commands(tmp_path, monkeypatch):
    from streamgaze_hf.benchmarks.streameqa import evaluation as ev

    from ..fixtures.streameqa_fixture import write_release

    release = write_release(tmp_path / "release")
    root = tmp_path / "ds" / "streameqa"
    out = ok(streamgaze("import", "streameqa", release / "data" / "annotations", "--videos", release / "videos",
                        "--out", root, "--version", "1.0.0", tmp=tmp_path))
    assert "Imported" in out
    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "default")
    n = 0
    for level in ("perception", "interaction", "planning"):
        docs = ev.load_docs(level, "none", root)
        n += len(docs)
        _samples(tmp_path / "run" / f"x_samples_streameqa_{level}.jsonl", [ev.score_doc(d, "A") for d in docs])
    out = ok(streamgaze("report", "streameqa", tmp_path / "run", "--json", tmp_path / "rep.json", tmp=tmp_path))
    assert out.strip() and (tmp_path / "rep.json").is_file() and n > 0


# ---------------------------------------------------------------------------------------------- VL4Gaze


@pytest.mark.slow  # four builds, each its own process, three through the VLM stub (~10 s)
def test_build_vl4gaze_modes(tmp_path):
    from ..fixtures.vl4gaze_fixture import annotation_trees, plain_vlm
    from ..fixtures.vlm_stub import VLMStub

    out = ok(streamgaze("build", "vl4gaze", "--synthetic", 3, "--out", tmp_path / "syn", "--version", "1.0.0",
                        tmp=tmp_path))
    assert out.startswith(f"{tmp_path / 'syn'}: god ")
    gf_file, gf, vat = annotation_trees(tmp_path, "train_annotations_release.txt")
    with VLMStub(responder=plain_vlm) as stub:
        vlm = ("--vlm-url", stub.url, "--vlm-model", "stub")
        out = ok(streamgaze("build", "vl4gaze", "--gazefollow", gf_file, "--images", gf,
                            *vlm, "--out", tmp_path / "gf", "--version", "1.0.0", tmp=tmp_path))
        assert out.strip() == f"{tmp_path / 'gf'}: god 2, gdd 1, gpl 2, aqr 2"
        out = ok(streamgaze("build", "vl4gaze", "--videoattentiontarget", vat / "annotations", "--images",
                            vat / "images", *vlm, "--out", tmp_path / "vat-ds", "--version", "1.0.0", tmp=tmp_path))
        assert out.startswith(f"{tmp_path / 'vat-ds'}: ")
        assert stub.calls > 0


def test_build_vl4gaze_on_a_real_annotation_file(tmp_path):
    """A real file of a gaze-following repository's demo data (head boxes only, no gaze target): one clear
    error line naming it (tests/data/real/PROVENANCE.md)."""
    from ..fixtures.vl4gaze_fixture import plain_vlm
    from ..fixtures.vlm_stub import VLMStub

    real = corpus("importers/vl4gaze") / "attention-target-detection" / "demo"
    with VLMStub(responder=plain_vlm) as stub:
        vlm = ("--vlm-url", stub.url, "--vlm-model", "stub")
        ann = tmp_path / "real" / "annotations" / "demo" / "clip"
        ann.mkdir(parents=True)
        (ann / "person1.txt").write_bytes((real / "person1.txt").read_bytes())
        (tmp_path / "real" / "images").mkdir()
        line = one_error_line(streamgaze("build", "vl4gaze", "--videoattentiontarget", tmp_path / "real" / "annotations",
                                         "--images", tmp_path / "real" / "images", *vlm, "--out", tmp_path / "x",
                                         "--version", "1.0.0", tmp=tmp_path))
        assert line == (f"streamgaze build vl4gaze: error: {ann / 'person1.txt'}: line 1: 5 columns; VideoAttentionTarget rows "
                        "have 7 (frame, xmin, ymin, xmax, ymax, gaze_x, gaze_y)")
