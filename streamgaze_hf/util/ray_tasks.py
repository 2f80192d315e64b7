"""The Ray executor (``--executor ray``): per-video calls as Ray tasks on a cluster (util/executors.py).

Imported only when a command is given ``--executor ray``: ``import ray`` costs seconds and the ``ray`` extra may
not be installed. The driver (the ``streamgaze`` process) connects once (:func:`connect`) with the cluster's
token authentication as Ray 2.60 has it by default ($RAY_AUTH_TOKEN_PATH, $RAY_AUTH_TOKEN or ~/.ray/auth_token:
Ray's own loader reads it; nothing here reads, prints or records it), and every stage submits its calls as
tasks that declare their CPUs, memory and GPUs (``executors.TaskSize``). The calls' arguments and results
are paths, options and small results: frames and videos stay on the storage every node mounts.

Faults: a task whose worker process or node dies is retried (``max_retries``, Ray's system failures); a call
that raises (a damaged video) is not retried (``retry_exceptions=False``): it fails once, and its error names the
node it ran on (:class:`TaskFailed`).
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future
from typing import Any

from .errors import StreamGazeError

#: how often a task is run again when its worker or node dies (never for the call's own error)
MAX_RETRIES = 3

_LOCK = threading.Lock()
_REMOTE: dict[tuple, Any] = {}


class TaskFailed(StreamGazeError):
    """A call's own error on a cluster node: its message, then the node (``node``: its address and id)."""

    def __init__(self, message: str, node: str):
        super().__init__(f"{message} (on node {node})")
        self.node = node
        self.message = message

    def __reduce__(self):
        return TaskFailed, (self.message, self.node)


def _ray():
    try:
        import ray
    except ImportError:
        raise StreamGazeError("--executor ray needs Ray: install the toolkit's ray extra "
                              "(pip install 'streamgaze-hf[ray]', or `make setup`)") from None
    return ray


def connect(address: str):
    """Connect this process to the cluster at ``address`` once (Ray's logs stay in the cluster's session
    directory, not on this console); the ``ray`` module. A cluster that cannot be reached is a
    :class:`StreamGazeError` naming the address."""
    ray = _ray()
    with _LOCK:
        if not ray.is_initialized():
            try:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, AuthenticationError
                raise StreamGazeError(f"cannot reach the Ray cluster at {address}: {type(exc).__name__}: "
                                      f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    return ray


def _node_names(ray) -> dict[str, str]:
    """Every node of the cluster by id, named as errors and the build's summary name it: "ADDRESS, id ID"."""
    return {n["NodeID"]: f"{n['NodeManagerAddress']}, id {n['NodeID'][:12]}" for n in ray.nodes()}


def _node() -> str:
    import ray

    node_id = ray.get_runtime_context().get_node_id()
    return _node_names(ray).get(node_id, f"?, id {node_id[:12]}")


def _on_node(fn, *args):
    """``fn(*args)`` on a worker, with the id of the node it ran on; its own error becomes a :class:`TaskFailed`
    naming this node."""
    import ray

    try:
        return fn(*args), ray.get_runtime_context().get_node_id()
    except Exception as exc:  # noqa: BLE001 - reported, never retried
        raise TaskFailed(str(exc) or type(exc).__name__, _node()) from None


def _remote(size: Any):
    """The remote function of calls of ``size`` (an ``executors.TaskSize``), made once."""
    ray = _ray()
    key = (size.cpus, size.memory, size.gpus)
    with _LOCK:
        if key not in _REMOTE:
            # the toolkit's own settings ($STREAMGAZE_*: caches, clip fps, store) as a local worker inherits them;
            # no other variable (a key an object back-end reads is the nodes' own environment's: docs/scale.md)
            env = {k: v for k, v in os.environ.items() if k.startswith("STREAMGAZE_")}
            opts = {"num_cpus": size.cpus, "max_retries": MAX_RETRIES, "retry_exceptions": False,
                    "runtime_env": {"env_vars": env}}
            if size.memory:
                opts["memory"] = size.memory
            if size.gpus:
                opts["num_gpus"] = size.gpus
            _REMOTE[key] = ray.remote(**opts)(_on_node)
    return _REMOTE[key]


class RayExecutor:
    """Calls as Ray tasks of ``size`` on the cluster at ``address``; ``workers``: how many fit on it at once."""

    def __init__(self, address: str, size: Any):
        self._ray = connect(address)
        resources = self._ray.cluster_resources()
        if size.gpus and resources.get("GPU", 0.0) < size.gpus:  # Ray would wait for such a node for ever
            raise StreamGazeError(f"the Ray cluster at {address} has {_count(resources.get('GPU', 0.0), 'GPU')}; "
                                  f"each of these tasks asks for {size.gpus:g}")
        self._task = _remote(size)
        cpus = resources.get("CPU", 1.0)
        self.workers = max(1, int(cpus // size.cpus)) if size.cpus else 1
        self._lock = threading.Lock()
        self.nodes: dict[str, int] = {}  # node id -> calls that finished there

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def submit(self, fn, /, *args: Any) -> Future:
        ref = self._task.remote(fn, *args)
        out: Future = Future()

        def settle(f: Future) -> None:
            exc = f.exception()
            if exc is None:
                result, node = f.result()
                with self._lock:
                    self.nodes[node] = self.nodes.get(node, 0) + 1
                out.set_result(result)
            else:
                out.set_exception(_unwrapped(exc))

        ref.future().add_done_callback(settle)
        return out

    def node_summary(self) -> str:
        """Which nodes ran the calls that finished: "N calls on K nodes: ADDRESS, id ID (n), ..."."""
        with self._lock:
            counts = dict(self.nodes)
        names = _node_names(self._ray)
        each = ", ".join(f"{names.get(node, f'?, id {node[:12]}')} ({n})" for node, n in sorted(counts.items()))
        return f"{_count(sum(counts.values()), 'call')} on {_count(len(counts), 'node')}: {each}"


def _count(n: float, what: str) -> str:
    return f"{n:g} {what}{'' if n == 1 else 's'}"


def _unwrapped(exc: BaseException) -> BaseException:
    """A task's own error as raised on the node (Ray wraps it in a RayTaskError); Ray's own errors (a task whose
    retries ran out, a lost object) as one-line :class:`StreamGazeError`."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, TaskFailed):
        return cause
    if isinstance(exc, TaskFailed):
        return exc
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StreamGazeError(f"a Ray task failed after {MAX_RETRIES} retries: {type(exc).__name__}: {first}")

