"""``streamgaze import streamgaze``: the official StreamGaze release → our versioned dataset.

Input layout (reference §1.1): ``qa/<ten task files>.json``, ``metadata/*.csv`` (optional) and
``videos/`` with the six tarballs ``videos_<source>_{original,viz}.tar.gz`` or their extracted folders
(the ``viz`` ones are optional).

What is kept, exactly: every official question text, option text (only the ``"A. "`` label is
stripped) and answer letter; proactive ``test_info`` becomes checkpoints ({time, "Yes"/"No"}); every
other official field goes into the ``metadata`` JSON (``time_stamp`` strings, ``response_time``,
``video_categories``, ``test_info``, ...) together with ``release_file``/``release_entry``/
``release_question``.

Counting follows the official evaluator so the denominators are the paper's: **the file name decides
the task** (OTP/GSM questions whose text names the other task are noted per file, never moved); every
question the official code would score is imported, changed the way it treats it and flagged
(release_report.FLAG_KINDS); only questions it could not score either are skipped. Videos are told
apart by path (release_videos). Fixation centres in the metadata give the rows real gaze and, where
the release has no overlay video, a rendered one (release_gaze). ``strict=True`` raises on the first
skip or flag before anything is written.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ...dataset import LETTERS, Problem, ProblemSink, dump_metadata, video_row
from ...util.errors import StreamGazeError, VideoError
from ...util.executors import Workers, as_workers
from ...video import ProxySpec, VideoInfo, probe_video
from . import BENCHMARK
from .qa.common import empty_qa_row
from .qa.validate import validate_qa_row
from .release_gaze import (
    fixation_track,
    group_by_video,
    has_centre,
    metadata_aliases,
    normalise_centres,
    window_fixations,
)
from .release_metadata import read_metadata_dir
from .release_parse import ReleaseQuestion, load_qa_file, normalise_source, parse_qa_entries, rows_in_entry
from .release_report import ReleaseImportReport
from .release_videos import (
    ORIGINAL,
    OVERLAY,
    LocatedVideo,
    VideoIds,
    assign_video_ids,
    locate_videos,
    pick_files,
)
from .tasks import TASKS, get_task, task_for_release_file, window

__all__ = ["ReleaseImportReport", "Problem", "import_release", "read_release_questions"]

ROAD = "official-release"
_TOL = 1e-6
Sink = Callable[[Problem], None]


@dataclass
class _Video:
    """A referenced video once resolved: its id, files, probe and source (overlay None: none in the release)."""

    video_id: str
    original: LocatedVideo
    overlay: LocatedVideo | None
    info: VideoInfo
    source: str
    rendered: Path | None = None

    @property
    def video_path(self) -> str:
        return f"videos/original/{self.video_id}{self.original.path.suffix}"

    @property
    def overlay_path(self) -> str:
        if self.overlay is not None:
            return f"videos/overlay/{self.video_id}{self.overlay.path.suffix}"
        return f"videos/overlay/{self.video_id}.mp4" if self.rendered is not None else ""


def import_release(release_dir: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *,
                   strict: bool = False, force: bool = False, progress: bool = True,
                   changelog: str = "", reencode: bool = False, proxy: ProxySpec | None = None,
                   previews: bool = True, workers: int | Workers = 1) -> ReleaseImportReport:
    """Convert the release at ``release_dir`` into a dataset at ``out`` (version ``version``).

    ``reencode``: store the videos re-encoded like ``streamgaze build`` does (no B-frames, a keyframe
    at every window start), so every evaluation clip is a fast packet copy; without it the release's
    files are stored as they are and clips whose window does not start on a keyframe (or any clip of
    a video with B-frames) are smart cuts (whole GOPs copied, the partial GOPs at the window's ends
    re-encoded: video/smartcut.py). ``proxy``: also store a proxy of every video (video/proxy.py).

    Args:
        release_dir: the official release (``qa/``, optional ``metadata/``, ``videos/``).
        out: the dataset directory to write (atomically, at the end).
        version: the dataset version, ``X.Y.Z``.
        strict: stop on the first skipped or flagged row instead of reporting it.
        force: replace a dataset of the same version at ``out``.
        progress: show progress bars.
        changelog: this version's CHANGELOG entry ("" = "Imported from the official release (<name>).").
        reencode: store the videos re-encoded (see above) instead of as they are.
        proxy: also store a proxy of every video (None: none).
        previews: also write the Hub viewer's ``previews`` config.
        workers: where the proxies and previews are made: processes, or a
            :class:`~streamgaze_hf.util.executors.Workers` (a Ray cluster's tasks).

    Returns:
        The import report: what was imported, flagged and skipped per task, the dataset's root, version
        and supported gaze variants (also stored, as counts, in the manifest's build_info).

    Raises:
        StreamGazeError: (nothing is written then) ``release_dir`` is missing or has no ``qa/`` directory,
            a bad destination or version (checked before anything is read), a video path that is ambiguous,
            no question that could be imported, in strict mode the first skipped or flagged row, or content
            the dataset writer refuses.
    """
    from ...dataset import DatasetContent, dataset_destination, variant_support, write_dataset
    from ...util.preflight import existing_dir

    release = existing_dir(release_dir, "release directory")
    dataset_destination(out, version, force)  # before reading anything: a bad --version fails now
    workers = as_workers(workers)
    workers.check()  # reaches the cluster with --executor ray
    if not (release / "qa").is_dir():
        raise StreamGazeError("not a StreamGaze release: no qa/ directory", release)
    report = ReleaseImportReport()
    sink = ProblemSink(report, strict, release)
    questions = read_release_questions(release / "qa", sink, progress, report)
    ids = assign_video_ids({q.video_ref for q in questions}, release / "qa")
    episodes, meta_problems = read_metadata_dir(release / "metadata")
    for p in meta_problems:
        sink(p)
    out = Path(out)
    tmp_parent = out.parent if out.parent.is_dir() else None
    with tempfile.TemporaryDirectory(prefix=".streamgaze-release-", dir=tmp_parent) as tmp:
        videos = _locate(release, questions, ids, Path(tmp), sink, progress)
        gaze = _gaze_by_video(episodes, videos, ids, sink)
        qa, used = _build_rows(questions, ids, videos, gaze, sink, report)
        fixations = _fixations_of(gaze, episodes, {v.video_id for v in used}, ids, sink)
        report.videos, report.fixations = len(used), len(fixations)
        _check_not_empty(report, release)
        _render_overlays(used, qa, gaze, Path(tmp) / "rendered", sink, progress)
        files = _dataset_files(used)
        if reencode:
            files = _reencoded(files, qa, used, Path(tmp) / "reencoded", progress)
        if proxy is not None:
            from ...dataset import build_proxies

            where = {rel: Path(tmp) / "proxies" / rel for rel in files}
            files = {**files, **build_proxies(files, proxy, where, workers, progress=progress)}
        content = DatasetContent(qa=qa, videos=[_video_row(v) for v in used], gaze=[], fixations=fixations,
                                 files=files)
        name = release.resolve().name
        build_info = {"road": ROAD, "release_dir": name, "options": {"strict": strict, "reencode": reencode},
                      "inputs": _input_hashes(release), "report": report.counts()}
        if proxy is not None:
            build_info["proxy"] = proxy.as_dict()
        entry = changelog or f"Imported from the official release ({name})."
        root = write_dataset(out, content, version, build_info, force=force, changelog=entry,
                             progress=progress, benchmark=BENCHMARK, previews=previews, workers=workers)
    report.root, report.version = str(root), version
    report.variants = variant_support(root)
    return report


def _check_not_empty(report: ReleaseImportReport, release: Path) -> None:
    if not report.total_imported:
        raise StreamGazeError(f"no question could be imported\n{report.format()}", release)


def read_release_questions(qa_dir: Path, sink: Sink, progress: bool = False,
                           report: ReleaseImportReport | None = None) -> list[ReleaseQuestion]:
    """Parse the ten task files (in task order), reporting unknown/missing/malformed files and entries,
    OTP/GSM text that names the other task (a note) and exact duplicates (a flag)."""
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
        if report is not None:
            report.rows[spec.id]["in_files"] += sum(rows_in_entry(e) for e in data)
            if spec.checkpointed:
                report.checkpoints[spec.id]["in_files"] += _checkpoints_in(data)
        parsed, problems = parse_qa_entries(data, label, spec)
        seen: dict[str, int] = {}
        for item in _in_order(parsed, problems):
            if isinstance(item, Problem):
                sink(item)
                continue
            if spec.id in ("otp", "gsm") and item.text_task not in (None, spec.id):
                sink(item.problem("task_text_disagrees", f"question text is {item.text_task.upper()}, "
                                                         f"file is {spec.id.upper()} (kept as {spec.id.upper()})"))
            if item.fingerprint in seen:
                item.flag("duplicate", f"same video and question, field for field, as entry {seen[item.fingerprint]}")
            seen.setdefault(item.fingerprint, item.entry)
            if isinstance(sink, ProblemSink):
                sink.flags(item.flags)
            questions.append(item)
    for path in sorted(qa_dir.iterdir()):
        unknown = task_for_release_file(path.name) is None
        if unknown and path.suffix.lower() == ".json" and not path.name.startswith("."):
            sink(Problem("unknown_file", f"qa/{path.name}", detail="not one of the ten release task files"))
    return questions


def _checkpoints_in(data: list) -> int:
    n = 0
    for entry in data:
        for q in (entry.get("questions") if isinstance(entry, dict) else None) or []:
            info = q.get("test_info") if isinstance(q, dict) else None
            n += len(info) if isinstance(info, list) else 0
    return n


def _in_order(parsed: list[ReleaseQuestion], problems: list[Problem]) -> list:
    """Questions and problems of one file merged by (entry, question) position."""
    def key(item) -> tuple[int, int]:
        if isinstance(item, Problem):
            return (item.entry if item.entry is not None else -1, item.question_index or 0)
        return (item.entry, item.index)
    return sorted([*parsed, *problems], key=key)


def fallback_source(questions: list[ReleaseQuestion]) -> str:
    """Source of a video from its questions' ``video_categories``: the most common normalised value,
    ignoring past-task files when others exist (the past generators hard-code "EGTEA")."""
    def from_file_category(q: ReleaseQuestion) -> str:
        spec = task_for_release_file(Path(q.file).name)
        return spec.category if spec else ""

    trusted = [q for q in questions if from_file_category(q) != "past"] or questions
    counts = Counter(s for s in (normalise_source(q.video_categories) for q in trusted) if s)
    return counts.most_common(1)[0][0] if counts else ""


def _locate(release: Path, questions: list[ReleaseQuestion], ids: VideoIds, tmp: Path, sink: Sink,
            progress: bool) -> dict[str, _Video | Problem]:
    """Per video id: the probed video, or the problem that makes its questions unusable."""
    lookup = locate_videos(release / "videos", {q.video_name for q in questions}, tmp, progress)
    for p in lookup.problems:
        sink(p)
    notes: list[Problem] = []
    originals = pick_files(lookup, ORIGINAL, ids, release / "videos", notes)
    overlays = pick_files(lookup, OVERLAY, ids, release / "videos", notes)
    for p in notes:
        sink(p)
    by_video: dict[str, list[ReleaseQuestion]] = {}
    for q in questions:
        by_video.setdefault(ids.of_ref[q.video_ref], []).append(q)
    out: dict[str, _Video | Problem] = {}
    for vid, qs in tqdm(sorted(by_video.items()), desc="probe videos", unit="video", disable=not progress,
                        leave=False):
        out[vid] = _resolve_one(vid, ids.path_of[vid], qs, originals.get(vid), overlays.get(vid), sink)
    return out


def _resolve_one(vid: str, path: str, qs: list[ReleaseQuestion], original: LocatedVideo | None,
                 overlay: LocatedVideo | None, sink: Sink) -> _Video | Problem:
    q = qs[0]
    if original is None:
        return Problem("missing_video", q.file, detail=f"{path} not found in videos/ (original)")
    try:
        info = probe_video(original.path)
        if overlay is not None:
            probe_video(overlay.path)
    except VideoError as exc:
        return Problem("unreadable_video", q.file, detail=f"{path}: {exc.reason}")
    source = original.source
    if not source:
        source = fallback_source(qs)
        sink(Problem("source_from_categories", original.container,
                     detail=f"{path}: source {source!r} from video_categories"))
    return _Video(vid, original, overlay, info, source)


def _gaze_by_video(episodes: list[dict], videos: dict[str, _Video | Problem], ids: VideoIds,
                   sink: Sink) -> dict[str, list[dict]]:
    """Metadata rows per resolved video id (metadata names mapped to our ids), centres normalised."""
    aliases = metadata_aliases(ids.path_of)
    out: dict[str, list[dict]] = {}
    for name, rows in sorted(group_by_video(episodes).items()):
        vid = aliases.get(name)
        video = videos.get(vid) if vid else None
        if not isinstance(video, _Video):
            continue
        rows = [dict(r, video_id=vid) for r in rows]
        rows, pixels = normalise_centres(rows, video.info.width, video.info.height)
        if pixels:
            sink(Problem("fixation_centres_in_pixels", "metadata/", detail=(
                f"{name}: centres divided by the frame size {video.info.width}x{video.info.height}")))
        out.setdefault(vid, []).extend(rows)
    return out


def _build_rows(questions: list[ReleaseQuestion], ids: VideoIds, videos: dict[str, _Video | Problem],
                gaze: dict[str, list[dict]], sink: ProblemSink,
                report: ReleaseImportReport) -> tuple[dict[str, list[dict]], list[_Video]]:
    """Checked QA rows per task (file order) and the videos they use (sorted by id)."""
    qa: dict[str, list[dict]] = {spec.id: [] for spec in TASKS}
    used: dict[str, _Video] = {}
    for q in questions:
        video = videos[ids.of_ref[q.video_ref]]
        if isinstance(video, Problem):
            sink(q.problem(video.kind, video.detail))
            continue
        flags = list(q.flags)
        query_time, checkpoints = _clamped_times(q, video.info, flags)
        row = question_row(q, video, query_time, checkpoints, gaze.get(video.video_id, []))
        problems = validate_qa_row(row, video.info.duration, min_options=2)
        if problems:
            sink(q.problem("invalid_row", "; ".join(problems)))
            continue
        sink.flags(flags)
        report.row_imported(q.task, flags)
        if q.task in report.checkpoints:
            report.checkpoints[q.task]["imported"] += len(checkpoints)
        qa[row["task"]].append(row)
        used[video.video_id] = video
    for counts in report.checkpoints.values():
        counts["dropped"] = counts["in_files"] - counts["imported"]
    return qa, [used[k] for k in sorted(used)]


def _clamped_times(q: ReleaseQuestion, info: VideoInfo, flags: list[Problem]) -> tuple[float, list[dict]]:
    """The query time and checkpoints clamped at the video end (flagged), and an MC query time of 0
    (the official clip [0, 0] is empty) moved to the end of the first frame (flagged)."""
    duration = round(info.duration, 6)  # the end of the last frame, without float noise
    late = [t for t in [q.query_time] + [c["time"] for c in q.checkpoints] if t > duration + _TOL]
    query_time = min(q.query_time, duration)
    checkpoints = [dict(c, time=min(c["time"], duration)) for c in q.checkpoints]
    if late:
        shown = ", ".join(f"{t:g}s" for t in late)
        flags.append(q.problem("time_beyond_video", f"{shown} past the video end {duration:.3f}s: clamped there"))
    if not get_task(q.task).checkpointed and query_time <= 0:
        query_time = round(1.0 / info.fps, 6)
        flags.append(q.problem("empty_window", f"query time 0: window is the first frame [0, {query_time:g}]"))
    return query_time, checkpoints


def question_row(q: ReleaseQuestion, video: _Video, query_time: float, checkpoints: list[dict],
                 gaze: list[dict]) -> dict:
    """The QA_FEATURES row of one official question on ``video``."""
    spec = get_task(q.task)
    if spec.checkpointed:
        start, end = 0.0, max(c["time"] for c in checkpoints)
    else:
        start, end = window(spec.id, query_time)
    answer_text = q.options[LETTERS.index(q.answer)] if q.answer else ""
    extras = dict(q.extras)
    extras.update({"release_file": Path(q.file).name, "release_entry": q.entry, "release_question": q.index})
    row = empty_qa_row()
    row.update({
        "question_id": q.question_id(video.video_id), "task": spec.id, "category": spec.category,
        "video_id": video.video_id, "source": video.source,
        "video_path": video.video_path, "overlay_path": video.overlay_path,
        "question": q.question, "options": list(q.options), "answer": q.answer, "answer_text": answer_text,
        "query_time": query_time, "window_start": float(start), "window_end": float(end),
        "checkpoints": checkpoints, "fixations": window_fixations(gaze, start, end),
        "metadata": dump_metadata(extras),
    })
    return row


def _fixations_of(gaze: dict[str, list[dict]], episodes: list[dict], video_ids: set[str], ids: VideoIds,
                  sink: Sink) -> list[dict]:
    """Fixation rows of the imported videos (under our ids); a note per other video named in metadata/."""
    aliases = metadata_aliases(ids.path_of)
    left_out: Counter = Counter(r["video_id"] for r in episodes if aliases.get(r["video_id"]) not in video_ids)
    for vid, n in sorted(left_out.items()):
        sink(Problem("metadata_video_not_imported", "metadata/", detail=f"{vid}: {n} episode(s)"))
    return [r for vid in sorted(gaze) if vid in video_ids for r in gaze[vid]]


def _render_overlays(videos: list[_Video], qa: dict[str, list[dict]], gaze: dict[str, list[dict]], tmp: Path,
                     sink: Sink, progress: bool) -> None:
    """Videos without an overlay in the release: render one from the fixation centres, or leave the visual
    variant unavailable (overlay_path "" in its rows); noted either way."""
    from ...gaze import render_overlay

    missing = [v for v in videos if v.overlay is None]
    starts = _window_starts(qa)
    for v in tqdm(missing, desc="render overlays", unit="video", disable=not progress, leave=False):
        rows = [r for r in gaze.get(v.video_id, []) if has_centre(r)]
        if not rows:
            sink(Problem("no_overlay", v.original.container, detail=f"{v.video_id}: no overlay video and no "
                         "fixation centres: the visual variant is unavailable for its questions"))
            continue
        out = tmp / f"{v.video_id}.mp4"
        out.parent.mkdir(parents=True, exist_ok=True)
        render_overlay(v.original.path, fixation_track(rows, v.info), out, progress=False,
                       keyframe_times=sorted(starts.get(v.video_id, ())))
        v.rendered = out
        sink(Problem("overlay_rendered", v.original.container, detail=(
            f"{v.video_id}: overlay rendered from {len(rows)} fixation centres")))
    overlay_of = {v.video_id: v.overlay_path for v in videos}
    for rows in qa.values():
        for r in rows:
            r["overlay_path"] = overlay_of[r["video_id"]]


def _window_starts(qa: dict[str, list[dict]]) -> dict[str, set[float]]:
    starts: dict[str, set[float]] = {}
    for rows in qa.values():
        for r in rows:
            if r["window_start"] > 0:
                starts.setdefault(r["video_id"], set()).add(r["window_start"])
    return starts


def _video_row(video: _Video) -> dict:
    return video_row(video.video_id, video.source, video.info, video_path=video.video_path,
                     overlay_path=video.overlay_path)


def _dataset_files(videos: list[_Video]) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for v in videos:
        files[v.video_path] = v.original.path
        if v.overlay is not None:
            files[v.overlay_path] = v.overlay.path
        elif v.rendered is not None:
            files[v.overlay_path] = v.rendered
    return files


def _reencoded(files: dict[str, Path], qa: dict[str, list[dict]], videos: list[_Video], tmp: Path,
               progress: bool) -> dict[str, Path]:
    """The videos re-encoded with keyframes at their questions' window starts (gaze/overlay.py);
    overlays rendered here already have them."""
    from ...gaze import reencode_video

    starts = _window_starts(qa)
    of_path = {}
    for v in videos:
        of_path[v.video_path] = v.video_id
        if v.overlay is not None:
            of_path[v.overlay_path] = v.video_id
    out = dict(files)
    for rel, src in tqdm(sorted(files.items()), desc="re-encode", unit="video", disable=not progress, leave=False):
        if rel in of_path:
            out[rel] = reencode_video(src, tmp / rel, keyframe_times=sorted(starts.get(of_path[rel], ())),
                                      progress=False)
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
