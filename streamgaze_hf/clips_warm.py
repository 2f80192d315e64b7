"""``streamgaze clips warm``: prepare every window clip (and salience image) an evaluation will ask for,
ahead of time, in the clip cache the evaluation uses (docs/performance.md). The prefetcher that does the
same in the background during an lmms-eval run is :mod:`streamgaze_hf.prefetch`.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

from tqdm import tqdm

from .benchmarks import Benchmark, get_benchmark
from .dataset.load import benchmark_of, dataset_files, nonempty_tasks, read_manifest, resolve_root
from .errors import StreamGazeError
from .evaluation import doc_clip_spec, doc_media, doc_visuals
from .settings import RunSettings
from .video.clips import cached_clip

__all__ = ["VARIANT_NAMES", "resolve_tasks", "resolve_variants", "warm_clips"]

#: ``--variants`` names: the task-name suffixes (``default`` = no suffix) and the gaze modes themselves
VARIANT_NAMES = {"default": "visual", "visual": "visual", "nogaze": "none", "none": "none",
                 "textgaze": "text", "text": "text", "salience": "salience"}


def _warm_key(doc: dict) -> tuple:
    """Documents with the same key get the same files (nogaze and textgaze share their clips)."""
    path, start, end, fps = doc_clip_spec(doc)
    sal = (doc["video_id"], start, end) if doc["gaze"] == "salience" else None
    return (str(path), start, end, fps or 0.0, str(doc.get("proxy") or ""), sal)


def _warm_one(doc: dict) -> bool:
    """Prepare one document's visuals; True if its clip had to be built (False: already cached)."""
    was_cached = cached_clip(*doc_clip_spec(doc)) is not None
    doc_visuals(doc)
    return not was_cached


def resolve_tasks(names: list[str] | None, bench: Benchmark) -> list[str]:
    """Task ids of ``bench`` from ids, lmms-eval names (``streamgaze_oi_easy``) or categories (StreamGaze:
    past, present, proactive)."""
    if not names:
        return list(bench.task_ids)
    out: list[str] = []
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            bare = name.removeprefix(f"{bench.name}_")
            match = [t.id for t in bench.tasks if bare in (t.id, t.category)]
            if not match:
                raise StreamGazeError(f"unknown task {name!r}; expected task ids "
                                      f"({', '.join(bench.task_ids)}) or {', '.join(bench.categories)}")
            out += [m for m in match if m not in out]
    return out


def resolve_variants(names: list[str] | None) -> list[str]:
    """Gaze modes from ``--variants`` names (default: the paper's main setting only)."""
    if not names:
        return ["visual"]
    out: list[str] = []
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            if name.lstrip("_") not in VARIANT_NAMES:
                raise StreamGazeError(f"unknown variant {name!r}; expected one of {', '.join(VARIANT_NAMES)}")
            mode = VARIANT_NAMES[name.lstrip("_")]
            if mode not in out:
                out.append(mode)
    return out


def warm_clips(root: str | os.PathLike[str] | None = None, tasks: list[str] | None = None,
               variants: list[str] | None = None, workers: int = 1, progress: bool = True,
               settings: RunSettings | None = None) -> dict:
    """Prepare every clip (and salience image) the given tasks and variants will ask for, in the clip
    cache the evaluation uses, with the evaluation's ``settings`` (clip fps, protocol, proxy:
    ``streamgaze_hf.settings.given``).

    Resumable: clips already in the cache are found in milliseconds and counted as ``cached``. Runs
    ``workers`` processes (1: in this process). Bad task or variant names and a missing dataset fail
    before any work. Returns counts: documents, distinct clips, built, cached, seconds.
    """
    modes = resolve_variants(variants)
    if workers < 1:
        raise StreamGazeError(f"--workers must be >= 1, got {workers}")
    root = resolve_root(root)
    bench = get_benchmark(benchmark_of(read_manifest(root)))
    if not bench.window_clips:
        raise StreamGazeError(f"{bench.title} documents are not window clips: there is nothing to warm", root)
    task_ids = resolve_tasks(tasks, bench)
    named = {t for t in (tasks or []) if t in task_ids}  # asked for by id: an empty one is an error
    task_ids = [t for t in task_ids if t in named or t in nonempty_tasks(root, tuple(task_ids))]
    docs: list[dict] = []
    for tid in task_ids:
        for mode in modes:
            docs += bench.evaluation_api().load_docs(tid, mode, root, settings=settings)
    if docs:  # fetched (a Hub dataset) and verified in one batch, with one byte progress bar
        dataset_files(docs[0]["dataset_root"], sorted({m for d in docs for m in doc_media(d)}), progress=progress)
    unique: dict[tuple, dict] = {}
    for d in docs:
        unique.setdefault(_warm_key(d), d)
    # grouped by video file, in window order: a worker reuses its packet index and decoder warm-up
    items = [unique[k] for k in sorted(unique, key=lambda k: (k[0], k[1], k[2], k[3], k[4], k[5] is not None))]
    t0 = time.perf_counter()
    built = 0
    bar = tqdm(total=len(items), desc="warm clips", unit="clip", disable=not progress, dynamic_ncols=True)
    try:
        if workers == 1:
            for d in items:
                built += _warm_one(d)
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for b in pool.map(_warm_one, items, chunksize=8):
                    built += b
                    bar.update()
    finally:
        bar.close()
    return {"tasks": task_ids, "variants": modes, "documents": len(docs), "clips": len(items), "built": built,
            "cached": len(items) - built, "seconds": round(time.perf_counter() - t0, 3)}
