"""The background work of a run: every model-ready clip made in one pass per source video, in the order the model
will ask for them.

:class:`FrameScheduler` holds the run's model-ready clips (``ready.py``: :class:`~.ready.ReadyJob`, planned from
the sources) and the decode units of their passes (``video/one_pass.py``: one unit per GOP that holds a wanted
frame; all the clips of one video, of every task and gaze variant that shows that file, share them, so every source
frame is decoded at most once). Worker threads run units; a unit hands its frames to every clip that needs them
(``video/frame_store.py``), and a clip is written as soon as the last of its units is done.

**When a pass starts.** Passes are planned once every document of the run is known (:meth:`seal`): when the
glue says the last task of the run was registered (``streamgaze eval`` and lmms-eval's command line name them),
when the model first asks for a document (lmms-eval loads every task before it runs the model), or, when nobody
said which tasks come (:attr:`FrameScheduler.expecting`), after :data:`SETTLE_S` seconds without a new document. A document registered later gets passes of its own (its frames may then be decoded a
second time: the harness avoids that by sealing at the right time).

**Which unit next.** lmms-eval hands a model all requests at once, and most wrappers sort them by their prompt's
length, longest first (``utils.Collator`` with ``-len(tokens)``). Each document therefore gets a predicted rank
(:meth:`register`'s ``order_key``: the harness gives the prompt's length), each clip the rank of its first
document, each unit the best rank of the clips still waiting for it, and workers take the unit with the best rank.
A document the model asks for before its clip is written jumps ahead of every prediction, and the asking thread
does not sit idle: it runs the clip's remaining units itself (units no worker has started), then waits for the
ones in progress.
"""

from __future__ import annotations

import atexit
import heapq
import itertools
import os
import threading
import time
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..util.threads import join_threads, wait_until
from .model_frames import FramesSpec, frames_spec
from .ready import ReadyJob, UnitCosts, VideoPass, find_or_plan

#: seconds without a new document after which the registered ones are planned (when nothing else sealed them)
SETTLE_S = 2.0
_ASKED = -(10**12)


@dataclass(eq=False)
class _Job:
    job: ReadyJob | None  # None: a clip already in the cache, or one the wrapper reads at full rate
    path: Path | None = None
    rank: float = float("inf")
    pending: set[int] = field(default_factory=set)  # units not done yet
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    pass_: _Pass | None = None


@dataclass(eq=False)
class _Pass:
    pid: int
    vp: VideoPass  # the pass itself (``ready.py``: its units, its fallback, its clips); here, when each unit runs
    jobs_of: dict[int, list[_Job]]
    state: dict[int, str]  # unit key -> "pending" / "running" / "done" / "failed" / "skipped"
    units: dict[int, Any]
    left: int = 0  # units not done
    writing: int = 0  # clips being written
    closed: bool = False

    def priority(self, unit: int) -> float:
        return min((j.rank for j in self.jobs_of.get(unit, ()) if not j.done.is_set()), default=float("inf"))


