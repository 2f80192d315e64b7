"""Evaluation machinery shared by every benchmark's documents: run settings, window clips, gaze.

A benchmark's evaluation module (``benchmarks/<name>/evaluation.py``) turns its dataset rows into
evaluation documents and scores responses; what the model is shown is prepared here, the same way for
all of them:
- :func:`doc_visuals` prepares exactly the document's window as a clip (no frame after the window end,
  none before its start) — for every model, never left to model wrappers (reference bug 3); in the
  salience gaze mode the window's salience map comes first;
- :func:`video_geometry`, :func:`gaze_tracks` (``dataset/rows.py``), :func:`clip_fixations`: the dataset's videos and gaze as
  known at a window's end.

The run settings (prompt mode, clip fps, protocol, proxy) are one ``streamgaze_hf.evaluation.settings.RunSettings``
object that the callers pass (the CLI and the lmms-eval glue build it from the environment, so every rank
of a distributed run agrees); every document records them, and its clip is prepared from what it records.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..dataset import DatasetHandle, dataset_at, gaze_tracks
from ..gaze import GazeTrack, salience_heatmap, track_salience_map
from ..util.fsutil import atomic_output
from .model_frames import FramesSpec, frames_spec
from .protocols import get_protocol

# ---- videos and gaze ------------------------------------------------------------------------------

def video_geometry(dataset: DatasetHandle) -> dict[str, dict]:
    """video_id -> {video_id, width, height, fps} of every video of the dataset (read once per handle)."""
    return dict(_video_geometry(dataset))


@lru_cache(maxsize=8)
def _video_geometry(dataset: DatasetHandle) -> dict[str, dict]:
    table = dataset.read_config("videos", ["video_id", "width", "height", "fps"])
    return {r["video_id"]: r for r in table.to_pylist()}


@lru_cache(maxsize=8)
def video_gaze_track(dataset: DatasetHandle, video_id: str, width: int, height: int) -> GazeTrack | None:
    """One video's gaze samples (None without any), read once per dataset handle and video (the last few
    videos), so the salience variant reads a video's gaze once, not once per document."""
    geometry = {video_id: {"width": int(width), "height": int(height), "fps": 30.0}}
    return gaze_tracks(dataset, {video_id}, geometry).get(video_id)


def clip_fixations(fixations: list[dict], end: float, track: GazeTrack | None) -> list[dict]:
    """The fixation list as known at time ``end``: later fixations dropped; one still running at
    ``end`` is cut there and its centroid recomputed from the samples up to ``end`` (dropped when
    no gaze samples are available: never a position from after ``end``)."""
    out = []
    for f in fixations:
        if f["start"] > end:
            continue
        if f["end"] <= end:
            out.append(dict(f))
            continue
        if track is None:
            continue
        part = track.between(f["start"], end)
        ok = part.in_frame
        if ok.any():
            out.append({"start": f["start"], "end": round(end, 3), "x": round(float(np.mean(part.x[ok])), 4),
                        "y": round(float(np.mean(part.y[ok])), 4)})
    return out


def doc_window(doc: dict) -> tuple[float, float]:
    return float(doc["window_start"]), float(doc["window_end"])


# ---- what the model sees ---------------------------------------------------------------------------

def doc_clip_spec(doc: dict) -> tuple[Path, float, float, float | None]:
    """(video file, window start, window end, fps cap) of the document's clip: the overlay video in
    visual mode, the original video in the other modes."""
    rel = doc["overlay_path"] if doc["gaze"] == "visual" else doc["video_path"]
    if doc.get("proxy"):
        from ..video import proxy_rel_path

        rel = proxy_rel_path(rel, doc["proxy"])
    start, end = doc_window(doc)
    return dataset_at(doc["dataset_root"]).file(rel), start, end, doc_fps_cap(doc)


def doc_media(doc: dict) -> list[str]:
    """The dataset files (paths relative to the root) a document's visuals are made from, for any registered
    benchmark: its image (VL4Gaze), its keyframes (EgoGazeVQA), or its clip's source video in the variant
    it shows (overlay, original or a proxy: :func:`doc_clip_spec`'s rule)."""
    if doc.get("image_path"):
        return [str(doc["image_path"])]
    frames = doc.get("frames")
    if isinstance(frames, (list, tuple)) and frames and isinstance(frames[0], dict) and "path" in frames[0]:
        return [str(f["path"]) for f in frames]
    if "window_start" not in doc:
        return []
    rel = doc.get("overlay_path") if doc.get("gaze") == "visual" else doc.get("video_path")
    if not rel:
        return []
    if doc.get("proxy"):
        from ..video import proxy_rel_path

        rel = proxy_rel_path(rel, doc["proxy"])
    return [str(rel)]


def doc_visuals(doc: dict, cache_dir: str | os.PathLike[str] | None = None,
                request: ClipRequest | None = None) -> list[str]:
    """Local files for the model: the window clip of the overlay video (visual mode) or of the
    original video (other modes), preceded by the window's salience map image in salience mode, in the clip
    cache ``cache_dir`` (``clips warm --cache``; None: ``video.clips.clip_cache_dir``'s default); ``request``:
    the document's :class:`ClipRequest` when the caller built it."""
    from ..video import clip_cache_dir

    clip = window_clip(doc, cache_dir, request)
    visuals = [str(clip)]
    if doc["gaze"] == "salience":
        visuals.insert(0, str(salience_image(doc, Path(cache_dir) if cache_dir else clip_cache_dir())))
    return visuals


