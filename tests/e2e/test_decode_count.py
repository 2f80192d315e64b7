"""Each source frame decoded at most once per run (issue 42): a `streamgaze eval` run of past, present and proactive
questions of the demo videos in two gaze variants that show the same file (`_nogaze`, `_textgaze`), with a real
lmms-eval wrapper (LLaVA-OneVision on a tiny random-weight checkpoint) reading model-ready clips; every frame the
toolkit decodes from a source is counted (``video/one_pass.decoded_counts``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import prepare_clip
from streamgaze_hf.video.one_pass import decoded_counts, reset_decoded_counts

from ..fixtures.cli_entry import REPO
from ..fixtures.tiny_checkpoints import tiny_checkpoints
from ..fixtures.wrapper_equality import write_camera_source

pytestmark = pytest.mark.slow
TASKS = [f"streamgaze_{t}{s}" for s in ("_nogaze", "_textgaze") for t in ("nfi", "oi_easy", "gta")]


def test_a_run_decodes_no_source_frame_twice(demo_dataset, tmp_path, tmp_path_factory):
    ckpt = tiny_checkpoints(tmp_path_factory, "llava_onevision")["llava_onevision"]
    out = tmp_path / "counts.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "STREAMGAZE_CLIP_CACHE": str(tmp_path / "clips"), "HF_HOME": str(tmp_path / "hf-home")}
    proc = subprocess.run(
        [sys.executable, str(REPO / "tests" / "fixtures" / "decode_count_run.py"), str(out), "eval", "--dataset",
         str(demo_dataset), "--", "--model", "streamgaze_llava_hf", "--model_args",
         f"pretrained={ckpt},device=cpu,device_map=cpu,max_frames_num=6", "--tasks", ",".join(TASKS),
         "--limit", "6", "--output_path", str(tmp_path / "run"), "--log_samples"],
        capture_output=True, text=True, timeout=1800, env=env, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(out.read_text())
    counts = report["counts"]
    originals = {p for p in counts if "/videos/original/" in p}
    assert originals and set(counts) == originals  # the variants shown: the original videos only
    assert all(n == 1 for c in counts.values() for n in c.values()), {
        p: {i: n for i, n in c.items() if n > 1} for p, c in counts.items()}  # no frame decoded twice
    stats = report["scheduler"]
    assert stats["late"] == 0 and stats["legacy"] == 0 and stats["clips"] >= 9, stats
    assert sum(len(c) for c in counts.values()) == stats["decoded"]  # every decoded frame came from a pass
    # where the background's CPU went: each step took some, and together no more than the whole
    assert min(stats["decode_s"], stats["frames_s"], stats["write_s"]) > 0, stats
    assert stats["decode_s"] + stats["frames_s"] + stats["write_s"] <= stats["cpu_s"] + 1e-6, stats
    files = {name: p for p in (tmp_path / "run").rglob("*samples_*.jsonl") for name in TASKS
             if p.name.split("samples_", 1)[1].startswith(name + "_2") or p.stem.endswith(name)}
    assert set(files) == set(TASKS), sorted(p.name for p in (tmp_path / "run").rglob("*.jsonl"))
    samples = [json.loads(line) for p in files.values() for line in p.read_text().splitlines()]
    assert {s["accuracy"]["model_ready"].split()[0] for s in samples} == {"streamgaze_llava_hf/chat"}
    cache = tmp_path / "clips"
    assert list(cache.glob("ready/*/*.mov")) and not list(cache.glob("??/*.mp4"))  # no full-rate clip was cut


def test_the_count_sees_a_frame_decoded_twice(tmp_path):
    """The counter catches double decodes: two overlapping windows of a camera-layout source cut one at a time
    (smart cuts re-encode their partial GOPs, decoding them from the source) decode some frames twice."""
    clips._clear_memos()
    src = write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=20)
    reset_decoded_counts()
    for start, end in ((3.3, 17.1), (4.1, 16.2)):
        prepare_clip(src, start, end, cache_dir=tmp_path / "cache")
    counts = decoded_counts()[str(Path(src).resolve())]
    assert max(counts.values()) >= 2
