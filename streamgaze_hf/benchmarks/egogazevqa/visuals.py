"""What an EgoGazeVQA model sees: the keyframes, GazeV circles, the GazeS salience map.

* **Frames**: the question's keyframes in order, as RGB ``PIL.Image`` objects (what lmms-eval's image
  models take), or — visual form ``clip``, for video-only wrappers — one short H.264 clip holding the
  keyframes at 1 frame per second (cached under the clip cache, content-addressed).
* **GazeV** (paper §4.2): a red circle (BGR (0, 0, 255)) of radius 25 px on a frame whose shorter
  side is 1080 px, scaled to the frame (``scaled_radius``: 25 · min(W, H) / 1080, at least 3 px),
  outline ``max(2, round(radius / 8))`` px thick, centred on the frame's gaze point; frames without a
  valid in-frame gaze point stay unmarked. The official code ships no renderer; this is ours.
* **GazeS** (Algorithm 1, ``gaze/salience.py``): the valid gaze points of the keyframes, in time order,
  in pixels of the first keyframe's size; a grayscale image (later points brighter), shown first.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import cv2
import numpy as np

from ...gaze import draw_gaze_circle, salience_map, scaled_radius
from ...util.errors import StreamGazeError
from ...util.fsutil import atomic_output

GAZEV_RADIUS_PX = 25
GAZEV_REFERENCE_SHORT_SIDE = 1080
CLIP_FPS = 1.0
VISUAL_FORMS = ("images", "clip")


def gazev_radius(width: int, height: int) -> int:
    return scaled_radius(GAZEV_RADIUS_PX, width, height, GAZEV_REFERENCE_SHORT_SIDE)


def gazev_thickness(radius: int) -> int:
    return max(2, int(math.floor(radius / 8 + 0.5)))


def read_frame(root: str, frame: Mapping) -> np.ndarray:
    from ...dataset import dataset_at

    path = dataset_at(root).file(frame["path"])
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise StreamGazeError("keyframe image missing or unreadable", path)
    return image


def gazev_frame(image: np.ndarray, frame: Mapping) -> np.ndarray:
    """A keyframe (BGR) with its GazeV circle."""
    h, w = image.shape[:2]
    r = gazev_radius(w, h)
    if not frame["gaze_valid"]:
        return image.copy()
    return draw_gaze_circle(image, float(frame["gaze_x"]), float(frame["gaze_y"]), r, thickness=gazev_thickness(r))


def salience_image(frames: Sequence[Mapping], width: int, height: int) -> np.ndarray:
    """The GazeS map (uint8 grayscale, height x width) of the frames' valid gaze points in order."""
    pts = [(float(f["gaze_x"]) * width, float(f["gaze_y"]) * height) for f in frames
           if f["gaze_valid"] and math.isfinite(float(f["gaze_x"])) and math.isfinite(float(f["gaze_y"]))]
    return salience_map(np.array(pts, dtype=np.float64).reshape(-1, 2), width, height)


def frame_images(root: Path, frames: Sequence[Mapping], gaze: str) -> list[np.ndarray]:
    """The keyframes (BGR) as the model sees them in a gaze mode (circles drawn for ``visual``)."""
    images = [read_frame(root, f) for f in frames]
    if gaze == "visual":
        images = [gazev_frame(im, f) for im, f in zip(images, frames)]
    return images


def _to_pil(bgr: np.ndarray):
    from PIL import Image

    return Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB) if bgr.ndim == 3 else bgr).convert("RGB")


def _key(root: Path, frames: Sequence[Mapping], what: str) -> str:
    raw = json.dumps([str(root), [dict(f) for f in frames], what], sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def frames_clip(root: Path, frames: Sequence[Mapping], gaze: str, cache_dir: Path) -> Path:
    """The keyframes as one H.264 clip at ``CLIP_FPS`` (every frame a keyframe), cached."""
    from ...video import H264Writer

    out = cache_dir / "egogazevqa" / f"{_key(root, frames, 'clip-' + gaze)}.mp4"
    if out.is_file():
        return out
    images = frame_images(root, frames, gaze)
    h, w = images[0].shape[:2]
    w2, h2 = w - w % 2, h - h % 2
    out.parent.mkdir(parents=True, exist_ok=True)
    with H264Writer(out, w2, h2, CLIP_FPS) as writer:
        for im in images:
            if im.shape[:2] != (h, w):
                im = cv2.resize(im, (w, h), interpolation=cv2.INTER_AREA)
            writer.write(im[:h2, :w2], keyframe=True)
    return out


def salience_png(root: Path, frames: Sequence[Mapping], width: int, height: int, cache_dir: Path) -> Path:
    out = cache_dir / "egogazevqa" / f"{_key(root, frames, f'salience-{width}x{height}')}.png"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(out) as tmp:
            cv2.imwrite(str(tmp), salience_image(frames, width, height))
    return out


def doc_visuals(doc: Mapping, cache_dir: str | os.PathLike[str] | None = None) -> list:
    """The model's visuals of one document: [salience map (GazeS only)] + the keyframes (PIL images),
    or + [the keyframes as one clip path] in visual form ``clip``."""
    from ...video import clip_cache_dir

    root = Path(doc["dataset_root"])
    frames = list(doc["frames"])
    cache = Path(cache_dir) if cache_dir else clip_cache_dir()
    if doc["visual_form"] == "clip":
        visuals: list = [str(frames_clip(root, frames, doc["gaze"], cache))]
    else:
        visuals = [_to_pil(im) for im in frame_images(root, frames, doc["gaze"])]
    if doc["gaze"] == "salience":
        png = salience_png(root, frames, int(doc["width"]), int(doc["height"]), cache)
        visuals.insert(0, _to_pil(cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)))
    return visuals
