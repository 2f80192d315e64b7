"""Smart cut: a window clip of any H.264 video at O(GOP) cost, frame-exact.

A window holds the source frames ``lo..hi`` (presentation order). The cut copies packets (no decoding)
for as much of the window as a packet copy can show exactly, and decodes and re-encodes only the rest:

* head ``lo..a-1``: the frames before the window's first keyframe ``a`` (decoded from the keyframe
  before ``lo``, re-encoded);
* middle ``a..b-1``: copied. In decode order, any run of packets starting at a keyframe decodes on its
  own (a packet only references packets before it; GOPs are closed, see below), so the middle is the
  longest decode-order run from ``a`` whose frames are exactly ``a..f`` for some ``f <= hi``: every
  whole GOP of the window and, in the last one, up to its last reference frame (I/P) at or before
  ``hi`` with the B-frames it completes. Without B-frames (decode order equals presentation order)
  that is ``a..hi`` itself;
* tail ``b..hi``: with B-frames, the few frames after the middle's last reference frame (at most the
  number of consecutive B-frames), decoded from the last GOP's keyframe (the decoder may read packets
  of later frames, but only frames up to ``hi`` are encoded).

The clip therefore holds exactly the frames a full decode of the window gives, with their source
timestamps (rebased so the first is 0): never a frame after the window end. Re-encoding costs O(GOP)
(decoding the partial GOPs at the two ends), not O(window). An open-GOP keyframe (followed in decode
order by leading pictures that reference the previous GOP) ends the run at once; the caller then
re-encodes the whole window.

Parameter sets: a decoder that seeks into a clip starts at a keyframe, holding whatever SPS/PPS it has seen
before, so every keyframe of the clip carries, in-band, the parameter sets its segment needs:

* copied keyframes: the source's sets in force there (its ``avcC`` record, updated by any sets the source
  carries in-band before that packet: several ids, and sets that change mid-stream, are followed);
* re-encoded segments (libx264, no B-frames, one encoder setting per clip): their own SPS/PPS under an id
  the source never uses (x264's ``sps-id``), so they can never be taken for the source's, or the source's
  for theirs, whatever the decoder saw last.

The clip's ``avcC`` record lists the source's sets in force at the first copied packet and the re-encode's.
Decode timestamps are reassigned for the whole clip (``dts_j = j-th smallest pts - max reorder delay``),
monotonic and never after the pts.

Supported: H.264 in mp4/mov-style containers (``avcC`` extradata) with 8-bit 4:2:0 pixels; other
sources make :func:`plan_cut` return ``None`` (the caller then re-encodes the window).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from .frame_reader import open_container
from .h264 import (
    NAL_PPS,
    NAL_SPS,
    annexb_nals,
    avcc_parameter_sets,
    avcc_with_sets,
    length_prefixed,
    nal_type,
    parameter_set_key,
)
from .one_pass import count_decoded
from .packets import PacketIndex
from .writer import DEFAULT_THREADS, set_colour, x264_params

__all__ = ["CutFailed", "CutPlan", "SourceSets", "plan_cut", "smart_cut", "decode_range", "source_sets_at",
           "free_parameter_set_id",
           # H.264 helpers, re-exported for callers of this module
           "annexb_nals", "avcc_parameter_sets", "length_prefixed"]

SMART_CODECS = frozenset({"h264"})
SMART_PIX_FMTS = frozenset({"yuv420p", "yuvj420p"})


class CutFailed(Exception):
    """The source did not demux or decode as its packet index promised: re-encode the window instead."""


@dataclass(frozen=True)
class CutPlan:
    """Frames ``lo..a-1`` re-encoded, ``a..b-1`` copied (the decode-order run from keyframe ``a``),
    ``b..hi`` re-encoded (presentation indices)."""

    lo: int
    a: int
    b: int
    hi: int

    @property
    def mode(self) -> str:
        return "copy" if self.lo == self.a and self.b == self.hi + 1 else "smart"


def _packet(nals: list[bytes], length_size: int) -> bytes:
    try:
        return length_prefixed(nals, length_size)
    except ValueError as exc:
        raise CutFailed(str(exc)) from None


def _key(nal: bytes) -> tuple[int, int]:
    try:
        return parameter_set_key(nal)
    except ValueError as exc:
        raise CutFailed(f"source parameter set: {exc}") from None


def source_sets_at(idx: PacketIndex, position: int) -> dict[tuple[int, int], bytes]:
    """The source's parameter sets in force before the packet at demux ``position``: (NAL type, id) -> NAL
    unit, from its ``avcC`` record updated by every set carried in-band before that packet."""
    parsed = avcc_parameter_sets(idx.extradata)
    if parsed is None:
        raise CutFailed("no avcC record")
    state = {_key(nal): nal for nal in parsed[1]}
    for pos, sets in idx.inband_sets:
        if pos >= position:
            break
        state.update((_key(nal), nal) for nal in sets)
    return state


def free_parameter_set_id(idx: PacketIndex) -> int:
    """The smallest id that no SPS and no PPS of the source uses (``avcC`` or in-band), for the re-encode's
    SPS and PPS (x264 gives both the same id)."""
    parsed = avcc_parameter_sets(idx.extradata)
    used = {_key(nal)[1] for nal in (parsed[1] if parsed else [])}
    used.update(_key(nal)[1] for _, sets in idx.inband_sets for nal in sets)
    free = sorted(set(range(32)) - used)
    if not free:
        raise CutFailed("the source uses every parameter set id")
    return free[0]


def _ordered(state: dict[tuple[int, int], bytes]) -> list[bytes]:
    """Parameter sets as a keyframe carries them: SPSs, then PPSs, each by id."""
    return [state[k] for k in sorted(state)]


class SourceSets:
    """The source's parameter sets in force while its packets are copied in demux order, starting at demux
    ``position`` (packets may be skipped): :meth:`packet` gives each keyframe the sets in force in-band
    (unless it carries them all itself) and follows the sets the source sends in-band; :meth:`extradata` is
    the clip's ``avcC`` record."""

    def __init__(self, idx: PacketIndex, position: int):
        self.idx = idx
        self.state = source_sets_at(idx, position)
        self.length_size = avcc_parameter_sets(idx.extradata)[0]
        self._pending = [(pos, sets) for pos, sets in idx.inband_sets if pos >= position]
        self._i = 0

    def extradata(self, extra: list[bytes] = ()) -> bytes:
        """The source's ``avcC`` record holding the sets in force now, and ``extra``."""
        try:
            return avcc_with_sets(self.idx.extradata, _ordered(self.state) + list(extra))
        except ValueError as exc:
            raise CutFailed(str(exc)) from None

    def packet(self, position: int, data: bytes, keyframe: bool) -> bytes:
        """The packet at demux ``position`` (after any packet passed before) as the clip carries it."""
        pending, own = self._pending, {}
        while self._i < len(pending) and pending[self._i][0] <= position:
            sets = {_key(nal): nal for nal in pending[self._i][1]}
            if pending[self._i][0] < position:
                self.state.update(sets)  # sent by a packet the clip skips
            else:
                own = sets
            self._i += 1
        if keyframe and any(own.get(key) != nal for key, nal in self.state.items()):
            data = _packet(_ordered(self.state), self.length_size) + data
        self.state.update(own)
        return data


