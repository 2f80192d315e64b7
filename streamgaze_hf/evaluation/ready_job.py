"""A model-ready clip: its cache key, its job (the window planned from the source, ``ReadyJob``), how it is
written and read back, and the frame-rate-capped way of making one (``ready.py`` makes the jobs of one video in one
pass).

A window with a frame-rate cap (``--clip-fps``, the ``paper_*`` protocols, proxies) keeps issue 36's path: its
full-rate clip is cut (``video/clips.py``) and the model-ready clip made from that clip's frames
(:func:`build_ready_clip`). When the wrapper cannot read the window at all (fewer frames than its sampler needs) or
no plan passes the check, the full-rate clip is returned instead: the wrapper then does what it does with it.

Cache: ``<cache>/ready/<key[:2]>/<key>.mov`` (``.mp4`` in the compact form) with the sidecar ``<key>.<ext>.json``
(``mode`` "ready"; the spec, the source and window, the reader's metadata of the window (``full_frames``,
``full_fps``, ``full_size``), the plan: window positions (``order``, ``seen``), source frame indices and times of
every frame, size, rate). ``key`` is a sha256 over :data:`FORMAT`, the window clip's key (the source's content,
the window, the frame-rate cap), the spec's one-line description and the storage form. A cache hit costs a few
stats and one small read.

Storage forms (``$STREAMGAZE_READY_STORE``, :func:`default_store`; ``clips warm --store``): ``raw`` (default),
uncompressed RGB in a ``.mov``: every reader returns the stored values and reads them fastest; ``compact``, lossless H.264 (RGB frames: ``libx264rgb`` at
``qp=0``; frames at the source size: the source's own 4:2:0 samples at ``qp=0`` with its colour description, which
readers convert exactly as they convert the source), several times smaller and slower to read
(docs/performance.md: the store).
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_output, write_text_atomic
from ..video import (
    SUFFIX,
    ClipMetadata,
    LocatedWindow,
    cache_entry_valid,
    clip_cache_dir,
    prepare_clip,
    read_sidecar,
    select_frames,
    window_clip_key,
)
from .model_frames import FramePlan, FramesSpec, frames_spec, is_composite

#: the sidecar format of model-ready clips (bumped when what a key stands for changes)
#: 2: the frames are the source's (issue 42), not the full-rate clip's (a smart cut's re-encoded head and tail)
FORMAT = 2
SUBDIR = "ready"
#: the storage forms of a model-ready clip
STORES = ("raw", "compact")
COMPACT_SUFFIX = ".mp4"
#: the storage form of model-ready clips in the clip cache (:data:`STORES`)
READY_STORE_ENV = "STREAMGAZE_READY_STORE"

def ready_key(full_key: str, spec: FramesSpec, store: str = "raw") -> str:
    return hashlib.sha256(json.dumps([FORMAT, full_key, spec.describe(), store]).encode()).hexdigest()


def _out_path(root: Path, key: str, store: str) -> Path:
    return root / SUBDIR / key[:2] / f"{key}{SUFFIX if store == 'raw' else COMPACT_SUFFIX}"


def _root(cache_dir) -> Path:
    return Path(cache_dir) if cache_dir is not None else clip_cache_dir()


# ---- a window, planned from its source -------------------------------------------------------------------

@lru_cache(maxsize=64)
def _reader_fps(path: str, _size: int, _mtime_ns: int, reader: str) -> float:
    from ..video import clip_metadata

    return float(clip_metadata(path, reader).fps)


def source_metadata(video: str | os.PathLike[str], reader: str, n_frames: int) -> ClipMetadata:
    """What the wrapper's reader would report of a frame-exact cut of ``n_frames`` frames of ``video``: that count,
    the rate the reader reports for the source itself (a cut that keeps the source's frame times reports the same
    rate: the equality tests compare with such cuts), the source's size."""
    from ..video import packet_index

    st = os.stat(video)
    idx = packet_index(str(video), st.st_size, st.st_mtime_ns)
    fps = _reader_fps(os.path.realpath(video), st.st_size, st.st_mtime_ns, reader)
    return ClipMetadata(int(n_frames), fps, int(idx.width), int(idx.height))


