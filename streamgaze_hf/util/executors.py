"""Where per-video work runs: the one executor seam of the toolkit.

Every heavy job is per video: a build's recordings (``build BENCH``), its proxies (dataset/proxies.py) and
previews (dataset/viewer.py), the clips of ``clips warm`` and the decode units of a frames pass
(``evaluation/ready.run_passes``). Each hands its work out as calls of module-level functions with small, picklable
arguments (paths, options, plans) whose results are small (paths, counts, digests): frames and videos stay on
storage every worker sees, so the work can run anywhere that storage is mounted.

An executor is anything with ``submit(fn, *args) -> concurrent.futures.Future`` and ``workers`` (how many calls it
runs at once: a pass splits its units into that many runs); it is a context manager that waits for its calls on
exit. Here:

* :class:`Inline`: each call runs at once on the calling thread (``ready.ready_clips``, ``--workers 1``);
* :func:`threads`: a thread pool;
* :func:`processes`: a process pool (``--workers N``);
* a Ray cluster's tasks (``--executor ray``, util/ray_tasks.py, imported only then).

A command is told where its work runs by a :class:`Workers` (``--workers``, ``--executor``, ``--ray-address``: the
same options on every verb, cli/base.py ``executor_args``), and each of its stages opens an executor from it with
the resources one of its calls needs (:class:`TaskSize`). :func:`map_ordered` and :func:`map_settled` run a list
of jobs on one with one progress bar, the results in the jobs' order whatever order they finish in (same inputs,
same bytes, wherever they ran).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import StreamGazeError
from .preflight import positive

#: ``--executor`` names
EXECUTORS = ("local", "ray")


class Executor(Protocol):
    """What the per-video work asks of an executor (module docstring)."""

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


@dataclass(frozen=True)
class TaskSize:
    """What one call of a stage asks of the node it runs on: Ray schedules by it (``num_cpus``, ``memory``,
    ``num_gpus``); a local pool runs one call per process whatever it says."""

    cpus: float = 1.0
    memory: int = 0  # bytes of memory the call may use at its peak (0: none declared)
    gpus: float = 0.0


#: one recording through the raw pipeline (``build``): its video decoded once, two encoders. Measured peak RSS of
#: one recording in a fresh process: 226 MB (320x240 demo recording, 90 s), 333 MB (1280x720, 30 s); 1 GiB leaves
#: room for 1080p and long recordings (the gaze track grows with the duration, the frames do not)
RECORDING = TaskSize(1.0, 1 << 30)
#: one small copy of a video (a proxy, a preview) or one clip
SMALL_VIDEO = TaskSize(1.0, 512 << 20)


@dataclass(frozen=True)
class Workers:
    """Where a command's per-video work runs: ``count`` local processes (1: in this process), or with
    ``executor="ray"`` Ray tasks on the cluster at ``address`` ("": ``$RAY_ADDRESS``), as many at once as the
    cluster has room for."""

    count: int = 1
    executor: str = "local"
    address: str = ""

    @property
    def on_cluster(self) -> bool:
        return self.executor == "ray"

    def check(self) -> None:
        """The options checked before any work (and the cluster reached, for Ray): a clear error otherwise."""
        if self.executor not in EXECUTORS:
            raise StreamGazeError(f"--executor must be one of {', '.join(EXECUTORS)}, got {self.executor!r}")
        positive(self.count, "--workers", integer=True)
        if self.address and not self.on_cluster:
            raise StreamGazeError("--ray-address is the Ray executor's: add --executor ray")
        if self.on_cluster:
            from . import ray_tasks

            ray_tasks.connect(self.cluster_address())

    def cluster_address(self) -> str:
        address = self.address or os.environ.get("RAY_ADDRESS", "")
        if not address:
            raise StreamGazeError("--executor ray needs the cluster's address: --ray-address HOST:PORT or $RAY_ADDRESS")
        return address

    def open(self, size: TaskSize = TaskSize(), jobs: int | None = None) -> Executor:
        """An executor for calls of ``size`` (at most ``jobs`` at once locally: no idle processes)."""
        if self.on_cluster:
            from . import ray_tasks

            return ray_tasks.RayExecutor(self.cluster_address(), size)
        return processes(self.count if jobs is None else max(1, min(self.count, jobs)))


def check_gpu_ask(gpus: float, workers: Workers, option: str, applies: bool = True, needs: str = "") -> None:
    """A stage's GPU ask (``option``, e.g. ``--vlm-gpus``), checked before any work: a number >= 0, and only where
    it means something: on a Ray cluster (a local pool runs its calls on this machine whatever they ask), and when
    the stage runs (``applies``; else ``needs`` names what makes it run). The cluster's own GPUs are checked when
    the stage opens its executor (:class:`~streamgaze_hf.util.ray_tasks.RayExecutor`)."""
    import math

    if not isinstance(gpus, (int, float)) or isinstance(gpus, bool) or not math.isfinite(gpus) or gpus < 0:
        raise StreamGazeError(f"{option} must be a number of GPUs >= 0, got {gpus!r}")
    if not gpus:
        return
    if not workers.on_cluster:
        raise StreamGazeError(f"{option} asks a Ray cluster for GPUs: add --executor ray (a local process pool runs "
                              "its calls on this machine, whatever they ask)")
    if not applies:
        raise StreamGazeError(f"{option} is for a stage this build does not run: it needs {needs}")


def as_workers(workers: int | Workers) -> Workers:
    """A worker count (local processes) or a :class:`Workers` as a :class:`Workers`."""
    return workers if isinstance(workers, Workers) else Workers(count=workers)


def map_settled(executor: Executor, fn: Callable, jobs: Sequence[tuple], bar=None) -> list[tuple[Any, BaseException | None]]:
    """``fn(*job)`` for every job on ``executor``: (result, None) or (None, the error) per job, in the jobs' order;
    every job runs whatever the others do (``bar`` ticks as each finishes)."""
    if isinstance(executor, Inline):
        out = []
        for job in jobs:
            out.append(_settle(executor.submit(fn, *job)))
            if bar is not None:
                bar.update()
        return out
    with executor:
        futures = [executor.submit(fn, *job) for job in jobs]
        for _ in as_completed(futures):
            if bar is not None:
                bar.update()
        return [_settle(f) for f in futures]


def _settle(f: Future) -> tuple[Any, BaseException | None]:
    exc = f.exception()
    if exc is not None and not isinstance(exc, Exception):  # an interrupt is never a job's own failure
        raise exc
    return (None, exc) if exc is not None else (f.result(), None)


def map_ordered(executor: Executor, fn: Callable, jobs: Sequence[tuple], bar=None) -> list:
    """``fn(*job)`` for every job on ``executor``, the results in the jobs' order; the first job's error (in that
    order) is raised, after every job ran (``bar`` ticks as each finishes; inline, the first error stops)."""
    if isinstance(executor, Inline):
        out = []
        for job in jobs:
            out.append(fn(*job))
            if bar is not None:
                bar.update()
        return out
    settled = map_settled(executor, fn, jobs, bar)
    for _, exc in settled:
        if exc is not None:
            raise exc
    return [r for r, _ in settled]