def plan_cut(idx: PacketIndex, lo: int, hi: int) -> CutPlan | None:
    """How to cut frames ``lo..hi`` (see the module docstring); None when a smart cut does not apply:
    an unsupported codec or pixel format, no keyframe inside the window, or no copyable run of more
    than one frame before more frames to re-encode (e.g. an open GOP's keyframe, followed in decode
    order by leading pictures from before it)."""
    if idx.codec not in SMART_CODECS or idx.pix_fmt not in SMART_PIX_FMTS:
        return None
    if avcc_parameter_sets(idx.extradata) is None:
        return None
    keys = np.flatnonzero(idx.keyframe)
    inside = keys[(keys >= lo) & (keys <= hi)]
    if len(inside) == 0:
        return None
    a = int(inside[0])
    da = int(idx.demux_position[a])
    # the longest decode-order run from keyframe a whose frames are exactly a..f (f <= hi): any such
    # run decodes on its own (every packet references only packets before it), and shows nothing after f
    run = idx.demux_pts[da:da + (hi - a + 1)]
    want = idx.frame_pts[a:a + len(run)]
    ok = (np.maximum.accumulate(run) == want) & (np.minimum.accumulate(run) == want[0])
    length = int(np.flatnonzero(ok)[-1]) + 1
    b = a + length
    if length == 1 and b <= hi:
        return None  # nothing gained over re-encoding the window
    return CutPlan(lo, a, b, hi)


