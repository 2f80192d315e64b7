"""Nothing is cut that nothing reads (issue 42): `streamgaze eval` with a baseline that reads no video leaves an
empty clip cache empty, through the installed script; the same run with the baseline told to read every
document's visuals (``check_visuals=True``) fills it (so the check can fail)."""

from __future__ import annotations

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
