"""``streamgaze leaderboard flag ROW --reason TEXT --discussion URL`` and ``unflag ROW``: a maintainer marks a row
of the results dataset without deleting it.

The flags live in the results repository's ``flags.json`` (pull request number -> reason, discussion, when);
every rendering of the results sets the row's ``flag_reason`` and ``flag_discussion`` columns from it, so the
results dataset, the static site and the app all show it (the app: a mark under the model name, with the
link, and a filter). The row is the results row's ``pr_number``.
"""

from __future__ import annotations

import tempfile
from datetime import datetime, timezone
from pathlib import Path

from ...submission import valid_url
from ...util.errors import StreamGazeError
from .hub_push import hub_api
from .results_repo import ResultsRepo, ResultsState

__all__ = ["flag", "unflag", "MAX_REASON"]

MAX_REASON = 300


def _row_number(row: str) -> int:
    text = str(row).strip().lstrip("#")
    if not text.isdigit() or len(text) > 9:
        raise StreamGazeError(f"row {row!r}: give the row's pull request number (pr_number), e.g. 12")
    return int(text)


def _apply(results: str, num: int, flag_value: dict | None, token: str | None) -> str | None:
    def change(state: ResultsState) -> None:
        if num not in state.pr_numbers:
            raise StreamGazeError(f"{results} has no row of pull request #{num}")
        if flag_value is None:
            if str(num) not in state.flags:
                raise StreamGazeError(f"row #{num} of {results} is not flagged")
            del state.flags[str(num)]
        else:
            state.flags[str(num)] = flag_value

    what = "unflag" if flag_value is None else "flag"
    with tempfile.TemporaryDirectory(prefix="streamgaze-flag-") as tmp:
        return ResultsRepo(hub_api(token), results, Path(tmp)).update(change, lambda _s: f"leaderboard {what}: row #{num}")


def flag(results: str, row: str | int, reason: str, discussion: str, *, token: str | None = None,
         when: datetime | None = None) -> str:
    """Flag the row; returns the line the command prints."""
    num = _row_number(str(row))
    reason = " ".join(str(reason).split())
    if not reason or len(reason) > MAX_REASON:
        raise StreamGazeError(f"--reason: one line of 1 to {MAX_REASON} characters")
    if not valid_url(discussion):
        raise StreamGazeError(f"--discussion {discussion!r}: an http(s) address of the discussion")
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = _apply(results, num, {"reason": reason, "discussion": discussion, "flagged_at": stamp}, token)
    return f"row #{num} flagged: {reason} ({discussion}); " + (f"results: commit {commit}" if commit else "results: unchanged")


def unflag(results: str, row: str | int, *, token: str | None = None) -> str:
    num = _row_number(str(row))
    commit = _apply(results, num, None, token)
    return f"row #{num} unflagged; " + (f"results: commit {commit}" if commit else "results: unchanged")
