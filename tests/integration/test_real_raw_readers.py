"""Every raw gaze reader on real public files (the real-file corpus, raw/; provenance in
tests/data/real/PROVENANCE.md), compared with the official tool's rule, re-implemented here from its
source (the rule and the source are named at each re-implementation). Nothing here is typed in by hand:
every expected value is computed from the real file by the official rule."""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.gaze.sources import egtea

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import corpus

EGTEA = corpus("raw/egtea", module=True)
EGTEA_V1 = ("OP02-R06-GreekSalad", "OP01-R01-PastaSalad")
EGTEA_V2 = ("P02-R06-GreekSalad", "P12-R02-TurkeySandwich", "P10-R02-TurkeySandwich")


# --- EGTEA Gaze+ -------------------------------------------------------------------------------------
# Official rule: `parse_gtea_gaze` of gaze_io_sample.py, shipped with the EGTEA Gaze+ gaze data (copy read:
# tavis-siebert/gaze-guided-scene @ 58e88318, data/egtea_gaze/gaze_data/gaze_io_sample.py). Re-implemented:
# * version: v1 when line 10 holds '## Number of Samples:', else v2; the first 34 lines are skipped;
# * each remaining line, split on whitespace: v1 (7 fields) x, y = f[3], f[4], frame = int(f[5]), type = f[6];
#   v2 (26 fields) x, y = f[5], f[6], frame = SS-timecode f[-2] at 24 fps, type = f[-1]; any other line is an
#   error ('Format not supported'); x and y go through Python's float(), so 'NaN' is a number;
# * per frame (float32): the first sample sets the point, each later one is averaged pairwise with it;
#   the type is that of the last sample: 1 Fixation, 2 Saccade, 3 anything else (0: no sample);
# * then each frame up to the last is clamped to [0, 1279] x [0, 959] (type 4 when it had to be, but
#   the type is then overwritten with the unclamped one) and divided by (1280, 960).

def official_egtea_rows(path: Path) -> list[tuple[int, float, float, str]]:
    lines = [line.rstrip("\n") for line in path.open()]
    version = 1 if "## Number of Samples:" in lines[9] else 2
    rows = []
    for line in lines[34:]:
        f = line.split()
        if len(f) == 7 and version == 1:
            rows.append((int(f[5]), float(f[3]), float(f[4]), f[6]))
        elif len(f) == 26 and version == 2:
            hh, mm, ss, ff = (int(v) for v in f[-2].split(":"))
            rows.append(((3600 * hh + 60 * mm + ss) * 24 + ff, float(f[5]), float(f[6]), f[-1]))
        else:
            raise ValueError("Format not supported")
    return rows


def official_egtea_frames(rows: list[tuple[int, float, float, str]]) -> np.ndarray:
    """(frames, 3) float32: normalised x, y and the gaze type code, indexed by frame."""
    last = max(r[0] for r in rows)
    data = np.zeros((last + 1, 3), dtype=np.float32)
    for frame, px, py, kind in rows:
        if data[frame, 2] > 0:
            data[frame, 0] = (data[frame, 0] + px) / 2.0
            data[frame, 1] = (data[frame, 1] + py) / 2.0
        else:
            data[frame, 0], data[frame, 1] = px, py
        data[frame, 2] = {"Fixation": 1, "Saccade": 2}.get(kind, 3)
    for k in range(last + 1):
        px, py = data[k, 0], data[k, 1]
        data[k, 0] = min(max(0, px), np.float32(1279)) / np.float32(1280)
        data[k, 1] = min(max(0, py), np.float32(959)) / np.float32(960)
    return data


def our_rule_frames(rows):
    """The rule our README states, applied to the official reader's rows: per frame, valid when a sample is
    tracked (finite POR) and not a Blink; position = mean of the valid samples, else of the tracked ones,
    else NaN; coordinates divided by (1280, 960) without clamping."""
    bins = defaultdict(list)
    for frame, px, py, kind in rows:
        bins[frame].append((px, py, math.isfinite(px) and math.isfinite(py), kind))
    out = {}
    for frame, samples in bins.items():
        good = [s for s in samples if s[2] and s[3] != "Blink"]
        use = good or [s for s in samples if s[2]]
        x = sum(s[0] for s in use) / len(use) / 1280 if use else math.nan
        y = sum(s[1] for s in use) / len(use) / 960 if use else math.nan
        out[frame] = (x, y, bool(good))
    return out


