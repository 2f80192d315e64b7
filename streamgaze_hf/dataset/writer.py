"""Write a versioned dataset directory of any registered benchmark (docs/datasets.md).

Layout written under ``root``::

    README.md                                   card (see card.py)
    CHANGELOG.md                                one ``## X.Y.Z`` section per version, newest first
    manifest.json                               version, build info, counts, sha256 + size of every other file
    data/<task id>/test-00000-of-00001.parquet  one config per task (the benchmark's QA schema)
    data/videos|gaze|fixations/test-00000-of-00001.parquet
    data/previews/test-00000-of-00001.parquet  small previews of the videos as ``Video`` cells for the Hub's
                                                dataset viewer (viewer.py; ``previews=False``: none)
    videos/original/<id>.mp4, videos/overlay/<id>.mp4, ...   the ``files`` of the content

Guarantees:

* **Validated**: every QA row passes its benchmark's ``validate_row`` (``DatasetLayout``; StreamGaze:
  ``benchmarks/streamgaze/schema.py``) against its video's duration, rows have exactly their config's
  columns, ids are unique, every referenced video exists and every file a row refers to (the layout's
  ``file_paths``: ``video_path``, ``overlay_path``, ...) is one of the copied files. Problems raise
  :class:`StreamGazeError` before anything is written.
* **Deterministic**: rows are sorted (questions by the benchmark's ``qa_sort_keys``, StreamGaze's
  ``video_id, query_time, question_id``; videos by
  ``video_id``; gaze by ``video_id, t``; fixations by ``video_id, fixation_index``; stable, so ties
  keep their input order), parquet is written with fixed options and no timestamps, the card,
  CHANGELOG and manifest are generated from the data. Same content, version and build info (and the
  same pyarrow version) give byte-identical files.
* **Atomic**: everything is written into a temporary directory next to ``root`` and moved into place
  when complete. On any error nothing new is left behind and an existing dataset at ``root`` is
  untouched; a replaced older version is removed only after the new one is in place.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasets import Features
from tqdm.auto import tqdm

from .. import __version__
from ..registry import Benchmark, get_benchmark
from ..util.errors import StreamGazeError
from ..util.executors import Workers
from ..util.fsutil import atomic_directory, link_or_copy
from ..video import DEFAULT_PREVIEW
from .card import render_card
from .content_checks import (  # noqa: F401  (check_version, table_chunk: re-exported)
    check_build_info,
    check_files,
    check_qa,
    check_version,
    check_video_refs,
    check_videos,
    is_tables,
    table_chunk,
    version_key,
)
from .files import MANIFEST, config_names, data_file, read_manifest, sha256_file
from .integrity import dataset_files, manifest_problems  # noqa: F401  (dataset_files re-exported)
from .schema import FIXATION_FEATURES, GAZE_FEATURES, VIDEO_FEATURES
from .stats import Stats, manifest_counts, stats_from_files
from .viewer import PREVIEWS_CONFIG, write_previews

CARD, CHANGELOG = "README.md", "CHANGELOG.md"
PARQUET_OPTIONS: dict[str, Any] = {  # fixed, so the bytes only depend on the rows (and pyarrow's version)
    "compression": "zstd",
    "compression_level": 9,
    "row_group_size": 100_000,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
}
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "videos": ("video_id",),
    "gaze": ("video_id", "t"),
    "fixations": ("video_id", "fixation_index"),
}


@dataclass
class DatasetContent:
    """Everything a dataset version holds, before it is written.

    ``qa``: task id -> rows following the benchmark's QA schema (``DatasetLayout.qa_features``; a missing
    task id counts as empty);
    ``videos`` / ``gaze`` / ``fixations``: rows following VIDEO_FEATURES / GAZE_FEATURES /
    FIXATION_FEATURES; ``files``: dataset-relative path (``videos/original/<id>.mp4``) -> existing
    source file, hard-linked into the dataset when on the same filesystem, else copied.

    ``gaze`` and ``fixations`` may instead be lists of ``pyarrow.Table`` chunks (e.g. one per video)
    with exactly the config's columns: a full-size benchmark has millions of gaze samples (64 h at
    30 Hz is about 7 M), which as Python dicts would take gigabytes; as arrow columns about 40 bytes
    a sample. (Use :func:`table_chunk` to make one from column arrays.)
    """

    qa: dict[str, list[dict]]
    videos: list[dict]
    gaze: list[dict] = field(default_factory=list)
    fixations: list[dict] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------- tables


def _arrow_table(rows: list, features: Features, config: str, sort_keys: tuple[str, ...]) -> pa.Table:
    """Rows as an arrow table with the config's schema (incl. ``huggingface`` metadata), sorted."""
    schema = features.arrow_schema
    try:
        if is_tables(rows):
            table = pa.concat_tables([t.cast(schema) for t in rows]).combine_chunks()
        else:
            table = pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise StreamGazeError(f"config {config}: rows do not fit the schema: {exc}") from exc
    nulls = [name for name in table.column_names if table[name].null_count]
    if nulls:
        raise StreamGazeError(f"config {config}: None values in column(s) {', '.join(nulls)}")
    if table.num_rows:
        table = table.take(pc.sort_indices(table, sort_keys=[(k, "ascending") for k in sort_keys]))
    return table.replace_schema_metadata(schema.metadata)


