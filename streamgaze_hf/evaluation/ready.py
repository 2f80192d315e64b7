"""Model-ready clips: a window's frames as a wrapper would have sampled and resized them, in a small lossless clip.

:func:`ready_clip` turns the full-rate window clip (``video/clips.py``, the frames of ``[start, end]``) into
what the run's wrapper (:class:`~.model_frames.FramesSpec`) would have made of it, so that the wrapper's
read on the model's critical path is a few small intra frames:

1. the full-rate clip is prepared (or found) in the clip cache;
2. the wrapper's reader library reports its frame count and rate (``video/readers.py``), the table
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


def build_ready_clip(full: Path, spec: FramesSpec, out: Path, key: str) -> Path | None:
    """Make ``out`` from the full-rate clip ``full`` (module docstring); None when the wrapper gets ``full``."""
    from ..video.lossless import write_rgb_clip
    from ..video.readers import ClipReader
    from ..video.resize import resize_frames

    reader = ClipReader(full, spec.reader)
    meta = reader.meta
    try:
        plan = spec.plan(meta.n_frames, meta.fps, meta.width, meta.height)
    except ValueError:
        return None
    distinct = sorted(set(plan.order))
    frames = reader.frames(distinct)
    if plan.size is not None:
        frames = resize_frames(frames, plan.size, plan.kernel)
    at = {p: i for i, p in enumerate(distinct)}
    frames = frames[[at[p] for p in plan.order]]
    side = read_sidecar(full)
    source_indices, times = side["source_indices"], side["frame_times"]
    record = {
        "mode": "ready", "spec": spec.describe(), "reader": spec.reader, "full_clip": full.stem,
        "full_frames": meta.n_frames, "full_fps": meta.fps, "full_size": [meta.width, meta.height],
        "size": [int(frames.shape[2]), int(frames.shape[1])], "rate": str(plan.rate), "n_frames": len(plan.order),
        "order": list(plan.order), "seen": list(plan.seen),
        "source_indices": [int(source_indices[p]) for p in plan.order],
        "frame_times": [float(times[p]) for p in plan.order],
    }
    try:
        with atomic_output(out) as tmp:
            write_rgb_clip(tmp, np.ascontiguousarray(frames), plan.rate)
            _check_written(tmp, spec, plan)
            head = {"format": FORMAT, "key": key, "clip_size": tmp.stat().st_size}
            write_text_atomic(out.with_name(out.name + ".json"), json.dumps({**head, **record}, separators=(",", ":")))
    except OSError as exc:
        raise StreamGazeError(f"cannot write to the clip cache ({exc.strerror or exc})", out.parent) from None
    return out


def _check_written(path: Path, spec: FramesSpec, plan) -> None:
    """The written clip as the wrapper's reader reports it must still be read as planned."""
    from ..video.readers import clip_metadata

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
