"""The leaderboard's two dataset repositories on the Hub: does one exist, and the error every command gives when
one is missing (:func:`require_repo`: ``push-submission`` and ``leaderboard sync`` check before they write anything;
the message names the repository and the maintainer's first step, ``leaderboard init``: :mod:`.create`).
"""

from __future__ import annotations

from ...util.errors import StreamGazeError

__all__ = ["require_repo", "missing_repo", "repo_exists"]


def missing_repo(repo: str, role: str, requests: str = "ORG/REQUESTS", results: str = "ORG/RESULTS"
                 ) -> StreamGazeError:
    """The error of a command that needs the leaderboard's ``role`` (requests / results) dataset ``repo``."""
    return StreamGazeError(f"the leaderboard's {role} dataset {repo} does not exist on the Hub (or this token cannot see "
                           f"it); its maintainer creates it with `streamgaze leaderboard init --requests {requests} "
                           f"--results {results}`")


def _is_missing(exc: Exception) -> bool:
    from huggingface_hub.errors import RepositoryNotFoundError

    return isinstance(exc, RepositoryNotFoundError)


def repo_exists(api, repo: str) -> bool:
    """Whether the dataset ``repo`` exists (and the token can see it); other client errors are raised as they are."""
    try:
        api.repo_info(repo, repo_type="dataset")
    except Exception as exc:  # noqa: BLE001
        if _is_missing(exc):
            return False
        raise
    return True


def require_repo(api, repo: str, role: str, *, requests: str = "ORG/REQUESTS", results: str = "ORG/RESULTS") -> None:
    """Raise :func:`missing_repo` unless the dataset ``repo`` (the leaderboard's ``role`` dataset) exists."""
    if not repo_exists(api, repo):
        raise missing_repo(repo, role, requests, results)


