"""Raw-source readers (gaze/sources/*): exact values per format, actions, malformed files, registry, CLI."""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.cli import main
from streamgaze_hf.gaze.fixations import extract_fixations
from streamgaze_hf.gaze.sources import ego4d, egoexolearn, egtea, holoassist
from streamgaze_hf.gaze.sources.registry import SOURCES, discover, layout, load_recording, read_track
from streamgaze_hf.util.errors import GazeFormatError, StreamGazeError
from tests.fixtures.once import once_per_run
from tests.fixtures.source_fixtures import (
    MALFORMED,
    begaze_header,
    begaze_row,
    begaze_text,
    camera_axes,
    corrupt,
    ego4d_row,
    ego4d_text,
    pose_matrix,
    write_holoassist_export,
    write_raw,
    write_scene_video,
)


@pytest.fixture(scope="session")
def raws(tmp_path_factory) -> dict:
    """Every source's fixture raw directory, written once (tests that modify one copy it first)."""
    return once_per_run(tmp_path_factory, "test_sources.raws", lambda root: {s: write_raw(s, root / s) for s in SOURCES})


def _copy(raws, source, tmp_path) -> Path:
    dest = tmp_path / source
    shutil.copytree(raws[source].raw, dest)
    return dest


# ------------------------------------------------------------------------------------------ EGTEA

def _begaze(tmp_path: Path, version: int, rows, name: str = "S01.txt") -> Path:
    path = tmp_path / name
    path.write_text(begaze_text(version, rows, "OP01-R01-Test"), encoding="utf-8")
    return path


EGTEA_ROWS = [  # (time s, x px, y px, frame, event)
    (2.00, 640.0, 480.0, 48, "Fixation"),
    (2.04, 100.0, 200.0, 49, "Fixation"),  # two samples in frame 49: a true mean
    (2.05, 300.0, 400.0, 49, "Saccade"),
    (2.08, 1400.0, -20.0, 50, "Saccade"),  # truncated: off the 1280x960 frame
    (2.12, 0.0, 0.0, 51, "Blink"),
    (2.16, 0.0, 0.0, 52, "Blink"),  # blink and a fixation sample in one frame: the valid one wins
    (2.17, 320.0, 240.0, 52, "Fixation"),
    (2.20, 960.0, 720.0, 53, "-"),  # unclassified: a measured point, valid
    (2.30, 640.0, 240.0, 56, "Fixation"),  # frames 54, 55 untracked: no sample
]


@pytest.mark.parametrize("version", [1, 2])
def test_begaze_rows_exact(tmp_path, version):
    track = egtea.read_track(_begaze(tmp_path, version, EGTEA_ROWS))
    assert (track.width, track.height, track.fps) == (1280, 960, 24.0)  # no video: EGTEA's nominal geometry
    assert track.t.tolist() == pytest.approx([48 / 24, 49 / 24, 50 / 24, 51 / 24, 52 / 24, 53 / 24, 56 / 24])
    assert track.x.tolist() == pytest.approx([0.5, 200 / 1280, 1400 / 1280, 0.0, 0.25, 0.75, 0.5])
    assert track.y.tolist() == pytest.approx([0.5, 300 / 960, -20 / 960, 0.0, 0.25, 0.75, 0.25])
    assert track.valid.tolist() == [True, True, True, False, True, True, True]
    assert track.in_frame.tolist() == [True, True, False, False, True, True, True]
    assert track.x[2] > 1  # the truncated point keeps its coordinates (reference bug 18)


