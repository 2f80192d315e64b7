"""Find and load a built StreamGaze dataset (DESIGN.md "Dataset").

The contract is a *path*: ``load_dataset(<root>, "<task>", split="test")``. A bare
``load_dataset("streamgaze", ...)`` works only from the root's parent directory and silently falls
back to a stale cached build when the directory is missing offline (hf_datasets_notes.md §1.4), so
:func:`resolve_root` always hands ``datasets`` an absolute path to an existing dataset.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import datasets

from ..errors import StreamGazeError
from ..tasks import TASK_IDS
from .schema import CONFIG_FEATURES

ROOT_ENV = "STREAMGAZE_ROOT"
DEFAULT_ROOT = "streamgaze"
MANIFEST = "manifest.json"
#: every config of the dataset, in card order: the ten tasks, then videos, gaze, fixations
CONFIG_NAMES: tuple[str, ...] = TASK_IDS + tuple(CONFIG_FEATURES)
DATA_FILE_NAME = "test-00000-of-00001.parquet"
_HASH_CHUNK = 1 << 20


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def data_file(root: str | os.PathLike[str], config: str) -> Path:
    """Where the (single) parquet shard of ``config``'s test split lives under ``root``."""
    return Path(root) / "data" / config / DATA_FILE_NAME


def _how_to_build(root: Path) -> str:
    return (
        f"build one with `streamgaze build --raw RAW_DIR --out {root} --version X.Y.Z` or "
        f"`streamgaze import-release RELEASE_DIR --out {root} --version X.Y.Z`"
    )


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The dataset root: ``root`` if given, else ``$STREAMGAZE_ROOT``, else ``./streamgaze``.

    Raises :class:`StreamGazeError` (saying where it looked and how to build a dataset) when the
    chosen directory holds no built dataset (no ``manifest.json``).
    """
    if root is not None:
        where, path = "the given path", Path(root)
    elif os.environ.get(ROOT_ENV):
        where, path = f"${ROOT_ENV}", Path(os.environ[ROOT_ENV])
    else:
        where, path = f"./{DEFAULT_ROOT} (no root given and ${ROOT_ENV} unset)", Path(DEFAULT_ROOT)
    path = path.expanduser().resolve()
    if not (path / MANIFEST).is_file():
        state = "does not exist" if not path.exists() else f"has no {MANIFEST}"
        raise StreamGazeError(
            f"no StreamGaze dataset here: looked at {where}, which {state}; {_how_to_build(path)}", path
        )
    return path


def read_manifest(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed ``manifest.json`` of a built dataset (StreamGazeError if missing or unreadable)."""
    path = Path(root) / MANIFEST
    if not path.is_file():
        raise StreamGazeError(f"not a StreamGaze dataset (no {MANIFEST}); {_how_to_build(Path(root))}", root)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"unreadable manifest: {exc}", path) from exc
    if not isinstance(manifest, dict) or "version" not in manifest:
        raise StreamGazeError("manifest has no version: not a StreamGaze dataset manifest", path)
    return manifest


def config_rows(counts: dict[str, Any]) -> dict[str, int]:
    """Rows per config (card order) from a manifest's ``counts`` object."""
    rows = {task_id: int(counts["questions"].get(task_id, 0)) for task_id in TASK_IDS}
    rows.update(
        videos=int(counts["videos"]), gaze=int(counts["gaze_samples"]), fixations=int(counts["fixations"])
    )
    return rows


def load_config(
    name: str, root: str | os.PathLike[str] | None = None, cache_dir: str | os.PathLike[str] | None = None
) -> datasets.Dataset:
    """The ``test`` split of any config (a task id, ``videos``, ``gaze`` or ``fixations``).

    Empty configs are not declared in the card (``datasets`` cannot load a 0-row split), so asking
    for one raises a :class:`StreamGazeError` saying so rather than ``datasets``' "config not found".
    """
    if name not in CONFIG_NAMES:
        raise StreamGazeError(f"unknown config {name!r}; configs are {', '.join(CONFIG_NAMES)}")
    path = resolve_root(root)
    manifest = read_manifest(path)
    try:
        empty = config_rows(manifest["counts"])[name] == 0
    except (KeyError, TypeError, ValueError, AttributeError):  # no usable counts: let datasets decide
        empty = False
    if empty:
        raise StreamGazeError(
            f"config {name!r} is empty in dataset version {manifest['version']} "
            "(0 rows; empty configs are not declared in the card)",
            path,
        )
    return datasets.load_dataset(
        str(path), name, split="test", cache_dir=None if cache_dir is None else str(cache_dir)
    )


def load_task(
    task_id: str, root: str | os.PathLike[str] | None = None, cache_dir: str | os.PathLike[str] | None = None
) -> datasets.Dataset:
    """The ``test`` split of one task config as a ``datasets.Dataset`` (rows follow QA_FEATURES)."""
    if task_id not in TASK_IDS:
        raise StreamGazeError(f"unknown task {task_id!r}; tasks are {', '.join(TASK_IDS)}")
    return load_config(task_id, root, cache_dir)
