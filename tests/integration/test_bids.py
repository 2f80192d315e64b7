"""BIDS eye tracking out and in (issue 43.1-2), through the installed ``streamgaze`` script, checked by the official
validator (``bids-validator-deno``, offline, against bidsschematools' schema: tests/fixtures/bids_validator.py):

* ``export-bids`` of the demo dataset and of each real recording in shared/real_data/own_recordings gives 0 errors;
* a broken sidecar gives the validator's error (the check can fail);
* the export read back (``--source bids``) is the original track: times to the microsecond, positions to float32,
  the same validity;
* the sidecars say where each value came from; a real Pupil Cloud export with its scene video carries the
  device's fixations and blinks and the recording's actions as physioevents.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.dataset.bids_export import export_bids
from streamgaze_hf.gaze.bids import entity_label, read_events, read_physio
from streamgaze_hf.gaze.sources.registry import discover, load_recording, read_track
from streamgaze_hf.gaze.sources.wearable import AssumedVideoWarning
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.bids_validator import errors, validate
from ..fixtures.cli_entry import one_error_line, streamgaze
from ..fixtures.real_corpus import shared_data
from ..fixtures.source_fixtures import write_timed_video

OWN = shared_data("own_recordings", module=True)
REAL = [  # (source, recording): every real recording a reader places on a scene clock
    ("neon", OWN / "neon_native" / "demo_recording_v2.5"), ("neon", OWN / "neon_native" / "multi_part_v2.5"),
    ("neon", OWN / "neon_native" / "demo_recording_v2.3"), ("neon", OWN / "neon_native" / "multi_part_v2.3"),
    ("pupil_cloud", OWN / "pupil_cloud_export" / "neon_2024-09-17_11-06-49-171c4f52"),
    ("pupil_core", OWN / "pupil_core" / "1920x1080_000"),
    ("tobii_g3", OWN / "tobii_g3" / "calibration_1"), ("tobii_g3", OWN / "tobii_g3" / "calibration_tobii_1"),
    ("tobii_g2", OWN / "tobii_g2" / "gzz7stc"),
]


def physio_of(bids, sub: str):
    return bids / f"sub-{sub}" / "beh" / f"sub-{sub}_task-egocentric_recording-eye1_physio.json"


def rows_of(path) -> list[list[str]]:
    return [ln.split("\t") for ln in gzip.decompress(path.read_bytes()).decode().splitlines()]


def test_the_validator_runs_offline_and_reports_a_missing_required_field(tmp_path):
    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", OWN / "tobii_g2" / "gzz7stc", "--source", "tobii_g2", "--out", bids, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert errors(validate(bids, tmp_path)) == []
    side = physio_of(bids, "gzz7stc")
    meta = json.loads(side.read_text())
    del meta["RecordedEye"]
    side.write_text(json.dumps(meta))
    data = "/" + str(side.relative_to(bids)).replace(".json", ".tsv.gz")
    assert errors(validate(bids, tmp_path)) == [("SIDECAR_KEY_REQUIRED", "RecordedEye", data)]


def test_demo_dataset_exports_validates_and_reads_back_as_its_gaze(demo_dataset, tmp_path):
    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", demo_dataset, "--out", bids, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == f"{bids}: 3 recording(s) as BIDS eye tracking"
    report = validate(bids, tmp_path)
    assert errors(report) == []
    assert sorted(report["summary"]["subjects"]) == ["world000", "world001", "world002"]
    gaze = pq.read_table(demo_dataset / "data" / "gaze" / "test-00000-of-00001.parquet").to_pydict()
    videos = pq.read_table(demo_dataset / "data" / "videos" / "test-00000-of-00001.parquet").to_pylist()
    fixations = pq.read_table(demo_dataset / "data" / "fixations" / "test-00000-of-00001.parquet").to_pydict()
    with (bids / "participants.tsv").open(newline="") as fh:
        assert [(r["participant_id"], r["video_id"], r["source"]) for r in csv.DictReader(fh, delimiter="\t")] == [
            (f"sub-world00{k}", f"world_0_0{k}", "world") for k in range(3)]
    for k, video in enumerate(videos):
        vid, sub = video["video_id"], f"world00{k}"
        idx = [i for i, v in enumerate(gaze["video_id"]) if v == vid]
        t, x, y = (np.asarray([gaze[c][i] for i in idx], dtype=np.float64) for c in ("t", "x", "y"))
        valid = np.asarray([gaze["valid"][i] for i in idx])
        side = physio_of(bids, sub)
        meta = json.loads(side.read_text())
        assert meta["PhysioType"] == "eyetrack" and meta["RecordedEye"] == "cyclopean"
        assert meta["SampleCoordinateSystem"] == "custom" and meta["Columns"] == ["timestamp", "x_coordinate",
                                                                                  "y_coordinate", "valid"]
        assert meta["StartTime"] == round(float(t[0]), 6)
        assert meta["SamplingFrequency"] == round(1.0 / float(np.median(np.diff(t))))
        assert meta["SceneVideo"] == {"VideoId": vid, "Width": video["width"], "Height": video["height"],
                                      "FrameRate": video["fps"], "File": f"stimuli/sub-{sub}_task-egocentric.mp4"}
        assert meta["x_coordinate"]["Units"] == "1" and meta["timestamp"]["Units"] == "s"
        assert "gaze config" in meta["x_coordinate"]["Source"]
        # the round trip: times to the microsecond, positions to float32, validity
        back = read_track(side, "bids")
        assert len(back) == len(t) and np.abs(back.t - t).max() <= 5e-7
        assert np.array_equal(back.x.astype(np.float32), x.astype(np.float32), equal_nan=True)
        assert np.array_equal(back.y.astype(np.float32), y.astype(np.float32), equal_nan=True)
        assert np.array_equal(back.valid, valid) and (back.width, back.height) == (video["width"], video["height"])
        # the events: the dataset's fixations (the detector's, with its parameters) and every scene frame
        events = read_events(side.with_name(side.name.replace("_physio.json", "_physioevents.json")))
        n_fix = sum(1 for v in fixations["video_id"] if v == vid)
        assert sum(1 for e in events if e[2] == "fixation") == n_fix > 0
        assert sum(1 for e in events if e[2] == "frame") == video["n_frames"]
        ev_meta = json.loads(side.with_name(side.name.replace("_physio.json", "_physioevents.json")).read_text())
        assert "r_thresh=0.08 frame widths, min_duration=2.0 s, max_interruption=0.2 s" in ev_meta["Sources"]["fixation"]
    # the dataset as a raw source: every recording with its scene video
    assert discover(bids, "bids") == [v["video_id"] for v in videos]
    rec = load_recording(bids, "bids", videos[0]["video_id"])
    assert rec.video_path == bids / "stimuli" / "sub-world000_task-egocentric.mp4"
    out = tmp_path / "back.csv"
    proc = streamgaze("gaze", physio_of(bids, "world001"), "--source", "bids", "--out", out, tmp=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    with out.open(newline="") as fh:
        assert sum(1 for _ in csv.DictReader(fh)) == gaze["video_id"].count(videos[1]["video_id"])


@pytest.mark.parametrize("source,path", REAL, ids=[f"{s}-{p.name}" for s, p in REAL])
def test_each_real_recording_exports_and_validates(source, path, tmp_path):
    """The library call behind ``export-bids`` (the script is run on gzz7stc, the Cloud export and the demo
    dataset above and below; here one process for the nine, as the vendor loader's import is slow)."""
    bids = tmp_path / "bids"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AssumedVideoWarning)  # no scene video in the copies: said, then assumed
        assert export_bids(path, bids, raw_source=source, progress=False) == [(path.name, entity_label(path.name))]
    assert errors(validate(bids, tmp_path)) == []
    track = read_track(path, source)
    [side] = sorted(bids.glob("sub-*/beh/*_physio.json"))
    meta = json.loads(side.read_text())
    rows = rows_of(side.with_name(side.name.replace(".json", ".tsv.gz")))
    assert len(rows) == len(track) and sum(r[3] == "1" for r in rows) == int(track.valid.sum())
    assert meta["SceneVideo"]["Width"] == track.width and meta["Manufacturer"] in ("Pupil Labs", "Tobii")
    assert meta["x_coordinate"]["Source"].startswith(f"device: read by the toolkit's {source} reader")
    back = read_physio(side)
    assert np.abs(back.t - track.t).max() <= 5e-7
    assert np.array_equal(back.x.astype(np.float32), track.x.astype(np.float32), equal_nan=True)


