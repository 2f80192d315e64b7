"""Clips ready before the model asks, started two ways: in the background during a run, and ahead of it.

**In the background** (:func:`start_prefetch`, :func:`prefetched_visuals`): while the model works on one
document, the clips of the next documents are prepared, so that the critical path finds them in the clip
cache. Harness-agnostic: the lmms-eval glue calls :func:`start_prefetch` when it loads a task's documents
and :func:`prefetched_visuals` as its ``doc_to_visual``.

* :class:`Prefetcher` runs a function over items in order on a bounded number of daemon worker threads.
  ``get(key, item)`` returns the result: at once if a worker has finished it (a *hit*), after waiting
  if a worker is on it (a *wait*), or by running it on the calling thread if no worker has started it
  (a *miss*: the caller never waits behind the queue). A worker's error is not raised from the
  background: ``get`` runs the item again on the calling thread, so the error surfaces where it
  belongs, with its own message. ``ahead`` bounds how many items may be started beyond those asked for.
* The clip cache is the same content-addressed cache as without prefetching (video/clips.py), so the
  prefetched files are exactly what :func:`~streamgaze_hf.evaluation.visuals.doc_visuals` would build, and
  several processes (ranks) may prefetch the same clips at once.
* Model-ready clips (``ready.py``): a worker that takes a document also takes the next documents of the same
  video and wrapper nobody has taken yet (up to :data:`PASS_GROUP`) and makes their clips in one pass over the
  video where that decodes fewer frames (``ready.ready_clips``); the caller's thread, on a miss, makes only
  its own document.

Settings (``RunSettings.prefetch``, ``prefetch_ahead``: streamgaze_hf/evaluation/settings.py): ``STREAMGAZE_PREFETCH`` =
threads (default one less than the usable cores, 1 or 2: ``settings.default_prefetch``; 0 turns prefetching off),
``STREAMGAZE_PREFETCH_AHEAD`` = at most this many documents prepared beyond those already asked for (default 0 = no
bound: the whole evaluation is warmed in order, which also serves harnesses that visit documents in another order
than the dataset's).
In a distributed run (``RANK`` / ``WORLD_SIZE`` set, as ``accelerate launch`` does) a process first
prefetches its own shard (documents ``rank::world_size``, lmms-eval's split) and nothing else.
At interpreter exit the workers stop taking new items and finish the one they are on (up to 60 s).

**Ahead of a run** (:func:`warm_clips`, ``streamgaze clips warm``): every window clip (and salience image)
an evaluation will ask for, prepared in the clip cache the evaluation uses (docs/performance.md),
resumable, on a process pool; the model-ready clips of one video's windows (its past windows and proactive
checkpoints) in one decoding pass over that video where that is cheaper (``ready.ready_clips``).
"""

from __future__ import annotations

import atexit
import math
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from ..registry import Benchmark
from ..util.errors import StreamGazeError
from ..util.threads import join_threads, wait_until
from .settings import RunSettings, default_prefetch, given
from .visuals import cached_window_clip, doc_clip_spec, doc_media, doc_visuals, scheduled_window

_EXIT_JOIN_S = 60.0

_PENDING, _RUNNING, _DONE, _FAILED = range(4)


@dataclass
class _Entry:
    item: Any
    state: int = _PENDING
    result: Any = None
    done: threading.Event = field(default_factory=threading.Event)
    asked: bool = False


@dataclass
class PrefetchStats:
    hits: int = 0  # finished in the background before it was asked for
    waits: int = 0  # in flight in the background when asked for: waited for it
    misses: int = 0  # not started yet when asked for: built on the calling thread
    prepared: int = 0  # finished by a worker
    failed: int = 0  # raised in a worker (then run again by ``get``)
    wait_s: float = 0.0  # total time ``get`` spent waiting for workers

    def as_dict(self) -> dict:
        return dict(self.__dict__)


_LIVE: weakref.WeakSet[Prefetcher] = weakref.WeakSet()


