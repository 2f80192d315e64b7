"""``streamgaze import streameqa``: the official StreamEQA annotations + HD-EPIC videos -> our
versioned dataset.

Release layout read (shared/reference/peers_and_formats.md A5; the official repository's
``data/annotations/``), under RELEASE_DIR:

* **annotation files** ``Perception.json``, ``Interaction.json``, ``Planning_all.json`` anywhere below
  the release (one file per name; ``data/annotations/`` in the official repository): a JSON list of flat
  items ``{id, video, realtime, question, options, gt, task}``. ``realtime`` is the query time, seconds
  (a number or a numeric string) or ``HH:MM:SS`` / ``MM:SS`` (read as the official code does); ``options`` are four
  strings, each optionally prefixed "A." / "A)" / "A:" (the letters must then be A-D in order: the
  prefixes are stripped); ``gt`` is the 0-based index of the correct option (0-3; a digit string is
  read too); ``task`` is the sub-task code (``__init__.SUBTASKS``; its full name is read too), which must
  belong to the file's level.
* **videos** (HD-EPIC) at ``{videos}/{Pxx}/{video_id}.mp4`` (``Pxx`` = the id's part before the first
  "-"), else ``{videos}/{video_id}.mp4``; ``videos`` defaults to ``RELEASE_DIR/videos``.
* **gaze** (optional, ``gaze_dir``): HD-EPIC's Aria MPS eye gaze, read by
  :mod:`streamgaze_hf.gaze.sources.aria_mps` (``{gaze_dir}/{video_id}/general_eye_gaze.csv`` with its
  ``calibration.json``). With it the dataset gets a ``gaze`` config and gaze-overlay videos: the
  *extension* variants (not part of the published benchmark).

Window: ``[max(0, t - context_s), t]`` (``context_s`` 64 by default, the official ``context_time``),
its end clamped at the video's end (noted). Windows the official code skips as 1 s or shorter
(its whole-second test ``int(t) - int(start) <= 1``, i.e. t < 2 s with the 64 s context) are **kept**
and noted (``short_window``): the model gets the frames of that window (at least the first frame of
the video; see docs/streameqa.md).

Output: configs ``perception``, ``interaction``, ``planning`` (``schema.QA_FEATURES``), ``videos`` (one
row per HD-EPIC video, the file linked, not re-encoded) and ``gaze``. A :class:`ImportReport` counts
what was skipped (never silently) and noted; ``strict`` fails on the first skipped item, naming the
file and the item, before anything is written. The manifest records the sha256 of every annotation
file and the context.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from pathlib import Path

from tqdm import tqdm

from ...dataset import (
    LETTERS,
    ImportReport,
    Problem,
    ProblemSink,
    dump_metadata,
    gaze_rows,
    snippet,
    video_row,
)
from ...util.errors import StreamGazeError, VideoError
from ...util.executors import Workers, as_workers
from . import (
    BENCHMARK,
    CONTEXT_S,
    LEVELS,
    NAME,
    OPTION_COUNT,
    RELEASE_FILES,
    SOURCE,
    SUBTASK_BY_CODE,
    SUBTASKS,
    SubTask,
)
from .schema import is_short, validate_row, window

__all__ = ["import_release", "parse_realtime", "parse_options", "parse_gt", "SKIP_KINDS", "NOTE_KINDS"]

ROAD = "streameqa-release"
FIELDS = ("id", "video", "realtime", "question", "options", "gt", "task")
SKIP_KINDS: dict[str, str] = {
    "malformed_json": "annotation file unreadable or not a JSON list of items",
    "malformed_item": "item not an object, or a field missing",
    "empty_question": "empty question text or video id",
    "bad_options": f"options not a list of {OPTION_COUNT} texts (prefixes, if any, A.-D. in order)",
    "bad_answer": f"gt not an option index 0-{OPTION_COUNT - 1}",
    "bad_realtime": "realtime not seconds or HH:MM:SS",
    "unknown_task": "task code not among the 42 sub-tasks",
    "wrong_level": "task code of another level than its file",
    "missing_video": "HD-EPIC video not found",
    "unreadable_video": "video cannot be read",
    "duplicate_file": "several annotation files with the same name (the first one is used)",
    "invalid_row": "other validation failure",
}
NOTE_KINDS: dict[str, str] = {
    "missing_level_file": "annotation file absent",
    "short_window": "window of 1 s or less by the official whole-second test: kept (the official code skips it)",
    "time_beyond_video": "query time past the video end: window end clamped at the end",
    "options_prefixed": "options given with 'A.'-style prefixes (stripped)",
    "duplicate_id": "id seen before in the same file (kept, question_id suffixed with the item index)",
    "gaze_missing": "no Aria gaze for the video (no overlay / gaze text for its questions)",
}
_PREFIX = re.compile(r"^\s*\(?([A-Z])\s*[.):]\s*(.*)$", re.S)


# ---------------------------------------------------------------------------------------------- parsing


def parse_realtime(value) -> float | None:
    """Seconds of a ``realtime`` value as the official ``parse_timestamp`` reads it: a number, a
    numeric string, or colon-separated parts (``HH:MM:SS``, ``MM:SS``, fractions allowed; each part
    times 60 plus the next); None when it is none of these, negative or not finite."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        t = float(value)
    elif isinstance(value, str) and value.strip():
        try:
            t = 0.0
            for part in value.strip().split(":"):
                t = t * 60.0 + float(part)
        except ValueError:
            return None
    else:
        return None
    return t if math.isfinite(t) and t >= 0 else None


