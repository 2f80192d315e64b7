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
threads (default 2; 0 turns prefetching off), ``STREAMGAZE_PREFETCH_AHEAD`` = at most this many documents
prepared beyond those already asked for (default 0 = no bound: the whole evaluation is warmed in
order, which also serves harnesses that visit documents in another order than the dataset's).
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
from .settings import DEFAULT_PREFETCH as DEFAULT_WORKERS
from .settings import RunSettings, given
from .visuals import cached_window_clip, doc_clip_spec, doc_media, doc_visuals

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
    """Run ``fn(item)`` for submitted items in the background on ``workers`` daemon threads (see module)."""

    def __init__(self, fn: Callable[[Any], Any], workers: int = DEFAULT_WORKERS, ahead: int | None = None,
                 name: str = "prefetch"):
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
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while any(e.state in (_PENDING, _RUNNING) for e in self._entries.values()):
                if self._closed:
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 1.0)
            return True

    def close(self, timeout: float | None = None) -> None:
        """Stop taking new items; wait (up to ``timeout``) for the workers to finish the ones they are on."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))

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


# ---- evaluation documents ---------------------------------------------------------------------------

_DOCS: Prefetcher | None = None
_DOCS_LOCK = threading.Lock()


def doc_key(doc: dict) -> tuple:
    """What makes two documents show the model the same files."""
    return (str(doc["dataset_root"]), str(doc["gaze"]), str(doc["overlay_path"] if doc["gaze"] == "visual"
                                                            else doc["video_path"]),
            float(doc["window_start"]), float(doc["window_end"]), float(doc.get("clip_fps") or 0.0),
            str(doc.get("proxy") or ""), str(doc.get("video_id", "")), str(doc.get("model_ready") or ""))


def rank_shard(docs: list[dict]) -> list[dict]:
    """This process's documents in a distributed run (``RANK``/``WORLD_SIZE``): ``docs[rank::world]``."""
    try:  # the torch launcher's process variables (not a run setting: each rank has its own)
        rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return docs
    return docs[rank::world] if world > 1 and 0 <= rank < world else docs


def start_prefetch(docs: list[dict], settings: RunSettings | None = None) -> Prefetcher | None:
    """Queue the visuals of ``docs`` (this rank's share, in order) on the process-wide prefetcher,
    creating it on first use (with the run's ``settings``: ``streamgaze_hf.evaluation.settings.given``); None when
    prefetching is off."""
    global _DOCS
    settings = given(settings)
    workers = settings.prefetch
    if workers == 0:
        return None
    with _DOCS_LOCK:
        if _DOCS is None:
            _DOCS = Prefetcher(_prefetch_doc, workers=workers, ahead=settings.prefetch_ahead or None,
                               name=PREFETCH_THREADS)
        p = _DOCS
    mine = rank_shard(docs)
    _register(mine)
    p.submit((doc_key(d), d) for d in mine)
    return p


#: the prefetcher's thread names (they start with this)
PREFETCH_THREADS = "streamgaze-prefetch"
#: how many documents of one video (model-ready for one wrapper) a prefetch worker prepares in one pass
PASS_GROUP = 8
_UNTAKEN: dict[tuple, dict[tuple, dict]] = {}  # (video, fps cap, wrapper) -> documents not taken yet, in order
_UNTAKEN_LOCK = threading.Lock()


def _group_key(doc: dict) -> tuple | None:
    if not doc.get("model_ready"):
        return None
    path, _start, _end, fps = doc_clip_spec(doc)
    return str(path), fps or 0.0, doc["model_ready"]


def _register(docs: list[dict]) -> None:
    with _UNTAKEN_LOCK:
        for d in docs:
            group = _group_key(d)
            if group is not None:
                _UNTAKEN.setdefault(group, {}).setdefault(doc_key(d), d)


def _take_group(doc: dict) -> list[dict]:
    """``doc`` and the next documents of its video and wrapper nobody has taken yet (at most :data:`PASS_GROUP`)."""
    group = _group_key(doc)
    with _UNTAKEN_LOCK:
        untaken = _UNTAKEN.get(group, {})
        keys = list(untaken)
        key = doc_key(doc)
        if key not in untaken:
            return [doc]
        taken = keys[keys.index(key):keys.index(key) + PASS_GROUP]
        return [untaken.pop(k) for k in taken]


def _prefetch_doc(doc: dict) -> list[str]:
    """:func:`doc_visuals`; on a prefetch worker, the model-ready clips of the next documents of the same video
    first, in one pass over it (``ready.ready_clips``: past windows and proactive checkpoints pick frames all over
    the same stretch of video). A document asked for before any worker took it is made alone, at once."""
    if threading.current_thread().name.startswith(PREFETCH_THREADS) and doc.get("model_ready"):
        group = _take_group(doc)
        windows = sorted({doc_clip_spec(d)[1:3] for d in group})
        if len(windows) > 1:
            from .model_frames import FramesSpec
            from .ready import ready_clips

            path, _start, _end, fps = doc_clip_spec(doc)
            ready_clips(path, windows, fps, FramesSpec.parse(doc["model_ready"]))
    return doc_visuals(doc)


