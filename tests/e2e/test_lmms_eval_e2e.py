"""End to end through the real lmms-eval CLI on the demo dataset (issue: lmms-eval plugin).

The files lmms-eval writes are checked, not only its exit code.
"""

import math

import pytest

from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS

from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.once import once_per_run

pytestmark = pytest.mark.slow
TASK_NAMES = [t.lmms_name for t in TASKS]


def metric(results, task, name="accuracy"):
    return results["results"][task][f"{name},none"]


@pytest.fixture(scope="module")
def oracle(demo_dataset, tmp_path_factory):
    """The oracle's run on every task (once per test run) and its own datasets cache (to see what the run writes
    there)."""
    def run(base):
        cache = base / "datasets_cache"
        cache.mkdir()
        return run_lmms_eval(["--model", "streamgaze_oracle", "--model_args", "check_visuals=true",
                              "--tasks", "streamgaze"], demo_dataset, base / "run",
                             env_extra={"HF_DATASETS_CACHE": str(cache), "LMMS_EVAL_DATASETS_CACHE": str(cache)}), cache

    return once_per_run(tmp_path_factory, "test_lmms_eval_e2e.oracle", run)


@pytest.fixture(scope="module")
def oracle_run(oracle):
    """(proc, results, samples) of the oracle's run."""
    return oracle[0]


@pytest.fixture(scope="module")
def oracle_cache(oracle):
    return oracle[1]


def test_tasks_name_their_dataset_and_config_and_write_no_datasets_cache(oracle_run, oracle_cache, demo_dataset):
    """Each task says what it evaluates (lmms-eval's ``dataset_path`` / ``dataset_name``): the results
    record the dataset root the run resolved and the task's config; the config is read through the
    toolkit's reader, so nothing is written to the datasets cache (lmms-eval's own loading would have
    converted every parquet file into Arrow files there)."""
    _proc, results, samples = oracle_run
    for spec in TASKS:
        cfg = results["configs"][spec.lmms_name]
        assert cfg["dataset_path"] == str(demo_dataset.resolve())
        assert cfg["dataset_name"] == spec.id
        assert "dataset_kwargs" not in cfg or not cfg["dataset_kwargs"]
        assert samples[spec.lmms_name]
    assert [p for p in oracle_cache.rglob("*") if p.is_file()] == []


def test_oracle_scores_100_on_every_task(oracle_run):
    proc, results, samples = oracle_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert results is not None, proc.stdout[-3000:]
    for name in TASK_NAMES:
        assert metric(results, name) == 100.0, name
    assert results["results"]["streamgaze"]["accuracy,none"] == 100.0
    for name in ("streamgaze_gta", "streamgaze_oaa"):
        assert metric(results, name, "f1") == 100.0 and metric(results, name, "fpr") == 0.0


def test_eval_output_has_no_noise_and_names_lmms_eval_honestly(oracle_run):
    """Issue 12: no "Generating test split" line per placeholder, no carriage-return redraws in a
    non-terminal stderr, no traceback; lmms-eval's banner and version are lmms-eval's own, not the git
    checkout of the toolkit around the virtual environment."""
    proc, results, _ = oracle_run
    output = proc.stdout + proc.stderr
    assert "Generating test split" not in output and "Traceback" not in output
    assert "\r" not in proc.stderr
    assert "branch: release" in proc.stdout and "commit: v0.7.3" in proc.stdout
    assert results["lmms_eval_version"] == "release@v0.7.3" and results["git_branch"] == "release"


def test_samples_identify_every_question_and_checkpoint(oracle_run, demo_dataset):
    import datasets

    _, _, samples = oracle_run
    for spec in TASKS:
        rows = datasets.load_dataset(str(demo_dataset), spec.id, split="test")
        recs = [s["accuracy"] for s in samples[spec.lmms_name]]
        if spec.checkpointed:
            expected = {(r["question_id"], i) for r in rows for i in range(len(r["checkpoints"]))}
            got = {(r["question_id"], r["checkpoint_index"]) for r in recs}
        else:
            expected = {r["question_id"] for r in rows}
            got = {r["question_id"] for r in recs}
        assert got == expected and len(recs) == len(expected), spec.id
        assert all(r["correct"] and r["parsed"] is not None for r in recs)


def test_random_baseline_is_near_chance(demo_dataset, tmp_path):
    proc, results, samples = run_lmms_eval(["--model", "streamgaze_random", "--model_args", "seed=3",
                                            "--tasks", "streamgaze"], demo_dataset, tmp_path)
    assert results is not None, proc.stdout[-3000:]
    # Pooled over tasks (per task there are only ~20 questions): the random model is seeded, so the
    # result is fixed; the bound is chance +- 3 binomial standard deviations of the pooled count.
    mc = [s["accuracy"] for t in TASKS if not t.checkpointed for s in samples[t.lmms_name]]
    pro = [s["accuracy"] for t in TASKS if t.checkpointed for s in samples[t.lmms_name]]
    chance_mc = 0.25  # every generated demo question has four options
    for recs, p in ((mc, chance_mc), (pro, 0.5)):
        acc = sum(r["correct"] for r in recs) / len(recs)
        tol = 3 * math.sqrt(p * (1 - p) / len(recs))
        assert abs(acc - p) <= tol, (acc, p, tol, len(recs))
    assert all(r["parsed"] is not None for r in mc + pro)  # every random answer parses
    assert 0 < results["results"]["streamgaze"]["accuracy,none"] < 60


def test_missing_dataset_root_is_one_clear_error(tmp_path):
    proc, results, _ = run_lmms_eval(["--model", "streamgaze_oracle", "--tasks", "streamgaze_nfi"],
                                     tmp_path / "nowhere", tmp_path / "out")
    assert proc.returncode == 2 and results is None
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("streamgaze eval: error")]
    assert len(errors) == 1 and "no dataset here" in errors[0] and "streamgaze build" in errors[0]
