"""Clips ready ahead of a run (:func:`warm_clips`, ``streamgaze clips warm``): every window clip (and salience
image) an evaluation will ask for, prepared in the clip cache the evaluation uses (docs/performance.md), resumable,
on the command's workers (util/executors.py: processes or a Ray cluster's tasks; clips go to the cache every worker
sees, only keys and paths come back); the model-ready clips of one video's windows (its past windows and proactive checkpoints) in one
pass over that video (``ready.run_passes`` on those workers, every frame decoded at most once).
"""

from __future__ import annotations

import os
import time

from tqdm import tqdm

from ..registry import Benchmark
from ..util.errors import StreamGazeError
from ..util.executors import SMALL_VIDEO, Workers, as_workers, map_ordered
from .settings import RunSettings, given
from .visuals import ClipRequest, cached_window_clip, clip_request, doc_media, doc_visuals


#: ``--variants`` names: the task-name suffixes (``default`` = no suffix) and the gaze modes themselves
def variant_names(bench: Benchmark) -> dict[str, str]:
    """``--variants`` names of a benchmark -> gaze mode: ``default`` (its plain task), each task-name suffix
    without its underscore (StreamGaze: ``nogaze``, ``textgaze``, ``salience``) and each gaze mode itself."""
    names = {"default": bench.plain_gaze}
    for suffix, mode in bench.gaze_variants.items():
        if suffix:
            names[suffix.lstrip("_")] = mode
        names.setdefault(mode, mode)
    return names


def _warm_one(doc: dict, cache_dir: str | None) -> bool:
    """Prepare one document's visuals; True if its clip had to be built (False: already cached)."""
    was_cached = cached_window_clip(doc, cache_dir) is not None
    doc_visuals(doc, cache_dir)
    return not was_cached


def _warm_model_ready(items: list[tuple[dict, ClipRequest]], workers: Workers, cache: str | None, store: str,
                      bar) -> tuple[int, dict]:
    """Make the model-ready clips of ``items`` (documents whose clips the run's passes would make: one pass per
    source video, every frame decoded at most once, the units of a pass spread over ``workers``:
    ``ready.run_passes``); returns (clips built, what the passes did)."""
    from .ready import VideoPass, find_or_plan, run_passes

    jobs: dict[str, dict] = {}  # video -> {ready key: job}
    full_rate: list[dict] = []
    done = 0
    for d, req in items:
        video, start, end, spec = req.window
        hit, job = find_or_plan(video, start, end, spec, cache, store)
        if hit is not None:
            done += 1
            continue
        if job is None:
            full_rate.append(d)
        else:
            jobs.setdefault(job.video, {}).setdefault(job.key, job)
    stats = {"passes": len(jobs), "units": 0, "decoded": 0, "clips": sum(len(v) for v in jobs.values())}
    bar.update(done)
    passes = []
    try:
        for video, js in jobs.items():
            passes.append(VideoPass(video, list(js.values()), cache))
    except BaseException:
        for vp in passes:
            vp.close()
        raise
    made: list[str] = []

    def on_clip(job, _path) -> None:
        made.append(job.key)
        bar.update(1)

    run_passes(passes, workers.open(SMALL_VIDEO), on_clip)
    built = len(made)
    stats["units"] = sum(vp.units_run for vp in passes)
    stats["decoded"] = sum(vp.decoded for vp in passes)
    for d in full_rate:
        built += int(_warm_one(d, cache))
        bar.update(1)
    # several documents may share one clip: the bar counts documents
    bar.update(max(0, len(items) - bar.n))
    return built, stats


def resolve_tasks(names: list[str] | None, bench: Benchmark) -> list[str]:
    """Task ids of ``bench`` from ids, categories (StreamGaze: past, present, proactive) or lmms-eval task and
    group names (``streamgaze_oi_easy``, ``streamgaze_past``: the registry's task index)."""
    from ..registry import task_index

    if not names:
        return list(bench.task_ids)
    index = task_index()
    out: list[str] = []
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            match = [t.id for t in bench.tasks if name in (t.id, t.category)]
            if not match and index.benchmark_name(name) == bench.name:
                match = list(dict.fromkeys(index.lmms_task(leaf).task_id for leaf in index.leaves(name)))
            if not match:
                raise StreamGazeError(f"unknown task {name!r}; expected task ids "
                                      f"({', '.join(bench.task_ids)}) or {', '.join(bench.categories)}")
            out += [m for m in match if m not in out]
    return out


def resolve_variants(names: list[str] | None, bench: Benchmark) -> list[str]:
    """Gaze modes of ``bench`` from ``--variants`` names (:func:`variant_names`; default: its plain task's)."""
    known = variant_names(bench)
    if not names:
        return [known["default"]]
    out: list[str] = []
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            if name.lstrip("_") not in known:
                raise StreamGazeError(f"unknown variant {name!r}; expected one of {', '.join(known)}")
            mode = known[name.lstrip("_")]
            if mode not in out:
                out.append(mode)
    return out