def prefetched_visuals(doc: dict) -> list[str]:
    """:func:`~streamgaze_hf.evaluation.visuals.doc_visuals` of ``doc``, from the prefetcher when one runs."""
    p = _DOCS
    if p is None:
        return doc_visuals(doc)
    return p.get(doc_key(doc), doc)


def current_prefetcher() -> Prefetcher | None:
    return _DOCS


def stop_prefetch() -> None:
    """Close and forget the process-wide prefetcher (tests; a harness that wants its threads back)."""
    global _DOCS
    with _DOCS_LOCK:
        p, _DOCS = _DOCS, None
    with _UNTAKEN_LOCK:
        _UNTAKEN.clear()
    if p is not None:
        p.close(timeout=_EXIT_JOIN_S)


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


#: the most documents of one video ``clips warm`` makes in one pass (more passes let several workers share a video)
WARM_GROUP = 32


def _warm_units(items: list[dict]) -> list[list[dict]]:
    """The work of ``clips warm``: documents whose clips are model-ready for one wrapper and cut from one video
    go together, up to :data:`WARM_GROUP` in window order (their clips share one pass over that video:
    ``ready.ready_clips``), every other one alone."""
    units: dict[tuple, list[dict]] = {}
    for i, d in enumerate(items):
        path, _start, _end, fps = doc_clip_spec(d)
        key = (str(path), fps or 0.0, d["model_ready"]) if d.get("model_ready") else (i,)
        units.setdefault(key, []).append(d)
    return [unit[k:k + WARM_GROUP] for unit in units.values() for k in range(0, len(unit), WARM_GROUP)]


def _warm_unit(docs: list[dict], cache_dir: str | None = None) -> tuple[int, int]:
    """(documents, clips built) of one unit of :func:`_warm_units`, in the clip cache ``cache_dir`` (None: the
    default, ``video.clips.clip_cache_dir``)."""
    if len(docs) == 1:
        return 1, int(_warm_one(docs[0], cache_dir))
    from .model_frames import FramesSpec
    from .ready import ready_clips

    path, _s, _e, fps = doc_clip_spec(docs[0])
    _clips, stats = ready_clips(path, [doc_clip_spec(d)[1:3] for d in docs], fps,
                                FramesSpec.parse(docs[0]["model_ready"]), cache_dir=cache_dir)
    for d in docs:
        if d["gaze"] == "salience":
            doc_visuals(d, cache_dir)  # its salience image (the clip is in the cache now)
    return len(docs), int(stats["built"])


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
            if not match and index.benchmark_of(name) == bench.name:
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
               cache_dir: str | os.PathLike[str] | None = None) -> dict:
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

    Returns:
        ``tasks`` and ``variants`` (what was warmed), counts ``documents``, ``clips`` (distinct), ``built``,
        ``cached``, and ``seconds``.

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
    task_ids = [t for t in task_ids if t in named or t in data.nonempty_tasks(tuple(task_ids))]
    docs: list[dict] = []
    for tid in task_ids:
        for mode in modes:
            docs += bench.plugin().load_docs(tid, mode, data, settings=settings)
    if docs:  # fetched (a Hub dataset) and verified in one batch, with one byte progress bar
        data.files(sorted({m for d in docs for m in doc_media(d)}), progress=progress)
    cache = None if cache_dir is None else str(cache_dir)
    unique: dict[tuple, dict] = {}
    for d in docs:
        unique.setdefault(_warm_key(d), d)
    # grouped by video file, in window order: a worker reuses its packet index and decoder warm-up
    items = [unique[k] for k in sorted(unique, key=lambda k: (k[0], k[1], k[2], k[3], k[4], k[5] is not None))]
    units = _warm_units(items)
    t0 = time.perf_counter()
    built = 0
    bar = tqdm(total=len(items), desc="warm clips", unit="clip", disable=not progress, dynamic_ncols=True)
    try:
        if workers == 1:
            for unit in units:
                n, b = _warm_unit(unit, cache)
                built += b
                bar.update(n)
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for n, b in pool.map(_warm_unit, units, [cache] * len(units), chunksize=1):
                    built += b
                    bar.update(n)
    finally:
        bar.close()
    return {"tasks": task_ids, "variants": modes, "documents": len(docs), "clips": len(items), "built": built,
            "cached": len(items) - built, "seconds": round(time.perf_counter() - t0, 3)}
