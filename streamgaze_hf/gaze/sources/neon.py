"""Pupil Labs Neon: native recording folders (the Companion app's output, or Pupil Cloud's "Native
Recording Data" download), read with the vendor's loader ``pupil-labs-neon-recording``.

Native layout::

    <raw>/<recording>/info.json                          (defines the recordings; the id is the folder name)
    <raw>/<recording>/Neon Scene Camera v1 ps<k>.mp4     the scene video, one file per part
    <raw>/<recording>/Neon Scene Camera v1 ps<k>.time    its frame timestamps (int64 ns, device clock)
    <raw>/<recording>/gaze ps<k>.raw/.time, gaze_200hz.raw/.time, worn ..., blinks ..., fixations ...,
                      event.txt/.time                    the streams, read by the vendor's loader
    <raw>/<recording>/actions.csv                        optional: the action timeline (start, end, label)

What the vendor's loader (``pupil_labs.neon_recording``, pinned in the lock) gives and we use unchanged:
``gaze`` (the 200 Hz file when present, else the real-time parts; ``point`` in scene-camera pixels,
``time`` in ns), ``worn`` (raw bytes: 255 worn, 0 not worn), ``blinks`` and ``fixations`` (absent in data
format 2.3: none) and ``events``. Its ``scene`` stream needs the video; the scene frame timestamps are the
``Neon Scene Camera v1 ps<k>.time`` files, found with the loader's own multi-part file search.

Track (gaze/sources/wearable.py): time on the scene clock (the parts joined with no gap or overlap,
samples outside the scene parts dropped); x, y = pixels / the scene camera's 1600 x 1200 (the video's own
size, which may be a downscaled copy, is the track's frame size; 1600 x 1200 without a video); valid = finite point, worn byte not 0, and not inside a blink. Off-frame points keep
their position. Device fixations: the ``fixations`` stream (mean gaze point); device blinks: the ``blinks``
stream (``Recording.device_blinks``, on the scene clock). Actions: ``actions.csv``,
else the events (``recording.begin``/``.end`` are not actions).

A recording of several parts has one scene video per part; :func:`scene_video` joins them (packets copied,
no re-encoding) into ``$STREAMGAZE_SCENE_CACHE`` (default ``~/.cache/streamgaze/scene``), named after the
parts' names, sizes and times, so a build reads one video on the same clock as the track.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ..track import GazeTrack
from .base import Recording, discover_recordings, recording_folders
from .wearable import (
    SceneClock,
    device_blinks,
    device_fixations,
    in_intervals,
    joined_scene_video,
    recording_actions,
    scene_track,
    video_geometry,
)

SOURCE = "neon"
LAYOUT = ("<raw>/<recording>/ (a native Neon recording folder: info.json, gaze/worn/blinks streams, "
          "'Neon Scene Camera v1 ps<k>.mp4' + .time; optional actions.csv)")
SCENE = "Neon Scene Camera v1"
SCENE_SIZE = (1600, 1200)  # Neon's scene camera


def is_recording(d: Path) -> bool:
    """Whether folder ``d`` is one recording of this layout."""
    return (d / "info.json").is_file() and (any(d.glob("gaze ps*.time")) or (d / "gaze_200hz.time").is_file())


def discover(raw: Path) -> list[str]:
    """Sub-folders that are native Neon recordings; each must have its scene video."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, is_recording), "Neon recordings", LAYOUT,
                               lambda vid: _video_parts(raw / vid, required=True))


def vendor():
    """``pupil_labs.neon_recording``, imported without its side effect on PyAV: importing it imports
    ``pupil_labs.video.writer``, which turns PyAV's FFmpeg logging up to VERBOSE for the whole process (a
    Python log callback for every decoder message: slow, and it can deadlock a threaded H.264 decode waiting
    for the GIL). PyAV's log level is put back as it was."""
    import av

    level = av.logging.get_level()
    import pupil_labs.neon_recording as nr

    if av.logging.get_level() != level:
        av.logging.set_level(level)
    return nr


def open_recording(directory: Path):
    """The vendor's recording object (``pupil_labs.neon_recording.NeonRecording``)."""
    nr = vendor()
    if not (Path(directory) / "info.json").is_file():
        raise StreamGazeError(f"not a Neon recording folder: no info.json (expected {LAYOUT})", directory)
    try:
        return nr.open(Path(directory))
    except (OSError, ValueError) as exc:
        raise GazeFormatError(f"cannot open the Neon recording ({exc})", directory) from None


def _stream(rec, name: str, required: bool = False):
    """One stream of the vendor's loader; None when the recording has none (unless required)."""
    try:
        return getattr(rec, name)
    except Exception as exc:  # the loader wraps every failure in NeonRecording.SensorError
        cause = exc.__cause__
        if not required and isinstance(cause, AttributeError):
            return None
        raise GazeFormatError(f"cannot read the {name} stream ({cause or exc})", Path(str(rec._rec_dir))) from None