def test_begaze_v2_timecode_and_fps(tmp_path):
    row = begaze_row(2, 2.5, 640.0, 96.0, 60, "Fixation")
    fields = row.split("\t")
    assert len(fields) == 26 and fields[-2] == "00:00:02:12" and fields[5] == "640.00"
    path = _begaze(tmp_path, 2, [(2.5, 640.0, 96.0, 60, "Fixation")])
    frames, x, y, valid = egtea.parse_begaze(path)
    assert frames.tolist() == [60] and x.tolist() == [0.5] and y.tolist() == [0.1] and valid.tolist() == [True]
    # a video of another rate: HH:MM:SS + FF frames of that video (reference bug 19 hard-coded 24)
    frames, *_ = egtea.parse_begaze(path, fps=30.0)
    assert frames.tolist() == [72]
    v1 = _begaze(tmp_path, 1, [(2.0, 640.0, 480.0, 48, "Fixation")], "v1.txt")
    frames, *_ = egtea.parse_begaze(v1, fps=30.0)
    assert frames.tolist() == [48]  # v1 frame numbers index the video's own frames
    assert egtea.read_track(v1).t.tolist() == [2.0]


def test_begaze_header_is_found_not_counted(tmp_path):
    """Shorter/longer headers, comment lines, MSG rows and blank lines are skipped."""
    rows = [begaze_row(1, 1.0, 640.0, 480.0, 24, "Fixation"), "",
            "1100000\tMSG\t1\t# Message: start.avi", "## a late comment",
            begaze_row(1, 1.1, 320.0, 480.0, 26, "Fixation")]
    path = tmp_path / "short.txt"
    path.write_text("## [BeGaze]\n## Sample Rate:\t30\nTime\tType\tTrial\tPOR X\tPOR Y\tFrame\tEvent\n"
                    + "\n".join(rows) + "\n", encoding="utf-8")
    frames, x, _, _ = egtea.parse_begaze(path)
    assert frames.tolist() == [24, 26] and x.tolist() == [0.5, 0.25]


def test_begaze_errors(tmp_path):
    good = [(2.0, 640.0, 480.0, 48, "Fixation"), (2.1, 640.0, 480.0, 50, "Fixation")]
    # header says v1 (Number of Samples on line 10) but the rows have the v2 layout
    text = "\n".join(begaze_header(1, 2, "S") + ["cols"] + [begaze_row(2, *r) for r in good]) + "\n"
    path = tmp_path / "mismatch.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GazeFormatError, match="line 35.*v2 layout.*v1 export") as e:
        egtea.parse_begaze(path)
    assert str(path) in str(e.value)
    path = _begaze(tmp_path, 1, good, "neg.txt")
    lines = path.read_text().splitlines()
    lines.append(begaze_row(1, 2.2, 1.0, 1.0, -3, "Fixation"))
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(GazeFormatError, match="line 37: negative frame"):
        egtea.parse_begaze(path)
    with pytest.raises(GazeFormatError, match="not found"):
        egtea.parse_begaze(tmp_path / "nope.txt")


def test_egtea_action_labels(tmp_path):
    path = tmp_path / "action_labels.csv"
    path.write_text(
        "# Clip ID (Unique, used only internally); Clip Prefix (Unique); Video Session; Starting Time (ms); "
        "Ending Time (ms); Action Label; Verb Label; Noun Label(s)\n"
        "2; S1-7000-9500-F000168-F000228; S1; 7000; 9500; Cut tomato; Cut; tomato,cutting_board\n"
        "1; S1-1500-3250-F000036-F000078; S1 ; 1500; 3250; Open fridge; Open; fridge\n"
        "3; S2-0-100-F000000-F000002; S2; 0; 100; Take bowl; Take; bowl\n", encoding="utf-8")
    acts = egtea.read_action_labels(path, "S1")
    assert [(a.start, a.end, a.label) for a in acts] == [(1.5, 3.25, "Open fridge"), (7.0, 9.5, "Cut tomato")]
    assert egtea.read_action_labels(tmp_path / "missing.csv", "S1") == []
    path.write_text("# Clip ID; Video Session; Starting Time (ms)\n", encoding="utf-8")
    with pytest.raises(StreamGazeError, match="line 1: header lacks"):
        egtea.read_action_labels(path, "S1")


# ------------------------------------------------------------------------------------------ EgoExoLearn

