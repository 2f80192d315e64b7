"""Ego-Exo4D: the 2-D gaze projected on the egocentric view (``general_eye_gaze_2d.csv``) and the
keystep annotations. (Raw Aria MPS ``general_eye_gaze.csv``, yaw/pitch in the central pupil frame, is
a different file that needs the device calibration; this reader does not read it.)

Native layout (the Ego-Exo4D download, ``egoexo -o <raw> --parts takes annotations``)::

    <raw>/takes/<take_name>/eye_gaze/general_eye_gaze_2d.csv        gaze (defines the recordings)
    <raw>/takes/<take_name>/frame_aligned_videos/<aria>_214-1.mp4   the Aria RGB video (or, when only the
        downscaled takes were downloaded, frame_aligned_videos/downscaled/448/<aria>_214-1.mp4)
    <raw>/annotations/keystep_*.json                                optional keysteps (train/val)

The recording id is the take name.

Gaze file (Ego-Exo4D docs, "Tutorial 1: Gaze in Ego-Exo4D": "2D eye gaze coordinates projected on
egocentric view", stored "at a lower fps": 10 Hz against the video's 30 fps). A CSV with a header;
the columns we rely on are ``x`` and ``y`` (required) and ``frame_num`` (optional); others, such as
``tracking_timestamp_us`` (device clock, microseconds), are checked but not used for timing.

* ``x``, ``y``: pixels of the **1408x1408 Aria RGB frame** as the frame-aligned video stores it (already
  turned upright: the tutorial draws them on the video frames without the 90-degree rotation that raw
  MPS projections need), origin top-left, x right, y down. We divide both by 1408 whatever video we
  pair the file with: the downscaled 448 px takes keep full-resolution gaze coordinates. Points off
  the frame keep their coordinates (``GazeTrack.in_frame`` is False for them). An empty ``x`` or ``y``
  (or ``nan``) is an invalid sample; there is no confidence column.
* time: sample ``k`` (``frame_num`` when the column is there, else its row order from 0) is at
  ``k / 10`` s on the take's clock, i.e. on video frame ``3k`` of the 30 fps video. (The tutorial and
  EgoGazeVQA's converter repeat every sample three times to fill the 30 fps frames.)

Validation, row by row: a missing ``x``/``y`` column, a row with the wrong number of fields, a
coordinate that is not a number, a ``frame_num`` that is not a non-negative integer or does not
increase, or a ``tracking_timestamp_us`` that is not an integer or does not increase raise
:class:`GazeFormatError` naming the file and line. A file without samples is an error too.

Keysteps (Ego-Exo4D docs, "Keystep"): ``{"annotations": {take_uid: {"take_name", "scenario",
"segments": [{start_time, end_time, step_description, step_name, ...}]}}}``; the segments of the
take (matched by ``take_name``) become its actions (label: ``step_description``, else ``step_name``)
and ``scenario`` its :attr:`Recording.scenario`. Several keystep files (train, val) are read in name
order; a take found in two of them keeps the first. No keystep file gives no actions.
"""

from __future__ import annotations

import csv
import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..track import GazeTrack
from .base import (
    Action,
    Recording,
    csv_header,
    discover_recordings,
    finite_float,
    finite_int,
    recording_folders,
    sort_actions,
)

SOURCE = "egoexo4d_2d"  # the registry key; the dataset is Ego-Exo4D (EgoGazeVQA source "egoexo4d")
GAZE_FILE = "general_eye_gaze_2d.csv"
LAYOUT = (f"<raw>/takes/<take>/eye_gaze/{GAZE_FILE} (x, y in 1408x1408 Aria RGB pixels, 10 Hz), "
          "<raw>/takes/<take>/frame_aligned_videos/[downscaled/448/]<aria>_214-1.mp4, optional "
          "<raw>/annotations/keystep_*.json")
GAZE_RATE = 10.0  # samples per second of the 2-D gaze file
ARIA_RGB_SIZE = 1408  # the pixel grid of x, y (square Aria RGB frame)
VIDEO_SUFFIX = "_214-1.mp4"  # the Aria RGB stream
REQUIRED = ("x", "y")


def _take_dir(raw: Path, take: str) -> Path:
    return Path(raw) / "takes" / take


def discover(raw: Path) -> list[str]:
    """Takes with a 2-D gaze file; each must have its Aria RGB video."""
    ids = recording_folders(Path(raw) / "takes", lambda d: (d / "eye_gaze" / GAZE_FILE).is_file())
    return discover_recordings(raw, ids, "Ego-Exo4D takes with 2-D gaze", LAYOUT, lambda take: find_take_video(raw, take))


