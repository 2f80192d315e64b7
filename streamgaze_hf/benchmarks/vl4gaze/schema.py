"""The VL4Gaze question row (one schema for the four task configs) and its validation.

Shared with every benchmark: the dataset layout and the ``videos`` config, which here holds one row
per *image* (``video_id`` = the image id, ``n_frames`` 1, ``duration`` 0; its ``video_path`` is empty:
the image file is the row's ``image_path``). Specific here: a question is about one observer in one
image: its head box, eye point and gaze target (normalised, origin top-left; ``inside`` false and the
point -1, -1 when the target is outside the frame), the person description used in the question and
whether it is ambiguous (AQR), and the reference answer.
"""

from __future__ import annotations

import json
import math

from datasets import Features, List, Value

from ...gaze import DIRECTIONS
from . import CATEGORIES, SOURCES

DESCRIPTION_KINDS = ("unique", "general_existing", "general_nonexisting")

QA_FEATURES = Features({
    "question_id": Value("string"),
    "task": Value("string"),  # god | gdd | gpl | aqr
    "category": Value("string"),
    "video_id": Value("string"),  # the image id (the shared ``videos`` config has one row per image)
    "source": Value("string"),  # gazefollow | videoattentiontarget | synthetic
    "image_path": Value("string"),  # relative to the dataset root
    "width": Value("int32"),
    "height": Value("int32"),
    "person": Value("string"),  # the observer's id within the image
    "head_box": List(Value("float64")),  # x_min, y_min, x_max, y_max (normalised)
    "eye_x": Value("float64"),
    "eye_y": Value("float64"),
    "gaze_x": Value("float64"),  # -1 when outside
    "gaze_y": Value("float64"),
    "inside": Value("bool"),
    "direction": Value("string"),  # eight-way eye->target direction ("" when outside)
    "observer_description": Value("string"),
    "description_kind": Value("string"),  # unique | general_existing | general_nonexisting
    "ambiguous": Value("bool"),  # the description does not pick out exactly one person (AQR positive)
    "target_description": Value("string"),  # what the observer looks at ("" when outside)
    "question": Value("string"),
    "answer": Value("string"),  # the reference answer (GPL: "(x, y)" in pixels or "(-1, -1)")
    "metadata": Value("string"),  # JSON: template ids, annotation file and line, ...
})


def file_paths(row: dict) -> list[str]:
    return [row["image_path"]] if row.get("image_path") else []


def validate_row(row: dict, duration: float | None = None) -> list[str]:
    """Problems with one VL4Gaze row (empty = valid)."""
    problems: list[str] = []
    task = row.get("task")
    if task not in CATEGORIES or row.get("category") != task:
        problems.append(f"task/category {task!r}/{row.get('category')!r} is not one of {', '.join(CATEGORIES)}")
    if row.get("source") not in SOURCES:
        problems.append(f"source {row.get('source')!r} is not one of {', '.join(SOURCES)}")
    for key in ("question", "answer", "image_path", "observer_description"):
        if not str(row.get(key) or "").strip():
            problems.append(f"empty {key}")
    if not (int(row.get("width") or 0) > 0 and int(row.get("height") or 0) > 0):
        problems.append("image size must be positive")
    box = list(row.get("head_box") or [])
    if len(box) != 4 or not all(0 <= v <= 1 for v in box) or not (box[2] > box[0] and box[3] > box[1]):
        problems.append(f"head_box {box} is not x_min < x_max, y_min < y_max in [0, 1]")
    for key in ("eye_x", "eye_y"):
        if not (isinstance(row.get(key), float | int) and 0 <= row[key] <= 1):
            problems.append(f"{key} {row.get(key)!r} is not in [0, 1]")
    if row.get("inside"):
        if not all(isinstance(row.get(k), float | int) and math.isfinite(row[k]) and 0 <= row[k] <= 1
                   for k in ("gaze_x", "gaze_y")):
            problems.append("an inside target needs gaze_x, gaze_y in [0, 1]")
    elif (row.get("gaze_x"), row.get("gaze_y")) != (-1, -1):
        problems.append("an outside target has gaze -1, -1")
    if row.get("direction") and row["direction"] not in DIRECTIONS:
        problems.append(f"direction {row['direction']!r} is not one of {', '.join(DIRECTIONS)}")
    if task == "gdd" and not row.get("direction"):
        problems.append("a GDD question needs a direction (its target inside the image)")
    if row.get("description_kind") not in DESCRIPTION_KINDS:
        problems.append(f"description_kind {row.get('description_kind')!r} is not one of {', '.join(DESCRIPTION_KINDS)}")
    if bool(row.get("ambiguous")) != (row.get("description_kind") != "unique"):
        problems.append("ambiguous must be true exactly for general descriptions")
    if task != "aqr" and row.get("ambiguous"):
        problems.append(f"a {task} question must use a unique description")
    try:
        json.loads(row.get("metadata") or "{}")
    except ValueError:
        problems.append("metadata is not JSON")
    return problems