def decode_range(path: str | os.PathLike[str], idx: PacketIndex, first: int, last: int) -> Iterator[av.VideoFrame]:
    """The decoded frames with pts in ``[first, last]`` (source pts), in presentation order.

    Seeks to the keyframe at or before ``first``; if the demuxer lands after ``first`` it decodes from
    the start of the stream instead. Never yields a frame after ``last``. A source that carries parameter
    sets in-band (they may change mid-stream) primes the decoder with the sets in force at that keyframe.
    """
    real = os.path.realpath(path)  # the decode counter's key, once
    with open_container(path) as ic:
        s = ic.streams.video[0]
        s.thread_type = "AUTO"
        for attempt in (0, 1):
            ic.seek(first if attempt == 0 else int(idx.frame_pts[0]), stream=s, backward=True, any_frame=False)
            if attempt:
                s.codec_context.flush_buffers()
            seen_any = overshot = False
            for frame in (f for packet in _primed(ic.demux(s), idx) for f in s.decode(packet)):
                if frame.pts is None:
                    continue
                count_decoded(real, int(np.searchsorted(idx.frame_pts, frame.pts)), real=True)
                if not seen_any:
                    seen_any = True
                    if frame.pts > first:
                        overshot = True
                        break
                if frame.pts > last:
                    break
                if frame.pts >= first:
                    yield frame
            if not overshot:
                return


def _primed(packets, idx: PacketIndex):
    """``packets`` (demuxed after a seek), the first one prefixed with the source's parameter sets in force
    there when the source carries sets in-band (its ``avcC`` record may not be those in force)."""
    for p in packets:
        if idx.inband_sets and p.size > 0 and p.pts is not None:
            position = int(idx.demux_position[int(np.searchsorted(idx.frame_pts, p.pts))])
            q = av.Packet(_packet(_ordered(source_sets_at(idx, position)), avcc_parameter_sets(idx.extradata)[0])
                          + bytes(p))
            q.pts, q.dts, q.duration, q.is_keyframe, q.time_base = p.pts, p.dts, p.duration, p.is_keyframe, p.time_base
            yield q
            yield from packets
            return
        yield p


class _Muxer:
    """Muxes the clip's packets in decode order with precomputed pts (check) and dts."""

    def __init__(self, oc, stream, pts: np.ndarray, dts: np.ndarray, durations: dict[int, int]):
        self.oc, self.stream, self.pts, self.dts, self.durations = oc, stream, pts, dts, durations
        self.j = 0

    def mux(self, data: bytes, pts: int, keyframe: bool) -> None:
        j = self.j
        if j >= len(self.pts) or int(self.pts[j]) != pts:
            want = int(self.pts[j]) if j < len(self.pts) else None
            raise CutFailed(f"packet {j} has pts {pts}, the plan expected {want}")
        p = av.Packet(data)
        # durations matter: the mp4 edit list (written for a negative first dts) ends at the last
        # frame's pts + duration, and a frame outside it is discarded by demuxers
        p.pts, p.dts, p.duration = pts, int(self.dts[j]), self.durations[pts]
        p.time_base = self.stream.time_base
        p.is_keyframe = keyframe
        p.stream = self.stream
        self.oc.mux(p)
        self.j += 1


def smart_cut(src: str | os.PathLike[str], idx: PacketIndex, plan: CutPlan, out: Path, crf: int,
              preset: str) -> int:
    """Write the clip of frames ``plan.lo..plan.hi`` to ``out`` (mp4); returns the frames written.

    Raises :class:`CutFailed` when the source does not demux/decode as ``idx`` says, and
    ``av.error.FFmpegError`` on codec errors.
    """
    parsed = avcc_parameter_sets(idx.extradata)
    if parsed is None:
        raise CutFailed("no avcC record")
    length_size = parsed[0]
    fp = idx.frame_pts
    lo, a, b, hi = plan.lo, plan.a, plan.b, plan.hi
    base = int(fp[lo])
    da = int(idx.demux_position[a])
    copied = idx.demux_pts[da:da + (b - a)]  # the decode-order run of frames a..b-1 (plan_cut)
    seq = np.concatenate([fp[lo:a], copied, fp[b:hi + 1] if b <= hi else fp[:0]]).astype(np.int64) - base
    srt = np.sort(seq)
    delay = max(0, int((srt - seq).max()))
    dts = srt - delay
    # each frame lasts until the next source frame (the video's last: one frame period)
    step = np.diff(fp)
    last_dur = int(np.median(step)) if len(step) else max(1, round(1 / (idx.rate * idx.time_base)))
    dur = np.append(step, last_dur)[lo:hi + 1]
    durations = {int(t) - base: int(d) for t, d in zip(fp[lo:hi + 1], dur)}
    sets = SourceSets(idx, da)
    # the re-encoded segments: one encoder setting (so one SPS/PPS pair) under an id the source never uses
    sps_id = free_parameter_set_id(idx)
    encoders = [_open_encoder(idx, hi - lo + 1, sps_id, crf, preset) for _ in range((a > lo) + (b <= hi))]
    enc_sets = [annexb_nals(bytes(e.extradata or b"")) for e in encoders]
    if any(x != enc_sets[0] for x in enc_sets) or any(
            nal_type(n) not in (NAL_SPS, NAL_PPS) or parameter_set_key(n)[1] != sps_id for x in enc_sets for n in x):
        raise CutFailed(f"the re-encoder's parameter sets are not one SPS/PPS pair with id {sps_id}")
    own = enc_sets[0] if enc_sets else []
    extradata = sets.extradata(own)
    with open_container(src) as ic, av.open(str(out), "w", format="mp4") as oc:
        s = ic.streams.video[0]
        o = oc.add_stream_from_template(s)
        o.time_base = s.time_base
        o.codec_context.extradata = extradata
        mux = _Muxer(oc, o, seq, dts, durations)
        if a > lo:
            _encode_segment(src, idx, lo, a - 1, base, mux, length_size, encoders.pop(0), own)
        _copy_segment(ic, s, copied, base, mux, da, sets)
        if b <= hi:
            _encode_segment(src, idx, b, hi, base, mux, length_size, encoders.pop(0), own)
    if mux.j != len(seq):
        raise CutFailed(f"wrote {mux.j} packets, the plan has {len(seq)}")
    return mux.j