@dataclass
class SchedulerStats:
    units: int = 0  # units run
    decoded: int = 0  # frames decoded by them
    clips: int = 0  # model-ready clips written
    cached: int = 0  # found in the cache when planned
    full_rate: int = 0  # documents whose wrapper gets the full-rate clip
    helped: int = 0  # units run by a thread that asked for a document
    waits: int = 0  # asks that found their clip not written yet
    wait_s: float = 0.0
    late: int = 0  # windows registered after the passes were planned
    legacy: int = 0  # clips made the way of frame-rate-capped windows (the reader did not confirm the conversion)
    cpu_s: float = 0.0  # CPU seconds of the planning, the units and the writing (of the threads that did them)
    # ... of which (``ready.UnitCosts``): the decoders, the RGB conversions and resizes, writing frames and clips
    decode_s: float = 0.0
    frames_s: float = 0.0
    write_s: float = 0.0
    # when the model first asked (None: it never did): the seconds since the passes were planned (0: not yet), the
    # units run and the clips written by then
    planned_ahead_s: float | None = None
    units_at_first_ask: int | None = None
    clips_at_first_ask: int | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class FrameScheduler:
    """Model-ready clips of registered windows, made in the background (module docstring).

    Args:
        workers: worker threads (0: none; the asking threads do all the work).
        cache_dir: the clip cache (None: the default).
        store: the storage form of the clips (``ready.STORES``).
        name: the worker threads' name prefix.
    """

    def __init__(self, workers: int, cache_dir: str | os.PathLike[str] | None = None, store: str = "raw",
                 name: str = "streamgaze-prefetch-frames") -> None:
        self.cache_dir = None if cache_dir is None else str(cache_dir)
        self.store = store
        self.stats = SchedulerStats()
        self._cond = threading.Condition()
        #: key -> ((video, start, end, frame spec), order key, registration number)
        self._registered: dict[Hashable, tuple[tuple, float, int]] = {}
        self._jobs: dict[Hashable, _Job] = {}  # key -> its clip (documents of the same window share one)
        self._by_ready: dict[str, _Job] = {}
        self._heap: list[tuple[float, int, int, int]] = []
        self._passes: dict[int, _Pass] = {}
        self._seq = itertools.count()
        self._asks = itertools.count()
        self._next_rank = 0
        self._sealed = False
        self._sealed_at: float | None = None
        #: more documents are known to come (the run's tasks are not all loaded): no sealing after a pause
        self.expecting = False
        self._last_registration = time.monotonic()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()

    # -- registering and planning ------------------------------------------------------------------------

    def register(self, items: Iterable[tuple[Hashable, tuple[str, float, float, FramesSpec | str], float]]) -> int:
        """Register windows: ``(key, (video, start, end, frame spec), order)`` (the spec parsed: a document's
        ``visuals.ClipRequest.window``, or as written); the model is predicted to ask for a smaller ``order`` first
        (ties: in registration order). Returns how many keys were new."""
        new = []
        with self._cond:
            for key, window, order in items:
                if key in self._registered:
                    continue
                self._registered[key] = (tuple(window), float(order), next(self._seq))
                new.append(key)
            self._last_registration = time.monotonic()
            late = self._sealed
            self._cond.notify_all()
        if late and new:
            self._plan(new, late=True)
        return len(new)

    def seal(self) -> None:
        """Plan every registered window (once; later registrations are planned as they come)."""
        with self._cond:
            if self._sealed:
                return
            self._sealed = True
            keys = list(self._registered)
        self._plan(keys, late=False)
        with self._cond:
            self._sealed_at = time.monotonic()

    def _plan(self, keys: list[Hashable], late: bool) -> None:
        """Plan ``keys`` (outside the lock: the caches are looked up); an ask for one of them waits until its clip
        entry is done or has its pass (:meth:`path`). If planning itself fails, each key gets an entry that raises
        the error."""
        t0 = time.thread_time()
        try:
            self._plan_timed(keys, late)
        except BaseException as exc:
            self._fail_unplanned(keys, exc)
            raise
        finally:
            with self._cond:
                self.stats.cpu_s += time.thread_time() - t0

    def _fail_unplanned(self, keys: list[Hashable], error: BaseException) -> None:
        """Planning ``keys`` raised ``error``: the keys left without a clip entry, or with one whose pass was never
        added (nothing would make it), raise it to whoever asks."""
        with self._cond:
            for key in keys:
                entry = self._jobs.get(key)
                if entry is None:
                    entry = self._jobs[key] = _Job(None)
                if entry.pass_ is None and not entry.done.is_set():
                    entry.error = error
                    entry.done.set()
            self._cond.notify_all()

    def _plan_timed(self, keys: list[Hashable], late: bool) -> None:
        with self._cond:
            ranked = sorted(keys, key=lambda k: self._registered[k][1:])
            base = self._next_rank
            self._next_rank += len(ranked)
            windows = [(key, self._registered[key][0]) for key in ranked]
        by_video: dict[str, list[tuple[Hashable, ReadyJob, int]]] = {}
        plain: dict[Hashable, _Job] = {}
        for pos, (key, (video, start, end, spec)) in enumerate(windows):
            try:
                hit, job = find_or_plan(video, start, end, frames_spec(spec), self.cache_dir, self.store)
            except Exception as exc:  # noqa: BLE001 - raised where the document is asked for
                plain[key] = _Job(None, error=exc)
                continue
            if job is None:
                plain[key] = _Job(None, path=hit)
                with self._cond:
                    if hit is not None:
                        self.stats.cached += 1
                    else:
                        self.stats.full_rate += 1
                continue
            by_video.setdefault(job.video, []).append((key, job, base + pos))
        for entry in plain.values():
            entry.done.set()
        passes = []
        with self._cond:
            self._jobs.update(plain)
            for video, triples in by_video.items():
                fresh: dict[str, _Job] = {}
                for key, job, rank in triples:
                    entry = self._by_ready.get(job.key) or fresh.get(job.key)
                    if entry is None:
                        entry = fresh[job.key] = _Job(job)
                    entry.rank = min(entry.rank, rank)
                    self._jobs[key] = entry
                self.stats.late += len(fresh) if late else 0
                if fresh:
                    passes.append((video, list(fresh.values())))
                    self._by_ready.update(fresh)
            self._cond.notify_all()  # the plain entries are done; the asks for the rest wait for their pass
        for video, entries in passes:
            self._add_pass(video, entries)

    def _add_pass(self, video: str, entries: list[_Job]) -> None:
        vp = VideoPass(video, [e.job for e in entries], self.cache_dir)
        plan = vp.plan
        entry_of = {e.job.key: e for e in entries}
        jobs_of = {u: [entry_of[j.key] for j in js] for u, js in plan.unit_jobs().items()}
        with self._cond:
            p = _Pass(next(self._seq), vp, jobs_of, {u.key: "pending" for u in plan.units},
                      {u.key: u for u in plan.units})
            p.left = len(plan.units)
            self._passes[p.pid] = p
            for e in entries:
                e.pass_ = p
                e.pending = {plan.unit_of[s] for s in e.job.distinct}
            for u in plan.units:
                heapq.heappush(self._heap, (p.priority(u.key), next(self._seq), p.pid, u.key))
            self._cond.notify_all()

    # -- the work ------------------------------------------------------------------------------------------

    def _take(self, only: _Job | None = None) -> tuple[_Pass, int] | None:
        """Under the lock: the next unit to run (of ``only``'s clip, when given), marked running; else None."""
        if only is not None:
            p = only.pass_
            for u in sorted(only.pending) if p is not None else ():
                if p.state.get(u) == "pending":
                    p.state[u] = "running"
                    return p, u
            return None
        while self._heap:
            prio, _seq, pid, u = heapq.heappop(self._heap)
            p = self._passes.get(pid)
            if p is None or p.state.get(u) != "pending" or prio != p.priority(u):
                continue  # done, running, or a stale entry (a fresher one is in the heap)
            p.state[u] = "running"
            return p, u
        return None

    def _run(self, p: _Pass, u: int, helper: bool = False) -> None:
        t0 = time.thread_time()
        try:
            self._run_timed(p, u, helper)
        finally:
            with self._cond:
                self.stats.cpu_s += time.thread_time() - t0

    def _run_timed(self, p: _Pass, u: int, helper: bool) -> None:
        error: BaseException | None = None
        decoded = 0
        mismatch = False
        costs = UnitCosts()
        try:
            done = p.vp.run_unit(p.units[u], costs)
            decoded, mismatch = done.decoded, done.mismatch
        except BaseException as exc:  # noqa: BLE001 - handed to the clips that needed this unit
            error = exc
        ready: list[_Job] = []
        with self._cond:
            self.stats.decode_s += costs.decode_s
            self.stats.frames_s += costs.frames_s
            self.stats.write_s += costs.write_s
            self.stats.units += 1
            self.stats.decoded += decoded
            self.stats.helped += int(helper)
            p.state[u] = "done" if error is None and not mismatch else "failed"
            p.left -= 1
            if mismatch:  # the whole video: its clips are made the capped way (``VideoPass.finish``)
                for other, state in p.state.items():
                    if state == "pending":
                        p.state[other] = "skipped"
                        p.left -= 1
                affected = [e for es in p.jobs_of.values() for e in es]
            else:
                affected = p.jobs_of.get(u, [])
            for e in dict.fromkeys(affected):
                if e.done.is_set() or e in ready:
                    continue
                if mismatch:
                    e.pending = set()
                else:
                    e.pending.discard(u)
                    if error is not None and e.error is None:
                        e.error = error
                if not e.pending:
                    ready.append(e)
            p.writing += len(ready)
        for e in ready:
            self._finish(p, e)
        self._settle(p, len(ready))

    def _settle(self, p: _Pass, written: int) -> None:
        """After a unit (and the clips it completed): drop the frames nothing waits for any more; close the pass
        once every unit ran and every clip is written."""
        with self._cond:
            p.writing -= written
            drop = [u for u, state in p.state.items() if state == "done" and u in p.jobs_of
                    and all(e.done.is_set() for e in p.jobs_of[u])]
            for u in drop:
                p.jobs_of.pop(u)
            # (``left`` counts the units not yet done, failed or skipped: a running one too)
            finished = p.left == 0 and p.writing == 0 and not p.closed
            if finished:
                p.closed = True
                self._passes.pop(p.pid, None)
            self._cond.notify_all()
        for u in drop:
            p.vp.store.drop(u)
        if finished:
            p.vp.close()

    def _finish(self, p: _Pass, e: _Job) -> None:
        """Write a clip whose units are all done (or make it the frame-rate-capped way, or keep its error)."""
        try:
            if e.error is None:
                t0 = time.thread_time()
                e.path = p.vp.finish(e.job)
                with self._cond:
                    if p.vp.mismatch:
                        self.stats.legacy += 1
                    else:
                        self.stats.clips += 1
                        self.stats.write_s += time.thread_time() - t0
        except BaseException as exc:  # noqa: BLE001 - raised where the document is asked for
            e.error = exc
        e.done.set()

    def _work(self) -> None:
        while True:
            with self._cond:
                nxt = None
                settle = False
                while not self._closed:
                    if not self._sealed and self._registered and not self.expecting and (
                            time.monotonic() - self._last_registration >= SETTLE_S):
                        settle = True
                        break
                    nxt = self._take()
                    if nxt is not None:
                        break
                    self._cond.wait(timeout=0.5 if not self._sealed else None)
                if self._closed:
                    return
            if settle:
                self.seal()
            elif nxt is not None:
                self._run(*nxt)

    # -- asking ---------------------------------------------------------------------------------------------

    def knows(self, key: Hashable) -> bool:
        with self._cond:
            return key in self._registered

    def path(self, key: Hashable, window: tuple[str, float, float, FramesSpec | str] | None = None) -> Path | None:
        """The model-ready clip of a registered window (``window`` registers one that is not), made now with the
        asking thread's help if it is not written yet; None when the wrapper gets the full-rate clip. Raises what
        making it raised."""
        with self._cond:
            if self.stats.units_at_first_ask is None:
                st = self.stats
                st.planned_ahead_s = 0.0 if self._sealed_at is None else time.monotonic() - self._sealed_at
                st.units_at_first_ask, st.clips_at_first_ask = st.units, st.clips
        if window is not None and not self.knows(key):
            self.register([(key, window, float("-inf"))])
        self.seal()
        with self._cond:
            if key not in self._registered:
                raise KeyError(f"not a registered window: {key!r}")
            # registered but perhaps still being planned on another thread (its seal, or a late registration):
            # wait for its clip entry and that entry's pass (without one, no unit to help with)
            self._cond.wait_for(lambda: (e := self._jobs.get(key)) is not None
                                and (e.pass_ is not None or e.done.is_set()))
            e = self._jobs[key]
        if not e.done.is_set():
            t0 = time.perf_counter()
            with self._cond:
                self.stats.waits += 1
                p = e.pass_
                if e.rank > _ASKED and p is not None:
                    e.rank = _ASKED + next(self._asks)
                    for u in e.pending:
                        if p.state.get(u) == "pending":
                            heapq.heappush(self._heap, (p.priority(u), next(self._seq), p.pid, u))
                    self._cond.notify_all()
            while not e.done.is_set():
                with self._cond:
                    nxt = self._take(only=e)
                if nxt is None:
                    e.done.wait()
                    break
                self._run(*nxt, helper=True)
            with self._cond:
                self.stats.wait_s += time.perf_counter() - t0
        if e.error is not None:
            raise e.error
        return e.path

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Seal, then block until every registered clip is written (True) or ``timeout`` passes (False)."""
        self.seal()
        with self._cond:
            return wait_until(self._cond, lambda: all(e.done.is_set() for e in self._jobs.values()), timeout)

    def close(self, timeout: float | None = None) -> None:
        """Stop the workers after the unit each is on (up to ``timeout``), and remove the frames of the passes left
        unfinished."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        join_threads(self._threads, timeout)
        with self._cond:
            left = list(self._passes.values())
            self._passes.clear()
        for p in left:
            p.vp.close()


