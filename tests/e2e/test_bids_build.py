"""BIDS in, a benchmark out: a demo recording with its action labels is exported with ``streamgaze export-bids
--source world`` and built back with ``streamgaze build streamgaze --source bids --objects none`` (the console
script, other processes). The build's gaze is the original track (times to the microsecond, positions to
float32), its actions come back through the physioevents, and the action task has its questions.
"""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.dataset.files import read_manifest
from streamgaze_hf.dataset.load import open_dataset
from streamgaze_hf.demo.world import generate_world
from streamgaze_hf.gaze.sources.registry import load_recording

from ..fixtures.cli_entry import streamgaze

pytestmark = pytest.mark.slow


def test_a_recording_exported_to_bids_builds_back(tmp_path):
    rec = generate_world(tmp_path / "world", n_videos=1, seed=3, duration=40.0, width=160, height=120, fps=8.0,
                         progress=False)[0]
    original = load_recording(rec.parent, "world", rec.name)
    assert len({a.label for a in original.actions}) >= 4
    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", rec, "--source", "world", "--out", bids, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "bench"
    proc = streamgaze("build", "streamgaze", "--raw", bids, "--source", "bids", "--objects", "none", "--out", out,
                      "--version", "0.1.0", "--no-previews", tmp=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert read_manifest(out)["build"]["source"] == "bids" and open_dataset(out).question_counts()["fap"] >= 1
    back = load_recording(bids, "bids", rec.name)
    assert [(round(a.start, 6), round(a.end, 6), a.label) for a in back.actions] == \
        [(round(a.start, 6), round(a.end, 6), a.label) for a in original.actions]
    gaze = pq.read_table(out / "data" / "gaze" / "test-00000-of-00001.parquet").to_pydict()
    t = np.asarray(gaze["t"])
    keep = original.track.t <= t[-1] + 1e-9
    assert len(t) == keep.sum() and np.abs(t - original.track.t[keep]).max() <= 5e-7
    x = np.asarray(gaze["x"], dtype=np.float64)
    assert np.array_equal(x.astype(np.float32), original.track.x[keep].astype(np.float32), equal_nan=True)
    assert gaze["valid"] == original.track.valid[keep].tolist()
