"""The StreamEQA question row (one schema for the three level configs) and its validation.

A question has a query time ``query_time`` (seconds; the release's ``realtime`` as given is kept in
``realtime``) and the window the model sees, ``[window_start, window_end]`` =
``[max(0, t - context), min(t, video duration)]`` with the import's context (64 s by default, recorded
in ``context_s``). ``short_window`` marks the windows the official code skips as 1 s or shorter: its
test is on whole seconds, ``int(t) - int(max(0, t - context)) <= 1`` (with the 64 s context: t < 2 s);
we keep them. ``task_code`` / ``task_name`` / ``direction`` come from the
sub-task table in ``__init__``; ``task`` and ``category`` are the level (the config).
"""

from __future__ import annotations

import math

from datasets import Features, List, Value

from ...dataset import LETTERS, validate_mc_options
from . import LEVELS, MIN_WINDOW_S, OPTION_COUNT, SOURCE, SUBTASK_BY_CODE

QA_FEATURES = Features({
    "question_id": Value("string"),  # streameqa-<level>-<release id>
    "release_id": Value("string"),  # the release's ``id`` as text
    "task": Value("string"),  # perception | interaction | planning (the config)
    "category": Value("string"),  # = task
    "task_code": Value("string"),  # e.g. OPB
    "task_name": Value("string"),  # e.g. Object Perception Backward
    "direction": Value("string"),  # backward | realtime | forward
    "video_id": Value("string"),  # HD-EPIC video id, e.g. P01-20240202-110250
    "participant": Value("string"),  # P01 ...
    "source": Value("string"),  # hd-epic
    "video_path": Value("string"),  # videos/original/<video_id>.mp4
    "overlay_path": Value("string"),  # videos/overlay/<video_id>.mp4 when gaze was imported, else ""
    "realtime": Value("string"),  # the release's query time as given ("83.5", "00:01:23")
    "query_time": Value("float64"),  # seconds
    "context_s": Value("float64"),  # the window's context (64 s by default)
    "window_start": Value("float64"),
    "window_end": Value("float64"),
    "short_window": Value("bool"),  # int(t) - int(start) <= 1: skipped by the official code
    "question": Value("string"),
    "options": List(Value("string")),  # four option texts without "A." labels
    "answer": Value("string"),  # letter A-D
    "answer_index": Value("int32"),  # the release's gt (0-3)
    "answer_text": Value("string"),
    "metadata": Value("string"),  # JSON: release file, item index, raw options, ...
})


def file_paths(row: dict) -> list[str]:
    """The dataset files a question refers to: its video (and the gaze overlay when there is one)."""
    return [p for p in (row.get("video_path"), row.get("overlay_path")) if p]


def window(query_time: float, context_s: float, duration: float | None = None) -> tuple[float, float]:
    """``[max(0, t - context), t]``, the end clamped at the video's duration when given (the official
    ffmpeg cut stops there too). ``context_s <= 0`` means the whole prefix ``[0, t]`` (as the official
    ``context_time`` does)."""
    end = query_time if duration is None else min(query_time, duration)
    start = max(0.0, query_time - context_s) if context_s > 0 else 0.0
    return min(start, end), end


def is_short(query_time: float, context_s: float) -> bool:
    """The official skip test (``compute_online_window``): ``int(t) - int(start) <= 1`` with
    ``start = max(0, t - context)`` (0 for a context <= 0), whole seconds truncated."""
    start = max(0.0, query_time - context_s) if context_s > 0 else 0.0
    return int(query_time) - int(start) <= MIN_WINDOW_S


def validate_row(row: dict, duration: float | None = None) -> list[str]:
    """Problems with one StreamEQA row (empty = valid): level, a known task code of that level and
    its direction, a non-empty question, four distinct options with the answer among them, a finite
    query time and the window rule (within the video when its duration is given)."""
    problems: list[str] = []
    level = row.get("task")
    if level not in LEVELS or row.get("category") != level:
        problems.append(f"task/category {level!r}/{row.get('category')!r} is not one of {', '.join(LEVELS)}")
    sub = SUBTASK_BY_CODE.get(row.get("task_code"))
    if sub is None:
        problems.append(f"unknown task code {row.get('task_code')!r}")
    elif sub.level != level or sub.direction != row.get("direction") or sub.name != row.get("task_name"):
        problems.append(f"task code {sub.code} is {sub.level}/{sub.direction} ({sub.name}), "
                        f"row says {level}/{row.get('direction')} ({row.get('task_name')})")
    if row.get("source") != SOURCE:
        problems.append(f"source {row.get('source')!r} is not {SOURCE!r}")
    if not (row.get("question") or "").strip():
        problems.append("empty question")
    problems += validate_mc_options(row, OPTION_COUNT)
    if len(row.get("options") or []) != OPTION_COUNT:
        problems.append(f"{len(row.get('options') or [])} options, StreamEQA has {OPTION_COUNT} (A-D)")
    elif row.get("answer") in LETTERS[:OPTION_COUNT] and row.get("answer_index") != LETTERS.index(row["answer"]):
        problems.append(f"answer {row.get('answer')} does not match answer_index {row.get('answer_index')}")
    t = row.get("query_time")
    if not isinstance(t, float | int) or not math.isfinite(t) or t < 0:
        problems.append(f"query time {t!r} is not a non-negative number of seconds")
        return problems
    start, end = window(float(t), float(row.get("context_s", 0.0)), duration)
    if (row.get("window_start"), row.get("window_end")) != (start, end):
        problems.append(f"window [{row.get('window_start')}, {row.get('window_end')}] is not the rule's "
                        f"[{start}, {end}]")
    if bool(row.get("short_window")) != is_short(float(t), float(row.get("context_s", 0.0))):
        problems.append(f"short_window {row.get('short_window')} disagrees with the official test at t = {t:g} s")
    return problems