def _write_parquet(table: pa.Table, path: Path) -> None:
    """One parquet shard with the fixed options. An empty table gets *no* row group: ``datasets``'
    parquet reader takes its batch size from the first row group and fails on a 0-row one."""
    options = dict(PARQUET_OPTIONS)
    row_group_size = options.pop("row_group_size")
    with pq.ParquetWriter(path, table.schema, **options) as out:
        if table.num_rows:
            out.write_table(table, row_group_size=row_group_size)


def _write_tables(tmp: Path, qa: dict[str, list[dict]], content: DatasetContent, bench: Benchmark) -> None:
    features, keys = bench.plugin().qa_features(), bench.dataset.qa_sort_keys
    tables = {task_id: (qa[task_id], features, keys) for task_id in bench.task_ids}
    tables["videos"] = (content.videos, VIDEO_FEATURES, SORT_KEYS["videos"])
    tables["gaze"] = (content.gaze, GAZE_FEATURES, SORT_KEYS["gaze"])
    tables["fixations"] = (content.fixations, FIXATION_FEATURES, SORT_KEYS["fixations"])
    for config in config_names(bench):
        rows, features, keys = tables[config]
        path = data_file(tmp, config)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_parquet(_arrow_table(rows, features, config, keys), path)


def _place_files(tmp: Path, files: dict[str, Path], progress: bool) -> None:
    """Hard-link (same filesystem) or copy every source file into the dataset."""
    for rel in tqdm(sorted(files), desc="dataset files", unit="file", disable=not progress):
        link_or_copy(files[rel], tmp / rel, f"the dataset as {rel}")


# ---------------------------------------------------------------------------------------------- changelog


def parse_changelog(text: str) -> dict[str, str]:
    """``## <version>`` sections of a CHANGELOG.md -> their text (stripped), in file order."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {version: "\n".join(lines).strip() for version, lines in sections.items()}


def _demote_headings(entry: str) -> str:
    """Keep an entry's own ``#`` / ``##`` headings from being read as version sections."""
    return "\n".join(re.sub(r"^#{1,2}(?=\s)", "###", line) for line in entry.strip().splitlines())


def render_changelog(previous: str, version: str, entry: str) -> str:
    """CHANGELOG.md: the previous sections plus ``version``'s (replacing its own), newest version first."""
    sections = parse_changelog(previous)
    sections[version] = _demote_headings(entry)
    ordered = sorted(sections.items(), key=lambda item: version_key(item[0]), reverse=True)
    return "# Changelog\n\n" + "\n\n".join(f"## {v}\n\n{body}".rstrip() for v, body in ordered) + "\n"


def default_changelog_entry(stats: Stats) -> str:
    """The entry written when no text is given: what the version contains."""
    per_task = ", ".join(f"{t['task']} {t['questions']:,}" for t in stats["tasks"])
    return (
        f"Built with streamgaze-toolkit {__version__}: {stats['questions']:,} questions ({per_task}); "
        f"{stats['videos']:,} videos; {stats['gaze_samples']:,} gaze samples; "
        f"{stats['fixations']:,} fixations."
    )


# ---------------------------------------------------------------------------------------------- manifest


