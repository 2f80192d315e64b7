"""Pupil Cloud's "Timeseries Data + Scene Video" export of a Neon or Pupil Invisible recording.

Native layout (one folder per recording, as Cloud's download unpacks it)::

    <raw>/<recording>/gaze.csv               gaze (defines the recordings)
    <raw>/<recording>/world_timestamps.csv   the scene frames' timestamps
    <raw>/<recording>/<name>.mp4             the scene video (the folder's one .mp4)
    <raw>/<recording>/{events,fixations,blinks}.csv, info.json, scene_camera.json   (optional)
    <raw>/<recording>/actions.csv            optional: the action timeline (start, end, label)

Columns, as Pupil Labs' documentation of the export defines them ("Timeseries Data", docs.pupil-labs.com;
others are ignored):

* ``gaze.csv``: ``timestamp [ns]`` (UTC ns, the device clock), ``gaze x [px]``, ``gaze y [px]`` (scene
  camera pixels, origin top-left), ``worn`` (1 worn / 0 not worn; written ``1`` or ``1.0``), ``blink id``
  (the blink the sample belongs to, empty if none);
* ``world_timestamps.csv``: ``timestamp [ns]`` of every scene video frame;
* ``fixations.csv``: ``start timestamp [ns]``, ``end timestamp [ns]``, ``fixation x [px]``, ``fixation y [px]``;
* ``blinks.csv``: ``start timestamp [ns]``, ``end timestamp [ns]``;
* ``events.csv``: ``timestamp [ns]``, ``name``.

Track (gaze/sources/wearable.py): time = (timestamp - first scene frame) on the scene clock; x, y = pixels
/ the scene camera's pixel grid: Neon's 1600 x 1200, or Invisible's 1088 x 1080 when ``info.json`` names a
Pupil Invisible scene camera (``scene_camera_serial_number``); the video's own size (perhaps a downscaled
copy) is the track's frame size; valid = both coordinates given, ``worn`` not 0 and no
``blink id`` (an older export without that column: not inside a ``blinks.csv`` interval). Off-frame points keep their position. Device
fixations: ``fixations.csv``; device blinks: ``blinks.csv`` (``Recording.device_blinks``). Actions: ``actions.csv``, else ``events.csv``.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ..track import GazeTrack
from .base import Recording, csv_rows, discover_recordings, finite_int, optional_float, recording_folders
from .wearable import (
    SceneClock,
    device_blinks,
    device_fixations,
    in_intervals,
    recording_actions,
    scene_track,
    video_geometry,
)

SOURCE = "pupil_cloud"
LAYOUT = ("<raw>/<recording>/ (Pupil Cloud Timeseries Data + Scene Video: gaze.csv, world_timestamps.csv, "
          "the scene .mp4; optional events.csv, fixations.csv, blinks.csv, info.json, actions.csv)")
GAZE, WORLD, FIXATIONS, BLINKS, EVENTS = ("gaze.csv", "world_timestamps.csv", "fixations.csv", "blinks.csv",
                                          "events.csv")
TS = "timestamp [ns]"
NEON_SIZE, INVISIBLE_SIZE = (1600, 1200), (1088, 1080)


def is_recording(d: Path) -> bool:
    """Whether folder ``d`` is one export of this layout: a ``gaze.csv`` with its ``world_timestamps.csv``, or
    one with Cloud's own gaze columns (an export without its world timestamps is still recognisably Cloud's:
    the reader then names what is missing)."""
    gaze = d / GAZE
    if not gaze.is_file():
        return False
    if (d / WORLD).is_file():
        return True
    try:
        return all(_has_column(gaze, c) for c in (TS, "gaze x [px]", "gaze y [px]"))
    except (OSError, UnicodeDecodeError, csv.Error):
        return False


def discover(raw: Path) -> list[str]:
    """Sub-folders holding a ``gaze.csv``; each must have its world timestamps and scene video."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, lambda d: (d / GAZE).is_file()), "Pupil Cloud exports",
                               LAYOUT, lambda vid: _require_scene(raw / vid))


def _require_scene(export: Path) -> None:
    """The export has its scene video and the scene frames' timestamps (else a StreamGazeError naming it)."""
    scene_video(export)
    if not (export / WORLD).is_file():
        raise StreamGazeError(f"{WORLD} missing (the scene frames' timestamps)", export)


def scene_video(directory: Path) -> Path:
    """The export's scene video: the folder's one ``.mp4``."""
    found = sorted(Path(directory).glob("*.mp4"))
    if len(found) != 1:
        raise StreamGazeError(f"expected one scene video (.mp4) in the export folder, found {len(found)}", directory)
    return found[0]




def read_timestamps(path: Path) -> np.ndarray:
    """The ``timestamp [ns]`` column of a Cloud CSV (int64)."""
    return np.asarray([finite_int(row[c[TS]], path, n, TS) for n, row, c in csv_rows(path, (TS,))], dtype=np.int64)


def read_intervals(path: Path) -> tuple[np.ndarray, np.ndarray, list[list[str]], dict[str, int]]:
    """``start``/``end timestamp [ns]`` of a blinks or fixations CSV, with its rows and columns."""
    cols = ("start timestamp [ns]", "end timestamp [ns]")
    starts, ends, rows, col = [], [], [], {}
    for n, row, col in csv_rows(path, cols):
        starts.append(finite_int(row[col[cols[0]]], path, n, cols[0]))
        ends.append(finite_int(row[col[cols[1]]], path, n, cols[1]))
        rows.append(row)
    return np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64), rows, col


