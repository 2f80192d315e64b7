"""Human-verification corrections (paper §3.3 "Human verification", appendix A.5): the CSV the review
pages export, its validation, and how it is applied to a video's per-fixation object sets.

CSV format (UTF-8, a BOM is accepted; one header row; column order free; extra columns ignored):

==================  ===========================================================================
column              meaning
==================  ===========================================================================
video_id            the dataset's video id
fixation_index      the fixation's ``fixation_index`` in the dataset's ``fixations`` config
                    (may be empty when ``start`` and ``end`` are given)
start, end          the fixation's interval in seconds (may both be empty when
                    ``fixation_index`` is given); matching uses them first, within 0.05 s
region              ``gazed`` (the object under the green dot), ``fov`` (other objects inside the
                    red FOV circle), ``out`` (objects outside it) or ``fixation`` (the whole
                    fixation; ``object`` empty)
object              the object name as extracted (empty for ``fixation`` rows, and for a
                    ``gazed`` row of a fixation where no gazed object was found)
decision            ``include`` (the extraction is right) or ``exclude`` (it is wrong / the whole
                    fixation is unusable)
corrected_object    the right name, when the annotator rewrote the object's identity (object rows
                    only; on a ``gazed`` row with an empty ``object`` it adds the missing object)
corrected_caption   the annotator's 1-2 sentence caption (attributes or location; object rows only)
annotator           who reviewed (empty: the CSV file stands for the annotator)
source              optional: the video's source dataset, for per-source ratios (paper Table 5)
==================  ===========================================================================

Applying (:func:`apply_corrections`) happens at build time (``streamgaze build --review CSV ...``),
before the scanpath and the QA are generated, so only human-verified object sets reach the questions.
Several annotators' CSVs for the same video are combined by majority vote per object; ties go
against the model's original output (a correction wins, then removal), so an object is kept only when
most annotators kept it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..gaze import Fixation, FixationObjects
from ..util.errors import StreamGazeError

#: the columns the review pages write, in this order (``source`` is optional on import)
CSV_COLUMNS: tuple[str, ...] = ("video_id", "fixation_index", "start", "end", "region", "object", "decision",
                                "corrected_object", "corrected_caption", "annotator", "source")
REQUIRED_COLUMNS: tuple[str, ...] = CSV_COLUMNS[:-1]
REGIONS: tuple[str, ...] = ("gazed", "fov", "out", "fixation")
OBJECT_REGIONS: tuple[str, ...] = ("gazed", "fov", "out")
DECISIONS: tuple[str, ...] = ("include", "exclude")
TIME_TOLERANCE_S = 0.05

__all__ = [
    "CSV_COLUMNS", "Corrections", "REGIONS", "ReviewRow", "ReviewWarning", "apply_corrections",
    "corrections_to_csv", "load_corrections", "parse_corrections",
]


class ReviewWarning(UserWarning):
    """A correction that matched no fixation or no object of the video it names."""


@dataclass(frozen=True)
class ReviewRow:
    """One validated CSV row (``file`` and ``row`` say where it came from; row 1 is the header)."""

    video_id: str
    fixation_index: int | None
    start: float | None
    end: float | None
    region: str
    object: str
    decision: str
    corrected_object: str = ""
    corrected_caption: str = ""
    annotator: str = ""
    source: str = ""
    file: str = ""
    row: int = 0

    @property
    def rater(self) -> str:
        """Who made the decision: the annotator, or the CSV file when the name was left empty."""
        return self.annotator or f"<{self.file}>"

    @property
    def excluded(self) -> bool:
        return self.decision == "exclude"

    @property
    def renamed(self) -> bool:
        """The annotator rewrote the object's identity."""
        return bool(self.corrected_object) and self.corrected_object != self.object

    @property
    def modified(self) -> bool:
        """Identity or caption corrected (paper Table 5's "modified")."""
        return self.renamed or bool(self.corrected_caption)

    @property
    def where(self) -> str:
        return f"{self.file} row {self.row}"


