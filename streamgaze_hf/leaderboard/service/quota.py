"""The per-submitter quota: at most N accepted-or-pending submissions per rolling 7 days (``--quota``, default 5).

Counted for one submitter at the moment a pull request is reviewed: their rows accepted in the 7 days before
(by the time their pull request was opened, as the Hub recorded it, never the file's own timestamp), the
pull requests accepted earlier in this sync, and their pull requests still open before this one. A pull
request over the quota is closed with the date from which it would be accepted: when the oldest counted
submission leaves the window. Maintainers (``leaderboard.yaml``) are exempt. Rejected pull requests never count.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

__all__ = ["DEFAULT_QUOTA", "WINDOW", "over_quota", "parse_time", "time_text"]

DEFAULT_QUOTA = 5
WINDOW = timedelta(days=7)


def parse_time(text: str | datetime | None) -> datetime | None:
    """A Hub timestamp (ISO 8601, ``Z``) or datetime as an aware UTC datetime; None when absent or unreadable."""
    if isinstance(text, datetime):
        return text if text.tzinfo else text.replace(tzinfo=timezone.utc)
    if not text:
        return None
    try:
        when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def time_text(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def over_quota(submitter: str, counted: Iterable[datetime], now: datetime, quota: int) -> str | None:
    """The one-line reason when ``submitter`` already has ``quota`` submissions in the window before ``now``
    (``counted``: when each accepted or pending one was opened), else None."""
    recent = sorted(t for t in counted if now - WINDOW < t <= now)
    if len(recent) < quota:
        return None
    free = recent[len(recent) - quota] + WINDOW
    return (f"over the quota: @{submitter} has {len(recent)} submission(s) accepted or pending in the last 7 days "
            f"(at most {quota}); it would be accepted from {time_text(free)}: open it again then")
