"""How the Qwen family samples and resizes: qwen_vl_utils' reader (``fetch_video``: its frame count, its pixel
budget, its resize) and the wrappers that read through it, Qwen2.5-VL's chat and simple wrappers, Qwen3-VL,
Qwen3.5, LLaVA-OneVision-1.5, and the OpenAI-compatible chat, vLLM and async OpenAI wrappers that hand it a
video element. Their rows of the table are :data:`ROWS`; the lmms-eval glue's reader fix hands such a wrapper a
model-ready clip's frames whole (``Wrapper.hook``, ``lmms_tasks/wrappers.py``)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from .base import Reading, Wrapper, _fraction, _plain_layout, linspace_int

# qwen_vl_utils 0.0.14 (vision_process.py)
_QWEN_FRAME_FACTOR = 2
_QWEN_FPS = 2.0
_QWEN_FPS_MIN_FRAMES = 4
_QWEN_FPS_MAX_FRAMES = 768
_QWEN_VIDEO_MIN_TOKENS = 128
_QWEN_VIDEO_MAX_TOKENS = 768
_QWEN_MAX_RATIO = 200


def _floor_even(x: float) -> int:
    return math.floor(x / _QWEN_FRAME_FACTOR) * _QWEN_FRAME_FACTOR


def _ceil_even(x: float) -> int:
    return math.ceil(x / _QWEN_FRAME_FACTOR) * _QWEN_FRAME_FACTOR


def qwen_smart_nframes(total: int, video_fps: float, nframes: int | None = None, fps: float | None = None,
                       min_frames: int | None = None, max_frames: int | None = None) -> int:
    """qwen_vl_utils' ``smart_nframes`` for ``{"nframes": nframes}`` or ``{"fps": fps, "min_frames": ...,
    "max_frames": ...}`` (default 2 fps, 4 to ``min(768, total)`` frames); raises ValueError as it does when the
    count is outside ``[2, total]``."""
    if nframes is not None:
        n = round(nframes / _QWEN_FRAME_FACTOR) * _QWEN_FRAME_FACTOR
    else:
        rate = _QWEN_FPS if fps is None else fps
        min_frames = _ceil_even(_QWEN_FPS_MIN_FRAMES if min_frames is None else min_frames)
        max_frames = _floor_even(min(_QWEN_FPS_MAX_FRAMES, total) if max_frames is None else max_frames)
        n = total / video_fps * rate
        n = _floor_even(min(min(max(n, min_frames), max_frames), total))
    if not (_QWEN_FRAME_FACTOR <= n <= total):
        raise ValueError(f"nframes should in interval [{_QWEN_FRAME_FACTOR}, {total}], but got {n}.")
    return n


def qwen_indices(total: int, n: int) -> list[int]:
    """qwen_vl_utils' frame indices: ``torch.linspace(0, total - 1, n).round()`` (float32, as it computes them)."""
    import torch

    return torch.linspace(0, total - 1, n).round().long().tolist()


def qwen_smart_resize(height: int, width: int, factor: int, min_pixels: float, max_pixels: float) -> tuple[int, int]:
    """qwen_vl_utils' ``smart_resize``: (height, width)."""
    if max(height, width) / min(height, width) > _QWEN_MAX_RATIO:
        raise ValueError("absolute aspect ratio too large")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = math.floor(height / beta / factor) * factor
        w_bar = math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def qwen_video_pixels(nframes: int, min_pixels: float, max_pixels: float | None, factor: int = 28) -> float:
    """The per-frame pixel budget ``fetch_video`` applies to a video of ``nframes`` frames (``MODEL_SEQ_LEN``
    as qwen_vl_utils reads it)."""
    seq_len = int(float(os.environ.get("MODEL_SEQ_LEN", 128000)))
    total_pixels = seq_len * factor * factor * 0.9
    cap = max(min(_QWEN_VIDEO_MAX_TOKENS * factor * factor, total_pixels / nframes * _QWEN_FRAME_FACTOR),
              int(min_pixels * 1.05))
    return cap if max_pixels is None else min(max_pixels, cap)


