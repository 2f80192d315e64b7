"""HoloAssist (HoloLens 2): 3-D eye rays projected into the RGB video (paper appendix A.1).

Native layout (the ``Export_py`` tree of PyHoloAssist, with ``cam_info.tar`` untarred alongside)::

    <raw>/<session>/Export_py/Video_pitchshift.mp4
    <raw>/<session>/Export_py/Video/Intrinsics.txt       fx 0 cx 0 fy cy 0 0 1 W H (one line)
    <raw>/<session>/Export_py/Video/Pose_sync.txt        time, ticks, 16 values: 4x4 camera-to-world
    <raw>/<session>/Export_py/Video/VideoMp4Timing.txt   line 1 start ticks, line 2 end ticks
    <raw>/<session>/Export_py/Eyes/Eyes_sync.txt         time, ticks, origin xyz, direction xyz, valid
    <raw>/data-annnotation-trainval-v1_1.json           optional actions (or data-annotation-trainval-v1.json)

Text files are whitespace (tab) separated; like the reference readers, a file ends at its first blank
line. Ticks are integers in 100 ns units (10^7 per second). Every row of a wrong field count, every
unparsable number, decreasing ticks or a singular pose raise :class:`GazeFormatError` naming the file
and line.

Projection, one gaze sample per video frame ``i`` (reference step 0, appendix A.1):

1. frame tick ``start + floor(i * den * 10^7 / num)`` with ``num/den`` the video rate as a fraction;
2. the nearest pose tick and the nearest gaze tick (a tie goes to the earlier one);
3. ``P = origin + 0.5 m * dir / |dir|`` (d_eye = 0.5 m);
4. ``(X, Y, Z) = A . inv(pose) . [P; 1]`` with ``A = [[0,-1,0,0],[0,0,-1,0],[1,0,0,0],[0,0,0,1]]``
   (HoloLens axes -> OpenCV axes: X = -y, Y = -z, Z = x);
5. ``Z <= 0`` (behind the camera) or a zero direction: not projectable -> NaN coordinates, invalid;
6. ``u = fx X/Z + cx``, ``v = fy Y/Z + cy``; ``x = u / W``, ``y = v / H``.

``W, H`` are the intrinsics' own image size: the intrinsics describe that pixel grid, so dividing by it
gives coordinates that fit the video whatever size it was encoded at (the reference divided by the
video's 896x504, which is wrong when the two differ). Points that project outside the image keep
their coordinates (``in_frame`` False). The eye tracker's ``valid`` 0 makes a sample invalid (the
position is still projected). A frame whose nearest pose or gaze sample is more than ``MAX_GAP_S``
away from it (the streams do not cover it) is invalid as well. ``t`` is the frame's presentation
time; ``hfov_deg = 2 atan(W / 2 fx)``.

Actions: the trainval JSON is a list of ``{video_name, events: [{label, start, end, attributes}]}``;
only ``label == "Fine grained action"`` events are kept, labelled ``"<Verb> <Noun>"`` (a ``none`` part
left out, underscores read as spaces); times are seconds on the session video.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..fov import hfov_from_intrinsics
from ..track import GazeTrack
from .base import Action, Recording, discover_recordings, finite_float, recording_folders, sort_actions

SOURCE = "holoassist"
LAYOUT = ("<raw>/<session>/Export_py/ with Video_pitchshift.mp4, Video/{Intrinsics,Pose_sync,VideoMp4Timing}.txt "
          "and Eyes/Eyes_sync.txt; optional <raw>/data-annnotation-trainval-v1_1.json")
EXPORT = "Export_py"
VIDEO_NAME = "Video_pitchshift.mp4"
ANNOTATION_FILES = ("data-annnotation-trainval-v1_1.json", "data-annotation-trainval-v1.json")
FINE_LABEL = "Fine grained action"
TICKS_PER_SECOND = 10_000_000
EYE_DISTANCE_M = 0.5
MAX_GAP_S = 0.2
AXIS_TRANSFORM = np.array([[0, -1, 0, 0], [0, 0, -1, 0], [1, 0, 0, 0], [0, 0, 0, 1]], dtype=np.float64)


@dataclass(frozen=True)
class Intrinsics:
    K: np.ndarray  # 3x3
    width: int
    height: int

    @property
    def hfov_deg(self) -> float:
        return hfov_from_intrinsics(float(self.K[0, 0]), self.width)


@dataclass(frozen=True)
class Projection:
    """Per-frame projection result: pixel coordinates (NaN where not projectable) and flags."""

    u: np.ndarray
    v: np.ndarray
    valid: np.ndarray  # eye valid, projectable and covered by both streams


def discover(raw: Path) -> list[str]:
    """Session directories holding an ``Export_py`` folder."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, lambda d: (d / EXPORT).is_dir()), "HoloAssist sessions",
                               LAYOUT, lambda session: None)


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, projected gaze track (with the HFOV) and fine-grained actions of one session."""
    raw = Path(raw)
    export = raw / video_id / EXPORT
    if not export.is_dir():
        raise StreamGazeError(f"session {video_id!r} has no {EXPORT} directory", raw / video_id)
    track = read_track(export)
    ann = next((raw / n for n in ANNOTATION_FILES if (raw / n).is_file()), None)
    actions = read_fine_actions(ann, video_id) if ann is not None else []
    return Recording(video_id, SOURCE, export / VIDEO_NAME, track, actions, raw / video_id)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """Project one session's gaze; ``path`` is its ``Export_py`` directory (or the session directory)."""
    export = Path(path)
    if not (export / "Eyes").is_dir() and (export / EXPORT).is_dir():
        export = export / EXPORT
    if not export.is_dir():
        raise GazeFormatError(f"not a HoloAssist {EXPORT} directory", export)
    video = Path(video) if video is not None else export / VIDEO_NAME
    info = probe_video(video)
    intr = read_intrinsics(export / "Video" / "Intrinsics.txt")
    start, _end = read_timing(export / "Video" / "VideoMp4Timing.txt")
    pose_ticks, poses = read_pose_sync(export / "Video" / "Pose_sync.txt")
    eye_ticks, origins, dirs, eye_valid = read_eyes_sync(export / "Eyes" / "Eyes_sync.txt")
    ticks = frame_ticks(start, info.fps, info.n_frames)
    proj = project_gaze(ticks, pose_ticks, poses, eye_ticks, origins, dirs, eye_valid, intr.K)
    return GazeTrack(info.frame_times, proj.u / intr.width, proj.v / intr.height, proj.valid,
                     info.width, info.height, info.fps, intr.hfov_deg)


