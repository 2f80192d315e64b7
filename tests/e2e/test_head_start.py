"""The head start (issue 52 item 7): `streamgaze eval` registers the run's documents with the frame scheduler before
lmms-eval starts, so the first passes run during lmms-eval's start-up and the model's load. A stand-in of lmms-eval's
LLaVA-OneVision wrapper (perf/standin: its own reading code; built, it sleeps ``$STREAMGAZE_STANDIN_LOAD`` s, a
real model's load) asks for the documents; the results file says what the head start and the background did, and the
stand-in's trace when its load ended and its first read returned."""

from __future__ import annotations

import json
import os

import pytest

from ..fixtures.cli_entry import REPO, streamgaze

pytestmark = pytest.mark.slow
LIMIT = 4
LOAD_S = 6.0  # the stand-in model's load (the head start makes the clips meanwhile: seconds on a busy machine)


def _processor(tmp_path):
    """A ``pretrained`` folder with only a video-processor configuration (what sizes the model-ready frames)."""
    processor = tmp_path / "llava-processor"
    processor.mkdir(exist_ok=True)
    (processor / "video_preprocessor_config.json").write_text(json.dumps(
        {"do_resize": True, "resample": 3, "size": {"height": 96, "width": 96}}))
    return processor


def _eval(demo_dataset, tmp_path, **env) -> tuple[dict, dict]:
    processor = _processor(tmp_path)
    standin = str(REPO / "perf" / "standin")
    env = {"PYTHONPATH": os.pathsep.join([standin, os.environ.get("PYTHONPATH", "")]), "STREAMGAZE_STANDIN_SLEEP": "0",
           "STREAMGAZE_STANDIN_LOAD": str(LOAD_S), "STREAMGAZE_PREFETCH": "2",
           "STREAMGAZE_STANDIN_TRACE": str(tmp_path / "standin.json"), **env}
    out = tmp_path / "run"
    proc = streamgaze("eval", "--dataset", demo_dataset, "--", "--model", "llava_hf", "--force_simple",
                      "--model_args", f"pretrained={processor},max_frames_num=4", "--tasks", "streamgaze_nfi_nogaze",
                      "--limit", LIMIT, "--output_path", out, tmp=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(sorted(out.rglob("*_results.json"))[-1].read_text())["streamgaze"]
    return results, json.loads((tmp_path / "standin.json").read_text())


def test_the_first_passes_run_before_the_model_asks(demo_dataset, tmp_path):
    """Every clip of the run is written before the model's first ask (it loads for LOAD_S s after lmms-eval's start-up);
    without the head start the documents reach the scheduler only after the model is built."""
    run, standin = _eval(demo_dataset, tmp_path)
    head, background = run["head_start"], run["background"]
    assert background["clips"] == LIMIT and background["late"] == 0, background  # four windows, each its own clip
    assert standin["load_ended"] - standin["load_began"] >= LOAD_S
    # planned while the model was being built: the scheduler was sealed planned_ahead_s before the first ask, which
    # came before the stand-in's first read returned (the glue alone registers the documents after the load)
    sealed_at_latest = standin["first_read_returned"] - background["planned_ahead_s"]
    assert sealed_at_latest < standin["load_ended"], (background, standin)
    assert background["units_at_first_ask"] == background["units"] > 0, background
    assert background["clips_at_first_ask"] == LIMIT and background["waits"] == 0, background
    assert run["video_read"]["questions"] == LIMIT
    assert {k: head[k] for k in ("tasks", "documents")} == {"tasks": 1, "documents": LIMIT}, head
    assert "error" not in head and "skipped" not in head, head


def test_a_distributed_run_gets_no_head_start(demo_dataset, tmp_path):
    """With ``WORLD_SIZE`` > 1 each rank registers its own shard as lmms-eval loads it: the run's plan gets no head
    start (no thread, nothing registered); the same plan in one process gets one. (lmms-eval cannot finish a
    ``WORLD_SIZE=2`` run of one process, so this is the plan's decision itself.)"""
    from streamgaze_hf.evaluation import prefetch
    from streamgaze_hf.harness.head_start import start_head_start
    from streamgaze_hf.harness.plan import plan_evaluation

    plan = plan_evaluation(str(demo_dataset), ["--model", "llava_hf", "--force_simple", "--model_args",
                                               f"pretrained={_processor(tmp_path)},max_frames_num=4",
                                               "--tasks", "streamgaze_nfi_nogaze", "--limit", str(LIMIT)])
    head = start_head_start(plan, {"WORLD_SIZE": "2", "RANK": "0"})
    assert not head.started and prefetch.current_prefetcher() is None
    assert head.join() == {"skipped": "a distributed run (WORLD_SIZE=2): each rank registers its own documents"}
    assert start_head_start(plan, {"WORLD_SIZE": "1"}).started  # the same plan, one process
    prefetch.stop_prefetch()
