"""`streamgaze clips warm --model` makes a run's model-ready clips ahead, through the installed script, and a second
warm finds them all (issue 36 item 3; moved out of `make test`: it warms the demo dataset's windows twice)."""

from __future__ import annotations

import json

from ..fixtures.cli_entry import streamgaze


def test_clips_warm_prepares_the_model_ready_clips_of_a_run(demo_dataset, tmp_path):
    args = ("clips", "warm", "--dataset", demo_dataset, "--tasks", "nfi", "gta", "--model", "openai",
            "--force_simple", "--model_args", "max_frames_num=8,api_key=sk-not-recorded")
    proc = streamgaze(*args, tmp=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ready = sorted((tmp_path / "clip-cache" / "ready").rglob("*.mov"))
    assert ready, proc.stdout + proc.stderr
    sides = [json.loads(p.with_name(p.name + ".json").read_text()) for p in ready]
    assert {s["spec"] for s in sides} == {"openai/simple max_frames_num=8 video_fps=null reader=decord v1"}
    assert all(s["n_frames"] <= 9 for s in sides) and "sk-not" not in proc.stdout + proc.stderr
    first = proc.stdout
    proc = streamgaze(*args, tmp=tmp_path, timeout=900)
    assert proc.returncode == 0 and " 0 built" in proc.stdout and " 0 built" not in first, (first, proc.stdout)
