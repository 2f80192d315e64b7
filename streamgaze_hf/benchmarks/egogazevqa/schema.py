"""The EgoGazeVQA question row (one schema for the three category configs) and its validation.

Shared with every benchmark: the dataset layout and the ``videos`` / ``gaze`` / ``fixations``
configs (``dataset/schema.py``). Specific here: a question has no query time or window rule but a
*frame group*, the list ``frames`` of its keyframes in time order, each with its image file (relative
to the dataset root), frame number, time (seconds, NaN when the release does not give it) and the
gaze at that frame (normalised, origin top-left; ``gaze_valid`` false when unknown).
"""

from __future__ import annotations

import math

from datasets import Features, List, Value

from ...dataset import LETTERS, validate_mc_options
from . import CATEGORIES, OPTION_COUNT, SOURCES

#: the release's sources, plus the demo world (a raw build from ``streamgaze world`` recordings)
ACCEPTED_SOURCES: tuple[str, ...] = (*SOURCES.values(), "world")

FRAME_FEATURES = {
    "path": Value("string"),  # keyframe image, relative to the dataset root
    "frame": Value("int64"),  # frame number in the source video (-1 when unknown)
    "time": Value("float64"),  # seconds in the source video (NaN when unknown)
    "gaze_x": Value("float64"),  # normalised, origin top-left (NaN when unknown)
    "gaze_y": Value("float64"),
    "gaze_valid": Value("bool"),
    "caption": Value("string"),  # the release's narration of that frame ("" when none)
}

QA_FEATURES = Features({
    "question_id": Value("string"),
    "task": Value("string"),  # spatial | temporal | causal
    "category": Value("string"),
    "video_id": Value("string"),
    "source": Value("string"),  # ego4d | egoexo4d | egtea (world: a demo build)
    "scenario": Value("string"),  # "" when unknown
    "activity": Value("string"),  # "" when unknown
    "video_path": Value("string"),  # the source clip when the release has it, else ""
    "question": Value("string"),
    "options": List(Value("string")),  # five option texts without "A: " labels
    "answer": Value("string"),  # letter A-E
    "answer_text": Value("string"),
    "frames": List(FRAME_FEATURES),
    "window_start": Value("float64"),  # time of the first keyframe (NaN when unknown)
    "window_end": Value("float64"),  # time of the last keyframe
    "width": Value("int32"),  # keyframe size in pixels
    "height": Value("int32"),
    "metadata": Value("string"),  # JSON: release file, row, raw group_id, ...
})


def file_paths(row: dict) -> list[str]:
    """The dataset files a question refers to: its keyframes (and its clip when stored)."""
    paths = [f["path"] for f in row.get("frames") or []]
    if row.get("video_path"):
        paths.append(row["video_path"])
    return paths


def validate_row(row: dict, duration: float | None = None) -> list[str]:
    """Problems with one EgoGazeVQA row (empty = valid): its category, five distinct options and an
    answer among them (the shared option rules), a non-empty question, at least one keyframe, frame
    times in order and within the video, valid gaze points finite."""
    problems: list[str] = []
    if row.get("task") not in CATEGORIES or row.get("category") != row.get("task"):
        problems.append(f"task/category {row.get('task')!r}/{row.get('category')!r} is not one of "
                        f"{', '.join(CATEGORIES)}")
    if row.get("source") not in ACCEPTED_SOURCES:
        problems.append(f"source {row.get('source')!r} is not one of {', '.join(ACCEPTED_SOURCES)}")
    if not (row.get("question") or "").strip():
        problems.append("empty question")
    problems += validate_mc_options(row, OPTION_COUNT)
    if len(row.get("options") or []) != OPTION_COUNT:
        problems.append(f"{len(row.get('options') or [])} options, EgoGazeVQA has {OPTION_COUNT} "
                        f"(A-{LETTERS[OPTION_COUNT - 1]})")
    frames = list(row.get("frames") or [])
    if not frames:
        problems.append("no keyframes")
    times = [f["time"] for f in frames if math.isfinite(f["time"])]
    if any(b < a for a, b in zip(times, times[1:])):
        problems.append("keyframe times are not in order")
    if duration is not None and times and times[-1] > duration + 1e-6:
        problems.append(f"keyframe at {times[-1]:.3f}s is beyond the video ({duration:.3f}s)")
    for f in frames:
        if f["gaze_valid"] and not (math.isfinite(f["gaze_x"]) and math.isfinite(f["gaze_y"])):
            problems.append(f"keyframe {f['path']}: valid gaze without finite coordinates")
            break
    return problems
