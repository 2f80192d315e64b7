"""``streamgaze leaderboard sync``: the maintainer's step between the requests and the results datasets.

1. Every open pull request on the requests dataset is reviewed, cheapest check first: it must add exactly one
   new file (nothing changed or deleted), at a submission path (:mod:`.untrusted`) that ``main`` does not
   hold, of at most ``MAX_SUBMISSION_BYTES`` (from the Hub's listing, before it is downloaded); the file is
   read under the size and depth limits and re-scored in a child process under a time bound
   (:mod:`.bounded`) against the dataset revision it pins (``hf://datasets/<repo>@<commit>``, the repo being
   one of ``--dataset``; a file made on a local dataset is scored against its benchmark's ``--dataset``,
   whose manifest it must match).
2. The pull request gets one comment, the re-scored table or the one-line reason, posted with the merge or
   the close itself (one request: a pull request that another sync has already merged or closed refuses
   it, so two syncs never both act on one).
3. The results dataset gets the accepted rows (:mod:`.results`): read at its head commit, the new rows added
   (an existing row is never changed; merged pull requests without a row, e.g. after an interrupted sync,
   are re-scored and added), every file rendered (parquet configs, card, the static site under ``site/``)
   and committed with ``parent_commit`` = that head: if another sync wrote meanwhile, the Hub refuses (412)
   and this one starts the write again from the new head. Unchanged files make no commit, so a second sync
   changes nothing.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import __version__
from ...registry import benchmarks, get_benchmark
from ...submission.answer_key import dataset_of
from ...submission.coverage import score_cell
from ...submission.schema import submission_benchmark
from ...util.errors import StreamGazeError
from .bounded import rescore_bounded
from .hub_push import hub_api, hub_error
from .repos import require_repo
from .results import data_path, read_results, result_row, results_files
from .untrusted import RESCORE_TIMEOUT_S, check_size, comment_text, model_slug, parse_submission_path

__all__ = ["sync", "SyncReport", "Decision", "DatasetChoice", "review_file", "scored_table", "git_blob_id",
           "dataset_choices", "choose_root", "rescore_file", "ScoredAgainst"]

_DIFF = re.compile(r"^diff --git a/(.+?) b/(.+)$")
_ATTEMPTS = 5


@dataclass
class Decision:
    num: int
    accept: bool
    reason: str = ""  # why it was rejected (one line)
    row: dict | None = None
    path: str = ""
    comment: str = ""


@dataclass
class SyncReport:
    merged: list[int] = field(default_factory=list)
    closed: list[tuple[int, str]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # acted on by another sync meanwhile
    recovered: list[int] = field(default_factory=list)  # merged earlier, their rows added now
    commit: str | None = None  # the results commit made (None: nothing changed)

    def format(self, decisions: bool = True) -> str:
        """The report; without ``decisions`` only what the sync's log did not already say (the CLI logs each
        pull request's decision as it is made)."""
        lines = [f"#{n} merged" for n in self.merged] + [f"#{n} closed: {r}" for n, r in self.closed] if decisions else []
        lines += [f"#{n} already handled by another sync" for n in self.skipped] if decisions else []
        lines += [f"#{n} merged earlier: its row added now" for n in self.recovered]
        lines.append(f"results: commit {self.commit}" if self.commit else "results: unchanged")
        return "\n".join(lines)


@dataclass(frozen=True)
class DatasetChoice:
    """A ``--dataset`` of the sync: its reference as given, the Hub repository (None: a local directory)."""

    ref: str
    repo: str | None
    revision: str


def dataset_choices(refs: Sequence[str]) -> dict[str, DatasetChoice]:
    """Benchmark -> the ``--dataset`` it is scored against (one per benchmark, told apart by manifests)."""
    from ...hub.reference import is_reference, parse_reference

    out: dict[str, DatasetChoice] = {}
    for ref in refs:
        _, bench = dataset_of(ref)
        if bench in out:
            raise StreamGazeError(f"two {bench} datasets given ({out[bench].ref} and {ref}): one per benchmark")
        hub = parse_reference(ref) if is_reference(ref) else None
        out[bench] = DatasetChoice(ref, hub.repo_id if hub else None, hub.revision if hub else "")
    return out


def git_blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def scored_table(bench, row: dict) -> str:
    """The re-scored values of a results row as a Markdown table (labels and values only: no user text)."""
    cols = [bench.overall_column(), *bench.score_columns()]
    head = "| " + " | ".join(comment_text(c.label) for c in cols) + " | Coverage |"
    rule = "|" + "---:|" * (len(cols) + 1)
    values = [score_cell(c, row["overall"] if c.key == "overall" else row.get(f"score_{c.key}")) for c in cols]
    return "\n".join([head, rule, "| " + " | ".join(values) + f" | {100 * row['coverage']:.1f}% |"])


