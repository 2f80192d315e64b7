"""The Hub client calls of the toolkit: ``hf_hub_download`` of one dataset file, its errors turned into
one :class:`StreamGazeError` each (no such repository, revision or file; offline with an empty cache)."""

from __future__ import annotations

from ..util.errors import StreamGazeError

PREFIX = "hf://datasets/"


def reference_string(repo_id: str, revision: str) -> str:
    """``hf://datasets/ORG/NAME@REV``."""
    return f"{PREFIX}{repo_id}@{revision}"


def _describe(exc: Exception, repo_id: str, revision: str, filename: str) -> str:
    from huggingface_hub import errors as e

    ref = reference_string(repo_id, revision)
    if isinstance(exc, e.RepositoryNotFoundError):
        return f"{ref}: no such dataset repository on the Hub (or it is private or gated and HF_TOKEN cannot read it)"
    if isinstance(exc, e.RevisionNotFoundError):
        return f"{ref}: the repository has no revision {revision!r} (no such tag, branch or commit)"
    if isinstance(exc, e.EntryNotFoundError) and not isinstance(exc, e.LocalEntryNotFoundError):
        return f"{ref}: has no {filename} (not a dataset built by this toolkit, or not this revision)"
    if isinstance(exc, (e.LocalEntryNotFoundError, e.OfflineModeIsEnabled)):
        return (f"{ref}: {filename} is not in the local Hugging Face cache and the Hub cannot be reached "
                "(HF_HUB_OFFLINE=1 or no network): run once online to fill the cache")
    return f"{ref}: downloading {filename} failed: {exc}"


def hub_download(repo_id: str, filename: str, revision: str, tqdm_class=None) -> str:
    """``hf_hub_download`` of one dataset file (errors as one StreamGazeError)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    try:
        return hf_hub_download(repo_id, filename, repo_type="dataset", revision=revision, tqdm_class=tqdm_class)
    except (HfHubHTTPError, OfflineModeIsEnabled, FileNotFoundError, OSError, ValueError) as exc:
        raise StreamGazeError(_describe(exc, repo_id, revision, filename)) from exc