def find_take_video(raw: Path, take: str) -> Path:
    """The take's Aria RGB video: ``frame_aligned_videos/<aria>_214-1.mp4`` (the first by name), else
    the downscaled ``frame_aligned_videos/downscaled/448/<aria>_214-1.mp4``."""
    base = _take_dir(raw, take) / "frame_aligned_videos"
    for folder in (base, base / "downscaled" / "448"):
        found = sorted(p for p in folder.glob(f"*{VIDEO_SUFFIX}") if p.is_file()) if folder.is_dir() else []
        if found:
            return found[0]
    raise StreamGazeError(f"Aria RGB video of take {take!r} not found (expected frame_aligned_videos/"
                          f"<aria>{VIDEO_SUFFIX} or frame_aligned_videos/downscaled/448/<aria>{VIDEO_SUFFIX})",
                          _take_dir(raw, take))


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, 10 Hz gaze track, keystep actions and scenario of one take."""
    raw = Path(raw)
    video = find_take_video(raw, video_id)
    track = read_track(_take_dir(raw, video_id) / "eye_gaze" / GAZE_FILE, video)
    actions, scenario = read_keysteps(raw / "annotations", video_id)
    return Recording(video_id, SOURCE, video, track, actions, None, scenario)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of one 2-D gaze file; the video (given, or found in the native layout) sets size and
    rate, else the Aria RGB geometry (1408x1408 at 30 fps)."""
    path = Path(path)
    if video is None:
        take = path.parent.parent
        try:
            video = find_take_video(take.parent.parent, take.name)
        except StreamGazeError:
            video = None
    if video is not None:
        info = probe_video(video)
        width, height, fps = info.width, info.height, info.fps
    else:
        width, height, fps = ARIA_RGB_SIZE, ARIA_RGB_SIZE, 30.0
    t, x, y, valid = read_gaze_2d_csv(path)
    return GazeTrack(t, x, y, valid, width, height, fps)


def read_gaze_2d_csv(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """t (seconds), x, y (normalised, top-left), valid of a ``general_eye_gaze_2d.csv``."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    k_list: list[int] = []
    xs: list[float] = []
    ys: list[float] = []
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = csv_header(reader, REQUIRED, path)
            ix, iy = header.index("x"), header.index("y")
            ifr = header.index("frame_num") if "frame_num" in header else None
            its = header.index("tracking_timestamp_us") if "tracking_timestamp_us" in header else None
            last_ts: int | None = None
            for lineno, row in enumerate(reader, start=2):
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise GazeFormatError(f"line {lineno}: expected {len(header)} fields, got {len(row)}", path)
                x, y = (_coordinate(row[i].strip(), name, lineno, path) for i, name in ((ix, "x"), (iy, "y")))
                k = finite_int(row[ifr], path, lineno, "frame_num") if ifr is not None else len(k_list)
                if k < 0:
                    raise GazeFormatError(f"line {lineno}: frame_num {k} is negative", path)
                if k_list and k <= k_list[-1]:
                    raise GazeFormatError(f"line {lineno}: frame_num {k} does not increase (previous {k_list[-1]})",
                                          path)
                if its is not None:
                    ts = finite_int(row[its], path, lineno, "tracking_timestamp_us")
                    if last_ts is not None and ts <= last_ts:
                        raise GazeFormatError(f"line {lineno}: tracking_timestamp_us {ts} does not increase "
                                              f"(previous {last_ts})", path)
                    last_ts = ts
                k_list.append(k)
                xs.append(x)
                ys.append(y)
    except UnicodeDecodeError:
        raise GazeFormatError("not a UTF-8 CSV file", path) from None
    if not k_list:
        raise GazeFormatError("no gaze samples", path)
    x_arr = np.asarray(xs, dtype=np.float64) / ARIA_RGB_SIZE
    y_arr = np.asarray(ys, dtype=np.float64) / ARIA_RGB_SIZE
    valid = np.isfinite(x_arr) & np.isfinite(y_arr)
    return np.asarray(k_list, dtype=np.float64) / GAZE_RATE, x_arr, y_arr, valid


def _coordinate(text: str, name: str, lineno: int, path: Path) -> float:
    if text == "" or text.lower() == "nan":
        return math.nan
    return finite_float(text, path, lineno, name)



@lru_cache(maxsize=4)
def _keystep_index(folder: str, stamp: tuple) -> dict[str, tuple[list[Action], str]]:
    index: dict[str, tuple[list[Action], str]] = {}
    for name, _ in stamp:
        path = Path(folder) / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = data["annotations"]
            items = entries.values() if isinstance(entries, dict) else entries
            for entry in items:
                take = str(entry["take_name"])
                if take in index:
                    continue
                actions = []
                for seg in entry.get("segments") or []:
                    start, end = float(seg["start_time"]), float(seg["end_time"])
                    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
                        raise ValueError(f"take {take}: bad segment time span {start}-{end}")
                    label = str(seg.get("step_description") or seg.get("step_name") or "").strip()
                    if label:
                        actions.append(Action(start, end, label))
                index[take] = (sort_actions(actions), str(entry.get("scenario") or ""))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError,
                AttributeError) as exc:
            raise StreamGazeError(f"not an Ego-Exo4D keystep file ({exc.__class__.__name__}: {exc})", path) from None
    return index


def read_keysteps(folder: Path, take: str) -> tuple[list[Action], str]:
    """The keystep actions and scenario of one take from ``folder/keystep_*.json`` (none: ``([], "")``)."""
    folder = Path(folder)
    files = sorted(p for p in folder.glob("keystep_*.json") if p.is_file()) if folder.is_dir() else []
    if not files:
        return [], ""
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in files)
    actions, scenario = _keystep_index(str(folder), stamp).get(take, ([], ""))
    return list(actions), scenario
