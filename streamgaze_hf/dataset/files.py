"""The files of a built dataset directory, for any registered benchmark (docs/datasets.md).

A dataset is opened through :func:`streamgaze_hf.dataset.load.open_dataset` (the one opener: the reference
resolved once, the manifest read once, the benchmark found once); what it reads goes through the
functions here, which take a dataset *directory* (already resolved) and never resolve a reference:

* :func:`read_manifest`: the parsed ``manifest.json``;
* :func:`dataset_files`: local paths of dataset files, a Hub snapshot's missing files fetched first and
  every file checked against the manifest's sha256 the first time it is used;
* :func:`read_config` / :func:`config_features` / :func:`data_file`: a config's parquet shard through the
  one reader (``dataset/reader.py``);
* :func:`check_dataset_files`: every config's footer against the manifest's row counts.

The contract for other tools is a *path*: ``load_dataset(<root>, "<task>", split="test")``. A bare
``load_dataset("<name>", ...)`` works only from the root's parent directory and silently falls back to a
stale cached build when the directory is missing offline (hf_datasets_notes.md §1.4).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..hub.verify import MANIFEST  # the manifest file's name, defined with the rule that checks it
from ..util.errors import StreamGazeError
from ..util.fsutil import sha256_file  # noqa: F401  (re-exported: the dataset modules hash through it)
from .reader import parquet_rows, read_json, read_parquet
from .schema import CONFIG_FEATURES, VIEWER_FEATURES

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

    from ..registry import Benchmark

DATA_FILE_NAME = "test-00000-of-00001.parquet"


def config_names(benchmark: Benchmark) -> tuple[str, ...]:
    """Every config of a dataset of ``benchmark``, in card order: its task configs, then the shared videos,
    gaze and fixations configs."""
    return benchmark.task_ids + tuple(CONFIG_FEATURES)


def data_file(root: str | os.PathLike[str], config: str) -> Path:
    """Where the (single) parquet shard of ``config``'s test split lives under ``root``."""
    return Path(root) / "data" / config / DATA_FILE_NAME


def config_features(config: str, benchmark: Benchmark | None = None) -> datasets.Features:
    """The ``datasets.Features`` of a config: the shared ``videos``, ``gaze`` and ``fixations`` configs',
    the Hub-facing ``previews`` and older ``video_files`` configs' (``Video`` columns, viewer.py), else a
    task config's: the QA schema of ``benchmark`` (required for a task config)."""
    if config in CONFIG_FEATURES:
        return CONFIG_FEATURES[config]
    if config in VIEWER_FEATURES:
        return VIEWER_FEATURES[config]
    if benchmark is None:
        raise ValueError(f"the features of the task config {config!r} are its benchmark's: name the benchmark")
    return benchmark.plugin().qa_features()


def read_config(file: str | os.PathLike[str], config: str, features: datasets.Features,
                columns: list[str] | None = None, filters: list | None = None) -> pa.Table:
    """The rows of one config's parquet file as an arrow table (the one reader, ``dataset/reader.py``:
    StreamGazeError naming the file when it is missing, damaged or of another schema)."""
    return read_parquet(file, f"parquet file of config {config!r}", features, columns, filters)


def config_rows(counts: Mapping[str, Any], benchmark: Benchmark) -> dict[str, int]:
    """Rows per config (card order) from a manifest's ``counts`` object.

    Raises:
        KeyError, TypeError, ValueError: ``counts`` is not a manifest's counts object.
    """
    rows = {task_id: int(counts["questions"].get(task_id, 0)) for task_id in benchmark.task_ids}
    rows.update(videos=int(counts["videos"]), gaze=int(counts["gaze_samples"]), fixations=int(counts["fixations"]))
    return rows


#: (root, manifest size and mtime, data files' sizes and mtimes) -> nothing: datasets checked in this process
_CHECKED: dict[tuple, None] = {}


