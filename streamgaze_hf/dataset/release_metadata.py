"""The release's ``metadata/*.csv`` episode tables (reference §3.6) → rows of the ``fixations`` config.

Each CSV row is one scanpath episode of one video: ``episode_start_time, episode_end_time, duration,
representative_object, other_objects_in_cropped_area, other_objects_outside_fov`` and a video column
(the first present of ``video_name``, ``video_source``, ``video_id``, ``source_file``). Object columns
are Python reprs of dicts/lists, parsed like the reference does: JSON, then JSON after quote
replacement, then ``ast.literal_eval``. The release has no gaze coordinates, so x/y are NaN.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import posixpath
from collections import defaultdict
from pathlib import Path

from .release_parse import parse_time
from .release_report import Problem

VIDEO_COLUMNS = ("video_name", "video_source", "video_id", "source_file")
REQUIRED_COLUMNS = ("episode_start_time", "episode_end_time", "representative_object")
_VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")
_CSV_SUFFIXES = ("_fixation_merged_filtered_v2.csv", "_fixation_with_internvl_v2_scene.csv", ".csv")
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
    """(video id, partial fixation row) per valid CSV row, in file order, and the problems."""
    problems: list[Problem] = []
    try:
        rows, video_col = read_metadata_table(path)
    except ValueError as exc:
        return [], [Problem("malformed_metadata", label, detail=str(exc))]
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(_episode(row, video_col))
        except ValueError as exc:
            problems.append(Problem("malformed_metadata", label, i, None, "", str(exc)))
    return out, problems


def episode_span(row: dict, video_col: str) -> tuple[str, float, float]:
    """(video id, start, end) of one metadata row; ValueError when they do not make an episode."""
    video_id = video_id_from(row.get(video_col) or "")
    if not video_id:
        raise ValueError(f"empty {video_col}")
    start = parse_time(row["episode_start_time"])
    end = parse_time(row["episode_end_time"])
    if end < start:
        raise ValueError(f"episode ends ({end}) before it starts ({start})")
    return video_id, start, end


def _episode(row: dict, video_col: str) -> tuple[str, dict]:
    video_id, start, end = episode_span(row, video_col)
    return video_id, {
        "start": start, "end": end,
        "gazed_object": object_identity(parse_repr(row.get("representative_object"))),
        "fov_objects": object_identities(row.get("other_objects_in_cropped_area")),
        "out_objects": object_identities(row.get("other_objects_outside_fov")),
    }


def fixation_rows(episodes: list[tuple[str, dict]]) -> list[dict]:
    """FIXATION_FEATURES rows: index = row order per video, x/y/scene NaN, kept, episode = index."""
    counters: dict[str, int] = defaultdict(int)
    rows = []
    for video_id, ep in episodes:
        k = counters[video_id]
        counters[video_id] += 1
        rows.append({"video_id": video_id, "fixation_index": k, "start": ep["start"], "end": ep["end"],
                     "x": math.nan, "y": math.nan, "n_samples": 0, "scene_score": math.nan, "kept": True,
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
