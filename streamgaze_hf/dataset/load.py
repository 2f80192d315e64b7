"""Find and load a built dataset of any registered benchmark (docs/datasets.md).

The contract is a *path*: ``load_dataset(<root>, "<task>", split="test")``. A bare
``load_dataset("<name>", ...)`` works only from the root's parent directory and silently falls
back to a stale cached build when the directory is missing offline (hf_datasets_notes.md §1.4), so
:func:`resolve_root` always hands ``datasets`` an absolute path to an existing dataset.

:func:`resolve_root` is the one rule for every dataset root a command takes (``--root``, ``--dataset``,
a benchmark's ``$..._ROOT``): a local directory, or a Hub reference
``hf://datasets/ORG/NAME@REV`` resolved to the snapshot directory of one commit in the Hugging Face
cache (streamgaze_hf/hub/). Files are read through :func:`dataset_files` / :func:`config_file`: a file a
snapshot lacks is downloaded, and every file is checked against the manifest the first time it is used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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

DATA_FILE_NAME = "test-00000-of-00001.parquet"


def config_names(benchmark: str) -> tuple[str, ...]:
    """Every config of a dataset of ``benchmark`` (registry), in card order: its task configs, then
    the shared videos, gaze and fixations configs."""
    from ..registry import get_benchmark

    return get_benchmark(benchmark).task_ids + tuple(CONFIG_FEATURES)


def benchmark_of(manifest: dict[str, Any]) -> str:
    """The benchmark a dataset belongs to: the registered benchmark whose name (or dataset name) its
    manifest's ``name`` is (every dataset the writer produces names one); a manifest that names none (an
    early build) is the default benchmark's (``registry.default_benchmark``).

    Raises:
        StreamGazeError: the manifest names a benchmark no installed package registers.
    """
    from ..registry import benchmarks, default_benchmark

    name = manifest.get("name") if isinstance(manifest, dict) else None
    if not name:
        return default_benchmark().name
    for bench in benchmarks():
        if name in (bench.name, bench.dataset.dataset_name):
            return bench.name
    raise StreamGazeError(f"a dataset of the benchmark {name!r}, which no installed package registers (benchmarks: "
                          f"{', '.join(b.name for b in benchmarks())}); install the package that declares it")


def data_file(root: str | os.PathLike[str], config: str) -> Path:
    """Where the (single) parquet shard of ``config``'s test split lives under ``root``."""
    return Path(root) / "data" / config / DATA_FILE_NAME


def config_features(config: str, benchmark: str | None = None) -> datasets.Features:
    """The ``datasets.Features`` of a config: the shared ``videos``, ``gaze`` and ``fixations`` configs',
    the Hub-facing ``previews`` and older ``video_files`` configs' (``Video`` columns, viewer.py), else a
    task config's: the QA schema of ``benchmark`` (required for a task config)."""
    from ..registry import get_benchmark, resolve

    if config in CONFIG_FEATURES:
        return CONFIG_FEATURES[config]
    if config in VIEWER_FEATURES:
        return VIEWER_FEATURES[config]
    if benchmark is None:
        raise ValueError(f"the features of the task config {config!r} are its benchmark's: name the benchmark")
    return resolve(get_benchmark(benchmark).dataset.qa_features)


def read_config(root: str | os.PathLike[str], config: str, columns: list[str] | None = None,
                filters: list | None = None, benchmark: str | None = None) -> pa.Table:
    """The rows of one config of the dataset at ``root`` as an arrow table (the one reader,
    ``dataset/reader.py``: StreamGazeError naming the file when it is missing, damaged or of another
    schema). ``benchmark`` defaults to the one the dataset's manifest names."""
    if benchmark is None and config not in CONFIG_FEATURES:
        benchmark = benchmark_of(read_manifest(root))
    return read_parquet(config_file(root, config), f"parquet file of config {config!r}",
                        config_features(config, benchmark), columns, filters)


#: (root, manifest size and mtime) -> nothing: datasets whose files were checked in this process
_CHECKED: dict[tuple, None] = {}