def test_a_recording_no_reader_can_place_is_refused_with_the_readers_reason(tmp_path):
    """The Pupil Invisible Cloud export has no world_timestamps.csv: no scene clock, so nothing to export."""
    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", OWN / "pupil_cloud_export" / "invisible_trampoline_02", "--source", "pupil_cloud",
                      "--out", bids, tmp=tmp_path)
    line = one_error_line(proc)
    assert "world_timestamps.csv" in line and "not found" in line and not bids.exists()


def test_device_fixations_blinks_and_actions_become_physioevents(tmp_path):
    """The real Pupil Cloud export with a stand-in scene video (its first 40 frames at their real times): the
    device's 100 fixations and the blinks inside the scene parts, the actions of its events, the video's frames."""
    src = OWN / "pupil_cloud_export" / "neon_2024-09-17_11-06-49-171c4f52"
    rec = tmp_path / "raw" / "rec1"
    shutil.copytree(src, rec)
    with open(src / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    write_timed_video(rec / "scene.mp4", (world[:40] - world[0]) / 1e9, 160, 120)
    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", rec, "--source", "pupil_cloud", "--out", bids, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert errors(validate(bids, tmp_path)) == []
    r = load_recording(tmp_path / "raw", "pupil_cloud", "rec1")
    side = physio_of(bids, "rec1")
    events = read_events(side.with_name(side.name.replace("_physio.json", "_physioevents.json")))
    kinds = {k: sum(1 for e in events if e[2] == k) for k in ("fixation", "device_fixation", "blink", "frame", "action")}
    assert kinds["device_fixation"] == len(r.device_fixations) == 100
    assert kinds["blink"] == len(r.device_blinks) == 3 and kinds["frame"] == 40
    assert kinds["action"] == len(r.actions) == 5
    assert [e[3] for e in events if e[2] == "action"] == [a.label for a in r.actions]
    meta = json.loads(side.with_name(side.name.replace("_physio.json", "_physioevents.json")).read_text())
    assert meta["Sources"]["blink"] == "device: the pupil_cloud recording's own blinks"
    assert (bids / "stimuli" / "sub-rec1_task-egocentric.mp4").is_file()
    # read back as a raw source: the same track and the actions
    back = load_recording(bids, "bids", "rec1")
    assert [(a.start, a.label) for a in back.actions] == [(pytest.approx(a.start, abs=1e-6), a.label)
                                                          for a in r.actions]
    keep = r.track.t < back.track.t[-1] + 1e-9
    assert np.abs(back.track.t - r.track.t[keep]).max() <= 5e-7


def test_export_arguments_are_checked_before_any_work(tmp_path):
    (tmp_path / "taken").mkdir()
    proc = streamgaze("export-bids", OWN / "tobii_g2" / "gzz7stc", "--source", "tobii_g2", "--out", tmp_path / "taken",
                      tmp=tmp_path)
    assert one_error_line(proc) == (f"streamgaze export-bids: error: {tmp_path / 'taken'}: already exists (give --force "
                                    "to replace it)")
    proc = streamgaze("export-bids", tmp_path / "nothing", "--out", tmp_path / "b", tmp=tmp_path)
    assert "no dataset here" in one_error_line(proc) and not (tmp_path / "b").exists()


def test_the_export_loads_in_pymovements_and_its_detectors_run(tmp_path):
    """gzz7stc's export in pymovements (gaze/pymovements_io.py, the docs' how-to): every sample, in the scene
    camera's degrees (the G2's 82° across the frame: the frame's centre is 0°, its edges ±41°), invalid samples
    without a position, and I-VT and I-DT finding fixations that start and end on samples."""
    from streamgaze_hf.gaze.pymovements_io import fixations, physio_gaze

    bids = tmp_path / "bids"
    proc = streamgaze("export-bids", OWN / "tobii_g2" / "gzz7stc", "--source", "tobii_g2", "--out", bids, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    side = physio_of(bids, "gzz7stc")
    track = read_track(OWN / "tobii_g2" / "gzz7stc", "tobii_g2")
    gaze = physio_gaze(side)
    samples = gaze.samples
    assert len(samples) == len(track) == 1398
    assert samples["time"].to_list() == np.round(track.t * 1000).astype(int).tolist()
    pos = np.array([p if p is not None else [np.nan, np.nan] for p in samples["position"].to_list()], dtype=float)
    assert np.array_equal(np.isfinite(pos[:, 0]), track.valid)
    # the pinhole mapping: x = 0.5 + tan(angle) / (2 tan(41°)) across the 1920 px
    expected = np.degrees(np.arctan((track.x[track.valid] - 0.5) * 2 * np.tan(np.radians(41.0))))
    assert np.abs(pos[track.valid, 0] - expected).max() < 0.05  # pymovements measures to pixel centres
    times = set(np.round(track.t * 1000).astype(int).tolist())
    for method in ("ivt", "idt"):
        found = fixations(gaze, method)
        assert len(found) > 10, method
        assert all(round(a * 1000) in times and round(b * 1000) in times and b > a for a, b in found)


def test_reading_every_recording_parses_each_sidecar_once_and_sees_an_edited_one(demo_dataset, tmp_path, monkeypatch):
    """A build discovers a BIDS dataset and loads each of its recordings: the dataset's index is worked out once
    (each eyetrack sidecar parsed once for it, then once more when its recording's samples are read), not once per
    recording (it was N² parses); a sidecar edited since is read again."""
    import streamgaze_hf.gaze.bids as bids_io

    bids = tmp_path / "bids"
    export_bids(demo_dataset, bids, progress=False)
    parsed: list[str] = []
    original = bids_io.read_sidecar

    def counting(path):
        parsed.append(Path(path).name)
        return original(path)

    monkeypatch.setattr(bids_io, "read_sidecar", counting)
    vids = discover(bids, "bids")
    assert vids == ["world_0_00", "world_0_01", "world_0_02"]
    for vid in vids:
        assert load_recording(bids, "bids", vid).video_id == vid
    physio = sorted(p for p in parsed if p.endswith("_physio.json"))
    assert physio == sorted(2 * [physio_of(bids, f"world00{k}").name for k in range(3)]), parsed
    # an edited sidecar (another video id) is read again, not served from the index
    side = physio_of(bids, "world001")
    meta = json.loads(side.read_text())
    meta["SceneVideo"]["VideoId"] = "renamed"
    side.write_text(json.dumps(meta))
    assert load_recording(bids, "bids", "renamed").video_id == "renamed"
    with pytest.raises(StreamGazeError, match="no recording 'world_0_01' in this BIDS dataset"):
        load_recording(bids, "bids", "world_0_01")
