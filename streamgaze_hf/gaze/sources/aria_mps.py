"""Aria MPS eye gaze (HD-EPIC, Project Aria recordings): ``general_eye_gaze.csv`` (yaw/pitch in the
Central Pupil Frame, CPF) projected into the RGB video's pixels through a camera calibration.

This is the raw MPS output, not Ego-Exo4D's ready-made 2-D file (``general_eye_gaze_2d.csv``, pixel
``x, y``), which has its own reader.

Native layout::

    <raw>/videos/<video_id>.mp4  or  <raw>/<Pxx>/<video_id>.mp4     the RGB video (HD-EPIC layout)
    <raw>/eye_gaze/<video_id>/general_eye_gaze.csv                   MPS eye gaze (defines the recordings)
    <raw>/eye_gaze/<video_id>/calibration.json                       the calibration below

No action annotations.

**Gaze CSV.** Three layouts, told apart by their columns as projectaria_tools' MPS reader tells them
(``core/mps/EyeGazeReader.cpp``, facebookresearch/projectaria_tools @ 90f70ffe, ``readEyeGazeVergence`` and
``readEyeGaze``; the helpers are in ``EyeGazeReader.h``):

* **combined** (Gen1 ``eyegaze.csv`` / ``general_eye_gaze.csv``): ``tracking_timestamp_us`` (device clock,
  microseconds), ``yaw_rads_cpf``, ``pitch_rads_cpf`` (radians, in the Central Pupil Frame, CPF) and
  ``depth_m`` (metres; empty or 0 when unknown).
* **Gen1 vergence** (``generalized_gaze.csv`` of ``eye_gaze_vergence``): ``left_yaw_rads_cpf``,
  ``right_yaw_rads_cpf``, a common ``pitch_rads_cpf`` and ``depth_m``, no combined yaw. The combined yaw
  is projectaria_tools' ``computeDepthAndCombinedGazeDirection``: ``atan(x / z)`` of the intersection of
  the two rays (eyes 63 mm apart), which is ``atan((tan(left_yaw) + tan(right_yaw)) / 2)``, the mean of the
  tangents (not of the angles); the depth is the file's.
* **Gen2** (``yaw_rads_cpf`` with ``left_pitch_rads_cpf`` and ``right_pitch_rads_cpf``, no ``depth_m``):
  per eye a yaw, a pitch and an origin (``tx_left_eye_cpf`` ... ``tz_right_eye_cpf``, metres, CPF). The
  gaze point is projectaria_tools' ``getGazeVergencePoint``: per-eye directions ``(sin(yaw) cos(pitch),
  sin(pitch), cos(yaw) cos(pitch))``, the midpoint of the closest points of the two rays. It is a real
  vergence (and its distance from the mid-eye point the depth) unless the rays meet at less than 0.75
  degrees, one of them would go backwards (t or s < 0), they miss each other by more than 3 cm, or the
  point is more than 6 m ahead along the fused direction; then projectaria_tools marks it not valid, and
  the gaze is the combined ``yaw_rads_cpf`` / ``pitch_rads_cpf`` at the default depth, like a combined row.

Otherwise the gaze direction in CPF is ``normalise([tan(yaw), tan(pitch), 1])`` and the 3-D gaze point
that direction times the depth (projectaria_tools ``getEyeGazePointAtDepth``), the depth being
``depth_m`` when it is a positive number, else ``DEFAULT_DEPTH_M`` = 1 m (projectaria_tools' examples:
``depth_m = eye_gaze.depth or 1.0``). This is what ``get_gaze_vector_reprojection``
(``projectaria_tools/core/mps/utils.py``) projects: the vergence point when it is valid, else the point
at depth.

**Calibration JSON** (what projectaria_tools gives for the recording's RGB camera, written out once per
video; all matrices 4x4 row-major, metres)::

    {"camera": {"model": "linear" | "fisheye624", "width": W, "height": H, "params": [...],
                "T_device_camera": [[...], ...]},
     "T_device_cpf": [[...], ...],
     "first_frame_time_us": <device time of the video's first frame>,
     "rotation_cw_deg": 0 | 90 | 180 | 270}

* ``T_device_cpf`` maps CPF points to the device frame, ``T_device_camera`` camera points to the device
  frame; a CPF point goes to the camera as ``inv(T_device_camera) @ T_device_cpf @ p``. projectaria-tools
  2.3.0's ``get_gaze_vector_reprojection`` uses ``device_calibration.get_transform_device_cpf()`` (Gen1:
  the CAD pose; Gen2: the CAD camera positions fitted onto the calibrated ones) and
  ``get_transform_device_sensor("camera-rgb")`` (the camera's calibrated pose): write those two here.
  (The projectaria_tools source at 90f70ffe still projects with the CAD camera pose: 6 to 14 px away on
  the sample rows, on the VRS-sized RGB frames; we match the released 2.3.0.) A point with camera
  z <= 0 (behind the camera) cannot be placed: the sample is invalid (NaN).
* ``linear`` (pinhole, no distortion), params ``[fx, fy, cx, cy]``: ``u = fx * x/z + cx``,
  ``v = fy * y/z + cy``.
* ``fisheye624`` (Aria's RGB camera model, projectaria_tools' FisheyeRadTanThinPrism), params ``[f, cx, cy,
  k0..k5, p0, p1, s0..s3]`` (15) or ``[fx, fy, cx, cy, k0..k5, p0, p1, s0..s3]`` (16). With ``a = x/z``,
  ``b = y/z``, ``r = sqrt(a^2 + b^2)``, ``th = atan(r)``: ``(xr, yr) = th (1 + k0 th^2 + ... + k5 th^12) / r *
  (a, b)`` (``(a, b)`` at r = 0); ``q = xr^2 + yr^2``; ``xd = xr + 2 (p0 xr + p1 yr) xr + p0 q + s0 q + s1 q^2``;
  ``yd = yr + 2 (p0 xr + p1 yr) yr + p1 q + s2 q + s3 q^2``; ``u = fx xd + cx``, ``v = fy yd + cy``. With all
  distortion coefficients 0 this is the equidistant fisheye ``u = f th a / r + cx``. Checked against
  projectaria-tools 2.3.0 on real calibrations and real MPS files of the three layouts (tests/
  integration/test_real_raw_readers.py; docs/conformance.md: largest difference 0.003 px).
* pixels are normalised by the calibration's ``width`` / ``height`` (so a downscaled video keeps its
  coordinates), origin top-left, then turned with the video: ``rotation_cw_deg`` = 90 when the MP4 is the
  camera image rotated 90 degrees clockwise (upright Aria video): ``(x, y) -> (1 - y, x)``; 180:
  ``(1 - x, 1 - y)``; 270: ``(y, 1 - x)``.
* time on the video clock: ``(tracking_timestamp_us - first_frame_time_us) / 1e6``; samples before the
  first frame are dropped, a repeated timestamp keeps its first sample, a timestamp going back is an error.

Validity: finite yaw and pitch, and the point in front of the camera. Off-frame points keep their
coordinates (``GazeTrack.in_frame`` is False for them).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..track import GazeTrack
from .base import Recording, csv_rows, discover_recordings

SOURCE = "aria_mps"
LAYOUT = ("<raw>/videos/<id>.mp4 or <raw>/<Pxx>/<id>.mp4, <raw>/eye_gaze/<id>/general_eye_gaze.csv "
          "(Aria MPS yaw/pitch in CPF) + <raw>/eye_gaze/<id>/calibration.json")
GAZE_CSV = "general_eye_gaze.csv"
CALIBRATION = "calibration.json"
DEFAULT_DEPTH_M = 1.0
MODELS = ("linear", "fisheye624")
ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class Camera:
    model: str
    width: int
    height: int
    params: tuple[float, ...]
    T_device_camera: np.ndarray

    @property
    def focal(self) -> tuple[float, float]:
        p = self.params
        if self.model == "linear" or len(p) == 16:
            return p[0], p[1]
        return p[0], p[0]

    @property
    def hfov_deg(self) -> float:
        """Horizontal field of view (pinhole: exact; fisheye: the equidistant approximation)."""
        fx = self.focal[0]
        half = self.width / 2.0 / fx
        return math.degrees(2 * (math.atan(half) if self.model == "linear" else half))


@dataclass(frozen=True)
class Calibration:
    camera: Camera
    T_device_cpf: np.ndarray
    first_frame_time_us: float
    rotation_cw_deg: int


def _matrix(value, what: str, path: Path) -> np.ndarray:
    try:
        m = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        m = None
    if m is None or m.shape != (4, 4) or not np.all(np.isfinite(m)):
        raise GazeFormatError(f"{what} is not a 4x4 matrix of numbers", path)
    return m


def read_calibration(path: Path) -> Calibration:
    """The calibration JSON (see the module docstring); GazeFormatError naming the file otherwise."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        cam = data["camera"]
        model = str(cam["model"])
        params = tuple(float(v) for v in cam["params"])
        width, height = int(cam["width"]), int(cam["height"])
    except FileNotFoundError:
        raise GazeFormatError("calibration file not found", path) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise GazeFormatError(f"bad calibration ({exc.__class__.__name__}: {exc})", path) from None
    if model not in MODELS:
        raise GazeFormatError(f"camera model {model!r}; expected one of {', '.join(MODELS)}", path)
    need = (4,) if model == "linear" else (15, 16)
    if len(params) not in need:
        raise GazeFormatError(f"{model} camera needs {' or '.join(map(str, need))} params, got {len(params)}", path)
    if width <= 0 or height <= 0:
        raise GazeFormatError(f"bad camera size {width}x{height}", path)
    rotation = int(data.get("rotation_cw_deg", 0))
    if rotation not in ROTATIONS:
        raise GazeFormatError(f"rotation_cw_deg {rotation}; expected one of {ROTATIONS}", path)
    try:
        first = float(data["first_frame_time_us"])
    except (KeyError, TypeError, ValueError):
        raise GazeFormatError("first_frame_time_us missing or not a number", path) from None
    camera = Camera(model, width, height, params, _matrix(cam["T_device_camera"], "camera.T_device_camera", path))
    return Calibration(camera, _matrix(data["T_device_cpf"] if "T_device_cpf" in data else None, "T_device_cpf", path),
                       first, rotation)


