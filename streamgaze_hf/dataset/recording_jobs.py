"""A build's per-recording jobs on an executor (util/executors.py), the same way for every benchmark that builds
from raw recordings (``build streamgaze``, ``build egogazevqa``).

Every recording runs whatever the others do, under one progress bar wherever they run. A recording that fails for
a reason of its own (a damaged video) fails once; when the others have finished, one error names each recording
left out with its cause (and, on a Ray cluster, the node it failed on), before the build writes anything at its
output. On a cluster, the build says which nodes ran its recordings.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ..util.errors import StreamGazeError
from ..util.executors import RECORDING, Workers, map_settled


class RecordingsFailed(StreamGazeError):
    """Recordings that failed for reasons of their own (``failed``: video id -> why, with the node on a cluster);
    the others finished, and nothing was written at the output. ``rerun``: what a re-run does (the build's own
    resume rule; ``{done}``: how many recordings finished)."""

    def __init__(self, failed: dict[str, str], total: int, work: Path, rerun: str):
        lines = "; ".join(f"{vid}: {why}" for vid, why in sorted(failed.items()))
        super().__init__(f"{len(failed)} of {total} recordings failed and were left out, nothing was written "
                         f"({rerun.format(done=total - len(failed))}): {lines}", work)
        self.failed = failed


def run_recordings(workers: Workers, fn: Callable, jobs: Sequence[tuple], ids: Sequence[str], work: Path,
                   rerun: str, desc: str = "build", progress: bool = True, gpus: float = 0.0) -> list[Any]:
    """``fn(*job)`` for every recording's job on ``workers`` (tasks of ``RECORDING``'s size, each also asking a
    cluster for ``gpus`` GPUs), the results in the jobs' order;
    :class:`RecordingsFailed` (after every job ran) when some failed. ``ids``: the jobs' video ids; ``work``: the
    build's work directory (named by the error); ``rerun``: what a re-run does (:class:`RecordingsFailed`)."""
    executor = workers.open(replace(RECORDING, gpus=gpus), len(jobs))
    with tqdm(total=len(jobs), desc=desc, unit="video", disable=not progress) as bar:
        settled = map_settled(executor, fn, jobs, bar)
    nodes = getattr(executor, "node_summary", None)
    if nodes is not None:
        print(f"{desc}: {nodes()}", file=sys.stderr)
    failed = {vid: str(exc) if isinstance(exc, StreamGazeError) else f"{type(exc).__name__}: {exc}"
              for vid, (_, exc) in zip(ids, settled) if exc is not None}
    if failed:
        raise RecordingsFailed(failed, len(jobs), work, rerun)
    return [r for r, _ in settled]
