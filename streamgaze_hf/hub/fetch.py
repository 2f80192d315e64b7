"""Partial download of a Hub dataset into the standard Hugging Face cache.

A dataset reference becomes the snapshot directory of its commit (:func:`hub_root`: ``manifest.json`` and
the card only). Other files arrive when they are first needed (:func:`fetch_files`, called by
:func:`streamgaze_hf.dataset.load.dataset_files`): the requested tasks' parquet files, then the videos
(one variant: original, overlay or proxy) their questions show. Files already in the cache are not
downloaded again (``hf_hub_download`` with a commit id returns a cached file without a request), so a
second run downloads nothing and ``HF_HUB_OFFLINE=1`` works on a filled cache. Downloads show one
progress bar in bytes over all files of a batch (sizes from the manifest).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..util.errors import StreamGazeError
from .client import hub_download
from .reference import HubRef, resolve_commit, snapshot_of

__all__ = ["hub_download", "hub_root", "fetch_files"]


def hub_root(ref: HubRef) -> Path:
    """The snapshot directory of ``ref``'s commit holding at least the manifest and the card (verified)."""
    commit = resolve_commit(ref)
    return Path(hub_download(ref.repo_id, "manifest.json", commit)).parent


def fetch_files(root: Path, entries: dict[str, dict], progress: bool = True) -> None:
    """Download the files ``entries`` (path in the dataset -> manifest entry) that the snapshot ``root``
    lacks, with one byte progress bar. ``root`` must be a snapshot directory (see reference.snapshot_of)."""
    found = snapshot_of(root)
    if found is None:
        raise StreamGazeError("not a Hugging Face cache snapshot directory", root)
    repo_id, commit = found
    todo = {rel: e for rel, e in entries.items() if not (root / rel).is_file()}
    if not todo:
        return
    from tqdm import tqdm

    total = sum(int(e.get("bytes") or 0) for e in todo.values())
    bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, dynamic_ncols=True,
               desc=f"download {repo_id}@{commit[:8]} ({len(todo)} file{'s' if len(todo) != 1 else ''})",
               disable=not progress or _bars_off())
    part = _part_bar(bar)
    try:
        for rel in sorted(todo):
            hub_download(repo_id, rel, commit, tqdm_class=part)
    finally:
        bar.close()


def _bars_off() -> bool:
    return os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "").strip().lower() in {"1", "true", "yes", "on"}


def _part_bar(aggregate):
    """A tqdm class for one file's download that adds its bytes to ``aggregate`` and draws nothing."""
    from tqdm.auto import tqdm

    class _Part(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            initial = int(kwargs.get("initial") or 0)
            super().__init__(*args, **kwargs)
            if initial:
                aggregate.update(initial)

        def update(self, n=1):
            aggregate.update(n)
            return super().update(n)

    return _Part

