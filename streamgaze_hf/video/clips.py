"""Window clips for evaluation: the exact frames of ``[start, end]`` as a small mp4, content-addressed and cached.

This is where the benchmark's no-future-leakage rule is enforced for every model: a clip holds exactly
the source frames whose timestamps ``t`` satisfy ``start - 1e-6 <= t <= end + 1e-6``, in order, and
nothing else. Frame times are the reader's (:mod:`.reader`): presentation timestamps relative to the
first frame. If the window holds no frame timestamp (``[0, 0]`` always holds frame 0, but e.g. a
window lying between two frames does not), the clip holds the single frame on screen at ``end``: the
last frame at or before ``end`` (it lies before ``start``, never after ``end``). The clip's own
timestamps are rebased so that its first frame is at 0; the spacing follows the source pts.

With ``fps_cap`` (the ``STREAMGAZE_CLIP_FPS`` setting for models that sample sparsely) the clip keeps
at most one frame per ``1 / fps_cap`` seconds: frames are picked from inside the window, backwards
from its last frame (always kept), each at least ``1 / fps_cap`` before the previous pick, so a clip
has at most ``ceil((end - start) * fps_cap) + 1`` frames.

Three ways to cut a clip (the sidecar's ``mode``):

* ``copy``: the window's packets are copied into a new mp4 without decoding (milliseconds). Valid when
  the window's first frame is a keyframe and either decode order equals presentation order (no
  B-frames: a prefix of a GOP's packets is a prefix of its frames), which holds for every ``[0, t]``
  prefix and, because dataset builds force a keyframe at every present-task window start, for the
  dataset's 60 s windows; or the window is made of whole closed GOPs. With an all-keyframe source
  (the proxies of video/proxy.py) any selection of frames is copied, ``fps_cap`` included.
* ``smart`` (:mod:`.smartcut`, H.264 sources): whole GOPs are copied and only the partial GOPs at the
  window's start (and, with B-frames, at its end) are decoded and re-encoded, so a window that does not
  start on a keyframe (a release imported without ``--reencode``, a camera file with long GOPs and
  B-frames) costs O(GOP), not O(window). The sidecar's ``segments`` record which frames were re-encoded.
* ``encode``: otherwise (no keyframe or whole GOP inside the window, an open-GOP or non-H.264 source,
  or an ``fps_cap`` that drops frames of a source that is not all keyframes) the source is decoded from the keyframe before the window and
  only the chosen frames are re-encoded with :class:`~.writer.H264Writer` (preset ``ultrafast``, the
  project's crf). A copy or smart cut that does not yield exactly the expected frames (an unusual
  container) falls back to this path.

All three give the same frames with the same source timestamps (exactly those of a full decode of the
window).

Cache: ``<cache>/<key[:2]>/<key>.mp4`` with a JSON sidecar ``<key>.mp4.json`` (source path and sha256,
window, fps_cap, mode, the clip's source frame indices and times, clip size). ``key`` is a sha256 over
the source's content digest, ``start``, ``end``, ``fps_cap`` and :data:`FORMAT_VERSION`, so renamed or
copied sources share clips and an edited source gets new ones. Source digests are memoised per
(path, size, mtime_ns) in-process and on disk (``<cache>/sources/``), so a cached clip returns in a
few stats and one small JSON read. Several processes (``accelerate launch`` ranks) may build the same
clip at once: each writes to its own temporary file in the cache dir and renames it into place (the
sidecar first, then the clip); no locks are held, and a clip without a matching sidecar is treated as
absent, so a reader never sees a partial clip. A process killed mid-build can leave a ``.<key>.mp4.*.tmp.mp4``
file behind; it is never read and may be deleted. Copy-path clips carry only the video stream and
keep the moov atom at the end (fine for local readers: PyAV, decord, OpenCV). Errors writing the cache
raise :class:`StreamGazeError` naming the cache directory.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from ..util.errors import StreamGazeError, VideoError
from ..util.fsutil import atomic_output, user_cache_dir, write_text_atomic
from .frame_reader import open_container
from .packets import PacketIndex, packet_index
from .smartcut import CutFailed, SourceSets, decode_range, plan_cut, smart_cut
from .writer import DEFAULT_CRF, H264Writer

# 2: smart-cut clips carry the parameter sets every keyframe needs (issue 22: format-1 smart cuts broke
# decoders that seek into them), so every format-1 clip is rebuilt on first use
# 3: re-encoded frames (encode mode, a smart cut's head and tail) declare the source's colour description (issue
# 36: they declared none, and readers converted a BT.709 source's re-encoded frames as BT.601)
FORMAT_VERSION = 3
CACHE_ENV = "STREAMGAZE_CLIP_CACHE"
CLIP_PRESET = "ultrafast"
_EPS = 1e-6
_HASH_CHUNK = 1 << 20
# the head every sidecar written here starts with (see _build): read on cache hits instead of the whole file
_HEAD = re.compile(rb'\{"format":(\d+),"key":"([0-9a-f]{64})","clip_size":(\d+),')

# In-process memos: source digests per (real path, size, mtime_ns), and cache entries already checked
# against their sidecar (keyed by clip path, valid while the clip's and sidecar's stat are unchanged).
_DIGESTS: dict[tuple[str, int, int], str] = {}
_VERIFIED: dict[str, tuple[int, int, int, int]] = {}


def clip_cache_dir(cache: str | os.PathLike[str] | None = None) -> Path:
    """The clip cache directory: ``cache`` when given (``--cache``), else ``$STREAMGAZE_CLIP_CACHE``, else
    ``~/.cache/streamgaze/clips``."""
    return Path(cache).expanduser() if cache else user_cache_dir("clips", CACHE_ENV)


def sidecar_path(clip_path: str | os.PathLike[str]) -> Path:
    """The JSON sidecar of a clip: ``<clip>.json`` (e.g. ``abc.mp4.json``)."""
    p = Path(clip_path)
    return p.with_name(p.name + ".json")


def prepare_clip(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None = None,
                 cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of an mp4 holding exactly the frames of ``video`` inside ``[start, end]`` (seconds).

    Built on first use and cached under ``cache_dir`` (default :func:`clip_cache_dir`); see the module
    docstring for the frame selection, ``fps_cap`` and the cache layout. Raises :class:`VideoError`
    (naming the file) for a missing or unreadable video and for a bad window (negative or non-finite
    times, ``start > end``, ``fps_cap <= 0``).
    """
    w = _locate(video, start, end, fps_cap, cache_dir)
    if _cached(w.clip, w.key):
        return w.clip
    _build(w.source, w.stat, w.digest, w.key, w.start, w.end, w.fps_cap, w.clip)
    return w.clip