def qwen_ele_nframes(ele: Mapping[str, Any], total: int, video_fps: float) -> int:
    """``smart_nframes`` of a qwen_vl_utils video element (``nframes``, else ``fps``/``min_frames``/``max_frames``)."""
    if ele.get("nframes") is not None:
        return qwen_smart_nframes(total, video_fps, nframes=int(ele["nframes"]))
    return qwen_smart_nframes(total, video_fps, fps=None if ele.get("fps") is None else float(ele["fps"]),
                              min_frames=ele.get("min_frames"), max_frames=ele.get("max_frames"))


def qwen_fetch_size(ele: Mapping[str, Any], nframes: int, width: int, height: int, factor: int) -> tuple[int, int]:
    """(width, height) ``fetch_video`` resizes the ``nframes`` frames of a video element to (qwen_vl_utils 0.0.14,
    ``image_patch_size = factor / 2``): its ``min_pixels``, ``total_pixels`` and ``max_pixels`` rules."""
    frame_min = _QWEN_VIDEO_MIN_TOKENS * factor * factor
    frame_max = _QWEN_VIDEO_MAX_TOKENS * factor * factor
    min_pixels = float(ele.get("min_pixels") if ele.get("min_pixels") is not None else frame_min)
    seq_len = int(float(os.environ.get("MODEL_SEQ_LEN", 128000)))
    total_pixels = float(ele.get("total_pixels") if ele.get("total_pixels") is not None
                         else seq_len * factor * factor * 0.9)
    max_pixels = max(min(frame_max, total_pixels / nframes * _QWEN_FRAME_FACTOR), int(min_pixels * 1.05))
    if ele.get("max_pixels") is not None:
        max_pixels = min(float(ele["max_pixels"]), max_pixels)
    h, w = qwen_smart_resize(height, width, factor, min_pixels, max_pixels)
    return w, h


# Qwen2.5-VL (qwen_vl_utils' reader, then the wrapper)

def _qwen_simple_sample(p, total: int, fps: float) -> Reading:
    nq = qwen_smart_nframes(total, fps)  # the simple wrapper passes neither nframes nor fps: 2 fps
    first = qwen_indices(total, nq)
    sub = linspace_int(nq - 1, int(p["max_num_frames"]))
    keep = sorted(set(sub) | {nq - 1})
    return Reading(tuple(first[i] for i in keep), decoded=nq)


def _qwen_simple_layout(p, reading: Reading, total: int, fps: float) -> tuple[list[int], Fraction]:
    """At 2 fps the qwen_vl_utils reader takes every frame of an even count; the wrapper's own subsampling
    (``max_num_frames`` of them, the last included) then takes all when there are at most that many. An odd
    count N (``max_num_frames`` odd) is stored as N + 1 frames with the real ones where that subsampling of
    N + 1 lands and one copy of a neighbour in the gap. (LLaVA-OneVision-1.5's simple wrapper keeps repeats
    when fewer than ``max_num_frames`` were read: its distinct frames are every frame read, an even count.)"""
    n = len(set(reading.picks))
    if n % 2 == 0:
        return list(range(n)), Fraction(2)
    lands = sorted(set(linspace_int(n, int(p["max_num_frames"]))) | {n})
    if len(lands) != n:
        raise ValueError("no even layout for this frame count")
    order, k = [], 0
    for pos in range(n + 1):
        if pos in lands:
            order.append(k)
            k += 1
        else:
            order.append(max(k - 1, 0))  # the filler: a copy of the previous real frame
    return order, Fraction(2)


