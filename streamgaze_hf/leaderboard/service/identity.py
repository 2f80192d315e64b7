"""Who submitted a pull request: identity comes from the Hub, never from the file.

* A pull request opened with a user's own token (``push-submission``, ``submit --push``): the Hub's author of
  the pull request.
* A pull request opened by the Space (its token's account is listed in ``space_accounts`` of the results
  repository's ``leaderboard.yaml``): the user signed in on the Space (Gradio OAuth), which the app writes as
  the first line of the pull request's description, ``Submitted by @USER via the Space.`` Only the listed
  accounts are believed: anyone else writing that line is still the author of their own pull request.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ...util.errors import StreamGazeError

__all__ = ["description_of", "space_description", "submitter_of", "USER_NAME"]

#: a Hub user or organisation name
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_SPACE = re.compile(r"^Submitted by @([A-Za-z0-9][A-Za-z0-9._-]{0,95}) via the Space\.")


def space_description(user: str) -> str:
    """The description of a pull request the Space opens for the signed-in ``user``."""
    if not USER_NAME.match(user):
        raise StreamGazeError(f"{user!r} is not a Hub user name")
    return (f"Submitted by @{user} via the Space.\n\nThe leaderboard app re-scored this file before opening the pull "
            "request; the maintainer's sync re-scores it again.")


def description_of(details) -> str:
    """A pull request's description as :func:`submitter_of` reads it: its first comment when the pull request's
    author wrote it (huggingface_hub's ``DiscussionWithDetails``), else "" (a comment of anyone else names nobody)."""
    first = next((e for e in details.events if e.type == "comment"), None)
    return first.content if first is not None and first.author == details.author else ""


def submitter_of(author: str, description: str, space_accounts: Collection[str]) -> str:
    """The submitter of a pull request opened by ``author`` with this ``description``; StreamGazeError when a
    Space account's pull request names no signed-in user."""
    if author not in space_accounts:
        return author
    m = _SPACE.match(description or "")
    if m is None:
        raise StreamGazeError(f"opened by the Space's account {author} without the signed-in submitter "
                              "(\"Submitted by @USER via the Space.\")")
    return m.group(1)
