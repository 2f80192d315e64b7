"""Re-scoring under a time bound: ``validate_submission`` in a child process (forked: it starts at once
with everything imported), stopped when it runs past the bound. Used by the sync and the app, so a hostile
file (or a slow dataset) never holds the service.

The child sends back what the service needs: the recomputed scores, the section of the leaderboard the
submission belongs to (from the dataset's manifest) and the dataset's version; any rejection comes back as
the one-line reason.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
from dataclasses import dataclass
from pathlib import Path

from ...util.errors import StreamGazeError
from .untrusted import RESCORE_TIMEOUT_S

__all__ = ["Rescore", "rescore_bounded", "peak_child_rss_mib"]


@dataclass(frozen=True)
class Rescore:
    """A valid submission re-scored: the parsed file (converted to this schema's units), its recomputed
    scores, and the leaderboard section (key, title, note) of the dataset it was scored on."""

    submission: dict
    scores: dict
    section: tuple[str, str, str]


def _child(conn, path: str, root: str | None) -> None:
    try:
        from ...dataset.load import read_manifest
        from ...registry import get_benchmark
        from ...submission.validate import validate_submission
        from ..sections import section_of

        report = validate_submission(path, root)
        section = section_of(get_benchmark(report.benchmark), read_manifest(report.key.root))
        conn.send(("ok", (report.submission, report.scores, tuple(section))))
    except StreamGazeError as exc:
        conn.send(("error", exc.reason if exc.path == str(path) else str(exc)))
    except Exception as exc:  # noqa: BLE001 - any failure of a hostile file is a rejection, said in one line
        conn.send(("error", f"could not be re-scored: {type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def rescore_bounded(path: str | os.PathLike[str], root: str | os.PathLike[str] | None,
                    timeout_s: float = RESCORE_TIMEOUT_S) -> Rescore:
    """Validate and re-score the submission at ``path`` against ``root`` in a child process; raise
    :class:`StreamGazeError` (path = the file) with the reason of a rejection, or when it runs longer than
    ``timeout_s`` seconds (the child is stopped)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, str(path), None if root is None else str(root)), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout_s):
            raise StreamGazeError(f"re-scoring took longer than {timeout_s:g} s: stopped (the time bound of a "
                                  "submission)", Path(path))
        try:
            kind, value = parent.recv()
        except EOFError:
            raise StreamGazeError("re-scoring stopped without an answer (out of memory?)", Path(path)) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    if kind == "error":
        raise StreamGazeError(value, Path(path))
    sub, scores, section = value
    return Rescore(sub, scores, section)


def peak_child_rss_mib() -> float:
    """The largest resident set of any finished child of this process, MiB (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
