"""`streamgaze review export ROOT --out DIR`: the human-verification pages of a built dataset.

Writes ``DIR/<video_id>.html`` per video (see :mod:`.page`), ``DIR/index.html`` listing them, and
copies of the gaze-overlay videos under ``DIR/videos/`` so that the folder can be zipped and sent to
annotators as it is. With ``link=True`` the pages point into the dataset instead (relative links;
nothing is copied). Pages are written atomically; a video copy is skipped when an identical-size
copy newer than the source is already there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_output, write_text_atomic
from .page import PageFixation, PageVideo, render_index, render_video_page

if TYPE_CHECKING:
    from ..dataset import DatasetHandle

__all__ = ["export_qa_review", "export_review", "page_file_name", "read_page_videos"]


def page_file_name(video_id: str) -> str:
    """``<video_id>.html``; ids that are not a plain file name are refused."""
    if not video_id or "/" in video_id or "\\" in video_id or video_id in (".", "..") or "\0" in video_id \
            or video_id == "index":
        raise StreamGazeError(f"video id {video_id!r} cannot be used as a page file name")
    return f"{video_id}.html"


def read_page_videos(dataset: DatasetHandle, video_ids: Iterable[str] | None = None
                     ) -> tuple[list[PageVideo], dict[str, Path]]:
    """The pages' content from a dataset (kept fixations only) and each video's overlay file.

    ``video_src`` is left as the overlay's path relative to the root; :func:`export_review` rewrites it.
    """
    root, version = dataset.path, dataset.version
    videos = dataset.read_config("videos").to_pylist()
    fixations = dataset.read_config("fixations").to_pylist()
    wanted = None if video_ids is None else list(dict.fromkeys(video_ids))
    known = {v["video_id"] for v in videos}
    if wanted is not None:
        unknown = [v for v in wanted if v not in known]
        if unknown:
            raise StreamGazeError(f"no such video(s) in the dataset: {', '.join(unknown)}", root)
    by_video: dict[str, list[PageFixation]] = {}
    for r in sorted(fixations, key=lambda r: (r["video_id"], r["start"], r["fixation_index"])):
        if not r["kept"]:
            continue
        by_video.setdefault(r["video_id"], []).append(PageFixation(
            int(r["fixation_index"]), float(r["start"]), float(r["end"]), float(r["x"]), float(r["y"]),
            int(r["episode_index"]), r["gazed_object"] or "", tuple(r["fov_objects"] or ()),
            tuple(r["out_objects"] or ())))
    pages, overlays = [], {}
    for v in sorted(videos, key=lambda v: v["video_id"]):
        vid = v["video_id"]
        if wanted is not None and vid not in wanted:
            continue
        page_file_name(vid)
        overlay = root / v["overlay_path"]
        if not overlay.is_file():
            raise StreamGazeError(f"overlay video of {vid} is missing", overlay)
        overlays[vid] = overlay
        pages.append(PageVideo(vid, v.get("source") or "", v["overlay_path"], float(v.get("duration") or 0.0),
                               by_video.get(vid, []), version))
    return pages, overlays


def _url(path: str) -> str:
    return "/".join(quote(part, safe="") for part in path.split("/"))


def _copy(src: Path, dest: Path) -> None:
    if dest.is_file():
        s, d = src.stat(), dest.stat()
        if s.st_size == d.st_size and d.st_mtime >= s.st_mtime:
            return
    with atomic_output(dest) as tmp:
        shutil.copyfile(src, tmp)


def export_review(root: DatasetHandle | str | os.PathLike[str], out: str | os.PathLike[str], *, link: bool = False,
                  video_ids: Iterable[str] | None = None) -> list[Path]:
    """Write the review pages of ``root`` (all videos, or ``video_ids``) to ``out``. See the module
    docstring. A dataset of a benchmark whose pages review fixations (``Benchmark.review ==
    "fixations"``, StreamGaze) gets fixation pages; one whose pages review questions (``"questions"``, e.g.
    EgoGazeVQA) gets question-verification pages (:func:`export_qa_review`).

    Args:
        root: the dataset: open, or a directory or Hub reference (opened here).
        out: the directory the pages are written to (created if needed).
        link: point the pages into the dataset (relative links) instead of copying the videos.
        video_ids: only these videos (None: every video).

    Returns:
        The paths written, ``out/index.html`` first.

    Raises:
        StreamGazeError: no dataset at ``root``; its benchmark has no review pages; a video id that is not
            in the dataset or cannot be a page's file name; a missing overlay video (or keyframe); a dataset
            with no videos to review.
    """
    from ..dataset import open_dataset

    data = open_dataset(root)
    bench = data.benchmark
    if bench.review == "questions":
        return export_qa_review(data, out, link=link, video_ids=video_ids)
    if bench.review != "fixations":
        raise StreamGazeError(f"{bench.title} datasets have no review pages (streamgaze review)", data.path)
    out = Path(out)
    pages, overlays = read_page_videos(data, video_ids)
    if not pages:
        raise StreamGazeError("the dataset has no videos to review", data.path)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    final: list[PageVideo] = []
    for p in pages:
        src = overlays[p.video_id]
        if link:
            rel = os.path.relpath(src.resolve(), out.resolve()).replace(os.sep, "/")
            url = _url(rel)
        else:
            _copy(src, out / "videos" / f"{p.video_id}{src.suffix}")
            url = _url(f"videos/{p.video_id}{src.suffix}")
        final.append(PageVideo(p.video_id, p.source, url, p.duration, p.fixations, p.dataset_version))
    names = {p.video_id: page_file_name(p.video_id) for p in final}
    index = out / "index.html"
    write_text_atomic(index, render_index(final, names, bench.title))
    written.append(index)
    for p in final:
        dest = out / names[p.video_id]
        write_text_atomic(dest, render_video_page(p, bench.title))
        written.append(dest)
    return written


def export_qa_review(dataset: DatasetHandle, out: str | os.PathLike[str], *, link: bool = False,
                     video_ids: Iterable[str] | None = None) -> list[Path]:
    """The question-verification pages (:mod:`.qa_review`) of a dataset whose questions carry keyframe
    groups (EgoGazeVQA): one page per video, ``index.html`` first; the keyframes are copied under
    ``out/frames/`` (``link``: relative links into the dataset)."""
    from .qa_review import QAPageQuestion, render_qa_index, render_qa_page

    root, bench, version = dataset.path, dataset.benchmark, dataset.version
    out = Path(out)
    wanted = None if video_ids is None else list(dict.fromkeys(video_ids))
    rows = [r for t in bench.task_ids for r in dataset.read_config(t).to_pylist()]
    by_video: dict[str, list[dict]] = {}
    for r in sorted(rows, key=lambda r: (r["video_id"], r["window_start"], bench.task_ids.index(r["task"]))):
        by_video.setdefault(r["video_id"], []).append(r)
    if wanted is not None:
        unknown = [v for v in wanted if v not in by_video]
        if unknown:
            raise StreamGazeError(f"no such video(s) with questions in the dataset: {', '.join(unknown)}", root)
    videos = [v for v in sorted(by_video) if wanted is None or v in wanted]
    if not videos:
        raise StreamGazeError("the dataset has no questions to review", root)
    out.mkdir(parents=True, exist_ok=True)
    pages: dict[str, str] = {v: page_file_name(v) for v in videos}
    written = [out / "index.html"]
    listing = []
    for vid in videos:
        questions = []
        for r in by_video[vid]:
            frames = []
            for f in r["frames"]:
                src = root / f["path"]
                if not src.is_file():
                    raise StreamGazeError(f"keyframe of question {r['question_id']} is missing", src)
                if link:
                    url = _url(os.path.relpath(src.resolve(), out.resolve()).replace(os.sep, "/"))
                else:
                    _copy(src, out / f["path"])
                    url = _url(f["path"])
                frames.append((url, float(f["gaze_x"]) if f["gaze_valid"] else -1.0,
                               float(f["gaze_y"]) if f["gaze_valid"] else -1.0, f["caption"] or ""))
            questions.append(QAPageQuestion(r["question_id"], r["task"], r["question"], tuple(r["options"]),
                                            r["answer"], tuple(frames)))
        source = by_video[vid][0]["source"]
        listing.append((vid, source, len(questions)))
        dest = out / pages[vid]
        write_text_atomic(dest, render_qa_page(vid, source, questions, version, bench))
        written.append(dest)
    write_text_atomic(written[0], render_qa_index(listing, pages, bench))
    return written