@dataclass(frozen=True)
class ClipRequest:
    """What a document asks to be shown of a video, built once per document (:func:`clip_request`): the video
    file (overlay, original or proxy: :func:`doc_clip_spec`), the window, its frame-rate cap, the wrapper's frame
    spec already parsed (``doc["model_ready"]``; None: the full-rate clip) and, in the salience mode, the salience
    image's identity."""

    video: Path
    start: float
    end: float
    fps_cap: float | None
    spec: FramesSpec | None
    salience: tuple | None = None  # (dataset root, video id, start, end)

    @property
    def key(self) -> tuple:
        """The one identity of what a document is shown: documents with the same key get the same files (nogaze and
        textgaze share their clips)."""
        return str(self.video), self.start, self.end, self.fps_cap or 0.0, self.spec, self.salience

    @property
    def window(self) -> tuple[str, float, float, FramesSpec] | None:
        """The frame scheduler's key of the window (``schedule.py``): (source video's real path, start, end, frame
        spec) when its model-ready clip is made from the source by the run's passes; None for a full-rate clip or a
        frame-rate-capped window."""
        if self.spec is None or self.fps_cap is not None:
            return None
        return os.path.realpath(self.video), self.start, self.end, self.spec


def clip_request(doc: dict) -> ClipRequest:
    """The document's :class:`ClipRequest` (the one reader of its ``model_ready``)."""
    video, start, end, fps = doc_clip_spec(doc)
    text = doc.get("model_ready") or ""
    salience = (str(doc["dataset_root"]), str(doc["video_id"]), start, end) if doc["gaze"] == "salience" else None
    return ClipRequest(video, start, end, fps, frames_spec(text) if text else None, salience)


def doc_key(doc: dict) -> tuple:
    """What makes two documents show the model the same files (:attr:`ClipRequest.key`)."""
    return clip_request(doc).key


def scheduled_window(doc: dict) -> tuple[str, float, float, FramesSpec] | None:
    """:attr:`ClipRequest.window` of a document."""
    return clip_request(doc).window


def window_clip(doc: dict, cache_dir: str | os.PathLike[str] | None = None,
                request: ClipRequest | None = None) -> Path:
    """The document's window clip (its :class:`ClipRequest`, ``request`` when the caller built it): model-ready
    for the wrapper its spec names (``ready.py``: the frames that wrapper samples, at its processor's size), else
    full-rate."""
    from ..video import prepare_clip

    req = clip_request(doc) if request is None else request
    if req.spec is not None:
        from .ready import ready_clip
        from .schedule import running

        scheduler = running()
        window = req.window
        if scheduler is not None and window is not None and cache_dir is None:
            clip = scheduler.path(window, window)
            return clip if clip is not None else prepare_clip(req.video, req.start, req.end, None)
        return ready_clip(req.video, req.start, req.end, req.fps_cap, req.spec, cache_dir=cache_dir,
                          store=_ready_store())
    return prepare_clip(req.video, req.start, req.end, req.fps_cap, cache_dir=cache_dir)


def make_ready_clips(docs: list[dict], cache_dir: str | os.PathLike[str] | None = None) -> dict:
    """Make the model-ready clips of ``docs`` ahead of their use, one pass per source video (``ready.ready_clips``:
    each frame decoded at most once); a document whose clip is not made from the source that way (full-rate,
    frame-rate-capped) is left to :func:`window_clip`. Returns what the passes did (clips, built, units, decoded)."""
    from .ready import ready_clips

    windows: dict[tuple, set[tuple[float, float]]] = {}
    for doc in docs:
        req = clip_request(doc)
        if req.window is not None:
            windows.setdefault((str(req.video), req.spec), set()).add((req.start, req.end))
    stats = {"clips": 0, "built": 0, "units": 0, "decoded": 0}
    for (video, spec), spans in windows.items():
        _clips, done = ready_clips(video, sorted(spans), None, spec, cache_dir, _ready_store())
        for k in stats:
            stats[k] += int(done.get(k) or 0)
    return stats


def _ready_store() -> str:
    from .ready import default_store

    return default_store()


def cached_window_clip(doc: dict, cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """:func:`window_clip` if it is already in the clip cache (builds nothing), else None."""
    req = clip_request(doc)
    if req.spec is not None:
        from .ready import cached_ready_clip

        return cached_ready_clip(req.video, req.start, req.end, req.fps_cap, req.spec, cache_dir=cache_dir,
                                 store=_ready_store())
    from ..video import cached_clip

    return cached_clip(req.video, req.start, req.end, req.fps_cap, cache_dir=cache_dir)


def doc_fps_cap(doc: dict) -> float | None:
    """The frame-rate cap of the document's clip: the lower of ``clip_fps`` and the protocol's."""
    start, end = doc_window(doc)
    caps = [c for c in (doc["clip_fps"] or None, get_protocol(doc.get("protocol", "default")).fps_cap(end - start))
            if c]
    return min(caps) if caps else None


def salience_image(doc: dict, cache_dir: Path) -> Path:
    """PNG heat map of the gaze in the document's window (EgoGazeVQA Algorithm 1), cached."""
    import cv2

    root = str(doc["dataset_root"])
    start, end = doc_window(doc)
    key = hashlib.sha256(json.dumps([root, doc["video_id"], start, end, "salience-v1"]).encode()).hexdigest()
    out = cache_dir / "salience" / f"{key[:32]}.png"
    if out.is_file():
        return out
    width, height = doc["frame_width"], doc["frame_height"]
    track = video_gaze_track(dataset_at(root), doc["video_id"], int(width), int(height))
    if track is not None:
        sal = track_salience_map(track, start, end)
    else:  # no gaze samples (e.g. the official release): the fixation centroids in the window
        from ..gaze import salience_map

        pts = np.array([[f["x"] * width, f["y"] * height] for f in doc["fixations"]]).reshape(-1, 2)
        sal = salience_map(pts, width, height)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(out) as tmp:
        cv2.imwrite(str(tmp), salience_heatmap(sal))
    return out
