"""Per-metric standard errors (bootstrap over questions, lmms-eval items) and paired comparisons (issue 9)."""

import math

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.benchmarks.streamgaze.evaluation import metric_records
from streamgaze_hf.scoring.bootstrap import (
    bootstrap_standard_errors,
    paired_difference,
    paired_overall_difference,
)


def mc(qid, correct):
    return {"question_id": qid, "checkpoint_index": -1, "correct": correct, "parsed": "A", "score": 100.0 * correct}


def cp(qid, i, parsed, label):
    pred = None if parsed is None else parsed == "Yes"
    correct = pred is not None and pred == (label == "Yes")
    return {"question_id": qid, "checkpoint_index": i, "parsed": parsed, "label": label, "correct": correct,
            "score": 100.0 * correct}


def test_mc_standard_error_matches_the_binomial_formula():
    recs = [mc(f"q{i}", i % 4 != 0) for i in range(400)]  # accuracy 0.75
    se = bootstrap_standard_errors(recs, resamples=2000, seed=1)
    assert set(se) == {"accuracy"}
    assert se["accuracy"] == pytest.approx(math.sqrt(0.75 * 0.25 / 400), rel=0.1)
    assert bootstrap_standard_errors(recs, resamples=2000, seed=1) == se  # seeded: reproducible
    assert bootstrap_standard_errors([mc(f"q{i}", True) for i in range(50)])["accuracy"] == 0.0


def test_proactive_metrics_each_have_their_own_error_and_undefined_ones_none():
    # 100 questions x 2 checkpoints: a model that always says Yes; half the labels are Yes.
    recs = [cp(f"q{i}", k, "Yes", "Yes" if (i + k) % 2 else "No") for i in range(100) for k in range(2)]
    se = bootstrap_standard_errors(recs, resamples=500, seed=0)
    assert set(se) == {"accuracy", "precision", "recall", "f1", "fpr", "fnr"}
    assert se["recall"] == 0.0 and se["fpr"] == 0.0 and se["fnr"] == 0.0  # always Yes: recall 1, fpr 1, fnr 0
    assert se["accuracy"] == 0.0  # every question has exactly one Yes and one No checkpoint: accuracy 0.5 in every draw
    # a model that never says Yes: precision is undefined, so it has no standard error
    never = [cp(f"q{i}", 0, "No", "Yes" if i % 3 else "No") for i in range(60)]
    assert bootstrap_standard_errors(never)["precision"] is None


def test_resampling_unit_is_the_question():
    # Ten checkpoints per question, all right or all wrong: 20 questions, not 200 independent items.
    recs = [cp(f"q{i}", k, "Yes" if i % 2 else "No", "Yes") for i in range(20) for k in range(10)]
    se = bootstrap_standard_errors(recs, resamples=2000, seed=0)["accuracy"]
    assert se == pytest.approx(math.sqrt(0.25 / 20), rel=0.15)
    assert se > 2.5 * math.sqrt(0.25 / 200)


def test_metric_records_give_each_proportion_its_own_items():
    yes_right, yes_wrong = cp("a", 0, "Yes", "Yes"), cp("b", 0, "Yes", "No")
    no_right, unparsed_yes = cp("c", 0, "No", "No"), cp("d", 0, None, "Yes")
    items = {k: metric_records(r) for k, r in
             {"tp": yes_right, "fp": yes_wrong, "tn": no_right, "fn": unparsed_yes}.items()}
    score = {k: {m: v.get("score") for m, v in recs.items()} for k, recs in items.items()}
    assert score["tp"] == {"accuracy": 100.0, "precision": 100.0, "recall": 100.0, "fpr": None, "fnr": 0.0, "f1": None}
    assert score["fp"] == {"accuracy": 0.0, "precision": 0.0, "recall": None, "fpr": 100.0, "fnr": None, "f1": None}
    assert score["tn"] == {"accuracy": 100.0, "precision": None, "recall": None, "fpr": 0.0, "fnr": None, "f1": None}
    # an unparsed answer to a Yes checkpoint is a miss: a false negative
    assert score["fn"] == {"accuracy": 0.0, "precision": None, "recall": 0.0, "fpr": None, "fnr": 100.0, "f1": None}
    assert items["tp"]["precision"]["question_id"] == "a"
    assert metric_records(mc("q", True)) == {"accuracy": mc("q", True)}