def test_egoexolearn_npy_exact(tmp_path):
    path = tmp_path / "g.npy"
    np.save(path, np.array([[0.5, 0.25, 1], [0.1, 0.2, 0], [np.nan, np.nan, 1], [1.2, 0.5, 1]]))
    x, y, valid = egoexolearn.read_gaze_npy(path)
    assert valid.tolist() == [True, False, True, True]
    video = tmp_path / "v.mp4"
    write_scene_video(video, duration=0.5, fps=30.0, width=64, height=48)
    track = egoexolearn.read_track(path, video)
    assert track.t.tolist() == pytest.approx([0, 1 / 30, 2 / 30, 3 / 30])
    assert track.valid.tolist() == [True, False, False, True]  # NaN coordinates: invalid
    assert track.in_frame.tolist() == [True, False, False, False]
    assert track.x[3] == pytest.approx(1.2) and track.y[0] == 0.25  # not clipped
    assert (track.width, track.height) == (64, 48)
    with pytest.raises(StreamGazeError, match="pass the video"):
        egoexolearn.read_track(path)


def test_egoexolearn_npy_errors(tmp_path):
    path = tmp_path / "g.npy"
    np.save(path, np.zeros((4, 3, 1)))
    with pytest.raises(GazeFormatError, match=r"\(N, 3\).*\(4, 3, 1\)"):
        egoexolearn.read_gaze_npy(path)
    np.save(path, np.array([["a", "b", "c"]]))
    with pytest.raises(GazeFormatError, match="numeric"):
        egoexolearn.read_gaze_npy(path)
    np.save(path, np.array([[0.5, 0.5, 1], [0.5, 0.5, np.nan]]))
    with pytest.raises(GazeFormatError, match="row 1: valid must be 0 or 1"):
        egoexolearn.read_gaze_npy(path)


def test_egoexolearn_annotations(tmp_path):
    ann = tmp_path / "annotations"
    ann.mkdir()
    with (ann / "fine_annotation_trainvaltest_en.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["video_uid", "annotation_id", "subset", "view", "scene", "start_sec", "end_sec", "narration_en",
                    "narration_en_hand_prompt", "narration_en_no_hand_prompt"])
        w.writerow(["u1", "a2", "val", "ego", "lab", "5.5", "8.25", "C pours.", "C pours with hand.", "pour the water"])
        w.writerow(["u1", "a1", "val", "ego", "lab", "1.0", "2.5", "C cuts.", "C cuts with hand.", "cut the onion"])
        w.writerow(["u1", "a3", "val", "exo", "lab", "3.0", "4.0", "exo", "exo", "exo label"])
        w.writerow(["u1", "a4", "val", "ego", "lab", "9.0", "9.5", "", "", ""])
        w.writerow(["u2", "b1", "val", "ego", "lab", "0.0", "1.0", "x", "x", "other video"])
    acts = egoexolearn.read_annotations(ann, "u1")
    assert [(a.start, a.end, a.label) for a in acts] == [(1.0, 2.5, "cut the onion"), (5.5, 8.25, "pour the water")]
    (ann / "u1.json").write_text(json.dumps([{"start": 3, "end": 4.5, "textAttribute_en": " stir the pot "}]))
    assert [(a.start, a.end, a.label) for a in egoexolearn.read_annotations(ann, "u1")] == [(3.0, 4.5, "stir the pot")]
    assert egoexolearn.read_annotations(tmp_path / "none", "u1") == []
    (ann / "u1.json").write_text(json.dumps([{"start": 3, "end": 2, "textAttribute_en": "x"}]))
    with pytest.raises(StreamGazeError, match="item 0: bad time span"):
        egoexolearn.read_annotations(ann, "u1")


# ------------------------------------------------------------------------------------------ HoloAssist

RIG_K = (600.0, 620.0, 330.0, 245.0, 640, 480)  # fx, fy, cx, cy, W, H
RIG_START = 133_000_000_000_000_000
RIG_FPS = 10.0


