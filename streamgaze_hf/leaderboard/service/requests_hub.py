"""The sync's Hub adapter: every read and write the sync makes on the requests dataset, in one place.

:class:`RequestsHub` reads the requests dataset once when the sync starts (:meth:`~RequestsHub.read`: ``main``'s
files, the ledger of accepted pull requests, the pull requests and their head commits), and then one pull request
at a time (its details, its file at a commit, size checked from the listing before the download), and writes the
decisions (the accept commit, the closing comment); the evaluation step (:mod:`.evaluations`) reads an accepted
request's file and a job's committed responses through it too. A failure of the Hub while deciding on a pull request is
:class:`Left`: that pull request stays open for the next sync. What is decided lies elsewhere: the checks
(:mod:`.acceptance`) read the snapshot (:mod:`.sync_state`) this adapter fills.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...util.errors import StreamGazeError
from .hub_push import hub_error
from .identity import description_of
from .ledger import Accepted, accepted_prs, commit_accepted, git_blob_id
from .repos import require_repo
from .untrusted import check_size

__all__ = ["Left", "RequestsHub", "RequestsRead", "changed_files"]


class Left(Exception):
    """A pull request the sync could not decide on because of the Hub (left open for the next sync)."""


@dataclass(frozen=True)
class RequestsRead:
    """The requests dataset as the sync read it when it started."""

    main_files: set[str]  # the files on main at its head
    ledger: dict[int, Accepted]  # the pull requests accepted so far (main's Accept commits)
    discussions: dict[int, object]  # every pull request, open or not
    heads: dict[int, str]  # a pull request's head commit


def changed_files(diff: str) -> list[tuple[str, str]]:
    """The files a pull request's diff touches, each with ``new``, ``modified`` or ``deleted``."""
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


class RequestsHub:
    """The requests dataset ``requests`` through ``api`` (an ``HfApi``); downloads go under ``tmp``."""

    def __init__(self, api, requests: str, tmp: Path) -> None:
        self.api, self.requests, self.tmp = api, requests, tmp

    def require(self, results: str) -> None:
        """The requests dataset exists (checked before anything is fetched or created)."""
        try:
            require_repo(self.api, self.requests, "requests", requests=self.requests, results=results)
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {self.requests}") from None

    def read(self, results: str) -> RequestsRead:
        """Create the results dataset when missing, then read the requests dataset at its head."""
        from huggingface_hub.hf_api import RepoFile

        api, repo = self.api, self.requests
        try:
            api.create_repo(results, repo_type="dataset", exist_ok=True)
            head = api.repo_info(repo, repo_type="dataset").sha
            files = {f.path for f in api.list_repo_tree(repo, recursive=True, revision=head, repo_type="dataset")
                     if isinstance(f, RepoFile)}
            ledger = accepted_prs(api, repo, head)
            discussions = {d.num: d for d in api.get_repo_discussions(
                repo, discussion_type="pull_request", discussion_status="all", repo_type="dataset")}
            refs = api.list_repo_refs(repo, repo_type="dataset", include_pull_requests=True)
            heads = {int(r.ref.rsplit("/", 1)[1]): r.target_commit for r in refs.pull_requests or ()}
        except StreamGazeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise hub_error(exc, f"reading {repo}") from None
        return RequestsRead(files, ledger, discussions, heads)

    def details(self, num: int):
        """(the pull request's details, its description); :class:`Left` when the Hub fails."""
        try:
            details = self.api.get_discussion_details(self.requests, num, repo_type="dataset")
            return details, description_of(details)
        except Exception as exc:  # noqa: BLE001
            raise Left(hub_error(exc, f"reading pull request #{num}").reason) from None

    def download(self, num: int, path: str, revision: str) -> bytes:
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
            raise Left(hub_error(exc, f"reading pull request #{num}").reason) from None
        if git_blob_id(data) != getattr(found[0], "blob_id", git_blob_id(data)):
            raise Left(f"the download of {path} does not match the Hub's listing (blob id): try again")
        return data

    def read_file(self, path: str, commit: str) -> bytes:
        """The bytes of a file main holds (an accepted one) at ``commit``; the client's error as it is."""
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(self.requests, path, repo_type="dataset", revision=commit,
                                    cache_dir=self.tmp / "requests-cache")).read_bytes()

    def head_holding(self, path: str) -> tuple[str, bool]:
        """(main's head commit, whether it holds ``path``); the client's error as it is."""
        head = self.api.repo_info(self.requests, repo_type="dataset").sha
        return head, bool(self.api.get_paths_info(self.requests, [path], revision=head, repo_type="dataset"))

    def commit_titled(self, title: str, revision: str) -> str | None:
        """The newest commit of ``revision``'s history whose title is ``title``, else None."""
        return next((c.commit_id for c in self.api.list_repo_commits(self.requests, repo_type="dataset",
                                                                     revision=revision) if c.title == title), None)

    def url(self, tail: str) -> str:
        """The address of ``tail`` under the requests dataset's page (``discussions/N``, ``commit/C``)."""
        from huggingface_hub import constants

        return f"{constants.ENDPOINT.rstrip('/')}/datasets/{self.requests}/{tail}"

    def commit_accepted(self, num: int, path: str, data: bytes, submitter: str, log: Callable[[str], None],
                        responses: str) -> str | None:
        """:func:`.ledger.commit_accepted` on the requests dataset."""
        return commit_accepted(self.api, self.requests, num, path, data, submitter, log, responses)

    def close(self, num: int, comment: str) -> None:
        self.api.change_discussion_status(self.requests, num, "closed", comment=comment, repo_type="dataset")

    def comment(self, num: int, text: str) -> None:
        self.api.comment_discussion(self.requests, num, text, repo_type="dataset")

    def has_accepted_comment(self, num: int) -> bool:
        """Whether the pull request already has an accept comment by someone other than its author (another
        sync that finished it first)."""
        details = self.api.get_discussion_details(self.requests, num, repo_type="dataset")
        return any(e.type == "comment" and e.author != details.author and e.content.startswith("**Accepted**")
                   for e in details.events)
