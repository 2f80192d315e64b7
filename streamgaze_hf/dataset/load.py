"""A built dataset in one hand: a reference opened once into its path, manifest and benchmark.

Every command, the harness, ``streamgaze clips warm`` and lmms-eval's task loader take a dataset
*reference*: a local directory, or a Hub reference ``hf://datasets/ORG/NAME@REV``. Each of these edges
calls :func:`open_dataset` once and passes the :class:`DatasetHandle` it returns down; nothing below an
edge takes a root string plus a benchmark name, re-reads the manifest or resolves the reference again.

* :func:`open_dataset` is the one opener: it finds the reference (``--dataset``/``--root``, else a
  benchmark's ``$..._ROOT``, else its default directory; :func:`locate`), reads the manifest, finds the
  benchmark it belongs to (:func:`benchmark_of`) and, unless told otherwise, checks every config's
  parquet footer against the manifest's row counts (a damaged dataset stops a command before any work).
* :class:`DatasetHandle` reads what the dataset holds: configs (:meth:`~DatasetHandle.read_config`,
  :meth:`~DatasetHandle.load_task`), files (:meth:`~DatasetHandle.files`: a Hub snapshot's missing files
  are fetched, every file is checked against the manifest the first time it is used), question counts.
* :func:`benchmark_of` is the one rule for which benchmark a manifest belongs to.
* :func:`dataset_at`: the handle of a dataset directory already opened in this process (evaluation
  documents name their dataset by its resolved path, ``doc["dataset_root"]``); a process that has not
  opened it yet (a worker) opens it then, once.

    >>> from streamgaze_hf.dataset.load import open_dataset
    >>> data = open_dataset("demo_out/streamgaze")            # doctest: +SKIP
    >>> data.benchmark.name, data.version, data.question_counts()["oi_easy"]   # doctest: +SKIP
    ('streamgaze', '0.1.0', 24)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..hub.verify import MANIFEST
from ..util.errors import StreamGazeError
from .files import (
    check_dataset_files,
    config_features,
    config_names,
    config_rows,
    data_file,
    dataset_files,
    read_config,
    read_manifest,
)
from .reader import parquet_rows

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

    from ..registry import Benchmark

__all__ = ["DatasetHandle", "open_dataset", "load_task", "benchmark_of", "dataset_at", "locate", "missing_dataset"]

#: the handles opened in this process, by resolved path (``dataset_at``)
_OPEN: dict[str, DatasetHandle] = {}
#: (path, tasks) whose skipping was noted in this process (``DatasetHandle.nonempty_tasks``)
_NOTED: set[tuple] = set()


class DatasetHandle:
    """A built dataset, opened once (:func:`open_dataset`): where it is, its manifest, its benchmark.

    Attributes:
        path: the dataset's directory (a Hub reference: the snapshot directory of its commit).
        reference: the reference it was opened from, as given (a directory or ``hf://...@REV``).
        manifest: the parsed ``manifest.json``.
        benchmark: the registered benchmark the manifest names.
    """

    def __init__(self, path: Path, reference: str, manifest: Mapping[str, Any], benchmark: Benchmark) -> None:
        self.path = path
        self.reference = reference
        self.manifest = manifest
        self.benchmark = benchmark
        self._counts: dict[str, int] | None = None  # question_counts(), worked out once

    def __repr__(self) -> str:
        return f"DatasetHandle({str(self.path)!r}, {self.benchmark.name} {self.version})"

    @property
    def root(self) -> str:
        """The resolved path as text (what evaluation documents record as ``dataset_root``)."""
        return str(self.path)

    @property
    def version(self) -> str:
        """The dataset's version (its manifest's ``version``)."""
        return str(self.manifest["version"])

    @property
    def config_names(self) -> tuple[str, ...]:
        """Every config, in card order: the benchmark's task configs, then ``videos``, ``gaze``, ``fixations``."""
        return config_names(self.benchmark)

    # ---- files ----------------------------------------------------------------------------------

    def files(self, rels: Iterable[str], progress: bool = True) -> list[Path]:
        """Local paths of dataset files, ready to read (``dataset.load.dataset_files``: a Hub snapshot's
        missing files are downloaded with one byte progress bar, every file the manifest lists is checked
        against its sha256 the first time it is used).

        Args:
            rels: paths relative to the dataset's directory.
            progress: show the download progress bar.

        Returns:
            The local paths, in the order given (a path the manifest does not list is returned as is).

        Raises:
            StreamGazeError: a file is missing or does not match the manifest (naming the first).
        """
        return dataset_files(self.path, rels, progress=progress, listed=self._listed)

    def file(self, rel: str | os.PathLike[str]) -> Path:
        """One file of :meth:`files` (``rel``: its path relative to the dataset's directory)."""
        return self.files([Path(rel).as_posix()])[0]

    def config_file(self, config: str) -> Path:
        """The parquet file of a config's test split, fetched and verified (:meth:`files`)."""
        return self.file(data_file(".", config).as_posix())

    @cached_property
    def _listed(self) -> dict[str, dict[str, Any]]:
        files = self.manifest.get("files")
        return files if isinstance(files, dict) else {}

    def check_files(self) -> None:
        """Open every config's parquet footer and compare its rows with the manifest's counts (what
        :func:`open_dataset` does unless told not to): the first problem as a StreamGazeError naming the file."""
        check_dataset_files(self.path, self.config_names, self.features, self._config_rows())

    # ---- configs --------------------------------------------------------------------------------

    def features(self, config: str) -> datasets.Features:
        """The ``datasets.Features`` of a config (the shared ones, or the benchmark's QA schema)."""
        return config_features(config, self.benchmark)

    def read_config(self, config: str, columns: list[str] | None = None, filters: list | None = None) -> pa.Table:
        """The rows of one config as an arrow table (the one parquet reader; fetched and verified first).

        Args:
            config: a task id, ``videos``, ``gaze`` or ``fixations``.
            columns: the columns to read (None: all).
            filters: pyarrow filters (e.g. ``[("video_id", "in", [...])]``).

        Returns:
            The table.

        Raises:
            StreamGazeError: the file is missing, damaged or of another schema (naming it).
        """
        return read_config(self.config_file(config), config, self.features(config), columns, filters)

    def load_config(self, name: str) -> datasets.Dataset:
        """The ``test`` split of any config as a ``datasets.Dataset``.

        Empty configs are not declared in the card (``datasets`` cannot load a 0-row split), so asking for one
        raises a :class:`StreamGazeError` saying so rather than ``datasets``' "config not found".

        Args:
            name: a task id of the dataset's benchmark, ``videos``, ``gaze`` or ``fixations``.

        Returns:
            The rows, read through the one reader (nothing is written to the Hugging Face cache).

        Raises:
            StreamGazeError: an unknown config, an empty one, or a damaged file.
        """
        names = self.config_names
        if name not in names:
            raise StreamGazeError(f"unknown config {name!r}; configs are {', '.join(names)}")
        if self._config_rows().get(name, 1) == 0:
            what = "task" if name in self.benchmark.task_ids else "config"
            raise StreamGazeError(
                f"{what} {name!r} has no {'questions' if what == 'task' else 'rows'} in dataset version {self.version} "
                f"(0 rows; see `streamgaze stats`): leave it out of --tasks", self.path)
        import datasets

        return datasets.Dataset(self.read_config(name))

    def load_task(self, task_id: str) -> datasets.Dataset:
        """The ``test`` split of one task config (rows follow the QA schema of the dataset's benchmark).

        Args:
            task_id: a task id of the dataset's benchmark.

        Returns:
            The task's rows.

        Raises:
            StreamGazeError: a task id the benchmark does not have, a task with no questions in this
                version, or a damaged file (naming it).
        """
        if task_id not in self.benchmark.task_ids:
            raise StreamGazeError(f"unknown task {task_id!r}; tasks are {', '.join(self.benchmark.task_ids)}")
        return self.load_config(task_id)

    # ---- counts ---------------------------------------------------------------------------------

    def _config_rows(self) -> dict[str, int]:
        try:
            return config_rows(self.manifest["counts"], self.benchmark)
        except (KeyError, TypeError, ValueError, AttributeError):  # no usable counts (older manifests)
            return {}

    def question_counts(self) -> dict[str, int]:
        """Questions per task (the benchmark's task ids, card order): from the manifest's counts, else from the
        parquet footers. A task with 0 questions is allowed: recorded in the card and manifest with count 0 and
        skipped by every command not asking for it."""
        if self._counts is None:
            rows = self._config_rows()
            self._counts = {t: rows[t] for t in self.benchmark.task_ids} if rows else {
                t: parquet_rows(data_file(self.path, t), f"parquet file of config {t!r}", self.features(t))
                for t in self.benchmark.task_ids}
        return dict(self._counts)

    def nonempty_tasks(self, task_ids: Iterable[str] | None = None, note: bool = True) -> tuple[str, ...]:
        """``task_ids`` (default: every task of the benchmark) without those that have no questions; with
        ``note``, one ``streamgaze: note:`` line on stderr names those skipped (once per process)."""
        counts = self.question_counts()
        wanted = tuple(counts) if task_ids is None else tuple(task_ids)
        empty = [t for t in wanted if counts.get(t, 1) == 0]
        noted = (self.root, tuple(empty))
        if empty and note and noted not in _NOTED:
            _NOTED.add(noted)
            print(f"streamgaze: note: skipping task(s) with no questions in this dataset: {', '.join(empty)}",
                  file=sys.stderr)
        return tuple(t for t in wanted if t not in empty)

    def is_empty_task(self, benchmark: str, task_id: str) -> bool:
        """Whether a task has 0 questions here (False for another benchmark's task).

        Args:
            benchmark: the task's benchmark name (the task index names tasks by it).
            task_id: the task's id.
        """
        return benchmark == self.benchmark.name and self.question_counts().get(task_id, 1) == 0


