"""Model-ready clips: a window's frames as a wrapper would have sampled and resized them, in a small lossless clip.

:func:`ready_clip` turns the full-rate window clip (``video/clips.py``, the frames of ``[start, end]``) into
what the run's wrapper (:class:`~.model_frames.FramesSpec`) would have made of it, so that the wrapper's
read on the model's critical path is a few small intra frames:

1. the full-rate clip is prepared (or found) in the clip cache;
2. the wrapper's reader library reports its frame count and rate (``video/wrapper_reads.py``), the table
   (``model_frames.py``) plans the clip: which frames, what size, in what order, at what rate, and checks that
   the wrapper's sampler on the planned clip reaches exactly those frames;
3. the picked frames are decoded from the full-rate clip by that same library (so its YUV-to-RGB conversion
   and anything else it does are the wrapper's own), resized with the wrapper's kernel (``video/resize.py``),
   and written losslessly as RGB (uncompressed, ``video/lossless.py``); the written clip is read back by the reader and its
   count and rate are checked again.

The frames come from the full-rate clip itself, never from the source video, so they are bit-for-bit the
frames the wrapper would have decoded (a smart cut's re-encoded frames included), and a model-ready clip never
holds a frame the full-rate clip does not: the window rule (no frame after the window end) carries over.

Cache: ``<cache>/ready/<key[:2]>/<key>.mov`` with the sidecar ``<key>.mov.json`` (``mode`` "ready"; the spec,
the full-rate clip's key and reader metadata, the plan: full-rate positions, source frame indices and times
of every frame, size, rate). ``key`` is a sha256 over :data:`FORMAT`, the full-rate clip's key (the source's
content, the window, the frame-rate cap) and the spec's one-line description. A cache hit costs what a
full-rate clip's hit costs (a few stats and one small read). When the wrapper cannot read the window at all
(fewer frames than its sampler needs) or no plan passes the check, the full-rate clip is returned instead:
the wrapper then does what it does today.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_output, write_text_atomic
from ..video.clips import cache_entry_valid, clip_cache_dir, prepare_clip, read_sidecar, window_clip_key
from ..video.lossless import SUFFIX
from .model_frames import FramesSpec

#: the sidecar format of model-ready clips (bumped when what a key stands for changes)
FORMAT = 1
SUBDIR = "ready"


def ready_key(full_key: str, spec: FramesSpec) -> str:
    return hashlib.sha256(json.dumps([FORMAT, full_key, spec.describe()]).encode()).hexdigest()


def ready_clip(video: str | os.PathLike[str], start: float, end: float, fps_cap: float | None, spec: FramesSpec,
               cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The model-ready clip of the window ``[start, end]`` of ``video`` (with ``fps_cap``) for ``spec``, built on
    first use (module docstring); the full-rate clip when the wrapper cannot use a model-ready one."""
    path = cached_ready_clip(video, start, end, fps_cap, spec, cache_dir)
    if path is not None:
        return path
    root = Path(cache_dir) if cache_dir is not None else clip_cache_dir()
    key = ready_key(window_clip_key(video, start, end, fps_cap, cache_dir), spec)
    full = prepare_clip(video, start, end, fps_cap, cache_dir=cache_dir)
    built = build_ready_clip(full, spec, root / SUBDIR / key[:2] / f"{key}{SUFFIX}", key)
    return full if built is None else built


def cached_ready_clip(video, start, end, fps_cap, spec: FramesSpec, cache_dir=None) -> Path | None:
    """The model-ready clip if it is in the cache (builds nothing), else None."""
    root = Path(cache_dir) if cache_dir is not None else clip_cache_dir()
    key = ready_key(window_clip_key(video, start, end, fps_cap, cache_dir), spec)
    out = root / SUBDIR / key[:2] / f"{key}{SUFFIX}"
    return out if cache_entry_valid(out, key, FORMAT) else None


@dataclass
class _Job:
    """One model-ready clip to make: its full-rate clip, what the reader says of it, its plan."""

    full: Path
    out: Path
    key: str
    meta: object
    plan: object
    side: dict
    reader: object = None

    @property
    def distinct(self) -> list[int]:
        return sorted(set(self.plan.order))


def _job(full: Path, spec: FramesSpec, out: Path, key: str) -> _Job | None:
    from ..video.wrapper_reads import ClipReader

    reader = ClipReader(full, spec.reader)
    meta = reader.meta
    try:
        plan = spec.plan(meta.n_frames, meta.fps, meta.width, meta.height)
    except ValueError:
        return None
    return _Job(full, out, key, meta, plan, read_sidecar(full), reader)


