"""The BIDS round trip of docs/own-recordings.md, run as written (issue 55, item 3): a built dataset keeps what its
recordings had (``events/recording_events.json``: the action timeline, the device's fixations and blinks), its
``export-bids`` carries them as physioevents, and ``build --source bids --objects none`` of the export succeeds
with the same actions (and device fixations and blinks). On the demo dataset and on a built real recording (the Pupil Cloud Neon export of
shared/real_data with a stand-in scene video at its real frame times). The rebuilt demo dataset has only the
action task, so ``stream-eval`` and ``submit`` show its undefined categories as "n/a", never "n/a%" (item 8).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.gaze.bids import read_events

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import shared_data

pytestmark = pytest.mark.slow

EVENTS = Path("events") / "recording_events.json"


def _ok(proc) -> str:
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    return proc.stdout


def _round_trip(dataset: Path, tmp_path: Path) -> tuple[Path, Path]:
    """docs/own-recordings.md "BIDS eye tracking: out and in", its first and third commands."""
    bids = tmp_path / "lab-bench-bids"
    _ok(streamgaze("export-bids", dataset, "--out", bids, tmp=tmp_path))
    again = tmp_path / "lab-bench-2"
    _ok(streamgaze("build", "streamgaze", "--raw", bids, "--source", "bids", "--out", again, "--version", "0.1.0",
                   "--objects", "none", "--no-previews", "--workers", "2", tmp=tmp_path, timeout=900))
    return bids, again


def _events(dataset: Path) -> dict:
    return json.loads((dataset / EVENTS).read_text())["videos"]


def _physioevents(bids: Path) -> dict[str, list[tuple[float, float, str, str]]]:
    """video id -> its physioevents (onset, duration, trial_type, message)."""
    out = {}
    for side in sorted(bids.glob("sub-*/beh/*_physio.json")):
        vid = json.loads(side.read_text())["SceneVideo"]["VideoId"]
        out[vid] = read_events(side.with_name(side.name.replace("_physio.json", "_physioevents.json")))
    return out


def test_the_demo_dataset_round_trips_through_bids_with_its_actions(demo_world, demo_dataset, tmp_path):
    from streamgaze_hf.gaze import load_recording

    first = _events(demo_dataset)
    assert sorted(first) == sorted(d.name for d in demo_world)
    for vid, entry in first.items():  # what the build kept is the recording's own timeline
        raw = load_recording(demo_world[0].parent, "world", vid)
        assert entry["actions"] == [{"start": a.start, "end": a.end, "label": a.label} for a in raw.actions]
        assert set(entry) == {"actions"}  # the demo world has no device fixations or blinks
    bids, again = _round_trip(demo_dataset, tmp_path)
    for vid, events in _physioevents(bids).items():
        assert [(round(a, 6), round(a + d, 6), m) for a, d, k, m in events if k == "action"] == [
            (round(a["start"], 6), round(a["end"], 6), a["label"]) for a in first[vid]["actions"]]
    assert _events(again) == first
    # the rebuild has the action task only: its other categories are undefined, shown as n/a
    run = tmp_path / "stream"
    said = _ok(streamgaze("stream-eval", again, "--out", run, "--model", "oracle", tmp=tmp_path))
    assert said.startswith(f"{run}: checkpoint protocol overall 100.0% (past n/a, present 100.0%, proactive n/a)")
    said = _ok(streamgaze("submit", run, "--dataset", again, "--model-name", "O", "--allow-oracle", "--out",
                          tmp_path / "sub.json", tmp=tmp_path))
    assert "overall 100.0% (past n/a, present 100.0%, proactive n/a)" in said and "n/a%" not in said


def test_a_built_pupil_cloud_recording_keeps_its_events_through_bids(tmp_path):
    from ..fixtures.source_fixtures import write_timed_video

    cloud = shared_data("own_recordings/pupil_cloud_export") / "neon_2024-09-17_11-06-49-171c4f52"
    rec = tmp_path / "raw" / "lab1"
    shutil.copytree(cloud, rec)
    with open(cloud / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    # the real video is not public: a still picture at the real frame times (a look needs a still scene to pass
    # the scene check, and --objects none builds only the action task, which needs looks before the actions)
    still = np.random.default_rng(0).integers(0, 255, (120, 160, 3)).astype(np.uint8)
    write_timed_video(rec / "scene.mp4", (world - world[0]) / 1e9, 160, 120, frame_at=lambda _t: still)
    built = tmp_path / "lab-bench"
    _ok(streamgaze("build", "streamgaze", "--raw", tmp_path / "raw", "--source", "pupil_cloud", "--out", built,
                   "--version", "0.1.0", "--objects", "none", "--no-previews", tmp=tmp_path, timeout=900))
    first = _events(built)["lab1"]
    with open(cloud / "blinks.csv", newline="") as fh:
        blinks = [((int(b["start timestamp [ns]"]) - world[0]) / 1e9, (int(b["end timestamp [ns]"]) - world[0]) / 1e9)
                  for b in csv.DictReader(fh)]
    with open(cloud / "fixations.csv", newline="") as fh:
        n_fixations = sum(1 for _ in csv.DictReader(fh))
    assert [a["label"] for a in first["actions"]] == [f"Picture_0{k}" for k in range(1, 6)]
    assert len(first["device_fixations"]) == n_fixations == 100
    got = np.array([(b["start"], b["end"]) for b in first["blinks"]])
    assert got.shape == (3, 2) and np.abs(got - np.array(blinks)).max() < 1e-9
    bids, again = _round_trip(built, tmp_path)
    events = _physioevents(bids)["lab1"]
    kinds = [k for _a, _d, k, _m in events]
    assert (kinds.count("action"), kinds.count("device_fixation"), kinds.count("blink")) == (5, 100, 3)
    back = _events(again)["lab1"]
    assert back["actions"] == [{**a, "start": round(a["start"], 6), "end": round(a["end"], 6)}
                               for a in first["actions"]]
    assert [(b["start"], b["end"]) for b in back["blinks"]] == [(round(b["start"], 6), round(b["end"], 6))
                                                                 for b in first["blinks"]]
    # the device's fixations too: times to the microsecond, centroids as float32, the same valid samples in each
    assert [(f["start"], f["end"], np.float32(f["x"]), np.float32(f["y"]), f["n_samples"])
            for f in back["device_fixations"]] == [
        (round(f["start"], 6), round(f["end"], 6), np.float32(f["x"]), np.float32(f["y"]), f["n_samples"])
        for f in first["device_fixations"]]
