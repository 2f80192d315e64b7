"""Merged is scored: the sync commits the exact bytes it re-scored onto the requests dataset's ``main`` itself,
and never merges a pull request (the Hub's merge takes whatever the pull request's head is at that moment,
and its author may push to it at any time).

:func:`commit_accepted` adds the file with ``parent_commit`` = the head it read: if anything was committed
meanwhile the Hub refuses (412) and it reads the new head and tries again; if the path is already there, it is
either this pull request's own accept (another sync was first: nothing to do) or a refusal. The commit's
title, ``Accept #N: <path>``, and the first line of its message, ``Submitted by @USER in pull request #N``, make
``main``'s history the ledger of accepted submissions (:func:`accepted_prs`), which only the maintainers can
write: a sync interrupted after the commit finds its row missing and adds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ... import __version__
from ...util.errors import StreamGazeError
from .hub_commit import AGAIN, ATTEMPTS, commit_on_head

__all__ = ["Accepted", "accepted_prs", "commit_accepted", "accept_title", "git_blob_id"]

_TITLE = re.compile(r"^Accept #(\d{1,9}): ((?:submissions|requests)/\S+)$")
_BY = re.compile(r"^Submitted by @([A-Za-z0-9][A-Za-z0-9._-]{0,95}) in pull request #(\d{1,9})")
_RESPONSES = re.compile(r"responses sha256 ([0-9a-f]{64})")


@dataclass(frozen=True)
class Accepted:
    """One accepted submission (or evaluation request) in ``main``'s history: its pull request, file, submitter
    and commit, and the digest of its raw responses (submission/fingerprint.py; "" for a request)."""

    num: int
    path: str
    submitter: str
    commit: str
    responses: str = ""


def git_blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def accept_title(num: int, path: str) -> str:
    return f"Accept #{num}: {path}"


def accepted_prs(api, requests: str, revision: str) -> dict[int, Accepted]:
    """Pull request number -> its accept commit, from the history of ``revision`` of the requests dataset."""
    out: dict[int, Accepted] = {}
    for c in api.list_repo_commits(requests, repo_type="dataset", revision=revision):
        m, by = _TITLE.match(c.title or ""), _BY.match(c.message or "")
        if m and by and by.group(2) == m.group(1):
            digest = _RESPONSES.search(c.message or "")
            out.setdefault(int(m.group(1)), Accepted(int(m.group(1)), m.group(2), by.group(1), c.commit_id,
                                                     digest.group(1) if digest else ""))
    return out


def commit_accepted(api, requests: str, num: int, path: str, data: bytes, submitter: str,
                    log=lambda _m: None, responses: str = "") -> str | None:
    """Commit ``data`` (the bytes that were re-scored) at ``path`` on ``main``; the new commit, or None when
    another sync accepted this pull request first. StreamGazeError when the path holds another file.
    ``responses``: the digest of its raw responses, written into the message (``push-submission`` reads the
    ledger to refuse a repeat before it sends anything)."""
    from huggingface_hub import CommitOperationAdd

    blob = git_blob_id(data)

    def attempt():
        head = api.repo_info(requests, repo_type="dataset").sha
        present = api.get_paths_info(requests, [path], revision=head, repo_type="dataset")
        if present:
            mine = accepted_prs(api, requests, head).get(num)
            if mine is not None and mine.path == path and getattr(present[0], "blob_id", None) == blob:
                return None
            raise StreamGazeError(f"{path} already exists: a pull request cannot change an existing submission")
        info = api.create_commit(
            requests, [CommitOperationAdd(path, data)], repo_type="dataset", parent_commit=head,
            commit_message=accept_title(num, path),
            commit_description=(f"Submitted by @{submitter} in pull request #{num}. Re-scored by "
                                f"streamgaze-toolkit {__version__}; these are the bytes it scored (git blob "
                                f"{blob})." + (f" Its raw responses: responses sha256 {responses}."
                                               if responses else "")))
        return AGAIN if info.oid == head else info.oid  # an empty commit is not sent (the file appeared): look again

    return commit_on_head(
        attempt, moved=lambda: log(f"#{num}: the requests dataset moved while accepting; reading its new head"),
        gave_up=RuntimeError(f"other writers kept committing to the requests dataset; {ATTEMPTS} attempts failed"))
