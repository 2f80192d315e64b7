"""``streamgaze leaderboard sync``: the maintainer's step between the requests and the results datasets.

Guarantees (docs/leaderboard.md "What the sync guarantees"):

* **No input stops it.** Everything that reads a submission file runs in a bounded child process
  (:mod:`.verdict`, :mod:`.bounded`): any exception, limit or signal there closes that pull request with a
  one-line reason and the sync goes on. A pull request the sync could not read because of the Hub (a network
  failure) is left open for the next sync. The results are written for every accepted pull request; the exit
  status says whether the sync itself failed (exit 1 when a pull request was left because of the Hub).
* **Only the maintainer's answer keys.** Every ``--dataset`` is resolved once, when the sync starts
  (:mod:`.pinning`); a submission is re-scored only against a listed commit.
* **Merged is scored.** A pull request's file is read at the head commit listed when the sync started (never
  the moving ``refs/pr/N``), re-scored, and those bytes are committed onto ``main`` by the sync itself
  (:mod:`.ledger`); the pull request is then closed with the comment and a link to that commit. Nothing its
  author pushes later can land.

Per open pull request, cheapest check first (the ordered checks of :mod:`.acceptance`, over one snapshot of the
state, :mod:`.sync_state`): the submitter (:mod:`.identity`); exactly one new file at a submission path that
``main`` does not hold; the quota (:mod:`.quota`); the file's size from the Hub's listing; the bounded child
(limits, path, oracle, pinning, re-score, the results row); the model name against other submitters' rows
(:mod:`.names`); the Hub model it names (:mod:`.model_checks`). Every read and write of the requests dataset goes
through one adapter (:mod:`.requests_hub`). Then the accept commit and
the close with its comment (one request: a pull request another sync closed refuses it, so each pull request
gets one comment). At the end the results dataset gets the accepted rows (:mod:`.results_repo`): rows are
keyed by pull request number, accepted submissions missing their row (an interrupted sync) are re-scored from
the bytes on ``main`` and added; with ``--model-card-prs`` each new row naming a Hub model gets its pull
request on the model's repository (:mod:`.eval_results`).

A pull request adding an evaluation request (``requests/...``, :mod:`.eval_requests`) is checked the same way
(submitter, shape, quota, size, the file in the bounded child, the name, the Hub model at its pinned commit) and
accepted into the queue as PENDING (:mod:`.eval_queue`); with ``--evaluate jobs`` the sync runs the queue
(:mod:`.evaluations`: one Hub Job per PENDING request within the GPU-hour budget, RUNNING ones followed, finished
ones re-scored as submissions and marked "evaluated by the leaderboard"). A submission whose raw responses equal an
accepted row's is refused, naming that row (submission/fingerprint.py).
"""


from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ... import __version__
from ...util.errors import StreamGazeError
from .acceptance import FRESH, REQUESTED, SCORED, SHAPE, PullRequest, first_refusal
from .bounded import run_bounded
from .comments import scored_table
from .eval_queue import QueueRecord, QueueRepo
from .eval_requests import request_digest, request_verdict
from .evaluations import Evaluations, accepted_request_comment
from .hub_push import hub_api, hub_error
from .identity import submitter_of
from .ledger import git_blob_id
from .model_checks import check_model, check_revision
from .pinning import listed_datasets
from .quota import DEFAULT_QUOTA, parse_time
from .requests_hub import Left, RequestsHub, changed_files
from .results_repo import ResultsRepo, ResultsState
from .sync_state import JobsAccess, SyncState
from .traces import frames_path, traces_parquet, traces_path, traces_url, with_frames
from .untrusted import RESCORE_TIMEOUT_S, comment_text, row_benchmark, terminal_text
from .verdict import Verdict, verdict

__all__ = ["sync", "SyncReport", "Decision", "scored_table", "git_blob_id", "SyncOptions"]


@dataclass
class Decision:
    num: int
    accept: bool
    reason: str = ""  # why it was rejected (one line)
    row: dict | None = None
    path: str = ""
    data: bytes = b""  # the bytes that were re-scored
    done: str = ""  # the accept commit when an earlier sync already made it
    request: QueueRecord | None = None  # an evaluation request's queue record (its row comes when it is evaluated)
    request_body: dict | None = None