def gaze_point_cpf(yaw: np.ndarray, pitch: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """(N, 3) gaze points in CPF: ``normalise([tan(yaw), tan(pitch), 1]) * depth``."""
    d = np.stack([np.tan(yaw), np.tan(pitch), np.ones_like(yaw)], axis=1)
    return d / np.linalg.norm(d, axis=1, keepdims=True) * depth[:, None]


def project(camera: Camera, p_cam: np.ndarray) -> np.ndarray:
    """(N, 2) pixel coordinates of camera-frame points (NaN where z <= 0)."""
    x, y, z = p_cam[:, 0], p_cam[:, 1], p_cam[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = np.where(z > 0, x / z, np.nan), np.where(z > 0, y / z, np.nan)
    p = camera.params
    if camera.model == "linear":
        fx, fy, cx, cy = p
        return np.stack([fx * a + cx, fy * b + cy], axis=1)
    if len(p) == 16:
        fx, fy, cx, cy, rest = p[0], p[1], p[2], p[3], p[4:]
    else:
        fx = fy = p[0]
        cx, cy, rest = p[1], p[2], p[3:]
    k, (p0, p1), s = rest[:6], rest[6:8], rest[8:12]
    r = np.hypot(a, b)
    th = np.arctan(r)
    th2 = th * th
    radial = 1 + sum(kc * th2 ** (i + 1) for i, kc in enumerate(k))  # 1 + k0 th^2 + ... + k5 th^12
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(r > 1e-12, th * radial / r, 1.0)
    xr, yr = scale * a, scale * b
    q = xr * xr + yr * yr
    dot2 = 2 * (p0 * xr + p1 * yr)
    xd = xr + dot2 * xr + p0 * q + s[0] * q + s[1] * q * q
    yd = yr + dot2 * yr + p1 * q + s[2] * q + s[3] * q * q
    return np.stack([fx * xd + cx, fy * yd + cy], axis=1)


def rotate_normalised(x: np.ndarray, y: np.ndarray, rotation_cw_deg: int) -> tuple[np.ndarray, np.ndarray]:
    """Normalised coordinates in the image turned ``rotation_cw_deg`` clockwise."""
    if rotation_cw_deg == 90:
        return 1 - y, x
    if rotation_cw_deg == 180:
        return 1 - x, 1 - y
    if rotation_cw_deg == 270:
        return y, 1 - x
    return x, y


def project_gaze(calib: Calibration, yaw: np.ndarray, pitch: np.ndarray, depth: np.ndarray,
                 point_cpf: np.ndarray | None = None) -> tuple:
    """(x, y) normalised in the (rotated) video frame, NaN where the point is behind the camera. Rows of
    ``point_cpf`` (N, 3) that are finite (a Gen2 vergence point) are projected instead of yaw/pitch/depth."""
    depth = np.where(np.isfinite(depth) & (depth > 0), depth, DEFAULT_DEPTH_M)
    p_cpf = gaze_point_cpf(np.asarray(yaw, float), np.asarray(pitch, float), np.asarray(depth, float))
    if point_cpf is not None:
        point_cpf = np.asarray(point_cpf, float).reshape(-1, 3)
        given = np.all(np.isfinite(point_cpf), axis=1)
        p_cpf[given] = point_cpf[given]
    T = np.linalg.inv(calib.camera.T_device_camera) @ calib.T_device_cpf
    p_cam = (T[:3, :3] @ p_cpf.T).T + T[:3, 3]
    uv = project(calib.camera, p_cam)
    x, y = uv[:, 0] / calib.camera.width, uv[:, 1] / calib.camera.height
    return rotate_normalised(x, y, calib.rotation_cw_deg)


@dataclass(frozen=True)
class GazeRows:
    """The samples of one MPS gaze CSV: device time, combined yaw and pitch (radians, CPF), depth (m,
    NaN where absent) and, for Gen2 rows, the vergence point in CPF (NaN where not a real vergence)."""

    timestamp_us: np.ndarray
    yaw: np.ndarray
    pitch: np.ndarray
    depth: np.ndarray
    point_cpf: np.ndarray  # (N, 3)


def read_gaze_rows(path: Path) -> GazeRows:
    """Every row of an MPS ``general_eye_gaze.csv`` in one of the three layouts (module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    ts, yaw, pitch, depth, points = [], [], [], [], []
    for lineno, row, col in csv_rows(path, _required_columns):
        layout = _layout(col)
        try:
            t = float(row[col["tracking_timestamp_us"]])
            pt = _num(row[col["pitch_rads_cpf"]])
            dp = _num(row[col["depth_m"]]) if "depth_m" in col else math.nan
            point = (math.nan,) * 3
            if layout == "gen1_vergence":
                yw = combined_yaw(_num(row[col["left_yaw_rads_cpf"]]), _num(row[col["right_yaw_rads_cpf"]]))
            else:
                yw = _num(row[col["yaw_rads_cpf"]])
            if layout == "gen2":
                eyes = [[_num(row[col[f"{a}_{side}_eye_cpf"]]) for a in ("tx", "ty", "tz")]
                        for side in ("left", "right")]
                found, real = vergence_point(
                    np.array(eyes[0]), _num(row[col["left_yaw_rads_cpf"]]), _num(row[col["left_pitch_rads_cpf"]]),
                    np.array(eyes[1]), _num(row[col["right_yaw_rads_cpf"]]), _num(row[col["right_pitch_rads_cpf"]]))
                if real:
                    point = tuple(found)
        except ValueError as exc:
            raise GazeFormatError(f"line {lineno}: not a number ({exc})", path) from None
        if not math.isfinite(t):
            raise GazeFormatError(f"line {lineno}: timestamp is not a finite number", path)
        ts.append(t)
        yaw.append(yw)
        pitch.append(pt)
        depth.append(dp)
        points.append(point)
    return GazeRows(np.asarray(ts, dtype=np.float64), np.asarray(yaw, dtype=np.float64),
                    np.asarray(pitch, dtype=np.float64), np.asarray(depth, dtype=np.float64),
                    np.asarray(points, dtype=np.float64).reshape(-1, 3))


def read_gaze_csv(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """timestamp_us, yaw, pitch, depth (NaN where absent) of an MPS ``general_eye_gaze.csv``."""
    rows = read_gaze_rows(path)
    return rows.timestamp_us, rows.yaw, rows.pitch, rows.depth


GEN2_EYE_COLUMNS = ("left_yaw_rads_cpf", "right_yaw_rads_cpf", "left_pitch_rads_cpf", "right_pitch_rads_cpf",
                    "tx_left_eye_cpf", "ty_left_eye_cpf", "tz_left_eye_cpf",
                    "tx_right_eye_cpf", "ty_right_eye_cpf", "tz_right_eye_cpf")


def _layout(header) -> str:
    """combined | gen1_vergence | gen2, as projectaria_tools' reader decides (Gen2: a combined yaw and both
    per-eye pitches); a Gen2 file that gives a depth keeps it (the combined layout)."""
    if "yaw_rads_cpf" not in header:
        return "gen1_vergence"
    if "depth_m" not in header and all(c in header for c in ("left_pitch_rads_cpf", "right_pitch_rads_cpf")):
        return "gen2"
    return "combined"


def _required_columns(header: list[str]) -> list[str]:
    layout = _layout(header)
    if layout == "gen1_vergence":
        return ["tracking_timestamp_us", "left_yaw_rads_cpf", "right_yaw_rads_cpf", "pitch_rads_cpf"]
    if layout == "gen2":
        return ["tracking_timestamp_us", "yaw_rads_cpf", "pitch_rads_cpf", *GEN2_EYE_COLUMNS]
    return ["tracking_timestamp_us", "yaw_rads_cpf", "pitch_rads_cpf"]


def _num(s: str) -> float:
    s = s.strip()
    return math.nan if s in ("", "nan", "NaN") else float(s)


def combined_yaw(left_yaw: float, right_yaw: float) -> float:
    """projectaria_tools ``computeDepthAndCombinedGazeDirection``: the yaw of the two rays' intersection,
    ``atan((tan(left) + tan(right)) / 2)``."""
    return math.atan((math.tan(left_yaw) + math.tan(right_yaw)) / 2.0)


VERGENCE_MIN_ANGLE_DEG = 0.75
VERGENCE_MAX_MISS_M = 0.03
VERGENCE_MAX_DEPTH_M = 6.0


def _direction(yaw: float, pitch: float) -> np.ndarray:
    cp = math.cos(pitch)
    return np.array([math.sin(yaw) * cp, math.sin(pitch), math.cos(yaw) * cp])


def vergence_point(left_origin: np.ndarray, left_yaw: float, left_pitch: float, right_origin: np.ndarray,
                   right_yaw: float, right_pitch: float) -> tuple[np.ndarray, bool]:
    """projectaria_tools ``getGazeVergencePoint``: the midpoint of the closest points of the two eye rays
    and whether it is a real vergence (module docstring); (NaN point, False) when it is not."""
    nan = np.full(3, np.nan)
    d1, d2 = _direction(left_yaw, left_pitch), _direction(right_yaw, right_pitch)
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(d2)) and np.all(np.isfinite(left_origin))
            and np.all(np.isfinite(right_origin))):
        return nan, False
    c = min(max(float(d1 @ d2), -1.0), 1.0)
    denom = 1.0 - c * c
    if c > math.cos(math.radians(VERGENCE_MIN_ANGLE_DEG)) or abs(denom) < 1e-12:
        return nan, False
    p12 = left_origin - right_origin
    a, b = float(d1 @ p12), float(d2 @ p12)
    t, u = (c * b - a) / denom, (b - c * a) / denom
    if t < 0 or u < 0:
        return nan, False
    p_left, p_right = left_origin + t * d1, right_origin + u * d2
    point = (p_left + p_right) / 2
    fused = d1 + d2
    fused = fused / np.linalg.norm(fused) if fused @ fused >= 1e-12 else np.array([0.0, 0.0, 1.0])
    if np.linalg.norm(p_left - p_right) > VERGENCE_MAX_MISS_M:
        return nan, False
    if float(fused @ (point - (left_origin + right_origin) / 2)) > VERGENCE_MAX_DEPTH_M:
        return nan, False
    return point, True


def gaze_track(csv_path: Path, calib: Calibration, width: int, height: int, fps: float) -> GazeTrack:
    """The normalised track of one gaze CSV with its calibration, for a video of the given geometry."""
    rows = read_gaze_rows(csv_path)
    ts = rows.timestamp_us
    t = (ts - calib.first_frame_time_us) / 1e6
    keep = t >= 0
    if len(t) > 1:
        d = np.diff(t)
        if np.any(d < 0):
            i = int(np.argmax(d < 0)) + 1
            raise GazeFormatError(f"line {i + 2}: timestamp {ts[i]:.0f} goes back from {ts[i - 1]:.0f}", csv_path)
        keep &= np.concatenate([[True], d > 0])
    t, yaw, pitch = t[keep], rows.yaw[keep], rows.pitch[keep]
    depth, point = rows.depth[keep], rows.point_cpf[keep]
    x, y = project_gaze(calib, yaw, pitch, depth, point) if len(t) else (np.zeros(0), np.zeros(0))
    valid = np.isfinite(yaw) & np.isfinite(pitch) & np.isfinite(x) & np.isfinite(y)
    return GazeTrack(t, x, y, valid, width, height, fps, hfov_deg=calib.camera.hfov_deg)


def gaze_file(gaze_dir: Path, video_id: str) -> Path | None:
    """``{gaze_dir}/{video_id}/general_eye_gaze.csv`` when it exists."""
    path = Path(gaze_dir) / video_id / GAZE_CSV
    return path if path.is_file() else None


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of one ``general_eye_gaze.csv`` with the ``calibration.json`` beside it; the video
    (given, or found in the native layout) sets size and fps (needed: there is no nominal geometry)."""
    path = Path(path)
    calib = read_calibration(path.parent / CALIBRATION)
    if video is None:
        raw, vid = path.parent.parent.parent, path.parent.name
        video = _find_video(raw, vid)
    if video is None:
        raise StreamGazeError("the video of this Aria gaze file is needed for its size and frame rate", path)
    info = probe_video(video)
    return gaze_track(path, calib, info.width, info.height, info.fps)


def _find_video(raw: Path, video_id: str) -> Path | None:
    for cand in (raw / "videos" / f"{video_id}.mp4", raw / video_id.split("-", 1)[0] / f"{video_id}.mp4"):
        if cand.is_file():
            return cand
    return None


def _gaze_ids(raw: Path) -> list[str]:
    """The recording ids with MPS eye gaze under ``raw/eye_gaze/<id>/``, sorted."""
    base = Path(raw) / "eye_gaze"
    return sorted(p.parent.name for p in base.glob(f"*/{GAZE_CSV}")) if base.is_dir() else []


def looks_like(raw: Path) -> bool:
    """Whether ``raw`` is a raw directory of this layout (MPS eye gaze under ``eye_gaze/<id>/``)."""
    return bool(_gaze_ids(raw))


def discover(raw: Path) -> list[str]:
    """Recordings with a gaze CSV; each must have its video."""
    return discover_recordings(raw, _gaze_ids(raw), "Aria MPS gaze recordings", LAYOUT, lambda vid: _require_video(raw, vid))


def _require_video(raw: Path, vid: str) -> None:
    if _find_video(Path(raw), vid) is None:
        raise StreamGazeError(f"video of {vid} not found (expected {LAYOUT})", raw)


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video and projected gaze track of one recording (no actions)."""
    raw = Path(raw)
    video = _find_video(raw, video_id)
    if video is None:
        raise StreamGazeError(f"video of {video_id} not found (expected {LAYOUT})", raw)
    path = gaze_file(raw / "eye_gaze", video_id)
    if path is None:
        raise GazeFormatError("gaze file not found", raw / "eye_gaze" / video_id / GAZE_CSV)
    return Recording(video_id, SOURCE, video, read_track(path, video), [], None)
