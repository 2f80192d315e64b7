"""The release's ``metadata/*.csv`` episode tables (reference §3.6) → rows of the ``fixations`` config.

Each CSV row is one scanpath episode of one video: ``episode_start_time, episode_end_time, duration,
representative_object, other_objects_in_cropped_area, other_objects_outside_fov`` and a video column
(the first present of ``video_name``, ``video_source``, ``video_id``, ``source_file``). Object columns
are Python reprs of dicts/lists, parsed like the reference does: JSON, then JSON after quote
replacement, then ``ast.literal_eval``.

Gaze: where a table has the fixation-centre columns ``center_x``, ``center_y`` of the official
fixation tables (reference §3.3), they become the rows' x/y (raw: normalised or pixels; the importer
tells them apart per video once it knows the frame size). A fixation table of the official pipeline
(``start_time_seconds``/``end_time_seconds`` or ``start_time``/``end_time`` with the centres, no
objects) is read too; such a per-video table has no video column, and its file name names the video
(``OP03-R01-PastaSalad_fixation_filtered.csv``). Without centres x/y are NaN.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import posixpath
from collections import defaultdict
from pathlib import Path

from ...dataset import Problem
from .release_parse import parse_time

VIDEO_COLUMNS = ("video_name", "video_source", "video_id", "source_file")
REQUIRED_COLUMNS = ("episode_start_time", "episode_end_time", "representative_object")
CENTRE_COLUMNS = ("center_x", "center_y")
#: time columns of a fixation table (official step 1: with action data / without)
FIXATION_TIME_COLUMNS = (("start_time_seconds", "end_time_seconds"), ("start_time", "end_time"))
_VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")
#: per-video tables of the official pipeline (reference §3.3-3.6: step 1 ``{video}_fixation_dataset.csv`` /
#: ``{video}_fixation_filtered.csv``, step 2 and 2.5), longest first
_CSV_SUFFIXES = ("_fixation_merged_filtered_v2.csv", "_fixation_with_internvl_v2_scene.csv",
                 "_fixation_filtered.csv", "_fixation_dataset.csv", ".csv")
_PER_VIDEO_SUFFIXES = _CSV_SUFFIXES[:-1]
_EMPTY = {"", "none", "nan", "null"}


def parse_repr(text: object) -> object:
    """A dict/list column value: JSON, then JSON with ' → ", then a Python literal; None if empty."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    if s.lower() in _EMPTY:
        return None
    for parse in (json.loads, lambda v: json.loads(v.replace("'", '"')), ast.literal_eval):
        try:
            return parse(s)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return s  # a plain object name


def object_identity(obj: object) -> str:
    """``object_identity`` of an object dict (or the string itself); "" for none."""
    if isinstance(obj, dict):
        value = obj.get("object_identity") or obj.get("object_name") or ""
        return str(value)
    if obj is None or (isinstance(obj, float) and math.isnan(obj)):
        return ""
    return str(obj)


def object_identities(value: object) -> list[str]:
    """Identities of a list column (dicts or names), in order, empty names dropped."""
    value = parse_repr(value)
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else [value]
    return [name for name in (object_identity(o) for o in items) if name]


def video_id_from(value: str) -> str:
    """Video id from a metadata video column (a name, a file name or a per-video CSV path)."""
    name = posixpath.basename(value.strip().replace("\\", "/").rstrip("/"))
    for suffix in _VIDEO_SUFFIXES + _CSV_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _video_column(header: list[str]) -> str | None:
    return next((c for c in VIDEO_COLUMNS if c in header), None)