@dataclass
class SyncReport:
    accepted: list[int] = field(default_factory=list)
    closed: list[tuple[int, str]] = field(default_factory=list)
    left: list[tuple[int, str]] = field(default_factory=list)  # not decided: the Hub failed on them
    skipped: list[int] = field(default_factory=list)  # acted on by another sync meanwhile
    recovered: list[int] = field(default_factory=list)  # accepted earlier, their rows added now
    model_card_prs: list[str] = field(default_factory=list)
    commit: str | None = None  # the results commit made (None: nothing changed)
    evaluations: list[str] = field(default_factory=list)  # what happened to the queue (one line each, as logged)

    @property
    def failed(self) -> bool:
        """Whether the sync itself failed on something (a pull request left because of the Hub)."""
        return bool(self.left)

    def summary(self) -> str:
        closed = f"closed {len(self.closed)}"
        if self.closed:
            closed += " (" + "; ".join(f"#{n}: {terminal_text(r)}" for n, r in self.closed) + ")"
        left = f"left {len(self.left)}"
        if self.left:
            left += " (" + "; ".join(f"#{n}: {terminal_text(r)}" for n, r in self.left) + ")"
        return f"accepted {len(self.accepted)}, {closed}, {left}"

    def format(self) -> str:
        lines = [f"#{n} accepted earlier: its row added now" for n in self.recovered]
        lines += [f"#{n} already handled by another sync" for n in self.skipped]
        lines += [f"model card pull request: {u}" for u in self.model_card_prs]
        lines.append(f"results: commit {self.commit}" if self.commit else "results: unchanged")
        lines.append(self.summary())
        return "\n".join(lines)


@dataclass(frozen=True)
class SyncOptions:
    """The sync's settings beyond its repositories: the time bound of one re-score, the quota (N per 7 days),
    the model-card pull requests, the clock (tests), and how evaluation requests are run (None: they wait in the
    queue; a :class:`~.jobs.JobSettings`: as Hub Jobs, ``--evaluate jobs``)."""

    timeout_s: float = RESCORE_TIMEOUT_S
    quota: int = DEFAULT_QUOTA
    model_card_prs: bool = False
    now: datetime | None = None
    evaluate: object | None = None


def _jobs_access(api, token: str | None, settings) -> JobsAccess:
    """``--evaluate jobs``: the token (it reaches the jobs as their secret), its user (the default namespace) and
    the flavor's GPUs, checked before the sync reads anything."""
    from huggingface_hub import get_token

    from .jobs import flavor_gpus

    token = token or get_token()
    if not token:
        raise StreamGazeError("--evaluate jobs: the jobs commit their responses with the maintainer's token, as a "
                              "Job secret: set HF_TOKEN (or `hf auth login`)")
    try:
        user = api.whoami()["name"]
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "who runs the jobs (whoami)") from None
    return JobsAccess(settings, token, user, flavor_gpus(api, settings.flavor))


