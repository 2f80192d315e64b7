"""Tobii Pro Glasses 3 recordings (the SD card's recording folder).

Native layout::

    <raw>/<recording>/gazedata.gz       gaze, gzip of JSON lines (defines the recordings)
    <raw>/<recording>/scenevideo.mp4    the scene video
    <raw>/<recording>/eventdata.gz      optional: events, gzip of JSON lines
    <raw>/<recording>/recording.g3      optional: JSON naming the files (scenecamera/gaze/events ``file``)
    <raw>/<recording>/actions.csv       optional: the action timeline (start, end, label)

Format (Tobii Pro Glasses 3 Developer Guide, "Recording data format"): one JSON object per line with
``type``, ``timestamp`` (seconds on the recording's clock) and ``data``. Gaze lines (``type: gaze``) carry
``data.gaze2d`` = [x, y] normalised to the scene video, origin top-left; an **empty** ``data`` (``{}``) is
a sample where the glasses tracked no gaze (blinks, looking away, not worn): untracked, invalid, without
a position. Lines of other types are ignored.

Time: the scene video's frames carry their presentation times on the same recording clock (its own frame
timestamps; there is no separate timestamp file), so a sample's time on the video clock is ``timestamp``
minus the first frame's presentation time. Without the video (``streamgaze gaze`` on a bare
``gazedata.gz``) time 0 is the recording's start and the frame is the G3's nominal 1920 x 1080 at 25 fps.
Off-frame points keep their position.

Events (``eventdata.gz``): lines of ``type: event`` (sent by the user through the glasses' API) become the
action timeline (label: ``data.tag``; gaze/sources/wearable.py's rule); ``syncport`` signals are not
actions. ``actions.csv`` beside the recording takes precedence.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ..track import GazeTrack
from .base import Recording, discover_recordings, json_lines, recording_folders
from .wearable import SceneClock, assumed, recording_actions, scene_track

SOURCE = "tobii_g3"
LAYOUT = ("<raw>/<recording>/{gazedata.gz, scenevideo.mp4} (Tobii Pro Glasses 3; optional eventdata.gz, "
          "recording.g3, actions.csv)")
GAZE, VIDEO, EVENTS, META = "gazedata.gz", "scenevideo.mp4", "eventdata.gz", "recording.g3"
NOMINAL = (1920, 1080, 25.0)


def _files(directory: Path) -> dict[str, Path]:
    """The recording's gaze, video and events files (``recording.g3`` names them; else the defaults)."""
    names = {"gaze": GAZE, "scenecamera": VIDEO, "events": EVENTS}
    meta = Path(directory) / META
    if meta.is_file():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            for key in names:
                if isinstance(data.get(key), dict) and data[key].get("file"):
                    names[key] = str(data[key]["file"])
        except (OSError, ValueError, AttributeError) as exc:
            raise StreamGazeError(f"not a recording.g3 JSON file ({exc})", meta) from None
    return {k: Path(directory) / v for k, v in names.items()}


def is_recording(d: Path) -> bool:
    """Whether folder ``d`` is one recording of this layout (its gaze file is there)."""
    return _files(d)["gaze"].is_file()


def discover(raw: Path) -> list[str]:
    """Sub-folders with a gaze file; each must have its scene video."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, is_recording), "Tobii Pro Glasses 3 recordings", LAYOUT,
                               lambda vid: _require_video(raw / vid))


def _require_video(recording: Path) -> None:
    """The recording has its scene video (else a StreamGazeError naming the recording)."""
    if not _files(recording)["scenecamera"].is_file():
        raise StreamGazeError(f"scene video not found (expected {VIDEO})", recording)


def _timestamp(obj: dict, path: Path, n: int) -> float:
    ts = obj.get("timestamp")
    if isinstance(ts, bool) or not isinstance(ts, int | float) or not math.isfinite(ts):
        raise GazeFormatError(f"line {n}: timestamp is not a finite number: {ts!r}", path)
    return float(ts)


def gaze_samples(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(timestamp s, x, y, valid) of every gaze line of ``gazedata.gz``: empty data -> NaN, invalid."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    ts, xs, ys = [], [], []
    for n, obj in json_lines(path):
        if obj.get("type") != "gaze":
            continue
        ts.append(_timestamp(obj, path, n))
        data = obj.get("data")
        g = data.get("gaze2d") if isinstance(data, dict) else None
        if g is None:
            xs.append(math.nan)
            ys.append(math.nan)
            continue
        if not (isinstance(g, list) and len(g) == 2 and all(isinstance(v, int | float) for v in g)):
            raise GazeFormatError(f"line {n}: data.gaze2d is not [x, y]: {g!r}", path)
        xs.append(float(g[0]))
        ys.append(float(g[1]))
    x, y = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    return np.asarray(ts, dtype=np.float64), x, y, np.isfinite(x) & np.isfinite(y)


def scene_clock(video: Path) -> SceneClock:
    """The scene video's frames' presentation times on the recording clock (seconds)."""
    from ...video import probe_video

    info = probe_video(video)
    return SceneClock.of([np.asarray(info.frame_pts, dtype=np.int64) * float(info.time_base)], 1.0, video)


def _load(gaze: Path, video: Path | None):
    ts, x, y, valid = gaze_samples(gaze)
    if video is None:
        width, height, fps = NOMINAL
        assumed(gaze, f"the G3's nominal scene camera, {width}x{height} at {fps:g} fps, and t = 0 at the "
                      "recording's start")
        return None, scene_track(None, ts, x, y, valid, width, height, fps, gaze)
    from ...video import probe_video

    info = probe_video(video)
    clock = scene_clock(video)
    return clock, scene_track(clock, ts, x, y, valid, info.width, info.height, info.fps, gaze)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of a ``gazedata.gz`` (or its recording folder); the video (given, or the recording's
    scenevideo.mp4) sets the clock's origin and the frame, else the recording's start and 1920 x 1080."""
    path = Path(path)
    files = _files(path if path.is_dir() else path.parent)
    gaze = files["gaze"] if path.is_dir() else path
    if video is None and files["scenecamera"].is_file():
        video = files["scenecamera"]
    return _load(gaze, video)[1]


def read_events(path: Path) -> list[tuple[float, str]]:
    """(timestamp s, tag) of the user's events (``type: event``) in ``eventdata.gz``."""
    out = []
    for n, obj in json_lines(path):
        if obj.get("type") == "event":
            data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
            out.append((_timestamp(obj, path, n), str(data.get("tag") or "").strip()))
    return out


def load_recording(raw: Path, video_id: str) -> Recording:
    """Scene video, gaze track and actions of one recording folder."""
    directory = Path(raw) / video_id
    files = _files(directory)
    if not files["scenecamera"].is_file():
        raise StreamGazeError(f"scene video not found (expected {VIDEO})", directory)
    clock, track = _load(files["gaze"], files["scenecamera"])
    events = read_events(files["events"]) if files["events"].is_file() else []
    t, kept = clock.to_video(np.asarray([e[0] for e in events], dtype=np.float64))
    actions = recording_actions(directory, [(float(tk), e[1]) for tk, k, e in zip(t, kept, events) if k],
                                clock.duration)
    return Recording(video_id, SOURCE, files["scenecamera"], track, actions, directory)