def parse_options(value) -> tuple[list[str] | None, bool]:
    """(option texts, prefixed) of an ``options`` value: four non-empty strings; "A." / "A)" / "A:"
    prefixes are stripped when every option carries its letter (A-D in order); options of which only
    some carry such a label, or labels out of order, are refused: (None, False)."""
    if not isinstance(value, list) or len(value) != OPTION_COUNT or not all(isinstance(o, str) for o in value):
        return None, False
    matches = [_PREFIX.match(o) for o in value]
    if all(m and m.group(1) == LETTERS[i] for i, m in enumerate(matches)):
        options, prefixed = [m.group(2).strip() for m in matches], True
    elif any(m and m.group(1) in LETTERS[:OPTION_COUNT] for m in matches):
        return None, False  # some options labelled, but not A-D in order
    else:
        options, prefixed = [o.strip() for o in value], False
    if any(not o for o in options):
        return None, False
    return options, prefixed


def parse_gt(value) -> int | None:
    """The correct option's 0-based index (an int, or a digit string), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 0 <= value < OPTION_COUNT:
        return value
    return None


def _name_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_BY_NAME = {_name_key(s.name): s for s in SUBTASKS}


def subtask_of(task) -> SubTask | None:
    """The sub-task of a release ``task`` value: its code ("OPB", any case), or its full name as the
    supplement writes it (case, spaces and hyphens ignored: "SpaTial Understanding Forward",
    "Real-time Procedure Optimization")."""
    text = str(task or "").strip()
    return SUBTASK_BY_CODE.get(text.upper()) or _BY_NAME.get(_name_key(text))


def participant(video_id: str) -> str:
    return video_id.split("-", 1)[0]


def find_video(videos: Path, video_id: str) -> Path | None:
    for cand in (videos / participant(video_id) / f"{video_id}.mp4", videos / f"{video_id}.mp4"):
        if cand.is_file():
            return cand
    return None


# ---------------------------------------------------------------------------------------------- import


def _rel(p: Path, base: Path) -> str:
    return p.relative_to(base).as_posix()


def _find_files(release: Path, sink) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for level in LEVELS:
        name = RELEASE_FILES[level]
        paths = sorted(p for p in release.rglob(name) if p.is_file()
                       and not any(part.startswith(".") for part in p.relative_to(release).parts))
        if not paths:
            sink(Problem("missing_level_file", name))
            continue
        for extra in paths[1:]:
            sink(Problem("duplicate_file", _rel(extra, release), detail=f"also {_rel(paths[0], release)}"))
        found[level] = paths[0]
    return found


def _read_items(path: Path, label: str, sink) -> list | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        sink(Problem("malformed_json", label, detail=str(exc)))
        return None
    if isinstance(data, dict):  # tolerate {"data": [...]} / {id: item} wrappers
        data = data.get("data") if isinstance(data.get("data"), list) else list(data.values())
    if not isinstance(data, list):
        sink(Problem("malformed_json", label, detail="top level is not a list of items"))
        return None
    return data


class _Videos:
    """Probes each HD-EPIC video once."""

    def __init__(self, videos: Path):
        self.dir = videos
        self.info: dict[str, tuple[Path, object] | str] = {}

    def get(self, video_id: str) -> tuple[Path, object] | str:
        """(path, VideoInfo), or the skip kind ("missing_video" / "unreadable_video")."""
        if video_id not in self.info:
            from ...video import probe_video

            path = find_video(self.dir, video_id)
            if path is None:
                self.info[video_id] = "missing_video"
            else:
                try:
                    self.info[video_id] = (path, probe_video(path))
                except VideoError:
                    self.info[video_id] = "unreadable_video"
        return self.info[video_id]


def import_release(release_dir: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *,
                   videos_dir: str | os.PathLike[str] | None = None, gaze_dir: str | os.PathLike[str] | None = None,
                   context_s: float = CONTEXT_S, strict: bool = False, force: bool = False, progress: bool = True,
                   changelog: str = "", previews: bool = True, workers: int | Workers = 1) -> ImportReport:
    """Convert the StreamEQA release at ``release_dir`` into a dataset at ``out`` (see the module
    docstring); ``workers``: where the previews are made (processes, or a Ray cluster's tasks). Returns the
    report (its counts are also in the manifest). Raises StreamGazeError when there is no annotation file, when
    nothing can be imported, or in strict mode on the first skipped item or file (nothing is written then)."""
    from ...dataset import DatasetContent, check_destination, write_dataset

    release = Path(release_dir)
    if not release.is_dir():
        raise StreamGazeError("no such StreamEQA release directory", release)
    check_destination(out, version, force)  # before the long work (probes, overlays)
    if not (isinstance(context_s, int | float) and math.isfinite(context_s)):
        raise StreamGazeError(f"context {context_s!r} is not a number of seconds")
    videos = Path(videos_dir) if videos_dir is not None else release / "videos"
    if not videos.is_dir():
        raise StreamGazeError("no HD-EPIC video directory (expected {videos}/{Pxx}/{video_id}.mp4; "
                              "give it with --videos)", videos)
    gaze = Path(gaze_dir) if gaze_dir is not None else None
    if gaze is not None and not gaze.is_dir():
        raise StreamGazeError("no such gaze directory", gaze)
    workers = as_workers(workers)
    workers.check()  # reaches the cluster with --executor ray
    report = ImportReport(imported={lv: 0 for lv in LEVELS}, skip_kinds=dict(SKIP_KINDS),
                           note_kinds=dict(NOTE_KINDS))
    sink = ProblemSink(report, strict, release)
    files = _find_files(release, sink)
    if not files:
        raise StreamGazeError("not a StreamEQA release: none of " + ", ".join(RELEASE_FILES.values())
                              + " found below it", release)
    probe = _Videos(videos)
    qa: dict[str, list[dict]] = {lv: [] for lv in LEVELS}
    for level in tqdm([lv for lv in LEVELS if lv in files], desc="streameqa files", unit="file",
                      disable=not progress, leave=False):
        path = files[level]
        label = _rel(path, release)
        seen: set[str] = set()
        for i, item in enumerate(_read_items(path, label, sink) or []):
            row = _question_row(level, item, i, label, probe, context_s, seen, sink)
            if row is None:
                continue
            problems = validate_row(row, row.pop("_duration"))
            if problems:
                sink(Problem("invalid_row", label, entry=i, question=snippet(row["question"]),
                             detail="; ".join(problems)))
                continue
            seen.add(row["question_id"])
            qa[level].append(row)
    report.imported = {lv: len(qa[lv]) for lv in LEVELS}
    if not report.total_imported:
        raise StreamGazeError(f"no question could be imported\n{report.format()}", release)
    used = sorted({r["video_id"] for rows in qa.values() for r in rows})
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix=".streameqa-release-", dir=out.parent if out.parent.is_dir() else None) \
            as tmp:
        video_rows, gaze_rows, file_map, overlays = _video_rows(used, probe, gaze, sink, progress, Path(tmp))
        for rows in qa.values():
            for r in rows:
                r["overlay_path"] = overlays.get(r["video_id"], "")
        report.videos = len(video_rows)
        content = DatasetContent(qa=qa, videos=video_rows, gaze=gaze_rows, fixations=[], files=file_map)
        build_info = {"road": ROAD, "release_dir": release.resolve().name,
                      "options": {"strict": strict, "context_s": float(context_s), "gaze": gaze is not None},
                      "inputs": {_rel(p, release): hashlib.sha256(p.read_bytes()).hexdigest()
                                 for p in sorted(files.values())},
                      "report": report.counts()}
        entry = changelog or f"Imported from the official StreamEQA release ({release.resolve().name})."
        root = write_dataset(out, content, version, build_info, force=force, changelog=entry,
                             progress=progress, benchmark=BENCHMARK, previews=previews, workers=workers)
    report.root, report.version = str(root), version
    return report


def _question_row(level: str, item, i: int, label: str, probe: _Videos, context_s: float, seen: set[str],
                  sink) -> dict | None:
    snip = snippet(item.get("question")) if isinstance(item, dict) else ""

    def problem(kind: str, detail: str = "") -> None:
        sink(Problem(kind, label, entry=i, question=snip, detail=detail))

    if not isinstance(item, dict):
        problem("malformed_item", f"item is a {type(item).__name__}, not an object")
        return None
    missing = [f for f in FIELDS if f not in item]
    if missing:
        problem("malformed_item", f"missing field(s) {', '.join(missing)}")
        return None
    video_id = str(item["video"] or "").strip()
    if video_id.endswith(".mp4"):
        video_id = video_id[:-4]
    question = str(item["question"] or "").strip()
    if not question or not video_id:
        problem("empty_question", "" if video_id else "empty video id")
        return None
    options, prefixed = parse_options(item["options"])
    if options is None:
        problem("bad_options", f"{item['options']!r:.120}")
        return None
    gt = parse_gt(item["gt"])
    if gt is None:
        problem("bad_answer", f"gt {item['gt']!r}")
        return None
    t = parse_realtime(item["realtime"])
    if t is None:
        problem("bad_realtime", f"realtime {item['realtime']!r}")
        return None
    sub = subtask_of(item["task"])
    if sub is None:
        problem("unknown_task", f"task {item['task']!r}")
        return None
    if sub.level != level:
        problem("wrong_level", f"task {sub.code} is a {sub.level} sub-task")
        return None
    found = probe.get(video_id)
    if isinstance(found, str):
        problem(found, f"{participant(video_id)}/{video_id}.mp4")
        return None
    _path, info = found
    duration = float(info.duration)
    start, end = window(t, float(context_s), duration)
    if t > duration + 1e-6:
        problem("time_beyond_video", f"realtime {t:g} s, video {duration:g} s")
    short = is_short(t, float(context_s))
    if short:
        problem("short_window", f"window [{start:g}, {end:g}] s ({item.get('id')!r})")
    if prefixed:
        problem("options_prefixed")
    release_id = str(item["id"])
    qid = f"{NAME}-{level}-{release_id}"
    if qid in seen:
        problem("duplicate_id", f"id {release_id!r}")
        qid = f"{qid}-{i}"
    meta = {"release_file": label, "release_item": i, "raw_options": item["options"],
            "raw_gt": item["gt"], "raw_task": item["task"]}
    return {
        "question_id": qid, "release_id": release_id, "task": level, "category": level, "task_code": sub.code,
        "task_name": sub.name, "direction": sub.direction, "video_id": video_id,
        "participant": participant(video_id), "source": SOURCE, "video_path": f"videos/original/{video_id}.mp4",
        "overlay_path": "", "realtime": str(item["realtime"]), "query_time": t, "context_s": float(context_s),
        "window_start": start, "window_end": end, "short_window": short, "question": question,
        "options": options, "answer": LETTERS[gt], "answer_index": gt, "answer_text": options[gt],
        "metadata": dump_metadata(meta), "_duration": duration,
    }


def _video_rows(used: list[str], probe: _Videos, gaze: Path | None, sink, progress: bool, tmp_dir: Path):
    """``videos`` rows (the files linked as they are), ``gaze`` rows and overlay videos (with
    ``gaze``: the Aria gaze projected into the frames, see gaze/sources/aria_mps.py; rendered into
    ``tmp_dir``)."""
    videos, samples, files, overlays = [], [], {}, {}
    for vid in used:
        path, info = probe.get(vid)
        rel = f"videos/original/{vid}.mp4"
        files[rel] = path
        videos.append(video_row(vid, SOURCE, info, video_path=rel))
    if gaze is None:
        return videos, samples, files, overlays
    from ...gaze import aria_mps, render_overlay

    for row in tqdm(videos, desc="streameqa gaze overlays", unit="video", disable=not progress, leave=False):
        vid = row["video_id"]
        gaze_csv = aria_mps.gaze_file(gaze, vid)
        if gaze_csv is None:
            sink(Problem("gaze_missing", f"{vid}"))
            continue
        track = aria_mps.read_track(gaze_csv, probe.get(vid)[0])
        samples.extend(gaze_rows(vid, track))
        rel = f"videos/overlay/{vid}.mp4"
        tmp = tmp_dir / f"{vid}.mp4"
        render_overlay(probe.get(vid)[0], track, tmp, hfov_deg=track.hfov_deg, progress=False)
        files[rel] = tmp
        overlays[vid] = rel
        row["overlay_path"] = rel
        row["hfov_deg"] = float(track.hfov_deg) if track.hfov_deg else math.nan
    return videos, samples, files, overlays
