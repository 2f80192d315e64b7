"""A plain ``lmms-eval`` run of our tasks (no ``streamgaze eval``, so no plan and no run task folder: only
``--include_path``) still gets model-ready frames (issue 52 item 4): the glue reads lmms-eval's own command line
through the harness's one reader (``harness/lmms_args.py``), so the frames are made for the model lmms-eval runs,
the last ``--model`` given (a tiny random-weight Qwen2.5-VL checkpoint, built locally)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamgaze_hf.harness.backends import CHOSEN

from ..fixtures.cli_entry import streamgaze
from ..fixtures.tiny_checkpoints import tiny_checkpoints

pytestmark = pytest.mark.slow


def test_a_plain_lmms_eval_run_gets_frames_for_the_model_it_runs(demo_dataset, tmp_path, tmp_path_factory):
    qwen = tiny_checkpoints(tmp_path_factory, "qwen2_5_vl")["qwen2_5_vl"]
    tasks_dir = streamgaze("tasks-dir", tmp=tmp_path).stdout.strip()
    cache = tmp_path / "clip-cache"
    env = {**os.environ, "STREAMGAZE_ROOT": str(demo_dataset), "STREAMGAZE_CLIP_CACHE": str(cache),
           "HF_HOME": str(tmp_path / "hf-home"), "HF_DATASETS_CACHE": str(tmp_path / "hf-datasets"),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **CHOSEN}  # the readers `streamgaze eval` would choose
    env.pop("STREAMGAZE_FRAMES", None)
    env.pop("STREAMGAZE_MODEL", None)
    # two --model: lmms-eval's argparse runs the last one, and the frames must be made for it
    args = ["--model", "streamgaze_random", "--include_path", tasks_dir, "--model=qwen2_5_vl", "--model_args",
            f"pretrained={qwen},device=cpu,device_map=cpu,max_pixels=76800,min_pixels=3136,max_num_frames=6",
            "--tasks", "streamgaze_nfi", "--limit", "1", "--log_samples", "--output_path", str(tmp_path / "run")]
    proc = subprocess.run([str(Path(sys.executable).parent / "lmms-eval"), *args], capture_output=True, text=True,
                          timeout=1500, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    samples = [json.loads(line) for p in (tmp_path / "run").rglob("*_samples_*.jsonl")
               for line in p.read_text().splitlines() if line.strip()]
    assert len(samples) == 1, proc.stderr[-3000:]  # lmms-eval exits 0 on failures
    ready = samples[0]["accuracy"]["model_ready"]
    assert ready.split()[:1] == ["qwen2_5_vl/chat"], ready  # before: "" (made for the first --model)
    assert samples[0]["accuracy"]["response"].strip()  # the model lmms-eval ran answered
    made = [p for p in (cache / "ready").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert made, "no model-ready clip was made"