def read_metadata_table(path: Path) -> tuple[list[dict], str]:
    """The rows of one episode-metadata CSV and the name of its video column; ValueError ("cannot
    read CSV (...)" / "missing columns: ...") when the file is unreadable or lacks a column."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = list(reader.fieldnames or [])
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"cannot read CSV ({exc})") from None
    video_col = _video_column(header)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if video_col is None:
        missing.append("one of " + "/".join(VIDEO_COLUMNS))
    if missing:
        raise ValueError(f"missing columns: {', '.join(missing)}")
    return rows, video_col


def read_metadata_csv(path: Path, label: str) -> tuple[list[tuple[str, dict]], list[Problem]]:
    """(video id, partial fixation row) per valid CSV row, in file order, and the problems.

    An episode table (``read_metadata_table``) or, failing that, a fixation table with centres.
    """
    problems: list[Problem] = []
    try:
        rows, video_col = read_metadata_table(path)
        times = ("episode_start_time", "episode_end_time")
    except ValueError as exc:
        try:
            rows, video_col, times = read_fixation_table(path)
        except ValueError:
            return [], [Problem("malformed_metadata", label, detail=str(exc))]
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(_episode(row, video_col, times))
        except ValueError as exc:
            problems.append(Problem("malformed_metadata", label, i, None, "", str(exc)))
    return out, problems


def read_fixation_table(path: Path) -> tuple[list[dict], str, tuple[str, str]]:
    """Rows, video column and (start, end) time columns of a fixation table with ``center_x``/``center_y``;
    ValueError when the file is not one."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = list(reader.fieldnames or [])
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"cannot read CSV ({exc})") from None
    times = next((t for t in FIXATION_TIME_COLUMNS if all(c in header for c in t)), None)
    video_col = _video_column(header)
    if video_col is None and path.name.lower().endswith(_PER_VIDEO_SUFFIXES):
        video_col = "source_file"  # a per-video table of the official pipeline: the file names the video
        rows = [{**row, video_col: path.name} for row in rows]
    if times is None or video_col is None or not all(c in header for c in CENTRE_COLUMNS):
        raise ValueError("not a fixation table")
    return rows, video_col, times


def episode_span(row: dict, video_col: str,
                 times: tuple[str, str] = ("episode_start_time", "episode_end_time")) -> tuple[str, float, float]:
    """(video id, start, end) of one metadata row; ValueError when they do not make an episode."""
    video_id = video_id_from(row.get(video_col) or "")
    if not video_id:
        raise ValueError(f"empty {video_col}")
    start = parse_time(row[times[0]])
    end = parse_time(row[times[1]])
    if end < start:
        raise ValueError(f"episode ends ({end}) before it starts ({start})")
    return video_id, start, end


def _centre(row: dict, column: str) -> float:
    """A centre coordinate (NaN when the column is absent or empty); ValueError when unreadable."""
    text = str(row.get(column) or "").strip()
    if text.lower() in _EMPTY:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{column} {text!r} is not a finite number")
    return value


def _episode(row: dict, video_col: str, times: tuple[str, str]) -> tuple[str, dict]:
    video_id, start, end = episode_span(row, video_col, times)
    x, y = _centre(row, "center_x"), _centre(row, "center_y")
    if math.isnan(x) != math.isnan(y):
        raise ValueError("center_x and center_y must both be given or both be empty")
    return video_id, {
        "start": start, "end": end, "x": x, "y": y,
        "gazed_object": object_identity(parse_repr(row.get("representative_object"))),
        "fov_objects": object_identities(row.get("other_objects_in_cropped_area")),
        "out_objects": object_identities(row.get("other_objects_outside_fov")),
    }


def fixation_rows(episodes: list[tuple[str, dict]]) -> list[dict]:
    """FIXATION_FEATURES rows: index = row order per video, x/y the raw centres (NaN when none), scene
    NaN, kept, episode = index."""
    counters: dict[str, int] = defaultdict(int)
    rows = []
    for video_id, ep in episodes:
        k = counters[video_id]
        counters[video_id] += 1
        rows.append({"video_id": video_id, "fixation_index": k, "start": ep["start"], "end": ep["end"],
                     "x": ep.get("x", math.nan), "y": ep.get("y", math.nan), "n_samples": 0, "scene_score": math.nan, "kept": True,
                     "episode_index": k, "gazed_object": ep["gazed_object"],
                     "fov_objects": ep["fov_objects"], "out_objects": ep["out_objects"]})
    return rows


def read_metadata_dir(metadata_dir: Path) -> tuple[list[dict], list[Problem]]:
    """All ``metadata/*.csv`` files (sorted by name) → fixation rows; a missing directory is fine."""
    if not metadata_dir.is_dir():
        return [], []
    episodes: list[tuple[str, dict]] = []
    problems: list[Problem] = []
    for path in sorted(metadata_dir.glob("*.csv")):
        eps, probs = read_metadata_csv(path, f"metadata/{path.name}")
        episodes += eps
        problems += probs
    return fixation_rows(episodes), problems