def _rig(tmp_path: Path, gaze: list[tuple[np.ndarray, np.ndarray, bool]], pose: np.ndarray,
         eye_offsets: list[int] | None = None) -> Path:
    """An Export_py with a 64x48 10 fps video, one fixed camera pose and one gaze ray per frame."""
    n = len(gaze)
    period = 10_000_000 // int(RIG_FPS)
    ticks = [RIG_START + i * period for i in range(n)]
    offsets = eye_offsets or [137 * (-1) ** i for i in range(n)]
    export = tmp_path / "S1" / "Export_py"
    write_holoassist_export(
        export, intrinsics=RIG_K, start_tick=RIG_START, end_tick=RIG_START + n * period,
        pose_ticks=[t - 250 for t in ticks], poses=[pose] * n, eye_ticks=[t + o for t, o in zip(ticks, offsets)],
        origins=[g[0] for g in gaze], dirs=[g[1] for g in gaze], valid=[g[2] for g in gaze])
    write_scene_video(export / "Video_pitchshift.mp4", duration=n / RIG_FPS, fps=RIG_FPS, width=64, height=48)
    return export


def test_holoassist_projection_synthetic_rig(tmp_path):
    """Known camera pose and gaze target -> the expected pixel (within 0.5 px); behind -> flagged."""
    yaw, pitch = math.radians(30), math.radians(-20)
    c = np.array([1.0, 2.0, 1.5])
    fwd = np.array([math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), math.sin(pitch)])
    left = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    up = np.cross(fwd, left)
    pose = pose_matrix(camera_axes(yaw, pitch), c)
    origin = c + np.array([0.03, -0.02, 0.05])
    fx, fy, cx, cy, W, H = RIG_K

    def target(wf, wl, wu):  # gaze direction as a mix of the camera axes; the 3-D point is 0.5 m along it
        w = wf * fwd + wl * left + wu * up
        w /= np.linalg.norm(w)
        return w, origin + 0.5 * w

    def expected_pixel(p):  # independent: OpenCV X right = -left, Y down = -up, Z = forward
        d = p - c
        X, Y, Z = -(d @ left), -(d @ up), d @ fwd
        return fx * X / Z + cx, fy * Y / Z + cy

    w0, p0 = target(0.9, 0.2, -0.15)
    w2, p2 = target(0.5, -0.8, 0.1)  # far to the right: projects off the image
    w3, p3 = target(0.95, -0.05, 0.1)
    gaze = [(origin, 3.7 * w0, True),  # an unnormalised direction
            (origin, -fwd, True),  # looking backwards: behind the camera
            (origin, w2, True),
            (origin, w3, False)]  # tracker says invalid
    track = holoassist.read_track(_rig(tmp_path, gaze, pose))
    assert len(track) == 4 and track.t.tolist() == pytest.approx([0, 0.1, 0.2, 0.3])
    for i, p in ((0, p0), (2, p2), (3, p3)):
        u, v = expected_pixel(p)
        assert abs(track.x[i] * W - u) < 0.5 and abs(track.y[i] * H - v) < 0.5
        assert track.x[i] * W == pytest.approx(u, abs=1e-6) and track.y[i] * H == pytest.approx(v, abs=1e-6)
    assert 0 < track.x[0] < 1 and 0 < track.y[0] < 1 and track.valid[0] and track.in_frame[0]
    assert math.isnan(track.x[1]) and math.isnan(track.y[1]) and not track.valid[1] and not track.in_frame[1]
    assert track.x[2] > 1 and track.valid[2] and not track.in_frame[2]  # off-frame: flagged, kept
    assert not track.valid[3] and math.isfinite(track.x[3]) and not track.in_frame[3]
    # video 64x48, intrinsics 640x480: normalised by the intrinsics grid; HFOV from fx
    assert (track.width, track.height, track.fps) == (64, 48, 10.0)
    assert track.hfov_deg == pytest.approx(math.degrees(2 * math.atan(640 / (2 * 600))))
    assert track.hfov_deg == pytest.approx(56.145, abs=1e-3)


