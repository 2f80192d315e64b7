"""Low-rate, scaled copies of a video: the frames on screen at ``k / fps``, re-encoded smaller.

Shared by the two kinds of small copy the toolkit writes: proxies (proxy.py: cheap for a model wrapper to
decode, every frame a keyframe) and previews (preview.py: what a visitor of the Hub's dataset viewer sees,
as few bytes as possible). A copy keeps the source frames on screen at the times ``k / fps``
(``k = 0, 1, ...``; the last frame whose time is at or before ``k / fps``, each frame at most once), scaled
to the given size, stamped with its *source* timestamp (the source's time base, ``pts - start_pts``), so a
time means the same on the copy as on the source. Encoded by :class:`~.writer.H264Writer` (atomic output).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from tqdm import tqdm

from ..util.errors import VideoError
from .frame_reader import open_container, probe_video
from .writer import DEFAULT_THREADS, H264Writer

_EPS = 1e-6


def frames_at_rate(frame_times: np.ndarray, fps: float) -> np.ndarray:
    """Indices (ascending, unique) of the source frames on screen at ``k / fps`` (see the module docstring)."""
    ft = np.asarray(frame_times, dtype=np.float64)
    if len(ft) == 0:
        return np.zeros(0, dtype=np.int64)
    k = np.arange(int(math.floor(ft[-1] * fps + _EPS)) + 1, dtype=np.float64)
    idx = np.searchsorted(ft, k / fps + _EPS, side="right") - 1
    return np.unique(np.clip(idx, 0, len(ft) - 1)).astype(np.int64)


def write_resampled(src: str | os.PathLike[str], out: str | os.PathLike[str], fps: float, size: tuple[int, int],
                    *, crf: int, preset: str, gop: int, tune: str = "", threads: int = DEFAULT_THREADS, all_keyframes: bool = False,
                    what: str = "resample", progress: bool = False) -> Path:
    """Write the copy of ``src`` at ``fps`` and ``size`` (w, h; even) to ``out`` (atomic): x264 with ``crf``,
    ``preset``, keyframe interval ``gop`` (frames of the copy), ``tune`` and ``threads`` (a fixed count, any count
    gives the same bytes on every machine); ``all_keyframes`` forces every frame to be one. Returns ``out``.
    Raises :class:`VideoError` naming ``src`` when it cannot be read or the copy misses a frame."""
    src, out = Path(src), Path(out)
    info = probe_video(src)
    keep = frames_at_rate(info.frame_times, fps)
    wanted = {int(info.frame_pts[i]) for i in keep}
    w, h = size
    rate = Fraction(fps).limit_denominator(1000)
    n = 0
    bar = tqdm(total=info.n_frames, unit="frame", desc=f"{what} {src.name}", disable=not progress, leave=False)
    try:
        with open_container(src) as c, H264Writer(out, w, h, rate, time_base=info.time_base, crf=crf,
                                                  preset=preset, gop=gop, tune=tune, threads=threads) as writer:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            last = int(info.frame_pts[keep[-1]])
            for frame in c.decode(s):
                bar.update()
                if frame.pts is None or frame.pts not in wanted:
                    if frame.pts is not None and frame.pts > last:
                        break
                    continue
                small = frame.reformat(width=w, height=h, format="yuv420p", interpolation="AREA")
                writer.write_frame(small, frame.pts - info.start_pts, keyframe=all_keyframes)
                n += 1
                if frame.pts >= last:
                    break
            if n != len(keep):
                raise VideoError(f"{what} got {n} frames, expected {len(keep)}", src)
    except av.error.FFmpegError as exc:
        raise VideoError(f"cannot build the {what} ({exc})", src) from None
    finally:
        bar.close()
    return out
