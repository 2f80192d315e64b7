"""What every raw-source reader produces: a :class:`Recording` (video, normalised gaze, actions).

Gaze is always normalised to the video frame, origin top-left, x right, y down; ``valid`` is the
tracker's flag; samples that fall outside the frame keep their coordinates (``GazeTrack.in_frame``
is False for them); samples that cannot be placed at all (e.g. behind the camera) have NaN
coordinates and are invalid.
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
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
    """One recording as every reader gives it: the video, the normalised gaze track and the action timeline."""

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
    # the device's own blinks, (start, end) on the video clock, when the recording has them (Neon's blinks stream,
    # Pupil Cloud blinks.csv), else None; `export-bids` writes them as physioevents
    device_blinks: list[tuple[float, float]] | None = None


def read_actions(path: Path) -> list[Action]:
    """Our ``actions.json``: a list of ``{start, end, label, ...}`` (seconds on the video clock).

    Args:
        path: the file.

    Returns:
        The actions, sorted (:func:`sort_actions`); empty when the file does not exist.

    Raises:
        StreamGazeError: naming the file, when it is not JSON or an entry lacks a number or label.
    """
    if not path.is_file():
        return []
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
        acts = [Action(float(a["start"]), float(a["end"]), str(a["label"]).strip()) for a in items]
    except (ValueError, KeyError, TypeError) as exc:
        raise StreamGazeError(f"bad actions file ({exc.__class__.__name__}: {exc})", path) from None
    return sort_actions(acts)


def sort_actions(actions: list[Action]) -> list[Action]:
    """The one order of an action timeline.

    Args:
        actions: the actions, in any order.

    Returns:
        A new list sorted by start, then end, then label.
    """
    return sorted(actions, key=lambda a: (a.start, a.end, a.label))


def find_video(raw: Path, video_id: str, extensions: tuple[str, ...] = (".mp4",), what: str = "") -> Path:
    """``<raw>/videos/<video_id><ext>`` (the first extension that exists) of a flat raw layout;
    ``what`` names the kind of recording in the error (e.g. "session").

    Args:
        raw: the raw directory.
        video_id: the recording's id (the video's file stem).
        extensions: the extensions to try, in order.
        what: the kind of recording, for the error message ("" names only the id).

    Returns:
        The first of ``<raw>/videos/<video_id><ext>`` that is a file.

    Raises:
        StreamGazeError: naming the raw directory, when none exists.
    """
    for ext in extensions:
        path = Path(raw) / "videos" / f"{video_id}{ext}"
        if path.is_file():
            return path
    expected = " or ".join(f"videos/{video_id}{e}" for e in extensions)
    label = f"{what} {video_id!r}" if what else repr(video_id)
    raise StreamGazeError(f"video of {label} not found (expected {expected})", raw)


def recording_folders(raw: Path, is_recording: Callable[[Path], bool]) -> list[str]:
    """The names of the sub-folders of ``raw`` that are recordings (none when ``raw`` is not a folder).

    Args:
        raw: the raw directory.
        is_recording: the reader's test of one folder.

    Returns:
        Their names, sorted.
    """
    raw = Path(raw)
    return sorted(d.name for d in raw.iterdir() if d.is_dir() and is_recording(d)) if raw.is_dir() else []


def discover_recordings(raw: Path, ids: Iterable[str], what: str, layout: str,
                        require: Callable[[str], object]) -> list[str]:
    """A reader's ``discover``: the recordings found, each checked for its video.

    Args:
        raw: the raw directory.
        ids: the recordings' ids the reader found (e.g. :func:`recording_folders`).
        what: the kind of recordings, for the error (``"Neon recordings"``).
        layout: the reader's ``LAYOUT``, for the error.
        require: checks one recording (raises when its video is missing).

    Returns:
        The ids, sorted.

    Raises:
        StreamGazeError: naming the raw directory and ``layout``, when there is none; or what ``require``
            raises.
    """
    ids = sorted(ids)
    if not ids:
        raise StreamGazeError(f"no {what} found (expected {layout})", raw)
    for rec in ids:
        require(rec)
    return ids



def csv_header(reader: Iterator[list[str]], required: Sequence[str], path: Path) -> list[str]:
    """The stripped header row of a gaze CSV.

    Args:
        reader: a ``csv.reader`` positioned at the header.
        required: the columns that must be there.
        path: the file (for the error).

    Returns:
        The header's column names, stripped (empty for an empty file, which then lacks every column).

    Raises:
        GazeFormatError: naming the file, when a required column is missing.
    """
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in required if c not in header]
    if missing:
        raise GazeFormatError(f"missing column(s) {', '.join(missing)}; got {','.join(header) or 'nothing'}", path)
    return header


def finite_float(text: str, path: Path, lineno: int, what: str = "") -> float:
    """A CSV field as a finite number.

    Args:
        text: the field.
        path: the file (for the error).
        lineno: its line number (for the error).
        what: the field's name (for the error; "" leaves it out).

    Returns:
        The number.

    Raises:
        GazeFormatError: naming the file, line (and field), when it is not a number or not finite.
    """
    label = f"{what} is " if what else ""
    try:
        value = float(text)
    except ValueError:
        raise GazeFormatError(f"line {lineno}: {label}not a number: {text!r}", path) from None
    if not math.isfinite(value):
        raise GazeFormatError(f"line {lineno}: {label}not a finite number: {text!r}", path)
    return value


def finite_int(text: str, path: Path, lineno: int, what: str) -> int:
    """A CSV field as an integer (``12`` or ``12.0``).

    Args:
        text: the field (surrounding blanks are ignored).
        path: the file (for the error).
        lineno: its line number (for the error).
        what: the field's name (for the error).

    Returns:
        The integer.

    Raises:
        GazeFormatError: naming the file, line and field, when it is not a whole finite number.
    """
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
    """A CSV field that may be empty: a finite number, or NaN (an untracked value).

    Args:
        text: the field; empty or ``nan`` (any case, blanks ignored) is NaN.
        path: where the field is, with ``lineno`` and ``what`` (file, line number, field name), for the error.
        lineno: see ``path``.
        what: see ``path``.

    Returns:
        The number, or NaN.

    Raises:
        GazeFormatError: naming the file, line and field, when it is neither.
    """
    text = text.strip()
    return math.nan if text.lower() in ("", "nan") else finite_float(text, path, lineno, what)


def csv_rows(path: Path, required: Sequence[str] | Callable[[list[str]], Sequence[str]]
             ) -> Iterator[tuple[int, list[str], dict[str, int]]]:
    """(line number, fields, column index by name) of each non-blank data row of a gaze CSV with a
    header. ``required`` names the columns that must be there (or computes them from the header);
    GazeFormatError naming the file for a missing column, a row of the wrong length or a non-UTF-8 file.

    Args:
        path: the CSV file (UTF-8, a byte-order mark allowed).
        required: the column names that must be in the header, or a function of the header that gives them.

    Yields:
        ``(line number, fields, column index by name)`` per data row, blank rows skipped.

    Raises:
        GazeFormatError: naming the file (and line), for a missing column, a row with another number of
            fields than the header, or a file that is not UTF-8.
        OSError: the file cannot be opened.
    """
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


def json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """The objects of a gzip of JSON lines (Tobii Pro Glasses 2 ``livedata.json.gz``, Glasses 3 ``gazedata.gz``).

    Args:
        path: the file.

    Yields:
        ``(line number, object)`` per non-blank line.

    Raises:
        GazeFormatError: naming the file (and line), for a line that is not a JSON object or a file that is not
            a gzip of UTF-8 text.
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    raise GazeFormatError(f"line {n}: not JSON ({exc})", path) from None
                if not isinstance(obj, dict):
                    raise GazeFormatError(f"line {n}: not a JSON object", path)
                yield n, obj
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise GazeFormatError(f"not a gzip of JSON lines ({exc})", path) from None