# ---- opening ------------------------------------------------------------------------------------

def benchmark_of(manifest: Mapping[str, Any]) -> Benchmark:
    """The benchmark a dataset belongs to: the registered benchmark whose name (or dataset name) its
    manifest's ``name`` is (every dataset the writer produces names one); a manifest that names none (an
    early build) is the default benchmark's (``registry.default_benchmark``).

    Args:
        manifest: a parsed ``manifest.json``.

    Returns:
        The registered benchmark.

    Raises:
        StreamGazeError: the manifest names a benchmark no installed package registers.
    """
    from ..registry import benchmarks, default_benchmark

    name = manifest.get("name") if isinstance(manifest, Mapping) else None
    if not name:
        return default_benchmark()
    for bench in benchmarks():
        if name in (bench.name, bench.dataset.dataset_name):
            return bench
    raise StreamGazeError(f"a dataset of the benchmark {name!r}, which no installed package registers (benchmarks: "
                          f"{', '.join(b.name for b in benchmarks())}); install the package that declares it")


def _how_to_build(root: Path) -> str:
    return (f"build one with `streamgaze build BENCH --raw RAW_DIR --out {root} --version X.Y.Z` or "
            f"`streamgaze import BENCH RELEASE_DIR --out {root} --version X.Y.Z`")