def gaze_samples(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(timestamp ns, x px, y px, valid by worn and blink id) of every row of a Cloud ``gaze.csv``."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    ts, xs, ys, ok = [], [], [], []
    for n, row, c in csv_rows(path, (TS, "gaze x [px]", "gaze y [px]")):
        ts.append(finite_int(row[c[TS]], path, n, TS))
        x = optional_float(row[c["gaze x [px]"]], path, n, "gaze x [px]")
        y = optional_float(row[c["gaze y [px]"]], path, n, "gaze y [px]")
        worn = optional_float(row[c["worn"]], path, n, "worn") if "worn" in c else 1.0
        blink = row[c["blink id"]].strip() if "blink id" in c else ""
        xs.append(x)
        ys.append(y)
        ok.append(math.isfinite(x) and math.isfinite(y) and worn != 0 and not blink)
    return (np.asarray(ts, dtype=np.int64), np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64),
            np.asarray(ok, dtype=bool))


def _has_column(path: Path, name: str) -> bool:
    with Path(path).open(newline="", encoding="utf-8-sig") as fh:
        return name in [h.strip() for h in next(csv.reader(fh), [])]


def pixel_grid(directory: Path) -> tuple[int, int]:
    """The scene camera's pixel grid of the export's gaze pixels (Neon, or Invisible by ``info.json``)."""
    try:
        info = json.loads((directory / "info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return NEON_SIZE
    return INVISIBLE_SIZE if isinstance(info, dict) and "scene_camera_serial_number" in info else NEON_SIZE


def _load(gaze_csv: Path, video: Path | None, with_blinks: bool = False):
    """(scene clock, gaze track, the ``blinks.csv`` intervals) of an export's ``gaze.csv``. A gaze sample in a blink
    is invalid: by the ``blink id`` column, else by ``blinks.csv``, which is read once, where there is one and the
    track needs it or ``with_blinks`` asks for it (else the intervals are None)."""
    directory = gaze_csv.parent
    world = directory / WORLD
    if not world.is_file():
        raise StreamGazeError(f"{WORLD} not found beside the gaze file (the scene frames' timestamps; export "
                              "'Timeseries Data' with the scene video)", world)
    clock = SceneClock.of([read_timestamps(world)], 1e-9, world)
    grid = pixel_grid(directory)
    width, height, fps = video_geometry(video, grid, clock, gaze_csv)
    ts, x, y, valid = gaze_samples(gaze_csv)
    blinks = None
    if (directory / BLINKS).is_file():
        by_column = _has_column(gaze_csv, "blink id")
        if with_blinks or not by_column:
            blinks = read_intervals(directory / BLINKS)[:2]
        if not by_column:
            valid &= ~in_intervals(ts, *blinks)
    return clock, scene_track(clock, ts, x / grid[0], y / grid[1], valid, width, height, fps, gaze_csv), blinks


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of an export's ``gaze.csv`` (or its folder); the video (given, or the folder's .mp4) sets the
    frame size, else the device's nominal one."""
    path = Path(path)
    gaze_csv = path / GAZE if path.is_dir() else path
    if video is None and len(list(gaze_csv.parent.glob("*.mp4"))) == 1:
        video = scene_video(gaze_csv.parent)
    return _load(gaze_csv, video)[1]


def read_events(path: Path) -> list[tuple[int, str]]:
    """(timestamp ns, name) of every row of ``events.csv``."""
    return [(finite_int(row[c[TS]], path, n, TS), row[c["name"]].strip()) for n, row, c in csv_rows(path, (TS, "name"))]


def load_recording(raw: Path, video_id: str) -> Recording:
    """Scene video, gaze track, actions and the device's fixations of one export folder."""
    directory = Path(raw) / video_id
    video = scene_video(directory)
    clock, track, blinks = _load(directory / GAZE, video, with_blinks=True)
    fixations = None
    if (directory / FIXATIONS).is_file():
        starts, ends, rows, col = read_intervals(directory / FIXATIONS)
        fx = [optional_float(r[col["fixation x [px]"]], directory / FIXATIONS, 0, "fixation x [px]") for r in rows] \
            if "fixation x [px]" in col else [math.nan] * len(rows)
        fy = [optional_float(r[col["fixation y [px]"]], directory / FIXATIONS, 0, "fixation y [px]") for r in rows] \
            if "fixation y [px]" in col else [math.nan] * len(rows)
        fixations = device_fixations(clock, starts, ends, np.asarray(fx), np.asarray(fy), *pixel_grid(directory),
                                     track)
    blinks = None if blinks is None else device_blinks(clock, *blinks)
    events = read_events(directory / EVENTS) if (directory / EVENTS).is_file() else []
    t, kept = clock.to_video(np.asarray([e[0] for e in events], dtype=np.int64))
    actions = recording_actions(directory, [(float(tk), e[1]) for tk, k, e in zip(t, kept, events) if k],
                                clock.duration)
    return Recording(video_id, SOURCE, video, track, actions, directory, device_fixations=fixations,
                     device_blinks=blinks)