@dataclass(frozen=True)
class ReadyJob:
    """One model-ready clip to make from its source (picklable: ``clips warm`` sends it to worker processes)."""

    key: str
    out: Path
    video: str
    window: tuple[float, float]
    spec: FramesSpec  # the wrapper's frame spec (parsed)
    reader: str
    store: str
    meta: ClipMetadata  # what the reader reports of a frame-exact cut of the window
    plan: FramePlan
    #: source frame index of each frame of the clip (``plan.order``), and its time
    sources: tuple[int, ...]
    times: tuple[float, ...]
    #: how its frames are kept while a pass runs: "rgb" (source size), "rgb:<w>x<h>:<kernel>", or "yuv" (the
    #: source's own samples, for the compact form at the source size)
    variant: str
    source_sha256: str = ""

    @property
    def distinct(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.sources)))


def _locate_source(video, start: float, end: float, cache_dir, store: str) -> LocatedWindow:
    """The window as :func:`video.clips.locate_window` finds it (its source, stat, digest, the window clip's key),
    for a known ``store``."""
    from ..video import locate_window

    if store not in STORES:
        raise StreamGazeError(f"model-ready store {store!r}; expected one of {', '.join(STORES)}")
    return locate_window(video, start, end, None, cache_dir)


def plan_job(video: str | os.PathLike[str], start: float, end: float, spec: FramesSpec,
             cache_dir: str | os.PathLike[str] | None = None, store: str = "raw") -> ReadyJob | None:
    """The model-ready clip of the window ``[start, end]`` of ``video`` for ``spec``, planned from the source (no
    clip is cut), or None when the wrapper gets the full-rate clip (it cannot read the window, or no plan passes
    the check)."""
    return _plan_located(_locate_source(video, start, end, cache_dir, store), start, end, spec, cache_dir, store)


def find_or_plan(video: str | os.PathLike[str], start: float, end: float, spec: FramesSpec,
                 cache_dir: str | os.PathLike[str] | None = None,
                 store: str = "raw") -> tuple[Path | None, ReadyJob | None]:
    """A window's model-ready clip from the cache, else its plan, the window located once: (the cached clip, None),
    or (None, what :func:`plan_job` plans: None when the wrapper gets the full-rate clip)."""
    located = _locate_source(video, start, end, cache_dir, store)
    key = ready_key(located.key, spec, store)
    out = _out_path(_root(cache_dir), key, store)
    if cache_entry_valid(out, key, FORMAT):
        return out, None
    return None, _plan_located(located, start, end, spec, cache_dir, store)


def _plan_located(located: LocatedWindow, start: float, end: float, spec: FramesSpec, cache_dir,
                  store: str) -> ReadyJob | None:
    from ..video import packet_index

    src, st, digest, full_key = located.source, located.stat, located.digest, located.key
    idx = packet_index(str(src), st.st_size, st.st_mtime_ns)
    window = select_frames(idx.frame_times, float(start), float(end))
    meta = source_metadata(src, spec.reader, len(window))
    try:
        plan = spec.plan(meta.n_frames, meta.fps, meta.width, meta.height)
    except ValueError:
        return None
    key = ready_key(full_key, spec, store)
    sources = tuple(int(window[p]) for p in plan.order)
    times = tuple(float(idx.frame_times[s]) for s in sources)
    return ReadyJob(key, _out_path(_root(cache_dir), key, store), os.path.realpath(src), (float(start), float(end)),
                    spec, spec.reader, store, meta, plan, sources, times,
                    frames_variant(plan, store == "compact" and idx.pix_fmt == "yuv420p"), digest)


def frames_variant(plan: FramePlan, source_samples: bool = False) -> str:
    """How a job's frames are kept while they are made (``ReadyJob.variant``): resized with the plan's kernel, else
    the source's own samples where the clip stores them (``source_samples``: the compact form of a yuv420p source),
    else RGB at the source size."""
    if plan.size is not None:
        return f"rgb:{plan.size[0]}x{plan.size[1]}:{plan.kernel}"
    return "yuv" if source_samples else "rgb"


def cached_ready_clip(video, start, end, fps_cap, spec: FramesSpec, cache_dir=None, store: str = "raw") -> Path | None:
    """The model-ready clip if it is in the cache (builds nothing), else None."""
    key = ready_key(window_clip_key(video, start, end, fps_cap, cache_dir), spec, store)
    out = _out_path(_root(cache_dir), key, store)
    return out if cache_entry_valid(out, key, FORMAT) else None


