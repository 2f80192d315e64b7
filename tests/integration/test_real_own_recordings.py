"""The readers of people's own glasses (neon, pupil_cloud, pupil_core, tobii_g3) on real public recordings
(shared/real_data/own_recordings; its PROVENANCE.md, and tests/data/real/PROVENANCE.md), compared with the
vendor's reader where one is published (``pupil-labs-neon-recording``, the official loader of native Neon
recordings) or with the format's documentation, the rule named where it is re-implemented. Nothing is typed
in by hand: every expected value is computed from the real file.

The scene clock every reader shares (gaze/sources/wearable.py): t = device time - the first scene frame's
device time; a recording in parts is joined, part k starting one frame period (the median interval of its
own frame timestamps) after part k - 1's last frame; samples outside every part's span
[first frame, last frame + one period) are dropped.
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.gaze.sources import neon, pupil_cloud, pupil_core, tobii_g3
from streamgaze_hf.gaze.sources.registry import read_track

from ..fixtures.cli_entry import one_error_line, streamgaze
from ..fixtures.real_corpus import shared_data

NEON = shared_data("own_recordings/neon_native", module=True)
CLOUD = shared_data("own_recordings/pupil_cloud_export", module=True)
CORE = shared_data("own_recordings/pupil_core", module=True)
TOBII = shared_data("own_recordings/tobii_g3", module=True)
NEON_RECORDINGS = ("demo_recording_v2.5", "multi_part_v2.5", "demo_recording_v2.3", "multi_part_v2.3")
CLOUD_NEON = CLOUD / "neon_2024-09-17_11-06-49-171c4f52"
CLOUD_INVISIBLE = CLOUD / "invisible_trampoline_02"
CORE_REC = CORE / "1920x1080_000"
TOBII_RECORDINGS = ("calibration_1", "calibration_tobii_1")
NEON_W, NEON_H = 1600, 1200


def expected_clock(parts: list[np.ndarray], unit: float):
    """The shared scene-clock rule (module docstring): per part (first, end of span, offset in seconds)."""
    out, offset = [], 0.0
    for p in parts:
        period = float(np.median(np.diff(p)))
        out.append((p[0], p[-1] + period, offset))
        offset += (float(p[-1] - p[0]) + period) * unit
    return out


def on_clock(ts: np.ndarray, spans, unit: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.full(len(ts), np.nan)
    keep = np.zeros(len(ts), dtype=bool)
    for first, end, offset in spans:
        m = (ts >= first) & (ts < end)
        t[m] = offset + (ts[m] - first).astype(np.float64) * unit
        keep |= m
    return t, keep


def assert_matches(track, t, x_px, y_px, valid, width, height):
    """Counts, every timestamp (hence first/last), positions within 0.5 px, validity."""
    assert len(track) == len(t)
    assert track.t[0] == pytest.approx(t[0], abs=1e-9) and track.t[-1] == pytest.approx(t[-1], abs=1e-9)
    assert np.allclose(track.t, t, rtol=0, atol=1e-9)
    both = np.isfinite(x_px)
    assert np.array_equal(np.isfinite(track.x), both)
    assert np.abs(track.x[both] * width - x_px[both]).max(initial=0) < 0.5
    assert np.abs(track.y[both] * height - y_px[both]).max(initial=0) < 0.5
    assert np.array_equal(track.valid, valid)


# --- Neon native: the vendor's loader -------------------------------------------------------------------------
# Reference: pupil_labs.neon_recording 2.1.6 (the pinned vendor loader) on the same folder: gaze (the 200 Hz file
# when present), worn (bytes; 0 = not worn), blinks (start_time / stop_time, ns). Scene frame timestamps: the
# 'Neon Scene Camera v1 ps<k>.time' files (int64 ns), part by part (the loader's `scene` needs the video, absent).

def vendor_neon(name: str):
    nr = neon.vendor()  # the vendor's module (imported leaving PyAV's log level alone)
    rec = nr.open(NEON / name)
    ts = np.asarray(rec.gaze.time, dtype=np.int64)
    point = np.asarray(rec.gaze.point, dtype=np.float64)
    valid = np.isfinite(point).all(axis=1) & (np.asarray(rec.worn.worn) != 0)
    try:
        blinks = rec.blinks
    except nr.NeonRecording.SensorError:  # data format 2.3: no blink stream
        blinks = None
    if blinks is not None:
        for a, b in zip(np.asarray(blinks.start_time), np.asarray(blinks.stop_time)):
            valid &= ~((ts >= a) & (ts <= b))
    scene = sorted((NEON / name).glob("Neon Scene Camera v1 ps*.time"), key=lambda p: int(p.stem.rsplit("ps", 1)[1]))
    return ts, point, valid, [np.fromfile(p, dtype="<i8") for p in scene]


@pytest.mark.parametrize("name", NEON_RECORDINGS)
def test_neon_track_is_the_vendor_loaders_gaze_on_the_scene_clock(name):
    ts, point, valid, scene = vendor_neon(name)
    t, keep = on_clock(ts, expected_clock(scene, 1e-9), 1e-9)
    track = neon.read_track(NEON / name)
    assert (track.width, track.height) == (NEON_W, NEON_H)
    assert_matches(track, t[keep], point[keep, 0], point[keep, 1], valid[keep], NEON_W, NEON_H)
    # what is dropped is exactly what no scene frame shows (before the first frame, between parts, after the end)
    assert keep.sum() < len(ts) and len(track) == keep.sum()


def test_neon_not_worn_and_blink_samples_are_invalid():
    """multi_part_v2.5: 242 samples with worn byte 0 (PROVENANCE); demo_recording_v2.5: 2 blinks."""
    ts, _, valid, scene = vendor_neon("multi_part_v2.5")
    nr = neon.vendor()
    worn = np.asarray(nr.open(NEON / "multi_part_v2.5").worn.worn)
    assert (worn == 0).sum() == 242 and set(np.unique(worn)) == {0, 255}
    _, keep = on_clock(ts, expected_clock(scene, 1e-9), 1e-9)
    track = neon.read_track(NEON / "multi_part_v2.5")
    assert (~track.valid).sum() == ((worn == 0) & keep).sum() > 0
    blinks = nr.open(NEON / "demo_recording_v2.5").blinks
    track = neon.read_track(NEON / "demo_recording_v2.5")
    dts, _, _, dscene = vendor_neon("demo_recording_v2.5")
    first = dscene[0][0]
    for a, b in zip(np.asarray(blinks.start_time), np.asarray(blinks.stop_time)):
        inside = (track.t >= (a - first) / 1e9 - 1e-9) & (track.t <= (b - first) / 1e9 + 1e-9)
        assert inside.any() and not track.valid[inside].any()


@pytest.mark.parametrize("name", ("multi_part_v2.5", "multi_part_v2.3"))
def test_neon_multi_part_reads_as_one_track_without_gap_or_overlap(name):
    """Three parts with pauses of 10-20 s between them: one track; on the joined clock part k+1's first frame
    follows part k's last frame by exactly one frame period (no gap) and every sample of part k lies in part
    k's span (no overlap)."""
    _, _, _, scene = vendor_neon(name)
    assert len(scene) == 3
    clock = neon.scene_clock(NEON / name)
    frames = clock.frame_times
    assert len(frames) == sum(len(p) for p in scene) and np.all(np.diff(frames) > 0)
    joins = np.cumsum([len(p) for p in scene])[:-1]
    for k, j in enumerate(joins):
        assert frames[j] - frames[j - 1] == pytest.approx(float(np.median(np.diff(scene[k]))) / 1e9, abs=1e-9)
        real_pause = (scene[k + 1][0] - scene[k][-1]) / 1e9
        assert real_pause > 5.0  # the device paused; the joined clock does not
    track = neon.read_track(NEON / name)
    assert np.all(np.diff(track.t) > 0)
    bounds = [*clock.offsets, clock.duration]
    part = np.searchsorted(bounds, track.t, side="right") - 1
    assert set(part.tolist()) == {0, 1, 2} and part.min() >= 0 and part.max() <= 2
    assert track.t[-1] < clock.duration


