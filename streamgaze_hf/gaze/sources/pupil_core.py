"""Pupil Core: a Pupil Capture recording folder with a Pupil Player export (the "Raw Data Exporter" and
"World Video Exporter" plugins).

Native layout::

    <raw>/<recording>/exports/<NNN>/gaze_positions.csv     gaze (defines the recordings; the latest export,
                                                            highest NNN, that has one)
    <raw>/<recording>/exports/<NNN>/world.mp4              the exported scene video
    <raw>/<recording>/exports/<NNN>/world_timestamps.npy   its frames' timestamps (float64 s, Pupil time)
    <raw>/<recording>/actions.csv                          optional: the action timeline (start, end, label)

    <raw>/<recording>/world.intrinsics                     the world camera's calibration (msgpack, Pupil Capture):
                                                            its ``resolution`` is the frame size without the video

(When the export has no ``world.mp4`` / ``world_timestamps.npy``, the recording's own ``world.mp4`` and
``world_timestamps.npy`` are used.)

Columns of ``gaze_positions.csv`` (Pupil Player documentation, "Raw Data Exporter"; others ignored):
``gaze_timestamp`` (Pupil time, seconds), ``norm_pos_x``, ``norm_pos_y`` (the world image in normalised
coordinates, **origin bottom-left**) and ``confidence`` (0 to 1).

Track (gaze/sources/wearable.py): time = gaze_timestamp - the first exported frame's timestamp; x =
norm_pos_x, y = 1 - norm_pos_y (no clamping: off-frame points keep their position); valid = finite
coordinates and ``confidence >= 0.6``, Pupil Player's own default minimum data confidence (below it the
vendor's software treats the sample as not tracked; the ``ego4d`` reader, also Pupil Labs data, uses the
same threshold). No blinks or events in this export: actions come from ``actions.csv`` only.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ..track import GazeTrack
from .base import Recording, csv_rows, discover_recordings, finite_float, optional_float, recording_folders
from .wearable import SceneClock, recording_actions, scene_track, video_geometry

SOURCE = "pupil_core"
LAYOUT = ("<raw>/<recording>/exports/<NNN>/{gaze_positions.csv, world.mp4, world_timestamps.npy} "
          "(Pupil Player export); optional <raw>/<recording>/actions.csv")
GAZE = "gaze_positions.csv"
COLUMNS = ("gaze_timestamp", "norm_pos_x", "norm_pos_y", "confidence")
MIN_CONFIDENCE = 0.6
DEFAULT_SIZE = (1280, 720)  # Pupil Core's default world camera resolution (used when world.intrinsics has none)
INTRINSICS = "world.intrinsics"


def export_dir(recording: Path) -> Path | None:
    """The latest export (highest number) holding a ``gaze_positions.csv``."""
    exports = Path(recording) / "exports"
    found = sorted((d for d in exports.iterdir() if d.is_dir() and (d / GAZE).is_file()),
                   key=lambda d: (len(d.name), d.name)) if exports.is_dir() else []
    return found[-1] if found else None


def is_recording(d: Path) -> bool:
    """Whether folder ``d`` is one recording of this layout (an export holding ``gaze_positions.csv``)."""
    return export_dir(d) is not None


def discover(raw: Path) -> list[str]:
    """Recording folders with an export holding ``gaze_positions.csv``; each must have its world video."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, is_recording), "Pupil Player exports", LAYOUT,
                               lambda vid: scene_files(export_dir(raw / vid), required=True))


def scene_files(export: Path, required: bool = False) -> tuple[Path | None, Path]:
    """(world video or None, its timestamps): the export's, else the recording's."""
    for d in (export, export.parent.parent):
        if (d / "world_timestamps.npy").is_file():
            video = d / "world.mp4"
            if required and not video.is_file():
                raise StreamGazeError("world.mp4 not found beside world_timestamps.npy (export the world video "
                                      "with Pupil Player)", d)
            return (video if video.is_file() else None), d / "world_timestamps.npy"
    raise StreamGazeError("world_timestamps.npy not found in the export or the recording", export)