@dataclass
class Corrections:
    """All validated review rows of one or more CSV files."""

    rows: list[ReviewRow] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def for_video(self, video_id: str) -> list[ReviewRow]:
        return [r for r in self.rows if r.video_id == video_id]

    @property
    def video_ids(self) -> list[str]:
        return sorted({r.video_id for r in self.rows})

    @property
    def annotators(self) -> list[str]:
        return sorted({r.rater for r in self.rows})

    def digest(self, video_id: str | None = None) -> str:
        """A hash of the decisions (of one video, or all): put it in a build's cache key so that a
        changed review re-runs the video."""
        rows = self.for_video(video_id) if video_id is not None else self.rows
        payload = sorted(json.dumps({k: v for k, v in asdict(r).items() if k not in ("file", "row")},
                                    sort_keys=True) for r in rows)
        return hashlib.sha256("\n".join(payload).encode("utf-8")).hexdigest()[:16]

    def __len__(self) -> int:
        return len(self.rows)


# ------------------------------------------------------------------------------------------- reading


def _bad(path: str, row: int, reason: str) -> StreamGazeError:
    return StreamGazeError(f"row {row}: {reason}", path)


def _opt_float(value: str, name: str, path: str, row: int) -> float | None:
    if value == "":
        return None
    try:
        x = float(value)
    except ValueError:
        raise _bad(path, row, f"{name} {value!r} is not a number (seconds)") from None
    if not math.isfinite(x) or x < 0:
        raise _bad(path, row, f"{name} {value!r} must be a finite number of seconds >= 0")
    return x


def _opt_int(value: str, path: str, row: int) -> int | None:
    if value == "":
        return None
    try:
        x = float(value)  # spreadsheets write 3 as 3.0
    except ValueError:
        raise _bad(path, row, f"fixation_index {value!r} is not an integer") from None
    if not math.isfinite(x) or x != int(x) or x < 0:
        raise _bad(path, row, f"fixation_index {value!r} is not an integer >= 0")
    return int(x)


def _parse_row(rec: dict[str, str], path: str, row: int) -> ReviewRow:
    def get(name: str) -> str:
        return rec.get(name, "").strip()

    video_id = get("video_id")
    if not video_id:
        raise _bad(path, row, "video_id is empty")
    region = get("region").lower()
    if region not in REGIONS:
        raise _bad(path, row, f"region {get('region')!r} is not one of {', '.join(REGIONS)}")
    decision = get("decision").lower()
    if decision not in DECISIONS:
        raise _bad(path, row, f"decision {get('decision')!r} is not one of {', '.join(DECISIONS)}")
    index = _opt_int(get("fixation_index"), path, row)
    start, end = _opt_float(get("start"), "start", path, row), _opt_float(get("end"), "end", path, row)
    if (start is None) != (end is None):
        raise _bad(path, row, "give both start and end, or neither")
    if start is not None and end is not None and end < start:
        raise _bad(path, row, f"end {end} is before start {start}")
    if start is None and index is None:
        raise _bad(path, row, "the fixation is not identified: give start and end, or fixation_index")
    obj, corrected, caption = get("object"), get("corrected_object"), get("corrected_caption")
    if region == "fixation":
        if obj or corrected or caption:
            raise _bad(path, row, "a 'fixation' row is about the whole fixation: object, corrected_object and "
                                  "corrected_caption must be empty")
    elif not obj and region != "gazed":
        raise _bad(path, row, f"object is empty in a {region!r} row")
    elif not obj and decision == "include" and not corrected and caption:
        raise _bad(path, row, "a caption for a missing gazed object needs the corrected_object it describes")
    return ReviewRow(video_id, index, start, end, region, obj, decision, corrected, caption,
                     get("annotator"), get("source"), path, row)


