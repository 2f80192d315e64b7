"""Model-ready clips: the source's frames a wrapper would sample from a window, at its processor's size, in a
small lossless clip, made many windows of one video at a time in one pass over the source.

A model-ready clip is planned from the **source video** itself, never from a cut of the window (issue 42):

1. the window's frames are the source frames with times in ``[start, end]`` (``video/clips.select_frames``, the
   same rule as a window clip: nothing after the window end); the wrapper's reader would report a frame-exact cut
   of them as ``T`` frames at the source's rate (``ready_job.source_metadata``: the reader's own figure);
2. the table (``model_frames.py``) plans the clip: which of the ``T`` frames, what size, in what order, at what
   rate; the plan is checked (the wrapper's sampler on the planned clip must reach exactly those frames): a
   ``ready_job.ReadyJob``;
3. the picked frames are decoded from the source by the one-pass decoder (``video/one_pass.py``: one decode unit
   per GOP, each frame at most once however many windows want it), converted to RGB as the wrapper's reader
   converts them (checked against that reader once per pass), resized with the wrapper's kernel
   (``video/resize.py``) and written losslessly (``video/lossless.py``); the written clip is read back by the
   reader and its count and rate checked against the plan.

So the frames are bit for bit those the wrapper would decode from a lossless, frame-exact cut of the window: the
source is the truth (``tests/e2e/test_model_frames_equal.py``).

**One runner.** :class:`VideoPass` is a pass: the jobs of one video (:func:`plan_pass`), their units
(:func:`run_unit`), the rule when the reader does not confirm the conversion (:func:`run_units`, the one place a
:class:`ConversionMismatch` is caught: the clips are then made the frame-rate-capped way) and each clip written
(:meth:`VideoPass.finish`). Every driver runs passes through it: :func:`run_passes` on an executor
(``util/executors.py``: inline for :func:`ready_clips`, processes or a Ray cluster for ``clips warm``), and the run's
scheduler (``schedule.py``), which picks the next unit itself and runs it with :meth:`VideoPass.run_unit`.

The cache, its keys and storage forms, and the frame-rate-capped path: ``ready_job.py``.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..util.allocator import keep_freed_memory
from ..util.errors import StreamGazeError, VideoError
from ..util.executors import Executor, Inline, chunks
from ..video import prepare_clip
from .model_frames import FramesSpec
from .ready_job import (  # noqa: F401 - the model-ready clip's names, as the callers know them
    COMPACT_SUFFIX,
    FORMAT,
    READY_STORE_ENV,
    STORES,
    SUBDIR,
    ReadyJob,
    _commit,
    _root,
    _writing_cache,
    build_ready_clip,
    cached_ready_clip,
    composite_reading,
    find_or_plan,
    frames_variant,
    hook_reading,
    legacy_ready_clip,
    plan_job,
    ready_key,
    ready_sidecar,
    source_metadata,
    write_job,
)


def default_store() -> str:
    """The storage form of model-ready clips: ``$STREAMGAZE_READY_STORE`` (like the cache's location, a property
    of this machine's clip cache that changes no frame), default ``raw``."""
    store = os.environ.get(READY_STORE_ENV, "").strip() or "raw"
    if store not in STORES:
        raise StreamGazeError(f"${READY_STORE_ENV}={store!r}; expected one of {', '.join(STORES)}")
    return store


# ---- a pass: the jobs of one source video, its decode units ----------------------------------------------

@dataclass
class PassPlan:
    """Every model-ready clip to make from one source video (picklable): the jobs, the decode units of the frames
    they need (``video/one_pass.py``), and which variants of each frame the jobs want."""

    video: str
    reader: str
    jobs: list[ReadyJob]
    units: list = field(default_factory=list)  # DecodeUnit
    needs: dict[int, set[str]] = field(default_factory=dict)  # source index -> variants
    unit_of: dict[int, int] = field(default_factory=dict)  # source index -> its unit's keyframe

    def unit_jobs(self) -> dict[int, list[ReadyJob]]:
        out: dict[int, list[ReadyJob]] = {}
        for job in self.jobs:
            for k in sorted({self.unit_of[s] for s in job.distinct}):
                out.setdefault(k, []).append(job)
        return out


def plan_pass(video: str, jobs: list[ReadyJob]) -> PassPlan:
    """The :class:`PassPlan` of ``jobs`` (all of the source ``video``; one reader)."""
    from ..video import decode_units, packet_index

    readers = {j.reader for j in jobs}
    if len(readers) > 1:
        raise ValueError(f"one pass serves one reader, got {sorted(readers)}")
    st = os.stat(video)
    idx = packet_index(str(video), st.st_size, st.st_mtime_ns)
    needs: dict[int, set[str]] = {}
    for job in jobs:
        for s in job.distinct:
            needs.setdefault(s, set()).add(job.variant)
    units = decode_units(idx, sorted(needs))
    unit_of = {s: u.key for u in units for s in u.wanted}
    return PassPlan(str(video), next(iter(readers), "decord"), list(jobs), units, needs, unit_of)


def frame_name(index: int, variant: str) -> str:
    return f"{index}/{variant}"


class ConversionMismatch(VideoError):
    """The pass's RGB conversion does not give what the wrapper's reader gives for this source."""


#: (source real path, size, mtime_ns, reader) whose conversion was checked against the reader in this process
_CHECKED: set[tuple] = set()
_CHECKED_LOCK = threading.Lock()


def _check_conversion(video: str, reader: str, index: int, frame, rgb: np.ndarray, cache_dir) -> None:
    """Raise :class:`ConversionMismatch` unless ``reader`` converts the decoded ``frame`` (frame ``index`` of
    ``video``) to ``rgb``: the frame's own samples, stored losslessly with its colour description, are read back by
    the reader (``video/lossless.py``: no second decode of the source)."""
    from ..video import packet_index, reader_conversion

    st = os.stat(video)
    try:
        theirs = reader_conversion(frame, reader, _root(cache_dir) / "passes",
                                   packet_index(video, st.st_size, st.st_mtime_ns).colour)
    except (StreamGazeError, ValueError, TypeError) as exc:
        raise ConversionMismatch(f"{reader} cannot read the conversion check of frame {index} ({exc})", video) from None
    if theirs.shape != rgb.shape or not np.array_equal(theirs, rgb):
        diff = "shape" if theirs.shape != rgb.shape else f"max difference {int(np.abs(theirs.astype(int) - rgb).max())}"
        raise ConversionMismatch(f"{reader} converts frame {index} otherwise than the one-pass decoder ({diff})", video)


@dataclass
class UnitCosts:
    """Where a thread's CPU seconds went while it made frames (:func:`run_unit`) and wrote clips: ``decode_s``
    (the decoder, and opening it when ``run_unit`` opens it), ``frames_s`` (the readers' RGB conversion, its
    check, the resizes) and ``write_s`` (the frames into their clips, the clips finished: :func:`assemble`)."""

    decode_s: float = 0.0
    frames_s: float = 0.0
    write_s: float = 0.0


def _variant_frames(frame, variants: set[str], rgb_cache: list) -> dict[str, np.ndarray]:
    from ..video import reader_rgb, resize_frames

    out: dict[str, np.ndarray] = {}
    for v in sorted(variants):
        if v == "yuv":
            out[v] = frame.to_ndarray()  # (H * 3 / 2, W): the planes of a yuv420p frame
            continue
        if not rgb_cache:
            rgb_cache.append(reader_rgb(frame))
        rgb = rgb_cache[0]
        if v == "rgb":
            out[v] = rgb
        else:
            _kind, size, kernel = v.split(":")
            w, h = (int(x) for x in size.split("x"))
            out[v] = resize_frames(rgb[None], (w, h), kernel)[0]
    return out


#: decoded frames held before their conversions and resizes run (bytes of the source's samples, about 16 frames of
#: 1080p): a run of frames decoded back to back, then made, costs less than each made as it is decoded
#: (perf/unit_hold.py, our layout's 200 windows on one thread: 33.6 s of CPU against 35.0 s made one at a time)
HOLD_BYTES = 48 << 20


def frame_bytes(frame) -> int:
    """The bytes a decoded frame holds (its planes' buffers): what :data:`HOLD_BYTES` counts."""
    return max(1, sum(p.buffer_size for p in frame.planes))


def run_unit(pp: PassPlan, unit, store, decoder=None, cache_dir=None, costs: UnitCosts | None = None) -> int:
    """Decode one unit of the pass (``decoder``: an open ``UnitDecoder`` of the video, or None to open one), make
    every variant of its wanted frames the jobs need, and put them in ``store`` (``video/frame_store.py``).
    Returns the frames decoded for it. Wanted frames are made in runs of up to :data:`HOLD_BYTES` of decoded
    frames. The first unit of a pass in this process also checks the RGB conversion against the wrapper's reader
    (:class:`ConversionMismatch`), and the first unit in this process keeps freed memory for the next frame
    (``util/allocator.py``). ``costs``, when given, gets this thread's CPU seconds of the unit added to it, step
    by step."""
    keep_freed_memory()
    clock = time.thread_time
    started = clock()
    made_s = 0.0
    st = os.stat(pp.video)
    check_key = (pp.video, st.st_size, st.st_mtime_ns, pp.reader)
    with _CHECKED_LOCK:
        check = check_key not in _CHECKED and any(v != "yuv" for s in unit.wanted for v in pp.needs[s])
    own = decoder is None
    if own:
        decoder = open_decoder(pp.video)
    frames: dict[str, np.ndarray] = {}
    held: list = []

    def make() -> None:
        nonlocal check, made_s
        t = clock()
        for i, frame in held:
            rgb_cache: list = []
            made = _variant_frames(frame, pp.needs[i], rgb_cache)
            if check:
                rgb = rgb_cache[0] if rgb_cache else _variant_frames(frame, {"rgb"}, rgb_cache)["rgb"]
                _check_conversion(pp.video, pp.reader, i, frame, rgb, cache_dir)
                with _CHECKED_LOCK:
                    _CHECKED.add(check_key)
                check = False
            for v, arr in made.items():
                frames[frame_name(i, v)] = arr
        held.clear()
        made_s += clock() - t

    before = decoder.decoded
    try:
        size = None
        for i, frame in decoder.run(unit):
            held.append((i, frame))
            if size is None:
                size = frame_bytes(frame)
            if len(held) * size >= HOLD_BYTES:
                make()
        make()
        decoded = decoder.decoded - before
    finally:
        held.clear()
        if own:
            decoder.close()
    decoded_at = clock()
    with _writing_cache(store.root):
        store.put(unit.key, frames)
    if costs is not None:
        costs.decode_s += decoded_at - started - made_s
        costs.frames_s += made_s
        costs.write_s += clock() - decoded_at
    return decoded


def pass_store(pp: PassPlan, root: str | os.PathLike[str], jobs: list[ReadyJob] | None = None):
    """Where a pass's units put their frames (``video/frame_store.py``): straight into the uncompressed clips of
    ``jobs`` (default: the pass's), each frame at its place in every clip that holds it; the frames of the other
    clips (the compact form, a layout PyAV must write) wait in a frame store under the same ``root`` until their clip
    is written."""
    from ..video import ClipPlacement, RawLayout

    clips = {}
    for job in pp.jobs if jobs is None else jobs:
        if job.store != "raw" or job.variant == "yuv":
            continue
        w, h = job.plan.size if job.plan.size is not None else (job.meta.width, job.meta.height)
        layout = RawLayout(len(job.sources), int(h), int(w), job.plan.rate)
        if layout.fits:
            clips[job.key] = (tuple(frame_name(s, job.variant) for s in job.sources), layout)
    return ClipPlacement(root, clips)


def assemble(pp: PassPlan, job: ReadyJob, store) -> Path:
    """Write ``job``'s clip with its sidecar once its units are all done: finish the clip its frames were placed in,
    or write it from the frames its units put in ``store``."""
    if store.placed(job.key):
        with _writing_cache(store.root):
            part, layout = store.finish(job.key), store.layout(job.key)
        return _commit(job, (layout.n, layout.height, layout.width, 3), lambda tmp: os.replace(part, tmp))
    return write_job(job, [store.get(pp.unit_of[s], frame_name(s, job.variant)) for s in job.sources])


def preload() -> None:
    """Import and warm up what making clips needs (PyAV's scaler, torch's resize, decord), at a run's start-up
    rather than inside its first clip."""
    from ..video import (
        READERS,  # noqa: F401 - decord is imported by its first reader
        resize_frames,
    )

    frame = np.zeros((1, 32, 32, 3), np.uint8)
    for kernel in ("hf", "qwen", "pil"):
        resize_frames(frame, (16, 16), kernel)


def pass_store_dir(cache_dir: str | os.PathLike[str] | None, video: str) -> Path:
    """A fresh directory for one pass's frames (``video/frame_store.py``), under the clip cache's ``passes/``
    (``clips prune`` removes one a killed process left behind, as it removes temporary files)."""
    tag = hashlib.sha256(f"{video}:{os.getpid()}:{threading.get_ident()}:{os.urandom(8).hex()}".encode()).hexdigest()
    return _root(cache_dir) / "passes" / tag[:24]


# ---- synchronous: one window, or every window of one video ----------------------------------------------

def ready_clip(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None, spec: FramesSpec,
               cache_dir: str | os.PathLike[str] | None = None, store: str = "raw") -> Path:
    """The model-ready clip of the window ``[start, end]`` of ``video`` (with ``fps_cap``) for ``spec``, built on
    first use (module docstring); the full-rate clip when the wrapper cannot use a model-ready one."""
    return ready_clips(video, [(start, end)], fps_cap, spec, cache_dir, store)[0][0]


def ready_clips(video: str | os.PathLike[str], windows: list[tuple[float, float]], fps_cap: float | None,
                spec: FramesSpec, cache_dir: str | os.PathLike[str] | None = None,
                store: str = "raw") -> tuple[list[Path], dict]:
    """:func:`ready_clip` of each window of ``video``, all made in one pass over the source (each frame decoded at
    most once). Returns the clips (in ``windows`` order) and ``{"clips", "built", "units", "decoded"}`` (frames
    the pass decoded)."""
    if fps_cap is not None:
        return [legacy_ready_clip(video, s, e, fps_cap, spec, cache_dir, store) for s, e in windows], {
            "clips": len(windows), "built": None, "units": 0, "decoded": None}
    out: list[Path | None] = [None] * len(windows)
    jobs: dict[str, ReadyJob] = {}
    where: dict[int, str] = {}
    for i, (start, end) in enumerate(windows):
        hit, job = find_or_plan(video, start, end, spec, cache_dir, store)
        if hit is not None:
            out[i] = hit
            continue
        if job is None:
            out[i] = prepare_clip(video, start, end, None, cache_dir=cache_dir)
            continue
        jobs.setdefault(job.key, job)
        where[i] = job.key
    stats = {"clips": len(windows), "built": len(jobs), "units": 0, "decoded": 0}
    if jobs:
        made = make_pass(os.path.realpath(video), list(jobs.values()), cache_dir, stats)
        for i, key in where.items():
            out[i] = made[key]
    return out, stats


def make_pass(video: str, jobs: list[ReadyJob], cache_dir, stats: dict | None = None) -> dict[str, Path]:
    """Make ``jobs`` (all of ``video``) in one pass on this thread (:func:`run_passes`); key -> clip."""
    vp = VideoPass(video, jobs, cache_dir)
    made = run_passes([vp])
    if stats is not None and not vp.mismatch:
        stats["units"] += vp.units_run
        stats["decoded"] += vp.decoded
    return made


def open_decoder(video: str):
    """A ``video/one_pass.UnitDecoder`` of ``video``, with its packet index."""
    from ..video import UnitDecoder, packet_index

    st = os.stat(video)
    return UnitDecoder(video, packet_index(video, st.st_size, st.st_mtime_ns))


# ---- the one runner of a pass -----------------------------------------------------------------------------

@dataclass(frozen=True)
class UnitsDone:
    """What a run of a pass's units did: ``units`` run, frames ``decoded``, and ``mismatch``: the wrapper's reader
    did not confirm the pass's RGB conversion (:class:`ConversionMismatch`), so no clip of the pass is made from
    its frames."""

    units: int
    decoded: int
    mismatch: bool = False


def run_units(pp: PassPlan, units: list, store, cache_dir, decoder=None, costs: UnitCosts | None = None) -> UnitsDone:
    """Run ``units`` of the pass ``pp`` in order with one decoder (:func:`run_unit`; ``decoder``: an open one, or
    None to open one here). The one place where a :class:`ConversionMismatch` turns into the pass's fallback."""
    try:
        if decoder is not None:
            return UnitsDone(len(units), sum(run_unit(pp, u, store, decoder, cache_dir, costs) for u in units))
        with open_decoder(pp.video) as dec:
            return UnitsDone(len(units), sum(run_unit(pp, u, store, dec, cache_dir, costs) for u in units))
    except ConversionMismatch:
        return UnitsDone(len(units), 0, mismatch=True)


def _run_chunk(pp: PassPlan, units: list, root: str, cache_dir) -> UnitsDone:
    """An executor's call: ``units`` of ``pp`` into the pass's frames under ``root`` (any thread or process)."""
    return run_units(pp, units, pass_store(pp, root), cache_dir)


def _assemble_chunk(pp: PassPlan, job: ReadyJob, root: str) -> Path:
    """An executor's call: ``job``'s clip from the pass's frames under ``root``."""
    return assemble(pp, job, pass_store(pp, root, [job]))


class VideoPass:
    """One pass: every model-ready clip of ``jobs`` (all of the source ``video``, one reader) made from the decode
    units of the frames they need, each frame decoded at most once. A driver runs its units (:meth:`run_unit` one
    at a time on this thread, or :func:`run_passes` through an executor), then :meth:`finish` writes each clip:
    from the pass's frames, or, when the reader did not confirm the conversion (:attr:`mismatch`), the way of a
    frame-rate-capped window (``ready_job.legacy_ready_clip``). :meth:`close` removes its frames."""

    def __init__(self, video: str, jobs: list[ReadyJob], cache_dir=None) -> None:
        self.plan = plan_pass(video, jobs)
        self.cache_dir = None if cache_dir is None else str(cache_dir)
        self.store = pass_store(self.plan, pass_store_dir(cache_dir, video))
        self.mismatch = False
        self.units_run = 0
        self.decoded = 0
        self._decoders: dict[int, Any] = {}  # thread ident -> its open decoder (:meth:`run_unit`)
        self._lock = threading.Lock()

    @property
    def video(self) -> str:
        return self.plan.video

    def record(self, done: UnitsDone) -> UnitsDone:
        """Count a run of units (the fallback once one of them found a mismatch)."""
        with self._lock:
            if done.mismatch:
                self.mismatch = True
            else:
                self.units_run += done.units
                self.decoded += done.decoded
        return done

    def run_unit(self, unit, costs: UnitCosts | None = None) -> UnitsDone:
        """Run one decode unit on this thread, with this thread's decoder of the video (kept until :meth:`close`)."""
        me = threading.get_ident()
        with self._lock:
            dec = self._decoders.get(me)
        if dec is None:
            dec = open_decoder(self.video)
            with self._lock:
                self._decoders[me] = dec
        return self.record(run_units(self.plan, [unit], self.store, self.cache_dir, dec, costs))

    def finish(self, job: ReadyJob) -> Path:
        """``job``'s clip, once every unit it needs ran: from the pass's frames, or the frame-rate-capped way
        when the pass found a mismatch."""
        if self.mismatch:
            return legacy_ready_clip(job.video, *job.window, None, job.spec, self.cache_dir,
                                     job.store)
        return assemble(self.plan, job, self.store)

    def close(self) -> None:
        """Close the decoders and remove the pass's frames."""
        with self._lock:
            decoders, self._decoders = list(self._decoders.values()), {}
        for dec in decoders:
            dec.close()
        self.store.remove()


def run_passes(passes: list[VideoPass], executor: Executor | None = None,
               on_clip: Callable[[ReadyJob, Path], None] | None = None) -> dict[str, Path]:
    """Run ``passes`` on ``executor`` (``util/executors.py``; None: :class:`Inline`): the units of each pass
    in ``executor.workers`` runs, then every clip (``on_clip`` is told of each); key -> clip. The passes' frames
    are removed at the end."""
    executor = Inline() if executor is None else executor
    out: dict[str, Path] = {}
    try:
        with executor:
            runs = [(vp, executor.submit(_run_chunk, vp.plan, chunk, str(vp.store.root), vp.cache_dir))
                    for vp in passes for chunk in chunks(vp.plan.units, executor.workers)]
            for vp, f in runs:
                vp.record(f.result())
            writes = [(job, executor.submit(_assemble_chunk, vp.plan, job, str(vp.store.root)))
                      for vp in passes if not vp.mismatch for job in vp.plan.jobs]
            for job, f in writes:
                out[job.key] = Path(f.result())
                if on_clip is not None:
                    on_clip(job, out[job.key])
        for vp in passes:
            for job in vp.plan.jobs if vp.mismatch else ():
                out[job.key] = vp.finish(job)
                if on_clip is not None:
                    on_clip(job, out[job.key])
    finally:
        for vp in passes:
            vp.close()
    return out
