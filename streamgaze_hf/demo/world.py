"""The synthetic egocentric demo world: ``streamgaze world`` (see :func:`generate_world`).

Each video is a head-mounted camera looking over table tops: a frame-sized viewport slides over a
pre-rendered scene canvas (:mod:`.scene`, :mod:`.camera`) driven, together with a 30 Hz gaze
stream, by a simple oculomotor model (:mod:`.gaze_model`). A hard cut switches to a second (and for
videos of 90 s or more, a third) table with another dominant colour. Everything the later pipeline
should recover is written as ground truth next to the video:

``OUT/<video_id>/``
    ``video.mp4``     H.264, ``round(duration * fps)`` frames;
    ``gaze.csv``      t, x, y, valid at 30 Hz (normalised, origin top-left; empty x, y while blinking);
    ``actions.json``  the action timeline (``pick up knife``, ...) on the world's objects;
    ``objects.json``  objects with attributes, scenes and cuts, true fixations and flicks, and per
                      frame the visible objects' boxes and the gazed object.

The same arguments give byte-identical ``gaze.csv``, ``actions.json``, ``objects.json`` and
videos (the encoder runs single-threaded). Video ``k`` of seed ``s`` is the same whatever the number
of videos asked for.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..gaze import DEFAULT_HFOV_DEG, GazeTrack, write_gaze_csv
from ..util.errors import ArgumentError
from ..util.fsutil import write_text_atomic
from ..video import H264Writer
from .catalog import SCENE_TEMPLATES
from .gaze_model import FIX, GAZE_RATE, GazePlan, plan_gaze
from .scene import Scene, build_scenes
from .timecode import burn_frame_code

DEFAULT_DURATION_RANGE = (60.0, 120.0)
MIN_DURATION = 15.0
THREE_SCENES_FROM = 90.0  # videos at least this long get a third scene
P_ACTION = 0.6  # probability that a fixated object is also handled


def video_ids(n_videos: int, seed: int) -> list[str]:
    """The ids of the videos :func:`generate_world` writes."""
    return [f"world_{seed}_{k:02d}" for k in range(n_videos)]


def generate_world(out: str | os.PathLike[str], n_videos: int = 3, seed: int = 0, duration: float | None = None,
                   width: int = 320, height: int = 240, fps: float = 24.0, progress: bool = True) -> list[Path]:
    """Write ``n_videos`` synthetic videos with gaze and ground truth under ``out`` (``streamgaze world``).

    ``duration=None`` draws 60-120 s per video from the seed. The world is generated in a temporary
    directory inside ``out`` and moved into place only when every video is complete; an existing
    ``out/<video_id>`` is replaced.

    Args:
        out: the directory to write into (created if needed).
        n_videos: how many videos (at least 1); video ``k`` is the same whatever the count.
        seed: the seed every video's generator derives from.
        duration: each video's length in seconds (at least 15); None draws 60-120 s per video.
        width: the frame width in pixels (even, at least 64).
        height: the frame height in pixels (even, at least 48).
        fps: the video frame rate, in [1, 240].
        progress: show a progress bar on stderr.

    Returns:
        The video directories ``out/<video_id>`` (:func:`video_ids`), in order.

    Raises:
        ArgumentError: (a StreamGazeError) an argument out of its range, before anything is written.
        OSError: ``out`` cannot be written.
    """
    _check_args(n_videos, duration, width, height, fps)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rngs = [_video_rng(seed, k) for k in range(n_videos)]
    durations = [_pick_duration(rng, duration) for rng in rngs]
    n_frames = [int(round(d * fps)) for d in durations]
    ids = video_ids(n_videos, seed)
    staging = Path(tempfile.mkdtemp(prefix=".world-", suffix=".tmp", dir=out))
    try:
        with tqdm(total=sum(n_frames), unit="frame", desc="world", file=sys.stderr, disable=not progress,
                  dynamic_ncols=True) as bar:
            for vid, rng, nf in zip(ids, rngs, n_frames):
                bar.set_description(vid)
                write_video_world(staging / vid, vid, rng, nf, width, height, fps, seed, bar)
        dests = []
        for vid in ids:
            dest = out / vid
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(staging / vid, dest)
            dests.append(dest)
        return dests
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_args(n_videos: int, duration: float | None, width: int, height: int, fps: float) -> None:
    if n_videos < 1:
        raise ArgumentError(f"need at least one video, got {n_videos}")
    if duration is not None and not duration >= MIN_DURATION:
        raise ArgumentError(f"duration must be at least {MIN_DURATION:g} s (room for a scene cut), got {duration}")
    if width < 64 or height < 48 or width % 2 or height % 2:
        raise ArgumentError(f"frame size must be even and at least 64x48, got {width}x{height}")
    if not 1.0 <= fps <= 240.0:
        raise ArgumentError(f"fps must be in [1, 240], got {fps}")


def _video_rng(seed: int, k: int) -> np.random.Generator:
    """Independent generator per video, so video k does not depend on how many videos are made."""
    return np.random.default_rng([seed % (1 << 64), k, 0x57A6E])


def _pick_duration(rng: np.random.Generator, duration: float | None) -> float:
    drawn = round(float(rng.uniform(*DEFAULT_DURATION_RANGE)), 1)  # always drawn: keeps the stream stable
    return drawn if duration is None else float(duration)


def write_video_world(video_dir: Path, video_id: str, rng: np.random.Generator, n_frames: int, width: int,
                      height: int, fps: float, seed: int, bar: tqdm | None = None) -> None:
    """Generate one video's world and write its four files into ``video_dir``."""
    duration = n_frames / fps
    n_scenes = 3 if duration >= THREE_SCENES_FROM else 2
    order = rng.permutation(len(SCENE_TEMPLATES))[:n_scenes]
    scenes = build_scenes(rng, n_scenes, width, height, [SCENE_TEMPLATES[int(i)] for i in order])
    plan = plan_gaze(rng, scenes, width, height, fps, duration)
    track = GazeTrack(plan.t, plan.x, plan.y, plan.valid, width, height, fps, DEFAULT_HFOV_DEG)

    frame_t = np.arange(n_frames) / fps
    scene_idx, cx, cy = plan.camera.at(frame_t)
    ix, iy = np.rint(cx).astype(np.int64), np.rint(cy).astype(np.int64)  # viewport corner, whole pixels
    video_dir.mkdir(parents=True, exist_ok=True)
    _encode(video_dir / "video.mp4", scenes, scene_idx, ix, iy, width, height, fps, bar)
    write_gaze_csv(track, video_dir / "gaze.csv")
    write_text_atomic(video_dir / "actions.json", _json_lines(make_actions(rng, plan, duration)) + "\n")

    visible = visible_boxes(scenes, scene_idx, ix, iy, width, height)
    frames = {"t": [round(float(t), 6) for t in frame_t], "visible": visible,
              "gazed": gazed_objects(track, frame_t, visible)}
    truth = {
        "video_id": video_id, "width": width, "height": height, "fps": float(fps), "n_frames": n_frames,
        "duration": round(duration, 6), "hfov_deg": DEFAULT_HFOV_DEG, "seed": seed, "gaze_rate": GAZE_RATE,
        "scene_cuts": [round(c, 6) for c in plan.cuts],
        "scenes": [{"id": s.id, "name": s.name, "start": round(a, 6), "end": round(b, 6)}
                   for s, (a, b) in zip(scenes, plan.scene_spans(duration))],
        "objects": [{"id": o.id, "name": o.spec.name, "category": o.spec.category, "scene": s.id,
                     "attributes": o.attributes} for s in scenes for o in s.objects],
        "fixations": _fixation_records(plan, track),
        "flicks": [{"start": round(float(plan.t[a]), 6), "end": round(float(plan.t[b]), 6)} for a, b in plan.flicks],
        "frames": frames,
    }
    write_text_atomic(video_dir / "objects.json", _json_document(truth) + "\n")