def warm_clips(root=None, tasks: list[str] | None = None, variants: list[str] | None = None,
               workers: int | Workers = 1,
               progress: bool = True, settings: RunSettings | None = None,
               cache_dir: str | os.PathLike[str] | None = None, store: str | None = None) -> dict:
    """Prepare every clip (and salience image) the given tasks and variants will ask for, in the clip
    cache the evaluation uses, with the evaluation's ``settings`` (clip fps, protocol, proxy:
    ``streamgaze_hf.evaluation.settings.given``).

    Resumable: clips already in the cache are found in milliseconds and counted as ``cached``. Runs
    ``workers`` processes (1: in this process) or on a Ray cluster (a :class:`~streamgaze_hf.util.executors.Workers`). Bad task or variant names and a missing dataset fail
    before any work.

    Args:
        root: the dataset: open (``dataset.load.DatasetHandle``), or a directory or Hub reference, opened once
            here (None: the default benchmark's root). Its manifest says which benchmark it is.
        tasks: task ids, lmms-eval task names or categories, each entry may be comma-separated (None: every
            task; a task with no questions is skipped unless named by its id).
        variants: gaze variant names (:func:`variant_names`; None: the plain task's gaze mode).
        workers: processes that build clips (at least 1), or a :class:`~streamgaze_hf.util.executors.Workers`.
        progress: show progress bars (the downloads, the clips).
        settings: the run settings the clips are made with (None: ``settings.given``).
        cache_dir: the clip cache (None: ``video.clips.clip_cache_dir``'s default).
        store: the storage form of model-ready clips (``ready.STORES``; None: ``ready.default_store``).

    Returns:
        ``tasks`` and ``variants`` (what was warmed), counts ``documents``, ``clips`` (distinct), ``built``,
        ``cached``, ``seconds``, and for model-ready clips ``passes`` (passes, decode units and frames decoded:
        one pass per source video, each frame decoded at most once).

    Raises:
        StreamGazeError: an unknown task or variant name, ``workers`` below 1, no dataset at ``root``, a
            benchmark whose documents are not window clips, or a dataset file that is missing or does not
            match the manifest.
        VideoError: (a StreamGazeError) a source video cannot be cut into a clip.
    """
    workers = as_workers(workers)
    workers.check()
    from ..dataset import open_dataset

    data = open_dataset(root)
    bench = data.benchmark
    if not bench.window_clips:
        raise StreamGazeError(f"{bench.title} documents are not window clips: there is nothing to warm", data.path)
    modes = resolve_variants(variants, bench)
    task_ids = resolve_tasks(tasks, bench)
    named = {t for t in (tasks or []) if t in task_ids}  # asked for by id: an empty one is an error
    present = data.nonempty_tasks(tuple(task_ids))
    task_ids = [t for t in task_ids if t in named or t in present]
    docs: list[dict] = []
    for tid in task_ids:
        for mode in modes:
            docs += bench.plugin().load_docs(tid, mode, data, settings=settings)
    if docs:  # fetched (a Hub dataset) and verified in one batch, with one byte progress bar
        data.files(sorted({m for d in docs for m in doc_media(d)}), progress=progress)
    cache = None if cache_dir is None else str(cache_dir)
    if cache is None and workers.on_cluster:  # the workers' default is their own: name this one
        from ..video import clip_cache_dir

        cache = str(clip_cache_dir(None))
    unique: dict[tuple, tuple[dict, ClipRequest]] = {}
    for d in docs if given(settings).reads_video else ():  # a model that reads no video: nothing to cut
        req = clip_request(d)  # once per document
        unique.setdefault(req.key, (d, req))
    # grouped by video file (a proxy's is its own), in window order: a worker reuses its packet index and decoder
    # warm-up
    items = [unique[k] for k in sorted(unique, key=lambda k: (k[0], k[1], k[2], k[3], k[5] is not None))]
    passes = [(d, req) for d, req in items if req.window is not None]
    rest = [d for d, req in items if req.window is None]
    from .ready import default_store

    store = default_store() if store is None else store
    t0 = time.perf_counter()
    built = 0
    pass_stats: dict = {}
    bar = tqdm(total=len(items), desc="warm clips", unit="clip", disable=not progress, dynamic_ncols=True)
    try:
        if passes:
            b, pass_stats = _warm_model_ready(passes, workers, cache, store, bar)
            built += b
        for d, req in passes:
            if req.salience is not None:  # its salience image (the clip is in the cache now)
                from ..video import clip_cache_dir
                from .visuals import salience_image

                salience_image(d, clip_cache_dir(cache))
        if rest:
            built += sum(map_ordered(workers.open(SMALL_VIDEO, len(rest)), _warm_one, [(d, cache) for d in rest], bar))
    finally:
        bar.close()
    return {"tasks": task_ids, "variants": modes, "documents": len(docs), "clips": len(items), "built": built,
            "cached": max(0, len(items) - built), "seconds": round(time.perf_counter() - t0, 3), **(
                {"passes": pass_stats} if pass_stats else {})}