def build_ready_clip(full: Path, spec: FramesSpec, out: Path, key: str) -> Path | None:
    """Make ``out`` from the full-rate clip ``full`` (module docstring); None when the wrapper gets ``full``."""
    job = _job(full, spec, out, key)
    if job is None:
        return None
    distinct = job.distinct
    return _write(job, spec, dict(zip(distinct, _resized(job.reader.frames(distinct), job.plan))))


def _resized(frames: np.ndarray, plan) -> np.ndarray:
    from ..video.resize import resize_frames

    return frames if plan.size is None else resize_frames(frames, plan.size, plan.kernel)


def _write(job: _Job, spec: FramesSpec, by_position: dict) -> Path:
    """Write ``job``'s clip from its frames (full-rate position -> resized frame) with its sidecar."""
    from ..video.lossless import write_rgb_clip

    plan, meta = job.plan, job.meta
    frames = np.stack([by_position[p] for p in plan.order])
    source_indices, times = job.side["source_indices"], job.side["frame_times"]
    record = {
        "mode": "ready", "spec": spec.describe(), "reader": spec.reader, "full_clip": job.full.stem,
        "full_frames": meta.n_frames, "full_fps": meta.fps, "full_size": [meta.width, meta.height],
        "size": [int(frames.shape[2]), int(frames.shape[1])], "rate": str(plan.rate), "n_frames": len(plan.order),
        "order": list(plan.order), "seen": list(plan.seen),
        "source_indices": [int(source_indices[p]) for p in plan.order],
        "frame_times": [float(times[p]) for p in plan.order],
    }
    out, key = job.out, job.key
    try:
        with atomic_output(out) as tmp:
            write_rgb_clip(tmp, np.ascontiguousarray(frames), plan.rate)
            _check_written(tmp, spec, plan)
            head = {"format": FORMAT, "key": key, "clip_size": tmp.stat().st_size}
            write_text_atomic(out.with_name(out.name + ".json"), json.dumps({**head, **record}, separators=(",", ":")))
    except OSError as exc:
        raise StreamGazeError(f"cannot write to the clip cache ({exc.strerror or exc})", out.parent) from None
    finally:
        # the full-rate clip's reader keeps its decoder's buffers (hundreds of MB for a 1080p clip) for as long as
        # the job lives, and a pass holds up to 32 jobs: it is released once the clip is written
        job.reader = None
    return out


def _check_written(path: Path, spec: FramesSpec, plan) -> None:
    """The written clip as the wrapper's reader reports it must still be read as planned."""
    from ..video.wrapper_reads import clip_metadata

    meta = clip_metadata(path, spec.reader)
    if meta.n_frames != len(plan.order):
        raise StreamGazeError(f"model-ready clip: {spec.reader} reads {meta.n_frames} frames, {len(plan.order)} "
                              "were written", path)
    try:
        spec.check_read(plan, meta.n_frames, meta.fps)
    except ValueError as exc:
        raise StreamGazeError(f"model-ready clip: {exc}", path) from None


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


# ---- several windows of one video: one pass ---------------------------------------------------------

#: frames decoded from the source per read in a shared pass (bounds the decoded frames held at once)
PASS_CHUNK = 16
#: the resized frames a shared pass holds before it writes its clips (windows are taken in batches under it)
PASS_BUDGET = 1 << 30


