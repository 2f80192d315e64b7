"""What every raw-source reader produces: a :class:`Recording` (video, normalised gaze, actions).

Gaze is always normalised to the video frame, origin top-left, x right, y down; ``valid`` is the
tracker's flag; samples that fall outside the frame keep their coordinates (``GazeTrack.in_frame``
is False for them); samples that cannot be placed at all (e.g. behind the camera) have NaN
coordinates and are invalid.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...util.errors import GazeFormatError, StreamGazeError
from ..fixations import Fixation
from ..track import GazeTrack


@dataclass(frozen=True)
class Action:
    """One entry of a recording's action timeline (seconds on the video clock)."""

    start: float
    end: float
    label: str


@dataclass
class Recording:
    video_id: str
    source: str  # the registry's source name (world, egtea, ..., neon, pupil_cloud, pupil_core, tobii_g3)
    video_path: Path
    track: GazeTrack
    actions: list[Action] = field(default_factory=list)
    directory: Path | None = None  # where the recording's files live (the demo world's ground truth)
    scenario: str = ""  # the source's scenario label when it has one (Ego-Exo4D keysteps), else ""
    # the device's own fixations on the video clock when the recording has them (Pupil Cloud fixations.csv,
    # Neon's fixations stream), else None; `build --fixations device` uses them instead of our detector
    device_fixations: list[Fixation] | None = None


def read_actions(path: Path) -> list[Action]:
    """Our ``actions.json``: a list of {start, end, label, ...} (seconds); a missing file -> none."""
    if not path.is_file():
        return []
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
        acts = [Action(float(a["start"]), float(a["end"]), str(a["label"]).strip()) for a in items]
    except (ValueError, KeyError, TypeError) as exc:
        raise StreamGazeError(f"bad actions file ({exc.__class__.__name__}: {exc})", path) from None
    return sort_actions(acts)


def sort_actions(actions: list[Action]) -> list[Action]:
    return sorted(actions, key=lambda a: (a.start, a.end, a.label))


def find_video(raw: Path, video_id: str, extensions: tuple[str, ...] = (".mp4",), what: str = "") -> Path:
    """``<raw>/videos/<video_id><ext>`` (the first extension that exists) of a flat raw layout;
    ``what`` names the kind of recording in the error (e.g. "session")."""
    for ext in extensions:
        path = Path(raw) / "videos" / f"{video_id}{ext}"
        if path.is_file():
            return path
    expected = " or ".join(f"videos/{video_id}{e}" for e in extensions)
    label = f"{what} {video_id!r}" if what else repr(video_id)
    raise StreamGazeError(f"video of {label} not found (expected {expected})", raw)



def csv_header(reader: Iterator[list[str]], required: Sequence[str], path: Path) -> list[str]:
    """The stripped header row of a gaze CSV; GazeFormatError naming the file when a required column
    is missing."""
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in required if c not in header]
    if missing:
        raise GazeFormatError(f"missing column(s) {', '.join(missing)}; got {','.join(header) or 'nothing'}", path)
    return header


def finite_float(text: str, path: Path, lineno: int, what: str = "") -> float:
    """``text`` as a finite number; GazeFormatError naming the file, line (and field) otherwise."""
    label = f"{what} is " if what else ""
    try:
        value = float(text)
    except ValueError:
        raise GazeFormatError(f"line {lineno}: {label}not a number: {text!r}", path) from None
    if not math.isfinite(value):
        raise GazeFormatError(f"line {lineno}: {label}not a finite number: {text!r}", path)
    return value


def finite_int(text: str, path: Path, lineno: int, what: str) -> int:
    """``text`` as an integer (``12`` or ``12.0``); GazeFormatError naming the file, line and field otherwise."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value == int(value):
            return int(value)
    raise GazeFormatError(f"line {lineno}: {what} is not an integer: {text!r}", path)


def optional_float(text: str, path: Path, lineno: int, what: str) -> float:
    """A finite number, or NaN for an empty field (or ``nan``): an untracked value; GazeFormatError otherwise."""
    text = text.strip()
    return math.nan if text.lower() in ("", "nan") else finite_float(text, path, lineno, what)


def csv_rows(path: Path, required: Sequence[str] | Callable[[list[str]], Sequence[str]]
             ) -> Iterator[tuple[int, list[str], dict[str, int]]]:
    """(line number, fields, column index by name) of each non-blank data row of a gaze CSV with a
    header. ``required`` names the columns that must be there (or computes them from the header);
    GazeFormatError naming the file for a missing column, a row of the wrong length or a non-UTF-8 file."""
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = [h.strip() for h in next(reader, [])]
            need = required(header) if callable(required) else required
            missing = [c for c in need if c not in header]
            if missing:
                raise GazeFormatError(f"missing column(s) {', '.join(missing)}; got {','.join(header) or 'nothing'}",
                                      path)
            col = {h: i for i, h in enumerate(header)}
            for lineno, row in enumerate(reader, start=2):
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise GazeFormatError(f"line {lineno}: expected {len(header)} fields, got {len(row)}", path)
                yield lineno, row, col
    except UnicodeDecodeError:
        raise GazeFormatError("not a UTF-8 CSV file", path) from None
