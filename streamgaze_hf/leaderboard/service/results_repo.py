"""The results dataset on the Hub, read and written as one consistent state (used by the sync and by
``leaderboard flag`` / ``unflag``).

:meth:`ResultsRepo.read` takes everything at one head commit: the accepted rows of every benchmark, the
maintainers' ``leaderboard.yaml`` and the ``flags.json``. :meth:`ResultsRepo.update` applies a change to that
state, renders every file (:func:`.results.results_files`: parquet configs, card, static site; the flags set
on the rows) and commits the files that changed with ``parent_commit`` = that head: when another writer
committed first the Hub refuses (412) and the update starts again from the new head. Unchanged files make no
commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...registry import benchmarks
from ...util.errors import StreamGazeError
from .hub_commit import ATTEMPTS, commit_on_head
from .hub_push import hub_error
from .results import (
    CONFIG,
    FLAGS,
    LeaderboardConfig,
    data_path,
    parse_config,
    read_results,
    results_files,
    with_flags,
)

__all__ = ["ResultsState", "ResultsRepo"]



@dataclass
class ResultsState:
    """The results repository at one commit."""

    head: str
    rows: dict[str, list[dict]]
    tree: dict[str, object]
    config: LeaderboardConfig = field(default_factory=LeaderboardConfig)
    flags: dict[str, dict] = field(default_factory=dict)
    #: files a change adds once besides the rendered ones (a new row's traces: never rewritten, never deleted)
    extra: dict[str, bytes] = field(default_factory=dict)

    @property
    def pr_numbers(self) -> set[int]:
        return {r["pr_number"] for rs in self.rows.values() for r in rs}


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


class ResultsRepo:
    def __init__(self, api, repo: str, tmp: Path, log: Callable[[str], None] = lambda _m: None) -> None:
        self.api, self.repo, self.tmp, self.log = api, repo, tmp, log

    def _download(self, path: str, head: str) -> Path:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(self.repo, path, repo_type="dataset", revision=head,
                                    cache_dir=self.tmp / "results-cache"))

    def read(self) -> ResultsState:
        """Everything at the current head (StreamGazeError naming the repository when the Hub fails)."""
        from huggingface_hub.hf_api import RepoFile

        try:
            head = self.api.repo_info(self.repo, repo_type="dataset").sha
            tree = {f.path: f for f in self.api.list_repo_tree(self.repo, recursive=True, revision=head,
                                                                 repo_type="dataset") if isinstance(f, RepoFile)}
            local = {p: self._download(p, head) for p in (data_path(b.name) for b in benchmarks()) if p in tree}
            config = self._download(CONFIG, head).read_text(encoding="utf-8") if CONFIG in tree else None
            flags_text = self._download(FLAGS, head).read_text(encoding="utf-8") if FLAGS in tree else "{}"
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading the results dataset {self.repo}") from None
        try:
            flags = json.loads(flags_text)
        except json.JSONDecodeError as exc:
            raise StreamGazeError(f"not JSON: {exc.msg}", FLAGS) from None
        if not isinstance(flags, dict):
            raise StreamGazeError("an object of pull request number -> flag", FLAGS)
        return ResultsState(head, read_results(local), tree, parse_config(config), flags)

    def update(self, change: Callable[[ResultsState], None], message: Callable[[ResultsState], str]) -> str | None:
        """Read, ``change`` the state in place (rows, flags), render and commit; the commit made, or None when
        nothing changed."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        from .ledger import git_blob_id

        def attempt():
            state = self.read()
            before = dict(state.flags)
            change(state)
            files = results_files(with_flags(state.rows, state.flags))
            files.update(state.extra)
            if state.flags != before or FLAGS in state.tree:
                files[FLAGS] = (json.dumps(state.flags, indent=1, sort_keys=True) + "\n").encode("utf-8")
            ops = []
            for path, data in files.items():
                old = state.tree.get(path)
                same = old is not None and ((old.lfs is not None and old.lfs.sha256 == _sha256(data)) or
                                            (old.lfs is None and old.blob_id == git_blob_id(data)))
                if not same:
                    ops.append(CommitOperationAdd(path, data))
            ops += [CommitOperationDelete(p) for p in state.tree if p not in files and p.startswith(("data/", "site/"))]
            if not ops:
                return None
            return self.api.create_commit(self.repo, ops, repo_type="dataset", parent_commit=state.head,
                                          commit_message=message(state)).oid

        return commit_on_head(
            attempt, moved=lambda: self.log("results: another writer committed first; reading the new head and trying "
                                            "again"),
            error=lambda exc: hub_error(exc, f"writing the results dataset {self.repo}"),
            gave_up=StreamGazeError(f"{self.repo}: other writers kept committing; {ATTEMPTS} attempts failed (run it "
                                    "again: it picks up where this one stopped)"))
