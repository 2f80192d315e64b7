"""The sync's evaluation step: the queue of accepted evaluation requests run as Hub Jobs (``leaderboard sync
--evaluate jobs --flavor F [--namespace NS] [--image IMAGE] [--job-timeout T]``).

Each sync, after the pull requests are decided (:mod:`.sync`):

1. newly accepted requests join the queue as PENDING (:mod:`.eval_queue`); so does a request an interrupted sync
   accepted without writing its record;
2. RUNNING requests: the job is read (``inspect_job``). Still running past the time bound: ``cancel_job``, FAILED
   ("cancelled"). Ended: COMPLETED with its responses committed -> re-scored exactly as a submission
   (the sync's ``decide`` on the bytes at ``evaluations/...``), the row marked ``evaluated_by:
   leaderboard`` with the job -> FINISHED; any other end (an error, a cancel, no responses, responses that do not
   re-score) -> FAILED with the reason and the last lines of the job's log (``fetch_job_logs``), secrets redacted;
3. a FINISHED request whose row is missing (an interrupted sync) is re-scored again;
4. PENDING requests, oldest first, each claimed with ``parent_commit`` on ``queue.json`` (two syncs never start two
   jobs for one request), while the GPU-hour budget (``gpu_hours_budget`` in the results dataset's
   ``leaderboard.yaml``) covers what is spent (finished jobs' running time x GPUs) and reserved (running jobs up to
   their time bound) plus the new job's time bound: otherwise it waits, with that reason on its record;
5. ``queue.json`` is written, and each change of status is a comment on the request's pull request (the job's
   page and logs when it starts; the table, or the reason and the log's last lines, when it ends).

Without ``--evaluate jobs`` requests wait in the queue (PENDING) and nothing else happens.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from ... import __version__
from ...registry import get_benchmark
from ...util.errors import StreamGazeError
from .eval_queue import QueueRecord, QueueState, spent_gpu_hours
from .requests_hub import RequestsHub
from .sync_state import JobsAccess, SyncState
from .untrusted import comment_text, repo_path, terminal_text

__all__ = ["Evaluations", "accepted_request_comment", "EVALUATED_BY"]

#: the ``evaluated_by`` value of a row the leaderboard's own job made
EVALUATED_BY = "leaderboard"


class _Skip(Exception):
    """A request another sync took meanwhile, or one the budget does not cover (its reason)."""


def accepted_request_comment(d, link: str, evaluating: bool) -> str:
    """The comment closing an accepted evaluation request's pull request."""
    req = d.request_body
    m, lm, st, ds = req["model"], req["lmms_eval"], req["settings"], req["dataset"]
    when = ("The leaderboard's sync starts a Hub Job for it within its GPU-hour budget; this pull request gets a "
            "comment when the job starts and when it ends." if evaluating else
            "It waits in the queue until the maintainer's sync runs evaluations (`--evaluate jobs`).")
    warn = f" {comment_text(d.request.reason)}." if d.request.reason else ""
    return (f"**Accepted** as an evaluation request (status PENDING): {comment_text(m['id'])} at commit "
            f"{comment_text(m['revision'][:12])}, lmms-eval's {comment_text(lm['model'])}"
            f"{' with ' + comment_text(lm['model_args']) if lm['model_args'] else ''}, {comment_text(st['gaze'])} gaze, "
            f"{comment_text(st['prompt_mode'])} prompts, on {comment_text(ds['repo'])} at "
            f"{comment_text(ds['commit'][:12])}.{warn}\n\n{when}\n\nThe request's bytes were committed by the sync "
            f"itself: {link} (this pull request is closed, not merged).")


