"""The rows of the shared ``videos`` and ``gaze`` configs (``dataset/schema.py``), built in one place for every
benchmark's build and importer.

* :func:`video_row`: one ``videos`` row, from a probed video (``video.frame_reader.VideoInfo``) or from the
  values a benchmark knows without one (a still image, a release without its clip);
* :func:`gaze_rows`: the ``gaze`` rows of one video's track (``gaze.track.GazeTrack``), or of samples a release
  lists (:func:`gaze_row`); :func:`gaze_tracks`: those rows of a built dataset back as tracks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..gaze import GazeTrack

if TYPE_CHECKING:
    from ..video import VideoInfo
    from .load import DatasetHandle

__all__ = ["video_row", "gaze_row", "gaze_rows", "gaze_tracks"]


def video_row(video_id: str, source: str, info: VideoInfo | None = None, *, video_path: str = "",
              overlay_path: str = "", hfov_deg: float | None = None, fps: float | None = None,
              width: int | None = None, height: int | None = None, n_frames: int | None = None,
              duration: float | None = None) -> dict:
    """One row of the ``videos`` config.

    Args:
        video_id: the video's id.
        source: its source dataset.
        info: the probed video file (its frame rate, size, frame count and duration), or None: give them.
        video_path: the original video's path in the dataset ("" = none stored).
        overlay_path: the gaze-overlay video's path in the dataset ("" = none).
        hfov_deg: the scene camera's horizontal field of view (None: unknown, NaN).
        fps: the frame rate, overriding ``info``'s.
        width: the frame width, overriding ``info``'s.
        height: the frame height, overriding ``info``'s.
        n_frames: the frame count, overriding ``info``'s.
        duration: the duration in seconds, overriding ``info``'s.

    Returns:
        The row, in the config's column order.
    """
    def pick(given, attr: str):
        return given if given is not None else getattr(info, attr)

    return {"video_id": video_id, "source": source, "video_path": video_path, "overlay_path": overlay_path,
            "fps": float(pick(fps, "fps")), "width": int(pick(width, "width")), "height": int(pick(height, "height")),
            "n_frames": int(pick(n_frames, "n_frames")), "duration": float(pick(duration, "duration")),
            "hfov_deg": float(hfov_deg) if hfov_deg is not None else math.nan}


def gaze_row(video_id: str, t: float, x: float, y: float, valid: bool, in_frame: bool | None = None) -> dict:
    """One row of the ``gaze`` config (``in_frame`` None: valid and inside the frame, ``[0, 1]`` on both axes)."""
    if in_frame is None:
        in_frame = bool(valid and 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0)
    return {"video_id": video_id, "t": t, "x": x, "y": y, "valid": bool(valid), "in_frame": bool(in_frame)}


def gaze_rows(video_id: str, track: GazeTrack, *, missing: float | None = math.nan) -> list[dict]:
    """The ``gaze`` rows of one video's track.

    Args:
        video_id: the video's id.
        track: its gaze samples (normalised positions, origin top-left).
        missing: what a position that is not a finite number is stored as (NaN, or None: null).

    Returns:
        One row per sample, in the track's order.
    """
    def num(v) -> float | None:
        v = float(v)
        return v if math.isfinite(v) else missing

    inside = track.in_frame
    return [gaze_row(video_id, float(t), num(x), num(y), bool(ok), bool(i))
            for t, x, y, ok, i in zip(track.t, track.x, track.y, track.valid, inside)]


def gaze_tracks(dataset: DatasetHandle, video_ids: set[str], geometry: dict[str, dict]) -> dict[str, GazeTrack]:
    """The gaze samples of the given videos (empty when the dataset has none, e.g. the release)."""
    import pyarrow.compute as pc

    path = dataset.config_file("gaze")
    if not path.is_file() or not video_ids:
        return {}
    table = dataset.read_config("gaze", filters=[("video_id", "in", sorted(video_ids))])
    tracks = {}
    for vid in sorted(video_ids):
        part = table.filter(pc.equal(table["video_id"], vid))
        if part.num_rows == 0:
            continue
        g = geometry[vid]
        tracks[vid] = GazeTrack(part["t"].to_numpy(), part["x"].to_numpy(zero_copy_only=False),
                                part["y"].to_numpy(zero_copy_only=False),
                                part["valid"].to_numpy(zero_copy_only=False), g["width"], g["height"], g["fps"])
    return tracks