class _Sync:
    """One sync: the pull requests decided over the snapshot :attr:`state` (filled by :meth:`start`), through the
    Hub adapter :attr:`hub`; then the evaluation step, a second pipeline over the same state, and the results."""

    def __init__(self, requests: str, results: str, datasets: Sequence[str], token: str | None, options: SyncOptions,
                 log: Callable[[str], None], tmp: Path) -> None:
        self.api = hub_api(token)
        self.hub = RequestsHub(self.api, requests, tmp)
        self.results, self.options, self.log, self.tmp = results, options, log, tmp
        self.hub.require(results)  # before the datasets are fetched, before anything is created
        self.now = options.now or datetime.now(timezone.utc)
        self.jobs = JobsAccess(token=token) if options.evaluate is None else _jobs_access(self.api, token,
                                                                                          options.evaluate)
        self.listed = listed_datasets(datasets, self.api)
        self.store = ResultsRepo(self.api, results, tmp, log)
        self.traces: dict[int, list[dict]] = {}  # pull request number -> the accepted row's traces (.traces)

    def start(self) -> None:
        """Read the requests dataset, the results dataset and the queue: the one snapshot the sync decides over."""
        read = self.hub.read(self.results)
        rows: ResultsState = self.store.read()
        if self.options.evaluate is not None and rows.config.gpu_hours_budget is None:
            raise StreamGazeError(f"--evaluate jobs: {self.results}'s leaderboard.yaml sets no gpu_hours_budget (the "
                                  "GPU-hours the leaderboard's jobs may use in all, e.g. `gpu_hours_budget: 100`)")
        self.state = SyncState.build(self.hub.requests, self.results, self.now, self.tmp, self.listed, read, rows,
                                     QueueRepo(self.api, self.hub.requests, self.tmp, self.log))

    def _local(self, num: int, data: bytes, name: str) -> Path:
        """``data`` of pull request ``num`` written under a name of the sync's own (nothing from the pull request
        names a local file)."""
        work = self.tmp / f"pr-{num}"
        work.mkdir(exist_ok=True)
        (work / name).write_bytes(data)
        return work / name

    def _score(self, num: int, path: str, data: bytes) -> Verdict:
        """The bounded child's verdict on ``data``."""
        return verdict(self._local(num, data, "submission.json"), self.listed, path, timeout_s=self.options.timeout_s)

    # ---- one pull request ----------------------------------------------------------------------------------
    def review(self, num: int) -> Decision:
        """The decision on one open pull request (the reason of a refusal); Left when the Hub failed."""
        try:
            return self._review(num)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason)

    def _review(self, num: int) -> Decision:
        details, description = self.hub.details(num)
        try:
            submitter = submitter_of(details.author, description, self.state.rows.config.space_accounts)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason)
        pr = PullRequest(num, submitter, changed_files(details.diff), self.options.quota)
        reason = first_refusal(SHAPE, pr, self.state)
        if reason:
            return Decision(num, False, reason, path=pr.path)
        path = pr.path
        decide = self._decide_request if pr.kind == "requests" else self.decide
        earlier = self.state.ledger.get(num)
        if earlier is not None and earlier.path == path:  # accepted by an interrupted sync: finish it
            data = self.hub.download(num, path, earlier.commit)
            return decide(num, path, data, earlier.submitter, done=earlier.commit)
        reason = first_refusal(FRESH, pr, self.state)
        if reason:
            return Decision(num, False, reason, path=path)
        head = self.state.read.heads.get(num)
        if head is None:
            raise Left("the Hub lists no head commit for it")
        data = self.hub.download(num, path, head)
        return decide(num, path, data, submitter)

    def decide(self, num: int, path: str, data: bytes, submitter: str, done: str = "") -> Decision:
        """The decision on a submission file's bytes ``data`` at ``path`` (a pull request's, or the responses an
        evaluation committed): re-scored in the bounded child, then the checks of :data:`.acceptance.SCORED` and
        the Hub model it names; ``done``: the accept commit already made (its row is being recovered)."""
        try:
            v = self._score(num, path, data)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        reason = first_refusal(SCORED, PullRequest(num, submitter, [], self.options.quota, done=done), self.state, v)
        if reason:
            return Decision(num, False, reason, path=path)
        row, key = v.row, v.name_key
        row.update(submitter=submitter, pr_number=num, pr_url=self.hub.url(f"discussions/{num}"), name_key=key,
                   created_at=self.state.opened(num), run=self.state.runs.get((submitter, key), 0) + 1,
                   traces_url=traces_url(self.results, v.benchmark.name, num))
        self.traces[num] = v.traces
        if path.startswith("evaluations/") and done:  # the leaderboard's own run: its frame digests, if it made any
            try:
                with_frames(v.traces, self.hub.download(num, frames_path(path), done))
            except Exception as exc:  # noqa: BLE001 - a run without a frame spec has no digests
                self.log(f"#{num}: no frame digests ({str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__})")
        if v.model_id:
            try:
                checked = check_model(self.api, v.model_id, row["model_params"])
            except StreamGazeError as exc:
                return Decision(num, False, exc.reason, path=path)
            except Exception as exc:  # noqa: BLE001
                raise Left(hub_error(exc, f"reading the model {v.model_id}").reason) from None
            row.update(model_id=checked.model_id, model_commit=checked.commit, model_params_hub=checked.params,
                       model_warnings="; ".join(checked.warnings))
        return Decision(num, True, row=row, path=path, data=data, done=done)

    def _decide_request(self, num: int, path: str, data: bytes, submitter: str, done: str = "") -> Decision:
        """The decision on an evaluation request's file (read in the bounded child), the checks of
        :data:`.acceptance.REQUESTED`, and the Hub model at its pinned commit."""
        mine = self._local(num, data, "request.json")
        try:
            v = run_bounded(request_verdict, (str(mine), dict(self.listed), path), timeout_s=self.options.timeout_s,
                            where=mine)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        req, key = v["request"], v["name_key"]
        pr = PullRequest(num, submitter, [], self.options.quota, done=done)
        reason = first_refusal(REQUESTED, pr, self.state, {**v, "digest": request_digest(req)})
        if reason:
            return Decision(num, False, reason, path=path)
        try:
            checked = check_model(self.api, req["model"]["id"], req["model"]["params"])
            check_revision(self.api, req["model"]["id"], req["model"]["revision"])
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        except Exception as exc:  # noqa: BLE001
            raise Left(hub_error(exc, f"reading the model {req['model']['id']}").reason) from None
        record = QueueRecord(num, path, done, submitter, self.state.opened(num), req["benchmark"], req["model"]["name"],
                             key, req["model"]["id"], req["model"]["revision"])
        if checked.warnings:
            record.reason = "model warnings: " + "; ".join(checked.warnings)
        return Decision(num, True, path=path, data=data, done=done, request=record, request_body=req)

    def comment(self, d: Decision, commit: str = "") -> str:
        if not d.accept:
            return (f"**Rejected**: {comment_text(d.reason)}\n\nClosed by `streamgaze leaderboard sync` "
                    f"(streamgaze-toolkit {__version__}). Fix the file and open a new pull request.")
        link = self.hub.url(f"commit/{commit}")
        if d.request is not None:
            return accepted_request_comment(d, link, bool(self.options.evaluate))
        r = d.row
        warn = f" Model warnings: {comment_text(r['model_warnings'])}." if r.get("model_warnings") else ""
        return (f"**Accepted**: re-scored from the raw responses by streamgaze-toolkit {__version__} against "
                f"{comment_text(r['dataset_repo'] or 'the dataset')} (version {comment_text(r['dataset_version'])}, "
                f"commit {comment_text(r['dataset_commit'][:12] or '-')}).\n\n{scored_table(row_benchmark(r), r)}\n\n"
                f"Model {comment_text(r['model_name'])} (run {r['run']} of @{comment_text(r['submitter'])}); gaze "
                f"{comment_text(r['gaze'])}, prompt mode {comment_text(r['prompt_mode'])}.{warn}\n\nThe bytes re-scored "
                f"here were committed by the sync itself: {link} (this pull request is closed, not merged, so nothing "
                f"pushed to it later can land). The row is in {comment_text(self.results)}.")

    def act(self, d: Decision) -> bool:
        """Accept (commit the scored bytes, then close with the comment) or close with the reason; False when
        another sync acted first."""
        from huggingface_hub.errors import HfHubHTTPError

        try:
            if d.accept:
                who = d.request.submitter if d.request is not None else d.row["submitter"]
                commit = d.done or self.hub.commit_accepted(d.num, d.path, d.data, who, self.log,
                                                            "" if d.row is None else d.row["responses_sha256"])
                if commit is None:
                    return False
                if d.request is not None:
                    d.request.request_commit = commit
                else:
                    d.row["requests_commit"] = commit
            self.hub.close(d.num, self.comment(d, _accept_commit(d) if d.accept else ""))
        except StreamGazeError as exc:  # the path was taken meanwhile
            d.accept, d.reason = False, exc.reason
            return self.act(d)
        except HfHubHTTPError as exc:
            if exc.response is not None and exc.response.status_code in (409, 412):
                if d.accept and not self.hub.has_accepted_comment(d.num):
                    # the commit landed but its author closed the pull request meanwhile: the comment still goes
                    self.hub.comment(d.num, self.comment(d, _accept_commit(d)))
                    return True
                return False
            raise Left(hub_error(exc, f"{'accepting' if d.accept else 'closing'} pull request #{d.num}").reason) from None
        except Exception as exc:  # noqa: BLE001 - the Hub (or other writers) kept it from being decided now
            raise Left(hub_error(exc, f"{'accepting' if d.accept else 'closing'} pull request #{d.num}").reason) from None
        return True

    # ---- the loop ---------------------------------------------------------------------------------------
    def run(self) -> SyncReport:
        self.start()
        report = SyncReport()
        accepted: list[dict] = []
        requested: list[QueueRecord] = []
        open_prs = sorted(n for n, d in self.state.discussions.items() if d.status == "open")
        for num in open_prs:
            try:
                d = self.review(num)
                acted = self.act(d)
            except Exception as exc:  # noqa: BLE001 - Left (the Hub failed), or a bug of ours: never the next PR's loss
                reason = str(exc) if isinstance(exc, Left) else f"the sync failed on it: {type(exc).__name__}: {exc}"
                report.left.append((num, reason.splitlines()[0][:300] if reason else type(exc).__name__))
                self.log(f"#{num} left open: {terminal_text(report.left[-1][1])}")
                pending = self.state.discussions.get(num)
                if pending is not None and pending.author not in self.state.rows.config.space_accounts:
                    self.state.count(pending.author, parse_time(pending.created_at))
                continue
            if not acted:
                report.skipped.append(num)
                self.log(f"#{num}: already handled by another sync")
                continue
            if d.accept and d.request is not None:
                requested.append(d.request)
                self.state.own({"name_key": d.request.name_key, "model_name": d.request.model_name,
                                "submitter": d.request.submitter, "pr_number": num, "created_at": d.request.created_at})
                self.state.asked.setdefault(request_digest(d.request_body), num)
                report.accepted.append(num)
                self.state.read.main_files.add(d.path)
                self.log(f"#{num} accepted: evaluation request of {terminal_text(d.request.model_name)} "
                         f"(@{d.request.submitter}): PENDING")
            elif d.accept:
                accepted.append(d.row)
                self.state.own(d.row)
                report.accepted.append(num)
                self.state.read.main_files.add(d.path)
                self.log(f"#{num} accepted: {terminal_text(d.row['model_name'])} (@{d.row['submitter']})")
            else:
                report.closed.append((num, d.reason))
                self.log(f"#{num} closed: {terminal_text(d.reason)}")
        accepted += Evaluations(self.state, self.hub, self.jobs, self.decide, report, self.log).run(requested)
        self.write_results(accepted, report)
        if self.options.model_card_prs:
            from .eval_results import open_model_card_prs

            report.model_card_prs = open_model_card_prs(self.api, self.results, self.store.read(), self.log)
        return report

    def write_results(self, new_rows: list[dict], report: SyncReport) -> None:
        recovered: list[Decision] = []

        def add(state: ResultsState, row: dict) -> None:
            bench = row_benchmark(row).name
            state.rows.setdefault(bench, []).append(row)
            path = traces_path(bench, row["pr_number"])
            if path not in state.tree and row["pr_number"] in self.traces:
                state.extra[path] = traces_parquet(row["pr_number"], self.traces[row["pr_number"]])

        def change(state: ResultsState) -> None:
            have = state.pr_numbers
            for r in new_rows:
                if r["pr_number"] not in have:
                    add(state, r)
                    have.add(r["pr_number"])
            if not recovered:
                recovered.extend(self.recover(have))
            for d in recovered:
                if d.num not in have:
                    add(state, d.row)
                    have.add(d.num)

        report.commit = self.store.update(
            change, lambda s: f"leaderboard sync: {sum(map(len, s.rows.values()))} row(s)")
        report.recovered = [d.num for d in recovered]

    def recover(self, have: set[int]) -> list[Decision]:
        """Accepted pull requests (``main``'s ledger) whose row is missing: re-scored from the committed bytes."""
        out = []
        for num, acc in sorted(self.state.ledger.items()):
            if num in have or not acc.path.startswith("submissions/"):  # a request's row comes from its evaluation
                continue
            try:
                data = self.hub.download(num, acc.path, acc.commit)
                d = self.decide(num, acc.path, data, acc.submitter, done=acc.commit)
            except Left as exc:
                self.log(f"#{num}: its row is still missing ({exc})")
                continue
            if d.accept:
                d.row["requests_commit"] = acc.commit
                out.append(d)
            else:
                self.log(f"#{num}: accepted earlier, but re-scoring it now fails: {d.reason}")
        return out


def _accept_commit(d: Decision) -> str:
    return d.request.request_commit if d.request is not None else d.row["requests_commit"]


def sync(requests: str, results: str, datasets: Sequence[str], *, token: str | None = None,
         options: SyncOptions | None = None, timeout_s: float | None = None,
         log: Callable[[str], None] = lambda _m: None) -> SyncReport:
    """Review the open pull requests of ``requests``, accept (commit the scored bytes) or close each with its
    comment, and bring the results dataset ``results`` (rows, card, site) up to date. ``datasets``: the
    references submissions may be scored against (tags or commits, resolved once)."""
    if not datasets:
        raise StreamGazeError("give the datasets submissions are scored against: --dataset hf://datasets/ORG/NAME@TAG")
    options = options or SyncOptions()
    if timeout_s is not None:
        options = replace(options, timeout_s=timeout_s)
    if options.quota < 1:
        raise StreamGazeError(f"--quota {options.quota}: at least 1 submission per 7 days")
    with tempfile.TemporaryDirectory(prefix="streamgaze-sync-") as tmp:
        return _Sync(requests, results, datasets, token, options, log, Path(tmp)).run()
