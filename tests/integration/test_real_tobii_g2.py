"""The Tobii Pro Glasses 2 reader (gaze/sources/tobii_g2.py) on a real SD-card recording: GlassesViewer's demo
recording gzz7stc (shared/real_data/own_recordings/tobii_g2; its PROVENANCE.md). Every expected value is computed
here from the real file by the format's rule, never typed in, except the counts the recording itself states
(recording.json) and PROVENANCE.md's.

The rule (Tobii Pro Glasses 2 Developer's Guide; GlassesViewer and glassesTools read it the same way): every line
is a JSON object with ``ts`` (µs) and ``s`` (status, 0 = ok); ``gp`` packets are the gaze on the scene video,
normalised, origin top-left; a ``vts`` packet ties the scene video's time ``vts`` (µs from its first frame) to the
data time ``ts``, so a sample is at video time ``ts - (ts0 - vts0)``. The scene video (fullstream.mp4, > 4 MiB) is
not in the copy: a stand-in at the recording's 1920 x 1080 and 25 fps takes its place where one is needed.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil

import numpy as np
import pytest

from streamgaze_hf.gaze.sources import tobii_g2
from streamgaze_hf.gaze.sources.registry import read_track

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import shared_data
from ..fixtures.source_fixtures import write_timed_video

G2 = shared_data("own_recordings/tobii_g2", module=True) / "gzz7stc"
LIVEDATA = G2 / "segments" / "1" / "livedata.json.gz"


def packets() -> list[dict]:
    return [json.loads(s) for s in gzip.decompress(LIVEDATA.read_bytes()).decode().splitlines() if s.strip()]


def documented():
    """(ts, valid, x, y) of every gp packet in time order, and ts0 - vts0 of the first valid vts packet."""
    lines = packets()
    gp = sorted((o for o in lines if "gp" in o), key=lambda o: o["ts"])
    vts = sorted((o for o in lines if "vts" in o and o["s"] == 0), key=lambda o: o["ts"])
    ts = np.array([o["ts"] for o in gp], dtype=np.int64)
    valid = np.array([o["s"] == 0 for o in gp])
    x = np.array([o["gp"][0] if o["s"] == 0 else np.nan for o in gp])
    y = np.array([o["gp"][1] if o["s"] == 0 else np.nan for o in gp])
    return ts, valid, x, y, vts[0]["ts"] - vts[0]["vts"]


def test_every_gp_sample_is_read_and_validity_matches_recording_json():
    lines = packets()
    assert len(lines) == 17221  # PROVENANCE.md
    stamps = [o["ts"] for o in lines]
    assert stamps != sorted(stamps)  # the file is not in time order; the reader sorts
    seg = tobii_g2.read_segment(LIVEDATA)
    ts, valid, x, y, _ = documented()
    meta = json.loads((G2 / "recording.json").read_text(encoding="utf-8"))  # the device's own counts
    samples, valid_samples = meta["rec_et_samples"], meta["rec_et_valid_samples"]
    assert len(seg.ts) == len(ts) == samples == 1424
    assert int(seg.valid.sum()) == int(valid.sum()) == valid_samples == 1331
    assert np.array_equal(seg.ts, ts) and np.array_equal(seg.valid, valid)
    bad = [o for o in lines if "gp" in o and o["s"] != 0]
    assert len(bad) == 93 and all(o["gp"] == [0, 0] for o in bad)  # the device's placeholder: no position
    assert np.isnan(seg.x[~seg.valid]).all() and np.allclose(seg.x[seg.valid], x[valid], atol=0, rtol=0)


def test_times_are_on_the_scene_videos_clock_and_samples_before_its_first_frame_are_dropped():
    ts, valid, x, y, offset = documented()
    ties = {o["ts"] - o["vts"] for o in packets() if "vts" in o}
    assert len(ties) == 1  # one offset for the whole recording, as the reference tools assume
    track = tobii_g2.read_track(G2)
    before = ts < offset  # data the G2 streamed before the scene video's frame at vts 0
    assert before.sum() == 26 and (offset - ts[0]) / 1e6 == pytest.approx(0.8, abs=0.01)
    assert len(track) == (~before).sum() == 1398
    assert np.abs(track.t - (ts[~before] - offset) / 1e6).max() < 1e-9  # the device's microseconds
    assert np.all(np.diff(track.t) > 0) and track.t[0] >= 0
    assert np.array_equal(track.valid, valid[~before])
    assert np.allclose(track.x[track.valid], x[~before][valid[~before]], rtol=0, atol=0)
    assert (track.width, track.height, track.fps) == (1920, 1080, 25.0)


def test_a_stand_in_scene_video_sets_the_frames_and_ends_the_track(tmp_path):
    """The first 5 s of the scene video at 25 fps (1920 x 1080, the G2's scene camera): samples after its last
    frame has ended are dropped as well."""
    ts, valid, _, _, offset = documented()
    video = tmp_path / "fullstream.mp4"
    write_timed_video(video, np.arange(125) / 25.0, 1920, 1080)
    track = tobii_g2.read_track(G2, video)
    keep = (ts >= offset) & (ts < offset + 125 * 40_000)
    assert len(track) == keep.sum() and np.abs(track.t - (ts[keep] - offset) / 1e6).max() < 1e-9
    assert (track.width, track.height) == (1920, 1080) and track.fps == pytest.approx(25.0, abs=0.01)


def test_gaze_command_reads_the_recording_and_says_what_it_assumed(tmp_path):
    out = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", G2, "--source", "tobii_g2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("streamgaze: warning:")]
    assert warnings == [f"streamgaze: warning: {G2}: no scene video: assumed the G2's nominal scene camera, "
                        "1920x1080 at 25 fps (the time origin is the device's vts 0); give --video SCENE.mp4 to use "
                        "the video's own"]
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    track = read_track(G2, "tobii_g2")
    assert len(rows) == len(track) == 1398 and sum(r["valid"] == "1" for r in rows) == int(track.valid.sum())
    assert [float(r["t"]) for r in rows] == pytest.approx(track.t.tolist(), abs=1e-6)


def test_off_frame_gaze_is_kept_and_marked(tmp_path):
    """gzz7stc never leaves the frame; the same recording with one sample moved to x = 1.2 keeps it, valid and
    off-frame, as every reader keeps such a point."""
    rec = tmp_path / "gzz7stc"
    shutil.copytree(G2, rec)
    lines = gzip.decompress(LIVEDATA.read_bytes()).decode().splitlines()
    i = next(k for k, s in enumerate(lines) if '"gp"' in s and '"s":0' in s and json.loads(s)["ts"] > 490_000_000)
    obj = json.loads(lines[i])
    lines[i] = json.dumps({**obj, "gp": [1.2, obj["gp"][1]]})
    (rec / "segments" / "1" / "livedata.json.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    track = tobii_g2.read_track(rec)
    k = int(np.flatnonzero(track.x > 1)[0])
    assert track.valid[k] and not track.in_frame[k] and track.x[k] == 1.2
    assert (track.x > 1).sum() == 1
