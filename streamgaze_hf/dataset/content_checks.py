"""The checks a dataset's content passes before anything is written (``writer.write_dataset``; docs/datasets.md):
the version (:func:`check_version`), the build info, every file the content names, the videos, each QA row
against its benchmark's schema and rules (through ``Benchmark.plugin()``: ``qa_features``, ``validate_row``,
``file_paths``), unique question ids, and the columns and video ids of the gaze and fixation rows or arrow
chunks (:func:`table_chunk` makes one). Each problem raises :class:`StreamGazeError` naming the row.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path, PurePosixPath
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..registry import Benchmark
from ..util.errors import StreamGazeError
from .schema import VIDEO_FEATURES

__all__ = ["SEMVER", "check_version", "version_key", "check_build_info", "check_files", "check_videos", "check_qa",
           "table_chunk", "is_tables", "check_video_refs"]

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def check_version(version: str) -> str:
    """``version`` if it is a semantic version ``X.Y.Z`` (no prefix, no suffix), else StreamGazeError."""
    if not isinstance(version, str) or not SEMVER.match(version):
        raise StreamGazeError(f"version {version!r} is not a semantic version X.Y.Z (e.g. 1.0.0)")
    return version


def version_key(version: str) -> tuple[int, ...]:
    match = SEMVER.match(version)
    return tuple(int(g) for g in match.groups()) if match else (-1,)


def check_build_info(build_info: dict) -> None:
    if not isinstance(build_info, dict):
        raise StreamGazeError(f"build info must be a dict, not {type(build_info).__name__}")
    try:
        json.dumps(build_info, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StreamGazeError(f"build info is not plain JSON data: {exc}") from exc


def _check_keys(row: dict, features: Features, what: str) -> None:
    if not isinstance(row, dict):
        raise StreamGazeError(f"{what}: row is a {type(row).__name__}, not a dict")
    if row.keys() != features.keys():
        missing, extra = sorted(set(features) - set(row)), sorted(set(row) - set(features))
        raise StreamGazeError(
            f"{what}: wrong columns (missing: {', '.join(missing) or '-'}; "
            f"unexpected: {', '.join(extra) or '-'})"
        )


def _normalise_relpath(rel: str) -> str:
    """A dataset-relative file path, checked: inside a sub-directory, not under data/, not hidden."""
    pure = PurePosixPath(rel)
    parts = pure.parts
    if (
        "\\" in rel
        or pure.is_absolute()
        or len(parts) < 2
        or any(p in ("..", ".") for p in parts)
        or parts[0] == "data"
        or any(p.startswith(".") for p in parts)
    ):
        raise StreamGazeError(
            f"bad dataset file path {rel!r}: must be relative, inside a sub-directory such as "
            "videos/, not under data/ and without '..' or hidden parts"
        )
    return pure.as_posix()


def check_files(files: dict[str, Path]) -> dict[str, Path]:
    """Normalised ``files`` with every source checked to be an existing regular file."""
    checked: dict[str, Path] = {}
    for rel, src in files.items():
        key = _normalise_relpath(str(rel))
        if key in checked:
            raise StreamGazeError(f"dataset file path {key!r} given twice")
        if not Path(src).is_file():
            raise StreamGazeError(f"source file for {key} does not exist", src)
        checked[key] = Path(src)
    return checked


def _check_paths(row: dict, files: dict[str, Path], what: str, paths=None) -> None:
    """Every file a row names must be one of the dataset files: ``video_path`` / ``overlay_path`` of
    video rows, and for QA rows the benchmark's ``file_paths(row)``."""
    if paths is not None:
        for path in paths(row):
            if path not in files:
                raise StreamGazeError(f"{what}: file {path!r} is not among the dataset files")
        return
    for column in ("video_path", "overlay_path"):
        path = row.get(column) or ""
        if path and path not in files:
            raise StreamGazeError(f"{what}: {column} {path!r} is not among the dataset files")


def check_videos(videos: list[dict], files: dict[str, Path]) -> dict[str, dict]:
    """Video rows by id (unique ids, finite non-negative durations, known files)."""
    by_id: dict[str, dict] = {}
    for row in videos:
        what = f"video {row.get('video_id')!r}" if isinstance(row, dict) else "video row"
        _check_keys(row, VIDEO_FEATURES, what)
        if not row["video_id"]:
            raise StreamGazeError("video row with an empty video_id")
        if row["video_id"] in by_id:
            raise StreamGazeError(f"{what}: duplicate video_id")
        duration = row["duration"]
        if not isinstance(duration, float | int) or not math.isfinite(duration) or duration < 0:
            raise StreamGazeError(f"{what}: duration {duration!r} is not a non-negative number of seconds")
        _check_paths(row, files, what)
        by_id[row["video_id"]] = row
    return by_id