def check_dataset_files(root: str | os.PathLike[str]) -> None:
    """Open every config's parquet file of the dataset at ``root`` (footer and schema; no data) and
    compare its row count with the manifest's: the first problem as a StreamGazeError naming the file.
    Run whenever a root is resolved, so a damaged dataset stops a command before any other work
    (``streamgaze doctor`` checks every byte against the manifest's sha256)."""
    path = Path(root)
    manifest = read_manifest(path)
    benchmark = benchmark_of(manifest)
    key = (str(path), _stat_key(path / MANIFEST), *(_stat_key(data_file(path, c)) for c in config_names(benchmark)))
    if key in _CHECKED:
        return
    try:
        expected = config_rows(manifest["counts"], benchmark)
    except (KeyError, TypeError, ValueError, AttributeError):  # no usable counts (older manifests)
        expected = {}
    for config in config_names(benchmark):
        file = data_file(path, config)
        rows = parquet_rows(file, f"parquet file of config {config!r}", config_features(config, benchmark))
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


def _how_to_build(root: Path) -> str:
    return (
        f"build one with `streamgaze build BENCH --raw RAW_DIR --out {root} --version X.Y.Z` or "
        f"`streamgaze import BENCH RELEASE_DIR --out {root} --version X.Y.Z`"
    )


def root_lookup(root: str | os.PathLike[str] | None, env: str, default: str) -> tuple[str, str]:
    """(where, path or reference) of the dataset root :func:`resolve_root` takes: ``root`` if given, else
    ``$ENV``, else ``./DEFAULT``; ``where`` says which, for messages."""
    if root is not None:
        return "the given path", str(root)
    if os.environ.get(env):
        return f"${env}", os.environ[env]
    return f"./{default} (no root given and ${env} unset)", default


def missing_root(env: str, default: str) -> str | None:
    """Where a benchmark's dataset is looked for (``$ENV``, else ``./DEFAULT``) when no dataset is there; None
    when one is (a Hub reference counts as one: it is fetched when used)."""
    from ..hub.reference import is_reference

    raw = os.environ.get(env) or default
    if is_reference(raw) or (Path(raw).expanduser() / MANIFEST).is_file():
        return None
    where = f"${env} ({raw})" if os.environ.get(env) else f"${env} (unset), else ./{default}"
    return f"{where}, which holds no dataset"


def resolve_root(root: str | os.PathLike[str] | None = None, env: str | None = None,
                 default: str | None = None, check: bool = True) -> Path:
    """The dataset root: ``root`` if given, else ``$<env>``, else ``./<default>``.

    Each may be a Hub reference ``hf://datasets/ORG/NAME@REV``: the result is then the snapshot
    directory of the revision's commit in the Hugging Face cache, holding the manifest and the card
    (other files are fetched when first used; streamgaze_hf/hub/).

    Args:
        root: the root a command was given (a directory or a Hub reference), or None.
        env: the variable naming the root when none is given (a benchmark's ``root_env``, e.g.
            ``$EGOGAZEVQA_ROOT``); None: the default benchmark's (``registry.default_benchmark``).
        default: the directory looked at last (a benchmark's ``default_root``); None: the default
            benchmark's.
        check: also open every parquet file's footer (:func:`check_dataset_files`).

    Returns:
        The absolute path of the dataset (a Hub reference: its snapshot directory).

    Raises:
        StreamGazeError: the chosen directory holds no built dataset (saying where it looked and how to
            build one), or with ``check`` one of its files is unreadable, truncated or of another schema.
    """
    if env is None or default is None:
        from ..registry import default_benchmark

        fallback = default_benchmark()
        env, default = env or fallback.root_env, default or fallback.default_root
    where, raw = root_lookup(root, env, default)
    from ..hub.reference import is_reference

    if is_reference(raw):
        from ..hub.fetch import hub_root
        from ..hub.reference import parse_reference

        path = hub_root(parse_reference(raw))
        dataset_files(path, ["README.md"])  # the card, verified against the manifest
        return path
    path = Path(raw).expanduser().resolve()
    if not (path / MANIFEST).is_file():
        state = "does not exist" if not path.exists() else f"has no {MANIFEST}"
        raise StreamGazeError(
            f"no dataset here: looked at {where}, which {state}; {_how_to_build(path)}", path
        )
    from ..hub.reference import snapshot_of

    if check and snapshot_of(path) is None:  # a Hub snapshot's files are checked (sha256) as they arrive
        check_dataset_files(path)
    return path


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