def _now_text(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Evaluations:
    """One sync's evaluation step (the module docstring): a second pipeline over the sync's snapshot ``state``,
    through its Hub adapter ``hub``; ``jobs``: how jobs run; ``decide(num, path, data, submitter, done=)``: the
    sync's decision on a submission's bytes (:meth:`.sync._Sync.decide`), which re-scores a job's responses;
    ``report``: the sync's report (``left``, ``evaluations``)."""

    def __init__(self, state: SyncState, hub: RequestsHub, jobs: JobsAccess, decide: Callable, report,
                 log: Callable[[str], None]) -> None:
        self.state, self.hub, self.jobs, self.decide, self.report = state, hub, jobs, decide, report
        self.api, self.log = hub.api, log
        self.settings = jobs.settings
        self.records: dict[int, QueueRecord] = dict(state.queued)
        self.changed: set[int] = set()
        self.comments: list[tuple[int, str]] = []
        self._wheel: tuple[str, str] | None = None

    # ---- the step ---------------------------------------------------------------------------------------
    def run(self, new: list[QueueRecord]) -> list[dict]:
        """Steps 1-5; the rows of the requests evaluated now (and of finished ones whose row was missing)."""
        for rec in new:
            self._set(rec)
        self._missing_records()
        rows: list[dict] = []
        if self.settings is not None:
            have = self.state.rows.pr_numbers
            for rec in sorted(self.records.values(), key=lambda r: r.num):
                if rec.status == "RUNNING":
                    row = self._follow(rec)
                    if row is not None:
                        rows.append(row)
                elif rec.status == "FINISHED" and rec.num not in have:
                    row = self._score(rec)
                    if row is not None:
                        rows.append(row)
            for rec in sorted(self.records.values(), key=lambda r: (r.created_at, r.num)):
                if rec.status == "PENDING" and not self._start(rec):
                    break
        else:
            for rec in self.records.values():
                if rec.status == "PENDING" and not rec.reason:
                    rec.reason = "waiting for the maintainer's sync with --evaluate jobs"
                    self.changed.add(rec.num)
        self._write()
        return rows

    def _set(self, rec: QueueRecord) -> None:
        self.records[rec.num] = rec
        self.changed.add(rec.num)

    def _line(self, text: str) -> None:
        self.report.evaluations.append(text)
        self.log(text)

    def _missing_records(self) -> None:
        """Requests in the ledger (accepted) without a queue record: an interrupted sync; PENDING now."""
        from .eval_requests import parse_request
        from .names import name_key

        for num, acc in sorted(self.state.ledger.items()):
            if not acc.path.startswith("requests/") or num in self.records:
                continue
            try:
                req = parse_request(self.hub.read_file(acc.path, acc.commit))
            except Exception as exc:  # noqa: BLE001
                self._line(f"#{num}: its queue record is missing and the request does not read now: "
                           f"{terminal_text(exc)}")
                continue
            from .quota import parse_time

            opened = self.state.discussions.get(num)
            created = _now_text((parse_time(opened.created_at) if opened is not None else None) or self.state.now)
            self._set(QueueRecord(num, acc.path, acc.commit, acc.submitter, created, req["benchmark"],
                                  req["model"]["name"], name_key(req["model"]["name"]), req["model"]["id"],
                                  req["model"]["revision"]))
            self._line(f"#{num}: accepted earlier, queued now (PENDING)")

    # ---- RUNNING ----------------------------------------------------------------------------------------
    def _follow(self, rec: QueueRecord) -> dict | None:
        from .jobs import cancel, job_state

        if not rec.job_id:  # claimed by a sync that stopped before the Hub answered: start it again
            rec.status, rec.reason = "PENDING", "its job did not start: queued again"
            self.changed.add(rec.num)
            return None
        try:
            state = job_state(self.api, rec.job_id, rec.namespace)
        except Exception as exc:  # noqa: BLE001 - the Hub: the record stays RUNNING for the next sync
            from .hub_push import hub_error

            self.report.left.append((rec.num, hub_error(exc, f"reading job {rec.job_id}").reason))
            return None
        rec.running_s = state.running_s
        rec.gpu_hours = round(state.running_s * rec.gpus / 3600.0, 6)
        self.changed.add(rec.num)
        if not state.done:
            if state.running_s <= rec.timeout_s:
                self._line(f"#{rec.num}: job {rec.job_id} {state.stage.lower()} for {state.running_s:.0f} s")
                return None
            try:
                cancel(self.api, rec.job_id, rec.namespace)
            except Exception as exc:  # noqa: BLE001
                from .hub_push import hub_error

                self.report.left.append((rec.num, hub_error(exc, f"cancelling job {rec.job_id}").reason))
                return None
            return self._failed(rec, f"cancelled: the job ran {state.running_s:.0f} s, longer than its time bound of "
                                     f"{rec.timeout_s} s (--job-timeout)", when=self.state.now)
        rec.finished_at = state.finished_at or _now_text(self.state.now)
        if state.stage != "COMPLETED":
            why = f"the job ended {state.stage}" + (f": {state.message}" if state.message else "")
            return self._failed(rec, why)
        return self._score(rec)

    def _failed(self, rec: QueueRecord, reason: str, when: datetime | None = None) -> None:
        from .jobs import log_tail

        rec.status, rec.reason = "FAILED", reason
        if when is not None:
            rec.finished_at = _now_text(when)
        rec.log_tail = log_tail(self.api, rec.job_id, rec.namespace, self.jobs.token) if rec.job_id else []
        self.changed.add(rec.num)
        self._line(f"#{rec.num} FAILED: {terminal_text(reason)}")
        tail = "\n".join(f"> {comment_text(line)}" for line in rec.log_tail) or "> (no log lines)"
        self.comments.append((rec.num, f"**Evaluation failed**: {comment_text(reason)}\n\nThe last lines of the "
                                       f"job's log ({comment_text(rec.job_url)}):\n\n{tail}\n\nThe request stays in "
                                       "the queue as FAILED; a new request (a new pull request) runs it again."))
        return None

    def _score(self, rec: QueueRecord) -> dict | None:
        """Re-score the responses the job committed, as a submission's; FINISHED with its row, or FAILED."""
        try:
            head, present = self.hub.head_holding(rec.responses_path)
        except Exception as exc:  # noqa: BLE001
            from .hub_push import hub_error

            self.report.left.append((rec.num, hub_error(exc, "reading the evaluation's responses").reason))
            return None
        if not present:
            return self._failed(rec, f"the job ended without committing its responses ({rec.responses_path})")
        if not rec.responses_commit:
            from .job_run import evaluation_title

            title = evaluation_title(rec.num, rec.responses_path)
            rec.responses_commit = self.hub.commit_titled(title, head) or head
        try:
            data = self.hub.download(rec.num, rec.responses_path, rec.responses_commit)
        except Exception as exc:  # noqa: BLE001 - _Left (the Hub) or a refusal: said on the record
            return self._failed(rec, f"its responses could not be read: {terminal_text(exc)}")
        d = self.decide(rec.num, rec.responses_path, data, rec.submitter, done=rec.responses_commit)
        if not d.accept:
            return self._failed(rec, f"its responses do not re-score: {d.reason}")
        row = d.row
        row.update(evaluated_by=EVALUATED_BY, job_id=rec.job_id, job_url=rec.job_url,
                   requests_commit=rec.responses_commit, created_at=rec.created_at or row["created_at"])
        if rec.model_revision:
            row["model_commit"] = rec.model_revision
        rec.status, rec.reason = "FINISHED", ""
        self.changed.add(rec.num)
        self._line(f"#{rec.num} FINISHED: {terminal_text(rec.model_name)} evaluated by the leaderboard "
                   f"(job {rec.job_id}, {rec.running_s:.0f} s, {rec.gpu_hours:.4f} GPU-hours)")
        from .comments import scored_table

        self.comments.append((rec.num, f"**Evaluated by the leaderboard**: the job {comment_text(rec.job_url)} ran "
                                       f"{rec.running_s:.0f} s on {comment_text(rec.flavor)}; its responses "
                                       f"({comment_text(rec.responses_path)}) were re-scored as a submission's.\n\n"
                                       f"{scored_table(get_benchmark(rec.benchmark), row)}\n\nThe row, marked "
                                       f"\"evaluated by the leaderboard\", is in {comment_text(self.state.results)}."))
        return row

    # ---- PENDING -> RUNNING ----------------------------------------------------------------------------
    def _start(self, rec: QueueRecord) -> bool:
        """Claim and start the job of one PENDING request; False when the budget stops the starts."""
        from ...util.provenance import toolkit_description
        from .jobs import job_script, start_job, toolkit_wheel_url

        settings, gpus, budget = self.settings, self.jobs.gpus, self.state.rows.config.gpu_hours_budget
        need = settings.timeout_s * gpus / 3600.0
        responses = repo_path("evaluations", rec.benchmark, rec.model_name, self.state.now)

        def claim(state: QueueState) -> None:
            cur = state.records.get(rec.num)
            if cur is None:
                state.records[rec.num] = cur = rec
            if cur.status != "PENDING":
                raise _Skip("")
            spent = spent_gpu_hours(state.records)
            if budget is None or spent + need > budget:
                raise _Skip(f"waiting for GPU-hours: the budget of {budget or 0:g} GPU-hours (gpu_hours_budget in "
                            f"leaderboard.yaml) is spent: {spent:.3f} used or reserved by the leaderboard's jobs, and "
                            f"a job on {settings.flavor} may take {need:.3f} ({settings.timeout_s} s x {gpus} GPU)")
            cur.status, cur.reason, cur.flavor, cur.gpus = "RUNNING", "starting its job", settings.flavor, gpus
            cur.timeout_s, cur.responses_path, cur.started_at = settings.timeout_s, responses, _now_text(self.state.now)
            cur.namespace = settings.namespace or self.jobs.user

        try:
            state = self.state.queue.update(claim, f"queue: start request #{rec.num}")
        except _Skip as skip:
            if str(skip):
                rec.reason = str(skip)
                self.changed.add(rec.num)
                self._line(f"#{rec.num} PENDING: {str(skip)}")
                return False
            self.records.pop(rec.num, None)  # another sync has it: its record is theirs
            self.changed.discard(rec.num)
            return True
        cur = state.records[rec.num]
        self.records[rec.num] = cur
        self.changed.add(rec.num)
        try:
            if self._wheel is None:
                self._wheel = toolkit_wheel_url(self.api, self.state.requests, self.state.tmp)
            script = job_script(requests=self.state.requests, request_path=cur.request_path,
                                request_commit=cur.request_commit, num=cur.num, responses_path=responses,
                                wheel_url=self._wheel[0], wheel_sha256=self._wheel[1],
                                version_line=toolkit_description())
            info = start_job(self.api, settings, script, token=self.jobs.token, requests=self.state.requests,
                             num=cur.num)
        except StreamGazeError as exc:
            cur.status, cur.reason = "PENDING", f"its job could not start: {exc.reason}"
            self.report.left.append((cur.num, cur.reason))
            self._line(f"#{cur.num} PENDING: {terminal_text(cur.reason)}")
            return False
        from huggingface_hub import constants

        cur.job_id, cur.job_url, cur.reason = info.id, info.url, ""
        cur.logs_url = f"{constants.ENDPOINT.rstrip('/')}/api/jobs/{cur.namespace}/{info.id}/logs"
        self._line(f"#{cur.num} RUNNING: job {info.id} on {settings.flavor} ({info.url})")
        self.comments.append((cur.num, f"**Evaluation started**: Hub Job {comment_text(info.url)} on "
                                       f"{comment_text(settings.flavor)}, at most {settings.timeout_s} s "
                                       f"({__version__} of streamgaze-toolkit). Its log: "
                                       f"{comment_text(cur.logs_url)}. The next sync after it ends re-scores its "
                                       "responses."))
        return True

    # ---- writing ----------------------------------------------------------------------------------------
    def _write(self) -> None:
        if self.changed:
            mine = {n: self.records[n] for n in self.changed if n in self.records}

            def change(state: QueueState) -> None:
                state.records.update(mine)

            self.state.queue.update(change, f"queue: {len(mine)} request(s) updated by leaderboard sync")
        for num, text in self.comments:
            try:
                self.hub.comment(num, text)
            except Exception as exc:  # noqa: BLE001 - the queue holds the status: the comment is a courtesy
                self.log(f"#{num}: the comment could not be posted ({terminal_text(exc)})")
