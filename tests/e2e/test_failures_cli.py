"""Failures are clear and honest (issue 24), through the installed ``streamgaze`` script:

* a truncated parquet file of a dataset is one ``streamgaze: error: <file>: <reason>`` line and exit 2 in
  every command that takes a dataset, before any other work;
* ``streamgaze eval`` exits non-zero whenever the evaluation did not produce its results;
* a task without questions is skipped with a note unless asked for, and asking for it is one error;
* ``streamgaze doctor`` reports every damaged file, one line each.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.submission.answer_key import load_answer_key

from ..fixtures.cli_entry import error_lines, streamgaze

DAMAGED = "data/oi_easy/test-00000-of-00001.parquet"


def one_error(proc: subprocess.CompletedProcess) -> str:
    """The single error line of a failed command (no traceback, nothing else that looks like an error)."""
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    errors = error_lines(proc.stderr)
    assert len(errors) == 1, proc.stderr[-3000:]
    return errors[0]


@pytest.fixture(scope="module")
def damaged(demo_dataset, tmp_path_factory) -> dict[str, Path]:
    """A copy of the demo dataset with one parquet file cut in half, a submission made on the intact
    dataset, and an (empty) run directory."""
    base = tmp_path_factory.mktemp("damaged")
    root = base / "streamgaze"
    shutil.copytree(demo_dataset, root, copy_function=os.link)  # hard links: only the damaged file is copied
    target = root / DAMAGED
    data = target.read_bytes()
    target.unlink()
    target.write_bytes(data[: len(data) // 2])
    sub = synthetic_submission(load_answer_key(demo_dataset), base / "sub.json", "Half", 0.5)
    (base / "run").mkdir()
    return {"root": root, "sub": sub, "run": base / "run", "base": base}


COMMANDS = {
    "validate": lambda d: ["validate", d["sub"], "--dataset", d["root"]],
    "submit": lambda d: ["submit", d["run"], "--dataset", d["root"], "--model-name", "M", "--out", d["base"] / "o.json"],
    "leaderboard": lambda d: ["leaderboard", d["sub"], "--dataset", d["root"], "--out", d["base"] / "lb"],
    "compare": lambda d: ["compare", d["sub"], d["sub"], "--dataset", d["root"]],
    "stream-eval": lambda d: ["stream-eval", d["root"], "--out", d["base"] / "stream"],
    "export-sft": lambda d: ["export-sft", d["root"], "--out", d["base"] / "sft", "--allow-eval-data"],
    "eval": lambda d: ["eval", "--root", d["root"], "--", "--model", "streamgaze_random", "--tasks",
                       "streamgaze_nfi", "--output_path", d["base"] / "eval"],
    "clips warm": lambda d: ["clips", "warm", d["root"], "--tasks", "nfi", "--cache", d["base"] / "clips"],
    "stats": lambda d: ["stats", d["root"]],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_truncated_parquet_is_one_error_in_every_command(damaged, command):
    proc = streamgaze(*COMMANDS[command](damaged))
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = one_error(proc)
    assert DAMAGED in line and "unreadable parquet file of config 'oi_easy' (truncated or not parquet)" in line
    # before any other work: nothing written
    assert not any((damaged["base"] / name).exists() for name in ("o.json", "lb", "stream", "sft", "eval", "clips"))


def test_doctor_lists_every_problem(damaged, demo_dataset, tmp_path):
    proc = streamgaze("doctor", demo_dataset)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    root = tmp_path / "streamgaze"
    shutil.copytree(damaged["root"], root)
    video = sorted((root / "videos/overlay").glob("*.mp4"))[0]
    listed = json.loads((root / "manifest.json").read_text())["files"]
    video.write_bytes(video.read_bytes()[:4000])
    (root / "data/extra.txt").write_text("x")
    proc = streamgaze("doctor", root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    rel = video.relative_to(root).as_posix()
    half = (root / DAMAGED).stat().st_size
    lines = proc.stdout.splitlines()
    assert lines[:3] == [f"{root}/data/extra.txt: not listed in manifest.json",
                         f"{root}/{DAMAGED}: {half:,} bytes, manifest.json says {listed[DAMAGED]['bytes']:,} "
                         "(truncated or changed)",
                         f"{root}/{rel}: 4,000 bytes, manifest.json says {listed[rel]['bytes']:,} (truncated or changed)"]
    assert lines[3].startswith(f"{root}/{DAMAGED}: unreadable parquet file of config 'oi_easy'")
    assert lines[4].startswith(f"{root}/{rel}: ") and len(lines) == 5
    assert proc.stderr.strip().splitlines()[-1] == f"{root}: 5 problem(s)"


# ------------------------------------------------------------------------------------------------ eval


def test_eval_unknown_task_of_ours_fails_before_lmms_eval(demo_dataset, tmp_path):
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--tasks",
                      "streamgaze_nosuch", "--output_path", tmp_path / "out")
    assert proc.returncode == 2
    assert one_error(proc) == ("streamgaze eval: error: unknown task 'streamgaze_nosuch': no task or group of that "
                               "name (`streamgaze tasks-dir` prints the folder of our task YAMLs); did you mean "
                               "streamgaze_sr or streamgaze or streamgaze_otp?")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # two real lmms-eval start-ups (about 8 s each)
def test_eval_exits_non_zero_when_lmms_eval_produced_no_results(demo_dataset, tmp_path):
    # a task lmms-eval does not know (not one of ours): lmms-eval logs "Tasks not found" and exits 0
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--tasks",
                      "nosuch_task_xyz", "--output_path", tmp_path / "a")
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"streamgaze eval: error: the evaluation did not produce its results: lmms-eval wrote no "
                           f"*_results.json under {tmp_path / 'a'}; lmms-eval: Error during evaluation: Tasks not "
                           "found: nosuch_task_xyz"), last
    # a model that raises (its constructor: seed=abc is not an integer)
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--model_args",
                      "seed=abc", "--tasks", "streamgaze_nfi", "--limit", "1", "--output_path", tmp_path / "b")
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("streamgaze eval: error: the evaluation did not produce its results: lmms-eval wrote no "
                           "*_results.json") and "invalid literal for int() with base 10: 'abc'" in last, last


def test_results_problem_names_a_missing_task(tmp_path):
    from streamgaze_hf.harness.checks import results_problem

    path = tmp_path / "r_results.json"
    path.write_text(json.dumps({"results": {"streamgaze_nfi": {}}, "group_subtasks": {"streamgaze_nfi": []}}))
    assert results_problem([path], ["streamgaze_nfi"], str(tmp_path)) is None
    assert results_problem([path], ["streamgaze_nfi", "streamgaze_otp"], str(tmp_path)) == (
        f"the results ({path}) have no streamgaze_otp")
    assert results_problem([], ["streamgaze_nfi"], "OUT") == "lmms-eval wrote no *_results.json under OUT"


# ------------------------------------------------------------------------------------------ empty tasks


@pytest.fixture(scope="module")
def short_dataset(tmp_path_factory) -> Path:
    """One 20 s recording: the fap task gets no question (its actions need a longer future)."""
    base = tmp_path_factory.mktemp("short")
    assert streamgaze("world", "--out", base / "world", "--videos", "1", "--duration", "20").returncode == 0
    proc = streamgaze("build", "--raw", base / "world", "--out", base / "streamgaze", "--version", "0.1.0")
    assert proc.returncode == 0, proc.stderr
    return base / "streamgaze"


def test_a_task_without_questions_is_skipped_unless_asked_for(short_dataset, tmp_path):
    manifest = json.loads((short_dataset / "manifest.json").read_text())
    assert manifest["counts"]["questions"]["fap"] == 0 and min(
        n for t, n in manifest["counts"]["questions"].items() if t != "fap") > 0
    stats = streamgaze("stats", short_dataset).stdout
    assert [ln.split()[-2:] for ln in stats.splitlines() if ln.startswith("fap ")] == [["0", "-"]]
    proc = streamgaze("stream-eval", short_dataset, "--out", tmp_path / "two", "--tasks", "nfi", "oi_easy")
    assert proc.returncode == 0, proc.stderr
    run = json.loads((tmp_path / "two" / "stream_run.json").read_text())
    assert run["tasks"] == ["nfi", "oi_easy"]
    # every task: fap skipped with a note, the rest scored, means over the nine others
    proc = streamgaze("stream-eval", short_dataset, "--out", tmp_path / "all", "--model", "oracle")
    assert proc.returncode == 0, proc.stderr
    assert "streamgaze: note: skipping task(s) with no questions in this dataset: fap" in proc.stderr
    assert proc.stdout.startswith(f"{tmp_path / 'all'}: checkpoint protocol overall 100.0% (past 100.0%, present "
                                  "100.0%, proactive 100.0%)")
    sub = tmp_path / "sub.json"
    proc = streamgaze("submit", tmp_path / "all", "--dataset", short_dataset, "--model-name", "O", "--allow-oracle",
                      "--out", sub)
    assert proc.returncode == 0, proc.stderr
    scores = json.loads(sub.read_text())["scores"]
    assert scores["overall"] == 1.0 and scores["present"] == 1.0 and scores["tasks"]["fap"]["n"] == 0
    proc = streamgaze("validate", sub, "--dataset", short_dataset)
    assert proc.returncode == 0, proc.stderr
    fap = next(ln for ln in proc.stdout.splitlines() if ln.startswith("fap "))
    assert fap.split()[2] == "n/a" and fap.endswith("no questions in the dataset: skipped (not in the means)")
    # asking for it is one clear error
    for args in (["stream-eval", short_dataset, "--out", tmp_path / "fap", "--tasks", "fap"],
                 ["clips", "warm", short_dataset, "--tasks", "fap", "--cache", tmp_path / "c"],
                 ["eval", "--root", short_dataset, "--", "--model", "streamgaze_random", "--tasks", "streamgaze_fap",
                  "--output_path", tmp_path / "e"]):
        proc = streamgaze(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        line = one_error(proc)
        assert "fap' has no questions in" in line and "leave it out of --tasks" in line, args


def test_process_docs_stops_with_one_line_on_a_damaged_dataset(damaged, monkeypatch):
    """The lmms-eval path without `streamgaze eval` (plain `lmms-eval --include_path ...`): the glue's
    dataset loading stops with one line, no retries."""
    from types import SimpleNamespace

    from lmms_tasks import utils
    from tests.fixtures.task_glue import folder_glue

    monkeypatch.setenv("STREAMGAZE_ROOT", str(damaged["root"]))
    task = SimpleNamespace(config=SimpleNamespace(process_docs=folder_glue("streamgaze").process_docs, dataset_path="streamgaze",
                                                  dataset_name="nfi", test_split="test"))
    with pytest.raises(SystemExit) as exc:
        utils._download(lambda *a, **k: None)(task)
    assert str(exc.value.code).startswith(f"streamgaze: error: {damaged['root'] / DAMAGED}: unreadable parquet file")


def test_a_group_with_an_empty_task_runs_as_its_other_tasks():
    from streamgaze_hf.harness.checks import plan_tasks
    from streamgaze_hf.registry import task_index
    from streamgaze_hf.util.errors import StreamGazeError

    notes = []
    args = ["--model", "m", "--tasks", "streamgaze_present,streamgaze_nfi", "--limit", "2"]
    planned = plan_tasks(args, task_index(), lambda b, t: (b, t) == ("streamgaze", "fap"), notes.append)
    assert planned == ["--model", "m", "--tasks", "streamgaze_oi_easy,streamgaze_oi_hard,streamgaze_oar,"
                       "streamgaze_nfi", "--limit", "2"]
    assert notes == ["streamgaze_fap has no questions in this dataset: group streamgaze_present runs as its 3 "
                     "other tasks, without a group score"]
    assert plan_tasks(args, task_index(), lambda b, t: False, notes.append) == args
    with pytest.raises(StreamGazeError, match="task 'streamgaze_fap_nogaze' has no questions"):
        plan_tasks(["--tasks=streamgaze_fap_nogaze"], task_index(), lambda b, t: t == "fap", notes.append)