def test_the_vendor_loader_leaves_pyav_logging_alone():
    """pupil_labs.video (imported by the loader) sets PyAV's FFmpeg log level to VERBOSE at import, for the whole
    process: a Python callback for every decoder message, which deadlocked a threaded H.264 decode in another
    test of the same worker. The reader imports it through neon.vendor(), which puts the level back."""
    import subprocess
    import sys

    code = ("import av; before = av.logging.get_level(); from streamgaze_hf.gaze.sources import neon; "
            "neon.read_track(sys.argv[1]); import pupil_labs.video; print(before, av.logging.get_level())")
    out = subprocess.run([sys.executable, "-c", "import sys; " + code, str(NEON / "demo_recording_v2.5")],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None", "None"]


def test_neon_v23_200hz_timestamps_are_the_vendors():
    """multi_part_v2.3: gaze_200hz.time holds float64-rounded timestamps (PROVENANCE); the loader uses that
    file, and so do we (the same samples as the real-time parts, up to 128 ns)."""
    ts, _, _, _ = vendor_neon("multi_part_v2.3")
    rt = np.concatenate([np.fromfile(p, dtype="<i8") for p in sorted((NEON / "multi_part_v2.3").glob("gaze ps*.time"))])
    assert len(ts) == len(rt) == 2659 and np.abs(ts - rt).max() <= 128 and (ts % 256 == 0).all()


# --- Pupil Cloud export: the documented CSV columns -----------------------------------------------------------
# Rule (Pupil Labs docs, "Timeseries Data"): gaze.csv `timestamp [ns]`, `gaze x [px]`, `gaze y [px]` (scene camera
# pixels), `worn` (1/0), `blink id` (empty when no blink); world_timestamps.csv `timestamp [ns]` per scene frame;
# blinks.csv `start/end timestamp [ns]`.

def documented_cloud_gaze(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    ts = np.array([int(r["timestamp [ns]"]) for r in rows], dtype=np.int64)
    x = np.array([float(r["gaze x [px]"] or "nan") for r in rows])
    y = np.array([float(r["gaze y [px]"] or "nan") for r in rows])
    valid = np.array([float(r["worn"]) == 1 and not r["blink id"] for r in rows]) & np.isfinite(x) & np.isfinite(y)
    return ts, x, y, valid, rows


def test_pupil_cloud_neon_export_follows_the_documented_columns():
    ts, x, y, valid, rows = documented_cloud_gaze(CLOUD_NEON / "gaze.csv")
    with open(CLOUD_NEON / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    assert (len(rows), len(world)) == (6644, 1032)
    assert {r["worn"] for r in rows} == {"1.0"}
    t, keep = on_clock(ts, expected_clock([world], 1e-9), 1e-9)
    track = pupil_cloud.read_track(CLOUD_NEON / "gaze.csv")
    assert_matches(track, t[keep], x[keep], y[keep], valid[keep], NEON_W, NEON_H)
    assert keep.all() and (~track.valid).sum() == sum(1 for r in rows if r["blink id"]) > 0


def test_pupil_cloud_invisible_gaze_rows_and_missing_world_timestamps():
    """The Invisible export (no world_timestamps.csv in the source): every row read by the documented rule
    (worn written as `1`, 32 blinks); the track needs the scene timestamps and says so, naming the file."""
    ts, x, y, valid, rows = documented_cloud_gaze(CLOUD_INVISIBLE / "gaze.csv")
    gts, gx, gy, gvalid = pupil_cloud.gaze_samples(CLOUD_INVISIBLE / "gaze.csv")
    assert len(gts) == len(rows) == 5338 and np.array_equal(gts, ts)
    assert np.array_equal(gx, x) and np.array_equal(gy, y) and np.array_equal(gvalid, valid)
    assert (~gvalid).sum() == sum(1 for r in rows if r["blink id"]) == 2103
    proc = streamgaze("gaze", CLOUD_INVISIBLE / "gaze.csv", "--source", "pupil_cloud", "--out", "/dev/null")
    line = one_error_line(proc)
    assert "world_timestamps.csv" in line and "not found" in line


def _load_counting_reads(raw, video_id):
    """``pupil_cloud.load_recording``, asserting that it reads each of blinks.csv and fixations.csv once."""
    read = []
    real_read = pupil_cloud.read_intervals

    def counted(path):
        read.append(Path(path).name)
        return real_read(path)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pupil_cloud, "read_intervals", counted)
        r = pupil_cloud.load_recording(raw, video_id)
    assert sorted(read) == ["blinks.csv", "fixations.csv"]
    return r


def assert_device_blinks(r, world):
    """The recording's device blinks are blinks.csv's rows on the scene clock (the first world timestamp is 0)."""
    with open(CLOUD_NEON / "blinks.csv", newline="") as fh:
        bl = list(csv.DictReader(fh))
    assert len(r.device_blinks) == len(bl) > 0
    for (start, end), row in zip(r.device_blinks, bl):
        assert start == pytest.approx((int(row["start timestamp [ns]"]) - world[0]) / 1e9, abs=1e-9)
        assert end == pytest.approx((int(row["end timestamp [ns]"]) - world[0]) / 1e9, abs=1e-9)


def test_an_older_pupil_cloud_export_takes_its_blinks_from_blinks_csv_read_once(tmp_path):
    """An export whose gaze.csv has no ``blink id`` column (before Cloud wrote one): a sample inside a blinks.csv
    interval is invalid, and the file is read once for both the track and the device blinks."""
    from ..fixtures.source_fixtures import write_timed_video

    rec = tmp_path / "raw" / "rec1"
    shutil.copytree(CLOUD_NEON, rec)
    with open(CLOUD_NEON / "gaze.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    drop = rows[0].index("blink id")
    with open(rec / "gaze.csv", "w", newline="") as fh:
        csv.writer(fh).writerows([v for k, v in enumerate(row) if k != drop] for row in rows)
    with open(CLOUD_NEON / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    write_timed_video(rec / "scene.mp4", (world[:40] - world[0]) / 1e9, NEON_W, NEON_H)
    r = _load_counting_reads(tmp_path / "raw", "rec1")
    assert_device_blinks(r, world)
    ts, x, y, _valid, rows = documented_cloud_gaze(CLOUD_NEON / "gaze.csv")
    with open(CLOUD_NEON / "blinks.csv", newline="") as fh:
        spans = [(int(b["start timestamp [ns]"]), int(b["end timestamp [ns]"])) for b in csv.DictReader(fh)]
    in_blink = np.zeros(len(ts), bool)
    for a, b in spans:
        in_blink |= (ts >= a) & (ts <= b)
    worn = np.array([float(row["worn"]) == 1 for row in rows])
    assert in_blink.sum() > 0 and len(r.track.valid) == len(ts)
    assert np.array_equal(r.track.valid, worn & np.isfinite(x) & np.isfinite(y) & ~in_blink)


def test_pupil_cloud_fixations_and_events_become_device_fixations_and_actions(tmp_path):
    """load_recording on the real export (a stand-in scene video at 1600x1200 with the real frame timestamps):
    the 100 fixations of fixations.csv on the scene clock; the events Picture_0k_start/_end as five actions."""
    from ..fixtures.source_fixtures import write_timed_video

    rec = tmp_path / "raw" / "rec1"
    shutil.copytree(CLOUD_NEON, rec)
    with open(CLOUD_NEON / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    write_timed_video(rec / "scene.mp4", (world[:40] - world[0]) / 1e9, NEON_W, NEON_H)  # size only is read here
    r = _load_counting_reads(tmp_path / "raw", "rec1")
    assert_device_blinks(r, world)
    with open(CLOUD_NEON / "fixations.csv", newline="") as fh:
        fx = list(csv.DictReader(fh))
    assert len(r.device_fixations) == len(fx) == 100
    for f, row in zip(r.device_fixations, fx):
        assert f.start == pytest.approx((int(row["start timestamp [ns]"]) - world[0]) / 1e9, abs=1e-9)
        assert f.end == pytest.approx((int(row["end timestamp [ns]"]) - world[0]) / 1e9, abs=1e-9)
        assert abs(f.x * NEON_W - float(row["fixation x [px]"])) < 1e-6
    with open(CLOUD_NEON / "events.csv", newline="") as fh:
        ev = {e["name"]: (int(e["timestamp [ns]"]) - world[0]) / 1e9 for e in csv.DictReader(fh)}
    assert [a.label for a in r.actions] == [f"Picture_0{k}" for k in range(1, 6)]
    for a in r.actions:
        assert a.start == pytest.approx(ev[f"{a.label}_start"]) and a.end == pytest.approx(ev[f"{a.label}_end"])
    # `build --fixations device` starts from these (those lasting at least τ_dur), the detector otherwise
    from streamgaze_hf.benchmarks.streamgaze.build import BuildOptions, recording_fixations
    from streamgaze_hf.gaze.fixations import FixationParams, extract_fixations

    device = recording_fixations(r, BuildOptions(fixations="device", fixation=FixationParams(min_duration=0.3)))
    assert device == [f for f in r.device_fixations if f.duration >= 0.3] and 0 < len(device) < 100
    assert recording_fixations(r, BuildOptions()) == extract_fixations(r.track)
    (rec / "actions.csv").write_text("start,end,label\n1.5,4.0,reach for the cup\n")
    assert [(a.start, a.end, a.label) for a in pupil_cloud.load_recording(tmp_path / "raw", "rec1").actions] == [
        (1.5, 4.0, "reach for the cup")]


# --- Pupil Core (Pupil Player export): the documented raw-data columns -----------------------------------------
# Rule (Pupil Player docs, "Raw Data Exporter"): gaze_positions.csv `gaze_timestamp` (s, Pupil time), `norm_pos_x`,
# `norm_pos_y` (origin bottom-left), `confidence`; Player's default minimum data confidence 0.6; the exported
# frames' timestamps: exports/000/world_timestamps.npy.

def test_pupil_core_export_follows_the_documented_columns():
    export = CORE_REC / "exports" / "000"
    with open(export / "gaze_positions.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ts = np.array([float(r["gaze_timestamp"]) for r in rows])
    x = np.array([float(r["norm_pos_x"]) for r in rows])
    y = 1.0 - np.array([float(r["norm_pos_y"]) for r in rows])
    valid = np.array([float(r["confidence"]) >= 0.6 for r in rows])
    world = np.load(export / "world_timestamps.npy")
    assert (len(rows), len(world), (~valid).sum()) == (1483, 376, 2)
    t, keep = on_clock(ts, expected_clock([world], 1.0), 1.0)
    track = pupil_core.read_track(CORE_REC)
    w, h = track.width, track.height
    assert_matches(track, t[keep], x[keep] * w, y[keep] * h, valid[keep], w, h)
    assert keep.all()


# --- Tobii Pro Glasses 3: the developer guide's gazedata format -------------------------------------------------
# Rule (Tobii Pro Glasses 3 Developer Guide, recording data): JSON lines {type, timestamp (s), data}; gaze lines
# carry data.gaze2d = [x, y] normalised to the scene video, origin top-left; an empty data object = no gaze
# (untracked). Without the scene video, time 0 is the recording's start.

@pytest.mark.parametrize("name", TOBII_RECORDINGS)
def test_tobii_g3_gazedata_follows_the_developer_guide(name):
    lines = [json.loads(s) for s in gzip.decompress((TOBII / name / "gazedata.gz").read_bytes()).decode().splitlines()
             if s.strip()]
    gaze = [o for o in lines if o["type"] == "gaze"]
    empty = [o for o in gaze if not o["data"]]
    ts = np.array([o["timestamp"] for o in gaze])
    x = np.array([o["data"]["gaze2d"][0] if o["data"] else math.nan for o in gaze])
    y = np.array([o["data"]["gaze2d"][1] if o["data"] else math.nan for o in gaze])
    assert (len(gaze), len(empty)) == {"calibration_1": (6547, 412), "calibration_tobii_1": (2080, 100)}[name]
    track = tobii_g3.read_track(TOBII / name / "gazedata.gz")
    assert (track.width, track.height) == (1920, 1080)
    assert_matches(track, ts, x * 1920, y * 1080, np.isfinite(x), 1920, 1080)
    off = np.isfinite(x) & ((x < 0) | (x > 1) | (y < 0) | (y > 1))
    assert np.array_equal(track.valid & ~track.in_frame, off)  # off-frame points keep their position, valid


# --- the console script: `streamgaze gaze` on every source, `streamgaze overlay` on one --------------------------

@pytest.mark.parametrize("source,path", [
    ("neon", NEON / "multi_part_v2.5"),
    ("pupil_cloud", CLOUD_NEON),
    ("pupil_core", CORE_REC),
    ("tobii_g3", TOBII / "calibration_tobii_1"),
])
def test_gaze_command_exports_each_sources_track(source, path, tmp_path):
    out = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", path, "--source", source, "--out", out)
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="") as fh:
        got = list(csv.DictReader(fh))
    track = read_track(path, source)
    assert len(got) == len(track)
    assert [r["valid"] == "1" for r in got] == track.valid.tolist()
    assert np.allclose([float(r["t"]) for r in got], track.t, atol=1e-6)


def test_overlay_command_renders_a_pupil_cloud_recording(tmp_path):
    from streamgaze_hf.video.frame_reader import probe_video

    from ..fixtures.source_fixtures import write_timed_video

    with open(CLOUD_NEON / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    times = (world[:75] - world[0]) / 1e9  # the first 2.5 s of real frame times (gaze starts at 1.8 s)
    video = tmp_path / "scene.mp4"
    write_timed_video(video, times, 400, 300)
    gaze = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", CLOUD_NEON / "gaze.csv", "--source", "pupil_cloud", "--video", video, "--out", gaze)
    assert proc.returncode == 0, proc.stderr
    proc = streamgaze("overlay", video, gaze, "--out", tmp_path / "overlay.mp4")
    assert proc.returncode == 0, proc.stderr
    info = probe_video(tmp_path / "overlay.mp4")
    assert info.n_frames == len(times) and np.allclose(info.frame_times, times - times[0], atol=1e-3)