def dataset_files(root: str | os.PathLike[str], rels: Iterable[str], progress: bool = True) -> list[Path]:
    """Local paths of the dataset files ``rels`` (paths relative to ``root``), ready to read: a Hub
    snapshot's missing files are downloaded first (one byte progress bar), and every file the manifest
    lists is checked against its sha256 the first time it is used (hub/verify.py; one StreamGazeError
    naming the first bad file). A path the manifest does not list is returned as it is (it may not exist:
    callers test ``is_file()`` for optional parts such as the gaze config)."""
    from ..hub.reference import snapshot_of
    from ..hub.verify import verify_file

    root = Path(root)
    rels = list(dict.fromkeys(str(r) for r in rels))
    files = manifest_files(root)
    if snapshot_of(root) is not None:
        from ..hub.fetch import fetch_files

        fetch_files(root, {rel: files[rel] for rel in rels if rel in files}, progress=progress)
    for rel in rels:
        if rel in files:
            verify_file(root / rel, files[rel], rel)
    return [root / rel for rel in rels]


def dataset_file(root: str | os.PathLike[str], rel: str | os.PathLike[str]) -> Path:
    """One file of :func:`dataset_files`."""
    return dataset_files(root, [Path(rel).as_posix()])[0]


def config_file(root: str | os.PathLike[str], config: str) -> Path:
    """:func:`data_file` of ``config``, fetched and verified (:func:`dataset_files`) for reading."""
    return dataset_file(root, data_file(".", config).as_posix())