def _check_qa_row(task_id: str, row: dict, videos: dict[str, dict], files: dict[str, Path],
                  bench: Benchmark) -> None:
    what = (
        f"task {task_id}, question {row.get('question_id')!r}" if isinstance(row, dict) else f"task {task_id}"
    )
    plugin = bench.plugin()
    _check_keys(row, plugin.qa_features(), what)
    if row["task"] != task_id:
        raise StreamGazeError(f"{what}: row task {row['task']!r} does not match its config {task_id!r}")
    category = bench.task(task_id).category
    if row["category"] != category:
        raise StreamGazeError(f"{what}: category {row['category']!r} is not {category!r}")
    video = videos.get(row["video_id"])
    if video is None:
        raise StreamGazeError(f"{what}: unknown video_id {row['video_id']!r} (not among the videos)")
    try:
        problems = plugin.validate_row(row, float(video["duration"]))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # wrongly typed fields
        problems = [f"malformed field ({type(exc).__name__}: {exc})"]
    if problems:
        raise StreamGazeError(f"{what}: invalid question: {'; '.join(problems)}")
    _check_paths(row, files, what, plugin.file_paths)


def check_qa(
    qa: dict[str, list[dict]], videos: dict[str, dict], files: dict[str, Path], bench: Benchmark
) -> dict[str, list[dict]]:
    """QA rows of every task (missing tasks empty), each validated; question ids unique over all tasks."""
    task_ids = bench.task_ids
    unknown = sorted(set(qa) - set(task_ids))
    if unknown:
        raise StreamGazeError(f"unknown task id(s) {', '.join(unknown)}; tasks are {', '.join(task_ids)}")
    seen: dict[str, str] = {}
    for task_id in task_ids:
        for row in qa.get(task_id, []):
            _check_qa_row(task_id, row, videos, files, bench)
            qid = row["question_id"]
            if not qid:
                raise StreamGazeError(f"task {task_id}: question with an empty question_id")
            if qid in seen:
                raise StreamGazeError(
                    f"task {task_id}, question {qid!r}: duplicate question_id (also in {seen[qid]})"
                )
            seen[qid] = task_id
    return {task_id: list(qa.get(task_id, [])) for task_id in task_ids}


def table_chunk(features: Features, columns: dict[str, Any], config: str = "") -> pa.Table:
    """A ``pyarrow.Table`` chunk of a config (``GAZE_FEATURES``, ``FIXATION_FEATURES``) from column
    arrays or lists, with exactly the config's columns and types (StreamGazeError otherwise)."""
    if list(columns) != list(features):
        _check_keys(dict.fromkeys(columns), features, f"{config or 'table'} chunk")
    try:
        return pa.table(columns, schema=features.arrow_schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise StreamGazeError(f"{config or 'table'} chunk does not fit the schema: {exc}") from exc


def is_tables(rows: list) -> bool:
    return bool(rows) and isinstance(rows[0], pa.Table)


def _check_table_refs(tables: list, features: Features, config: str, videos: dict[str, dict]) -> None:
    names = list(features)
    known = pa.array(sorted(videos), pa.string())
    for i, table in enumerate(tables):
        if not isinstance(table, pa.Table):
            raise StreamGazeError(f"{config} chunk {i}: a {type(table).__name__} among arrow tables")
        if table.column_names != names:
            _check_keys(dict.fromkeys(table.column_names), features, f"{config} chunk {i}")
        unknown = pc.filter(table["video_id"], pc.invert(pc.is_in(table["video_id"], value_set=known)))
        if len(unknown):
            raise StreamGazeError(f"{config} chunk {i}: unknown video_id {unknown[0].as_py()!r} (not among the videos)")


def check_video_refs(rows: list, features: Features, config: str, videos: dict[str, dict]) -> None:
    """Columns and video ids of gaze / fixation rows (may be millions: the fast path does no formatting)."""
    if is_tables(rows):
        _check_table_refs(rows, features, config, videos)
        return
    keys = features.keys()
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or row.keys() != keys or row["video_id"] not in videos:
            _check_keys(row, features, f"{config} row {i}")
            raise StreamGazeError(
                f"{config} row {i}: unknown video_id {row['video_id']!r} (not among the videos)"
            )
