"""Our own raw format (the synthetic demo world's, and the simplest way to bring new data).

Native layout::

    <raw>/<video_id>/video.mp4      the video (defines the recordings)
    <raw>/<video_id>/gaze.csv       t, x, y, valid (normalised, origin top-left; see gaze/io.py)
    <raw>/<video_id>/actions.json   optional: list of {start, end, label} (seconds)
    <raw>/<video_id>/objects.json   optional: the demo world's ground truth (read by the oracle back-end)

``Recording.directory`` is the video's directory.
"""

from __future__ import annotations

from pathlib import Path

from ...util.errors import StreamGazeError
from ...video import probe_video
from ..io import read_gaze_csv
from ..track import GazeTrack
from .base import Recording, discover_recordings, read_actions, recording_folders

SOURCE = "world"
LAYOUT = "<raw>/<video_id>/video.mp4 with gaze.csv (t, x, y, valid) and optional actions.json, objects.json"


def discover(raw: Path) -> list[str]:
    """Sub-directories holding a ``video.mp4``; each must have its ``gaze.csv``."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, lambda d: (d / "video.mp4").is_file()), "recordings",
                               LAYOUT, lambda vid: _require_gaze(raw / vid))


def _require_gaze(recording: Path) -> None:
    if not (recording / "gaze.csv").is_file():
        raise StreamGazeError("recording has a video but no gaze.csv", recording)


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, gaze track and actions of one recording directory."""
    d = Path(raw) / video_id
    video = d / "video.mp4"
    return Recording(video_id, SOURCE, video, read_track(d / "gaze.csv", video), read_actions(d / "actions.json"), d)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """A ``gaze.csv``, or a recording directory holding one; the video defaults to the ``video.mp4``
    next to it."""
    path = Path(path)
    if path.is_dir():
        if not (path / "gaze.csv").is_file():
            raise StreamGazeError(f"not a recording directory: no gaze.csv (expected {LAYOUT})", path)
        path = path / "gaze.csv"
    video = Path(video) if video is not None else path.parent / "video.mp4"
    if not video.is_file():
        raise StreamGazeError(f"a gaze.csv needs its video for size and rate (not found: {video})", path)
    info = probe_video(video)
    return read_gaze_csv(path, info.width, info.height, info.fps)
