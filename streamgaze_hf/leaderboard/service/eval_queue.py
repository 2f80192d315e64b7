"""The leaderboard's evaluation queue: the status of every accepted evaluation request, in the requests dataset's
``queue.json`` (written by the sync only, with ``parent_commit``; the request files themselves never change).

One record per request, keyed by its pull request number, as the Hub leaderboard template's backend keeps a
request's status (PENDING -> RUNNING -> FINISHED or FAILED):

* **PENDING**: accepted (its ``Accept #N`` commit holds the request's bytes); ``reason`` says why it waits when a
  sync did not start it (the GPU-hour budget, no ``--evaluate jobs``);
* **RUNNING**: a Hub Job runs it: ``job_id``, ``job_url`` (the job's page, with its logs), ``logs_url`` (the
  API address ``fetch_job_logs`` reads), the flavor, its GPUs, the time bound, when it started, and where it
  commits the run's responses (``responses_path``);
* **FINISHED**: the job committed its responses and the sync re-scored them as a submission's: the row is in
  the results (``responses_commit``);
* **FAILED**: ``reason`` (the job's end: an error, a cancel past the time bound, responses that do not
  re-score) and the last lines of its log (``log_tail``, secrets redacted).

``gpu_hours`` is what the job used (its running seconds x the flavor's GPUs); the budget counts them
(:func:`spent_gpu_hours`). A request accepted by an interrupted sync has no record yet: it is PENDING.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ...util.errors import StreamGazeError
from .hub_commit import ATTEMPTS, commit_on_head

__all__ = ["QUEUE", "STATUSES", "QueueRecord", "QueueState", "QueueRepo", "spent_gpu_hours", "parse_queue"]

QUEUE = "queue.json"
STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")


@dataclass
class QueueRecord:
    num: int  # the request's pull request
    request_path: str
    request_commit: str  # its accept commit on main
    submitter: str
    created_at: str  # when the pull request was opened
    benchmark: str
    model_name: str
    name_key: str
    model_id: str = ""
    model_revision: str = ""  # the commit the request pins
    status: str = "PENDING"
    reason: str = ""
    job_id: str = ""
    job_url: str = ""
    logs_url: str = ""
    namespace: str = ""
    flavor: str = ""
    gpus: int = 0
    timeout_s: int = 0
    started_at: str = ""
    finished_at: str = ""
    running_s: float = 0.0
    gpu_hours: float = 0.0
    responses_path: str = ""
    responses_commit: str = ""
    log_tail: list[str] = field(default_factory=list)

    def reserved_hours(self) -> float:
        """What a RUNNING job may still cost beyond what it has used: the rest of its time bound."""
        if self.status != "RUNNING":
            return 0.0
        return max(0.0, self.timeout_s - self.running_s) * self.gpus / 3600.0


def parse_queue(text: str | None) -> dict[int, QueueRecord]:
    """``queue.json``'s text (None: no file yet) -> records by pull request number; StreamGazeError naming the file."""
    if text is None:
        return {}
    try:
        data = json.loads(text)
        names = {f.name for f in fields(QueueRecord)}
        out = {}
        for num, rec in (data.get("requests") or {}).items():
            r = QueueRecord(**{k: v for k, v in rec.items() if k in names})
            if r.status not in STATUSES or int(num) != r.num:
                raise ValueError(f"record {num}: status {r.status!r}")
            out[int(num)] = r
        return out
    except (ValueError, TypeError, AttributeError) as exc:
        raise StreamGazeError(f"not the leaderboard's queue: {str(exc).splitlines()[0][:200]}", QUEUE) from None


def dumps_queue(records: dict[int, QueueRecord]) -> bytes:
    body = {"version": 1, "requests": {str(n): asdict(records[n]) for n in sorted(records)}}
    return (json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def spent_gpu_hours(records: dict[int, QueueRecord]) -> float:
    """GPU-hours the queue's jobs used, and those still running may use up to their time bound."""
    return sum(r.gpu_hours + r.reserved_hours() for r in records.values())


@dataclass
class QueueState:
    head: str
    records: dict[int, QueueRecord]


class QueueRepo:
    """``queue.json`` of the requests dataset, read at a head and written with ``parent_commit`` = that head (a
    concurrent writer makes the Hub refuse with 412: the change is applied again to the new head)."""

    def __init__(self, api, repo: str, tmp: Path, log: Callable[[str], None] = lambda _m: None) -> None:
        self.api, self.repo, self.tmp, self.log = api, repo, tmp, log

    def read(self) -> QueueState:
        from huggingface_hub import hf_hub_download

        from .hub_push import hub_error

        try:
            head = self.api.repo_info(self.repo, repo_type="dataset").sha
            present = self.api.get_paths_info(self.repo, [QUEUE], revision=head, repo_type="dataset")
            text = (Path(hf_hub_download(self.repo, QUEUE, repo_type="dataset", revision=head,
                                         cache_dir=self.tmp / "queue-cache")).read_text(encoding="utf-8")
                    if present else None)
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading the evaluation queue of {self.repo}") from None
        return QueueState(head, parse_queue(text))

    def update(self, change: Callable[[QueueState], None], message: str) -> QueueState:
        """Read, ``change`` the records in place, commit when they changed; the state written (or read). ``change``
        may raise to give up (nothing is written)."""
        from huggingface_hub import CommitOperationAdd

        from .hub_push import hub_error

        def attempt():
            state = self.read()
            before = dumps_queue(state.records) if state.records else None
            change(state)
            after = dumps_queue(state.records)
            if after == before or (before is None and not state.records):
                return state
            state.head = self.api.create_commit(self.repo, [CommitOperationAdd(QUEUE, after)], repo_type="dataset",
                                                parent_commit=state.head, commit_message=message).oid
            return state

        return commit_on_head(
            attempt, moved=lambda: self.log("queue: another sync wrote first; reading the new head and trying again"),
            error=lambda exc: hub_error(exc, f"writing the evaluation queue of {self.repo}"),
            gave_up=StreamGazeError(f"{self.repo}: other writers kept committing to the queue; {ATTEMPTS} attempts "
                                    "failed"))