def _file_entries(root: Path, progress: bool) -> dict[str, dict[str, Any]]:
    return {
        rel: {"sha256": sha256_file(root / rel), "bytes": (root / rel).stat().st_size}
        for rel in tqdm(dataset_files(root), desc="hashing", unit="file", disable=not progress)
    }


def render_manifest(root: Path, version: str, build_info: dict, stats: Stats, progress: bool = False,
                    previews: dict | None = None) -> str:
    """``manifest.json`` text (sorted keys, indent 2, trailing newline) for the files under ``root``.
    ``name`` is the benchmark's dataset name (``streamgaze``, ``egogazevqa``): how loaders tell them apart.
    ``previews``: how the ``previews`` config was made (its config name and :meth:`PreviewSpec.as_dict`),
    None when the dataset has none (built with ``previews=False``, or no video files)."""
    manifest = {
        "previews": previews,
        "name": get_benchmark(stats["benchmark"]).dataset.dataset_name,
        "version": version,
        "toolkit_version": __version__,
        "build": build_info,
        "counts": manifest_counts(stats),
        "files": _file_entries(root, progress),
    }
    return json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def manifest_digest(root: str | os.PathLike[str]) -> str:
    """sha256 of the ``manifest.json`` bytes: identifies one exact build of the dataset."""
    path = Path(root) / MANIFEST
    if not path.is_file():
        raise StreamGazeError(f"not a dataset of this toolkit (no {MANIFEST})", root)
    return sha256_file(path)


def verify_dataset(root: str | os.PathLike[str]) -> list[str]:
    """Re-hash every file listed in the manifest: a list of problems (empty when the dataset is intact);
    see :func:`~streamgaze_hf.dataset.integrity.manifest_problems`."""
    return manifest_problems(root)


# ---------------------------------------------------------------------------------------------- destination


def _previous_changelog(root: Path, version: str, force: bool) -> str:
    """CHANGELOG text of the dataset being replaced at ``root`` ("" if none); refuses unsafe targets."""
    if not root.exists():
        return ""
    if not root.is_dir():
        raise StreamGazeError("exists and is not a directory; choose another output path", root)
    if not (root / MANIFEST).is_file():
        if any(root.iterdir()):
            raise StreamGazeError(
                f"exists and is not a dataset of this toolkit (no {MANIFEST}); refusing to replace "
                "it: choose another output path or remove it",
                root,
            )
        return ""
    old_version = str(read_manifest(root)["version"])
    if old_version == version and not force:
        raise StreamGazeError(f"dataset version {version} already exists at {root}; use --force to overwrite")
    changelog = root / CHANGELOG
    return changelog.read_text(encoding="utf-8") if changelog.is_file() else ""


def check_destination(root: str | os.PathLike[str], version: str, force: bool = False) -> None:
    """What :func:`write_dataset` checks of its destination, for callers to run before long work:
    ``version`` is semantic, and ``root`` is absent, empty, or a dataset that may be replaced."""
    check_version(version)
    _previous_changelog(Path(root), version, force)


def dataset_destination(out: str | os.PathLike[str], version: str, force: bool = False) -> Path:
    """``out`` can receive dataset version ``version``: a semantic version, and ``out`` is absent, an
    empty directory, or a dataset of another version (or of this one with ``force``). The same rules
    the writer applies at the end (:func:`write_dataset`); run by the build and import commands
    before any long work.

    Args:
        out: the dataset directory to be written.
        version: the version to write, ``X.Y.Z``.
        force: allow replacing a dataset of this same version.

    Returns:
        ``out`` as a path.

    Raises:
        StreamGazeError: ``version`` is not semantic; ``out`` is a file, a non-empty directory that is not a
            dataset, or a dataset of this version without ``force``; or its parent is not a directory.
    """
    out = Path(out)
    check_destination(out, version, force)
    if out.parent.exists() and not out.parent.is_dir():
        raise StreamGazeError("the parent of the output path is not a directory", out.parent)
    return out