@pytest.mark.parametrize("session", EGTEA_V1 + EGTEA_V2)
def test_egtea_rows_are_the_official_readers_rows(session):
    """Row level: every line the official reader parses is one of our samples, with the same frame,
    point of regard (NaN included) and event label, in order."""
    path = EGTEA / f"{session}.txt"
    official = official_egtea_rows(path)
    ours = [s for _, s in egtea.begaze_samples(path)]
    assert len(ours) == len(official) == sum(1 for _ in path.open()) - 34
    for (f0, x0, y0, k0), (f1, x1, y1, k1) in zip(official, ours):
        assert (f1, k1) == (f0, k0)
        assert (x1 == x0 or (math.isnan(x0) and math.isnan(x1))) and (y1 == y0 or (math.isnan(y0) and math.isnan(y1)))


@pytest.mark.parametrize("session", EGTEA_V1 + EGTEA_V2)
def test_egtea_track_follows_the_official_rule(session):
    """Frame level: the same frames as the official reader (every frame with a sample, the leading
    untracked ones of a v2 file included), positions equal to the official ones wherever its rule and
    ours agree, and our stated rule (true mean, Blink invalid, NaN untracked, no clamp) everywhere."""
    path = EGTEA / f"{session}.txt"
    rows = official_egtea_rows(path)
    official = official_egtea_frames(rows)
    expected = our_rule_frames(rows)
    track = egtea.read_track(path)  # no video beside it: 1280x960 at 24 fps, the official geometry
    frames = np.rint(track.t * 24).astype(int)
    assert frames.tolist() == sorted(expected) == np.flatnonzero(official[:, 2] > 0).tolist()
    per_frame = defaultdict(list)
    for r in rows:
        per_frame[r[0]].append(r)
    agree = untracked_only = 0
    for k, f in enumerate(frames):
        ex, ey, ev = expected[f]
        assert bool(track.valid[k]) == ev
        np.testing.assert_allclose([track.x[k], track.y[k]], [ex, ey], rtol=0, atol=1e-12, equal_nan=True)
        samples = per_frame[f]
        px = [s[1] for s in samples]
        py = [s[2] for s in samples]
        if not any(math.isfinite(v) for v in px + py):
            untracked_only += 1  # official: NaN clamped to 0, the top-left corner; ours: invalid, no position
            assert official[f, 0] == 0 and official[f, 1] == 0 and not track.valid[k]
            assert math.isnan(track.x[k]) and math.isnan(track.y[k])
        elif (len(samples) <= 2 and all(s[3] != "Blink" for s in samples) and all(0 <= v <= 1279 for v in px)
              and all(0 <= v <= 959 for v in py)):
            agree += 1  # no deviation applies: the official position, to float32 precision
            assert track.valid[k] and official[f, 2] in (1, 2, 3)
            assert abs(track.x[k] * 1280 - official[f, 0] * 1280) < 1e-3
            assert abs(track.y[k] * 960 - official[f, 1] * 960) < 1e-3
    assert agree >= 10  # and these frames exercise the common case
    if session in EGTEA_V2:
        assert untracked_only > 0  # these excerpts do exercise untracked frames


def test_egtea_v2_leading_untracked_rows_are_samples_not_header():
    """P02-R06-GreekSalad starts with 32 untracked rows (lines 35-66): the track starts at frame 0,
    invalid, exactly as the official reader (which skips a fixed 34 lines) counts it."""
    path = EGTEA / "P02-R06-GreekSalad.txt"
    track = egtea.read_track(path)
    first_tracked = next(r[0] for r in official_egtea_rows(path) if math.isfinite(r[1]))
    assert track.t[0] == 0.0
    lead = np.rint(track.t * 24) < first_tracked
    assert lead.sum() == len({r[0] for r in official_egtea_rows(path) if r[0] < first_tracked})
    assert not track.valid[lead].any()


