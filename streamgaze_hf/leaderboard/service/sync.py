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

Per open pull request, cheapest check first: the submitter (:mod:`.identity`); exactly one new file at a
submission path that ``main`` does not hold; the quota (:mod:`.quota`); the file's size from the Hub's listing;
the bounded child (limits, path, oracle, pinning, re-score, the results row); the model name against other
submitters' rows (:mod:`.names`); the Hub model it names (:mod:`.model_checks`). Then the accept commit and
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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ... import __version__
from ...util.errors import StreamGazeError
from .comments import scored_table
from .eval_queue import QueueRecord
from .hub_push import hub_api, hub_error
from .identity import description_of, submitter_of
from .ledger import Accepted, accepted_prs, commit_accepted, git_blob_id
from .names import name_key
from .pinning import ListedDataset, listed_datasets
from .quota import DEFAULT_QUOTA, over_quota, parse_time
from .repos import require_repo
from .results_repo import ResultsRepo, ResultsState
from .untrusted import (
    RESCORE_TIMEOUT_S,
    check_size,
    comment_text,
    parse_repo_path,
    row_benchmark,
    terminal_text,
)
from .verdict import Verdict, verdict

__all__ = ["sync", "SyncReport", "Decision", "scored_table", "git_blob_id", "SyncOptions"]


class _Left(Exception):
    """A pull request the sync could not decide on because of the Hub (left open for the next sync)."""


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




def _pr_url(repo: str, num: int) -> str:
    from huggingface_hub import constants

    return f"{constants.ENDPOINT.rstrip('/')}/datasets/{repo}/discussions/{num}"