def _copy_segment(ic, s, copied: np.ndarray, base: int, mux: _Muxer, da: int, sets: SourceSets) -> None:
    """Copy the packets whose pts are ``copied`` (in this demux order, from demux position ``da``), starting
    at a keyframe; every keyframe gets the source's parameter sets in force there (:class:`SourceSets`).

    Seeks to the first one; if the demuxer does not land exactly on it, scans from the stream start.
    """
    if len(copied) == 0:
        return
    first = int(copied[0])
    for attempt in (0, 1):
        ic.seek(first if attempt == 0 else 0, stream=s, backward=True, any_frame=attempt == 1)
        k = 0
        for p in ic.demux(s):
            if p.pts is None or p.size <= 0:
                continue
            if k == 0 and p.pts != first:
                if attempt == 0:
                    break  # did not land on the segment's keyframe: scan from the start instead
                continue
            if p.pts != int(copied[k]):
                raise CutFailed(f"demuxed pts {p.pts}, expected {int(copied[k])}")
            mux.mux(sets.packet(da + k, bytes(p), bool(p.is_keyframe)), int(p.pts) - base, bool(p.is_keyframe))
            k += 1
            if k == len(copied):
                return
        if k:
            break
    raise CutFailed(f"copied {k} of {len(copied)} packets")


def _open_encoder(idx: PacketIndex, keyint: int, sps_id: int, crf: int, preset: str):
    """An opened libx264 encoder for a re-encoded segment: no B-frames, parameter sets (id ``sps_id``) in
    its extradata, not in its packets. Every encoder of one clip gets the same settings, hence the same sets."""
    enc = av.CodecContext.create("libx264", "w")
    enc.width, enc.height = idx.width, idx.height
    enc.pix_fmt = idx.pix_fmt
    enc.time_base = idx.time_base
    enc.framerate = idx.rate
    enc.flags |= int(av.codec.context.Flags.global_header)
    set_colour(enc, idx.colour)  # the source's colour description: readers convert these frames like the copied ones
    enc.options = {"crf": str(crf), "preset": preset, "bf": "0", "g": str(keyint), "threads": str(DEFAULT_THREADS),
                   **x264_params(f"sps-id={sps_id}")}
    enc.open()
    return enc


def _encode_segment(src, idx: PacketIndex, first: int, last: int, base: int, mux: _Muxer, length_size: int,
                    enc, param_sets: list[bytes]) -> None:
    """Re-encode frames ``first..last`` (presentation indices) with ``enc``; ``param_sets`` in-band on every
    keyframe."""
    wanted = idx.frame_pts[first:last + 1]
    k = 0

    def emit(packets) -> None:
        for p in packets:
            nals = annexb_nals(bytes(p))
            if p.is_keyframe:
                nals = param_sets + [n for n in nals if nal_type(n) not in (NAL_SPS, NAL_PPS)]
            mux.mux(_packet(nals, length_size), int(p.pts), bool(p.is_keyframe))

    for frame in decode_range(src, idx, int(wanted[0]), int(wanted[-1])):
        if k >= len(wanted) or frame.pts != int(wanted[k]):
            raise CutFailed(f"decoded pts {frame.pts}, expected {int(wanted[k]) if k < len(wanted) else None}")
        if frame.format.name != idx.pix_fmt:
            frame = frame.reformat(format=idx.pix_fmt)
        frame.pts = int(wanted[k]) - base
        frame.time_base = idx.time_base
        frame.pict_type = av.video.frame.PictureType.I if k == 0 else av.video.frame.PictureType.NONE
        emit(enc.encode(frame))
        k += 1
    if k != len(wanted):
        raise CutFailed(f"decoded {k} of {len(wanted)} frames of a re-encoded segment")
    emit(enc.encode(None))
