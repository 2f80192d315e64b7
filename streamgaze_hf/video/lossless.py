"""Uncompressed RGB clips: decoded frames stored so that every reader gets exactly them back, at once.

The frames are written as raw ``rgb24`` video (no compression, no colour matrix) in a QuickTime ``.mov`` at a
constant rate. Reading one back is a copy: decord, torchcodec and PyAV (FFmpeg 4.1, 5.1, 7.1) all return
exactly the stored values, whatever the source's colour tags were, and each reader's frame count (decord
``len``, PyAV ``stream.frames``, torchcodec's scan) and average rate are the frames written and ``rate`` (the
model-ready clips rely on both: ``streamgaze_hf/evaluation/ready.py``).

Why uncompressed: 32 frames of 448x448 read back by decord in about 18 ms of CPU on the 2-core development
machine, against about 200 ms for lossless H.264 in RGB (``libx264rgb`` ``qp=0``, ultrafast) and 150 ms for
PNG in mp4 on the same textured frames (docs/performance.md); a wrapper reads the model-ready clip on the
model's critical path, the cache pays in bytes instead (19 MB for those 32 frames). Output is atomic.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from ..util.fsutil import atomic_output

#: the container and codec of every uncompressed clip
SUFFIX = ".mov"
CODEC = "rawvideo"


def write_rgb_clip(path: str | os.PathLike[str], frames: np.ndarray, rate: Fraction) -> Path:
    """Write ``frames`` (N, H, W, 3) uint8 RGB to ``path`` (a ``.mov``) uncompressed at the constant ``rate``;
    returns ``path``."""
    path = Path(path)
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8 or not len(frames):
        raise ValueError(f"expected (N, H, W, 3) uint8 frames, got {frames.shape} {frames.dtype}")
    rate = Fraction(rate)
    with atomic_output(path) as tmp, av.open(str(tmp), "w", format="mov") as c:
        s = c.add_stream(CODEC, rate=rate)
        s.pix_fmt = "rgb24"
        s.height, s.width = frames.shape[1:3]
        for f in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path