def _lookup(reference: str | os.PathLike[str] | None, env: str, default: str) -> tuple[str, str]:
    """(where, path or reference) of the dataset reference: ``reference`` if given, else ``$ENV``, else
    ``./DEFAULT``; ``where`` says which, for messages."""
    if reference is not None:
        return "the given path", str(reference)
    if os.environ.get(env):
        return f"${env}", os.environ[env]
    return f"./{default} (no root given and ${env} unset)", default


def locate(reference: str | os.PathLike[str] | None = None, env: str | None = None,
           default: str | None = None) -> Path:
    """The directory a dataset reference names: ``reference`` if given, else ``$<env>``, else ``./<default>``.

    Each may be a Hub reference ``hf://datasets/ORG/NAME@REV``: the result is then the snapshot directory of
    the revision's commit in the Hugging Face cache, holding the manifest and the card (other files are fetched
    when first used; streamgaze_hf/hub/). This is the one place a reference is resolved; :func:`open_dataset`
    calls it.

    Args:
        reference: the reference a command was given, or None.
        env: the variable naming the dataset when none is given (a benchmark's ``root_env``); None: the default
            benchmark's.
        default: the directory looked at last (a benchmark's ``default_root``); None: the default benchmark's.

    Returns:
        The absolute path of the dataset (a Hub reference: its snapshot directory).

    Raises:
        StreamGazeError: the chosen directory holds no built dataset (saying where it looked and how to build one).
    """
    if env is None or default is None:
        from ..registry import default_benchmark

        fallback = default_benchmark()
        env, default = env or fallback.root_env, default or fallback.default_root
    where, raw = _lookup(reference, env, default)
    from ..hub.reference import is_reference

    if is_reference(raw):
        from ..hub.fetch import hub_root
        from ..hub.reference import parse_reference

        path = hub_root(parse_reference(raw))
        manifest = read_manifest(path)
        dataset_files(path, ["README.md"], listed=manifest.get("files") or {})  # the card, checked
        return path
    path = Path(raw).expanduser().resolve()
    if not (path / MANIFEST).is_file():
        state = "does not exist" if not path.exists() else f"has no {MANIFEST}"
        raise StreamGazeError(f"no dataset here: looked at {where}, which {state}; {_how_to_build(path)}", path)
    return path


