"""One snapshot of what a sync decides over: the requests dataset as it was read when the sync started
(:class:`~.requests_hub.RequestsRead`), the results dataset (:class:`~.results_repo.ResultsState`), the evaluation
queue, and what follows from them: what the accepted rows claim (:class:`~.claims.Claims`: who owns which model
name, each submitter's runs and the pull requests counted against their quota, the raw responses' digests of
accepted rows) and the evaluation requests accepted so far.

The sync's checks (:mod:`.acceptance`) and its evaluation step (:mod:`.evaluations`) read it through these
public names only; the sync records each acceptance with :meth:`SyncState.own`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .claims import Claims
from .eval_queue import QueueRecord, QueueRepo
from .ledger import Accepted
from .pinning import ListedDataset
from .quota import parse_time
from .requests_hub import RequestsRead
from .results_repo import ResultsState

__all__ = ["SyncState", "JobsAccess"]


@dataclass(frozen=True)
class JobsAccess:
    """How the sync runs evaluation requests as Hub Jobs (``--evaluate jobs``): the settings
    (:class:`~.jobs.JobSettings`), the maintainer's token (the jobs' secret), its user (the default namespace) and
    the GPUs of the flavor; ``settings`` None: requests wait in the queue."""

    settings: object | None = None
    token: str | None = None
    user: str = ""
    gpus: int = 0


@dataclass
class SyncState(Claims):
    """The snapshot (see the module docstring). ``requests``/``results``: the repositories; ``now``: the sync's
    clock; ``tmp``: its work folder; ``listed``: the answer keys the maintainer listed."""

    requests: str
    results: str
    now: datetime
    tmp: Path
    listed: dict[str, list[ListedDataset]]
    read: RequestsRead
    rows: ResultsState
    queue: QueueRepo
    queued: dict[int, QueueRecord]
    asked: dict[str, int] = field(default_factory=dict)  # an evaluation request's digest -> its pull request

    @classmethod
    def build(cls, requests: str, results: str, now: datetime, tmp: Path, listed: dict, read: RequestsRead,
              rows: ResultsState, queue: QueueRepo) -> SyncState:
        """The snapshot of what was read, with the owners, runs, quota counts and fingerprints of its rows, of the
        accepted pull requests whose row is missing, and of the queued requests."""
        state = cls(requests, results, now, tmp, listed, read, rows, queue, queue.read().records)
        ordered = sorted((r for rs in rows.rows.values() for r in rs), key=lambda r: r["pr_number"])
        for r in ordered:
            state.own(r)
        with_rows = {r["pr_number"] for r in ordered}
        for num, acc in sorted(read.ledger.items()):
            if acc.responses and num not in with_rows:
                state.fingerprints.setdefault(acc.responses, (num, "", acc.submitter))
        for rec in state.queued.values():
            if rec.num not in with_rows:  # waiting or running: counted, its name owned
                state.own({"name_key": rec.name_key, "model_name": rec.model_name, "submitter": rec.submitter,
                           "pr_number": rec.num, "created_at": rec.created_at})
        return state

    @property
    def ledger(self) -> dict[int, Accepted]:
        return self.read.ledger

    @property
    def discussions(self) -> dict[int, object]:
        return self.read.discussions

    def count(self, submitter: str, when: datetime | None) -> None:
        """Count a pull request left open against ``submitter``'s quota."""
        self.counted.setdefault(submitter, []).append(when or self.now)

    def opened(self, num: int) -> str:
        """When pull request ``num`` was opened (the sync's clock when the Hub does not say)."""
        pr = self.read.discussions.get(num)
        return (parse_time(pr.created_at) if pr else self.now).strftime("%Y-%m-%dT%H:%M:%SZ")
