"""``streamgaze import-release``: the official StreamGaze release → our versioned dataset.

Input layout (reference §1.1): ``qa/<ten task files>.json``, ``metadata/*.csv`` (optional) and
``videos/`` with the six tarballs ``videos_<source>_{original,viz}.tar.gz`` or their extracted folders.

What is kept, exactly: every official question text, option text (only the ``"A. "`` label is
stripped) and answer letter; proactive ``test_info`` becomes checkpoints ({time, "Yes"/"No"}); every
other official field goes into the ``metadata`` JSON (``time_stamp`` strings, ``response_time``,
``video_categories``, ``test_info``, ...) together with ``release_file``/``release_entry``/
``release_question``. Files map to tasks by name; OTP and GSM are told apart by question text
(reference §1.2). Bad rows are skipped and counted in an :class:`ImportReport`, or, with
``strict=True``, the first one raises :class:`StreamGazeError` before anything is written.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from ..errors import StreamGazeError, VideoError
from ..qa.validate import validate_qa_row
from ..tasks import TASKS, get_task, task_for_release_file, window
from ..video.proxy import ProxySpec
from ..video.reader import VideoInfo, probe_video
from .release_metadata import read_metadata_dir
from .release_parse import ReleaseQuestion, load_qa_file, normalise_source, parse_qa_entries
from .release_report import SKIP_KINDS, ImportReport, Problem
from .release_videos import ORIGINAL, OVERLAY, LocatedVideo, VideoLookup, locate_videos
from .schema import LETTERS, dump_metadata, empty_qa_row

__all__ = ["ImportReport", "Problem", "import_release", "read_release_questions"]

ROAD = "official-release"
_TOL = 1e-6
Sink = Callable[[Problem], None]


@dataclass
class _Video:
    """A referenced video once resolved: its file name, both files, probe and source."""

    name: str
    original: LocatedVideo
    overlay: LocatedVideo
    info: VideoInfo
    source: str

    @property
    def video_id(self) -> str:
        return Path(self.name).stem


class _Sink:
    """Routes problems into the report, or raises the first dropping one in strict mode."""

    def __init__(self, report: ImportReport, strict: bool, base: Path):
        self.report, self.strict, self.base = report, strict, base

    def __call__(self, problem: Problem) -> None:
        if self.strict and problem.kind in SKIP_KINDS:
            raise problem.error(self.base)
        self.report.add(problem)


def import_release(release_dir: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *,
                   strict: bool = False, force: bool = False, progress: bool = True,
                   changelog: str = "", reencode: bool = False, proxy: ProxySpec | None = None) -> ImportReport:
    """Convert the release at ``release_dir`` into a dataset at ``out`` (version ``version``).

    ``reencode``: store the videos re-encoded like ``streamgaze build`` does (no B-frames, a keyframe
    at every window start), so every evaluation clip is a fast packet copy; without it the release's
    files are stored as they are and clips whose window does not start on a keyframe (or any clip of
    a video with B-frames) are smart cuts (whole GOPs copied, the partial GOPs at the window's ends
    re-encoded: video/smartcut.py). ``proxy``: also store a proxy of every video (video/proxy.py).

    Returns the report (also stored, as counts, in the manifest's build_info). Raises
    StreamGazeError if ``release_dir`` has no ``qa/`` directory, or in strict mode on the first
    bad row / file (nothing is written then).
    """
    from .writer import DatasetContent, write_dataset

    release = Path(release_dir)
    if not (release / "qa").is_dir():
        raise StreamGazeError("not a StreamGaze release: no qa/ directory", release)
    report = ImportReport()
    sink = _Sink(report, strict, release)
    questions = read_release_questions(release / "qa", sink, progress)
    fixations, meta_problems = read_metadata_dir(release / "metadata")
    for p in meta_problems:
        sink(p)
    out = Path(out)
    tmp_parent = out.parent if out.parent.is_dir() else None
    with tempfile.TemporaryDirectory(prefix=".streamgaze-release-", dir=tmp_parent) as tmp:
        lookup = locate_videos(release / "videos", {q.video_file for q in questions}, Path(tmp), progress)
        for p in lookup.problems:
            sink(p)
        videos = _resolve_videos(questions, lookup, sink, progress)
        qa, used = _build_rows(questions, videos, sink)
        fixations = _fixations_of(fixations, {v.video_id for v in used}, sink)
        report.imported = {t: len(rows) for t, rows in qa.items()}
        report.videos, report.fixations = len(used), len(fixations)
        _check_not_empty(report, release)
        files = _dataset_files(used)
        if reencode:
            files = _reencoded(files, qa, used, Path(tmp) / "reencoded", progress)
        if proxy is not None:
            from .proxies import build_proxies

            where = {rel: Path(tmp) / "proxies" / rel for rel in files}
            files = {**files, **build_proxies(files, proxy, where, progress=progress)}
        content = DatasetContent(qa=qa, videos=[_video_row(v) for v in used], gaze=[], fixations=fixations,
                                 files=files)
        name = release.resolve().name
        build_info = {"road": ROAD, "release_dir": name, "options": {"strict": strict, "reencode": reencode},
                      "inputs": _input_hashes(release), "report": report.counts()}
        if proxy is not None:
            build_info["proxy"] = proxy.as_dict()
        entry = changelog or f"Imported from the official release ({name})."
        root = write_dataset(out, content, version, build_info, force=force, changelog=entry,
                             progress=progress)
    report.root, report.version = str(root), version
    return report


def _check_not_empty(report: ImportReport, release: Path) -> None:
    if not report.total_imported:
        raise StreamGazeError(f"no question could be imported\n{report.format()}", release)


def read_release_questions(qa_dir: Path, sink: Sink, progress: bool = False) -> list[ReleaseQuestion]:
    """Parse the ten task files (in task order), reporting unknown/missing/malformed files and entries."""
    questions: list[ReleaseQuestion] = []
    for spec in tqdm(TASKS, desc="release qa", unit="file", disable=not progress, leave=False):
        path = qa_dir / spec.release_file
        label = f"qa/{spec.release_file}"
        if not path.is_file():
            sink(Problem("missing_task_file", label))
            continue
        try:
            data = load_qa_file(path)
        except ValueError as exc:
            sink(Problem("malformed_json", label, detail=str(exc)))
            continue
        parsed, problems = parse_qa_entries(data, label, spec)
        for item in _in_order(parsed, problems):
            if isinstance(item, Problem):
                sink(item)
                continue
            if item.task != spec.id:
                detail = f"question text is {item.task.upper()}, file is {spec.id.upper()}"
                sink(item.problem("otp_gsm_remapped", detail))
            questions.append(item)
    for path in sorted(qa_dir.iterdir()):
        unknown = task_for_release_file(path.name) is None
        if unknown and path.suffix.lower() == ".json" and not path.name.startswith("."):
            sink(Problem("unknown_file", f"qa/{path.name}", detail="not one of the ten release task files"))
    return questions


def _in_order(parsed: list[ReleaseQuestion], problems: list[Problem]) -> list:
    """Questions and problems of one file merged by (entry, question) position."""
    def key(item) -> tuple[int, int]:
        if isinstance(item, Problem):
            return (item.entry if item.entry is not None else -1, item.question_index or 0)
        return (item.entry, item.index)
    return sorted([*parsed, *problems], key=key)


def _resolve_videos(questions: list[ReleaseQuestion], lookup: VideoLookup, sink: Sink,
                    progress: bool) -> dict[str, _Video | Problem]:
    """Per referenced file name: the probed video, or the problem that makes its questions unusable."""
    by_video: dict[str, list[ReleaseQuestion]] = {}
    for q in questions:
        by_video.setdefault(q.video_file, []).append(q)
    out: dict[str, _Video | Problem] = {}
    for name, qs in tqdm(sorted(by_video.items()), desc="probe videos", unit="video", disable=not progress,
                         leave=False):
        out[name] = _resolve_one(name, qs, lookup, sink)
    return out


def fallback_source(questions: list[ReleaseQuestion]) -> str:
    """Source of a video from its questions' ``video_categories``: the most common normalised value,
    ignoring past-task files when others exist (the past generators hard-code "EGTEA")."""
    def from_file_category(q: ReleaseQuestion) -> str:
        spec = task_for_release_file(Path(q.file).name)
        return spec.category if spec else ""

    trusted = [q for q in questions if from_file_category(q) != "past"] or questions
    counts = Counter(s for s in (normalise_source(q.video_categories) for q in trusted) if s)
    return counts.most_common(1)[0][0] if counts else ""


def _resolve_one(name: str, qs: list[ReleaseQuestion], lookup: VideoLookup, sink: Sink) -> _Video | Problem:
    q = qs[0]
    original, overlay = lookup.get(ORIGINAL, name), lookup.get(OVERLAY, name)
    if original is None:
        return Problem("missing_video", q.file, detail=f"{name} not found in videos/ (original)")
    if overlay is None:
        return Problem("missing_overlay", q.file, detail=f"{name} not found in videos/ (gaze overlay)")
    try:
        info = probe_video(original.path)
        probe_video(overlay.path)
    except VideoError as exc:
        return Problem("unreadable_video", q.file, detail=f"{name}: {exc.reason}")
    source = original.source
    if not source:
        source = fallback_source(qs)
        sink(Problem("source_from_categories", original.container,
                     detail=f"{name}: source {source!r} from video_categories"))
    return _Video(original.path.name, original, overlay, info, source)


def _build_rows(questions: list[ReleaseQuestion], videos: dict[str, _Video | Problem],
                sink: Sink) -> tuple[dict[str, list[dict]], list[_Video]]:
    """Checked QA rows per task (file order) and the videos they use (sorted by id)."""
    qa: dict[str, list[dict]] = {spec.id: [] for spec in TASKS}
    seen: set[tuple] = set()
    used: dict[str, _Video] = {}
    for q in questions:
        video = videos[q.video_file]
        if isinstance(video, Problem):
            sink(q.problem(video.kind, video.detail))
            continue
        q = _trim_checkpoints(q, video.info.duration, sink)
        problem, row = _check_and_build(q, video)
        if problem is None:
            key = (row["task"], row["video_id"], row["question"], tuple(row["options"]), row["query_time"])
            if key in seen:
                problem = q.problem("duplicate", "same video, task, question, options, time as a row above")
            seen.add(key)
        if problem is not None:
            sink(problem)
            continue
        qa[row["task"]].append(row)
        used[video.video_id] = video
    return qa, [used[k] for k in sorted(used)]


def _trim_checkpoints(q: ReleaseQuestion, duration: float, sink: Sink) -> ReleaseQuestion:
    """A proactive question without its checkpoints after the video end (noted); others unchanged.

    The reference generator drops checkpoints only past question time + 300 s, not past the video
    end. If no checkpoint is left the question is returned unchanged (and skipped as beyond the video).
    """
    inside = [c for c in q.checkpoints if c["time"] <= duration + _TOL]
    if not q.checkpoints or len(inside) == len(q.checkpoints) or not inside:
        return q
    dropped = ", ".join(f"{c['time']:g}s" for c in q.checkpoints if c not in inside)
    sink(q.problem("checkpoints_beyond_video", f"dropped {dropped} (video ends at {duration:.3f}s)"))
    return replace(q, checkpoints=inside)


def _check_and_build(q: ReleaseQuestion, video: _Video) -> tuple[Problem | None, dict]:
    duration = video.info.duration
    times = [q.query_time] + [c["time"] for c in q.checkpoints]
    if max(times) > duration + _TOL:
        return q.problem("time_beyond_video", f"{max(times):.3f}s > video duration {duration:.3f}s"), {}
    if not get_task(q.task).is_proactive and not _letter_ok(q.answer, len(q.options)):
        return q.problem("answer_not_in_options",
                         f"answer {q.answer!r} with {len(q.options)} options"), {}
    row = question_row(q, video.name, video.source)
    problems = validate_qa_row(row, duration, min_options=2)
    if problems:
        return q.problem("invalid_row", "; ".join(problems)), row
    return None, row


def _letter_ok(answer: str, n_options: int) -> bool:
    """``answer`` is one letter among the first ``n_options`` letters."""
    return len(answer) == 1 and answer in LETTERS[:n_options]


def question_row(q: ReleaseQuestion, file_name: str, source: str) -> dict:
    """The QA_FEATURES row of one official question whose video file is ``file_name``."""
    spec = get_task(q.task)
    if spec.is_proactive:
        start, end = 0.0, max(c["time"] for c in q.checkpoints)
    else:
        start, end = window(spec.id, q.query_time)
    answer_text = q.options[LETTERS.index(q.answer)] if _letter_ok(q.answer, len(q.options)) else ""
    extras = dict(q.extras)
    extras.update({"release_file": Path(q.file).name, "release_entry": q.entry, "release_question": q.index})
    row = empty_qa_row()
    row.update({
        "question_id": q.question_id, "task": spec.id, "category": spec.category,
        "video_id": Path(file_name).stem, "source": source,
        "video_path": f"videos/original/{file_name}", "overlay_path": f"videos/overlay/{file_name}",
        "question": q.question, "options": list(q.options), "answer": q.answer, "answer_text": answer_text,
        "query_time": q.query_time, "window_start": float(start), "window_end": float(end),
        "checkpoints": [dict(c) for c in q.checkpoints], "fixations": [], "metadata": dump_metadata(extras),
    })
    return row


def _fixations_of(rows: list[dict], video_ids: set[str], sink: Sink) -> list[dict]:
    """Fixation rows of the imported videos; a note per other video named in metadata/."""
    left_out: dict[str, int] = {}
    for r in rows:
        if r["video_id"] not in video_ids:
            left_out[r["video_id"]] = left_out.get(r["video_id"], 0) + 1
    for vid, n in sorted(left_out.items()):
        sink(Problem("metadata_video_not_imported", "metadata/", detail=f"{vid}: {n} episode(s)"))
    return [r for r in rows if r["video_id"] in video_ids]


def _video_row(video: _Video) -> dict:
    info = video.info
    return {"video_id": video.video_id, "source": video.source, "video_path": f"videos/original/{video.name}",
            "overlay_path": f"videos/overlay/{video.name}", "fps": float(info.fps), "width": int(info.width),
            "height": int(info.height), "n_frames": int(info.n_frames), "duration": float(info.duration),
            "hfov_deg": math.nan}


def _dataset_files(videos: list[_Video]) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for v in videos:
        files[f"videos/original/{v.name}"] = v.original.path
        files[f"videos/overlay/{v.name}"] = v.overlay.path
    return files


def _reencoded(files: dict[str, Path], qa: dict[str, list[dict]], videos: list[_Video], tmp: Path,
               progress: bool) -> dict[str, Path]:
    """The videos re-encoded with keyframes at their questions' window starts (video/overlay.py)."""
    from ..video.overlay import reencode_video

    starts: dict[str, set[float]] = {}
    for rows in qa.values():
        for r in rows:
            if r["window_start"] > 0:
                starts.setdefault(r["video_path"], set()).add(r["window_start"])
                starts.setdefault(r["overlay_path"], set()).add(r["window_start"])
    out = {}
    for rel, src in tqdm(sorted(files.items()), desc="re-encode", unit="video", disable=not progress, leave=False):
        out[rel] = reencode_video(src, tmp / rel, keyframe_times=sorted(starts.get(rel, ())), progress=False)
    return out


def _input_hashes(release: Path) -> dict[str, str]:
    """sha256 of every qa/*.json and metadata/*.csv (the text inputs; videos are hashed in the manifest)."""
    out = {}
    for sub, pattern in (("qa", "*.json"), ("metadata", "*.csv")):
        d = release / sub
        if d.is_dir():
            for p in sorted(d.glob(pattern)):
                if p.is_file() and not p.name.startswith("."):
                    out[f"{sub}/{p.name}"] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