# ---- the run's scheduler (one per process) ----------------------------------------------------------------

def background_summary() -> dict | None:
    """What the run's scheduler did (``SchedulerStats``: units, frames decoded, clips, CPU seconds, the model's
    waits), for the results file; None when none ran."""
    s = _RUN
    if s is None:
        return None
    with s._cond:
        out = s.stats.as_dict()
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


_RUN: FrameScheduler | None = None
_RUN_LOCK = threading.Lock()
_EXIT_JOIN_S = 60.0


def start_run_scheduler(workers: int, store: str = "raw") -> FrameScheduler:
    """The process-wide scheduler of a run (``prefetch.start_prefetch``), created on first use."""
    global _RUN
    with _RUN_LOCK:
        if _RUN is None:
            from .ready import preload

            preload()  # the libraries a clip needs, loaded at start-up (not inside the first clip of the run)
            _RUN = FrameScheduler(workers, store=store)
        return _RUN


def running() -> FrameScheduler | None:
    """The run's scheduler, or None (no run in this process, or prefetching off)."""
    return _RUN


def stop_run_scheduler() -> None:
    """Close and forget the run's scheduler (tests; the end of the process)."""
    global _RUN
    with _RUN_LOCK:
        s, _RUN = _RUN, None
    if s is not None:
        s.close(timeout=_EXIT_JOIN_S)


atexit.register(stop_run_scheduler)
