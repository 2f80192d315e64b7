"""The real lmms-eval CLI on the four VL4Gaze tasks (group ``vl4gaze``), image inputs, with the oracle
and the seeded random baseline, on a dataset the §3 pipeline built from the synthetic world. The files
lmms-eval writes are checked against the metrics recomputed from its own per-sample records."""

from __future__ import annotations

import math

import pytest

from streamgaze_hf.benchmarks.vl4gaze import evaluation
from streamgaze_hf.registry import get_benchmark

from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.vl4gaze_fixture import build_world_dataset

pytestmark = pytest.mark.slow
BENCH = get_benchmark("vl4gaze")
TASKS = {t.id: BENCH.lmms_task_name(t.id) for t in BENCH.tasks}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    _, result, _ = build_world_dataset(tmp_path_factory.mktemp("vl4gaze_e2e"))
    return result.root


def _run(model_args, root, out):
    proc, results, samples = run_lmms_eval([*model_args, "--tasks", "vl4gaze"], root, out,
                                           env_extra={"VL4GAZE_JUDGE_URL": "", "VL4GAZE_JUDGE_MODEL": ""},
                                           eval_args=["--benchmark", "vl4gaze", "--root", str(root)])
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    return results["results"], {t: [s[BENCH.metric_names(t)[0]] for s in samples.get(name, [])]
                                for t, name in TASKS.items()}


def _rows(root, task):
    from streamgaze_hf.dataset.load import load_task

    return load_task(task, root)


def test_oracle_is_perfect_on_the_four_tasks(root, tmp_path):
    res, recs = _run(["--model", "streamgaze_oracle", "--model_args", "check_visuals=true"], root, tmp_path)
    for task in TASKS:
        assert len(recs[task]) == len(_rows(root, task)) > 0, task
        assert {r["question_id"] for r in recs[task]} == {r["question_id"] for r in _rows(root, task)}
    god, gdd, gpl, aqr = (res[TASKS[t]] for t in ("god", "gdd", "gpl", "aqr"))
    assert god["bleu,none"] == pytest.approx(100) and god["rouge_l,none"] == pytest.approx(1.0)
    assert math.isnan(god["judge,none"])  # no judge configured
    assert (gdd["direction_acc,none"], gdd["angular_error,none"]) == (1.0, 0.0)
    assert gpl["inout_acc,none"] == 1.0 and gpl["l2,none"] < 0.003
    assert aqr["f1,none"] == 1.0
    assert "vl4gaze" in res  # the group



def test_random_baseline_matches_its_records(root, tmp_path):
    res, recs = _run(["--model", "streamgaze_random", "--model_args", "seed=3"], root, tmp_path)
    for task, name in TASKS.items():
        m = evaluation.task_metrics(recs[task])
        for metric in BENCH.metric_names(task):
            got, want = res[name][f"{metric},none"], m[metric]
            assert (math.isnan(got) and want is None) or got == pytest.approx(want), (task, metric)
    gdd = recs["gdd"]
    assert all(r["parsed"] is not None for r in gdd)  # every random direction is read
    assert res[TASKS["gdd"]]["angular_error,none"] > 20 and res[TASKS["god"]]["bleu,none"] < 60
    assert {r["response"] for r in recs["aqr"]} <= {"Yes", "No"}
    assert all(r["parsed"] is not None for r in recs["gpl"])

    # the run -> a validated submission -> the leaderboard's VL4Gaze section, with the paper's rows
    import csv
    import io
    import json

    from streamgaze_hf.cli import main
    from streamgaze_hf.leaderboard.site import write_leaderboard

    sub_path = tmp_path / "random.json"
    assert main(["submit", str(tmp_path), "--dataset", str(root), "--model-name", "Random", "--out",
                 str(sub_path)]) == 0
    sub = json.loads(sub_path.read_text())
    assert sub["benchmark"] == "vl4gaze" and sub["scores"]["overall"] is None
    from streamgaze_hf.benchmarks.vl4gaze import COLUMN_METRICS

    cols = sub["scores"]["columns"]
    for key, (task, metric) in COLUMN_METRICS.items():
        want = evaluation.task_metrics(recs[task])[metric]
        assert (cols[key] is None and want is None) or cols[key] == pytest.approx(want), key
    assert main(["validate", str(sub_path), "--dataset", str(root)]) == 0
    site = write_leaderboard([sub_path], [root], tmp_path / "site")
    (csv_path,) = [p for p in site.glob("leaderboard*.csv")]
    table = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    mine = [r for r in table if r["model"] == "Random"]
    assert len(mine) == 1 and float(mine[0]["gdd_angle"]) == pytest.approx(cols["gdd_angle"], abs=1e-6)
    assert mine[0]["overall"] == ""
    paper = [r for r in table if r["source"] == "reported in the paper"]
    assert len(paper) == len(BENCH.leaderboard.reference_rows()) == 14
    assert all(r["rank"] == "" for r in paper)  # no overall in the paper: listed, not ranked