def _encode(path: Path, scenes: list[Scene], scene_idx: np.ndarray, ix: np.ndarray, iy: np.ndarray,
            width: int, height: int, fps: float, bar: tqdm | None) -> None:
    """Crop every frame out of its scene canvas, burn in its frame index (demo/timecode.py: lets tests
    identify every frame a model receives) and encode (single-threaded: reproducible bytes)."""
    with H264Writer(path, width, height, fps, threads=1) as writer:
        for k in range(len(scene_idx)):
            canvas = scenes[int(scene_idx[k])].canvas
            writer.write(burn_frame_code(canvas[iy[k]:iy[k] + height, ix[k]:ix[k] + width].copy(), k))
            if bar is not None:
                bar.update(1)


def visible_boxes(scenes: list[Scene], scene_idx: np.ndarray, ix: np.ndarray, iy: np.ndarray, width: int,
                  height: int) -> list[list[list[float]]]:
    """Per frame: ``[obj_id, x0, y0, x1, y1]`` (normalised, clipped to the frame) of every object with
    at least one pixel in view, in id order."""
    boxes = [np.array([o.box for o in s.objects], np.float64) for s in scenes]
    ids = [[o.id for o in s.objects] for s in scenes]
    out = []
    for k in range(len(scene_idx)):
        s = int(scene_idx[k])
        b = boxes[s] - np.array([ix[k], iy[k], ix[k], iy[k]], np.float64)
        b[:, [0, 2]] = np.clip(b[:, [0, 2]], 0, width)
        b[:, [1, 3]] = np.clip(b[:, [1, 3]], 0, height)
        keep = ((b[:, 2] - b[:, 0]) >= 1.0) & ((b[:, 3] - b[:, 1]) >= 1.0)
        b = b / np.array([width, height, width, height], np.float64)
        out.append([[ids[s][i], *(round(float(v), 4) for v in b[i])] for i in np.flatnonzero(keep)])
    return out