@pytest.mark.parametrize("session", EGTEA_V1 + EGTEA_V2)
def test_egtea_gaze_command_reads_every_real_file(session, tmp_path):
    """`streamgaze gaze FILE --source egtea` (the console script, another process) exports the track:
    one row per frame with a sample; untracked frames are written invalid with empty coordinates."""
    path = EGTEA / f"{session}.txt"
    out = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", str(path), "--source", "egtea", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="") as fh:
        got = list(csv.DictReader(fh))
    expected = our_rule_frames(official_egtea_rows(path))
    assert [round(float(r["t"]) * 24) for r in got] == sorted(expected)
    for r, f in zip(got, sorted(expected)):
        x, y, valid = expected[f]
        assert r["valid"] == ("1" if valid else "0")
        assert (r["x"] == "") == math.isnan(x) and (r["x"] == "" or abs(float(r["x"]) - x) < 1e-6)
        assert (r["y"] == "") == math.isnan(y) and (r["y"] == "" or abs(float(r["y"]) - y) < 1e-6)


def test_egtea_build_runs_over_a_session_with_untracked_rows(tmp_path):
    """`streamgaze build --source egtea` (console script) over a real v2 session (P10-R02-TurkeySandwich,
    its first 526 samples: untracked rows included): the build completes, and its `gaze` config holds the
    session's track, untracked frames invalid. Objects: an official-format episode metadata CSV with one
    episode per fixation the toolkit finds in the real track (the metadata back-end)."""
    import pyarrow.parquet as pq

    from streamgaze_hf.gaze.fixations import extract_fixations

    from ..fixtures.source_fixtures import write_scene_video

    session = "P10-R02-TurkeySandwich"
    raw = tmp_path / "raw"
    (raw / "gaze_data").mkdir(parents=True)
    shutil.copyfile(EGTEA / f"{session}.txt", raw / "gaze_data" / f"{session}.txt")
    track = egtea.read_track(EGTEA / f"{session}.txt")
    untracked = [r for r in official_egtea_rows(EGTEA / f"{session}.txt") if math.isnan(r[1])]
    assert untracked and not track.valid.all()
    write_scene_video(raw / "videos" / f"{session}.mp4", float(track.t[-1]) + 0.5, 24.0)
    fixations = extract_fixations(track)
    assert fixations
    meta = tmp_path / "metadata.csv"
    pool = ["mug", "knife", "bowl", "cutting board", "jar", "spoon", "kettle", "plate"]
    with meta.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["video_name", "episode_start_time", "episode_end_time", "duration", "representative_object",
                    "other_objects_in_cropped_area", "other_objects_outside_fov"])
        for k, f in enumerate(fixations):
            gazed, near = pool[k % 4], pool[k % 4 + 4]
            out = [{"object_identity": o, "detailed_caption": f"a {o}"} for o in pool if o not in (gazed, near)]
            w.writerow([session, f.start, f.end, f.end - f.start,
                        repr({"object_identity": gazed, "detailed_caption": f"a {gazed}"}),
                        repr([{"object_identity": near, "detailed_caption": f"a {near}"}]), repr(out[:4])])
    out = tmp_path / "streamgaze"
    proc = streamgaze("build", "--raw", str(raw), "--source", "egtea", "--objects", "metadata",
                          "--metadata", str(meta), "--out", str(out), "--version", "1.0.0")
    assert proc.returncode == 0, proc.stderr
    gaze = pq.read_table(out / "data" / "gaze" / "test-00000-of-00001.parquet").to_pydict()
    assert gaze["video_id"] == [session] * len(track)
    assert gaze["t"] == track.t.tolist() and gaze["valid"] == track.valid.tolist()
    expected = our_rule_frames(official_egtea_rows(EGTEA / f"{session}.txt"))
    assert sum(not v for _, _, v in expected.values()) == gaze["valid"].count(False) > 0


