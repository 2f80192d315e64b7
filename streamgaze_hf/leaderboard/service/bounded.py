"""Untrusted work in a child process: every check of a submission file runs where a failure costs that file
alone. Used by the sync (one child per pull request), the app's Submit tab and ``push-submission``.

:func:`run_bounded` runs a function in a child process and gives back its JSON-able result, or a
:class:`StreamGazeError` with a one-line reason, whatever happens in the child:

* any exception (``ValueError``, ``OverflowError``, ``RecursionError``, ``MemoryError``, a bug): its type and
  first line;
* the time bound: the child is killed after ``timeout_s``;
* the memory bound: the child's address space may grow by at most ``memory_mib`` beyond what it starts
  with (``RLIMIT_AS``), so an allocation past it fails as ``MemoryError`` inside the child;
* a signal (killed by the kernel's out-of-memory killer, a crash in native code): its name.

The answer comes back as JSON bytes of a bounded size (never a pickle), so nothing the child does can make
the parent run code. The child starts by ``fork`` (it starts at once with everything imported); a threaded
server (the app) uses ``forkserver`` (:func:`use_forkserver`), as forking a process with threads may
deadlock on a lock another thread held.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...util.errors import StreamGazeError
from .untrusted import RESCORE_TIMEOUT_S

__all__ = ["Rescore", "rescore_bounded", "run_bounded", "peak_child_rss_mib", "use_forkserver", "MEMORY_MIB"]

#: how much the child's address space may grow, MiB (a full-size StreamGaze submission needs well under 1 GiB)
MEMORY_MIB = 4096
#: the largest answer a child may send (a results row, or a parsed submission for ``rescore_bounded``)
_MAX_ANSWER_BYTES = 256 * 1024 * 1024
_START = {"method": "fork"}


def use_forkserver() -> None:
    """Start children from a fork server from now on (a process with threads: the app's server)."""
    _START["method"] = "forkserver"
    multiprocessing.get_context("forkserver").set_forkserver_preload([__name__, "streamgaze_hf.leaderboard.service.verdict"])


@dataclass(frozen=True)
class Rescore:
    """A valid submission re-scored: the parsed file (converted to this schema's units), its recomputed
    scores, and the leaderboard section (key, title, note) of the dataset it was scored on."""

    submission: dict
    scores: dict
    section: tuple[str, str, str]


def _limit_memory(memory_mib: float) -> None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            vm = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:")), 0)
        limit = vm + int(memory_mib * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):  # no /proc (not Linux) or a lower hard limit: the time bound still holds
        pass


def _child(conn, fn: Callable[..., object], args: tuple, memory_mib: float) -> None:
    try:
        _limit_memory(memory_mib)
        answer = ["ok", fn(*args)]
    except StreamGazeError as exc:
        answer = ["error", exc.reason if exc.path and exc.path == str(args[0]) else str(exc)]
    except MemoryError:
        answer = ["error", f"re-scoring needed more than {memory_mib:g} MiB of memory: stopped"]
    except BaseException as exc:  # noqa: BLE001 - any failure of a hostile file is a rejection, said in one line
        first = (str(exc).splitlines() or [""])[0][:200]
        answer = ["error", f"could not be re-scored: {type(exc).__name__}: {first}"]
    try:
        conn.send_bytes(json.dumps(answer, allow_nan=False).encode("utf-8"))
    except BaseException as exc:  # noqa: BLE001 - e.g. an answer that is not JSON
        conn.send_bytes(json.dumps(["error", f"could not be re-scored: {type(exc).__name__}"]).encode())
    finally:
        conn.close()


def run_bounded(fn: Callable[..., object], args: tuple, *, timeout_s: float = RESCORE_TIMEOUT_S,
                memory_mib: float = MEMORY_MIB, where: str | os.PathLike[str] | None = None):
    """``fn(*args)`` in a child process under the time and memory bounds (module docstring); its result
    (JSON), or StreamGazeError (path = ``where``) with the reason."""
    ctx = multiprocessing.get_context(_START["method"])
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args, memory_mib), daemon=True)
    proc.start()
    child.close()
    path = None if where is None else Path(where)
    try:
        if not parent.poll(timeout_s):
            raise StreamGazeError(f"re-scoring took longer than {timeout_s:g} s: stopped (the time bound of a "
                                  "submission)", path)
        try:
            data = parent.recv_bytes(_MAX_ANSWER_BYTES)
        except (EOFError, OSError):
            proc.join(5)
            code = proc.exitcode
            how = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 and
                   -code in signal.valid_signals() else f"exit status {code}")
            raise StreamGazeError(f"re-scoring stopped without an answer ({how}: out of memory?)", path) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    kind, value = json.loads(data)
    if kind == "error":
        raise StreamGazeError(value, path)
    return value


def _rescore(path: str, root: str | None) -> list:
    from ...submission import validate_submission
    from ..sections import section_of

    report = validate_submission(path, root)
    section = section_of(report.bench, report.key.dataset.manifest)
    return [report.submission, report.scores, list(section)]


def rescore_bounded(path: str | os.PathLike[str], root: str | os.PathLike[str] | None,
                    timeout_s: float = RESCORE_TIMEOUT_S) -> Rescore:
    """Validate and re-score the submission at ``path`` against ``root`` in a child process; raise
    :class:`StreamGazeError` (path = the file) with the reason of a rejection, or when it runs longer than
    ``timeout_s`` seconds (the child is stopped)."""
    sub, scores, section = run_bounded(_rescore, (str(path), None if root is None else str(root)),
                                       timeout_s=timeout_s, where=path)
    return Rescore(sub, scores, tuple(section))


def peak_child_rss_mib() -> float:
    """The largest resident set of any finished child of this process, MiB (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
