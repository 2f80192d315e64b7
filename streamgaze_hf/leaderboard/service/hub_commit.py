"""Committing to a Hub dataset that other writers commit to (the syncs, the app, the evaluation jobs): each attempt
reads the branch's head, works out its change on it and commits with ``parent_commit`` = that head; the Hub refuses
a commit whose parent is no longer the head (412), and the attempt is made again on the new head. The one rule of the
leaderboard's writers (``ledger.commit_accepted``, ``ResultsRepo.update``, ``QueueRepo.update``, the job's commit of
its responses).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["AGAIN", "ATTEMPTS", "commit_on_head", "moved_on"]

#: attempts before a writer gives up (each one on the head it has just read)
ATTEMPTS = 5
#: what an attempt returns to be made again on a new head without a 412 (e.g. its commit would have been empty
#: because the change appeared meanwhile)
AGAIN = object()

T = TypeVar("T")


def moved_on(exc: BaseException) -> bool:
    """Whether the Hub refused a commit because another writer committed first (412 on ``parent_commit``)."""
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None) == 412


def commit_on_head(attempt: Callable[[], T], *, moved: Callable[[], None], gave_up: Exception,
                   error: Callable[[Exception], Exception] | None = None, attempts: int = ATTEMPTS) -> T:
    """``attempt()`` until it returns something other than :data:`AGAIN`: again after a 412 (``moved()`` is told,
    e.g. to log it), at most ``attempts`` times, then ``gave_up`` is raised (a StreamGazeError where the caller
    treats that as a user's error; the sync's acceptance raises another kind, so that a busy Hub never reads as a
    refusal). Any other Hub error goes up as it is, or as ``error(exc)`` (e.g. ``hub_error``'s one line)."""
    from huggingface_hub.errors import HfHubHTTPError

    for _ in range(attempts):
        try:
            out = attempt()
        except HfHubHTTPError as exc:
            if moved_on(exc):
                moved()
                continue
            if error is not None:
                raise error(exc) from None
            raise
        if out is not AGAIN:
            return out
    raise gave_up