@contextmanager
def _writing_cache(where: str | os.PathLike[str]):
    """A failed write of the clip cache (a full disk, no permission) as the toolkit's error, naming where."""
    try:
        yield
    except OSError as exc:
        raise StreamGazeError(f"cannot write to the clip cache ({exc.strerror or exc})", where) from None


def write_job(job: ReadyJob, frames: list[np.ndarray]) -> Path:
    """Write ``job``'s clip (``frames`` in the clip's order, each in ``job.variant``) and its sidecar; the written
    clip is read back by the wrapper's reader and checked against the plan."""
    from ..video import packet_index, write_lossless_clip, write_rgb_clip

    st = os.stat(job.video)
    colour = packet_index(job.video, st.st_size, st.st_mtime_ns).colour

    def write(tmp: Path) -> None:
        if job.store == "raw":
            write_rgb_clip(tmp, frames, job.plan.rate)
        else:
            write_lossless_clip(tmp, np.stack(frames), job.plan.rate, "yuv420p" if job.variant == "yuv" else "rgb24",
                                colour=colour if job.variant == "yuv" else None)

    return _commit(job, (len(frames), *np.shape(frames[0])), write, colour if job.variant == "yuv" else None)


def _commit(job: ReadyJob, shape: tuple[int, ...], write, colour=None) -> Path:
    """Write ``job``'s clip into the cache (``write(tmp)`` puts it at a temporary path), read it back with the
    wrapper's reader and check it against the plan, write its sidecar, then move it into place. ``shape``: the
    clip's frames (N, H, W, 3), or (N, H * 3 / 2, W) for the source's own samples (``colour``: their description)."""
    plan = job.plan
    if job.variant == "yuv":
        size = [job.meta.width, job.meta.height]
    else:
        size = [int(shape[2]), int(shape[1])]
    record = {
        "mode": "ready", "spec": job.spec.describe(), "reader": job.reader, "store": job.store, "source": job.video,
        "source_sha256": job.source_sha256, "window": list(job.window),
        "full_frames": job.meta.n_frames, "full_fps": job.meta.fps, "full_size": [job.meta.width, job.meta.height],
        "size": size, "kernel": plan.kernel, "rate": str(plan.rate), "n_frames": len(plan.order),
        "order": list(plan.order), "seen": list(plan.seen), "timing": plan.timing,
        "source_indices": list(job.sources), "frame_times": list(job.times),
    }
    out, key = job.out, job.key
    spec = job.spec
    with _writing_cache(out.parent), atomic_output(out) as tmp:
        write(tmp)
        _check_written(tmp, spec, plan, (job.reader, job.store, job.variant, tuple(shape), str(plan.rate),
                                         tuple(plan.order), plan.seen, spec.describe(), colour))
        head = {"format": FORMAT, "key": key, "clip_size": tmp.stat().st_size}
        write_text_atomic(out.with_name(out.name + ".json"), json.dumps({**head, **record}, separators=(",", ":")))
    return out


#: (reader, store, frames, size, rate, the spec) -> the size of a written clip its reader was checked to read as
#: planned: a clip of the same layout and byte size is the same container (the frames aside), already checked
_CHECKED_LAYOUTS: dict[tuple, int] = {}


def _check_written(path: Path, spec: FramesSpec, plan, layout: tuple | None = None) -> None:
    """The written clip as the wrapper's reader reports it must still be read as planned (once per ``layout`` and
    byte size in this process: the writer is deterministic)."""
    from ..video import clip_metadata

    size = path.stat().st_size
    if layout is not None and _CHECKED_LAYOUTS.get(layout) == size:
        return
    meta = clip_metadata(path, spec.reader)
    if meta.n_frames != len(plan.order):
        raise StreamGazeError(f"model-ready clip: {spec.reader} reads {meta.n_frames} frames, {len(plan.order)} "
                              "were written", path)
    try:
        spec.check_read(plan, meta.n_frames, meta.fps)
    except ValueError as exc:
        raise StreamGazeError(f"model-ready clip: {exc}", path) from None
    if layout is not None:
        _CHECKED_LAYOUTS[layout] = size


def ready_sidecar(path: str | os.PathLike[str]) -> dict:
    """The sidecar of a model-ready clip."""
    side = Path(str(path) + ".json")
    try:
        meta = json.loads(side.read_bytes())
    except (OSError, ValueError) as exc:
        raise StreamGazeError(f"unreadable model-ready clip sidecar ({exc})", side) from None
    if meta.get("mode") != "ready":
        raise StreamGazeError("not a model-ready clip sidecar", side)
    return meta


