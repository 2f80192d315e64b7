"""How the API wrappers sample: OpenAI's simple wrapper, GPT-4V and batch GPT-4 (decord, evenly spaced frames
at the source size; :data:`ROWS`). The OpenAI-compatible chat wrapper reads through qwen_vl_utils (``qwen.py``)."""

from __future__ import annotations

from .base import Reading, Wrapper, _plain_layout, _source, linspace_int


def _openai_sample(p, total: int, fps: float) -> Reading:
    n = min(max(1, int(p["max_frames_num"])), total)
    idx = linspace_int(total - 1, n)
    if total - 1 not in idx:
        idx.append(total - 1)
    return Reading(tuple(sorted(set(idx))))


def _gpt4v_sample(p, total: int, fps: float) -> Reading:
    idx = linspace_int(total - 1, int(p["max_frames_num"]))
    if total - 1 not in idx:
        idx.append(total - 1)
    return Reading(tuple(idx))


def _batch_gpt4_sample(p, total: int, fps: float) -> Reading:
    return Reading(tuple(linspace_int(total - 1, int(p["max_frames_num"]))))


#: the table's rows of this family
ROWS = (
    Wrapper("openai", "simple", {"max_frames_num": 10, "video_fps": None}, "decord", _openai_sample, _source, "",
            _plain_layout, unsupported=("video_fps",)),
    Wrapper("gpt4v", "simple", {"max_frames_num": 10}, "decord", _gpt4v_sample, _source, "", _plain_layout),
    Wrapper("batch_gpt4", "simple", {"max_frames_num": 10}, "decord", _batch_gpt4_sample, _source, "",
            _plain_layout),
)