def frame_ticks(start: int, fps: float, n_frames: int) -> np.ndarray:
    """``start + floor(i * den * 10^7 / num)`` for every frame, ``num/den`` = the rate as a fraction."""
    rate = Fraction(fps).limit_denominator()
    step_num, den = rate.denominator * TICKS_PER_SECOND, rate.numerator
    return np.array([int(start) + (k * step_num) // den for k in range(n_frames)], dtype=np.int64)


def nearest(ticks: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Index of the nearest tick to each query tick (``ticks`` sorted; a tie goes to the earlier)."""
    ticks = np.asarray(ticks, dtype=np.int64)
    query = np.asarray(query, dtype=np.int64)
    hi = np.clip(np.searchsorted(ticks, query, side="left"), 0, len(ticks) - 1)
    lo = np.clip(hi - 1, 0, len(ticks) - 1)
    return np.where(np.abs(query - ticks[lo]) <= np.abs(ticks[hi] - query), lo, hi)


def project_gaze(ticks: np.ndarray, pose_ticks: np.ndarray, poses: np.ndarray, eye_ticks: np.ndarray,
                 origins: np.ndarray, dirs: np.ndarray, eye_valid: np.ndarray, K: np.ndarray,
                 eye_distance: float = EYE_DISTANCE_M, max_gap_s: float = MAX_GAP_S) -> Projection:
    """Project the gaze sample nearest each frame tick into that frame (pixels; see the module doc)."""
    if len(pose_ticks) == 0 or len(eye_ticks) == 0:
        n = len(ticks)
        return Projection(np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, bool))
    ip = nearest(pose_ticks, ticks)
    ie = nearest(eye_ticks, ticks)
    max_gap = int(round(max_gap_s * TICKS_PER_SECOND))
    covered = (np.abs(pose_ticks[ip] - ticks) <= max_gap) & (np.abs(eye_ticks[ie] - ticks) <= max_gap)
    d = dirs[ie]
    norm = np.linalg.norm(d, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_world = origins[ie] + eye_distance * d / norm[:, None]
        p_h = np.concatenate([p_world, np.ones((len(ticks), 1))], axis=1)
        cam = np.einsum("ij,njk,nk->ni", AXIS_TRANSFORM, np.linalg.inv(poses[ip]), p_h)
        z = cam[:, 2]
        ok = (norm > 0) & np.isfinite(z) & (z > 0)
        pix = np.einsum("ij,nj->ni", np.asarray(K, dtype=np.float64), cam[:, :3])  # (fx X + cx Z, fy Y + cy Z, Z)
        u = np.where(ok, pix[:, 0] / z, np.nan)
        v = np.where(ok, pix[:, 1] / z, np.nan)
    valid = ok & covered & np.asarray(eye_valid, dtype=bool)[ie]
    return Projection(u, v, valid)


# ---------------------------------------------------------------------------------------------- readers

def _rows(path: Path, n_fields: int | None, what: str) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every row up to the first blank line; checks the field count."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError(f"{what} not found", path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError) as exc:
        raise GazeFormatError(f"cannot read {what} ({exc})", path) from None
    rows = []
    for lineno, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            break
        if n_fields is not None and len(fields) != n_fields:
            raise GazeFormatError(f"line {lineno}: expected {n_fields} tab-separated fields, got {len(fields)}",
                                  path)
        rows.append((lineno, fields))
    if not rows:
        raise GazeFormatError(f"empty {what}", path)
    return rows


def _float(s: str, path: Path, lineno: int) -> float:
    return finite_float(s, path, lineno)


def _tick(s: str, path: Path, lineno: int) -> int:
    """An integer tick, exactly (ticks exceed float precision; ``123.0`` is accepted)."""
    try:
        d = Decimal(s)
        if d != d.to_integral_value():
            raise InvalidOperation
        return int(d)
    except (InvalidOperation, ValueError):
        raise GazeFormatError(f"line {lineno}: tick is not an integer: {s!r}", path) from None


def _sorted_ticks(ticks: list[int], lines: list[int], path: Path) -> np.ndarray:
    arr = np.asarray(ticks, dtype=np.int64)
    if len(arr) > 1 and np.any(np.diff(arr) < 0):
        k = int(np.argmax(np.diff(arr) < 0)) + 1
        raise GazeFormatError(f"line {lines[k]}: tick {arr[k]} is before the previous tick {arr[k - 1]}", path)
    return arr


def read_intrinsics(path: Path) -> Intrinsics:
    """``Intrinsics.txt``: fx 0 cx 0 fy cy 0 0 1 W H."""
    path = Path(path)
    lineno, fields = _rows(path, 11, "intrinsics file")[0]
    values = [_float(f, path, lineno) for f in fields]
    K = np.array(values[:9], dtype=np.float64).reshape(3, 3)
    width, height = values[9], values[10]
    if K[0, 0] <= 0 or K[1, 1] <= 0 or width <= 0 or height <= 0 or width % 1 or height % 1:
        raise GazeFormatError(f"line {lineno}: bad intrinsics (fx={K[0, 0]:g}, fy={K[1, 1]:g}, "
                              f"size {width:g}x{height:g})", path)
    return Intrinsics(K, int(width), int(height))


def read_timing(path: Path) -> tuple[int, int]:
    """``VideoMp4Timing.txt``: start and end ticks of the MP4."""
    path = Path(path)
    rows = _rows(path, 1, "video timing file")
    if len(rows) < 2:
        raise GazeFormatError("expected two lines: start ticks, end ticks", path)
    start, end = (_tick(f[0], path, n) for n, f in rows[:2])
    if end <= start:
        raise GazeFormatError(f"line 2: end tick {end} is not after start tick {start}", path)
    return start, end


def read_pose_sync(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """``Pose_sync.txt``: ticks (N,) and camera-to-world poses (N, 4, 4)."""
    path = Path(path)
    rows = _rows(path, 18, "pose file")
    ticks, poses = [], []
    for lineno, f in rows:
        _float(f[0], path, lineno)
        ticks.append(_tick(f[1], path, lineno))
        pose = np.array([_float(s, path, lineno) for s in f[2:]], dtype=np.float64).reshape(4, 4)
        if abs(np.linalg.det(pose)) < 1e-12:
            raise GazeFormatError(f"line {lineno}: singular camera pose", path)
        poses.append(pose)
    return _sorted_ticks(ticks, [n for n, _ in rows], path), np.asarray(poses)


def read_eyes_sync(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``Eyes_sync.txt``: ticks (N,), origins (N, 3), directions (N, 3), valid (N,)."""
    path = Path(path)
    rows = _rows(path, 9, "eye gaze file")
    ticks, origins, dirs, valid = [], [], [], []
    for lineno, f in rows:
        _float(f[0], path, lineno)
        ticks.append(_tick(f[1], path, lineno))
        values = [_float(s, path, lineno) for s in f[2:8]]
        origins.append(values[:3])
        dirs.append(values[3:])
        flag = f[8].strip().lower()
        if flag in ("1", "1.0", "true"):
            valid.append(True)
        elif flag in ("0", "0.0", "false"):
            valid.append(False)
        else:
            raise GazeFormatError(f"line {lineno}: valid must be 0 or 1, got {f[8]!r}", path)
    return (_sorted_ticks(ticks, [n for n, _ in rows], path), np.asarray(origins, dtype=np.float64),
            np.asarray(dirs, dtype=np.float64), np.asarray(valid, dtype=bool))


# ---------------------------------------------------------------------------------------------- actions

def read_fine_actions(path: Path, session: str) -> list[Action]:
    """A session's fine-grained actions from the trainval annotation JSON."""
    path = Path(path)
    st = path.stat()
    return list(_actions_by_video(str(path.resolve()), st.st_mtime_ns, st.st_size).get(session, ()))


@lru_cache(maxsize=2)
def _actions_by_video(path: str, _mtime: int, _size: int) -> dict[str, tuple[Action, ...]]:
    try:
        with open(path, encoding="utf-8") as fh:
            videos = json.load(fh)
    except (ValueError, OSError) as exc:
        raise StreamGazeError(f"bad annotation JSON ({exc})", path) from None
    if not isinstance(videos, list):
        raise StreamGazeError("expected a JSON list of {video_name, events}", path)
    out: dict[str, tuple[Action, ...]] = {}
    for i, video in enumerate(videos):
        try:
            name, events = str(video["video_name"]), video["events"]
            acts = [_fine_action(e) for e in events if e.get("label") == FINE_LABEL]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StreamGazeError(f"video entry {i}: bad event ({exc.__class__.__name__}: {exc})", path) from None
        out[name] = tuple(sort_actions([a for a in acts if a is not None]))
    return out


def _fine_action(event: dict) -> Action | None:
    start, end = float(event["start"]), float(event["end"])
    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
        raise ValueError(f"bad time span {start:g}-{end:g}")
    attrs = event.get("attributes") or {}
    parts = [str(attrs.get(k, "")).replace("_", " ").strip() for k in ("Verb", "Noun")]
    label = " ".join(p for p in parts if p and p.lower() != "none")
    return Action(start, end, label) if label else None