def scene_clock(directory: Path) -> SceneClock:
    """The scene frames' device timestamps, per part (``Neon Scene Camera v1 ps<k>.time``)."""
    vendor()
    from pupil_labs.neon_recording.utils import find_sorted_multipart_files

    files = [t for _, t in find_sorted_multipart_files(Path(directory), SCENE, ".time")]
    if not files:
        raise GazeFormatError(f"no scene frame timestamps ('{SCENE} ps1.time')", directory)
    return SceneClock.of([np.fromfile(f, dtype="<i8") for f in files], 1e-9, Path(directory))


def _video_parts(directory: Path, required: bool = False) -> list[Path]:
    vendor()
    from pupil_labs.neon_recording.utils import find_sorted_multipart_files

    parts = [v for v, _ in find_sorted_multipart_files(Path(directory), SCENE, ".mp4")]
    if required and not parts:
        raise StreamGazeError(f"scene video not found (expected '{SCENE} ps1.mp4' with its .time)", directory)
    return parts


def scene_video(directory: Path) -> Path:
    """The recording's scene video: its one part, or the parts joined on the scene clock (module docstring)."""
    parts = _video_parts(directory, required=True)
    if len(parts) == 1:
        return parts[0]
    clock = scene_clock(directory)
    if len(clock.parts) != len(parts):
        raise StreamGazeError(f"{len(parts)} scene video parts but {len(clock.parts)} timestamp parts", directory)
    return joined_scene_video(parts, clock.offsets, directory)


def _directory(path: Path) -> Path:
    path = Path(path)
    return path if path.is_dir() else path.parent


@lru_cache(maxsize=4)
def _streams(directory: str, _mtime: int):
    """(gaze time, x px, y px, valid, fixations array or None, events) of a recording, through the loader."""
    rec = open_recording(Path(directory))
    gaze = _stream(rec, "gaze", required=True)
    ts = np.asarray(gaze.time, dtype=np.int64)
    point = np.asarray(gaze.point, dtype=np.float64).reshape(-1, 2)
    worn = _stream(rec, "worn")
    valid = np.isfinite(point).all(axis=1)
    if worn is not None:
        w = np.asarray(worn.worn)
        if len(w) != len(ts):
            raise GazeFormatError(f"{len(w)} worn values for {len(ts)} gaze samples", Path(directory))
        valid &= w != 0
    blinks = _stream(rec, "blinks")
    blink = None
    if blinks is not None and len(blinks):
        blink = (np.asarray(blinks.start_time), np.asarray(blinks.stop_time))
        valid &= ~in_intervals(ts, *blink)
    fixations = _stream(rec, "fixations")
    fix = None if fixations is None else (np.asarray(fixations.start_time), np.asarray(fixations.stop_time),
                                          np.asarray(fixations.mean_gaze_point, dtype=np.float64).reshape(-1, 2))
    events = _stream(rec, "events")
    ev = [] if events is None else list(zip(np.asarray(events.time).tolist(), [str(e) for e in events.event]))
    return ts, point[:, 0], point[:, 1], valid, fix, ev, blink


def _load(directory: Path, video: Path | None):
    directory = _directory(directory)
    clock = scene_clock(directory)
    width, height, fps = video_geometry(video, SCENE_SIZE, clock, directory)
    ts, x, y, valid, fix, events, blinks = _streams(str(directory.resolve()),
                                                    (directory / "info.json").stat().st_mtime_ns)
    grid_w, grid_h = SCENE_SIZE  # gaze pixels are the scene camera's, whatever size the video is stored at
    track = scene_track(clock, ts, x / grid_w, y / grid_h, valid, width, height, fps, directory)
    return clock, track, fix, events, blinks


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of a native recording folder (or a file in it); the video (given, or the recording's own)
    sets the frame size, else Neon's 1600 x 1200 with the rate of the scene timestamps."""
    directory = _directory(path)
    if video is None and _video_parts(directory):
        video = scene_video(directory)
    return _load(directory, video)[1]


def load_recording(raw: Path, video_id: str) -> Recording:
    """Scene video (parts joined), gaze track, actions and the device's fixations of one recording."""
    directory = Path(raw) / video_id
    video = scene_video(directory)
    clock, track, fix, events, blinks = _load(directory, video)
    fixations = None if fix is None else device_fixations(clock, fix[0], fix[1], fix[2][:, 0], fix[2][:, 1],
                                                          *SCENE_SIZE, track)
    t, kept = clock.to_video(np.asarray([e[0] for e in events], dtype=np.int64))
    actions = recording_actions(directory, [(float(tk), name) for tk, k, (_, name) in zip(t, kept, events) if k],
                                clock.duration)
    return Recording(video_id, SOURCE, video, track, actions, directory, device_fixations=fixations,
                     device_blinks=None if blinks is None else device_blinks(clock, *blinks))