def read_world_timestamps(path: Path) -> np.ndarray:
    try:
        ts = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise GazeFormatError(f"not a NumPy timestamp array ({exc})", path) from None
    if ts.ndim != 1 or not np.issubdtype(ts.dtype, np.floating) or not np.all(np.isfinite(ts)):
        raise GazeFormatError(f"expected a 1-D array of finite float timestamps, got {ts.dtype} {ts.shape}", path)
    return ts.astype(np.float64)


def gaze_samples(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(timestamp s, x, y top-left, valid) of every row of ``gaze_positions.csv``."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    ts, xs, ys, ok = [], [], [], []
    for n, row, c in csv_rows(path, COLUMNS):
        ts.append(finite_float(row[c["gaze_timestamp"]], path, n, "gaze_timestamp"))
        x, y, conf = (optional_float(row[c[k]], path, n, k) for k in COLUMNS[1:])
        xs.append(x)
        ys.append(1.0 - y)
        ok.append(math.isfinite(x) and math.isfinite(y) and conf >= MIN_CONFIDENCE)
    return (np.asarray(ts, dtype=np.float64), np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64),
            np.asarray(ok, dtype=bool))



def intrinsics_size(recording: Path) -> tuple[int, int] | None:
    """(width, height) of the world camera as Pupil Capture recorded it in ``world.intrinsics`` (a msgpack map
    ``{"version": 1, "(W, H)": {"resolution": [W, H], ...}}``: Pupil's ``file_methods.save_object``); None without
    the file, or when it names no single resolution."""
    path = Path(recording) / INTRINSICS
    if not path.is_file():
        return None
    import msgpack

    try:
        data = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException) as exc:
        raise GazeFormatError(f"not a Pupil Capture intrinsics file ({exc})", path) from None
    sizes = {tuple(v["resolution"]) for v in (data.values() if isinstance(data, dict) else ())
             if isinstance(v, dict) and isinstance(v.get("resolution"), (list, tuple)) and len(v["resolution"]) == 2}
    if len(sizes) != 1:
        return None
    width, height = next(iter(sizes))
    return (int(width), int(height)) if int(width) > 0 and int(height) > 0 else None


def _gaze_file(path: Path) -> Path:
    path = Path(path)
    if path.is_dir():
        export = export_dir(path) if not (path / GAZE).is_file() else path
        if export is None:
            raise StreamGazeError(f"no Pupil Player export with {GAZE} (expected {LAYOUT})", path)
        return export / GAZE
    return path


def _load(gaze_csv: Path, video: Path | None):
    own_video, stamps = scene_files(gaze_csv.parent)
    clock = SceneClock.of([read_world_timestamps(stamps)], 1.0, stamps)
    video = video if video is not None else own_video
    size = intrinsics_size(gaze_csv.parent.parent.parent) if video is None else None
    width, height, fps = (*size, clock.fps) if size else video_geometry(video, DEFAULT_SIZE, clock, gaze_csv)
    ts, x, y, valid = gaze_samples(gaze_csv)
    return clock, video, scene_track(clock, ts, x, y, valid, width, height, fps, gaze_csv)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of a ``gaze_positions.csv`` (or its recording / export folder); the video (given, or the
    export's world.mp4) sets the frame size, else the recording's ``world.intrinsics``, else 1280 x 720; without a
    video the rate is the world timestamps'."""
    return _load(_gaze_file(path), video)[2]


def load_recording(raw: Path, video_id: str) -> Recording:
    """World video, gaze track and actions (``actions.csv``) of one recording's latest export."""
    directory = Path(raw) / video_id
    gaze_csv = _gaze_file(directory)
    scene_files(gaze_csv.parent, required=True)
    clock, video, track = _load(gaze_csv, None)
    return Recording(video_id, SOURCE, video, track, recording_actions(directory, [], clock.duration), directory)