def _qwen_chat_nframes(p, total: int, fps: float) -> int:
    if p.get("fps") is not None:
        return qwen_smart_nframes(total, fps, fps=float(p["fps"]))
    n = max(2, (min(int(p["max_num_frames"]), total) // 2) * 2)  # the wrapper's decord probe
    return qwen_smart_nframes(total, fps, nframes=n)


def _qwen_chat_sample(p, total: int, fps: float) -> Reading:
    n = _qwen_chat_nframes(p, total, fps)
    return Reading(tuple(qwen_indices(total, n)), timing=n / max(total, 1e-6) * fps)


def _qwen_chat_layout(p, reading: Reading, total: int, fps: float) -> tuple[list[int], Fraction]:
    """Every frame, at the sampled rate ``nframes / T * fps`` exactly (it reaches the model as
    ``second_per_grid_ts``; the check refuses a rate an mp4 header could not carry to float32 precision)."""
    n = len(reading.picks)
    rate = Fraction(n, total) * _fraction(fps)
    if max(rate.numerator, rate.denominator) > 2**31 - 1:  # more than a container's time base holds
        rate = rate.limit_denominator(1_000_000)
    return list(range(n)), rate


def _qwen_size(p, width: int, height: int, reading: Reading, *, decoded: int) -> tuple[int, int]:
    budget = qwen_video_pixels(decoded, float(p["min_pixels"]), float(p["max_pixels"]))
    h, w = qwen_smart_resize(height, width, 28, float(p["min_pixels"]), budget)
    return w, h


def _qwen_reader_size(p, width, height, reading):
    return _qwen_size(p, width, height, reading, decoded=reading.decoded or len(reading.picks))


def _fetch_sample(ele_of: Callable[[Mapping[str, Any], int], dict]):
    def sample(p, total: int, fps: float) -> Reading:
        ele = ele_of(p, total)
        n = qwen_ele_nframes(ele, total, fps)
        return Reading(tuple(qwen_indices(total, n)), decoded=n)
    return sample


def _fetch_size(ele_of: Callable[[Mapping[str, Any], int], dict], factor: int):
    def size(p, width: int, height: int, reading: Reading) -> tuple[int, int]:
        return qwen_fetch_size(ele_of(p, reading.decoded or len(reading.picks)), reading.decoded or len(reading.picks),
                               width, height, factor)
    return size


def _qwen3_ele(p, total: int, probe: bool) -> dict:
    """lmms-eval's ``Qwen3_VL._build_video_kwargs`` (the simple class caps ``nframes`` at the clip's length, as
    its decord probe reads it)."""
    frames = int(p["max_frames"]) if p.get("max_frames") is not None else int(p["max_num_frames"])
    ele: dict[str, Any] = {"min_pixels": p["min_pixels"]}
    if p.get("fps") is not None:
        ele.update(fps=float(p["fps"]), max_frames=frames)
    elif p.get("total_pixels") is not None:
        ele["max_frames"] = frames
    else:
        ele["nframes"] = min(frames, total) if probe else frames
    if p.get("total_pixels") is not None:
        ele["total_pixels"] = p["total_pixels"]
    else:
        ele["max_pixels"] = p["max_pixels"]
    return ele


def _qwen3_simple_ele(p, total):
    return _qwen3_ele(p, total, probe=True)


def _qwen3_chat_ele(p, total):
    return _qwen3_ele(p, total, probe=False)


def _ov15_simple_ele(p, total):
    return {"max_pixels": p["max_pixels"], "min_pixels": p["min_pixels"]}


def _ov15_chat_ele(p, total):
    m = int(p["max_num_frames"])
    return {"max_pixels": p["max_pixels"], "min_pixels": p["min_pixels"], "max_frames": m, "nframes": m}


def _ov15_simple_sample(p, total: int, fps: float) -> Reading:
    """qwen_vl_utils at 2 fps, then ``np.linspace(0, n - 1, max_num_frames, dtype=int)`` and the last frame if it
    is missing (repeats kept: LLaVA-OneVision-1.5's simple wrapper)."""
    nq = qwen_smart_nframes(total, fps)
    first = qwen_indices(total, nq)
    sub = linspace_int(nq - 1, int(p["max_num_frames"]))
    if nq - 1 not in sub:
        sub.append(nq - 1)
    return Reading(tuple(first[i] for i in sub), decoded=nq)


def _openai_chat_ele(p, total):
    if p.get("video_fps") is not None and float(p["video_fps"]) > 0:
        return {"fps": float(p["video_fps"])}
    return {"nframes": int(p["max_frames_num"])}


def _vllm_ele(p, total):
    ele = {"max_pixels": p["max_pixels"], "min_pixels": p["min_image_pixels"], "max_frames": p["max_frame_num"]}
    ele.update({"fps": float(p["fps"])} if p.get("fps") is not None else {"nframes": int(p["nframes"])})
    return ele


def _async_openai_ele(p, total):
    ele = {"max_pixels": p["max_pixels"], "min_pixels": p["min_pixels"]}
    ele.update({"fps": float(p["fps"])} if p.get("fps") is not None else {"nframes": int(p["nframes"])})
    if p.get("max_frames") is not None:
        ele["max_frames"] = p["max_frames"]
    return ele


def _fetch_row(name: str, kind: str, args: Mapping[str, Any], ele_of, factor: int, **kw) -> Wrapper:
    return Wrapper(name, kind, args, "qwen", _fetch_sample(ele_of), _fetch_size(ele_of, factor), "qwen",
                   _plain_layout, hook=True, ele=ele_of, **kw)


_QWEN_ARGS = {"max_num_frames": 32, "min_pixels": 256 * 28 * 28, "max_pixels": 1605632, "fps": None}
_QWEN3_ARGS = {"max_num_frames": 32, "min_pixels": 256 * 28 * 28, "max_pixels": 1605632, "total_pixels": None,
               "fps": None, "max_frames": None}
_QWEN3_5_ARGS = {"max_num_frames": 768, "min_pixels": 64 * 32 * 32, "max_pixels": 128 * 32 * 32,
                 "total_pixels": 224 * 1024 * 32 * 32, "fps": None, "max_frames": None}
_OV15_ARGS = {"max_num_frames": 32, "min_pixels": 256 * 28 * 28, "max_pixels": 1605632}


#: the table's rows of this family
ROWS = (
    Wrapper("qwen2_5_vl", "chat", _QWEN_ARGS, "qwen", _qwen_chat_sample, _qwen_reader_size, "qwen",
            _qwen_chat_layout),
    Wrapper("qwen2_5_vl", "simple", _QWEN_ARGS, "qwen", _qwen_simple_sample, _qwen_reader_size, "qwen",
            _qwen_simple_layout),
    _fetch_row("qwen3_vl", "simple", _QWEN3_ARGS, _qwen3_simple_ele, 32),
    _fetch_row("qwen3_vl", "chat", _QWEN3_ARGS, _qwen3_chat_ele, 32),
    _fetch_row("qwen3_5", "simple", _QWEN3_5_ARGS, _qwen3_simple_ele, 32),
    _fetch_row("qwen3_5", "chat", _QWEN3_5_ARGS, _qwen3_chat_ele, 32),
    _fetch_row("llava_onevision1_5", "chat", _OV15_ARGS, _ov15_chat_ele, 28,
               note="its model and processor come from the Hub (trust_remote_code): proven through "
                    "process_vision_info and the wrapper's own frame selection"),
    Wrapper("llava_onevision1_5", "simple", _OV15_ARGS, "qwen", _ov15_simple_sample,
            _fetch_size(_ov15_simple_ele, 28), "qwen", _qwen_simple_layout, ele=_ov15_simple_ele,
            note="its model and processor come from the Hub (trust_remote_code): proven through "
                 "process_vision_info and the wrapper's own frame selection"),
    _fetch_row("openai", "chat", {"max_frames_num": 10, "video_fps": None, "pass_video_url": False},
               _openai_chat_ele, 28, requires={"pass_video_url": False}),
    _fetch_row("vllm", "chat", {"nframes": 32, "fps": None, "max_pixels": 1605632, "min_image_pixels": 28,
                                "max_frame_num": 768, "is_qwen3_vl": False}, _vllm_ele, 28),
    _fetch_row("async_openai", "chat", {"nframes": 64, "fps": None, "max_pixels": 151200, "min_pixels": 28 * 28,
                                        "max_frames": 768, "is_qwen3_vl": False}, _async_openai_ele, 28),
)