class Prefetcher:
    """Run ``fn(item)`` for submitted items in the background on ``workers`` daemon threads (see module; None: the
    run's default, ``settings.default_prefetch``)."""

    def __init__(self, fn: Callable[[Any], Any], workers: int | None = None, ahead: int | None = None,
                 name: str = "prefetch"):
        workers = default_prefetch() if workers is None else workers
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.fn = fn
        self.ahead = ahead if ahead else None
        self.stats = PrefetchStats()
        self._entries: dict[Hashable, _Entry] = {}
        self._queue: deque[Hashable] = deque()
        self._cond = threading.Condition()
        self._started = 0  # items started by workers
        self._asked = 0  # distinct items asked for through get()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()
        _LIVE.add(self)

    # -- public API --------------------------------------------------------------------------------

    def submit(self, items: Iterable[tuple[Hashable, Any]]) -> int:
        """Queue ``(key, item)`` pairs in order (keys already known are skipped); returns how many were new."""
        new = 0
        with self._cond:
            for key, item in items:
                if key in self._entries:
                    continue
                self._entries[key] = _Entry(item)
                self._queue.append(key)
                new += 1
            self._cond.notify_all()
        return new

    def get(self, key: Hashable, item: Any = None) -> Any:
        """The result for ``key`` (``item`` is used when the key was never submitted)."""
        with self._cond:
            e = self._entries.get(key)
            if e is None:
                e = self._entries[key] = _Entry(item)
            if not e.asked:
                e.asked = True
                self._asked += 1
                self._cond.notify_all()  # an ``ahead`` bound may now let a worker start the next item
            if e.state == _DONE:
                self.stats.hits += 1
                return e.result
            running = e.state == _RUNNING
            if running:
                self.stats.waits += 1
            else:  # pending, or a worker failed on it: the caller runs it
                e.state, e.done = _RUNNING, threading.Event()
                self.stats.misses += 1
        if running:
            t0 = time.perf_counter()
            e.done.wait()
            with self._cond:
                self.stats.wait_s += time.perf_counter() - t0
                if e.state == _DONE:
                    return e.result
                e.state, e.done = _RUNNING, threading.Event()  # the worker failed: run it here
        try:
            result = self.fn(e.item if e.item is not None else item)
        except BaseException:
            with self._cond:
                e.state = _FAILED
                e.done.set()
            raise
        with self._cond:
            e.result, e.state = result, _DONE
            e.done.set()
        return result

    def is_done(self, key: Hashable) -> bool:
        with self._cond:
            e = self._entries.get(key)
            return e is not None and e.state == _DONE

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no submitted item is pending or running (True), or ``timeout`` passes (False)."""
        with self._cond:
            return wait_until(self._cond, lambda: not any(e.state in (_PENDING, _RUNNING)
                                                          for e in self._entries.values()),
                              timeout, stop=lambda: self._closed)

    def close(self, timeout: float | None = None) -> None:
        """Stop taking new items; wait (up to ``timeout``) for the workers to finish the ones they are on."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        join_threads(self._threads, timeout)

    # -- workers -----------------------------------------------------------------------------------

    def _next(self) -> tuple[Hashable, _Entry] | None:
        """Under the lock: the next pending item a worker may start now, else None."""
        if self.ahead is not None and self._started >= self._asked + self.ahead:
            return None
        while self._queue:
            key = self._queue.popleft()
            e = self._entries[key]
            if e.state == _PENDING:
                return key, e
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                nxt = None
                while not self._closed and (nxt := self._next()) is None:
                    self._cond.wait()
                if self._closed:
                    return
                _key, e = nxt
                e.state = _RUNNING
                self._started += 1
            try:
                result, state = self.fn(e.item), _DONE
            except BaseException:  # run again (and raised) on the caller's thread by get()
                result, state = None, _FAILED
            with self._cond:
                e.result, e.state = result, state
                if state == _DONE:
                    self.stats.prepared += 1
                else:
                    self.stats.failed += 1
                e.done.set()
                self._cond.notify_all()


@atexit.register
def _stop_all() -> None:
    for p in list(_LIVE):
        p.close(timeout=_EXIT_JOIN_S)


# ---- evaluation documents ----------------------------------------------------------------------------

_DOCS: Prefetcher | None = None
_DOCS_LOCK = threading.Lock()
#: the task names whose documents were registered, and those the run will load (``streamgaze eval`` knows them)
_TASKS_SEEN: set[str] = set()


def doc_key(doc: dict) -> tuple:
    """What makes two documents show the model the same files."""
    return (str(doc["dataset_root"]), str(doc["gaze"]), str(doc["overlay_path"] if doc["gaze"] == "visual"
                                                            else doc["video_path"]),
            float(doc["window_start"]), float(doc["window_end"]), float(doc.get("clip_fps") or 0.0),
            str(doc.get("proxy") or ""), str(doc.get("video_id", "")), str(doc.get("model_ready") or ""))