# --- Aria MPS eye gaze ----------------------------------------------------------------------------------
# Real files: projectaria_tools' sample data (facebookresearch/projectaria_tools @ 90f70ffe, data/gen1 and
# data/gen2): MPS eye-gaze CSVs in the three layouts, the factory calibration JSON stored in two of its VRS
# recordings, and its CAD extrinsics tables (core/calibration/ConfigData.cpp). Official output: the same
# rows read and projected by projectaria-tools 2.3.0 itself (tests/data/real/make_aria_reference.py; corpus official/aria_mps/).
ARIA = corpus("raw/aria_mps", module=True)
OFFICIAL_ARIA = corpus("official/aria_mps", module=True)
ARIA_FILES = {  # file -> layout
    "gen1_mps_sample_eyegaze.csv": "combined",
    "gen1_mps_sample_generalized_eye_gaze.csv": "combined",
    "gen1_aea_general_eye_gaze.csv": "combined",
    "gen1_mps_sample_vergence_generalized_gaze.csv": "gen1_vergence",
    "gen2_mps_sample_general_eye_gaze.csv": "gen2",
    "gen2_mps_sample_personalized_eye_gaze.csv": "gen2",
}


def official_aria_rows(path: Path) -> list[dict]:
    """projectaria_tools' reading of an MPS eye-gaze CSV (core/mps/EyeGazeReader.cpp and EyeGazeReader.h),
    re-implemented per layout: yaw, pitch, depth and, for Gen2, the vergence point and its validity.
    * Gen2 (combined yaw and both per-eye pitches): `getGazeVergencePoint` of the two eye rays (direction
      (sin yaw cos pitch, sin pitch, cos yaw cos pitch), closest points' midpoint; not a real vergence when
      the rays are within 0.75 deg, one runs backwards, they miss by > 3 cm or the point is > 6 m ahead);
      depth = distance from the mid-eye point when real, else 0.
    * Gen1 vergence (left/right yaw, no combined yaw): `computeDepthAndCombinedGazeDirection`: the rays from
      eyes 63 mm apart meet at x = 0.0315 (tan l + tan r) / (tan r - tan l), z = 0.063 / (tan r - tan l);
      yaw = atan(x / z); pitch and depth from the file.
    * combined: yaw, pitch and depth (empty: 0) from the file."""
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    header = set(rows[0])
    out = []
    for r in rows:
        num = {k: float(v) if v not in ("", None) else 0.0 for k, v in r.items() if k != "session_uid"}
        rec = {"t_us": int(r["tracking_timestamp_us"]), "pitch": num["pitch_rads_cpf"], "point": None}
        if {"yaw_rads_cpf", "left_pitch_rads_cpf", "right_pitch_rads_cpf"} <= header:
            o1 = np.array([num["tx_left_eye_cpf"], num["ty_left_eye_cpf"], num["tz_left_eye_cpf"]])
            o2 = np.array([num["tx_right_eye_cpf"], num["ty_right_eye_cpf"], num["tz_right_eye_cpf"]])

            def ray(yaw, pitch):
                return np.array([math.sin(yaw) * math.cos(pitch), math.sin(pitch), math.cos(yaw) * math.cos(pitch)])

            d1 = ray(num["left_yaw_rads_cpf"], num["left_pitch_rads_cpf"])
            d2 = ray(num["right_yaw_rads_cpf"], num["right_pitch_rads_cpf"])
            c = float(np.clip(d1 @ d2, -1, 1))
            w = o1 - o2
            t = (c * (d2 @ w) - d1 @ w) / (1 - c * c)
            s = ((d2 @ w) - c * (d1 @ w)) / (1 - c * c)
            p1, p2 = o1 + t * d1, o2 + s * d2
            mid = (p1 + p2) / 2
            fused = (d1 + d2) / np.linalg.norm(d1 + d2)
            real = (c <= math.cos(math.radians(0.75)) and t >= 0 and s >= 0 and np.linalg.norm(p1 - p2) <= 0.03
                    and fused @ (mid - (o1 + o2) / 2) <= 6.0)
            rec.update(yaw=num["yaw_rads_cpf"], point=mid if real else None,
                       depth=float(np.linalg.norm(mid - (o1 + o2) / 2)) if real else 0.0)
        elif "yaw_rads_cpf" not in header:
            tl, tr = math.tan(num["left_yaw_rads_cpf"]), math.tan(num["right_yaw_rads_cpf"])
            x, z = 0.063 / 2 * (tl + tr) / (tr - tl), 0.063 / (tr - tl)
            rec.update(yaw=math.atan(x / z), depth=num["depth_m"])
        else:
            rec.update(yaw=num["yaw_rads_cpf"], depth=num.get("depth_m", 0.0))
        out.append(rec)
    return out