def open_dataset(reference: str | os.PathLike[str] | DatasetHandle | None = None, *,
                 benchmark: Benchmark | None = None, check: bool = True, build_hint: str = "",
                 lookup: Benchmark | None = None) -> DatasetHandle:
    """Open a dataset reference once into a :class:`DatasetHandle` (module docstring).

    Args:
        reference: a directory, a Hub reference ``hf://datasets/ORG/NAME@REV``, or None: ``benchmark``'s
            ``$..._ROOT``, else its default directory (the default benchmark's when ``benchmark`` is None).
            An open :class:`DatasetHandle` is returned as it is (after the benchmark check).
        benchmark: the benchmark the dataset must belong to (None: whichever its manifest names).
        check: also open every config's parquet footer and compare its rows with the manifest's counts (a local
            dataset; a Hub snapshot's files are checked by sha256 as they arrive).
        build_hint: how to build the right dataset, added to the error when it is another benchmark's.
        lookup: whose ``$..._ROOT`` and default directory stand for a missing ``reference`` when ``benchmark`` is
            None (None: the default benchmark's); the dataset found may still be another benchmark's.

    Returns:
        The handle (also remembered for :func:`dataset_at` in this process).

    Raises:
        StreamGazeError: no dataset there, an unreadable manifest, a benchmark no installed package registers,
            another benchmark's dataset than ``benchmark``, or (with ``check``) a damaged file.
    """
    if isinstance(reference, DatasetHandle):
        handle = reference
    else:
        owner = benchmark or lookup
        path = locate(reference, *((owner.root_env, owner.default_root) if owner else (None, None)))
        manifest = read_manifest(path)
        handle = DatasetHandle(path, str(reference if reference is not None else path), manifest,
                               benchmark_of(manifest))
        if check:
            from ..hub.reference import snapshot_of

            if snapshot_of(path) is None:
                handle.check_files()
        _OPEN[handle.root] = handle
    if benchmark is not None and handle.benchmark is not benchmark:
        article = "an" if benchmark.title[:1].upper() in "AEIOU" else "a"
        raise StreamGazeError(f"this is a {handle.benchmark.name} dataset, not {article} {benchmark.title} one"
                              + (f" ({build_hint})" if build_hint else ""), handle.path)
    return handle


def load_task(task_id: str, root: str | os.PathLike[str] | None = None) -> datasets.Dataset:
    """One task config of a dataset, for a notebook or script (the dataset cards' loading example):
    ``open_dataset(root).load_task(task_id)``.

    Args:
        task_id: a task id of the dataset's benchmark.
        root: the dataset, a directory or a Hub reference (None: the default benchmark's ``$..._ROOT``, else
            its default directory).

    Returns:
        The task's rows (:meth:`DatasetHandle.load_task`).

    Raises:
        StreamGazeError: no dataset at ``root``, an unknown or empty task, or a damaged file.
    """
    return open_dataset(root).load_task(task_id)


def dataset_at(root: str | os.PathLike[str]) -> DatasetHandle:
    """The handle of the dataset directory ``root`` (a resolved path, as evaluation documents record it): the one
    opened in this process, else opened now (a worker process; unchecked: its opener checked it).

    Args:
        root: a dataset's resolved directory.

    Returns:
        Its :class:`DatasetHandle`.

    Raises:
        StreamGazeError: no dataset there.
    """
    handle = _OPEN.get(str(root))
    if handle is None:
        handle = open_dataset(Path(root), check=False)
    return handle


def missing_dataset(benchmark: Benchmark) -> str | None:
    """Where a benchmark's dataset is looked for (``$ENV``, else ``./DEFAULT``) when no dataset is there; None
    when one is (a Hub reference counts as one: it is fetched when used). Resolves nothing.

    Args:
        benchmark: the benchmark whose default dataset is looked for.
    """
    from ..hub.reference import is_reference

    env, default = benchmark.root_env, benchmark.default_root
    raw = os.environ.get(env) or default
    if is_reference(raw) or (Path(raw).expanduser() / MANIFEST).is_file():
        return None
    where = f"${env} ({raw})" if os.environ.get(env) else f"${env} (unset), else ./{default}"
    return f"{where}, which holds no dataset"
