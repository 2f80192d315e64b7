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

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ...dataset import LETTERS, ImportReport, Problem, ProblemSink, dump_metadata, gaze_row, video_row
from ...gaze import DEFAULT_FPS as EGTEA_FPS
from ...util.errors import StreamGazeError, VideoError
from ...util.executors import Workers, as_workers
from . import BENCHMARK, CATEGORIES, GROUP_SIZE, SOURCES
from .release_files import (
    FRAME_NO,
    NarrationEntry,
    VideoNarration,
    find_csvs,
    group_files,
    parse_answer,
    parse_options,
    read_csv,
    rel_path,
    release_narrations,
)
from .schema import validate_row

__all__ = ["import_release", "parse_options", "parse_answer", "SKIP_KINDS", "NOTE_KINDS"]

ROAD = "egogazevqa-release"
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




# ---------------------------------------------------------------------------------------------- import


@dataclass
class _Clip:
    """One referenced clip: its source and what the release has of it."""

    video_id: str
    dataset: str
    narration: VideoNarration | None
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

    def locate(self, clip: _Clip, name: str, entry: NarrationEntry | None) -> tuple[Path | None, bool]:
        """(image file, decoded_from_video)."""
        for cand in (self.release / "frames" / clip.dataset / clip.video_id / name,
                     self.release / entry.image if entry and entry.image and not os.path.isabs(entry.image) else None):
            if cand is not None and cand.is_file() and cand.name == name:
                return cand, False
        if clip.video_file is not None:
            frame = entry.frame if entry and entry.frame >= 0 else None
            if frame is None:
                m = FRAME_NO.search(name)
                frame = int(m.group(1)) if m else None
            if frame is not None:
                return self._decode(clip, name, frame), True
        return None, False

    def _decode(self, clip: _Clip, name: str, frame: int) -> Path | None:
        import cv2

        from ...video import read_frames_at

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
                   changelog: str = "", previews: bool = True, workers: int | Workers = 1) -> ImportReport:
    """Convert the EgoGazeVQA release at ``release_dir`` into a dataset at ``out`` (see the module
    docstring); ``workers``: where the previews are made (processes, or a Ray cluster's tasks). Returns the
    report (its counts are also in the manifest). Raises StreamGazeError when the release has no question CSV at
    all, when nothing can be imported, or in strict mode on the first dropped row or file (nothing is written
    then)."""
    from ...dataset import DatasetContent, check_version, write_dataset

    release = Path(release_dir)
    if not release.is_dir():
        raise StreamGazeError("no such EgoGazeVQA release directory", release)
    check_version(version)
    workers = as_workers(workers)
    workers.check()  # reaches the cluster with --executor ray
    report = ImportReport(imported={c: 0 for c in CATEGORIES}, skip_kinds=dict(SKIP_KINDS),
                          note_kinds=dict(NOTE_KINDS))
    sink = ProblemSink(report, strict, release)
    csvs = find_csvs(release, sink)
    if not csvs:
        raise StreamGazeError("not an EgoGazeVQA release: no {spatial,temporal,causal}_{ego4d,egoexo,egtea}.csv "
                              "found below it", release)
    narrations = release_narrations(release, sink)
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
            label = rel_path(path, release)
            rows = read_csv(path, label, sink)
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
                             progress=progress, benchmark=BENCHMARK, previews=previews, workers=workers)
    report.root, report.version = str(root), version
    return report


def _snip(raw: dict) -> str:
    from ...dataset import snippet

    return snippet(raw.get("Question", raw.get("question")))


def _clip(ds: str, video_id: str, release: Path, narrations, clips) -> _Clip:
    key = (ds, video_id)
    if key not in clips:
        from ...video import probe_video

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
    names = group_files(raw.get("group_id"))
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
        m = FRAME_NO.search(name)
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
    return {rel_path(p, release): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}