@dataclass(frozen=True)
class ScoredAgainst:
    """The dataset a submission is re-scored against: a root, and the repository, revision and commit
    recorded in its results row ("" for a local directory)."""

    root: str
    repo: str = ""
    revision: str = ""
    commit: str = ""


def choose_root(bench: str, sub: dict, choices: dict[str, DatasetChoice]) -> ScoredAgainst:
    """The dataset a submission of ``bench`` is re-scored against: the commit it pins, in the repository of
    the leaderboard's dataset of its benchmark; a file made on a local dataset: that dataset's commit
    (its manifest must match the file's, which validation checks)."""
    choice = choices.get(bench)
    if choice is None:
        raise StreamGazeError(f"this leaderboard scores no {bench} submissions (no {bench} dataset)")
    if choice.repo is None:
        return ScoredAgainst(choice.ref)
    from ...hub.reference import HubRef, resolve_commit

    named = resolve_commit(HubRef(choice.repo, choice.revision))
    pinned_repo, commit = sub["dataset"].get("repo"), sub["dataset"].get("commit")
    if pinned_repo and commit:
        if choice.repo != pinned_repo:
            raise StreamGazeError(f"made on the dataset {pinned_repo}, not on this leaderboard's {choice.repo}")
        return ScoredAgainst(f"hf://datasets/{pinned_repo}@{commit}", pinned_repo,
                             choice.revision if named == commit else commit, commit)
    return ScoredAgainst(f"hf://datasets/{choice.repo}@{named}", choice.repo, choice.revision, named)


def rescore_file(local: Path, choices: dict[str, DatasetChoice], timeout_s: float,
                 check: Callable[[dict], None] = lambda _sub: None):
    """Read an untrusted submission file (size and depth limits first), run ``check`` on it, and re-score it
    under the time bound against its dataset (:func:`choose_root`; without ``choices``, the revision the
    file pins). Returns (the re-score, the dataset it was scored against); StreamGazeError with the reason."""
    from ...submission.validate import load_submission
    from .hub_push import pinned_dataset

    check_size(local.stat().st_size)
    sub = load_submission(local)
    check(sub)
    if sub["run"]["model"] == "streamgaze_oracle":
        raise StreamGazeError("the oracle baseline (it reads the answer key) is never ranked")
    bench = submission_benchmark(sub)
    if choices:
        against = choose_root(bench, sub, choices)
    else:
        root = pinned_dataset(sub)
        if root is None:
            raise StreamGazeError("made on a local dataset: the leaderboard re-scores against the dataset revision on "
                                  "the Hub a file names (dataset.repo and dataset.commit)")
        against = ScoredAgainst(root, sub["dataset"]["repo"], sub["dataset"]["commit"], sub["dataset"]["commit"])
    return rescore_bounded(local, against.root, timeout_s), against


def review_file(local: Path, repo_path: str, choices: dict[str, DatasetChoice], *, num: int, submitter: str,
                timeout_s: float) -> Decision:
    """Review one downloaded submission file of a pull request: read, check it against its path, re-score,
    and its results row."""
    parts = parse_submission_path(repo_path)

    def matches_path(sub: dict) -> None:
        bench = submission_benchmark(sub)
        if bench != parts.benchmark:
            raise StreamGazeError(f"a {bench} submission under submissions/{parts.benchmark}/")
        if model_slug(sub["model"]["name"]) != parts.slug:
            raise StreamGazeError(f"the folder {parts.slug!r} is not the model name's slug "
                                  f"{model_slug(sub['model']['name'])!r}")

    try:
        checked, against = rescore_file(local, choices, timeout_s, matches_path)
    except StreamGazeError as exc:
        return Decision(num, False, exc.reason if exc.path == str(local) else str(exc), path=repo_path)
    b = get_benchmark(submission_benchmark(checked.submission))
    row = result_row(b, checked.submission, checked.scores, checked.section, submitter=submitter, pr_number=num,
                     path=repo_path, dataset=against)
    return Decision(num, True, row=row, path=repo_path)