def rank_shard(docs: list[dict], limit: int | float | None = None) -> list[dict]:
    """This process's documents in a distributed run (``RANK``/``WORLD_SIZE``): those lmms-eval builds requests
    for, ``docs[:limit][rank::world]`` (its ``--limit``: a count, or a fraction below 1 of the documents)."""
    if limit is not None and limit > 0:
        docs = docs[:int(limit) if limit >= 1 else math.ceil(limit * len(docs))]
    try:  # the torch launcher's process variables (not a run setting: each rank has its own)
        rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return docs
    return docs[rank::world] if world > 1 and 0 <= rank < world else docs


def _order(doc: dict) -> float:
    """The predicted place of a document in the model's order: most wrappers ask for the longest prompt first
    (lmms-eval's ``Collator`` sorts by ``-len(tokens)``); the prompt's length in characters stands for it."""
    from ..registry import benchmark_of_doc

    try:
        return -float(len(benchmark_of_doc(doc).plugin().doc_prompt(doc)))
    except Exception:  # noqa: BLE001 - a prediction only
        return 0.0


def start_prefetch(docs: list[dict], settings: RunSettings | None = None, *, task: str | None = None,
                   expected: set[str] | frozenset[str] | None = None,
                   limit: int | float | None = None) -> Prefetcher | None:
    """Queue the visuals of ``docs`` (this rank's share, in order) for the background, creating the process-wide
    workers on first use (with the run's ``settings``: ``streamgaze_hf.evaluation.settings.given``); None when
    prefetching is off or the run's model reads no video (``RunSettings.reads_video``: nothing is cut).

    Model-ready clips go to the run's frame scheduler (``schedule.py``: one pass per source video for every
    document of the run); the rest (full-rate clips, salience images) to the prefetcher. The scheduler plans its
    passes once the run's documents are known: when every task of ``expected`` (the task names the run loads) was
    registered as a ``task``, when the model first asks, or after a pause in registrations.

    Args:
        docs: the documents of one task (in lmms-eval's order).
        settings: the run's settings.
        task: the lmms-eval task name of ``docs``.
        expected: every task name the run loads, when known.
        limit: lmms-eval's ``--limit`` (only those documents are asked for).
    """
    global _DOCS
    settings = given(settings)
    workers = settings.prefetch
    if workers == 0 or not settings.reads_video:
        return None
    from . import schedule

    with _DOCS_LOCK:
        if _DOCS is None:
            _DOCS = Prefetcher(_prefetch_doc, workers=workers, ahead=settings.prefetch_ahead or None,
                               name=PREFETCH_THREADS)
        p = _DOCS
    from .ready import default_store

    scheduler = schedule.start_run_scheduler(workers, store=default_store())
    mine = rank_shard(docs, limit)
    scheduled = []
    rest = []
    for d in mine:
        window = scheduled_window(d)
        if window is None:
            rest.append(d)
        else:
            scheduled.append((window, window, _order(d)))
            if d["gaze"] == "salience":
                rest.append(d)  # its salience image (the clip is the scheduler's)
    scheduler.register(scheduled)
    p.submit((doc_key(d), d) for d in rest)
    if task is not None:
        with _DOCS_LOCK:
            _TASKS_SEEN.add(task)
            complete = expected is not None and set(expected) <= _TASKS_SEEN
        scheduler.expecting = expected is not None and not complete
        if complete:
            scheduler.seal()
    return p


#: the prefetcher's thread names (they start with this; the frame scheduler's too)
PREFETCH_THREADS = "streamgaze-prefetch"


def _prefetch_doc(doc: dict) -> list[str] | None:
    """:func:`doc_visuals`; for a document whose clip the frame scheduler makes, only its salience image."""
    if scheduled_window(doc) is not None:
        if doc["gaze"] == "salience":
            from ..video.clips import clip_cache_dir
            from .visuals import salience_image

            salience_image(doc, clip_cache_dir())
        return None
    return doc_visuals(doc)


def prefetched_visuals(doc: dict) -> list[str]:
    """:func:`~streamgaze_hf.evaluation.visuals.doc_visuals` of ``doc``, from the prefetcher when one runs (a
    model-ready clip from the frame scheduler, which the asking thread helps)."""
    p = _DOCS
    if p is None:
        return doc_visuals(doc)
    if scheduled_window(doc) is not None:
        if doc["gaze"] == "salience":
            p.get(doc_key(doc), doc)
        return doc_visuals(doc)
    return p.get(doc_key(doc), doc)


def current_prefetcher() -> Prefetcher | None:
    return _DOCS