def official_aria_calibration(name: str, width: int, height: int, first_us: float):
    """Our calibration.json content for a real device calibration, as projectaria-tools 2.3.0 projects:
    the camera-rgb FisheyeRadTanThinPrism params and its calibrated T_Device_Camera (quaternion w, (x, y, z)
    and translation) from the factory JSON; T_device_cpf from the CAD table (DeviceCadExtrinsics.cpp: rows
    `label, t, Y axis, Z axis` in CPF, rotation columns (Y x Z, Y, Z) of the normalised axes): for Gen1 the
    inverse of the origin sensor's CAD pose, for Gen2 the rigid SVD fit of the CAD camera positions onto
    the calibrated ones (DeviceCalibration.cpp computeSvdT_Device_Cpf, SvdPointCloudAlignment.cpp)."""
    from streamgaze_hf.gaze.sources.aria_mps import Calibration, Camera

    gen = name.split("_", 1)[0]
    js = json.loads((ARIA / {"gen1": "gen1_aea_recording_calibration.json",
                             "gen2": "gen2_unit_test_calibration.json"}[gen]).read_text())
    cad = {}
    table = (ARIA / {"gen1": "cad_extrinsics_gen1_DVT-S.csv", "gen2": "cad_extrinsics_gen2_EVT_SS.csv"}[gen])
    for line in table.read_text().splitlines()[1:]:
        f = [v.strip() for v in line.split(",")]
        ax_y, ax_z = np.array(f[4:7], float), np.array(f[7:10], float)
        ax_y, ax_z = ax_y / np.linalg.norm(ax_y), ax_z / np.linalg.norm(ax_z)
        m = np.eye(4)
        m[:3, :3] = np.column_stack([np.cross(ax_y, ax_z), ax_y, ax_z])
        m[:3, 3] = np.array(f[1:4], float)
        cad[f[0]] = m

    def pose(p):
        w, (x, y, z) = p["UnitQuaternion"]
        m = np.eye(4)
        m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
        m[:3, 3] = p["Translation"]
        return m

    cams = {c["Label"]: c for c in js["CameraCalibrations"]}
    if gen == "gen1":
        T_device_cpf = np.linalg.inv(cad[js["OriginSpecification"]["ChildLabel"]])
    else:
        a = np.array([cad[k][:3, 3] for k in cams if k in cad])
        b = np.array([pose(cams[k]["T_Device_Camera"])[:3, 3] for k in cams if k in cad])
        u, _, vt = np.linalg.svd((a - a.mean(0)).T @ (b - b.mean(0)))
        rot = vt.T @ u.T
        if np.linalg.det(rot) < 0:
            v = vt.T.copy()
            v[:, 2] *= -1
            rot = v @ u.T
        T_device_cpf = np.eye(4)
        T_device_cpf[:3, :3], T_device_cpf[:3, 3] = rot, b.mean(0) - rot @ a.mean(0)
    rgb = cams["camera-rgb"]
    camera = Camera("fisheye624", width, height, tuple(rgb["Projection"]["Params"]), pose(rgb["T_Device_Camera"]))
    return Calibration(camera, T_device_cpf, first_us, 0)