class _Sync:
    def __init__(self, requests: str, results: str, datasets: Sequence[str], token: str | None, timeout_s: float,
                 log: Callable[[str], None], tmp: Path) -> None:
        self.api = hub_api(token)
        self.requests, self.results, self.timeout_s, self.log, self.tmp = requests, results, timeout_s, log, tmp
        try:  # before the datasets are fetched, before anything is created
            require_repo(self.api, requests, "requests", requests=requests, results=results)
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {requests}") from None
        self.choices = dataset_choices(datasets)

    # ---- the requests dataset ------------------------------------------------------------------------
    def _changes(self, num: int) -> tuple[list[tuple[str, str]], str]:
        details = self.api.get_discussion_details(self.requests, num, repo_type="dataset")
        changes: list[tuple[str, str]] = []
        for line in (details.diff or "").splitlines():
            m = _DIFF.match(line)
            if m:
                changes.append((m.group(2), "modified"))
            elif changes and line.startswith("new file mode"):
                changes[-1] = (changes[-1][0], "new")
            elif changes and line.startswith("deleted file mode"):
                changes[-1] = (changes[-1][0], "deleted")
        return changes, details.author

    def review(self, num: int, main_files: set[str], known_paths: set[str], merged: bool = False) -> Decision:
        changes, author = self._changes(num)
        shown = ", ".join(p for p, _ in changes[:3]) + (" ..." if len(changes) > 3 else "")
        if len(changes) != 1 or changes[0][1] != "new":
            what = f"{len(changes)} files ({shown})" if changes else "no file"
            return Decision(num, False, f"a submission pull request adds exactly one new file; this one changes {what}")
        path = changes[0][0]
        if parse_submission_path(path) is None:
            return Decision(num, False, f"{path} is not a submission path (submissions/<benchmark>/<model-slug>/"
                                        "<YYYYMMDDTHHMMSSZ>.json)", path=path)
        if not merged and (path in main_files or path in known_paths):
            return Decision(num, False, f"{path} already exists: a pull request cannot change an existing submission",
                            path=path)
        revision = "main" if merged else f"refs/pr/{num}"
        try:
            (info,) = self.api.get_paths_info(self.requests, [path], revision=revision, repo_type="dataset")
            check_size(int(info.size))
            from huggingface_hub import hf_hub_download

            local = Path(hf_hub_download(self.requests, path, repo_type="dataset", revision=revision,
                                         cache_dir=self.tmp / "requests-cache"))
        except StreamGazeError as exc:
            return Decision(num, False, exc.reason, path=path)
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading pull request #{num} of {self.requests}") from None
        work = self.tmp / f"pr-{num}"
        work.mkdir(exist_ok=True)
        mine = work / "submission.json"  # our own name: nothing from the pull request names a local file
        mine.write_bytes(local.read_bytes())
        return review_file(mine, path, self.choices, num=num, submitter=author, timeout_s=self.timeout_s)

    def comment(self, d: Decision) -> str:
        if not d.accept:
            return (f"**Rejected**: {comment_text(d.reason)}\n\nClosed by `streamgaze leaderboard sync` "
                    f"(streamgaze-toolkit {__version__}). Fix the file and open a new pull request.")
        bench = get_benchmark(d.row["submission_path"].split("/")[1])
        r = d.row
        return (f"**Accepted**: re-scored from the raw responses by streamgaze-toolkit {__version__} against "
                f"{comment_text(r['dataset_repo'] or 'the dataset')} (version {comment_text(r['dataset_version'])}, "
                f"commit {comment_text(r['dataset_commit'][:12] or '-')}).\n\n{scored_table(bench, r)}\n\n"
                f"Model {comment_text(r['model_name'])}; gaze {comment_text(r['gaze'])}, prompt mode "
                f"{comment_text(r['prompt_mode'])}. Merged: the row is in {comment_text(self.results)}.")

    def act(self, d: Decision) -> bool:
        """Merge or close with the comment, in one request; False when another sync acted first."""
        from huggingface_hub.errors import HfHubHTTPError

        try:
            if d.accept:
                self.api.merge_pull_request(self.requests, d.num, comment=self.comment(d), repo_type="dataset")
            else:
                self.api.change_discussion_status(self.requests, d.num, "closed", comment=self.comment(d),
                                                  repo_type="dataset")
        except HfHubHTTPError as exc:
            if exc.response is not None and exc.response.status_code in (409, 412):
                return False
            raise hub_error(exc, f"{'merging' if d.accept else 'closing'} pull request #{d.num}") from None
        return True

    # ---- the results dataset ---------------------------------------------------------------------------
    def read_results(self, head: str) -> tuple[dict[str, list[dict]], dict[str, object]]:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.hf_api import RepoFile

        tree = {f.path: f for f in self.api.list_repo_tree(self.results, recursive=True, revision=head,
                                                             repo_type="dataset") if isinstance(f, RepoFile)}
        local = {}
        for path in (data_path(b.name) for b in benchmarks()):  # the accepted rows (the paper's are rendered)
            if path in tree:
                local[path] = Path(hf_hub_download(self.results, path, repo_type="dataset", revision=head,
                                                   cache_dir=self.tmp / "results-cache"))
        return read_results(local), tree

    def write_results(self, new_rows: list[dict], report: SyncReport, main_files: set[str]) -> None:
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete
        from huggingface_hub.errors import HfHubHTTPError

        for _ in range(_ATTEMPTS):
            head = self.api.repo_info(self.results, repo_type="dataset").sha
            rows, tree = self.read_results(head)
            have = {r["pr_number"] for rs in rows.values() for r in rs}
            for r in new_rows:
                if r["pr_number"] not in have:
                    rows.setdefault(r["submission_path"].split("/")[1], []).append(r)
                    have.add(r["pr_number"])
            for d in self.recover(have, main_files):
                rows.setdefault(d.path.split("/")[1], []).append(d.row)
                report.recovered.append(d.num)
            files = results_files(rows)
            ops = []
            for path, data in files.items():
                old = tree.get(path)
                same = old is not None and ((old.lfs is not None and old.lfs.sha256 == _sha256(data)) or
                                            (old.lfs is None and old.blob_id == git_blob_id(data)))
                if not same:
                    ops.append(CommitOperationAdd(path, data))
            ops += [CommitOperationDelete(p) for p in tree if p not in files and p.startswith(("data/", "site/"))]
            if not ops:
                return
            try:
                info = self.api.create_commit(self.results, ops, repo_type="dataset", parent_commit=head,
                                              commit_message=f"leaderboard sync: {sum(map(len, rows.values()))} row(s)")
            except HfHubHTTPError as exc:
                if exc.response is not None and exc.response.status_code == 412:
                    self.log("results: another sync wrote first; reading the new head and trying again")
                    continue
                raise hub_error(exc, f"writing the results dataset {self.results}") from None
            report.commit = info.oid
            return
        raise StreamGazeError(f"{self.results}: other writers kept committing; {_ATTEMPTS} attempts failed "
                              "(run the sync again: it picks up where this one stopped)")

    def recover(self, have: set[int], main_files: set[str]) -> list[Decision]:
        """Merged pull requests whose row is missing (an interrupted or concurrent sync): re-scored now."""
        out = []
        for d in self.api.get_repo_discussions(self.requests, discussion_type="pull_request",
                                               discussion_status="all", repo_type="dataset"):
            if d.status != "merged" or d.num in have:
                continue
            decision = self.review(d.num, main_files, set(), merged=True)
            if decision.accept:
                out.append(decision)
                have.add(d.num)
        return out

    def run(self) -> SyncReport:
        from huggingface_hub.hf_api import RepoFile

        report = SyncReport()
        try:
            self.api.create_repo(self.results, repo_type="dataset", exist_ok=True)
            main_files = {f.path for f in self.api.list_repo_tree(self.requests, recursive=True, repo_type="dataset")
                          if isinstance(f, RepoFile)}
            open_prs = sorted(d.num for d in self.api.get_repo_discussions(
                self.requests, discussion_type="pull_request", discussion_status="open", repo_type="dataset"))
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {self.requests}") from None
        accepted, claimed = [], set()
        for num in open_prs:
            d = self.review(num, main_files, claimed)
            if d.accept:
                claimed.add(d.path)
            if not self.act(d):
                report.skipped.append(num)
                self.log(f"#{num}: already merged or closed by another sync")
                continue
            if d.accept:
                accepted.append(d.row)
                report.merged.append(num)
                main_files.add(d.path)
                self.log(f"#{num} merged: {d.row['model_name']}")
            else:
                report.closed.append((num, d.reason))
                self.log(f"#{num} closed: {d.reason}")
        self.write_results(accepted, report, main_files)
        return report


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def sync(requests: str, results: str, datasets: Sequence[str], *, token: str | None = None,
         timeout_s: float = RESCORE_TIMEOUT_S, log: Callable[[str], None] = lambda _m: None) -> SyncReport:
    """Review the open pull requests of ``requests``, merge or close each with its comment, and bring the
    results dataset ``results`` (rows, card, site) up to date. ``datasets``: one reference per benchmark."""
    if not datasets:
        raise StreamGazeError("give the datasets submissions are scored against: --dataset hf://datasets/ORG/NAME@REV")
    with tempfile.TemporaryDirectory(prefix="streamgaze-sync-") as tmp:
        return _Sync(requests, results, datasets, token, timeout_s, log, Path(tmp)).run()

