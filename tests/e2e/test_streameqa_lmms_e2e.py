"""The real lmms-eval CLI on every StreamEQA task (issue 14): the three level tasks and the direction
groups in one run per baseline (the oracle also on the gaze extension variants). The oracle scores 100,
the seeded random baseline is near chance (25 %: four options); the results layout per task code, level
and direction (``streameqa-report``), and the windows of 1 s or less counted. The files lmms-eval writes
are checked."""

from __future__ import annotations

import math

import pytest

from streamgaze_hf.benchmarks.streameqa import DIRECTIONS, LEVELS, SUBTASKS, subtasks
from streamgaze_hf.cli import main as cli_main

from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.streameqa_fixture import expected, write_release

pytestmark = pytest.mark.slow
GROUPS = ["streameqa", *(f"streameqa_{d}" for d in DIRECTIONS)]
EXT_GROUPS = ["streameqa_ext_gazeoverlay", "streameqa_ext_gazetext"]  # the gaze extension (level tasks)
LEVEL_TASKS = [f"streameqa_{lv}" for lv in LEVELS]
SLICE_TASKS = [f"streameqa_{lv}_{d}" for lv in LEVELS for d in DIRECTIONS]
N_PER_CODE = 2


@pytest.fixture(scope="module")
def eqa_root(tmp_path_factory):
    from streamgaze_hf.benchmarks.streameqa.release import import_release

    base = tmp_path_factory.mktemp("eqa_e2e")
    release = write_release(base / "release", n_per_code=N_PER_CODE, gaze=True)
    import_release(release, base / "streameqa", "1.0.0", gaze_dir=release / "gaze", progress=False)
    return base / "streameqa"


def _run(model_args, root, out, groups=GROUPS):
    return run_lmms_eval([*model_args, "--tasks", ",".join(groups)], root, out,
                         eval_args=["--benchmark", "streameqa", "--root", str(root)])


def test_oracle_scores_100_on_every_task_and_group(eqa_root, tmp_path):
    proc, results, samples = _run(["--model", "streamgaze_oracle", "--model_args", "check_visuals=true"],
                                  eqa_root, tmp_path, GROUPS + EXT_GROUPS)
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    exp = expected(N_PER_CODE)["imported"]
    ext_tasks = [f"{t}{suffix}" for t in LEVEL_TASKS for suffix in ("_ext_gazeoverlay", "_ext_gazetext")]
    for name in LEVEL_TASKS + SLICE_TASKS + GROUPS + EXT_GROUPS + ext_tasks:
        assert results["results"][name]["accuracy,none"] == 100.0, name
    for name in ext_tasks:
        recs = [s["accuracy"] for s in samples[name]]
        assert len(recs) == exp[name.split("_")[1]] and {r["gaze"] for r in recs} == {
            "visual" if name.endswith("overlay") else "text"}
    for level in LEVELS:
        recs = [s["accuracy"] for s in samples[f"streameqa_{level}"]]
        assert len(recs) == exp[level] == len({r["question_id"] for r in recs})
        assert all(r["correct"] and r["official"] and r["parsed"] == r["answer"] for r in recs)
        for d in DIRECTIONS:
            part = [s["accuracy"] for s in samples[f"streameqa_{level}_{d}"]]
            assert sorted(r["question_id"] for r in part) == sorted(r["question_id"] for r in recs
                                                                    if r["direction"] == d)
    assert results["streamgaze"]["prompt_mode"] == "default"


def test_random_baseline_near_chance_and_report_layout(eqa_root, tmp_path, capsys):
    proc, results, samples = _run(["--model", "streamgaze_random", "--model_args", "seed=3"], eqa_root, tmp_path)
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = [s["accuracy"] for name in LEVEL_TASKS for s in samples[name]]
    n = sum(expected(N_PER_CODE)["imported"].values())
    assert len(recs) == n == 90 and all(r["parsed"] in "ABCD" for r in recs)
    acc = sum(r["correct"] for r in recs) / n
    assert abs(acc - 0.25) <= 3 * math.sqrt(0.25 * 0.75 / n), acc  # seeded, so fixed
    for group in GROUPS:
        assert 0 <= results["results"][group]["accuracy,none"] < 60

    from streamgaze_hf.benchmarks.streameqa.report import run_breakdown

    report = run_breakdown(tmp_path)["none"]  # the slice tasks' duplicates are counted once
    assert report["overall"]["n"] == n and report["overall"]["micro"] == acc
    by_code = {s.code: [r for r in recs if r["task_code"] == s.code] for s in SUBTASKS}
    assert report["n"] == {c: len(v) for c, v in by_code.items()}
    assert report["n"]["OPR"] == N_PER_CODE + 4 and report["n"]["SUR"] == N_PER_CODE + 1
    assert report["n"]["OPB"] == N_PER_CODE + 1 and report["n"]["FPO"] == 2
    for code, items in by_code.items():
        assert report["codes"][code] == sum(r["correct"] for r in items) / len(items)
    for level in LEVELS:
        mine = [r for r in recs if r["level"] == level]
        assert report["levels"][level]["micro"] == sum(r["correct"] for r in mine) / len(mine)
        assert report["levels"][level]["macro"] == pytest.approx(
            sum(report["codes"][s.code] for s in subtasks(level)) / len(subtasks(level)))
        for d in DIRECTIONS:
            cell = [r for r in mine if r["direction"] == d]
            assert report["levels"][level][d]["n"] == len(cell)
            # lmms-eval's own slice task agrees with the report's cell
            assert results["results"][f"streameqa_{level}_{d}"]["accuracy,none"] == pytest.approx(
                100 * report["levels"][level][d]["micro"])
    for d in DIRECTIONS:
        assert report["directions"][d]["n"] == sum(r["direction"] == d for r in recs)
    assert report["short_window"]["n"] == 3 and report["without_short"]["n"] == n - 3
    assert report["context_s"] == [64.0]
    assert cli_main(["report", "streameqa", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Interaction (supplement Table 6)" in out and "windows of 1 s or less: 3" in out
    assert "window context 64 s" in out
    assert "  ASR   EMM   ART   AIR   BRC |    AR   OER   ARC   AIU   OMP |   NAP" in out
    # the run -> a validated submission -> the leaderboard's StreamEQA section, with the paper's rows
    import csv
    import io
    import json

    from streamgaze_hf.leaderboard.site import write_leaderboard
    from streamgaze_hf.registry import get_benchmark

    sub_path = tmp_path / "random.json"
    assert cli_main(["submit", str(tmp_path), "--dataset", str(eqa_root), "--model-name", "Random", "--out",
                     str(sub_path)]) == 0
    sub = json.loads(sub_path.read_text())
    cols = sub["scores"]["columns"]
    assert sub["benchmark"] == "streameqa" and cols["OPR"] == pytest.approx(report["codes"]["OPR"])  # fractions
    for level in LEVELS:
        assert cols[level] == pytest.approx(report["levels"][level]["micro"])
    assert sub["scores"]["overall"] == pytest.approx(sum(cols[lv] for lv in LEVELS) / 3)
    assert cli_main(["validate", str(sub_path), "--dataset", str(eqa_root)]) == 0
    site = write_leaderboard([sub_path], [eqa_root], tmp_path / "site")
    (csv_path,) = site.glob("leaderboard*.csv")
    table = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    assert [r["model"] for r in table if r["source"] == "submission (re-scored)"] == ["Random"]
    paper = [r for r in table if r["source"] == "reported in the paper"]
    assert len(paper) == len(get_benchmark("streameqa").leaderboard.reference_rows()) == 13
    assert {"perception", "backward", "OPR", "overall"} <= set(table[0])
