"""Decoding a source video once for many windows: each frame decoded at most once, only what is needed.

Many evaluation windows of one video (past prefixes ``[0, t]``, present windows, proactive checkpoints, every gaze
variant that shows the same file) each need a few frames of it. Cutting each window into a clip and decoding the
clip decodes the same source frames again for every overlapping window. Here the frames all of them need are
decoded from the source in **decode units**, one per GOP that holds a wanted frame (:func:`decode_units`):

* a unit starts at its GOP's keyframe and ends as soon as its last wanted frame has come out of the decoder, so
  the frames after it are never decoded;
* a packet whose picture is not a reference picture (H.264 ``nal_ref_idc`` 0: most B-frames; ``packets.py``)
  and that nobody wants is never handed to the decoder: no other picture needs it;
* units never overlap, so a pass that runs every unit once decodes every source frame at most once, whatever
  the windows and in whatever order the units run (several threads or processes may run different units).

What a unit hands out are the decoder's frames (``av.VideoFrame``, the source's own YUV): :func:`reader_rgb`
converts one to RGB exactly as the readers of the model wrappers (decord, torchcodec) convert it (the same
libswscale path with the frame's colour description: proven bit-identical by the equality tests, and checked
per pass against the reader itself by the caller).

Every frame the decoder outputs is counted per source file (:func:`decoded_counts`): the decode-count test of
issue 42 reads it (a frame decoded twice in a run shows as a count of 2). Other decoders of a source in this
package count here too (the smart cut's head and tail: ``clips.py``/``smartcut.py``).
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import av
import numpy as np

from ..util.errors import VideoError
from .frame_reader import open_container
from .packets import PacketIndex

_COUNT_LOCK = threading.Lock()
_DECODED: dict[str, Counter] = {}


def count_decoded(path: str | os.PathLike[str], index: int, real: bool = False) -> None:
    """Record that the frame at presentation ``index`` of the source ``path`` (``real``: already a real path) came
    out of a decoder."""
    key = str(path) if real else os.path.realpath(path)
    with _COUNT_LOCK:
        _DECODED.setdefault(key, Counter())[int(index)] += 1


def decoded_counts() -> dict[str, Counter]:
    """Source file (real path) -> {frame index: times decoded} since the last :func:`reset_decoded_counts`."""
    with _COUNT_LOCK:
        return {k: Counter(v) for k, v in _DECODED.items()}


def reset_decoded_counts() -> None:
    with _COUNT_LOCK:
        _DECODED.clear()


@dataclass(frozen=True)
class DecodeUnit:
    """One GOP's share of a pass: decode from the keyframe at presentation index ``key`` until every frame of
    ``wanted`` (presentation indices, ascending, none before ``key``) has come out."""

    key: int
    wanted: tuple[int, ...]

    @property
    def last(self) -> int:
        return self.wanted[-1]


def decode_units(idx: PacketIndex, wanted: Sequence[int]) -> list[DecodeUnit]:
    """The decode units of the frames ``wanted`` (presentation indices) of the video ``idx`` describes: the wanted
    frames grouped by the keyframe at or before each, in presentation order."""
    keys = np.flatnonzero(idx.keyframe)
    if not len(keys) or keys[0] != 0:  # a stream that does not start on a keyframe: decode from its first frame
        keys = np.concatenate([[0], keys[keys > 0]])
    units: dict[int, list[int]] = {}
    for w in sorted({int(i) for i in wanted}):
        if not 0 <= w < idx.n_frames:
            raise ValueError(f"frame {w} is not a frame of the video ({idx.n_frames} frames)")
        k = int(keys[np.searchsorted(keys, w, side="right") - 1])
        units.setdefault(k, []).append(w)
    return [DecodeUnit(k, tuple(ws)) for k, ws in sorted(units.items())]


def units_decode_estimate(idx: PacketIndex, units: Sequence[DecodeUnit]) -> int:
    """How many frames running ``units`` decodes: per unit, the reference frames from its keyframe up to its last
    wanted frame and the wanted ones (decode order within a GOP is close to presentation order; an estimate)."""
    ref = idx.reference
    total = 0
    for u in units:
        span = np.arange(u.key, u.last + 1)
        total += int(span.size if ref is None else (ref[span].sum() + (~ref[list(u.wanted)]).sum()))
    return total


class UnitDecoder:
    """Runs decode units of one source video (one open container, reused between units; one thread at a time)."""

    def __init__(self, path: str | os.PathLike[str], idx: PacketIndex, threads: int = 1) -> None:
        self.path, self.idx = str(path), idx
        self._real = os.path.realpath(self.path)
        self._container = open_container(self.path)
        self._stream = self._container.streams.video[0]
        cc = self._stream.codec_context
        cc.thread_count = max(1, int(threads))
        cc.thread_type = "FRAME" if threads > 1 else "NONE"
        self._pts_index = {int(p): i for i, p in enumerate(idx.frame_pts)}
        self._ref = idx.reference
        self._first = True
        #: frames this decoder has output (every one counted in :func:`decoded_counts` too)
        self.decoded = 0

    def close(self) -> None:
        self._container.close()

    def __enter__(self) -> UnitDecoder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, unit: DecodeUnit) -> Iterator[tuple[int, av.VideoFrame]]:
        """(presentation index, frame) of every wanted frame of ``unit``, in presentation order."""
        idx, s = self.idx, self._stream
        key_pts = int(idx.frame_pts[unit.key])
        wanted = set(unit.wanted)
        left = set(wanted)
        try:
            if not self._first:
                s.codec_context.flush_buffers()
            self._first = False
            self._container.seek(key_pts, stream=s, backward=True, any_frame=False)
            started = False
            for packet in self._container.demux(s):
                if packet.size > 0 and packet.pts is not None:
                    pos = self._pts_index.get(int(packet.pts))
                    if not started:
                        if pos is None or pos < unit.key:
                            continue  # before the unit's keyframe in decode order: the previous GOP's
                        if pos > unit.key:
                            raise VideoError(f"seeking to frame {unit.key} landed on frame {pos}", self.path)
                        started = True
                    if pos is not None and pos not in wanted and self._ref is not None and not self._ref[pos]:
                        continue  # a picture nobody wants and no picture needs
                elif not started:
                    continue
                frames = s.decode(packet)  # an empty packet at the end of the stream drains the decoder
                for frame in frames:
                    if frame.pts is None:
                        continue
                    i = self._pts_index.get(int(frame.pts))
                    if i is None:
                        continue
                    count_decoded(self._real, i, real=True)
                    self.decoded += 1
                    if i in left:
                        left.discard(i)
                        yield i, frame
                if not left:
                    return
        except av.error.FFmpegError as exc:
            raise VideoError(f"cannot decode frames {unit.key}..{unit.last} ({exc})", self.path) from None
        if left:
            raise VideoError(f"frames {sorted(left)[:5]} did not come out of the decoder", self.path)


# ---- RGB as the wrappers' readers make it -----------------------------------------------------------------

#: FFmpeg's AVColorSpace values libswscale has coefficients for (``sws_getCoefficients``); any other value (e.g.
#: 2, unspecified) gets its default, BT.601, as in the readers' FFmpeg
_SWS_COLORSPACES = {1, 4, 5, 6, 7, 9, 10}


def reader_rgb(frame: av.VideoFrame) -> np.ndarray:
    """``frame`` as (H, W, 3) uint8 RGB, converted the way decord's and torchcodec's FFmpeg filter graphs convert
    a decoded frame for a model wrapper: libswscale's YUV-to-RGB with the frame's matrix (BT.601 when it declares
    none) and range (limited unless it declares full or is a ``yuvj`` frame), to full-range RGB."""
    space = int(frame.colorspace)
    full = int(frame.color_range) == 2 or frame.format.name.startswith("yuvj")
    return frame.reformat(format="rgb24", src_colorspace=space if space in _SWS_COLORSPACES else 5,
                          src_color_range="JPEG" if full else "MPEG", dst_color_range="JPEG").to_ndarray()
