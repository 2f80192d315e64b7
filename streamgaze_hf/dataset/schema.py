"""Row schemas of the configs every benchmark's dataset shares (docs/datasets.md), as ``datasets.Features``.

The task configs follow the benchmark's own QA schema (its ``schema.py:QA_FEATURES``, declared to the
registry); the ``videos``, ``gaze`` and ``fixations`` configs are shared. Video files are relative path
strings (not the ``Video`` feature): an evaluation harness decodes them itself.
The Hub-facing configs are the exceptions (viewer.py), which the toolkit never reads: ``previews``
(``PREVIEW_FEATURES``: a small copy of each video as a ``datasets.Video`` column, bytes embedded) and,
in datasets built before previews existed, ``video_files`` (``VIDEO_FILE_FEATURES``: every video whole).
"""

from __future__ import annotations

import json
import string

from datasets import Features, List, Value, Video

VIDEO_FEATURES = Features({
    "video_id": Value("string"),
    "source": Value("string"),
    "video_path": Value("string"),
    "overlay_path": Value("string"),
    "fps": Value("float64"),
    "width": Value("int32"),
    "height": Value("int32"),
    "n_frames": Value("int32"),
    "duration": Value("float64"),
    "hfov_deg": Value("float64"),
})

GAZE_FEATURES = Features({
    "video_id": Value("string"),
    "t": Value("float64"),
    "x": Value("float64"),  # normalised, origin top-left; NaN when unknown
    "y": Value("float64"),
    "valid": Value("bool"),
    "in_frame": Value("bool"),
})

FIXATION_FEATURES = Features({
    "video_id": Value("string"),
    "fixation_index": Value("int32"),
    "start": Value("float64"),
    "end": Value("float64"),
    "x": Value("float64"),
    "y": Value("float64"),
    "n_samples": Value("int32"),
    "scene_score": Value("float64"),  # S_min of the scene-consistency check
    "kept": Value("bool"),  # passed the scene check and entered the scanpath
    "episode_index": Value("int32"),  # scanpath episode, -1 when not kept
    "gazed_object": Value("string"),
    "fov_objects": List(Value("string")),
    "out_objects": List(Value("string")),
})

#: the Hub-facing config of the previews as a ``Video`` column (viewer.py); not among the toolkit's configs
PREVIEWS_CONFIG = "previews"
PREVIEW_FEATURES = Features({
    "video_id": Value("string"),
    "preview": Video(),  # {"bytes": <the preview mp4>, "path": "<video_id>.mp4"} (video/preview.py)
    "shows": Value("string"),  # "overlay" (the gaze-overlay video) or "original" (a video without overlay)
})

#: the Hub-facing config of datasets built before previews existed: every video whole as ``Video``
#: columns; no longer written (docs/datasets.md), still declared and loaded where a dataset has it
VIDEO_FILES_CONFIG = "video_files"
VIDEO_FILE_FEATURES = Features({
    "video_id": Value("string"),
    "video": Video(),  # the original clip: {"bytes": <the mp4>, "path": "videos/original/<id>.mp4"}
    "overlay": Video(),  # the gaze-overlay clip, likewise (path videos/overlay/<id>.mp4)
})

#: the Hub-facing configs, in card order (after the toolkit's configs)
VIEWER_FEATURES = {PREVIEWS_CONFIG: PREVIEW_FEATURES, VIDEO_FILES_CONFIG: VIDEO_FILE_FEATURES}

CONFIG_FEATURES = {"videos": VIDEO_FEATURES, "gaze": GAZE_FEATURES, "fixations": FIXATION_FEATURES}

LETTERS = string.ascii_uppercase


def letter(index: int) -> str:
    """Option letter of a 0-based index (A, B, ..., Z)."""
    if not 0 <= index < len(LETTERS):
        raise ValueError(f"option index {index} out of range")
    return LETTERS[index]


def letter_index(answer: str) -> int:
    """0-based index of an option letter (the inverse of :func:`letter`).

    Raises:
        ValueError: not an option letter.
    """
    return LETTERS.index(answer)


def dump_metadata(extras: dict) -> str:
    """Canonical JSON for the ``metadata`` column (sorted keys: stable bytes)."""
    return json.dumps(extras, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