def cached_clip(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None = None,
                cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The clip :func:`prepare_clip` would return if it is already in the cache, else None (builds nothing)."""
    w = _locate(video, start, end, fps_cap, cache_dir)
    return w.clip if _cached(w.clip, w.key) else None


def window_clip_key(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None = None,
                    cache_dir: str | os.PathLike[str] | None = None) -> str:
    """The cache key of the clip :func:`prepare_clip` returns for these arguments (builds nothing): what a
    file made from that clip (a model-ready clip) is keyed by."""
    return _locate(video, start, end, fps_cap, cache_dir).key


@dataclass(frozen=True)
class LocatedWindow:
    """A window of a source video, checked as :func:`prepare_clip` checks it: the source, its stat and content
    digest, the window clip's cache key and path, and the window and frame-rate cap as checked."""

    source: Path
    stat: os.stat_result
    digest: str
    key: str
    clip: Path
    start: float
    end: float
    fps_cap: float | None


def locate_window(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None = None,
                  cache_dir: str | os.PathLike[str] | None = None) -> LocatedWindow:
    """The window located (builds nothing): what a file made from the window's frames is keyed by."""
    return _locate(video, start, end, fps_cap, cache_dir)


def _locate(video, start, end, fps_cap, cache_dir) -> LocatedWindow:
    src = Path(video)
    start, end, fps_cap = _check_window(src, start, end, fps_cap)
    try:
        st = os.stat(src)
    except FileNotFoundError:
        raise VideoError("video file not found", src) from None
    except OSError as exc:
        raise VideoError(f"cannot read video: {exc.strerror or exc}", src) from None
    if not stat.S_ISREG(st.st_mode):
        raise VideoError("video file not found (not a regular file)", src)
    root = Path(cache_dir) if cache_dir is not None else clip_cache_dir()
    digest = _source_digest(src, st, root)
    key = clip_key(digest, start, end, fps_cap)
    return LocatedWindow(src, st, digest, key, root / key[:2] / f"{key}.mp4", start, end, fps_cap)


def clip_frame_times(clip_path: str | os.PathLike[str]) -> list[float]:
    """Source times (seconds) of the clip's frames, in order, as recorded in its sidecar."""
    return [float(t) for t in read_sidecar(clip_path)["frame_times"]]


def read_sidecar(clip_path: str | os.PathLike[str]) -> dict:
    """The parsed sidecar of a clip made by :func:`prepare_clip`."""
    side = sidecar_path(clip_path)
    try:
        meta = json.loads(side.read_bytes())
    except FileNotFoundError:
        raise VideoError("clip sidecar not found (not a clip made by prepare_clip?)", side) from None
    except (OSError, ValueError) as exc:
        raise VideoError(f"unreadable clip sidecar ({exc})", side) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION or "frame_times" not in meta:
        raise VideoError(f"not a clip sidecar of format {FORMAT_VERSION}", side)
    return meta


def clip_key(source_digest: str, start: float, end: float, fps_cap: float | None) -> str:
    """The cache key of a clip: sha256 over the source digest, the window, fps_cap and the format version."""
    spec = json.dumps([FORMAT_VERSION, source_digest, float(start), float(end),
                       None if fps_cap is None else float(fps_cap)])
    return hashlib.sha256(spec.encode()).hexdigest()


def select_frames(times: np.ndarray, start: float, end: float, fps_cap: float | None = None) -> np.ndarray:
    """Indices (ascending) of the frames a clip of ``[start, end]`` holds, given all frame times (sorted).

    The frames with ``start - 1e-6 <= t <= end + 1e-6``; if there are none, the last frame at or before
    ``end`` (or frame 0 when ``end`` is before every frame). With ``fps_cap``: the window's last frame,
    then backwards each frame at least ``1 / fps_cap`` before the previously kept one.
    """
    times = np.asarray(times, dtype=np.float64)
    lo = int(np.searchsorted(times, start - _EPS, side="left"))
    hi = int(np.searchsorted(times, end + _EPS, side="right")) - 1
    if hi < lo:
        return np.array([max(hi, 0)], dtype=np.int64)
    if not fps_cap:
        return np.arange(lo, hi + 1, dtype=np.int64)
    step = 1.0 / fps_cap
    keep = [hi]
    while True:
        # the latest frame at least one step before the last kept one
        k = min(int(np.searchsorted(times, times[keep[-1]] - step + 1e-9, side="right")) - 1, keep[-1] - 1)
        if k < lo:
            break
        keep.append(k)
    return np.array(keep[::-1], dtype=np.int64)


# ---------------------------------------------------------------------------------------------------
# validation and cache look-up


def _check_window(src: Path, start: float, end: float, fps_cap: float | None) -> tuple[float, float, float | None]:
    try:
        start, end = float(start), float(end)
        fps_cap = None if fps_cap is None else float(fps_cap)
    except (TypeError, ValueError):
        raise VideoError(f"clip window must be numbers, got start={start!r} end={end!r} "
                         f"fps_cap={fps_cap!r}", src) from None
    if not (math.isfinite(start) and math.isfinite(end)):
        raise VideoError(f"clip window must be finite, got [{start}, {end}]", src)
    if start < 0 or end < 0:
        raise VideoError(f"clip window times must not be negative, got [{start}, {end}]", src)
    if start > end:
        raise VideoError(f"clip window start {start} is after its end {end}", src)
    if fps_cap is not None and not (math.isfinite(fps_cap) and fps_cap > 0):
        raise VideoError(f"fps_cap must be a positive number, got {fps_cap}", src)
    return start, end, fps_cap


def _source_digest(src: Path, st: os.stat_result, root: Path) -> str:
    """sha256 of the file's bytes, memoised per (real path, size, mtime_ns) in-process and on disk."""
    real = os.path.realpath(src)
    memo_key = (real, st.st_size, st.st_mtime_ns)
    digest = _DIGESTS.get(memo_key)
    if digest is not None:
        return digest
    index = root / "sources" / f"{hashlib.sha256(real.encode()).hexdigest()[:32]}.json"
    try:
        rec = json.loads(index.read_bytes())
        if (rec.get("path"), rec.get("size"), rec.get("mtime_ns")) == memo_key:
            digest = str(rec["sha256"])
    except (OSError, ValueError, KeyError, AttributeError):
        digest = None
    if digest is None:
        h = hashlib.sha256()
        try:
            with open(src, "rb") as f:
                while chunk := f.read(_HASH_CHUNK):
                    h.update(chunk)
        except OSError as exc:
            raise VideoError(f"cannot read video: {exc.strerror or exc}", src) from None
        digest = h.hexdigest()
        try:
            write_text_atomic(index, json.dumps({"path": real, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
                                                 "sha256": digest}))
        except OSError:
            pass  # a read-only cache still works, it just re-hashes in new processes
    _DIGESTS[memo_key] = digest
    return digest


def _cached(clip: Path, key: str, fmt: int = FORMAT_VERSION) -> bool:
    """True if ``clip`` and its sidecar exist and agree (right key and format ``fmt``, clip size as recorded).

    Reads only the sidecar's head (our writer puts format, key and clip size first), so a hit costs a
    few stats and one small read however long the clip; other sidecars are parsed in full.
    """
    side = sidecar_path(clip)
    try:
        cst, sst = os.stat(clip), os.stat(side)
    except OSError:
        return False
    sig = (cst.st_size, cst.st_mtime_ns, sst.st_size, sst.st_mtime_ns)
    if _VERIFIED.get(str(clip)) == sig:
        return True
    try:
        with open(side, "rb") as f:
            head = f.read(256)
            m = _HEAD.match(head)
            if m:
                fmt_read, got_key, size = int(m[1]), m[2].decode(), int(m[3])
            else:
                meta = json.loads(head + f.read())
                fmt_read, got_key, size = meta.get("format"), meta.get("key"), meta.get("clip_size")
    except (OSError, ValueError, AttributeError):
        return False
    ok = fmt_read == fmt and got_key == key and size == cst.st_size and cst.st_size > 0
    if ok:
        _VERIFIED[str(clip)] = sig
    return ok


def cache_entry_valid(path: str | os.PathLike[str], key: str, fmt: int) -> bool:
    """Whether ``path`` and its sidecar are a complete cache entry of ``key`` written in format ``fmt`` (the
    sidecar starts with ``{"format":fmt,"key":key,"clip_size":size,`` and the file has that size): the
    check a cache hit costs, for any file kept in this cache with such a sidecar."""
    return _cached(Path(path), key, fmt)


def _clear_memos() -> None:
    """Forget every in-process memo (digests, packet indices, verified entries): for benchmarks and tests."""
    _DIGESTS.clear()
    _VERIFIED.clear()
    _packet_index.cache_clear()


# ---------------------------------------------------------------------------------------------------
# building


# the packet index lives in .packets (shared with .smartcut); these names stay for tests and benchmarks
_PacketIndex = PacketIndex
_packet_index = packet_index


def _build(src: Path, st: os.stat_result, digest: str, key: str, start: float, end: float,
           fps_cap: float | None, clip: Path) -> None:
    idx = _packet_index(str(src), st.st_size, st.st_mtime_ns)
    times = idx.frame_times
    sel = select_frames(times, start, end, fps_cap)
    i0, i1 = int(sel[0]), int(sel[-1])
    contiguous = len(sel) == i1 - i0 + 1
    plan = None
    if idx.in_order and bool(idx.keyframe[i0]) and (contiguous or bool(idx.keyframe[sel].all())):
        mode = "copy"  # a packet range from a keyframe, or any frames of an all-keyframe stream (proxies)
    else:
        plan = plan_cut(idx, i0, i1) if contiguous else None
        mode = "encode" if plan is None else plan.mode
    meta = {
        "source": os.path.realpath(src), "source_sha256": digest, "source_size": st.st_size,
        "window": [start, end], "fps_cap": fps_cap, "mode": mode, "n_frames": len(sel),
        "time_base": str(idx.time_base),
        "source_indices": [int(i) for i in sel], "frame_times": [float(times[i]) for i in sel],
    }
    try:
        with atomic_output(clip) as tmp:
            n = -1
            if mode == "copy" and plan is None:
                n = _cut(src, start, end, lambda: _copy_packets(src, idx, sel, tmp))
                if n != len(sel):  # an unusual container (e.g. edit lists): decode exactly instead
                    mode = meta["mode"] = "encode"
            elif plan is not None:
                try:
                    n = _cut(src, start, end, lambda: smart_cut(src, idx, plan, tmp, DEFAULT_CRF, CLIP_PRESET))
                except CutFailed:
                    n = -1
                if n != len(sel):  # the source did not demux as its index promised: decode exactly instead
                    mode = meta["mode"] = "encode"
                else:
                    meta["segments"] = {"encoded_head": [plan.lo, plan.a], "copied": [plan.a, min(plan.b, i1 + 1)],
                                        "encoded_tail": [min(plan.b, i1 + 1), i1 + 1]}
            if mode == "encode":
                n = _cut(src, start, end, lambda: _reencode(src, idx, sel, fps_cap, tmp))
            if n != len(sel):
                raise VideoError(f"clip [{start}, {end}] got {n} frames, expected {len(sel)}", src)
            # format, key and clip size first: the head _cached reads
            meta = {"format": FORMAT_VERSION, "key": key, "clip_size": tmp.stat().st_size, **meta}
            # sidecar first, then the clip (renamed into place when this block exits)
            write_text_atomic(sidecar_path(clip), json.dumps(meta, separators=(",", ":")))
    except OSError as exc:
        raise StreamGazeError(f"cannot write to the clip cache ({exc.strerror or exc})", clip.parent) from None
    _VERIFIED.pop(str(clip), None)


def _cut(src: Path, start: float, end: float, fn: Callable[[], int]) -> int:
    try:
        return fn()
    except av.error.FFmpegError as exc:
        raise VideoError(f"cannot cut clip [{start}, {end}] ({exc})", src) from None


def _copy_packets(src: Path, idx: _PacketIndex, sel: np.ndarray, out: Path) -> int:
    """Copy the packets of the frames ``sel`` to ``out``: decode order == presentation order, the first a
    keyframe, and either a contiguous range or keyframes only (each decodable on its own). A source that
    sends parameter sets in-band gets those in force on every copied keyframe and in the clip's ``avcC``
    (:class:`~.smartcut.SourceSets`); other sources' packets are copied unchanged."""
    i0 = int(sel[0])
    first, last = int(idx.frame_pts[i0]), int(idx.frame_pts[sel[-1]])
    wanted = {int(idx.frame_pts[i]) for i in sel}
    n = 0
    with open_container(src) as ic, av.open(str(out), "w", format="mp4") as oc:
        s = ic.streams.video[0]
        o = oc.add_stream_from_template(s)
        o.time_base = s.time_base
        sets = SourceSets(idx, i0) if idx.inband_sets else None  # in order: demux position == frame index
        if sets is not None:
            o.codec_context.extradata = sets.extradata()
        for attempt in (0, 1):
            if attempt == 0 and i0 > 0:
                ic.seek(first, stream=s, backward=True, any_frame=False)
            elif attempt == 1:
                ic.seek(int(idx.frame_pts[0]), stream=s, backward=True, any_frame=False)
            overshot = False
            for p in ic.demux(s):
                if p.pts is None or p.size <= 0 or p.pts < first:
                    continue
                if n == 0 and p.pts != first:  # the seek landed after the window start
                    overshot = True
                    break
                if p.pts > last:
                    break
                if p.pts not in wanted:
                    continue
                if sets is not None:
                    pos = int(np.searchsorted(idx.frame_pts, p.pts))
                    q = av.Packet(sets.packet(pos, bytes(p), bool(p.is_keyframe)))
                    q.pts, q.duration, q.is_keyframe, q.time_base = p.pts, p.duration, p.is_keyframe, p.time_base
                    p = q
                p.pts -= first
                p.dts = p.pts  # no reordering: decode time == presentation time
                p.stream = o
                oc.mux(p)
                n += 1
            if not overshot:
                break
    return n


def _reencode(src: Path, idx: _PacketIndex, sel: np.ndarray, fps_cap: float | None, out: Path) -> int:
    """Decode from the keyframe before the first chosen frame and encode only the chosen frames."""
    wanted = {int(idx.frame_pts[i]) for i in sel}
    first, last = int(idx.frame_pts[sel[0]]), int(idx.frame_pts[sel[-1]])
    rate = idx.rate if fps_cap is None else min(idx.rate, Fraction(fps_cap).limit_denominator(100000))
    n = 0
    # the source's colour description; a full-range yuvj source's frames become limited-range yuv420p below
    colour = (*idx.colour[:3], 1) if idx.pix_fmt.startswith("yuvj") else idx.colour
    with H264Writer(out, idx.width, idx.height, rate, time_base=idx.time_base, crf=DEFAULT_CRF,
                    preset=CLIP_PRESET, colour=colour) as w:
        for frame in decode_range(src, idx, first, last):
            if frame.pts in wanted:
                if frame.format.name != "yuv420p":
                    frame = frame.reformat(format="yuv420p")
                w.write_frame(frame, frame.pts - first)
                n += 1
    return n
