"""Nothing is cut that nothing reads (issue 42): `streamgaze eval` with a baseline that reads no video leaves an
empty clip cache empty, through the installed script, and so does a plain `lmms-eval` run of it with full-rate
clips asked for ($STREAMGAZE_FRAMES=full); the same runs with the baseline told to read every document's visuals
(``check_visuals=True``) fill it (so the check can fail)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..fixtures.cli_entry import streamgaze

pytestmark = pytest.mark.slow
TASKS = "streamgaze_nfi,streamgaze_oi_easy,streamgaze_gta,streamgaze_nfi_salience"


def _run(demo_dataset, tmp_path, model: str, model_args: str):
    """(the finished process, the files of its clip cache, which was empty)."""
    proc = streamgaze("eval", "--dataset", demo_dataset, "--", "--model", model, "--model_args", model_args,
                      "--tasks", TASKS, "--limit", "8", "--output_path", tmp_path / "run", tmp=tmp_path, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cache = tmp_path / "clip-cache"
    return proc, sorted(p.relative_to(cache) for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


@pytest.mark.parametrize("model", ["streamgaze_random", "streamgaze_oracle"])
def test_a_baseline_run_leaves_an_empty_clip_cache_empty(model, demo_dataset, tmp_path):
    proc, files = _run(demo_dataset, tmp_path, model, "seed=1")
    assert files == [], files[:10]
    assert "does not know how" not in proc.stderr and "full-rate clips" not in proc.stderr


def test_a_baseline_that_reads_the_visuals_gets_them(demo_dataset, tmp_path):
    _proc, files = _run(demo_dataset, tmp_path, "streamgaze_random", "seed=1,check_visuals=True")
    assert any(str(f).endswith(".mp4") for f in files) and any(str(f).endswith(".png") for f in files), files


@pytest.mark.parametrize("model_args, cut", [("seed=1", False), ("seed=1,check_visuals=True", True)])
def test_a_plain_lmms_eval_baseline_run_with_full_rate_clips_cuts_only_what_it_reads(model_args, cut, demo_dataset,
                                                                                     tmp_path):
    tasks_dir = streamgaze("tasks-dir", tmp=tmp_path).stdout.strip()
    cache = tmp_path / "clip-cache"
    env = {**os.environ, "STREAMGAZE_ROOT": str(demo_dataset), "STREAMGAZE_FRAMES": "full",
           "STREAMGAZE_CLIP_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf-home"),
           "HF_DATASETS_CACHE": str(tmp_path / "hf-datasets"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run([str(Path(sys.executable).parent / "lmms-eval"), "--include_path", tasks_dir, "--model",
                           "streamgaze_random", "--model_args", model_args, "--tasks", "streamgaze_nfi,streamgaze_oi_easy",
                           "--limit", "4", "--output_path", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=1200, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert list((tmp_path / "run").rglob("*_results.json")), proc.stderr[-3000:]  # lmms-eval exits 0 on failures
    files = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    if cut:
        assert any(p.suffix == ".mp4" for p in files), files[:10]
    else:
        assert files == [], files[:10]
