"""The EgoGazeVQA release's files as the importer (``release.py``) reads them: its question CSVs (found below the
release, one per category and source; :func:`read_csv` checks their columns), the cells of a row
(:func:`parse_options`, :func:`parse_answer`, :func:`group_files`) and the narration/gaze JSON
(:func:`read_narrations`: per video, its entries with their gaze, untracked where the release says so). The
formats are described in ``release.py``'s docstring; a problem goes to the importer's sink.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...dataset import LETTERS, Problem
from . import CATEGORIES, OPTION_COUNT, SOURCES

__all__ = ["COLUMNS", "FRAME_NO", "UNTRACKED_MARKER", "NarrationEntry", "VideoNarration", "parse_options",
           "parse_answer", "group_files", "read_narrations", "find_csvs", "rel_path", "read_csv", "release_narrations"]

COLUMNS = ("video_id", "group_id", "Question", "Answer Options", "Correct Answer")
_LABEL = re.compile(r"^\s*(?:\(([A-Z])\)|([A-Z])\s*[:.)])\s*(.*)$")
_ANSWER = re.compile(r"^\s*[*_`\"'(\[]*([A-Za-z])(?![A-Za-z])")
FRAME_NO = re.compile(r"(\d+)(?=\.[A-Za-z0-9]+$)")


# ---------------------------------------------------------------------------------------------- parsing


def parse_options(text: str) -> list[str] | None:
    """The option texts of an ``Answer Options`` cell (labels stripped), or None unless the labels
    are exactly A, B, C, D, E in order. Lines without a label continue the previous option."""
    options: list[str] = []
    for line in str(text or "").replace("\r\n", "\n").split("\n"):
        if not line.strip():
            continue
        m = _LABEL.match(line)
        expected = LETTERS[len(options)] if len(options) < OPTION_COUNT else None
        if m:
            if (m.group(1) or m.group(2)) != expected:
                return None  # out of order, repeated, or a sixth option
            options.append(m.group(3).strip())
        elif options:
            options[-1] = f"{options[-1]} {line.strip()}"
        else:
            return None
    if len(options) != OPTION_COUNT or any(not o for o in options):
        return None
    return options


def parse_answer(text: str) -> tuple[str | None, bool]:
    """(letter, exact) of a ``Correct Answer`` cell: "C" -> ("C", True); "C.", "C: pot", "**C**" ->
    ("C", False); anything not starting with a letter A-E -> (None, False)."""
    raw = str(text or "").strip()
    m = _ANSWER.match(raw)
    if not m or m.group(1).upper() not in LETTERS[:OPTION_COUNT]:
        return None, False
    return m.group(1).upper(), raw == m.group(1).upper()


def group_files(cell: str) -> list[str]:
    """The keyframe file names of a ``group_id`` cell (newline, comma or semicolon separated, quotes stripped)."""
    parts = re.split(r"[\n,;]+", str(cell or "").strip().strip("[]"))
    return [p.strip().strip("'\"").strip() for p in parts if p.strip().strip("'\"").strip()]


def _finite(v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f if math.isfinite(f) else math.nan


# ---------------------------------------------------------------------------------------------- narrations


UNTRACKED_MARKER = (-1.0, -1.0)  # the release's "no gaze" point (Ego4D narrations, with confidence 0)


@dataclass
class NarrationEntry:
    time: float
    frame: int
    caption: str
    x: float
    y: float
    confidence: float
    image: str  # image_path as given
    scenario: str
    activity: str
    raw_gaze: list | None = None  # [gaze_x, gaze_y] as the release gives them (None: no gaze_info)
    gaze_type: str = ""  # EGTEA's event type (fixation, saccade, unknown, untracked)

    @property
    def gaze_valid(self) -> bool:
        """Tracked gaze: finite coordinates other than the ``-1, -1`` marker, a confidence (when given) above
        zero and an event type (when given) other than ``untracked`` (EGTEA's code 0, placed at 0, 0). A
        point off the frame, on any side, is tracked."""
        return (math.isfinite(self.x) and math.isfinite(self.y) and (self.x, self.y) != UNTRACKED_MARKER
                and not (math.isfinite(self.confidence) and self.confidence <= 0.0)
                and self.gaze_type != "untracked")

    @property
    def gaze_untracked(self) -> bool:
        """Coordinates given but marked untracked (the release's -1, -1 / confidence 0)."""
        return math.isfinite(self.x) and math.isfinite(self.y) and not self.gaze_valid


@dataclass
class VideoNarration:
    entries: list[NarrationEntry] = field(default_factory=list)  # in time order
    scenario: str = ""
    activity: str = ""
    in_file: list[NarrationEntry] = field(default_factory=list)  # in the file's order

    def find(self, name: str) -> NarrationEntry | None:
        """The keyframe's entry: the first in the file whose ``image_path`` has that name, else whose
        ``timestamp_frame`` is the name's number (the official ``test_gaze.py`` lookup, first match;
        the Ego4D narrations have several entries on some frames)."""
        for e in self.in_file:
            if e.image and Path(e.image.replace("\\", "/")).name == name:
                return e
        m = FRAME_NO.search(name)
        if m:
            for e in self.in_file:
                if e.frame == int(m.group(1)):
                    return e
        return None


def _entry(raw: dict, video: dict) -> NarrationEntry:
    gaze = raw.get("gaze_info") if isinstance(raw.get("gaze_info"), dict) else {}
    frame = raw.get("timestamp_frame")
    return NarrationEntry(
        raw_gaze=([gaze.get("gaze_x", "N/A"), gaze.get("gaze_y", "N/A")]
                  if isinstance(raw.get("gaze_info"), dict) else None),
        gaze_type=str(gaze.get("gaze_type") or "").strip().lower(),
        time=_finite(raw.get("timestamp_sec")),
        frame=int(frame) if isinstance(frame, int | float) and math.isfinite(frame) else -1,
        caption=str(raw.get("description") or raw.get("narration_text") or ""),
        x=_finite(gaze.get("gaze_x")), y=_finite(gaze.get("gaze_y")), confidence=_finite(gaze.get("confidence")),
        image=str(raw.get("image_path") or ""),
        scenario=str(raw.get("scenario") or video.get("scenario") or ""),
        activity=str(raw.get("activity") or video.get("activity") or ""))


def read_narrations(path: Path) -> dict[str, VideoNarration]:
    """One narration JSON -> per video its entries in time order (ValueError on a bad file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("top level is not an object {video_id: ...}")
    out: dict[str, VideoNarration] = {}
    for vid, video in data.items():
        if not isinstance(video, dict):
            raise ValueError(f"video {vid!r} is not an object")
        block = video.get("narration_pass_1") if isinstance(video.get("narration_pass_1"), dict) else video
        raw = block.get("narrations")
        if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
            raise ValueError(f"video {vid!r} has no list of narrations")
        in_file = [_entry(e, video) for e in raw]
        entries = sorted(in_file, key=lambda e: (math.inf if math.isnan(e.time) else e.time, e.frame))
        scen = str(video.get("scenario") or next((e.scenario for e in entries if e.scenario), ""))
        act = str(video.get("activity") or next((e.activity for e in entries if e.activity), ""))
        out[str(vid)] = VideoNarration(entries, scen, act, in_file)
    return out


def _walk_csvs(release: Path) -> dict[str, list[Path]]:
    """Every ``*.csv`` below the release by file name, following symlinked directories (each real
    directory once) and leaving out hidden ones."""
    found: dict[str, list[Path]] = {}
    seen: set[str] = set()
    for top, dirs, files in os.walk(release, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.endswith(".csv") and not name.startswith("."):
                path = Path(top) / name
                if path.is_file():
                    found.setdefault(name, []).append(path)
    return found


def find_csvs(release: Path, sink) -> dict[tuple[str, str], Path]:
    """The question CSV of each (category, source) below the release; an absent or repeated one goes to ``sink``."""
    found: dict[tuple[str, str], Path] = {}
    below = _walk_csvs(release)
    for cat in CATEGORIES:
        for ds in SOURCES:
            name = f"{cat}_{ds}.csv"
            paths = sorted(below.get(name, []), key=lambda p: rel_path(p, release))
            if not paths:
                sink(Problem("missing_category_file", name))
                continue
            for extra in paths[1:]:
                sink(Problem("duplicate_file", rel_path(extra, release), detail=f"also {rel_path(paths[0], release)}"))
            found[(cat, ds)] = paths[0]
    return found


def rel_path(p: Path, base: Path) -> str:
    """``p`` relative to ``base``, POSIX style (how the report names a file)."""
    return p.relative_to(base).as_posix()


def read_csv(path: Path, label: str, sink) -> list[dict] | None:
    """A question CSV's rows (header cells stripped), or None (a problem to ``sink``) when it is unreadable or lacks
    one of :data:`COLUMNS`."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                sink(Problem("malformed_csv", label, detail=f"missing column(s) {', '.join(missing)}"))
                return None
            reader.fieldnames = header
            return [dict(r) for r in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        sink(Problem("malformed_csv", label, detail=str(exc)))
        return None


def release_narrations(release: Path, sink) -> dict[str, dict[str, VideoNarration]]:
    """Each source's ``narrations/<source>.json`` read (:func:`read_narrations`); an absent or malformed one goes to
    ``sink``."""
    out: dict[str, dict[str, VideoNarration]] = {}
    for ds in SOURCES:
        path = release / "narrations" / f"{ds}.json"
        if not path.is_file():
            sink(Problem("missing_narrations", f"narrations/{ds}.json"))
            continue
        try:
            out[ds] = read_narrations(path)
        except ValueError as exc:
            sink(Problem("malformed_json", f"narrations/{ds}.json", detail=str(exc)))
    return out
