"""Object back-end over the official human-verified metadata CSVs (reference §3.6).

Each CSV row is one scanpath episode of one video: ``episode_start_time``, ``episode_end_time``,
``representative_object`` ({object_identity, detailed_caption}), ``other_objects_in_cropped_area``
and ``other_objects_outside_fov`` (lists of such dicts), plus a video column (the first present of
``video_name``, ``video_source``, ``video_id``, ``source_file``). Cells are parsed with the release
importer's functions (:mod:`streamgaze_hf.benchmarks.streamgaze.release_metadata`).

Each fixation gets the object sets of the episode it overlaps most (ties: the earlier episode):
gazed = the representative object, fov = the cropped-area objects, out = the outside objects, with
names normalised (:func:`~streamgaze_hf.objects.naming.normalize_name`). A fixation that overlaps no
episode gets empty sets. The metadata holds no structured attributes and no exact visibility or
fixation intervals, so ``attributes`` is empty and the interval fields are None (the QA generators
fall back to the per-fixation sets).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...gaze import Fixation, FixationObjects, GazeTrack
from ...objects.base import VideoObjects
from ...objects.naming import normalize_name, unique_names
from ...util.errors import StreamGazeError
from .release_metadata import (
    episode_span,
    object_identity,
    parse_repr,
    read_metadata_table,
    video_id_from,
)

OBJECT_COLUMNS = ("representative_object", "other_objects_in_cropped_area", "other_objects_outside_fov")
_POINT = 1e-9  # overlap credited to a zero-length fixation that lies inside an episode


@dataclass(frozen=True)
class MetadataEpisode:
    """One episode row: its time span and normalised object sets."""

    start: float
    end: float
    objects: FixationObjects
    source: str  # "<csv file>:<line>" for messages


class MetadataBackend:
    """Object sets per fixation from the official metadata CSV (one file or a directory of ``*.csv``)."""

    name = "metadata"

    def __init__(self, csv_path_or_dir: str | os.PathLike[str]):
        path = Path(csv_path_or_dir)
        if path.is_dir():
            files = sorted(path.glob("*.csv"))
            if not files:
                raise StreamGazeError("no metadata *.csv files in directory", path)
        elif path.is_file():
            files = [path]
        else:
            raise StreamGazeError("metadata CSV not found", path)
        self.path = path
        self.episodes: dict[str, list[MetadataEpisode]] = {}
        for f in files:
            for video_id, ep in read_episodes(f):
                self.episodes.setdefault(video_id, []).append(ep)
        for eps in self.episodes.values():
            eps.sort(key=lambda e: (e.start, e.end))

    def video_episodes(self, video_dir: Path, video_path: Path) -> list[MetadataEpisode]:
        """The episodes of a video, looked up by the video file's stem, then by its directory name
        (exact, then case-insensitive)."""
        candidates = [video_id_from(Path(video_path).name), Path(video_dir).name]
        for c in candidates:
            if c in self.episodes:
                return self.episodes[c]
        lower = {k.lower(): k for k in self.episodes}
        for c in candidates:
            if c.lower() in lower:
                return self.episodes[lower[c.lower()]]
        raise StreamGazeError(
            f"no episodes for video {candidates[0]!r} (also tried {candidates[1]!r}) in the metadata "
            f"({len(self.episodes)} videos)", self.path)

    def describe(self, video_dir: Path, video_path: Path, track: GazeTrack,
                 fixations: Sequence[Fixation]) -> VideoObjects:
        """One FixationObjects per fixation: those of the episode overlapping it most, else empty."""
        episodes = self.video_episodes(video_dir, video_path)
        per_fix = []
        for f in fixations:
            best, best_overlap = None, 0.0
            for ep in episodes:
                overlap = _overlap(f.start, f.end, ep.start, ep.end)
                if overlap > best_overlap:
                    best, best_overlap = ep, overlap
            per_fix.append(best.objects if best is not None else FixationObjects())
        return VideoObjects(per_fixation=per_fix)


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    """Length of the intersection of [a0, a1] and [b0, b1]; a tiny positive value for a point inside."""
    inter = min(a1, b1) - max(a0, b0)
    if inter > 0:
        return inter
    if inter == 0 and (a0 == a1 or b0 == b1) and max(a0, b0) <= min(a1, b1):
        return _POINT
    return 0.0


def read_episodes(path: Path) -> list[tuple[str, MetadataEpisode]]:
    """(video id, episode) per row of one metadata CSV; a StreamGazeError naming the file (and line)
    for unreadable files, missing columns, bad times and unparseable object cells."""
    try:
        rows, video_col = read_metadata_table(path)
    except ValueError as exc:
        raise StreamGazeError(f"metadata CSV: {exc}", path) from None
    out = []
    for i, row in enumerate(rows):
        line = i + 2  # 1-based, after the header
        try:
            out.append(_episode(row, video_col, f"{path.name}:{line}"))
        except ValueError as exc:
            raise StreamGazeError(f"line {line}: {exc}", path) from None
    return out


def _episode(row: dict, video_col: str, source: str) -> tuple[str, MetadataEpisode]:
    video_id, start, end = episode_span(row, video_col)
    rep = _cell(row, "representative_object")
    if isinstance(rep, list):
        raise ValueError("representative_object is a list, expected one object: "
                         f"{_short(row['representative_object'])}")
    gazed = normalize_name(object_identity(rep)) or None
    fov = unique_names(_identities(row, "other_objects_in_cropped_area"), exclude=[gazed] if gazed else [])
    stage1 = ((gazed,) if gazed else ()) + fov
    out = unique_names(_identities(row, "other_objects_outside_fov"), exclude=stage1)
    return video_id, MetadataEpisode(start, end, FixationObjects(gazed, fov, out), source)


def _cell(row: dict, column: str) -> object:
    """A parsed object cell; ValueError when it looks like a dict/list but does not parse."""
    raw = row.get(column)
    value = parse_repr(raw)
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        raise ValueError(f"cannot parse {column} cell {_short(raw)}")
    if value is not None and not isinstance(value, dict | list | tuple | str):
        raise ValueError(f"unexpected {column} cell {_short(raw)}")
    return value


def _identities(row: dict, column: str) -> list[str]:
    value = _cell(row, column)
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else [value]
    for item in items:
        if not isinstance(item, dict | str):
            raise ValueError(f"unexpected item {item!r} in {column}")
    return [object_identity(o) for o in items]


def _short(text: object, n: int = 60) -> str:
    s = repr(text)
    return s if len(s) <= n else s[: n - 3] + "..."
