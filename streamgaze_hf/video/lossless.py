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

The file is laid out here, not by PyAV (:class:`RawLayout`): the bytes FFmpeg's ``mov`` muxer writes for the same
frames and rate (``tests/unit/test_model_frames.py`` compares them with PyAV's output byte for byte), with frame
``k`` at a known offset. So a pass can write each frame straight into every clip that needs it, once
(``video/frame_store.ClipPlacement``), and the container costs one small write at each end; PyAV's path copied
every frame three times on its way to the file (docs/performance.md).
"""

from __future__ import annotations

import os
import struct
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from ..util.fsutil import atomic_output

#: the container and codec of every uncompressed clip
SUFFIX = ".mov"
CODEC = "rawvideo"


#: what FFmpeg's mov muxer lays out: the movie's timescale, a chunk's byte bound, the identity matrix
_MOVIE_TIMESCALE = 1000
_CHUNK_BYTES = 1 << 20
_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
_U32 = 0xFFFFFFFF


def _atom(kind: bytes, *body: bytes) -> bytes:
    data = b"".join(body)
    return struct.pack(">I", 8 + len(data)) + kind + data


def _full(kind: bytes, version_flags: int, *body: bytes) -> bytes:
    return _atom(kind, struct.pack(">I", version_flags), *body)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class RawLayout:
    """An uncompressed ``rgb24`` ``.mov`` of ``n`` frames of ``width`` x ``height`` at the constant ``rate``, laid
    out as FFmpeg's ``mov`` muxer lays it out: ``head()`` (``ftyp``, ``wide``, the ``mdat`` header), the frames back
    to back from :meth:`offset`, then ``tail()`` (the ``moov`` index) at :attr:`end`. ``fits`` is False where that
    muxer would do more than this: switch to 64-bit fields (4 GiB of frames, a track longer than 2^31 ticks), or pad
    each row to an even byte count (an odd width; the padding bytes are not defined). Such clips are written by
    PyAV."""

    n: int
    height: int
    width: int
    rate: Fraction

    HEAD = 36  # ftyp (20) + wide (8) + the mdat header (8)

    @property
    def frame_bytes(self) -> int:
        return self.width * self.height * 3

    @property
    def end(self) -> int:
        return self.HEAD + self.n * self.frame_bytes

    def offset(self, k: int) -> int:
        """Where frame ``k``'s bytes start."""
        return self.HEAD + k * self.frame_bytes

    def _timing(self) -> tuple[int, int]:
        # the stream's time base is 1 / rate; the track's timescale its denominator, doubled up to 10,000;
        # one frame lasts rate.denominator * (timescale / rate.numerator) ticks
        timescale = self.rate.numerator
        while timescale < 10000:
            timescale *= 2
        return timescale, self.rate.denominator * (timescale // self.rate.numerator)

    @property
    def fits(self) -> bool:
        if (self.n < 1 or self.rate <= 0 or self.width < 1 or self.height < 1 or self.width % 2
                or self.rate.numerator > 0x7FFFFFFF):
            return False
        timescale, delta = self._timing()
        return 8 + self.n * self.frame_bytes <= _U32 and self.end <= _U32 and self.n * delta < 0x7FFFFFFF

    def head(self) -> bytes:
        return (_atom(b"ftyp", b"qt  ", struct.pack(">I", 0x200), b"qt  ") + _atom(b"wide")
                + struct.pack(">I", 8 + self.n * self.frame_bytes) + b"mdat")

    def tail(self) -> bytes:
        timescale, delta = self._timing()
        track = self.n * delta
        movie = _ceil_div(track * _MOVIE_TIMESCALE, timescale)
        per_chunk = max(1, (_CHUNK_BYTES - 1) // self.frame_bytes)
        starts = list(range(0, self.n, per_chunk))
        stsc, last = [], None
        for c, first in enumerate(starts, 1):
            count = min(per_chunk, self.n - first)
            if count != last:
                stsc.append(struct.pack(">3I", c, count, 1))
                last = count
        lavf = "Lavf" + ".".join(str(v) for v in av.library_versions["libavformat"])
        stsd_entry = _atom(b"raw ", bytes(6), struct.pack(">H", 1), bytes(4), b"FFMP",
                           struct.pack(">IIHHIIIH", 0, 0x400, self.width, self.height, 0x480000, 0x480000, 0, 1),
                           bytes(32), struct.pack(">Hh", 24, -1))
        stbl = _atom(
            b"stbl",
            _full(b"stsd", 0, struct.pack(">I", 1), stsd_entry),
            _full(b"stts", 0, struct.pack(">3I", 1, self.n, delta)),
            _full(b"stsc", 0, struct.pack(">I", len(stsc)), *stsc),
            _full(b"stsz", 0, struct.pack(">II", self.frame_bytes, self.n)),
            _full(b"stco", 0, struct.pack(">I", len(starts)), *(struct.pack(">I", self.offset(k)) for k in starts)),
        )
        minf = _atom(
            b"minf",
            _full(b"vmhd", 1, bytes(8)),
            _full(b"hdlr", 0, b"dhlr", b"url ", bytes(12), b"\x0bDataHandler"),
            _atom(b"dinf", _full(b"dref", 0, struct.pack(">I", 1), _full(b"url ", 1))),
            stbl,
        )
        mdia = _atom(
            b"mdia",
            _full(b"mdhd", 0, struct.pack(">IIIIHH", 0, 0, timescale, track, 0x7FFF, 0)),
            _full(b"hdlr", 0, b"mhlr", b"vide", bytes(12), b"\x0cVideoHandler"),
            minf,
        )
        trak = _atom(
            b"trak",
            _full(b"tkhd", 3, struct.pack(">5I", 0, 0, 1, 0, movie), bytes(16), _MATRIX,
                  struct.pack(">II", self.width << 16, self.height << 16)),
            _atom(b"edts", _full(b"elst", 0, struct.pack(">IIiI", 1, movie, 0, 0x10000))),
            mdia,
        )
        mvhd = _full(b"mvhd", 0, struct.pack(">IIIIIH", 0, 0, _MOVIE_TIMESCALE, movie, 0x10000, 0x100), bytes(10),
                     _MATRIX, bytes(24), struct.pack(">I", 2))
        swr = _atom(b"\xa9swr", struct.pack(">HH", len(lavf), 0x55C4), lavf.encode())
        return _atom(b"moov", mvhd, trak, _atom(b"udta", swr))


def write_rgb_clip(path: str | os.PathLike[str], frames, rate: Fraction) -> Path:
    """Write ``frames`` ((N, H, W, 3) uint8 RGB: an array or a list of frames) to ``path`` (a ``.mov``)
    uncompressed at the constant ``rate``; returns ``path``."""
    path = Path(path)
    arrays = [np.asarray(f) for f in frames]
    first = arrays[0] if arrays else np.zeros((0,))
    if first.ndim != 3 or first.shape[-1] != 3 or first.dtype != np.uint8:
        raise ValueError(f"expected (N, H, W, 3) uint8 frames, got {len(arrays)} of {first.shape} {first.dtype}")
    if any(a.shape != first.shape or a.dtype != np.uint8 for a in arrays):
        raise ValueError(f"expected (N, H, W, 3) uint8 frames of one size, the first {first.shape}")
    layout = RawLayout(len(arrays), first.shape[0], first.shape[1], Fraction(rate))
    with atomic_output(path) as tmp:
        if layout.fits:
            with open(tmp, "wb") as f:
                f.write(layout.head())
                for a in arrays:
                    f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
                f.write(layout.tail())
        else:
            _write_rgb_clip_pyav(tmp, arrays, layout.rate)
    return path


def _write_rgb_clip_pyav(path: Path, frames, rate: Fraction) -> None:
    with av.open(str(path), "w", format="mov") as c:
        s = c.add_stream(CODEC, rate=rate)
        s.pix_fmt = "rgb24"
        s.height, s.width = np.asarray(frames[0]).shape[:2]
        for f in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)


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