def gazed_objects(track: GazeTrack, frame_t: np.ndarray, visible: Sequence[Sequence[Sequence[float]]]) -> list[int]:
    """Per frame: the object whose visible box holds the latest gaze sample at or before the frame
    time; -1 when there is none, the sample is invalid or outside the frame."""
    idx = track.index_at(frame_t)
    in_frame = track.in_frame
    out = []
    for k, i in enumerate(idx):
        hit = -1
        if i >= 0 and in_frame[i]:
            x, y = track.x[i], track.y[i]
            for obj_id, x0, y0, x1, y1 in visible[k]:
                if x0 <= x <= x1 and y0 <= y <= y1:
                    hit = int(obj_id)
                    break
        out.append(hit)
    return out


def _fixation_records(plan: GazePlan, track: GazeTrack) -> list[dict[str, Any]]:
    records = []
    for f in plan.fixations:
        regular = np.flatnonzero(plan.kind[f.first:f.last + 1] == FIX) + f.first
        records.append({
            "start": round(float(plan.t[f.first]), 6), "end": round(float(plan.t[f.last]), 6),
            "x": round(float(track.x[regular].mean()), 6), "y": round(float(track.y[regular].mean()), 6),
            "object": None if f.obj is None else f.obj.spec.name, "spans_cut": f.spans_cut,
        })
    return records


def make_actions(rng: np.random.Generator, plan: GazePlan, duration: float) -> list[dict[str, Any]]:
    """The action timeline: people handle what they look at, so an action starts shortly after a
    fixation on an object begins and ends before the next fixation (never across a scene cut)."""
    actions = []
    starts = [float(plan.t[f.first]) for f in plan.fixations] + [duration]
    for i, f in enumerate(plan.fixations):
        if f.obj is None or (actions and rng.uniform() >= P_ACTION):  # the first one is always handled
            continue
        start = starts[i] + float(rng.uniform(0.1, 0.6))
        limit = min([starts[i + 1]] + [c for c in plan.cuts if c > start]) - 0.05
        end = min(float(plan.t[f.last]) + float(rng.uniform(0.2, 1.2)), limit)
        if end - start < 0.5:
            continue
        verbs = f.obj.spec.verbs
        verb = verbs[int(rng.integers(len(verbs)))]
        noun = f.obj.spec.name
        actions.append({"start": round(start, 3), "end": round(end, 3), "label": f"{verb} {noun}",
                        "verb": verb, "noun": noun})
    actions.sort(key=lambda a: a["start"])
    return actions


def _json_lines(items: Sequence[Any], indent: str = "") -> str:
    """A JSON list with one compact item per line."""
    if not items:
        return "[]"
    body = f",\n{indent} ".join(json.dumps(it, separators=(", ", ": ")) for it in items)
    return f"[\n{indent} {body}\n{indent}]"


def _json_document(doc: dict[str, Any]) -> str:
    """``objects.json`` text: one key per line, lists of records one record per line."""
    lines = []
    for key, value in doc.items():
        if key == "frames":
            inner = [f'  "{k}": {_json_lines(v, "  ")}' for k, v in value.items()]
            text = "{\n" + ",\n".join(inner) + "\n }"
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            text = _json_lines(value)
        else:
            text = json.dumps(value)
        lines.append(f' "{key}": {text}')
    return "{\n" + ",\n".join(lines) + "\n}"