@lru_cache(maxsize=4096)
def _clip_record(path: str, _size: int, _mtime_ns: int) -> tuple[dict, FramesSpec] | None:
    try:
        side = ready_sidecar(path)
        return side, frames_spec(side["spec"])
    except StreamGazeError:
        return None


def _record_of(path: str | os.PathLike[str]) -> tuple[dict, FramesSpec] | None:
    """A model-ready clip's sidecar and spec as the readers' fixes see them (read once per file version), or None
    for any other file: what :func:`hook_reading` and :func:`composite_reading` ask of a path."""
    path = str(path)
    if not path.endswith((SUFFIX, COMPACT_SUFFIX)) or not os.path.isfile(path + ".json"):
        return None
    st = os.stat(path)
    return _clip_record(os.path.realpath(path), st.st_size, st.st_mtime_ns)


def hook_reading(path: str | os.PathLike[str]) -> tuple[int, float, tuple[int, ...]] | None:
    """For a model-ready clip of a wrapper that reads through qwen_vl_utils' ``fetch_video`` (``Wrapper.hook``):
    (the window's frame count, its rate, the window positions of the clip's frames) as the wrapper's reader reports
    them for the full-rate window, what the lmms-eval glue's reader fix hands the wrapper back with the clip's
    frames (``lmms_tasks/wrappers.py``); None for any other file."""
    record = _record_of(path)
    if record is None:
        return None
    side, spec = record
    if not spec.row.hook or list(side["order"]) != list(side["seen"]):
        return None
    return int(side["full_frames"]), float(side["full_fps"]), tuple(int(i) for i in side["seen"])


def composite_reading(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """For a model-ready clip of InternVL composite frames (several tiles and a thumbnail in each frame,
    ``video/resize.py``): the wrapper arguments it was made for, which the lmms-eval glue's fix of ``load_video``
    checks before it cuts the frames into tiles (``lmms_tasks/wrappers.py``); None for any other file."""
    record = _record_of(path)
    if record is None:
        return None
    side, spec = record
    if not is_composite(side.get("kernel", ""), tuple(int(x) for x in side["size"])):
        return None
    return spec.args


# ---- frame-rate-capped windows: from the full-rate clip (issue 36) ----------------------------------------

def legacy_ready_clip(video, start, end, fps_cap, spec: FramesSpec, cache_dir=None, store: str = "raw") -> Path:
    """The model-ready clip made from the window's full-rate clip (cut first): the path of a frame-rate-capped
    window, and of a source whose RGB conversion the reader did not confirm."""
    hit = cached_ready_clip(video, start, end, fps_cap, spec, cache_dir, store)
    if hit is not None:
        return hit
    key = ready_key(window_clip_key(video, start, end, fps_cap, cache_dir), spec, store)
    full = prepare_clip(video, start, end, fps_cap, cache_dir=cache_dir)
    built = build_ready_clip(full, spec, _out_path(_root(cache_dir), key, store), key, store)
    return full if built is None else built


def build_ready_clip(full: Path, spec: FramesSpec, out: Path, key: str, store: str = "raw") -> Path | None:
    """Make ``out`` from the full-rate clip ``full``; None when the wrapper gets ``full``."""
    from ..video import ClipReader

    reader = ClipReader(full, spec.reader)
    meta = reader.meta
    try:
        plan = spec.plan(meta.n_frames, meta.fps, meta.width, meta.height)
    except ValueError:
        return None
    side = read_sidecar(full)
    distinct = sorted(set(plan.order))
    frames = reader.frames(distinct)
    if plan.size is not None:
        from ..video import resize_frames

        frames = resize_frames(frames, plan.size, plan.kernel)
    by_position = dict(zip(distinct, frames))
    sources = tuple(int(side["source_indices"][p]) for p in plan.order)
    job = ReadyJob(key, out, str(side["source"]), tuple(side["window"]), spec, spec.reader, store,
                   meta, plan, sources,
                   tuple(float(side["frame_times"][p]) for p in plan.order),
                   frames_variant(plan),
                   str(side.get("source_sha256", "")))
    return write_job(job, [by_position[p] for p in plan.order])
