"""``streamgaze import egogazevqa``: the official EgoGazeVQA release -> our versioned dataset.

Release layout read (shared/reference/peers_and_formats.md A1; the official repository's generator
outputs), under RELEASE_DIR:

* **question CSVs** ``{spatial,temporal,causal}_{ego4d,egoexo,egtea}.csv``, anywhere below the
  release (``qa_pairs/``, ``qa/``, ``reasoning/`` or the top level; one file per name; symlinked
  directories are followed), columns ``video_id``,
  ``group_id`` (the keyframe file names of the question, newline-separated), ``Question``,
  ``Answer Options`` (newline-separated ``A: ...`` to ``E: ...``; ``A.``/``A)``/``(A)`` labels are read
  too, and a line without a label continues the option above) and ``Correct Answer`` (a letter;
  "C.", "C: text" and "**C**" are read as C and noted);
* **narration/gaze JSON** ``narrations/{ego4d,egoexo,egtea}.json``: ``{video_id: {"narrations": [
  {timestamp_sec, timestamp_frame, description | narration_text, gaze_info: {gaze_x, gaze_y[,
  confidence]}, image_path[, scenario, activity, take_name]}]}}``; the Ego4D flavour nests the list
  under ``narration_pass_1``. Gaze is normalised, origin top-left. ``scenario`` / ``activity`` may
  also sit at the video level;
* **keyframes**: ``frames/<dataset>/<video_id>/<file>`` for each file of ``group_id``, else the
  narration entry's ``image_path`` (relative to the release), else, when the clip
  ``videos/<dataset>/<video_id>.mp4`` is there, the frame is decoded from it (frame number from the
  narration entry, else from the file name's trailing digits).

A keyframe's narration entry is the one whose ``image_path`` has the keyframe's file name, else the
one whose ``timestamp_frame`` is the number in that name. Its gaze is untracked when the release says
so, and only then (docs/datasets.md, "Validity: one rule"): a coordinate missing or not finite, the
``-1, -1`` marker, a ``confidence`` (when given) of zero, or ``gaze_type`` (EGTEA) ``untracked``. The
release marks untracked gaze ``gaze_x: -1, gaze_y: -1, confidence: 0.0`` (Ego4D narrations) or ``0, 0``
with ``gaze_type: untracked`` (EGTEA's event code 0, as its ``gaze_io_sample.py`` names it). A point
outside the frame is a position on whichever side it falls (the Ego4D keyframes at ``y = -0.02`` with
confidence 1.0, like those at ``x = 1.1``): valid, off the frame. An untracked point is
invalid in every output (keyframe gaze, the ``gaze`` config; so no GazeV mark, no GazeS peak, and
GazeT says so). The release's own values stay in the metadata (``release_gaze``) for the
reference-mode GazeT text. A keyframe's time is the entry's ``timestamp_sec``; without one (EGTEA
narrations give frame numbers only) it is the frame's time in the clip when the clip is there, else
``frame / 24`` for EGTEA (its videos' rate, ``gaze.sources.egtea.DEFAULT_FPS``); a question with a
keyframe time that cannot be known is imported and counted in the report (``time_unknown``).

Every row the official scorer scores is kept (``test_tool/caculate.py`` divides by the rows of each
category CSV): rows with the same question text but other options or answer are distinct questions
(their ids then include the options and answer), and a row repeated exactly is kept, flagged in its
metadata (``duplicate_of``) and counted (``duplicate_row``), so the release's denominators stay.

Output: the configs ``spatial``, ``temporal``, ``causal`` (rows of ``schema.QA_FEATURES``: source,
scenario and activity where known — EGTEA Gaze+ is all cooking in a kitchen: "Kitchen"/"Cooking" —
and the nine keyframes with their gaze), ``videos`` (one row per clip) and ``gaze`` (every narration
sample of the imported clips), with the keyframes under ``frames/<source>/<video_id>/``. Same rules
as the StreamGaze importer: a :class:`ImportReport`, unusable rows reported (never silently lost),
``strict`` failing on the first one before anything is written, and a manifest that records the
sha256 of every CSV and JSON input.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from ...dataset.import_report import ImportReport, Problem, ProblemSink
from ...dataset.rows import gaze_row, video_row
from ...dataset.schema import LETTERS, dump_metadata
from ...gaze.sources.egtea import DEFAULT_FPS as EGTEA_FPS
from ...util.errors import StreamGazeError, VideoError
from . import BENCHMARK, CATEGORIES, GROUP_SIZE, OPTION_COUNT, SOURCES
from .schema import validate_row

__all__ = ["import_release", "parse_options", "parse_answer", "SKIP_KINDS", "NOTE_KINDS"]

ROAD = "egogazevqa-release"
COLUMNS = ("video_id", "group_id", "Question", "Answer Options", "Correct Answer")
SKIP_KINDS: dict[str, str] = {
    "malformed_csv": "question CSV unreadable or without the five columns",
    "malformed_json": "narration JSON unreadable or not {video_id: {narrations: [...]}}",
    "empty_question": "empty question text",
    "bad_options": "answer options not five labelled lines A-E",
    "bad_answer": "correct answer not a letter A-E",
    "empty_group": "no keyframe file names in group_id",
    "missing_frame": "keyframe image not found (and no clip to decode it from)",
    "duplicate_file": "several question CSVs with the same name (the first one is used)",
    "invalid_row": "other validation failure",
}
NOTE_KINDS: dict[str, str] = {
    "missing_category_file": "question CSV absent",
    "missing_narrations": "narration JSON absent: keyframes imported without gaze and times",
    "answer_normalised": "correct answer given with extra text (its letter is used)",
    "frame_without_gaze": "keyframe without a narration entry or gaze (imported with gaze unknown)",
    "gaze_untracked": "keyframe gaze marked untracked (the -1, -1 marker, zero confidence or EGTEA type "
                      "untracked): invalid",
    "time_unknown": "question with a keyframe time that cannot be known (imported with NaN times)",
    "duplicate_row": "row repeated exactly in its CSV (kept, as the official scorer counts it; flagged)",
    "group_size": f"frame group not of {GROUP_SIZE} keyframes (imported as it is)",
    "frame_from_video": "keyframe decoded from the clip (no image file)",
}
EGTEA_CONTEXT = {"scenario": "Kitchen", "activity": "Cooking"}
_LABEL = re.compile(r"^\s*(?:\(([A-Z])\)|([A-Z])\s*[:.)])\s*(.*)$")
_ANSWER = re.compile(r"^\s*[*_`\"'(\[]*([A-Za-z])(?![A-Za-z])")
_FRAME_NO = re.compile(r"(\d+)(?=\.[A-Za-z0-9]+$)")


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


def _group_files(cell: str) -> list[str]:
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
class _Entry:
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
class _VideoNarration:
    entries: list[_Entry] = field(default_factory=list)  # in time order
    scenario: str = ""
    activity: str = ""
    in_file: list[_Entry] = field(default_factory=list)  # in the file's order

    def find(self, name: str) -> _Entry | None:
        """The keyframe's entry: the first in the file whose ``image_path`` has that name, else whose
        ``timestamp_frame`` is the name's number (the official ``test_gaze.py`` lookup, first match;
        the Ego4D narrations have several entries on some frames)."""
        for e in self.in_file:
            if e.image and Path(e.image.replace("\\", "/")).name == name:
                return e
        m = _FRAME_NO.search(name)
        if m:
            for e in self.in_file:
                if e.frame == int(m.group(1)):
                    return e
        return None


def _entry(raw: dict, video: dict) -> _Entry:
    gaze = raw.get("gaze_info") if isinstance(raw.get("gaze_info"), dict) else {}
    frame = raw.get("timestamp_frame")
    return _Entry(
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


def read_narrations(path: Path) -> dict[str, _VideoNarration]:
    """One narration JSON -> per video its entries in time order (ValueError on a bad file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("top level is not an object {video_id: ...}")
    out: dict[str, _VideoNarration] = {}
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
        out[str(vid)] = _VideoNarration(entries, scen, act, in_file)
    return out


# ---------------------------------------------------------------------------------------------- import


@dataclass
class _Clip:
    """One referenced clip: its source and what the release has of it."""

    video_id: str
    dataset: str
    narration: _VideoNarration | None
    video_file: Path | None
    info: object = None  # VideoInfo when the clip is there

    def time_of(self, seconds: float, frame: int) -> tuple[float, str]:
        """(time in seconds, "" or why it cannot be known) of a narration entry or keyframe:
        ``timestamp_sec`` when given, else the frame's time in the clip, else (EGTEA) frame / 24."""
        if math.isfinite(seconds):
            return seconds, ""
        if frame < 0:
            return math.nan, "no timestamp_sec and no frame number"
        if self.info is not None:
            info = self.info
            if frame < info.n_frames:
                return float(info.frame_times[frame]), ""
            return frame / float(info.fps), ""
        if self.dataset == "egtea":
            return frame / EGTEA_FPS, ""
        return math.nan, f"no timestamp_sec, and the frame rate of {self.dataset} clips is unknown without the clip"


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


def _find_csvs(release: Path, sink) -> dict[tuple[str, str], Path]:
    found: dict[tuple[str, str], Path] = {}
    below = _walk_csvs(release)
    for cat in CATEGORIES:
        for ds in SOURCES:
            name = f"{cat}_{ds}.csv"
            paths = sorted(below.get(name, []), key=lambda p: _rel(p, release))
            if not paths:
                sink(Problem("missing_category_file", name))
                continue
            for extra in paths[1:]:
                sink(Problem("duplicate_file", _rel(extra, release), detail=f"also {_rel(paths[0], release)}"))
            found[(cat, ds)] = paths[0]
    return found


def _rel(p: Path, base: Path) -> str:
    return p.relative_to(base).as_posix()


def _read_csv(path: Path, label: str, sink) -> list[dict] | None:
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


def _narrations(release: Path, sink) -> dict[str, dict[str, _VideoNarration]]:
    out: dict[str, dict[str, _VideoNarration]] = {}
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


def _question_id(cat: str, ds: str, video_id: str, files: list[str], question: str,
                 content: tuple[list[str], str] | None = None) -> str:
    """Stable id of a question: its category, source, video, keyframes and text; ``content`` (options,
    answer) joins the key only to tell apart rows that share all of these but are other questions."""
    parts: list = [cat, ds, video_id, files, question]
    if content is not None:
        parts += [content[0], content[1]]
    key = json.dumps(parts, ensure_ascii=False)
    return f"egogazevqa-{cat}-{SOURCES[ds]}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _assign_ids(rows: list[dict], sink) -> None:
    """Final question ids of one category's rows, every row kept (the official scorer's denominator):
    rows sharing the base id but not their options and answer get ids that include them; an exact
    repeat of a row gets the first one's id with ``-dup<n>``, ``duplicate_of`` in its metadata and a
    ``duplicate_row`` note."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["question_id"], []).append(row)
    for group in groups.values():
        if len({(tuple(r["options"]), r["answer"]) for r in group}) > 1:
            for r in group:
                meta = json.loads(r["metadata"])
                ds = next(k for k, v in SOURCES.items() if v == r["source"])
                r["question_id"] = _question_id(r["task"], ds, r["video_id"], meta["group_id"], r["question"],
                                                (r["options"], r["answer"]))
    first: dict[str, dict] = {}
    repeats: dict[str, int] = {}
    for row in rows:
        qid = row["question_id"]
        if qid not in first:
            first[qid] = row
            continue
        repeats[qid] = repeats.get(qid, 0) + 1
        meta = json.loads(row["metadata"])
        orig = json.loads(first[qid]["metadata"])
        meta["duplicate_of"] = qid
        row["question_id"], row["metadata"] = f"{qid}-dup{repeats[qid]}", dump_metadata(meta)
        sink(Problem("duplicate_row", meta["release_file"], entry=meta["release_row"], question=_snip(row),
                     detail=f"same as entry {orig['release_row']} (kept: the official scorer counts both)"))


class _Frames:
    """Locates keyframe images (or decodes them from clips into ``tmp``) and their sizes."""

    def __init__(self, release: Path, tmp: Path):
        self.release, self.tmp = release, tmp
        self.sizes: dict[Path, tuple[int, int]] = {}

    def locate(self, clip: _Clip, name: str, entry: _Entry | None) -> tuple[Path | None, bool]:
        """(image file, decoded_from_video)."""
        for cand in (self.release / "frames" / clip.dataset / clip.video_id / name,
                     self.release / entry.image if entry and entry.image and not os.path.isabs(entry.image) else None):
            if cand is not None and cand.is_file() and cand.name == name:
                return cand, False
        if clip.video_file is not None:
            frame = entry.frame if entry and entry.frame >= 0 else None
            if frame is None:
                m = _FRAME_NO.search(name)
                frame = int(m.group(1)) if m else None
            if frame is not None:
                return self._decode(clip, name, frame), True
        return None, False

    def _decode(self, clip: _Clip, name: str, frame: int) -> Path | None:
        import cv2

        from ...video.frame_reader import read_frames_at

        out = self.tmp / "frames" / clip.dataset / clip.video_id / (Path(name).stem + ".png")
        if out.is_file():
            return out
        info = clip.info
        if info is None or not 0 <= frame < info.n_frames:
            return None
        try:
            (_, image), = read_frames_at(clip.video_file, [float(info.frame_times[frame])])
        except VideoError:
            return None
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out), image)
        return out

    def size(self, path: Path) -> tuple[int, int]:
        if path not in self.sizes:
            from PIL import Image

            with Image.open(path) as im:
                self.sizes[path] = im.size
        return self.sizes[path]


def import_release(release_dir: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *,
                   strict: bool = False, force: bool = False, progress: bool = True,
                   changelog: str = "", previews: bool = True) -> ImportReport:
    """Convert the EgoGazeVQA release at ``release_dir`` into a dataset at ``out`` (see the module
    docstring). Returns the report (its counts are also in the manifest). Raises StreamGazeError
    when the release has no question CSV at all, when nothing can be imported, or in strict mode on
    the first dropped row or file (nothing is written then)."""
    from ...dataset.writer import DatasetContent, check_version, write_dataset

    release = Path(release_dir)
    if not release.is_dir():
        raise StreamGazeError("no such EgoGazeVQA release directory", release)
    check_version(version)
    report = ImportReport(imported={c: 0 for c in CATEGORIES}, skip_kinds=dict(SKIP_KINDS),
                          note_kinds=dict(NOTE_KINDS))
    sink = ProblemSink(report, strict, release)
    csvs = _find_csvs(release, sink)
    if not csvs:
        raise StreamGazeError("not an EgoGazeVQA release: no {spatial,temporal,causal}_{ego4d,egoexo,egtea}.csv "
                              "found below it", release)
    narrations = _narrations(release, sink)
    out = Path(out)
    tmp_parent = out.parent if out.parent.is_dir() else None
    with tempfile.TemporaryDirectory(prefix=".egogazevqa-release-", dir=tmp_parent) as tmp:
        frames = _Frames(release, Path(tmp))
        clips: dict[tuple[str, str], _Clip] = {}
        qa: dict[str, list[dict]] = {c: [] for c in CATEGORIES}
        files: dict[str, Path] = {}
        used: dict[str, _Clip] = {}
        for (cat, ds), path in tqdm(sorted(csvs.items(), key=lambda kv: (CATEGORIES.index(kv[0][0]), kv[0][1])),
                                    desc="egogazevqa csv", unit="file", disable=not progress, leave=False):
            label = _rel(path, release)
            rows = _read_csv(path, label, sink)
            for i, raw in enumerate(rows or []):
                row = _question_row(cat, ds, raw, i, label, release, narrations, clips, frames, files, sink)
                if row is None:
                    continue
                problems = validate_row(row)
                if problems:
                    sink(Problem("invalid_row", label, entry=i, question=_snip(raw), detail="; ".join(problems)))
                    continue
                qa[cat].append(row)
                used[row["video_id"]] = clips[(ds, row["video_id"])]
        for rows in qa.values():
            _assign_ids(rows, sink)
        report.imported = {c: len(qa[c]) for c in CATEGORIES}
        if not report.total_imported:
            raise StreamGazeError(f"no question could be imported\n{report.format()}", release)
        videos, gaze = _video_rows(used, qa, files)
        report.videos = len(videos)
        keep = {r["video_path"] for r in videos if r["video_path"]}
        keep |= {f["path"] for rows in qa.values() for r in rows for f in r["frames"]}
        content = DatasetContent(qa=qa, videos=videos, gaze=gaze, fixations=[],
                                 files={k: v for k, v in files.items() if k in keep})
        build_info = {"road": ROAD, "release_dir": release.resolve().name, "options": {"strict": strict},
                      "inputs": _input_hashes(release, csvs), "report": report.counts()}
        entry = changelog or f"Imported from the official EgoGazeVQA release ({release.resolve().name})."
        root = write_dataset(out, content, version, build_info, force=force, changelog=entry,
                             progress=progress, benchmark=BENCHMARK, previews=previews)
    report.root, report.version = str(root), version
    return report


def _snip(raw: dict) -> str:
    from ...dataset.import_report import snippet

    return snippet(raw.get("Question", raw.get("question")))


def _clip(ds: str, video_id: str, release: Path, narrations, clips) -> _Clip:
    key = (ds, video_id)
    if key not in clips:
        from ...video.frame_reader import probe_video

        video = release / "videos" / ds / f"{video_id}.mp4"
        info = None
        if video.is_file():
            try:
                info = probe_video(video)
            except VideoError:
                video, info = None, None
        clips[key] = _Clip(video_id, ds, narrations.get(ds, {}).get(video_id),
                           video if info is not None else None, info)
    return clips[key]


def _question_row(cat, ds, raw, i, label, release, narrations, clips, frames: _Frames, files, sink) -> dict | None:
    snip = _snip(raw)

    def problem(kind: str, detail: str = "") -> None:
        sink(Problem(kind, label, entry=i, question=snip, detail=detail))

    video_id = str(raw.get("video_id") or "").strip()
    question = str(raw.get("Question") or "").strip()
    if not question or not video_id:
        problem("empty_question", "" if video_id else "empty video_id")
        return None
    options = parse_options(raw.get("Answer Options"))
    if options is None:
        problem("bad_options", f"{raw.get('Answer Options')!r:.120}")
        return None
    answer, exact = parse_answer(raw.get("Correct Answer"))
    if answer is None:
        problem("bad_answer", f"{raw.get('Correct Answer')!r}")
        return None
    if not exact:
        problem("answer_normalised", f"{raw.get('Correct Answer')!r} read as {answer}")
    names = _group_files(raw.get("group_id"))
    if not names:
        problem("empty_group")
        return None
    if len(names) != GROUP_SIZE:
        problem("group_size", f"{len(names)} keyframes")
    clip = _clip(ds, video_id, release, narrations, clips)
    source = SOURCES[ds]
    rows_frames = []
    size = None
    unknown_time = ""
    for name in names:
        entry = clip.narration.find(name) if clip.narration else None
        path, decoded = frames.locate(clip, name, entry)
        if path is None:
            problem("missing_frame", f"{ds}/{video_id}/{name}")
            return None
        if decoded:
            problem("frame_from_video", f"{ds}/{video_id}/{name}")
        valid = bool(entry and entry.gaze_valid)
        if entry is not None and entry.gaze_untracked:
            problem("gaze_untracked", f"{ds}/{video_id}/{name}: gaze ({entry.raw_gaze[0]}, {entry.raw_gaze[1]})"
                    + (f", confidence {entry.confidence}" if math.isfinite(entry.confidence) else "")
                    + (f", type {entry.gaze_type}" if entry.gaze_type else ""))
        elif not valid:
            problem("frame_without_gaze", f"{ds}/{video_id}/{name}")
        rel = f"frames/{source}/{video_id}/{path.name}"
        files[rel] = path
        size = size or frames.size(path)
        m = _FRAME_NO.search(name)
        frame = entry.frame if entry and entry.frame >= 0 else (int(m.group(1)) if m else -1)
        if entry is None:
            time, why = math.nan, "no narration entry"
        else:
            time, why = clip.time_of(entry.time, frame)
        if why and not unknown_time:
            unknown_time = f"{name}: {why}"
        rows_frames.append({
            "path": rel, "frame": frame, "time": time,
            "gaze_x": entry.x if valid else math.nan, "gaze_y": entry.y if valid else math.nan,
            "gaze_valid": valid, "caption": entry.caption if entry else ""})
    if unknown_time:
        problem("time_unknown", f"{ds}/{video_id}/{unknown_time}")
    times = [f["time"] for f in rows_frames if math.isfinite(f["time"])]
    context = dict(EGTEA_CONTEXT) if ds == "egtea" else {}
    if clip.narration:
        context = {"scenario": clip.narration.scenario or context.get("scenario", ""),
                   "activity": clip.narration.activity or context.get("activity", "")}
    found = [clip.narration.find(n) if clip.narration else None for n in names]
    extras = {"release_file": label, "release_row": i, "group_id": names,
              "confidence": [e.confidence if e and math.isfinite(e.confidence) else None for e in found],
              "release_gaze": [e.raw_gaze if e else None for e in found]}
    return {
        "question_id": _question_id(cat, ds, video_id, names, question), "task": cat, "category": cat,
        "video_id": video_id, "source": source, "scenario": context.get("scenario", ""),
        "activity": context.get("activity", ""),
        "video_path": f"videos/original/{video_id}.mp4" if clip.video_file is not None else "",
        "question": question, "options": options, "answer": answer,
        "answer_text": options[LETTERS.index(answer)], "frames": rows_frames,
        "window_start": min(times) if times else math.nan, "window_end": max(times) if times else math.nan,
        "width": int(size[0]), "height": int(size[1]), "metadata": dump_metadata(extras),
    }


def _video_rows(used: dict[str, _Clip], qa, files: dict[str, Path]) -> tuple[list, list]:
    """``videos`` rows (probe of the clip when present, else the keyframes' size and the last
    narration time as the known duration) and ``gaze`` rows (every narration sample with a time;
    coordinates NaN where the gaze is invalid)."""
    first_frame = {}
    for rows in qa.values():
        for r in rows:
            first_frame.setdefault(r["video_id"], (r["width"], r["height"]))
    videos, gaze = [], []
    for vid in sorted(used):
        clip = used[vid]
        entries = clip.narration.entries if clip.narration else []
        times = [clip.time_of(e.time, e.frame)[0] for e in entries]
        known = [t for t in times if math.isfinite(t)]
        if clip.info is not None:
            info = clip.info
            rel = f"videos/original/{vid}.mp4"
            files[rel] = clip.video_file
            videos.append(video_row(vid, SOURCES[clip.dataset], info, video_path=rel))
        else:
            w, h = first_frame[vid]
            videos.append(video_row(vid, SOURCES[clip.dataset], fps=math.nan, width=w, height=h, n_frames=0,
                                    duration=max(known) if known else 0.0))
        for e, t in zip(entries, times):
            if math.isfinite(t):
                ok = e.gaze_valid
                gaze.append(gaze_row(vid, t, e.x if ok else math.nan, e.y if ok else math.nan, ok))
    return videos, gaze


def _input_hashes(release: Path, csvs: dict) -> dict[str, str]:
    """sha256 of every question CSV and narration JSON (images and clips are hashed in the manifest)."""
    paths = list(csvs.values()) + sorted((release / "narrations").glob("*.json")) if (release / "narrations").is_dir() \
        else list(csvs.values())
    return {_rel(p, release): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}