def _directory_mode() -> int:
    """The mode ``mkdir`` would give a new directory under the current umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o777 & ~umask


@contextlib.contextmanager
def _replacing(root: Path) -> Iterator[Path]:
    """A temporary directory that becomes ``root`` when the block succeeds.

    An existing ``root`` is first moved aside (into a hidden ``.<name>.old.*.tmp`` directory) and only
    deleted once the new directory is in place; if the final move fails it is put back.
    """
    aside: Path | None = None
    try:
        with atomic_directory(root) as tmp:
            os.chmod(tmp, _directory_mode())  # mkdtemp makes it private (0700); a dataset is shared
            yield tmp
            if root.exists():
                aside = Path(tempfile.mkdtemp(prefix=f".{root.name}.old.", suffix=".tmp", dir=root.parent))
                os.replace(root, aside / root.name)
    except BaseException:
        if aside is not None and not root.exists():
            os.replace(aside / root.name, root)
        raise
    finally:
        if aside is not None and root.exists():
            shutil.rmtree(aside, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- entry point


def write_dataset(
    root: str | os.PathLike[str],
    content: DatasetContent,
    version: str,
    build_info: dict,
    *,
    force: bool = False,
    changelog: str = "",
    progress: bool = True,
    benchmark: Benchmark,
    previews: bool = True,
    workers: int | Workers = 1,
) -> Path:
    """Validate ``content`` and write it as dataset version ``version`` at ``root`` (atomically).

    ``build_info`` (plain JSON data: inputs, options, seeds) is recorded in the manifest. An existing
    dataset of the same version is only replaced with ``force``; one of another version is replaced
    and its CHANGELOG sections are kept. ``changelog`` is this version's entry (default: a summary of
    the counts). ``benchmark`` (a registered benchmark) decides the task configs, their row schema and
    validation, and the card's texts. ``previews``: also write the ``previews`` config, a small copy of
    every video for the Hub's dataset viewer (viewer.py; recorded in the manifest), built in ``workers``
    processes.

    Args:
        root: the dataset directory (written into a temporary directory beside it, then moved into place).
        content: the tables and files (:class:`DatasetContent`).
        version: the version, ``X.Y.Z``.
        build_info: plain JSON data recorded in the manifest (inputs, options, seeds).
        force: replace a dataset of the same version.
        changelog: this version's CHANGELOG entry ("" = a summary of the counts).
        progress: show progress bars (copying files, previews, hashing).
        benchmark: the registered benchmark the dataset is of.
        previews: also write the ``previews`` config.
        workers: processes that make the previews, or a :class:`~streamgaze_hf.util.executors.Workers`.

    Returns:
        ``root`` as a path.

    Raises:
        StreamGazeError: before anything is written, for a bad version or destination
            (:func:`dataset_destination`), build info that is not plain JSON, a missing source file, a row
            that does not fit its config's schema or fails validation, a duplicate id, a reference to an
            unknown video or file, or content without a video and a question; while writing, for a file
            that cannot be copied or an OS error (nothing replaced then).
    """
    root = Path(root)
    bench = benchmark
    check_version(version)
    check_build_info(build_info)
    previous = _previous_changelog(root, version, force)
    files = check_files(content.files)
    videos = check_videos(content.videos, files)
    qa = check_qa(content.qa, videos, files, bench)
    if not videos or not any(qa.values()):
        raise StreamGazeError("nothing to write: a dataset needs at least one video and one question")
    check_video_refs(content.gaze, GAZE_FEATURES, "gaze", videos)
    check_video_refs(content.fixations, FIXATION_FEATURES, "fixations", videos)
    try:
        with _replacing(root) as tmp:
            _write_tables(tmp, qa, content, bench)
            _place_files(tmp, files, progress)
            made = previews and write_previews(tmp, PARQUET_OPTIONS, DEFAULT_PREVIEW, progress, files, workers)
            preview_info = {"config": PREVIEWS_CONFIG, **DEFAULT_PREVIEW.as_dict()} if made else None
            stats = stats_from_files(tmp, version, bench)
            (tmp / CARD).write_text(render_card(tmp, version, stats), encoding="utf-8")
            entry = changelog.strip() or default_changelog_entry(stats)
            (tmp / CHANGELOG).write_text(render_changelog(previous, version, entry), encoding="utf-8")
            (tmp / MANIFEST).write_text(
                render_manifest(tmp, version, build_info, stats, progress, preview_info), encoding="utf-8"
            )
    except OSError as exc:  # a full disk, a read-only or vanished directory: nothing was replaced
        kept = "the previous version is unchanged" if (root / MANIFEST).is_file() else "nothing was written"
        raise StreamGazeError(f"cannot write dataset version {version} ({exc.strerror or exc}); {kept}",
                              root) from None
    return root
