"""Ego4D gaze: the per-video Pupil Labs CSV (normalised, origin bottom-left).

Native layout::

    <raw>/videos/<uid>.mp4          the full-scale gaze video (1088x1080, 30 fps)
    <raw>/gaze/<uid>.csv            gaze, one file per video (defines the recordings; early v1 downloads
                                    named it <uid>.mp4.csv, which is accepted)
    <raw>/narration.json            optional: Ego4D's narrations (the ``--datasets annotations`` file)

Narrations (``narration.json``: ``{uid: {"narration_pass_1": {"narrations": [{timestamp_sec,
timestamp_frame, narration_text, ...}]}, "narration_pass_2": ...}}``): the first pass that has
narrations for the video becomes its action timeline, one point action (start = end =
``timestamp_sec``) per narration, label ``narration_text`` without its leading ``#C``/``#O`` tag
("#C C picks a knife" -> "C picks a knife"). Without the file (or the video in it) there are no actions.

Columns used (others ignored): ``canonical_timestamp_s`` (seconds on the video clock), ``norm_pos_x``,
``norm_pos_y`` (Pupil Labs world-camera coordinates, [0, 1] with the origin at the *bottom*-left),
``confidence``. We flip y: ``y = 1 - norm_pos_y`` (the reference pipeline did not, §3.2). Samples
are kept at their native rate (about 200 Hz), nothing is resampled, off-frame points keep their
coordinates.

Validity: finite coordinates and ``confidence >= MIN_CONFIDENCE`` (0.6, Pupil Labs' own default
minimum data confidence); an empty coordinate or confidence makes the sample invalid.

Timestamps: a sample whose timestamp equals the previous one is dropped (the first is kept); a
timestamp that goes backwards, an empty or unparsable timestamp, a missing column or a row of the
wrong length raise :class:`GazeFormatError` naming the file and line.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..track import GazeTrack
from .base import Action, Recording, csv_rows, discover_recordings, find_video, sort_actions

SOURCE = "ego4d"
LAYOUT = "<raw>/videos/<uid>.mp4, <raw>/gaze/<uid>.csv (Pupil Labs CSV: canonical_timestamp_s, norm_pos_x/y, confidence)"
COLUMNS = ("canonical_timestamp_s", "norm_pos_x", "norm_pos_y", "confidence")
MIN_CONFIDENCE = 0.6
DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_FPS = 1088, 1080, 30.0


def _uid(path: Path) -> str:
    name = path.name[: -len(".csv")]
    return name[: -len(".mp4")] if name.endswith(".mp4") else name


def discover(raw: Path) -> list[str]:
    """Videos with a gaze CSV; each must have its video."""
    gaze_dir = Path(raw) / "gaze"
    ids = {_uid(p) for p in gaze_dir.glob("*.csv")} if gaze_dir.is_dir() else ()
    return discover_recordings(raw, ids, "Ego4D gaze recordings", LAYOUT, lambda uid: find_video(Path(raw), uid))


def gaze_file(raw: Path, uid: str) -> Path:
    """``gaze/<uid>.csv`` (or the early ``<uid>.mp4.csv``)."""
    for name in (f"{uid}.csv", f"{uid}.mp4.csv"):
        if (Path(raw) / "gaze" / name).is_file():
            return Path(raw) / "gaze" / name
    raise GazeFormatError("gaze file not found", Path(raw) / "gaze" / f"{uid}.csv")


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, native-rate gaze track and narrations (when ``narration.json`` is there) of one video."""
    raw = Path(raw)
    video = find_video(raw, video_id)
    actions = read_narrations(raw / NARRATION_FILE, video_id)
    return Recording(video_id, SOURCE, video, read_track(gaze_file(raw, video_id), video), actions, None)


NARRATION_FILE = "narration.json"
_TAG = re.compile(r"^\s*#[A-Za-z]+\s*")


@lru_cache(maxsize=2)
def _narration_index(path: str, mtime_ns: int) -> dict[str, list[Action]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        index: dict[str, list[Action]] = {}
        for uid, video in data.items():
            for key in ("narration_pass_1", "narration_pass_2"):
                items = (video.get(key) or {}).get("narrations") or []
                if items:
                    acts = []
                    for n in items:
                        t = float(n["timestamp_sec"])
                        if not math.isfinite(t):
                            raise ValueError(f"video {uid}: timestamp_sec is not a finite number")
                        label = _TAG.sub("", str(n.get("narration_text") or "")).strip()
                        if label:
                            acts.append(Action(t, t, label))
                    index[str(uid)] = sort_actions(acts)
                    break
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StreamGazeError(f"not an Ego4D narration file ({exc.__class__.__name__}: {exc})", path) from None
    return index


def read_narrations(path: Path, uid: str) -> list[Action]:
    """The narrations of one video as point actions (see the module docstring); no file -> none."""
    path = Path(path)
    if not path.is_file():
        return []
    return list(_narration_index(str(path), path.stat().st_mtime_ns).get(uid, []))


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of one gaze CSV; the video (given, or found in the native layout) sets size and fps,
    else Ego4D's 1088x1080 at 30 fps."""
    path = Path(path)
    if video is None:
        candidate = path.parent.parent / "videos" / f"{_uid(path)}.mp4"
        video = candidate if candidate.is_file() else None
    if video is not None:
        info = probe_video(video)
        width, height, fps = info.width, info.height, info.fps
    else:
        width, height, fps = DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_FPS
    t, x, y, valid = read_gaze_csv(path)
    return GazeTrack(t, x, y, valid, width, height, fps)


def read_gaze_csv(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """t, x, y (top-left), valid of an Ego4D gaze CSV."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    t: list[float] = []
    x: list[float] = []
    y: list[float] = []
    conf: list[float] = []
    for lineno, row, cols in csv_rows(path, COLUMNS):
        col = [cols[c] for c in COLUMNS]
        try:
            ti, xi, yi, ci = (float(row[i]) if name == COLUMNS[0] else _opt(row[i].strip())
                              for name, i in zip(COLUMNS, col))
        except ValueError:
            bad = next(n for n, i in zip(COLUMNS, col) if not _parses(row[i].strip(), n == COLUMNS[0]))
            raise GazeFormatError(f"line {lineno}: {bad} is not a number: {row[col[COLUMNS.index(bad)]]!r}",
                                  path) from None
        if not math.isfinite(ti):
            raise GazeFormatError(f"line {lineno}: timestamp is not a finite number", path)
        if t and ti <= t[-1]:
            if ti == t[-1]:
                continue  # a repeated timestamp: keep the first sample
            raise GazeFormatError(f"line {lineno}: timestamp {ti:.6f} goes back from {t[-1]:.6f}", path)
        t.append(ti)
        x.append(xi)
        y.append(1.0 - yi)
        conf.append(ci)
    c = np.asarray(conf, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(c) & (c >= MIN_CONFIDENCE)
    return np.asarray(t, dtype=np.float64), np.asarray(x), np.asarray(y), valid


def _opt(s: str) -> float:
    """A number, or NaN for an empty field."""
    return math.nan if s in ("", "nan", "NaN") else float(s)


def _parses(s: str, required: bool) -> bool:
    try:
        float(s) if required else _opt(s)
    except ValueError:
        return False
    return True