def stop_prefetch() -> None:
    """Close and forget the process-wide prefetcher and frame scheduler (tests; a harness that wants its threads
    back)."""
    global _DOCS
    from . import schedule

    with _DOCS_LOCK:
        p, _DOCS = _DOCS, None
        _TASKS_SEEN.clear()
    if p is not None:
        p.close(timeout=_EXIT_JOIN_S)
    schedule.stop_run_scheduler()


# ---- ahead of a run: `streamgaze clips warm` ----------------------------------------
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


def _warm_key(doc: dict) -> tuple:
    """Documents with the same key get the same files (nogaze and textgaze share their clips)."""
    path, start, end, fps = doc_clip_spec(doc)
    sal = (doc["video_id"], start, end) if doc["gaze"] == "salience" else None
    return (str(path), start, end, fps or 0.0, str(doc.get("proxy") or ""), sal, str(doc.get("model_ready") or ""))


def _warm_one(doc: dict, cache_dir: str | None) -> bool:
    """Prepare one document's visuals; True if its clip had to be built (False: already cached)."""
    was_cached = cached_window_clip(doc, cache_dir) is not None
    doc_visuals(doc, cache_dir)
    return not was_cached


def _warm_model_ready(items: list[dict], workers: int, cache: str | None, store: str, bar) -> tuple[int, dict]:
    """Make the model-ready clips of ``items`` (documents whose clips the run's passes would make: one pass per
    source video, every frame decoded at most once, the units of a pass spread over ``workers`` processes:
    ``ready.run_passes``); returns (clips built, what the passes did)."""
    from .executors import processes
    from .model_frames import FramesSpec
    from .ready import VideoPass, find_or_plan, run_passes

    jobs: dict[str, dict] = {}  # video -> {ready key: job}
    full_rate: list[dict] = []
    done = 0
    for d in items:
        video, start, end, spec_text = scheduled_window(d)
        spec = FramesSpec.parse(spec_text)
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

    run_passes(passes, processes(workers), on_clip)
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


def warm_clips(root=None, tasks: list[str] | None = None, variants: list[str] | None = None, workers: int = 1,
               progress: bool = True, settings: RunSettings | None = None,
               cache_dir: str | os.PathLike[str] | None = None, store: str | None = None) -> dict:
    """Prepare every clip (and salience image) the given tasks and variants will ask for, in the clip
    cache the evaluation uses, with the evaluation's ``settings`` (clip fps, protocol, proxy:
    ``streamgaze_hf.evaluation.settings.given``).

    Resumable: clips already in the cache are found in milliseconds and counted as ``cached``. Runs
    ``workers`` processes (1: in this process). Bad task or variant names and a missing dataset fail
    before any work.

    Args:
        root: the dataset: open (``dataset.load.DatasetHandle``), or a directory or Hub reference, opened once
            here (None: the default benchmark's root). Its manifest says which benchmark it is.
        tasks: task ids, lmms-eval task names or categories, each entry may be comma-separated (None: every
            task; a task with no questions is skipped unless named by its id).
        variants: gaze variant names (:func:`variant_names`; None: the plain task's gaze mode).
        workers: processes that build clips (at least 1).
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
    if workers < 1:
        raise StreamGazeError(f"--workers must be >= 1, got {workers}")
    from ..dataset.load import open_dataset

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
    unique: dict[tuple, dict] = {}
    for d in docs if given(settings).reads_video else ():  # a model that reads no video: nothing to cut
        unique.setdefault(_warm_key(d), d)
    # grouped by video file, in window order: a worker reuses its packet index and decoder warm-up
    items = [unique[k] for k in sorted(unique, key=lambda k: (k[0], k[1], k[2], k[3], k[4], k[5] is not None))]
    passes = [d for d in items if scheduled_window(d) is not None]
    rest = [d for d in items if scheduled_window(d) is None]
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
        for d in passes:
            if d["gaze"] == "salience":  # its salience image (the clip is in the cache now)
                from ..video.clips import clip_cache_dir
                from .visuals import salience_image

                salience_image(d, clip_cache_dir(cache))
        if rest and workers == 1:
            for d in rest:
                built += int(_warm_one(d, cache))
                bar.update(1)
        elif rest:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for b in pool.map(_warm_one, rest, [cache] * len(rest), chunksize=1):
                    built += int(b)
                    bar.update(1)
    finally:
        bar.close()
    return {"tasks": task_ids, "variants": modes, "documents": len(docs), "clips": len(items), "built": built,
            "cached": max(0, len(items) - built), "seconds": round(time.perf_counter() - t0, 3), **(
                {"passes": pass_stats} if pass_stats else {})}