def parse_corrections(text: str, path: str = "<csv>") -> list[ReviewRow]:
    """Validate one CSV's text (see the module docstring); StreamGazeError names ``path`` and the row
    (spreadsheet numbering: the header is row 1, blank rows count, a multi-line cell is one row)."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    rows: list[ReviewRow] = []
    seen: dict[tuple, int] = {}
    n = 0
    try:
        header = [h.strip() for h in next(reader, [])]
        n = 1
        if not any(header):
            raise StreamGazeError("empty CSV: expected a header row with " + ", ".join(REQUIRED_COLUMNS), path)
        dup = sorted(h for h, k in Counter(header).items() if k > 1 and h)
        if dup:
            raise StreamGazeError(f"row 1: duplicate column(s) {', '.join(dup)}", path)
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise StreamGazeError(f"row 1: missing column(s) {', '.join(missing)} (columns: "
                                  f"{', '.join(CSV_COLUMNS)}; source is optional)", path)
        for n, cells in enumerate(reader, start=2):
            if not any(c.strip() for c in cells):
                continue  # blank row
            if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
                raise _bad(path, n, f"{len(cells) - len(header)} more cell(s) than the header has columns")
            r = _parse_row(dict(zip(header, cells)), path, n)
            key = (r.video_id, r.fixation_index, r.start, r.end, r.region, r.object, r.rater)
            if key in seen:
                raise _bad(path, n, f"the same {r.region} decision{' on ' + repr(r.object) if r.object else ''} "
                                    f"was already given in row {seen[key]}")
            seen[key] = n
            rows.append(r)
    except csv.Error as exc:
        raise StreamGazeError(f"row {n + 1}: malformed CSV: {exc}", path) from exc
    return rows


def load_corrections(csv_paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Corrections:
    """Read and validate review CSVs (one per annotator and video, or merged ones).

    Args:
        csv_paths: one CSV file, or several (exported by the review pages; UTF-8).

    Returns:
        The :class:`Corrections`: every row of every file, and the files in the order given.

    Raises:
        StreamGazeError: naming the file and the row of the first bad cell: no file given, a file that
            cannot be read or is not UTF-8, a missing column, a malformed row or value, or the same decision
            given twice by one annotator (in one file or across files).
    """
    paths = [csv_paths] if isinstance(csv_paths, (str, os.PathLike)) else list(csv_paths)
    if not paths:
        raise StreamGazeError("no review CSV given")
    out = Corrections()
    given: dict[tuple, ReviewRow] = {}
    for p in paths:
        path = Path(p)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise StreamGazeError(f"cannot read review CSV: {exc.strerror or exc}", path) from exc
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamGazeError(f"not UTF-8 text (byte {exc.start}); export the CSV as UTF-8", path) from exc
        rows = parse_corrections(text, str(path))
        for r in rows:
            key = (r.video_id, r.fixation_index, r.start, r.end, r.region, r.object, r.rater)
            if key in given:
                raise _bad(str(path), r.row, f"annotator {r.rater!r} already decided this {r.region} item in "
                                             f"{given[key].where}; pass each annotator's latest CSV only")
            given[key] = r
        out.rows.extend(rows)
        out.files.append(str(path))
    return out


def corrections_to_csv(rows: Iterable[ReviewRow]) -> str:
    """Rows back to CSV text in the pages' column order (for tools and tests)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([r.video_id, "" if r.fixation_index is None else r.fixation_index,
                    "" if r.start is None else repr(r.start), "" if r.end is None else repr(r.end), r.region,
                    r.object, r.decision, r.corrected_object, r.corrected_caption, r.annotator, r.source])
    return buf.getvalue()


# ------------------------------------------------------------------------------------------- applying


def _match(r: ReviewRow, fixations: Sequence[Fixation], indices: Sequence[int]) -> int | None:
    """Position of the fixation a row is about: by times (within 0.05 s), else by fixation_index."""
    if r.start is not None and r.end is not None:
        best, best_d = None, math.inf
        for k, f in enumerate(fixations):
            ds, de = abs(f.start - r.start), abs(f.end - r.end)
            if ds <= TIME_TOLERANCE_S + 1e-9 and de <= TIME_TOLERANCE_S + 1e-9 and ds + de < best_d:
                best, best_d = k, ds + de
        return best
    if r.fixation_index is not None:
        try:
            return list(indices).index(r.fixation_index)
        except ValueError:
            return None
    return None


def _vote(votes: list[str | None], original: str | None) -> str | None:
    """Majority of the annotators' final identities; ties go against ``original`` (a correction, in
    name order, then removal)."""
    counts = Counter(votes)
    best = max(counts.values())
    tied = [v for v, n in counts.items() if n == best]
    if len(tied) == 1:
        return tied[0]
    corrections = sorted(v for v in tied if v is not None and v != original)
    if corrections:
        return corrections[0]
    return None if None in tied else original


def _final(rows: list[ReviewRow]) -> str | None:
    """One object's final identity after all annotators' rows about it (None: removed)."""
    original = rows[0].object or None
    votes: list[str | None] = []
    for r in rows:
        if r.corrected_object:
            votes.append(r.corrected_object)
        else:
            votes.append(None if r.excluded else original)
    return _vote(votes, original)


