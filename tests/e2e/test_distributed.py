"""Multi-process runs (issue 9): `accelerate launch --num_processes 2` on a CPU machine gives the same
per-sample records and scores as one process, with both ranks sharing one clip cache."""

import sys
from pathlib import Path

import pytest

from ..fixtures.lmms_run import run_lmms_eval

pytestmark = pytest.mark.slow
TASKS = "streamgaze_nfi,streamgaze_oi_easy_salience,streamgaze_gta,streamgaze_oaa_textgaze"
ACCELERATE = str(Path(sys.executable).with_name("accelerate"))


def _records(samples):
    return {(name, s["accuracy"]["question_id"], s["accuracy"]["checkpoint_index"]): s["accuracy"]
            for name, recs in samples.items() for s in recs}


def test_two_processes_give_the_one_process_records_and_scores(demo_dataset, tmp_path):
    args = ["--model", "streamgaze_random", "--model_args", "seed=5", "--tasks", TASKS]
    clips = {"STREAMGAZE_CLIP_CACHE": str(tmp_path / "shared_clips")}
    proc1, res1, samples1 = run_lmms_eval(args, demo_dataset, tmp_path / "one", env_extra=clips)
    # `--multi_gpu` is accelerate's name for its multi-process launcher; without a GPU the ranks run on
    # the CPU and talk over gloo.
    launcher = [ACCELERATE, "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "29533", "-m"]
    proc2, res2, samples2 = run_lmms_eval(args, demo_dataset, tmp_path / "two", env_extra=clips, launcher=launcher)
    assert res1 is not None, proc1.stdout[-3000:] + proc1.stderr[-3000:]
    assert res2 is not None, proc2.stdout[-3000:] + proc2.stderr[-3000:]
    assert "rank1-world_size2" in proc2.stdout + proc2.stderr  # really two ranks
    r1, r2 = _records(samples1), _records(samples2)
    assert len(r1) == sum(len(v) for v in samples1.values())  # no padded duplicates in either run
    assert len(r2) == sum(len(v) for v in samples2.values())
    assert r1 == r2 and len(r1) > 100
    for task in TASKS.split(","):
        m1 = {k: v for k, v in res1["results"][task].items() if "stderr" not in k}
        m2 = {k: v for k, v in res2["results"][task].items() if "stderr" not in k}
        assert m1 == m2, task
        assert res1["results"][task]["accuracy_stderr_clustered,none"] == pytest.approx(
            res2["results"][task]["accuracy_stderr_clustered,none"], rel=1e-9)
    # The results name the run's settings (`streamgaze eval` annotates them), identically on both.
    assert res1["streamgaze"]["prompt_mode"] == res2["streamgaze"]["prompt_mode"] == "default"
    assert res1["streamgaze"]["protocol"] == "default" and res1["streamgaze"]["proxy"] == ""
    gta = res1["results"]["streamgaze_gta"]
    # every proactive metric has its own error (never the accuracy's), clustered by video
    assert gta["precision_stderr_clt,none"] != gta["accuracy_stderr_clt,none"]
    assert gta["fpr_stderr_clt,none"] != gta["accuracy_stderr_clt,none"]
    assert all(isinstance(gta[f"{m}_stderr_clustered,none"], float) for m in ("accuracy", "precision", "recall"))
