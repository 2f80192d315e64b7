"""Frame-accurate video reading with PyAV: probing, sequential iteration and seeking by time.

A frame's time is its presentation timestamp relative to the first frame, in seconds. "The frame
at time t" is the frame on screen at t: the last frame whose time is <= t. Nothing here reads a
frame after the requested time.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import av
import numpy as np

from ..util.errors import VideoError

_EPS = 1e-6


@dataclass(frozen=True)
class VideoInfo:
    path: str
    width: int
    height: int
    fps: float
    n_frames: int
    duration: float  # time of the last frame + one frame period
    time_base: Fraction
    start_pts: int
    codec: str
    frame_pts: tuple[int, ...]  # presentation timestamps of every frame, in order

    @property
    def frame_times(self) -> np.ndarray:
        return (np.asarray(self.frame_pts, dtype=np.int64) - self.start_pts) * float(self.time_base)

    def index_at(self, t: float | np.ndarray) -> np.ndarray:
        """Index of the frame on screen at time t (-1 before the first frame)."""
        return np.searchsorted(self.frame_times, np.asarray(t, dtype=np.float64) + _EPS, side="right") - 1


def open_container(path: str | os.PathLike[str]) -> av.container.InputContainer:
    path = Path(path)
    if not path.is_file():
        raise VideoError("video file not found", path)
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        detail = getattr(exc, "strerror", None) or str(exc)
        raise VideoError(f"cannot open video: {detail}", path) from None
    if not container.streams.video:
        container.close()
        raise VideoError("no video stream in file", path)
    return container


def probe_video(path: str | os.PathLike[str]) -> VideoInfo:
    """Size, rate and every frame's timestamp, read by demuxing (no decoding). Cached per file version."""
    p = Path(path)
    if not p.is_file():
        raise VideoError("video file not found", p)
    st = p.stat()
    return _probe(str(p.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=256)
def _probe(path: str, _mtime: int, _size: int) -> VideoInfo:
    with open_container(path) as c:
        s = c.streams.video[0]
        try:
            pts = sorted(p.pts for p in c.demux(s) if p.pts is not None and p.size > 0)
        except av.error.FFmpegError as exc:
            raise VideoError(f"cannot read video packets ({exc})", path) from None
        if not pts:
            raise VideoError("video has no frames", path)
        tb = s.time_base or Fraction(1, 90000)
        rate = s.average_rate or s.guessed_rate
        if rate:
            fps = float(rate)
        elif len(pts) > 1:
            fps = (len(pts) - 1) / ((pts[-1] - pts[0]) * float(tb))
        else:
            fps = 25.0
        cc = s.codec_context
        last = (pts[-1] - pts[0]) * float(tb)
        return VideoInfo(path, cc.width, cc.height, fps, len(pts), last + 1.0 / fps, tb, pts[0],
                         cc.name, tuple(pts))


def iter_frames(path: str | os.PathLike[str], fmt: str = "bgr24") -> Iterator[tuple[int, float, np.ndarray]]:
    """Decode every frame once, in order: (index, time, image)."""
    info = probe_video(path)
    with open_container(path) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for i, frame in enumerate(_decode(c, s, path)):
            yield i, (frame.pts - info.start_pts) * float(info.time_base), frame.to_ndarray(format=fmt)


def _decode(c, s, path):
    try:
        yield from c.decode(s)
    except av.error.FFmpegError as exc:
        raise VideoError(f"cannot decode video ({exc})", path) from None


def read_frames_at(path: str | os.PathLike[str], times, fmt: str = "bgr24",
                   forward_limit: int = 48) -> list[tuple[float, np.ndarray]]:
    """The frames on screen at the given times, as (frame time, image), in the order asked.

    Seeks to the keyframe before each target and decodes forward; when the next target is at most
    ``forward_limit`` frames ahead it keeps decoding instead of seeking. Times before the first
    frame give the first frame.
    """
    info = probe_video(path)
    times = np.asarray(times, dtype=np.float64)
    idx = np.clip(info.index_at(times), 0, info.n_frames - 1)
    wanted = sorted(set(int(i) for i in idx))
    got: dict[int, np.ndarray] = {}
    tb = float(info.time_base)
    with open_container(path) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        pos = None  # index of the last decoded frame
        gen = None
        for target in wanted:
            if gen is None or pos is None or target <= pos or target - pos > forward_limit:
                c.seek(info.frame_pts[target], stream=s, backward=True, any_frame=False)
                gen = _decode(c, s, path)
                pos = None
            for frame in gen:
                if frame.pts is None:
                    continue
                k = int(np.searchsorted(info.frame_pts, frame.pts))
                pos = k
                if k == target:
                    got[target] = frame.to_ndarray(format=fmt)
                    break
                if k > target:
                    raise VideoError(f"seek overshot frame {target} (landed on {k})", path)
            if target not in got:
                raise VideoError(f"could not decode frame {target} of {info.n_frames}", path)
    return [(float((info.frame_pts[i] - info.start_pts) * tb), got[int(i)]) for i in idx]