class _Sync:
    def __init__(self, requests: str, results: str, datasets: Sequence[str], token: str | None, options: SyncOptions,
                 log: Callable[[str], None], tmp: Path) -> None:
        self.api = hub_api(token)
        self.requests, self.results, self.options, self.log, self.tmp = requests, results, options, log, tmp
        try:  # before the datasets are fetched, before anything is created
            require_repo(self.api, requests, "requests", requests=requests, results=results)
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {requests}") from None
        self.now = options.now or datetime.now(timezone.utc)
        self.token, self.user, self.job_gpus = token, "", 0
        if options.evaluate is not None:  # the Jobs settings, before anything is read or written
            self._jobs_ready(token)
        self.listed: dict[str, list[ListedDataset]] = listed_datasets(datasets, self.api)
        self.store = ResultsRepo(self.api, results, tmp, log)

    def _jobs_ready(self, token: str | None) -> None:
        """``--evaluate jobs``: the token (it reaches the jobs as their secret), its user (the default namespace) and
        the flavor's GPUs, checked before the sync reads anything."""
        from huggingface_hub import get_token

        from .jobs import flavor_gpus

        self.token = token or get_token()
        if not self.token:
            raise StreamGazeError("--evaluate jobs: the jobs commit their responses with the maintainer's token, as a "
                                  "Job secret: set HF_TOKEN (or `hf auth login`)")
        try:
            self.user = self.api.whoami()["name"]
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, "who runs the jobs (whoami)") from None
        self.job_gpus = flavor_gpus(self.api, self.options.evaluate.flavor)

    # ---- reading the requests dataset -------------------------------------------------------------------
    def _start(self) -> None:
        from huggingface_hub.hf_api import RepoFile

        try:
            self.api.create_repo(self.results, repo_type="dataset", exist_ok=True)
            head = self.api.repo_info(self.requests, repo_type="dataset").sha
            self.main_files = {f.path for f in self.api.list_repo_tree(self.requests, recursive=True, revision=head,
                                                                         repo_type="dataset") if isinstance(f, RepoFile)}
            self.ledger: dict[int, Accepted] = accepted_prs(self.api, self.requests, head)
            self.discussions = {d.num: d for d in self.api.get_repo_discussions(
                self.requests, discussion_type="pull_request", discussion_status="all", repo_type="dataset")}
            refs = self.api.list_repo_refs(self.requests, repo_type="dataset", include_pull_requests=True)
            self.heads = {int(r.ref.rsplit("/", 1)[1]): r.target_commit for r in refs.pull_requests or ()}
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {self.requests}") from None
        self.state: ResultsState = self.store.read()
        if self.options.evaluate is not None and self.state.config.gpu_hours_budget is None:
            raise StreamGazeError(f"--evaluate jobs: {self.results}'s leaderboard.yaml sets no gpu_hours_budget (the "
                                  "GPU-hours the leaderboard's jobs may use in all, e.g. `gpu_hours_budget: 100`)")
        from .eval_queue import QueueRepo

        self.queue = QueueRepo(self.api, self.requests, self.tmp, self.log)
        self.queued: dict[int, QueueRecord] = self.queue.read().records
        rows = sorted((r for rs in self.state.rows.values() for r in rs), key=lambda r: r["pr_number"])
        self.owners: dict[str, tuple[str, str, int]] = {}  # name key -> (submitter, name, pull request)
        self.runs: dict[tuple[str, str], int] = {}  # (submitter, name key) -> runs so far
        self.counted: dict[str, list[datetime]] = {}  # submitter -> when their accepted/pending ones were opened
        # raw responses' digest -> (pull request, model name, submitter) of the row that has them
        self.fingerprints: dict[str, tuple[int, str, str]] = {}
        self.asked: dict[str, int] = {}  # an evaluation request's digest -> its pull request
        for r in rows:
            self._own(r)
        for num, acc in sorted(self.ledger.items()):
            if acc.responses and num not in {r["pr_number"] for r in rows}:
                self.fingerprints.setdefault(acc.responses, (num, "", acc.submitter))
        for rec in self.queued.values():
            if rec.num not in {r["pr_number"] for r in rows}:  # waiting or running: counted, its name owned
                self._own({"name_key": rec.name_key, "model_name": rec.model_name, "submitter": rec.submitter,
                           "pr_number": rec.num, "created_at": rec.created_at})

    def _own(self, row: dict) -> None:
        key = row.get("name_key") or name_key(row["model_name"])
        self.owners.setdefault(key, (row["submitter"], row["model_name"], row["pr_number"]))
        self.runs[(row["submitter"], key)] = self.runs.get((row["submitter"], key), 0) + 1
        when = parse_time(row.get("created_at"))
        if when is not None:
            self.counted.setdefault(row["submitter"], []).append(when)
        if row.get("responses_sha256"):
            self.fingerprints.setdefault(row["responses_sha256"], (row["pr_number"], row["model_name"],
                                                                   row["submitter"]))

    def _details(self, num: int):
        details = self.api.get_discussion_details(self.requests, num, repo_type="dataset")
        return details, description_of(details)

    @staticmethod
    def _changes(diff: str) -> list[tuple[str, str]]:
        import re

        changes: list[tuple[str, str]] = []
        for line in (diff or "").splitlines():
            m = re.match(r"^diff --git a/(.+?) b/(.+)$", line)
            if m:
                changes.append((m.group(2), "modified"))
            elif changes and line.startswith("new file mode"):
                changes[-1] = (changes[-1][0], "new")
            elif changes and line.startswith("deleted file mode"):
                changes[-1] = (changes[-1][0], "deleted")
        return changes

    def _download(self, num: int, path: str, revision: str) -> bytes:
        """The file at ``revision`` (a commit), its size checked from the listing before it is downloaded."""
        from huggingface_hub import hf_hub_download

        try:
            found = self.api.get_paths_info(self.requests, [path], revision=revision, repo_type="dataset")
            if not found:
                raise StreamGazeError(f"{path} is not in the pull request's head commit {revision[:12]}")
            check_size(int(found[0].size))
            local = Path(hf_hub_download(self.requests, path, repo_type="dataset", revision=revision,
                                         cache_dir=self.tmp / "requests-cache"))
            data = local.read_bytes()
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise _Left(hub_error(exc, f"reading pull request #{num}").reason) from None
        if git_blob_id(data) != getattr(found[0], "blob_id", git_blob_id(data)):
            raise _Left(f"the download of {path} does not match the Hub's listing (blob id): try again")
        return data

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

    def _name_taken(self, name: str, key: str, submitter: str) -> str:
        """The refusal of a model name that reads as another submitter's ("" when it is free)."""
        owner = self.owners.get(key)
        if owner is None or owner[0] == submitter:
            return ""
        return (f"the model name {name!r} reads as {owner[1]!r} of @{owner[0]} (pull request #{owner[2]}): choose a "
                "name of your own")

    # ---- one pull request ----------------------------------------------------------------------------------
    def review(self, num: int) -> Decision:
        """The decision on one open pull request (the reason of a refusal); _Left when the Hub failed."""
        try:
            return self._review(num)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason)

    def _review(self, num: int) -> Decision:
        try:
            details, description = self._details(num)
        except Exception as exc:  # noqa: BLE001
            raise _Left(hub_error(exc, f"reading pull request #{num}").reason) from None
        try:
            submitter = submitter_of(details.author, description, self.state.config.space_accounts)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason)
        changes = self._changes(details.diff)
        shown = ", ".join(p for p, _ in changes[:3]) + (" ..." if len(changes) > 3 else "")
        if len(changes) != 1 or changes[0][1] != "new":
            what = f"{len(changes)} files ({shown})" if changes else "no file"
            return Decision(num, False, f"a submission pull request adds exactly one new file; this one changes {what}")
        path = changes[0][0]
        parts = parse_repo_path(path, ("submissions", "requests"))
        if parts is None:
            return Decision(num, False, f"{path} is not a submission path (submissions/<benchmark>/<model-slug>/"
                                        "<YYYYMMDDTHHMMSSZ>.json) or an evaluation request's (requests/...)", path=path)
        decide = self._decide_request if parts.kind == "requests" else self._decide
        earlier = self.ledger.get(num)
        if earlier is not None and earlier.path == path:  # accepted by an interrupted sync: finish it
            data = self._download(num, path, earlier.commit)
            return decide(num, path, data, earlier.submitter, done=earlier.commit)
        if path in self.main_files:
            return Decision(num, False, f"{path} already exists: a pull request cannot change an existing submission",
                            path=path)
        if submitter not in self.state.config.maintainers:
            reason = over_quota(submitter, self.counted.get(submitter, []), self.now, self.options.quota)
            if reason:
                return Decision(num, False, reason, path=path)
        head = self.heads.get(num)
        if head is None:
            raise _Left("the Hub lists no head commit for it")
        data = self._download(num, path, head)
        return decide(num, path, data, submitter)

    def _decide(self, num: int, path: str, data: bytes, submitter: str, done: str = "") -> Decision:
        try:
            v = self._score(num, path, data)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        row, key = v.row, v.name_key
        taken = "" if done else self._name_taken(row["model_name"], key, submitter)
        if taken:
            return Decision(num, False, taken, path=path)
        same = self.fingerprints.get(row["responses_sha256"])
        if same is not None and same[0] != num and not done:
            what = f"{same[1]!r} of @{same[2]}" if same[1] else f"of @{same[2]}"
            return Decision(num, False, f"its responses are those of the accepted row #{same[0]} ({what}): the same "
                                        "run is one row", path=path)
        opened = self.discussions.get(num)
        row.update(submitter=submitter, pr_number=num, pr_url=_pr_url(self.requests, num), name_key=key,
                   created_at=(parse_time(opened.created_at) if opened else self.now).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   run=self.runs.get((submitter, key), 0) + 1)
        if v.model_id:
            from .model_checks import check_model

            try:
                checked = check_model(self.api, v.model_id, row["model_params"])
            except StreamGazeError as exc:
                return Decision(num, False, exc.reason, path=path)
            except Exception as exc:  # noqa: BLE001
                raise _Left(hub_error(exc, f"reading the model {v.model_id}").reason) from None
            row.update(model_id=checked.model_id, model_commit=checked.commit, model_params_hub=checked.params,
                       model_warnings="; ".join(checked.warnings))
        return Decision(num, True, row=row, path=path, data=data, done=done)

    def _decide_request(self, num: int, path: str, data: bytes, submitter: str, done: str = "") -> Decision:
        """The decision on an evaluation request's file (read in the bounded child), its name, the same request
        accepted before, and the Hub model at its pinned commit."""
        from .eval_requests import request_digest, request_verdict
        from .model_checks import check_model, check_revision

        mine = self._local(num, data, "request.json")
        try:
            from .bounded import run_bounded

            v = run_bounded(request_verdict, (str(mine), dict(self.listed), path), timeout_s=self.options.timeout_s,
                            where=mine)
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        req, key = v["request"], v["name_key"]
        taken = "" if done else self._name_taken(req["model"]["name"], key, submitter)
        if taken:
            return Decision(num, False, taken, path=path)
        digest = request_digest(req)
        if self.asked.get(digest, num) != num and not done:
            return Decision(num, False, f"the same evaluation (model, commit, lmms-eval model and arguments, settings, "
                                        f"dataset) was requested in #{self.asked[digest]}", path=path)
        try:
            checked = check_model(self.api, req["model"]["id"], req["model"]["params"])
            check_revision(self.api, req["model"]["id"], req["model"]["revision"])
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        except Exception as exc:  # noqa: BLE001
            raise _Left(hub_error(exc, f"reading the model {req['model']['id']}").reason) from None
        opened = self.discussions.get(num)
        created = (parse_time(opened.created_at) if opened else self.now).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = QueueRecord(num, path, done, submitter, created, req["benchmark"], req["model"]["name"], key,
                             req["model"]["id"], req["model"]["revision"])
        if checked.warnings:
            record.reason = "model warnings: " + "; ".join(checked.warnings)
        return Decision(num, True, path=path, data=data, done=done, request=record, request_body=req)

    def comment(self, d: Decision, commit: str = "") -> str:
        if not d.accept:
            return (f"**Rejected**: {comment_text(d.reason)}\n\nClosed by `streamgaze leaderboard sync` "
                    f"(streamgaze-toolkit {__version__}). Fix the file and open a new pull request.")
        from huggingface_hub import constants

        if d.request is not None:
            from .evaluations import accepted_request_comment

            return accepted_request_comment(d, f"{constants.ENDPOINT.rstrip('/')}/datasets/{self.requests}/commit/"
                                               f"{commit}", bool(self.options.evaluate))

        bench = row_benchmark(d.row)
        r = d.row
        link = f"{constants.ENDPOINT.rstrip('/')}/datasets/{self.requests}/commit/{commit}"
        warn = f" Model warnings: {comment_text(r['model_warnings'])}." if r.get("model_warnings") else ""
        return (f"**Accepted**: re-scored from the raw responses by streamgaze-toolkit {__version__} against "
                f"{comment_text(r['dataset_repo'] or 'the dataset')} (version {comment_text(r['dataset_version'])}, "
                f"commit {comment_text(r['dataset_commit'][:12] or '-')}).\n\n{scored_table(bench, r)}\n\n"
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
                commit = d.done or commit_accepted(self.api, self.requests, d.num, d.path, d.data, who, self.log,
                                                   "" if d.row is None else d.row["responses_sha256"])
                if commit is None:
                    return False
                if d.request is not None:
                    d.request.request_commit = commit
                else:
                    d.row["requests_commit"] = commit
            self.api.change_discussion_status(self.requests, d.num, "closed", comment=self.comment(
                d, self._accept_commit(d) if d.accept else ""), repo_type="dataset")
        except StreamGazeError as exc:  # the path was taken meanwhile
            d.accept, d.reason = False, exc.reason
            return self.act(d)
        except HfHubHTTPError as exc:
            if exc.response is not None and exc.response.status_code in (409, 412):
                if d.accept and not self._accepted_comment(d.num):
                    # the commit landed but its author closed the pull request meanwhile: the comment still goes
                    self.api.comment_discussion(self.requests, d.num, self.comment(d, self._accept_commit(d)),
                                                repo_type="dataset")
                    return True
                return False
            raise _Left(hub_error(exc, f"{'accepting' if d.accept else 'closing'} pull request #{d.num}").reason) from None
        except Exception as exc:  # noqa: BLE001 - the Hub (or other writers) kept it from being decided now
            raise _Left(hub_error(exc, f"{'accepting' if d.accept else 'closing'} pull request #{d.num}").reason) from None
        return True

    @staticmethod
    def _accept_commit(d: Decision) -> str:
        return d.request.request_commit if d.request is not None else d.row["requests_commit"]

    def _accepted_comment(self, num: int) -> bool:
        """Whether the pull request already has an accept comment by someone other than its author (another
        sync that finished it first)."""
        details = self.api.get_discussion_details(self.requests, num, repo_type="dataset")
        return any(e.type == "comment" and e.author != details.author and e.content.startswith("**Accepted**")
                   for e in details.events)

    # ---- the loop ---------------------------------------------------------------------------------------
    def run(self) -> SyncReport:
        self._start()
        report = SyncReport()
        accepted: list[dict] = []
        requested: list[QueueRecord] = []
        open_prs = sorted(n for n, d in self.discussions.items() if d.status == "open")
        for num in open_prs:
            try:
                d = self.review(num)
                acted = self.act(d)
            except Exception as exc:  # noqa: BLE001 - _Left (the Hub failed), or a bug of ours: never the next PR's loss
                reason = str(exc) if isinstance(exc, _Left) else f"the sync failed on it: {type(exc).__name__}: {exc}"
                report.left.append((num, reason.splitlines()[0][:300] if reason else type(exc).__name__))
                self.log(f"#{num} left open: {terminal_text(report.left[-1][1])}")
                pending = self.discussions.get(num)
                if pending is not None and pending.author not in self.state.config.space_accounts:
                    self.counted.setdefault(pending.author, []).append(parse_time(pending.created_at) or self.now)
                continue
            if not acted:
                report.skipped.append(num)
                self.log(f"#{num}: already handled by another sync")
                continue
            if d.accept and d.request is not None:
                requested.append(d.request)
                self._own({"name_key": d.request.name_key, "model_name": d.request.model_name,
                           "submitter": d.request.submitter, "pr_number": num, "created_at": d.request.created_at})
                from .eval_requests import request_digest

                self.asked.setdefault(request_digest(d.request_body), num)
                report.accepted.append(num)
                self.main_files.add(d.path)
                self.log(f"#{num} accepted: evaluation request of {terminal_text(d.request.model_name)} "
                         f"(@{d.request.submitter}): PENDING")
            elif d.accept:
                accepted.append(d.row)
                self._own(d.row)
                report.accepted.append(num)
                self.main_files.add(d.path)
                self.log(f"#{num} accepted: {terminal_text(d.row['model_name'])} (@{d.row['submitter']})")
            else:
                report.closed.append((num, d.reason))
                self.log(f"#{num} closed: {terminal_text(d.reason)}")
        from .evaluations import Evaluations

        accepted += Evaluations(self, report).run(requested)
        self.write_results(accepted, report)
        if self.options.model_card_prs:
            from .eval_results import open_model_card_prs

            report.model_card_prs = open_model_card_prs(self.api, self.results, self.store.read(), self.log)
        return report

    def write_results(self, new_rows: list[dict], report: SyncReport) -> None:
        recovered: list[Decision] = []

        def change(state: ResultsState) -> None:
            have = state.pr_numbers
            for r in new_rows:
                if r["pr_number"] not in have:
                    state.rows.setdefault(row_benchmark(r).name, []).append(r)
                    have.add(r["pr_number"])
            if not recovered:
                recovered.extend(self.recover(have))
            for d in recovered:
                if d.num not in have:
                    state.rows.setdefault(row_benchmark(d.row).name, []).append(d.row)
                    have.add(d.num)

        report.commit = self.store.update(
            change, lambda s: f"leaderboard sync: {sum(map(len, s.rows.values()))} row(s)")
        report.recovered = [d.num for d in recovered]

    def recover(self, have: set[int]) -> list[Decision]:
        """Accepted pull requests (``main``'s ledger) whose row is missing: re-scored from the committed bytes."""
        out = []
        for num, acc in sorted(self.ledger.items()):
            if num in have or not acc.path.startswith("submissions/"):  # a request's row comes from its evaluation
                continue
            try:
                data = self._download(num, acc.path, acc.commit)
                d = self._decide(num, acc.path, data, acc.submitter, done=acc.commit)
            except _Left as exc:
                self.log(f"#{num}: its row is still missing ({exc})")
                continue
            if d.accept:
                d.row["requests_commit"] = acc.commit
                out.append(d)
            else:
                self.log(f"#{num}: accepted earlier, but re-scoring it now fails: {d.reason}")
        return out


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
        from dataclasses import replace

        options = replace(options, timeout_s=timeout_s)
    if options.quota < 1:
        raise StreamGazeError(f"--quota {options.quota}: at least 1 submission per 7 days")
    with tempfile.TemporaryDirectory(prefix="streamgaze-sync-") as tmp:
        return _Sync(requests, results, datasets, token, options, log, Path(tmp)).run()