def ready_clips(video: str | os.PathLike[str], windows: list[tuple[float, float]], fps_cap: float | None,
                spec: FramesSpec, cache_dir: str | os.PathLike[str] | None = None) -> tuple[list[Path], dict]:
    """:func:`ready_clip` of each window of ``video`` (``clips warm``), sharing one decoding pass over the video
    where that decodes fewer frames than a read of each full-rate clip.

    Past windows ``[0, t]`` and proactive checkpoints ``[0, r]`` of one video pick frames all over the same
    stretch of it; every frame a full-rate clip holds as a packet copy of the video (the whole clip in copy mode,
    the copied GOPs of a smart cut) decodes to the same pixels from the video itself. Those frames are decoded
    from the video once, in order, each GOP at most once per batch of windows, and handed to every window that
    picks them; the re-encoded frames of smart cuts are read from each clip, as one clip at a time would.
    Returns the clips (in ``windows`` order) and what the pass did: ``{"clips", "built", "shared",
    "decoded_estimate", "separate_estimate"}`` (decoded frames, estimated from the video's keyframes)."""
    root = Path(cache_dir) if cache_dir is not None else clip_cache_dir()
    out: list[Path | None] = [None] * len(windows)
    jobs: list[tuple[int, _Job]] = []
    for i, (start, end) in enumerate(windows):
        hit = cached_ready_clip(video, start, end, fps_cap, spec, cache_dir)
        if hit is not None:
            out[i] = hit
            continue
        key = ready_key(window_clip_key(video, start, end, fps_cap, cache_dir), spec)
        full = prepare_clip(video, start, end, fps_cap, cache_dir=cache_dir)
        job = _job(full, spec, root / SUBDIR / key[:2] / f"{key}{SUFFIX}", key)
        if job is None:
            out[i] = full
        else:
            jobs.append((i, job))
    stats = {"clips": len(windows), "built": len(jobs), "shared": False, "decoded_estimate": 0,
             "separate_estimate": 0}
    if not jobs:
        return out, stats
    keyframes = _keyframes(video)
    separate = sum(_decoded(sorted(job.side["source_indices"][p] for p in job.distinct), keyframes)
                   for _, job in jobs)
    wanted: dict[int, list[tuple[_Job, int]]] = {}
    for _, job in jobs:
        for p in job.distinct:
            if _copied(job.side, p):
                wanted.setdefault(int(job.side["source_indices"][p]), []).append((job, p))
    shared = _decoded(sorted(wanted), keyframes) + sum(
        _decoded(sorted(job.side["source_indices"][p] for p in job.distinct if not _copied(job.side, p)), keyframes)
        for _, job in jobs)
    stats.update(separate_estimate=separate, decoded_estimate=min(shared, separate))
    if len(jobs) < 2 or shared >= separate:
        for i, job in jobs:
            distinct = job.distinct
            out[i] = _write(job, spec, dict(zip(distinct, _resized(job.reader.frames(distinct), job.plan))))
        return out, stats
    stats["shared"] = True
    for batch in _batches([job for _, job in jobs]):
        _shared_pass(video, batch, wanted, spec)
    for i, job in jobs:
        out[i] = job.out
    return out, stats


def _copied(side: dict, position: int) -> bool:
    """Whether the full-rate clip's frame at ``position`` is a packet copy of the source frame."""
    if side["mode"] == "encode":
        return False
    segments = side.get("segments")
    if not segments:
        return side["mode"] == "copy"
    a, b = segments["copied"]
    return a <= int(side["source_indices"][position]) < b


def _keyframes(video) -> np.ndarray:
    from ..video.packets import packet_index

    st = os.stat(video)
    return np.flatnonzero(packet_index(str(video), st.st_size, st.st_mtime_ns).keyframe)


def _decoded(picks: list[int], keyframes: np.ndarray) -> int:
    """About how many frames a reader decodes for ``picks`` (ascending source indices): from the keyframe before
    a pick, or on from the previous pick when no keyframe lies between."""
    total, current = 0, -1
    for p in picks:
        k = int(keyframes[max(0, np.searchsorted(keyframes, p, side="right") - 1)]) if len(keyframes) else 0
        total += p - current if k <= current < p else (0 if current == p else p - k + 1)
        current = p
    return total


def _batches(jobs: list[_Job]) -> list[list[_Job]]:
    """Windows in order of their end, in batches whose frames fit :data:`PASS_BUDGET`."""
    batches: list[list[_Job]] = [[]]
    held = 0
    for job in sorted(jobs, key=lambda j: max(j.side["source_indices"])):
        w, h = job.plan.size or (job.meta.width, job.meta.height)
        need = len(job.distinct) * w * h * 3
        if batches[-1] and held + need > PASS_BUDGET:
            batches.append([])
            held = 0
        batches[-1].append(job)
        held += need
    return batches


def _shared_pass(video, batch: list[_Job], wanted: dict, spec: FramesSpec) -> None:
    from ..video.wrapper_reads import ClipReader

    members = {id(job) for job in batch}
    frames: dict[int, dict[int, np.ndarray]] = {id(job): {} for job in batch}
    needed = sorted(s for s, users in wanted.items() if any(id(j) in members for j, _ in users))
    reader = ClipReader(video, spec.reader)
    for at in range(0, len(needed), PASS_CHUNK):
        chunk = needed[at:at + PASS_CHUNK]
        for s, frame in zip(chunk, reader.frames(chunk)):
            resized: dict = {}
            for job, p in wanted[s]:
                if id(job) not in members:
                    continue
                size = job.plan.size
                if size not in resized:
                    resized[size] = _resized(frame[None], job.plan)[0]
                frames[id(job)][p] = resized[size]
    for job in batch:
        own = [p for p in job.distinct if p not in frames[id(job)]]  # re-encoded frames: from the clip itself
        if own:
            frames[id(job)].update(zip(own, _resized(job.reader.frames(own), job.plan)))
        _write(job, spec, frames.pop(id(job)))