def test_paired_difference():
    a = [mc(f"q{i}", i % 2 == 0) for i in range(200)]
    same = paired_difference(a, list(reversed(a)), resamples=300)
    assert (same["difference"], same["ci_low"], same["ci_high"]) == (0.0, 0.0, 0.0)
    better = [mc(f"q{i}", i % 2 == 0 or i % 10 == 1) for i in range(200)]  # 20 more questions right
    d = paired_difference(a, better, resamples=1000, seed=3)
    assert d["difference"] == pytest.approx(0.1)
    assert 0.0 < d["ci_low"] < 0.1 < d["ci_high"] < 0.2
    with pytest.raises(ValueError, match="same questions"):
        paired_difference(a, a[:-1])
    overall = paired_overall_difference({"t1": a, "t2": a}, {"t1": better, "t2": a}, resamples=500)
    assert overall["difference"] == pytest.approx(0.05)
    assert overall["ci_low"] > 0.0


def test_compare_command_reports_paired_intervals(demo_dataset, tmp_path, capsys):
    from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
    from streamgaze_hf.cli import main
    from streamgaze_hf.submission.answer_key import load_answer_key
    from streamgaze_hf.submission.compare import compare_submissions

    key = load_answer_key(demo_dataset)
    a = synthetic_submission(key, tmp_path / "a.json", "Half right", 0.5)
    b = synthetic_submission(key, tmp_path / "b.json", "Mostly right", 0.9)
    result = compare_submissions(a, b, demo_dataset, resamples=300)
    assert set(result["tasks"]) == set(TASK_IDS)
    for task, r in result["tasks"].items():
        n = len({q for q, _ in key.docs[task]})
        assert r["n_questions"] == n
        assert r["difference"] == pytest.approx(r["b"] - r["a"])
        assert r["b"] > r["a"] and r["ci_low"] <= r["difference"] <= r["ci_high"]
    assert result["overall"]["difference"] == pytest.approx(result["overall"]["b"] - result["overall"]["a"])
    assert result["overall"]["ci_low"] > 0  # 40 points better on every task: the interval excludes 0
    assert compare_submissions(a, b, demo_dataset, resamples=300) == result  # seeded
    rc = main(["compare", str(a), str(b), "--dataset", str(demo_dataset), "--resamples", "200"])
    out = capsys.readouterr().out
    assert rc == 0
    assert [ln.split()[0] for ln in out.splitlines()[3:14]] == [*TASK_IDS, "overall"]
    rc = main(["compare", str(a), str(b), "--dataset", str(demo_dataset), "--resamples", "5"])
    assert rc == 2 and "--resamples must be at least 100" in capsys.readouterr().err


def test_submission_scores_carry_bootstrap_errors_and_per_source_scores(demo_dataset, tmp_path):
    from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
    from streamgaze_hf.leaderboard.site import submission_row
    from streamgaze_hf.scoring.bootstrap import bootstrap_standard_errors
    from streamgaze_hf.submission.answer_key import load_answer_key
    from streamgaze_hf.submission.validate import validate_submission

    key = load_answer_key(demo_dataset)
    report = validate_submission(synthetic_submission(key, tmp_path / "s.json", "Sixty", 0.6), demo_dataset)
    scores = report.scores
    for task in TASK_IDS:
        assert scores["tasks"][task]["stderr"] == bootstrap_standard_errors(report.rescored.records[task])
    assert set(scores["tasks"]["gta"]["stderr"]) == {"accuracy", "precision", "recall", "f1", "fpr", "fnr"}
    # the demo world has one source: its per-source scores are the overall ones
    assert list(scores["sources"]) == ["world"]
    world = scores["sources"]["world"]
    assert world["n_tasks"] == 10 and world["overall"] == pytest.approx(scores["overall"])
    assert world["tasks"] == {t: scores["tasks"][t]["accuracy"] for t in TASK_IDS}
    text = report.format()
    assert f"by source: world {100 * scores['overall']:.1f}% (10 tasks)" in text
    assert report.submission["settings"]["protocol"] == "default" and "protocol default" in text
    assert submission_row(report).by_source == f"world {100 * scores['overall']:.1f}"