def test_holoassist_ticks_and_nearest():
    assert holoassist.frame_ticks(1000, 24.46, 3).tolist() == [1000, 1000 + 408830, 1000 + 817661]  # 1223/50
    assert holoassist.frame_ticks(0, 30000 / 1001, 2).tolist() == [0, 333666]
    q = holoassist.nearest(np.array([0, 10, 20]), np.array([4, 5, 6, 15, 25, -3]))
    assert q.tolist() == [0, 0, 1, 1, 2, 0]  # a tie goes to the earlier tick


def test_holoassist_gap_and_zero_direction():
    ticks = np.array([0, 1_000_000, 5_000_000], dtype=np.int64)
    pose = np.eye(4)
    eye_ticks = np.array([0, 1_000_000], dtype=np.int64)
    dirs = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    K = np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]])
    p = holoassist.project_gaze(ticks, np.array([0]), pose[None], eye_ticks, np.zeros((2, 3)), dirs,
                                np.array([True, True]), K)
    assert p.u[0] == pytest.approx(320) and p.v[0] == pytest.approx(240) and p.valid[0]
    assert math.isnan(p.u[1]) and not p.valid[1]  # zero direction: not projectable
    assert not p.valid[2]  # the nearest gaze sample is 0.4 s away: no measurement for this frame


def test_holoassist_actions(tmp_path):
    path = tmp_path / "data-annnotation-trainval-v1_1.json"
    path.write_text(json.dumps([{"video_name": "S1", "events": [
        {"id": 1, "label": "Fine grained action", "start": 4.5, "end": 6.0,
         "attributes": {"Verb": "place", "Noun": "nintendo_switch"}},
        {"id": 2, "label": "Fine grained action", "start": 1.0, "end": 2.0, "attributes": {"Verb": "grab", "Noun": "none"}},
        {"id": 3, "label": "Coarse grained action", "start": 0.0, "end": 9.0, "attributes": {}},
        {"id": 4, "label": "Fine grained action", "start": 7.0, "end": 8.0, "attributes": {"Verb": "none", "Noun": "none"}},
    ]}, {"video_name": "S2", "events": []}]))
    acts = holoassist.read_fine_actions(path, "S1")
    assert [(a.start, a.end, a.label) for a in acts] == [(1.0, 2.0, "grab"), (4.5, 6.0, "place nintendo switch")]
    assert holoassist.read_fine_actions(path, "S3") == []


def test_holoassist_reader_errors(tmp_path):
    intr = tmp_path / "Intrinsics.txt"
    intr.write_text("600\t0\t320\t0\t600\t240\t0\t0\t1\t640\n")
    with pytest.raises(GazeFormatError, match="line 1: expected 11"):
        holoassist.read_intrinsics(intr)
    intr.write_text("-6\t0\t320\t0\t600\t240\t0\t0\t1\t640\t480\n")
    with pytest.raises(GazeFormatError, match="bad intrinsics"):
        holoassist.read_intrinsics(intr)
    pose = tmp_path / "Pose_sync.txt"
    pose.write_text("0.0\t100\t" + "\t".join(["0"] * 16) + "\n")
    with pytest.raises(GazeFormatError, match="line 1: singular"):
        holoassist.read_pose_sync(pose)
    eyes = tmp_path / "Eyes_sync.txt"
    eyes.write_text("0.0\t100.5\t0\t0\t0\t1\t0\t0\t1\n")
    with pytest.raises(GazeFormatError, match="line 1: tick is not an integer"):
        holoassist.read_eyes_sync(eyes)
    eyes.write_text("0.0\t133000000000000001\t0\t0\t0\t1\t0\t0\tyes\n")
    with pytest.raises(GazeFormatError, match="valid must be 0 or 1"):
        holoassist.read_eyes_sync(eyes)
    eyes.write_text("0.0\t133000000000000001\t0\t0\t0\t1\t0\t0\t1\n\ngarbage after the blank line\n")
    ticks, *_ = holoassist.read_eyes_sync(eyes)
    assert ticks.tolist() == [133000000000000001]  # exact beyond float precision; reading stops at a blank line


