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
import tempfile
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


def write_lossless_clip(path: str | os.PathLike[str], frames: np.ndarray, rate: Fraction, pix_fmt: str,
                        colour: tuple[int, int, int, int] | None = None) -> Path:
    """The compact form of :func:`write_rgb_clip`: lossless H.264 in an mp4 at the constant ``rate``, every frame a
    keyframe. ``pix_fmt`` ``rgb24``: (N, H, W, 3) RGB frames, coded by ``libx264rgb`` at ``qp=0`` (readers return
    the stored values); ``yuv420p``: (N, H * 3 / 2, W) planes of a source's decoded frames, coded by ``libx264`` at
    ``qp=0`` with the source's ``colour`` description, so that readers convert them exactly as they convert the
    source. Returns ``path``."""
    from .writer import set_colour, x264_params

    path = Path(path)
    frames = np.asarray(frames)
    if pix_fmt == "rgb24":
        h, w = frames.shape[1:3]
        codec, stream_fmt = "libx264rgb", "rgb24"
    elif pix_fmt == "yuv420p":
        h, w = frames.shape[1] * 2 // 3, frames.shape[2]
        codec, stream_fmt = "libx264", "yuv420p"
    else:
        raise ValueError(f"pix_fmt {pix_fmt!r}; expected rgb24 or yuv420p")
    rate = Fraction(rate)
    with atomic_output(path) as tmp, av.open(str(tmp), "w", format="mp4") as c:
        s = c.add_stream(codec, rate=rate)
        s.pix_fmt, s.width, s.height = stream_fmt, w, h
        s.options = {"qp": "0", "preset": "ultrafast", "g": "1", "bf": "0", "threads": "1", **x264_params()}
        if colour is not None:
            set_colour(s.codec_context, colour)
        for f in frames:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format=pix_fmt)
            if colour is not None:
                frame.colorspace, frame.color_range = int(colour[0]), int(colour[3])
            for p in s.encode(frame):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path


def reader_conversion(frame: av.VideoFrame, reader: str, tmp_dir: str | os.PathLike[str],
                      colour: tuple[int, int, int, int]) -> np.ndarray:
    """The RGB ``reader`` (decord or torchcodec) makes of a decoded ``frame``: the frame's own samples stored
    uncompressed in a Matroska file with its colour description (Matroska carries both; a Matroska file of raw
    4:2:0 samples reads back through decord and torchcodec exactly as the source it was decoded from), read back
    by the reader; ``colour``: the source's (colorspace, color_primaries, color_trc, color_range). A check of a conversion made elsewhere (``video/one_pass.reader_rgb``), never a second decode
    of the source."""
    from .wrapper_reads import read_frames
    from .writer import set_colour

    tmp_dir = Path(tmp_dir)
    tmp_dir.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".check.", suffix=".tmp.mkv", dir=tmp_dir)
    os.close(fd)
    try:
        with av.open(name, "w", format="matroska") as c:
            s = c.add_stream("rawvideo", rate=Fraction(1))
            s.pix_fmt, s.width, s.height = frame.format.name, frame.width, frame.height
            set_colour(s.codec_context, colour)
            copy = av.VideoFrame.from_ndarray(frame.to_ndarray(), format=frame.format.name)
            copy.colorspace, copy.color_range = frame.colorspace, frame.color_range
            copy.pts = 0
            for p in s.encode(copy):
                c.mux(p)
            for p in s.encode():
                c.mux(p)
        return read_frames(name, [0], reader)[0]
    finally:
        os.unlink(name)