def official_aria_output(name: str) -> list[dict]:
    with (OFFICIAL_ARIA / f"{Path(name).stem}.projectaria_tools_2.3.0.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("name", sorted(ARIA_FILES))
def test_aria_rows_are_projectaria_tools_rows(name):
    """Every row, read as projectaria_tools reads its layout (re-implemented above, and as projectaria-tools
    2.3.0 itself read it): same count and times, same combined yaw, pitch and depth, same Gen2 vergence."""
    from streamgaze_hf.gaze.sources.aria_mps import read_gaze_rows

    ours = read_gaze_rows(ARIA / name)
    rule = official_aria_rows(ARIA / name)
    tool = official_aria_output(name)
    assert len(ours.timestamp_us) == len(rule) == len(tool) == sum(1 for _ in (ARIA / name).open()) - 1
    for k, (r, o) in enumerate(zip(rule, tool)):
        assert ours.timestamp_us[k] == r["t_us"] == int(o["tracking_timestamp_us"])
        assert ours.yaw[k] == pytest.approx(r["yaw"], abs=1e-12) and ours.pitch[k] == r["pitch"]
        assert (r["yaw"], r["pitch"]) == pytest.approx((float(o["yaw"]), float(o["pitch"])), abs=1e-6)  # float32
        assert r["depth"] == pytest.approx(float(o["depth"]), rel=1e-4, abs=1e-6)  # from float32 angles
        assert (r["point"] is not None) == (o["spatial_gaze_point_valid"] == "1")
        if r["point"] is not None:
            np.testing.assert_allclose(ours.point_cpf[k], r["point"], rtol=0, atol=1e-12)
        else:
            assert np.isnan(ours.point_cpf[k]).all()
        if ARIA_FILES[name] != "gen2":
            assert ours.depth[k] == pytest.approx(r["depth"]) or (math.isnan(ours.depth[k]) and r["depth"] == 0)
    if ARIA_FILES[name] == "gen2":
        assert all(r["point"] is not None for r in rule)  # these real rows all verge


@pytest.mark.parametrize("name", sorted(ARIA_FILES))
def test_aria_projection_matches_projectaria_tools(name):
    """Pixels on the real RGB calibration (Gen1: the Aria Everyday Activities sample recording; Gen2: the
    Gen2 unit-test recording) against projectaria-tools 2.3.0's `get_gaze_vector_reprojection` of the
    same rows: within 0.01 px (target: 1 px). Gen2 rows are projected at their vergence point, not at 1 m."""
    from streamgaze_hf.gaze.sources.aria_mps import gaze_track

    tool = official_aria_output(name)
    width, height = int(tool[0]["width"]), int(tool[0]["height"])
    first = float(tool[0]["tracking_timestamp_us"])
    track = gaze_track(ARIA / name, official_aria_calibration(name, width, height, first), width, height, 30.0)
    assert len(track) == len(tool)
    np.testing.assert_allclose(track.t, [(int(o["tracking_timestamp_us"]) - first) / 1e6 for o in tool], atol=1e-9)
    u = np.array([float(o["u_unchecked"]) for o in tool])
    v = np.array([float(o["v_unchecked"]) for o in tool])
    assert track.valid.all()
    assert np.hypot(track.x * width - u, track.y * height - v).max() < 0.01
    checked = np.array([o["u"] != "" for o in tool])
    assert checked.any() and track.in_frame[checked].all()


def test_aria_gaze_command_projects_a_real_gen2_file(tmp_path):
    """`streamgaze gaze .../general_eye_gaze.csv --source aria_mps` (console script) in the native layout,
    with the real Gen2 calibration written as calibration.json: the exported pixels are projectaria-tools'."""
    from ..fixtures.source_fixtures import write_scene_video

    name = "gen2_mps_sample_general_eye_gaze.csv"
    tool = official_aria_output(name)
    width, height = int(tool[0]["width"]), int(tool[0]["height"])
    first = float(tool[0]["tracking_timestamp_us"])
    c = official_aria_calibration(name, width, height, first)
    rec = tmp_path / "raw" / "eye_gaze" / "P01-gen2"
    rec.mkdir(parents=True)
    shutil.copyfile(ARIA / name, rec / "general_eye_gaze.csv")
    (rec / "calibration.json").write_text(json.dumps({
        "camera": {"model": c.camera.model, "width": width, "height": height, "params": list(c.camera.params),
                   "T_device_camera": c.camera.T_device_camera.tolist()},
        "T_device_cpf": c.T_device_cpf.tolist(), "first_frame_time_us": first, "rotation_cw_deg": 0}))
    write_scene_video(tmp_path / "raw" / "videos" / "P01-gen2.mp4", 1.0, 30.0)
    out = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", str(rec / "general_eye_gaze.csv"), "--source", "aria_mps", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="") as fh:
        got = list(csv.DictReader(fh))
    assert len(got) == len(tool)
    for r, o in zip(got, tool):
        assert abs(float(r["x"]) * width - float(o["u_unchecked"])) < 0.01  # CSV keeps 6 decimals
        assert abs(float(r["y"]) * height - float(o["v_unchecked"])) < 0.01


# --- HoloAssist -------------------------------------------------------------------------------------------
# Real files: the Export_py/Video pose and timing files of session R007-7July-DSLR (pyxploiter/HoloAssistViewer).
# No public Eyes_sync.txt or Intrinsics.txt was found: the gaze projection itself is not tested on real files.
# Official rule: PyHoloAssist hand_eye_project.py (taeinkwon/PyHoloAssist @ 9d0dfe23, by the HoloAssist authors):
# * Pose_sync.txt: lines up to the first empty one, split on tabs; tick = int(field 1); pose = fields 2..17
#   as a row-major 4x4 (read_pose_txt);
# * VideoMp4Timing.txt: start = int(line 1), end = int(line 2);
# * frame i's tick: start + (i * den * 10^7) // num with num/den = Fraction(fps).limit_denominator();
# * nearest tick: IndexSearch.nearest_neighbor (a forward scan; the earlier index only when strictly closer).
HOLO = corpus("raw/holoassist", module=True)


def official_holo_pose_rows(path: Path) -> list[list[str]]:
    rows = []
    for line in path.read_text().split("\n"):
        if line == "":
            break
        rows.append(line.split("\t"))
    return rows


def official_nearest(times: list[int], queries: list[int]) -> list[int]:
    """PyHoloAssist's IndexSearch: one cursor moving forward over `times` as the queries increase."""
    index, out = 0, []
    for q in queries:
        while q > times[index] and index < len(times) - 1:
            index += 1
        closer_before = index != 0 and abs(times[index] - q) > abs(times[index - 1] - q)
        out.append(index - 1 if closer_before and q <= times[index] else index)
    return out


def test_holoassist_pose_and_timing_files_read_as_pyholoassist_reads_them():
    from fractions import Fraction

    from streamgaze_hf.gaze.sources import holoassist

    rows = official_holo_pose_rows(HOLO / "Pose_sync.txt")
    ticks, poses = holoassist.read_pose_sync(HOLO / "Pose_sync.txt")
    assert len(ticks) == len(rows) == 60
    assert ticks.tolist() == [int(r[1]) for r in rows]
    np.testing.assert_array_equal(poses, np.array([[float(v) for v in r[2:]] for r in rows]).reshape(-1, 4, 4))
    lines = (HOLO / "VideoMp4Timing.txt").read_text().split("\n")
    start, end = holoassist.read_timing(HOLO / "VideoMp4Timing.txt")
    assert (start, end) == (int(lines[0]), int(lines[1]))
    for fps in (30.0, 30000 / 1001):  # the rate is the video's (the real video is not public): both usual ones
        rate = Fraction(fps).limit_denominator()
        expected = [start + (i * rate.denominator * 10**7) // rate.numerator for i in range(len(rows))]
        frames = holoassist.frame_ticks(start, fps, len(rows))
        assert frames.tolist() == expected
        assert holoassist.nearest(ticks, frames).tolist() == official_nearest(ticks.tolist(), expected)