def check_dataset_files(root: str | os.PathLike[str], configs: Iterable[str],
                        features: Callable[[str], datasets.Features], expected: Mapping[str, int]) -> None:
    """Open every config's parquet file of the dataset at ``root`` (footer and schema; no data) and compare its
    row count with the manifest's: the first problem as a StreamGazeError naming the file. Run when a dataset
    is opened, so a damaged dataset stops a command before any other work (``streamgaze doctor`` checks every
    byte against the manifest's sha256).

    Args:
        root: the dataset's directory.
        configs: the configs to check (card order).
        features: config -> its ``datasets.Features``.
        expected: config -> the manifest's row count (a config not in it is not compared).
    """
    path = Path(root)
    configs = tuple(configs)
    key = (str(path), _stat_key(path / MANIFEST), *(_stat_key(data_file(path, c)) for c in configs))
    if key in _CHECKED:
        return
    for config in configs:
        file = data_file(path, config)
        rows = parquet_rows(file, f"parquet file of config {config!r}", features(config))
        if config in expected and rows != expected[config]:
            raise StreamGazeError(f"parquet file of config {config!r} has {rows} rows, {MANIFEST} counts "
                                  f"{expected[config]} (changed or replaced file)", file)
    _CHECKED[key] = None


def _stat_key(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return (None,)
    return (st.st_size, st.st_mtime_ns)


def manifest_files(root: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The manifest's ``files`` (path in the dataset -> {sha256, bytes}), read once per manifest version;
    empty while there is no manifest (a dataset being written: the writer reads its own files)."""
    path = Path(root) / MANIFEST
    try:
        st = path.stat()
    except OSError:
        return {}
    return _manifest_files(str(path), st.st_size, st.st_mtime_ns, st.st_ino)


@lru_cache(maxsize=32)
def _manifest_files(path: str, _size: int, _mtime_ns: int, _ino: int) -> dict[str, dict[str, Any]]:
    files = read_manifest(Path(path).parent).get("files")
    return files if isinstance(files, dict) else {}


def dataset_files(root: str | os.PathLike[str], rels: Iterable[str], progress: bool = True,
                  listed: Mapping[str, Mapping[str, Any]] | None = None) -> list[Path]:
    """Local paths of the dataset files ``rels`` (paths relative to ``root``), ready to read: a Hub
    snapshot's missing files are downloaded first (one byte progress bar), and every file the manifest
    lists is checked against its sha256 the first time it is used (hub/verify.py; one StreamGazeError
    naming the first bad file). A path the manifest does not list is returned as it is (it may not exist:
    callers test ``is_file()`` for optional parts such as the gaze config).

    Args:
        root: the dataset's directory.
        rels: paths relative to it.
        progress: show the download progress bar.
        listed: the manifest's ``files`` (None: read from the manifest at ``root``).
    """
    from ..hub.reference import snapshot_of
    from ..hub.verify import verify_file

    root = Path(root)
    rels = list(dict.fromkeys(str(r) for r in rels))
    files = manifest_files(root) if listed is None else listed
    if snapshot_of(root) is not None:
        from ..hub.fetch import fetch_files

        fetch_files(root, {rel: files[rel] for rel in rels if rel in files}, progress=progress)
    for rel in rels:
        if rel in files:
            verify_file(root / rel, files[rel])
    return [root / rel for rel in rels]


def config_file(root: str | os.PathLike[str], config: str) -> Path:
    """:func:`data_file` of ``config`` under the dataset directory ``root``, fetched and verified
    (:func:`dataset_files`) for reading."""
    return dataset_files(root, [data_file(".", config).as_posix()])[0]


def read_manifest(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed ``manifest.json`` of a built dataset directory (StreamGazeError if missing or unreadable)."""
    path = Path(root) / MANIFEST
    if not path.is_file():
        raise StreamGazeError(f"not a built dataset (no {MANIFEST}); build one with `streamgaze build BENCH --raw "
                              f"RAW_DIR --out {root} --version X.Y.Z` or `streamgaze import BENCH RELEASE_DIR --out "
                              f"{root} --version X.Y.Z`", root)
    manifest = read_json(path, "manifest")
    if not isinstance(manifest, dict) or "version" not in manifest:
        raise StreamGazeError("manifest has no version: not a dataset manifest of this toolkit", path)
    return manifest
