"""`streamgaze clips warm --model` makes a run's model-ready clips ahead, through the installed script, and a second
warm finds them all (issue 36 item 3; moved out of `make test`: it warms the demo dataset's windows twice). Two
worker processes write the frames of one pass straight into the same clips: every clip holds its source frames."""

from __future__ import annotations

import json

import numpy as np

from ..fixtures.cli_entry import streamgaze


def test_clips_warm_prepares_the_model_ready_clips_of_a_run(demo_dataset, tmp_path):
    args = ("clips", "warm", "--dataset", demo_dataset, "--tasks", "nfi", "gta", "--model", "openai",
            "--force_simple", "--model_args", "max_frames_num=8,api_key=sk-not-recorded", "--workers", "2")
    proc = streamgaze(*args, tmp=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ready = sorted((tmp_path / "clip-cache" / "ready").rglob("*.mov"))
    assert ready, proc.stdout + proc.stderr
    sides = [json.loads(p.with_name(p.name + ".json").read_text()) for p in ready]
    assert {s["spec"] for s in sides} == {"openai/simple max_frames_num=8 video_fps=null reader=decord v2"}
    assert all(s["n_frames"] <= 9 for s in sides) and "sk-not" not in proc.stdout + proc.stderr
    import decord

    for path, side in list(zip(ready, sides))[:: max(1, len(ready) // 12)]:  # the source is the truth
        got = decord.VideoReader(str(path)).get_batch(list(range(side["n_frames"]))).asnumpy()
        want = decord.VideoReader(side["source"]).get_batch(side["source_indices"]).asnumpy()
        assert np.array_equal(got, want), path
    first = proc.stdout
    proc = streamgaze(*args, tmp=tmp_path, timeout=900)
    assert proc.returncode == 0 and " 0 built" in proc.stdout and " 0 built" not in first, (first, proc.stdout)