# ------------------------------------------------------------------------------------------ Ego4D

def test_ego4d_csv_exact(tmp_path):
    rows = [ego4d_row(0.0, 0.25, 0.3, 0.95),  # written as norm_pos_y = 0.7 (bottom-left)
            ego4d_row(0.004, 0.26, 0.31, 0.5),  # low confidence
            ego4d_row(0.004, 0.9, 0.9, 0.99),  # repeated timestamp: dropped
            ego4d_row(0.008, math.nan, math.nan, 0.9),  # no position
            ego4d_row(0.012, 1.1, 0.5, 0.6)]  # threshold confidence, off-frame
    path = tmp_path / "gaze" / "u1.csv"
    path.parent.mkdir()
    path.write_text(ego4d_text(rows))
    assert rows[0][6] == "0.700000"
    track = ego4d.read_track(path)
    assert (track.width, track.height, track.fps) == (1088, 1080, 30.0)
    assert track.t.tolist() == [0.0, 0.004, 0.008, 0.012]
    assert track.x[0] == pytest.approx(0.25) and track.y[0] == pytest.approx(0.3)  # y flipped
    assert track.valid.tolist() == [True, False, False, True]
    assert track.in_frame.tolist() == [True, False, False, False]
    assert math.isnan(track.x[2]) and track.x[3] == pytest.approx(1.1)


