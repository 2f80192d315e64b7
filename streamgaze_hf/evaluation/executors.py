"""Where a pass's work runs: the executor seam of ``ready.run_passes``.

A pass (``ready.VideoPass``) hands its work out as calls of module-level functions with picklable arguments (the
pass's plan, a run of its decode units, the directory its frames wait in, the clip cache): the executor decides
where they run. An executor is anything with ``submit(fn, *args) -> concurrent.futures.Future`` and
``workers`` (how many calls it runs at once: a pass splits its units into that many runs); it is a context manager
that waits for its calls on exit. Three are here:

* :class:`Inline`: each call runs at once on the calling thread (``ready.ready_clips``, ``clips warm --workers 1``);
* :func:`threads`: a thread pool;
* :func:`processes`: a process pool (``clips warm --workers N``).

Another executor (a cluster's: Ray tasks whose futures ``ObjectRef.future()`` gives) is added here, as a class
with the same two members, without touching the pass: the pass's frames wait on storage every worker sees (the
clip cache) and only paths, small results and digests cross to the workers.
"""

from __future__ import annotations

from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Protocol


class Executor(Protocol):
    """What ``ready.run_passes`` asks of an executor (module docstring)."""

    workers: int

    def submit(self, fn, /, *args: Any) -> Future: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> bool | None: ...


class Inline:
    """Each call runs at once on the calling thread; its result or error waits in the returned future."""

    workers = 1

    def __enter__(self) -> Inline:
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def submit(self, fn, /, *args: Any) -> Future:
        f: Future = Future()
        try:
            f.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - raised by result(), as in a pool
            f.set_exception(exc)
        return f


class _Pool:
    """A ``concurrent.futures`` pool with its worker count."""

    def __init__(self, pool: ThreadPoolExecutor | ProcessPoolExecutor, workers: int) -> None:
        self._pool = pool
        self.workers = workers

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: object) -> bool:
        self._pool.shutdown(wait=True)
        return False

    def submit(self, fn, /, *args: Any) -> Future:
        return self._pool.submit(fn, *args)


def threads(workers: int) -> Executor:
    """``workers`` threads of this process (1: :class:`Inline`)."""
    return Inline() if workers <= 1 else _Pool(ThreadPoolExecutor(max_workers=workers), workers)


def processes(workers: int) -> Executor:
    """``workers`` processes (1: :class:`Inline`, in this process)."""
    return Inline() if workers <= 1 else _Pool(ProcessPoolExecutor(max_workers=workers), workers)


def chunks(items: list, parts: int) -> list[list]:
    """``items`` in at most ``parts`` runs of consecutive items (a worker decodes a run with one open decoder)."""
    if not items:
        return []
    parts = max(1, min(parts, len(items)))
    size = -(-len(items) // parts)
    return [items[k:k + size] for k in range(0, len(items), size)]
