"""Clips ready before the model asks, started two ways: in the background during a run (here), and ahead of it.

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
* Model-ready clips (``ready.py``) go to the run's frame scheduler (``schedule.py``: one pass per source video
  for every document of the run, in the model's order); the prefetcher keeps the rest (full-rate clips, salience
  images).

Settings (``RunSettings.prefetch``, ``prefetch_ahead``: streamgaze_hf/evaluation/settings.py): ``STREAMGAZE_PREFETCH`` =
threads (default one less than the usable cores, 1 or 2: ``settings.default_prefetch``; 0 turns prefetching off),
``STREAMGAZE_PREFETCH_AHEAD`` = at most this many documents prepared beyond those already asked for (default 0 = no
bound: the whole evaluation is warmed in order, which also serves harnesses that visit documents in another order
than the dataset's).
In a distributed run (``RANK`` / ``WORLD_SIZE`` set, as ``accelerate launch`` does) a process first
prefetches its own shard (documents ``rank::world_size``, lmms-eval's split) and nothing else.
At interpreter exit the workers stop taking new items and finish the one they are on (up to 60 s).

**Ahead of a run**: ``warm.py`` (``streamgaze clips warm``).
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
from dataclasses import dataclass, field
from typing import Any

from ..util.threads import join_threads, wait_until
from .settings import RunSettings, default_prefetch, given
from .visuals import (  # noqa: F401 - doc_key, scheduled_window: the document's key and window, as known here
    ClipRequest,
    clip_request,
    doc_key,
    doc_visuals,
    scheduled_window,
)

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
        req = clip_request(d)  # once per document: its window, spec and key
        window = req.window
        if window is None:
            rest.append((d, req))
        else:
            scheduled.append((window, window, _order(d)))
            if req.salience is not None:
                rest.append((d, req))  # its salience image (the clip is the scheduler's)
    scheduler.register(scheduled)
    p.submit((req.key, (d, req)) for d, req in rest)
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


def _prefetch_doc(item: tuple[dict, ClipRequest]) -> list[str] | None:
    """:func:`doc_visuals` of a (document, its clip request); for a document whose clip the frame scheduler makes,
    only its salience image."""
    doc, req = item
    if req.window is not None:
        if req.salience is not None:
            from ..video import clip_cache_dir
            from .visuals import salience_image

            salience_image(doc, clip_cache_dir())
        return None
    return doc_visuals(doc, request=req)


def prefetched_visuals(doc: dict) -> list[str]:
    """:func:`~streamgaze_hf.evaluation.visuals.doc_visuals` of ``doc``, from the prefetcher when one runs (a
    model-ready clip from the frame scheduler, which the asking thread helps)."""
    p = _DOCS
    req = clip_request(doc)
    if p is None:
        return doc_visuals(doc, request=req)
    if req.window is not None:
        if req.salience is not None:
            p.get(req.key, (doc, req))
        return doc_visuals(doc, request=req)
    return p.get(req.key, (doc, req))


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