def _dedupe(names: Iterable[str], drop: set[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for n in names if n and n not in drop))


def apply_corrections(video_id: str, fixations: Sequence[Fixation], objects: Sequence[FixationObjects],
                      corrections: Corrections, fixation_indices: Sequence[int] | None = None
                      ) -> list[FixationObjects]:
    """The per-fixation object sets of one video after human verification.

    ``fixations`` and ``objects`` are aligned (the scene-consistent fixations of the build and the
    back-end's :attr:`VideoObjects.per_fixation`); ``fixation_indices`` are their ``fixation_index``
    values in the dataset (``Analysis.kept_idx``; default ``0..n-1``), used for rows without times.
    A row matches a fixation of ``video_id`` whose start and end are within 0.05 s of the row's, or,
    without times, by ``fixation_index``. Then, per fixation:

    * excluded as a whole (majority of its annotators) -> ``FixationObjects()`` (no objects, so it
      yields no questions);
    * an excluded object is removed (from its region, or from whichever region now holds it);
    * a ``corrected_object`` replaces the object's identity (a corrected gazed identity replaces the
      gazed object, and is removed from the FOV and out lists so it is listed once);
    * several annotators: majority vote per object, ties against the original (module docstring).

    Rows that match no fixation or no object are skipped with a :class:`ReviewWarning`. Captions are
    not part of :class:`FixationObjects`; they are counted by :func:`verification_stats`.
    """
    if len(fixations) != len(objects):
        raise ValueError("one FixationObjects per fixation is required")
    indices = list(range(len(fixations))) if fixation_indices is None else list(fixation_indices)
    if len(indices) != len(fixations):
        raise ValueError("one fixation index per fixation is required")
    by_fix: dict[int, list[ReviewRow]] = {}
    unmatched: list[ReviewRow] = []
    for r in corrections.for_video(video_id):
        k = _match(r, fixations, indices)
        if k is None:
            unmatched.append(r)
        else:
            by_fix.setdefault(k, []).append(r)
    result = list(objects)
    for k, rows in sorted(by_fix.items()):
        result[k] = _apply_one(objects[k], rows, unmatched)
    if unmatched:
        first = unmatched[0]
        warnings.warn(f"{len(unmatched)} review row(s) of video {video_id} matched no fixation or object "
                      f"(first: {first.where}, {first.region} {first.object!r}); they were skipped",
                      ReviewWarning, stacklevel=2)
    return result


def _apply_one(o: FixationObjects, rows: list[ReviewRow], unmatched: list[ReviewRow]) -> FixationObjects:
    fix_votes = [r.excluded for r in rows if r.region == "fixation"]
    if fix_votes and 2 * sum(fix_votes) >= len(fix_votes):
        return FixationObjects()
    gazed, fov, out = o.gazed, list(o.fov), list(o.out)
    groups: dict[tuple[str, str], list[ReviewRow]] = {}
    for r in rows:
        if r.region != "fixation":
            groups.setdefault((r.region, r.object), []).append(r)
    removed: set[str] = set()
    renames: dict[str, str] = {}
    new_gazed: str | None = gazed
    for (region, name), rs in groups.items():
        present = {"gazed": [gazed] if gazed else [], "fov": fov, "out": out}
        if region == "gazed" and not name:  # a missing gazed object, added by the annotators
            final = _final(rs)
            if gazed is None and final is not None:
                new_gazed = final
            elif gazed is not None:
                unmatched.extend(rs)
            continue
        if not any(name in names for names in present.values()):
            unmatched.extend(rs)
            continue
        final = _final(rs)
        if final is None:
            removed.add(name)
        elif final != name:
            renames[name] = final
    if gazed is not None:
        new_gazed = None if gazed in removed else renames.get(gazed, gazed)

    def fix(names: list[str]) -> list[str]:
        return [renames.get(n, n) for n in names if n not in removed]

    drop = {new_gazed} if new_gazed else set()
    new_fov = _dedupe(fix(fov), drop)
    new_out = _dedupe(fix(out), drop | set(new_fov))
    return FixationObjects(new_gazed, new_fov, new_out)
