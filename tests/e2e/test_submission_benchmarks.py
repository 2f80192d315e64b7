"""Submissions and the leaderboard per benchmark (issue 13, deliverable 6): an EgoGazeVQA submission is
built, validated and re-scored with EgoGazeVQA's scorer and metric set; StreamGaze submissions without
the ``benchmark`` field still validate; one site shows each benchmark in its own section, ranked in
the direction its columns declare.

The EgoGazeVQA dataset is the official-layout fixture (tests/fixtures/egogazevqa_fixture.py: 5 questions, spatial 2,
temporal 2, causal 1). One test goes through the real lmms-eval CLI and ``streamgaze submit``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.cli import main
from streamgaze_hf.dataset.writer import manifest_digest
from streamgaze_hf.leaderboard.page import render_html
from streamgaze_hf.leaderboard.rows import Row
from streamgaze_hf.leaderboard.site import collect_benchmark_sections, write_leaderboard
from streamgaze_hf.registry import LeaderboardLayout, get_benchmark
from streamgaze_hf.submission import (
    load_answer_key,
    validate_submission,
)
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.egogazevqa_fixture import EXPECTED
from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.submissions import RESPONSES, ego_dataset, ego_submission

EGO = get_benchmark("egogazevqa")


@pytest.fixture(scope="module")
def ego_root(tmp_path_factory) -> Path:
    return ego_dataset(tmp_path_factory.mktemp("ego_sub"))


@pytest.fixture(scope="module")
def ego_sub(ego_root, tmp_path_factory) -> Path:
    return ego_submission(ego_root, tmp_path_factory.mktemp("ego_subs") / "ego.json")


def _qid(sub: dict, text: str) -> tuple[str, str]:
    cat = EXPECTED[text][0]
    return cat, next(q for q, a in sub["answers"][cat].items() if a["response"] == RESPONSES[text])


# ---- build and validate ----------------------------------------------------------------------------

def test_egogazevqa_submission_scores_with_its_metric_set(ego_sub, ego_root, capsys):
    sub = json.loads(ego_sub.read_text())
    assert sub["benchmark"] == "egogazevqa"
    assert sub["dataset"] == {"version": "1.0.0", "manifest_sha256": manifest_digest(ego_root)}
    assert sub["settings"] == {"gaze": "none", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default"}
    assert {t: {a["response"]: a["parsed"] for a in by_q.values()} for t, by_q in sub["answers"].items()} == {
        "spatial": {"(B) The stove.": "B", "C": "C"}, "temporal": {"the answer is A": "A"}, "causal": {"D": "D"}}
    s = sub["scores"]
    # fractions (schema_version 2): spatial 2/2, temporal 0/2 (one wrong, one missing), causal 1/1
    assert sub["schema_version"] == 2
    assert s["columns"] == {"spatial": 1.0, "temporal": 0.0, "causal": 1.0,
                            "exact_match": pytest.approx((0.5 + 0.0 + 1.0) / 3, abs=1e-12)}
    assert s["overall"] == pytest.approx(2.0 / 3, abs=1e-12)
    assert s["coverage"] == {"answered": 4, "expected": 5, "fraction": 0.8}
    assert s["tasks"]["spatial"] == {"accuracy": 1.0, "n": 2, "n_correct": 2, "n_unparsed": 0, "n_missing": 0}
    assert s["tasks"]["temporal"] == {"accuracy": 0.0, "n": 2, "n_correct": 0, "n_unparsed": 0, "n_missing": 1}
    assert {k: (v["accuracy"], v["n"]) for k, v in s["breakdowns"]["source"].items()} == {
        "ego4d": (1.0, 2), "egoexo4d": (0.0, 2), "egtea": (1.0, 1)}
    assert {k: v["n"] for k, v in s["breakdowns"]["activity"].items()} == {"": 2, "Cooking": 1, "Health": 2}
    assert set(s["breakdowns"]) == {"source", "scenario", "activity"}

    report = validate_submission(ego_sub, ego_root)  # the dataset root is told; the benchmark from the file
    assert report.scores == s and report.missing == [("temporal", report.missing[0][1], -1)]
    assert main(["validate", str(ego_sub), "--dataset", str(ego_root)]) == 0
    out = capsys.readouterr().out
    assert "benchmark: EgoGazeVQA (egogazevqa)" in out
    assert re.search(r"^Avg\.\s+66\.7%  \(higher is better\)$", out, re.M)
    assert re.search(r"^Exact match\s+50\.0%  \(higher is better\)$", out, re.M)
    assert re.search(r"^temporal\s+accuracy 0\.0%, n_correct 0, n_unparsed 0; coverage 50\.0% \(1/2\)$", out, re.M)
    assert "by source: ego4d 100.0% (n=2), egoexo4d 0.0% (n=2), egtea 100.0% (n=1)" in out
    assert "coverage: 80.0% (4/5)" in out and "missing (1):" in out


def _mutate(ego_sub: Path, tmp_path: Path, edit) -> Path:
    sub = json.loads(ego_sub.read_text())
    edit(sub)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(sub))
    return bad


def _tamper_parsed(sub):
    cat, qid = _qid(sub, "Where is the knife relative to my gaze?")
    sub["answers"][cat][qid]["parsed"] = "C"


def _move_question(sub):
    cat, qid = _qid(sub, "Why did I open the fridge?")
    sub["answers"]["spatial"][qid] = sub["answers"][cat].pop(qid)


EGO_REJECTIONS = {
    "tampered column": (lambda s: s["scores"]["columns"].update(spatial=0.9),
                        "reported score scores.columns.spatial = 0.9 differs from the recomputed 1.0"),
    "tampered exact match": (lambda s: s["scores"]["columns"].update(exact_match=0.667),
                             "reported score scores.columns.exact_match"),
    "tampered overall": (lambda s: s.update(scores={**s["scores"], "overall": 0.7}),
                         "reported score scores.overall = 0.7"),
    "tampered breakdown": (lambda s: s["scores"]["breakdowns"]["source"]["egtea"].update(accuracy=0.5),
                           "reported score scores.breakdowns.source.egtea.accuracy"),
    "tampered parsed answer": (_tamper_parsed, "differs from the re-parsed 'B'"),
    "question under another category": (_move_question, "is a causal question, not a spatial one"),
    "StreamGaze gaze mode": (lambda s: s["settings"].update(gaze="overlay"), "settings.gaze must be one of"),
    "StreamGaze task": (lambda s: s["answers"].update(nfi={}), "unknown field 'nfi' in answers"),
    "unknown benchmark": (lambda s: s.update(benchmark="nope"), "benchmark must be one of 'streamgaze', "),
    "another dataset version": (lambda s: s["dataset"].update(version="2.0.0"), "is for dataset version 2.0.0"),
    "streaming part": (lambda s: s.update(streaming={}), "stream-eval submissions are StreamGaze's only"),
}


@pytest.mark.parametrize("case", sorted(EGO_REJECTIONS))
def test_egogazevqa_validate_rejects(case, ego_sub, ego_root, tmp_path):
    edit, reason = EGO_REJECTIONS[case]
    bad = _mutate(ego_sub, tmp_path, edit)
    with pytest.raises(StreamGazeError) as err:
        validate_submission(bad, ego_root)
    assert err.value.path == str(bad) and reason in str(err.value), str(err.value)


def test_schema_version_1_percent_files_still_validate(ego_sub, ego_root, tmp_path):
    """A version-1 file stored EgoGazeVQA's columns in percent: read, it is converted to fractions and
    validates; the same file with a tampered percent value is still refused."""
    def to_v1(s, tamper=0.0):
        s["schema_version"] = 1
        s["scores"]["columns"] = {k: None if v is None else 100.0 * v for k, v in s["scores"]["columns"].items()}
        s["scores"]["overall"] = 100.0 * s["scores"]["overall"] + tamper

    old = _mutate(ego_sub, tmp_path, to_v1)
    assert json.loads(old.read_text())["scores"]["columns"]["spatial"] == 100.0
    report = validate_submission(old, ego_root)
    assert report.scores["columns"]["spatial"] == 1.0 and report.submission["scores"]["overall"] == pytest.approx(2 / 3)
    with pytest.raises(StreamGazeError, match="reported score scores.overall = 0.669"):
        validate_submission(_mutate(ego_sub, tmp_path, lambda s: to_v1(s, tamper=0.3)), ego_root)


def test_submission_and_dataset_must_be_of_one_benchmark(ego_sub, ego_root, demo_dataset, tmp_path):
    with pytest.raises(StreamGazeError, match="this dataset is streamgaze's, but the submission or run is for "
                                              "egogazevqa"):
        validate_submission(ego_sub, demo_dataset)
    # without the field a submission is StreamGaze's (files made before it existed): read as one
    legacy = _mutate(ego_sub, tmp_path, lambda s: s.pop("benchmark"))
    with pytest.raises(StreamGazeError, match="unknown field 'spatial' in answers"):
        validate_submission(legacy, ego_root)


def test_streamgaze_submission_without_the_benchmark_field_still_validates(demo_dataset, tmp_path):
    key = load_answer_key(demo_dataset)
    cache = {("streamgaze", "visual"): key}  # the answer key is loaded once
    new = synthetic_submission(key, tmp_path / "new.json", "Alpha", 0.5)
    sub = json.loads(new.read_text())
    assert sub["benchmark"] == "streamgaze"
    del sub["benchmark"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(sub))
    assert validate_submission(old, demo_dataset, key_cache=cache).scores == sub["scores"]
    assert validate_submission(new, demo_dataset, key_cache=cache).scores == sub["scores"]
    assert list(cache) == [("streamgaze", "visual")]


# ---- the real lmms-eval CLI -> streamgaze submit -> validate ---------------------------------------

@pytest.mark.slow
def test_lmms_eval_run_of_egogazevqa_is_submitted_and_validated(ego_root, tmp_path, capsys):
    run_dir = tmp_path / "run"
    proc, results, samples = run_lmms_eval(["--model", "streamgaze_random", "--model_args", "seed=3",
                                            "--tasks", "egogazevqa_gazet"], ego_root, run_dir,
                                           eval_args=["--benchmark", "egogazevqa", "--root", str(ego_root)])
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = tmp_path / "random.json"
    # the benchmark is found from the samples files' task names; the dataset from --dataset
    assert main(["submit", str(run_dir), "--dataset", str(ego_root), "--model-name", "Random",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    sub = json.loads(out.read_text())
    assert sub["benchmark"] == "egogazevqa" and sub["dataset"]["version"] == "1.0.0"
    assert sub["settings"]["gaze"] == "text" and sub["run"]["model"] == "streamgaze_random"
    assert sub["settings"]["visual_form"] == "images" and "proxy" not in sub["settings"]
    for task in EGO.task_ids:
        recs = [s["accuracy"] for s in samples[f"egogazevqa_{task}_gazet"]]
        assert {r["question_id"]: {"response": r["response"], "parsed": r["parsed"]} for r in recs} == \
            sub["answers"][task]
        acc = sum(r["correct"] for r in recs) / len(recs)
        assert sub["scores"]["tasks"][task]["accuracy"] == acc
        assert 100 * sub["scores"]["columns"][task] == pytest.approx(
            results["results"][f"egogazevqa_{task}_gazet"]["accuracy,none"], abs=1e-9)
    assert sub["scores"]["coverage"] == {"answered": 5, "expected": 5, "fraction": 1.0}
    assert printed.startswith(f"{out}: Avg. {100 * sub['scores']['overall']:.1f}% (Spatial ")
    assert validate_submission(out, ego_root).scores == sub["scores"]
    # asking for StreamGaze's tasks of an EgoGazeVQA run is refused, and nothing is written
    assert main(["submit", str(run_dir), "--benchmark", "streamgaze", "--model-name", "X",
                 "--out", str(tmp_path / "x.json")]) == 2
    assert "no streamgaze tasks" in capsys.readouterr().err.lower() and not (tmp_path / "x.json").exists()


# ---- the leaderboard ---------------------------------------------------------------------------------

def test_one_site_with_a_section_per_benchmark(ego_sub, ego_root, demo_dataset, tmp_path):
    sg = synthetic_submission(load_answer_key(demo_dataset), tmp_path / "sg.json", "Alpha", 0.5)
    weak = ego_submission(ego_root, tmp_path / "weak.json", "Ego weak", {t: "E" for t in RESPONSES})
    with pytest.raises(StreamGazeError, match="the submission is for egogazevqa, but no egogazevqa dataset is "
                                              "among --dataset"):
        write_leaderboard([sg, ego_sub], [demo_dataset], tmp_path / "site")
    out = write_leaderboard([sg, ego_sub, weak], [demo_dataset, ego_root], tmp_path / "site")
    assert sorted(p.name for p in out.iterdir()) == ["chart.png", "index.html", "leaderboard-egogazevqa.csv",
                                                     "leaderboard.csv", "leaderboard.md"]
    sg_csv = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text())))
    assert "Ego weak" not in {r["model"] for r in sg_csv} and "Alpha" in {r["model"] for r in sg_csv}
    table = list(csv.DictReader(io.StringIO((out / "leaderboard-egogazevqa.csv").read_text())))
    assert list(table[0])[:9] == ["rank", "model", "source", "overall", "spatial", "temporal", "causal",
                                  "exact_match", "coverage"]
    mine = [r for r in table if r["section"] == "egogazevqa-dataset-1.0.0"]
    # "E" is right only for the temporal question whose answer is E: temporal 50 %, the rest 0; the CSV holds
    # fractions, as the submission stores them. "Ego synthetic" left a question unanswered (80% coverage): a partial
    # run, after the full one and not ranked, however high its score
    assert [(r["model"], r["rank"], r["overall"], r["temporal"], r["exact_match"]) for r in mine] == [
        ("Ego weak", "1", "0.166667", "0.500000", "0.166667"),
        ("Ego synthetic", "", "0.666667", "0.000000", "0.500000")]
    paper = [r for r in table if r["section"] == "egogazevqa-reference"]
    reference = EGO.leaderboard.reference_rows()
    assert len(paper) == len(reference) == 29 and paper[0]["model"] == "Human" and paper[0]["rank"] == ""
    assert [r["rank"] for r in paper[1:]] == [str(i) for i in range(1, 29)]
    best = max((r for r in reference if r["source"] == "paper"), key=lambda r: r["overall"])
    assert (paper[1]["model"], paper[1]["overall"], paper[1]["gaze"]) == (best["name"], f"{best['overall']:.6f}", "salience")
    assert best["overall"] == pytest.approx(0.663)  # printed 66.3 (%)
    assert paper[1]["exact_match"] == "" and paper[1]["source"] == "reported in the paper"

    md = (out / "leaderboard.md").read_text()
    assert md.startswith("# Gaze benchmarks leaderboard: StreamGaze, EgoGazeVQA\n")
    assert md.index("## StreamGaze") < md.index("### Dataset 0.1.0 (") < md.index("## EgoGazeVQA") < \
        md.index("### EgoGazeVQA: dataset 1.0.0 (5 questions") < md.index("### EgoGazeVQA: the paper's benchmark "
                                                                          "(1,757 questions)")
    assert ("|  | Ego synthetic (partial run: 80.0% answered, not ranked) | submission (re-scored) | 66.7 | 100.0 | 0.0 "
            "| 100.0 | 50.0 | 80.0% |") in md
    page = (out / "index.html").read_text()
    assert page.count('<section class="benchmark"') == 2 and page.count('<section class="dataset"') == 4
    assert '<a href="#benchmark-egogazevqa">EgoGazeVQA</a>' in page


def lower_rows() -> list:
    """Reference rows of the lower-is-better test benchmark: a dict row and a :class:`Row`."""
    return [{"name": "Paper A", "group": "open", "source": "paper", "gaze": "", "prompt_mode": "", "dataset": "p",
             "tasks": {"err": 12.5}, "overall": 12.5},
            Row(name="Paper B", source="paper", tasks={"err": 8.0}, overall=8.0, categories={}),
            {"name": "Human", "group": "human", "source": "human", "gaze": "", "prompt_mode": "", "dataset": "p",
             "tasks": {"err": 3.0}, "overall": 3.0}]


def test_lower_is_better_ranks_the_smallest_first():
    """A benchmark declaring a lower-is-better Overall (e.g. an angular error) ranks ascending, and its page
    sorts that column ascending first."""
    layout = LeaderboardLayout(columns=(("overall", "Mean error", False, "", 2, "deg"),
                                        ("err", "Angular error (deg)", False, "degrees", 2, "deg")),
                               paper_rows=f"{__name__}:lower_rows", reference_questions=7)
    bench = dataclasses.replace(EGO, name="lowtest", title="Low test", leaderboard=layout)
    manifest = {"version": "0.0.1", "counts": {"questions": {"spatial": 7}, "videos": 1}}
    (section,) = collect_benchmark_sections(bench, [], manifest)
    assert section.key == "lowtest-reference" and not section.higher_is_better
    assert [(r.name, r.rank) for r in section.rows] == [("Human", None), ("Paper B", 1), ("Paper A", 2)]
    page = render_html([section], title="t", meta="m", notes=())
    assert 'data-key="err" data-label="Angular error (deg)" data-kind="num" data-better="lower" aria-sort="none" ' \
           'title="degrees; lower is better"' in page
    assert 'data-key="overall" data-label="Mean error" data-kind="num" data-better="lower" aria-sort="ascending"' in page
    # degrees are no percentage: shown as declared (2 decimals), never multiplied by 100
    assert "Sorted by Mean error (ascending)." in page and ">12.50<" in page and ">8.00<" in page


def test_compare_two_egogazevqa_submissions(ego_sub, ego_root, tmp_path, capsys):
    """`streamgaze compare` on another accuracy benchmark: per category B − A with paired intervals,
    the overall the mean of the categories (fractions, from the re-scored records)."""
    from streamgaze_hf.submission.compare import compare_submissions

    weak = ego_submission(ego_root, tmp_path / "weak.json", "Ego weak", {t: "E" for t in RESPONSES})
    result = compare_submissions(ego_sub, weak, ego_root, resamples=200)
    a, b = (json.loads(p.read_text())["scores"]["columns"] for p in (ego_sub, weak))
    assert list(result["tasks"]) == list(EGO.task_ids)
    for cat, r in result["tasks"].items():
        assert (r["a"], r["b"]) == (pytest.approx(a[cat]), pytest.approx(b[cat]))
        assert r["difference"] == pytest.approx(r["b"] - r["a"]) and r["ci_low"] <= r["difference"] <= r["ci_high"]
    o = result["overall"]
    assert 100 * o["a"] == pytest.approx(200 / 3) and 100 * o["b"] == pytest.approx(50 / 3)
    assert o["difference"] == pytest.approx(o["b"] - o["a"])
    assert main(["compare", str(ego_sub), str(weak), "--dataset", str(ego_root), "--resamples", "200"]) == 0
    assert "overall       66.7    16.7   -50.0" in capsys.readouterr().out


def test_compare_refuses_mixed_benchmarks(ego_sub, ego_root, demo_dataset, tmp_path):
    from streamgaze_hf.submission.compare import compare_submissions

    sg = synthetic_submission(load_answer_key(demo_dataset), tmp_path / "sg.json", "Alpha", 0.5)
    # one dataset for both: the StreamGaze submission is refused against the EgoGazeVQA dataset
    with pytest.raises(StreamGazeError, match="this dataset is egogazevqa's, but the submission or run is for "
                                              "streamgaze"):
        compare_submissions(sg, ego_sub, ego_root)