def read_manifest(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed ``manifest.json`` of a built dataset (StreamGazeError if missing or unreadable)."""
    path = Path(root) / MANIFEST
    if not path.is_file():
        raise StreamGazeError(f"not a built dataset (no {MANIFEST}); {_how_to_build(Path(root))}", root)
    manifest = read_json(path, "manifest")
    if not isinstance(manifest, dict) or "version" not in manifest:
        raise StreamGazeError("manifest has no version: not a dataset manifest of this toolkit", path)
    return manifest


def benchmark_root(benchmark: str, root: str | os.PathLike[str] | None = None, build_hint: str = "") -> Path:
    """The dataset root of a registered benchmark (``root``, else its ``root_env`` variable, else its
    default directory), checked to hold a dataset of that benchmark (StreamGazeError naming the
    benchmark it holds instead, and ``build_hint``, how to build the right one)."""
    from ..registry import get_benchmark

    bench = get_benchmark(benchmark)
    path = resolve_root(root, env=bench.root_env, default=bench.default_root)
    found = benchmark_of(read_manifest(path))
    if found != bench.name:
        article = "an" if bench.title[:1].upper() in "AEIOU" else "a"
        raise StreamGazeError(f"this is a {found} dataset, not {article} {bench.title} one"
                              + (f" ({build_hint})" if build_hint else ""), path)
    return path


def config_rows(counts: dict[str, Any], benchmark: str) -> dict[str, int]:
    """Rows per config (card order) from a manifest's ``counts`` object."""
    task_ids = config_names(benchmark)[: -len(CONFIG_FEATURES)]
    rows = {task_id: int(counts["questions"].get(task_id, 0)) for task_id in task_ids}
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
    path = resolve_root(root)
    manifest = read_manifest(path)
    benchmark = benchmark_of(manifest)
    names = config_names(benchmark)
    if name not in names:
        raise StreamGazeError(f"unknown config {name!r}; configs are {', '.join(names)}")
    try:
        empty = config_rows(manifest["counts"], benchmark)[name] == 0
    except (KeyError, TypeError, ValueError, AttributeError):  # no usable counts: let datasets decide
        empty = False
    if empty:
        what = "task" if name in names[: -len(CONFIG_FEATURES)] else "config"
        raise StreamGazeError(
            f"{what} {name!r} has no {'questions' if what == 'task' else 'rows'} in dataset version {manifest['version']} (0 rows; see "
            f"`streamgaze stats`): leave it out of --tasks",
            path,
        )
    # Read through the one reader rather than ``datasets.load_dataset``: a damaged file is one clear
    # error, and nothing is written to the Hugging Face cache (``cache_dir`` is kept for callers). On a
    # Hub snapshot the file is fetched first; every file is checked against the manifest on first use.
    del cache_dir
    import datasets

    config_file(path, name)
    return datasets.Dataset(read_config(path, name, benchmark=benchmark))


def load_task(
    task_id: str, root: str | os.PathLike[str] | None = None, cache_dir: str | os.PathLike[str] | None = None
) -> datasets.Dataset:
    """The ``test`` split of one task config as a ``datasets.Dataset`` (rows follow the QA schema of
    the dataset's benchmark, its ``schema.py``).

    Args:
        task_id: a task id of the dataset's benchmark (read from its manifest).
        root: the dataset, a directory or a Hub reference (:func:`resolve_root`; None: the default
            benchmark's ``$..._ROOT``, else its default directory).
        cache_dir: unused (the rows are read through the one reader; nothing is written to the Hugging Face
            cache); kept for callers.

    Returns:
        The task's rows, read from its parquet file (fetched and verified first on a Hub snapshot).

    Raises:
        StreamGazeError: no dataset at the root (:func:`resolve_root`), a task id the dataset's benchmark
            does not have, a task with no questions in this version, or a damaged file (naming it).
    """
    path = resolve_root(root)
    task_ids = config_names(benchmark_of(read_manifest(path)))[: -len(CONFIG_FEATURES)]
    if task_id not in task_ids:
        raise StreamGazeError(f"unknown task {task_id!r}; tasks are {', '.join(task_ids)}")
    return load_config(task_id, path, cache_dir)


def question_counts(root: str | os.PathLike[str]) -> dict[str, int]:
    """Questions per task of the dataset at ``root`` (its benchmark's task ids, card order), from the
    manifest's counts, else from the parquet footers. A task with 0 questions is allowed: it is
    recorded in the card and manifest with count 0 and skipped by every command not asking for it."""
    path = Path(root)
    manifest = read_manifest(path)
    benchmark = benchmark_of(manifest)
    task_ids = config_names(benchmark)[: -len(CONFIG_FEATURES)]
    try:
        return {t: int(manifest["counts"]["questions"][t]) for t in task_ids}
    except (KeyError, TypeError, ValueError):
        return {t: parquet_rows(data_file(path, t), f"parquet file of config {t!r}",
                                config_features(t, benchmark)) for t in task_ids}


_NOTED: set[tuple] = set()  # (root, tasks) whose skipping was noted in this process


def nonempty_tasks(root: str | os.PathLike[str], task_ids: tuple[str, ...] | None = None,
                   note: bool = True) -> tuple[str, ...]:
    """``task_ids`` (default: every task of the dataset's benchmark) without the tasks that have no
    questions in the dataset at ``root``; with ``note``, one ``streamgaze: note:`` line on stderr
    names those skipped."""
    import sys

    counts = question_counts(root)
    wanted = tuple(counts) if task_ids is None else tuple(task_ids)
    empty = [t for t in wanted if counts.get(t, 1) == 0]
    noted = (str(Path(root).resolve()), tuple(empty))
    if empty and note and noted not in _NOTED:
        _NOTED.add(noted)
        print(f"streamgaze: note: skipping task(s) with no questions in this dataset: {', '.join(empty)}",
              file=sys.stderr)
    return tuple(t for t in wanted if t not in empty)


def task_is_empty(root: str | os.PathLike[str]):
    """A predicate ``(benchmark, task_id) -> bool``: the task has 0 questions in the dataset at ``root``
    (False for another benchmark's task)."""
    benchmark = benchmark_of(read_manifest(root))
    counts = question_counts(root)
    return lambda bench, task_id: bench == benchmark and counts.get(task_id, 1) == 0