def test_ego4d_errors(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text(ego4d_text([ego4d_row(0.1, 0.5, 0.5, 0.9), ego4d_row(0.05, 0.5, 0.5, 0.9)]))
    with pytest.raises(GazeFormatError, match="line 3: timestamp 0.050000 goes back") as e:
        ego4d.read_gaze_csv(path)
    assert str(path) in str(e.value)
    path.write_text("canonical_timestamp_s,norm_pos_x\n0.1,0.5\n")
    with pytest.raises(GazeFormatError, match="missing column.*norm_pos_y, confidence"):
        ego4d.read_gaze_csv(path)


def test_ego4d_v1_mp4_csv_names(raws, tmp_path):
    raw = _copy(raws, "ego4d", tmp_path)
    uid = raws["ego4d"].ids[0]
    (raw / "gaze" / f"{uid}.csv").rename(raw / "gaze" / f"{uid}.mp4.csv")
    assert discover(raw, "ego4d") == sorted(raws["ego4d"].ids)
    assert len(load_recording(raw, "ego4d", uid).track) == 3000


# ------------------------------------------------------------------------------------------ all sources

@pytest.mark.parametrize("source", SOURCES)
def test_discover_and_load_fixture(raws, source):
    fx = raws[source]
    ids = discover(fx.raw, source)
    assert ids == sorted(fx.ids)
    for vid in ids:
        rec = load_recording(fx.raw, source, vid)
        assert rec.video_id == vid and rec.source == source and rec.video_path.is_file()
        assert [(round(a.start, 3), round(a.end, 3), a.label) for a in rec.actions] == \
            [(round(s, 3), round(e, 3), label) for s, e, label in fx.actions.get(vid, [])]
        # the planned fixations come out of the normalised track
        found = extract_fixations(rec.track)
        assert len(found) == len(fx.fixations[vid])
        for f, plan in zip(found, fx.fixations[vid]):
            assert abs(f.start - plan.start) < 0.5 and abs(f.end - plan.end) < 0.5
            assert abs(f.x - plan.x) < 0.02 and abs(f.y - plan.y) < 0.02
    if source == "holoassist":
        assert rec.track.hfov_deg == pytest.approx(65.2385, abs=1e-3) and rec.directory == fx.raw / vid
    if source == "world":
        assert rec.directory == fx.raw / vid


def test_egtea_fixture_keeps_truncation_and_gaps(raws):
    fx = raws["egtea"]
    track = load_recording(fx.raw, "egtea", fx.ids[0]).track
    assert (track.x > 1).any() and not track.in_frame[track.x > 1].any()  # off-frame look kept, flagged
    assert (~track.valid).any()  # blink frames
    assert np.diff(np.round(track.t * 24)).max() > 1  # untracked frames have no sample


@pytest.mark.parametrize("source,kind", [(s, k) for s in SOURCES for k in MALFORMED[s]])
def test_malformed_files_name_the_file(raws, tmp_path, source, kind):
    raw = _copy(raws, source, tmp_path)
    vid = raws[source].ids[0]
    c = corrupt(source, raw, vid, kind)
    with pytest.raises(StreamGazeError) as e:
        discover(raw, source)
        load_recording(raw, source, vid)
    msg = str(e.value)
    assert str(c.path) in msg and c.needle in msg, msg


def test_registry_errors(tmp_path):
    with pytest.raises(StreamGazeError, match="unknown gaze source 'epic'"):
        discover(tmp_path, "epic")
    for source in SOURCES:
        with pytest.raises(StreamGazeError) as e:
            discover(tmp_path, source)
        assert str(tmp_path) in str(e.value) and layout(source) in str(e.value)
    with pytest.raises(StreamGazeError, match="raw directory not found"):
        discover(tmp_path / "missing", "egtea")
    (tmp_path / "gaze_data").mkdir()
    (tmp_path / "gaze_data" / "S1.txt").write_text("x")
    with pytest.raises(StreamGazeError, match="video of session 'S1' not found"):
        discover(tmp_path, "egtea")


def test_read_track_finds_the_native_video(raws):
    fx = raws["egoexolearn"]
    uid = fx.ids[1]
    track = read_track(fx.raw / "gazes_30fps_npy" / f"{uid}.npy", "egoexolearn")
    assert (track.width, track.height, track.fps) == (320, 240, 30.0)
    hol = raws["holoassist"]
    assert len(read_track(hol.raw / hol.ids[0], "holoassist")) == 367  # the session dir works too


# ------------------------------------------------------------------------------------------ CLI

def test_cli_gaze_export(raws, tmp_path, capsys):
    fx = raws["egtea"]
    out = tmp_path / "gaze.csv"
    gaze = fx.raw / "gaze_data" / f"{fx.ids[0]}.txt"
    video = fx.raw / "videos" / f"{fx.ids[0]}.mp4"
    assert main(["gaze", str(gaze), "--source", "egtea", "--video", str(video), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["t", "x", "y", "valid", "in_frame"]
    track = read_track(gaze, "egtea", video)
    assert len(rows) == len(track)
    assert [float(r["t"]) for r in rows] == pytest.approx(track.t.tolist(), abs=1e-6)
    assert [r["in_frame"] == "1" for r in rows] == track.in_frame.tolist()
    assert any(float(r["x"]) > 1 and r["valid"] == "1" and r["in_frame"] == "0" for r in rows)

    hol = raws["holoassist"]
    out2 = tmp_path / "holo.csv"
    assert main(["gaze", str(hol.raw / hol.ids[0] / "Export_py"), "--source", "holoassist", "--out", str(out2)]) == 0
    assert out2.read_text().startswith("t,x,y,valid,in_frame\n")


def test_cli_gaze_errors_write_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.npy"
    bad.write_text("not an array")
    video = tmp_path / "v.mp4"
    write_scene_video(video, duration=0.2, fps=10.0, width=64, height=48)
    out = tmp_path / "out.csv"
    assert main(["gaze", str(bad), "--source", "egoexolearn", "--video", str(video), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "streamgaze gaze: error:" in err and str(bad) in err
    with pytest.raises(SystemExit) as exc:  # argparse's choice: the usage line and one error line
        main(["gaze", str(bad), "--source", "nope", "--out", str(out)])
    assert exc.value.code == 2 and "streamgaze gaze: error: --source: 'nope' is not one of" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob(".out.csv*"))
