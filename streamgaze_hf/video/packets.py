"""One demux pass (no decoding) over a video: every frame's timestamp, keyframe flag and decode order.

This is what the clip cutters (:mod:`.clips`, :mod:`.smartcut`) plan with: which frames a window holds,
where its GOPs start, whether the stream reorders frames (B-frames), and (H.264 in mp4) which packets carry
parameter sets in-band. Cached per file version.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import av
import numpy as np

from ..util.errors import VideoError
from .frame_reader import open_container
from .h264 import avcc_parameter_sets, packet_is_reference, packet_parameter_sets


@dataclass(frozen=True)
class PacketIndex:
    """What one demux pass tells about a video's frames (index ``i`` = presentation order)."""

    time_base: Fraction
    width: int
    height: int
    rate: Fraction
    frame_pts: np.ndarray  # presentation timestamps, sorted (presentation order)
    keyframe: np.ndarray  # keyframe flag per frame in presentation order
    in_order: bool  # demux (decode) order == presentation order: no B-frames
    demux_pts: np.ndarray  # the same timestamps in demux (decode) order
    codec: str = ""
    pix_fmt: str = ""
    extradata: bytes = b""
    # H.264 with an avcC record: (demux position, the SPS/PPS NAL units in that packet) for every packet that
    # carries some in-band (a stream whose parameter sets change, or that repeats them); usually empty
    inband_sets: tuple[tuple[int, tuple[bytes, ...]], ...] = ()
    #: the stream's colour description (FFmpeg's colorspace, color_primaries, color_trc, color_range): what a
    #: re-encode of its frames must declare again, or readers convert them with another matrix
    colour: tuple[int, int, int, int] = (2, 2, 2, 0)
    #: per frame (presentation order): a reference picture, which later pictures may need to decode (H.264 in mp4:
    #: ``nal_ref_idc``); None: unknown, every frame counts as one
    reference: np.ndarray | None = None

    @property
    def frame_times(self) -> np.ndarray:
        return (self.frame_pts - self.frame_pts[0]) * float(self.time_base)

    @property
    def n_frames(self) -> int:
        return len(self.frame_pts)

    @property
    def demux_position(self) -> np.ndarray:
        """Per presentation index, the frame's position in demux order."""
        return np.argsort(self.demux_pts, kind="stable")


def stream_colour(cc) -> tuple[int, int, int, int]:
    """(colorspace, color_primaries, color_trc, color_range) of a decoder's or encoder's codec context."""
    return (int(cc.colorspace), int(cc.color_primaries), int(cc.color_trc), int(cc.color_range))


@lru_cache(maxsize=32)
def packet_index(path: str, _size: int, _mtime_ns: int) -> PacketIndex:
    """The :class:`PacketIndex` of ``path`` (pass its size and mtime_ns: the cache key of a file version)."""
    with open_container(path) as c:
        s = c.streams.video[0]
        pts: list[int] = []
        key: list[bool] = []
        cc = s.codec_context
        avcc = avcc_parameter_sets(bytes(cc.extradata or b"")) if cc.name == "h264" else None
        length_size = avcc[0] if avcc else 0
        inband: list[tuple[int, tuple[bytes, ...]]] = []
        ref: list[bool] = []
        try:
            for p in c.demux(s):
                if p.pts is None or p.size <= 0:
                    continue
                if length_size and (sets := packet_parameter_sets(p, length_size)):
                    inband.append((len(pts), sets))
                pts.append(p.pts)
                key.append(bool(p.is_keyframe))
                if length_size:
                    ref.append(bool(p.is_keyframe) or packet_is_reference(p, length_size))
        except av.error.FFmpegError as exc:
            raise VideoError(f"cannot read video packets ({exc})", path) from None
        if not pts:
            raise VideoError("video has no frames", path)
        arr = np.asarray(pts, dtype=np.int64)
        in_order = bool(np.all(np.diff(arr) > 0))
        order = np.argsort(arr, kind="stable")
        tb = s.time_base or Fraction(1, 90000)
        rate = s.average_rate or s.guessed_rate
        if not rate:
            span = (arr.max() - arr.min()) * tb
            rate = Fraction(len(arr) - 1) / span if len(arr) > 1 and span else Fraction(25)
        fmt = cc.format.name if cc.format is not None else ""
        return PacketIndex(Fraction(tb), cc.width, cc.height, Fraction(rate).limit_denominator(100000),
                           arr[order], np.asarray(key, dtype=bool)[order], in_order, arr, cc.name, fmt,
                           bytes(cc.extradata or b""), tuple(inband), stream_colour(cc),
                           np.asarray(ref, dtype=bool)[order] if length_size else None)
