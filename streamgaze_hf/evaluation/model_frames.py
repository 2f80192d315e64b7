"""Model-ready frames: what each lmms-eval video wrapper does with a clip, so that it can be handed only that.

A wrapper given a window clip reads its frame count (and for some its frame rate), picks frames with its
own sampler, decodes them and resizes them for its processor, all on the model's critical path. This module
is the one place that knows, per wrapper of lmms-eval 0.7.3 (the table :data:`WRAPPERS`, keyed by lmms-eval
model id and class kind, ``chat`` or ``simple``):

* its **sampler**: which clip positions it would pick from a clip of ``T`` frames at ``fps`` (with its
  ``--model_args``: frame count, fps), and for Qwen2.5-VL's chat wrapper the sampled rate that reaches the
  model as ``second_per_grid_ts``;
* its **resize**: the size its reader or processor brings a frame to (Qwen's ``smart_resize`` with the
  wrapper's pixel budget; the checkpoint's video processor size for the Hugging Face processors; InternVL's
  448 px tile when a frame is one tile, and where InternVL3 makes several tiles and a thumbnail, the two
  resizes of its ``dynamic_preprocess`` side by side in one composite frame, cut into tiles again by the lmms-eval
  glue's reader fix), with the kernel that does it, or ``None`` where the processor keeps the source size (the
  API wrappers, LLaVA-OneVision's LLaVA-NeXT processor);
* its **reader**: the library whose YUV-to-RGB conversion and metadata the wrapper sees (decord, torchcodec,
  qwen_vl_utils' backend);
* the **layout** of a model-ready clip: the picked frames, already resized, in an order and at a constant
  rate such that the wrapper's own sampler on that clip picks every frame and the same ones (Qwen's simple
  wrapper needs an even count, InternVL's simple sampler one filler frame, Qwen2.5-VL chat the sampled rate).

Every plan is checked before it is used (:meth:`FramesSpec.plan`): the table's sampler run on the
model-ready clip's own frame count and rate must reach exactly the frames (and timing) it reaches on the
full-rate clip; a plan that fails the check is refused, and the document gets its full-rate clip. Whether the
table matches lmms-eval's code is proven by the equality tests (``tests/e2e/test_model_frames_equal.py``):
through lmms-eval's own wrappers, the processor tensors from the full-rate clip and from the model-ready
clip are compared.

A run's choice is a :class:`FramesSpec`, made from ``--model`` and ``--model_args`` (:func:`frames_request`
keeps only the arguments the table reads, never a secret; :func:`resolve_spec` adds what the checkpoint's
processor says), written as one line (:meth:`FramesSpec.describe`, parsed back by :meth:`FramesSpec.parse`)
into every document and sample record (``model_ready``) and the submission. A wrapper not in the table gets
today's full-rate clips (``model_ready`` empty).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..util.errors import StreamGazeError

#: bumped when a plan for the same spec and clip would change (part of every model-ready clip's cache key)
PLAN_VERSION = 2  # 2: InternVL3's frames of several tiles are composites (``internvl`` kernel), no longer the source

# qwen_vl_utils 0.0.14 (vision_process.py)
_QWEN_FRAME_FACTOR = 2
_QWEN_FPS = 2.0
_QWEN_FPS_MIN_FRAMES = 4
_QWEN_FPS_MAX_FRAMES = 768
_QWEN_VIDEO_MIN_TOKENS = 128
_QWEN_VIDEO_MAX_TOKENS = 768
_QWEN_MAX_RATIO = 200


@dataclass(frozen=True)
class Reading:
    """What a wrapper's sampler takes from a clip: clip positions in the order the model sees them
    (repeats allowed), and ``timing``, a number derived from the clip's rate that reaches the model (Qwen2.5-VL
    chat's sampled fps) or None."""

    picks: tuple[int, ...]
    timing: float | None = None
    #: how many frames the reader decoded (and resized) before the wrapper kept ``picks`` (Qwen's simple
    #: wrapper subsamples what qwen_vl_utils read; its pixel budget depends on that count); None: the picks
    decoded: int | None = None


@dataclass(frozen=True)
class FramePlan:
    """How to make one document's model-ready clip from its full-rate clip (``T`` frames at ``fps``).

    ``order``: for each frame of the model-ready clip, the full-rate clip position it holds (a filler repeats a
    neighbour); ``size``: (width, height) after the wrapper's resize, or None for the source size;
    ``kernel``: the resize kernel (:data:`~streamgaze_hf.video.resize.KERNELS`); ``rate``: the model-ready
    clip's constant frame rate; ``seen``: the full-rate positions the model sees, in its order."""

    order: tuple[int, ...]
    size: tuple[int, int] | None
    kernel: str
    rate: Fraction
    seen: tuple[int, ...]
    timing: float | None = None


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


def linspace_int(stop: int, count: int) -> list[int]:
    """``np.linspace(0, stop, count, dtype=int)`` (floor; repeats kept)."""
    import numpy as np

    return np.linspace(0, stop, count, dtype=int).tolist()


def internvl_index(total: int, segments: int) -> list[int]:
    """InternVL's ``get_index`` without a bound (``internvl2.py`` / ``internvl3.py``): the middle of each of
    ``segments`` equal parts of ``[0, total - 1]`` (numpy's banker's rounding)."""
    import numpy as np

    seg = float(total - 1) / segments
    return [int(seg / 2 + np.round(seg * k)) for k in range(segments)]


# ---- the table -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Wrapper:
    """One row of the table: an lmms-eval wrapper class and what it does with a clip."""

    name: str  # lmms-eval model id
    kind: str  # "chat" or "simple" (which class lmms-eval resolves: chat unless --force_simple or none)
    #: model-arg name -> default, the arguments the sampler and resize read
    args: Mapping[str, Any]
    #: the reader whose metadata and colour conversion the wrapper sees: "decord", "torchcodec" or "qwen"
    #: (qwen_vl_utils' backend: decord or torchcodec)
    reader: str
    sample: Callable[[Mapping[str, Any], int, float], Reading]
    #: (params, width, height, reading) -> (width, height) after the wrapper's resize, or None (source size)
    size: Callable[[Mapping[str, Any], int, int, Reading], tuple[int, int] | None]
    kernel: str = ""
    #: (params, distinct picks, T, fps) -> (order of the model-ready clip as indices into the picks, rate)
    layout: Callable[[Mapping[str, Any], Reading, int, float], tuple[list[int], Fraction]] | None = None
    #: the args the wrapper must have for this row to apply (e.g. InternVL's modality=video)
    requires: Mapping[str, Any] = field(default_factory=dict)
    #: the args that must be unset (None) for this row to apply (a sampler mode the table does not cover)
    unsupported: tuple[str, ...] = ()
    #: the checkpoint's video-processor size is read (Hugging Face processors)
    checkpoint_size: bool = False
    #: what to know about this row's size or its proof (docs/performance.md shows it)
    note: str = ""
    #: the wrapper reads through qwen_vl_utils' ``fetch_video`` and the glue's reader fix hands the model-ready
    #: clip's frames back whole, with the full-rate clip's metadata (``lmms_tasks/wrappers.py``)
    hook: bool = False
    #: (params, T) -> the video element the wrapper hands ``fetch_video`` (the rows that read through it)
    ele: Callable[[Mapping[str, Any], int], dict] | None = None

    @property
    def key(self) -> str:
        return f"{self.name}/{self.kind}"


def _distinct_in_order(picks: tuple[int, ...]) -> list[int]:
    return sorted(set(picks))


def _plain_layout(params, reading: Reading, total: int, fps: float) -> tuple[list[int], Fraction]:
    """The distinct picks in order, at their mean rate over the window (any rate: the sampler ignores it)."""
    n = len(set(reading.picks))
    return list(range(n)), _rate(Fraction(n, max(total, 1)) * _fraction(fps))


def _fraction(x: float) -> Fraction:
    return Fraction(x).limit_denominator(1_000_000)


def _rate(r: Fraction) -> Fraction:
    """A rate an mp4 can carry exactly (a small denominator), never 0."""
    r = r.limit_denominator(100_000)
    return r if r > 0 else Fraction(1)


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


# LLaVA (Hugging Face llava_hf, the toolkit's streamgaze_llava_hf, LLaVA-NeXT's llava_onevision)

def _llava_simple_sample(p, total: int, fps: float) -> Reading:
    return Reading(tuple(linspace_int(total - 1, int(p["max_frames_num"]))))


def _streamgaze_llava_sample(p, total: int, fps: float) -> Reading:
    import numpy as np

    count = max(1, int(p["max_frames_num"]))
    return Reading(tuple(np.unique(np.linspace(0, total - 1, count).round().astype(int)).tolist()))


def _checkpoint_size(p, width, height, reading):
    return (int(p["size_w"]), int(p["size_h"])) if p.get("size_w") else None


# InternVL

def _internvl_simple_sample(p, total: int, fps: float) -> Reading:
    return Reading(tuple(internvl_index(total, int(p["num_frame"]))))


def _internvl_simple_layout(p, reading: Reading, total: int, fps: float) -> tuple[list[int], Fraction]:
    """The N picks and one filler last: on N + 1 frames the segment size is exactly 1, so ``get_index`` picks
    0..N-1 (on N frames it would repeat one and skip another)."""
    n = len(reading.picks)
    if len(set(reading.picks)) != n:
        raise ValueError("repeated picks (a clip shorter than num_frame)")
    return [*range(n), n - 1], _rate(Fraction(n, max(total, 1)) * _fraction(fps))


def internvl_tiles_budget(p) -> int:
    """The ``max_num`` lmms-eval's InternVL3 wrapper hands ``load_video`` for a video: its tile budget shared by
    ``num_frame`` frames."""
    total_max = int(p.get("total_max_num", 64))
    return max(1, min(int(p.get("max_num", 12)), total_max // int(p["num_frame"])))


def _internvl2_size(p, width, height, reading):
    return (448, 448)  # load_video(max_num=1): one 448 px tile per frame, no thumbnail


def internvl_grid(width: int, height: int, max_num: int, tile: int = 448) -> tuple[int, int]:
    """The (columns, rows) of tiles InternVL's ``dynamic_preprocess`` (``min_num`` 1) cuts a ``width`` x ``height``
    frame into with ``max_num`` tiles at most: its ``find_closest_aspect_ratio``, ties included (a tie goes to a
    later ratio of the same set, iterated as it iterates it, when the frame's area exceeds half the ratio's)."""
    ratios = {(i, j) for n in range(1, max_num + 1) for i in range(1, n + 1) for j in range(1, n + 1)
              if 1 <= i * j <= max_num}
    aspect, area = width / height, width * height
    best_diff, best = float("inf"), (1, 1)
    for ratio in set(sorted(ratios, key=lambda x: x[0] * x[1])):
        diff = abs(aspect - ratio[0] / ratio[1])
        if diff < best_diff:
            best_diff, best = diff, ratio
        elif diff == best_diff and area > 0.5 * tile * tile * ratio[0] * ratio[1]:
            best = ratio
    return best


def _internvl3_size(p, width, height, reading):
    """One tile: the 448 px tile. Several: the composite of the grid and the thumbnail (``video/resize.py``), which
    the glue's reader fix cuts into the tiles ``dynamic_preprocess`` makes of the source frame."""
    from ..video.resize import INTERNVL_TILE, internvl_composite_size

    cols, rows = internvl_grid(width, height, internvl_tiles_budget(p), INTERNVL_TILE)
    if cols * rows == 1:
        return (INTERNVL_TILE, INTERNVL_TILE)
    return internvl_composite_size((cols, rows))


def _internvl_hf_sample(p, total: int, fps: float) -> Reading:
    import torch

    n = int(p["num_frames"])
    if n > total:
        raise ValueError(f"num_frames {n} > {total} frames")
    return Reading(tuple(torch.arange(total / n / 2, total, total / n).int().tolist()))


# API wrappers (base64 PNG frames at the source size)

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


def _source(p, width, height, reading):
    return None


# Wrappers that read through qwen_vl_utils' ``fetch_video`` and hand its frames on whole (Qwen3-VL, Qwen3.5,
# LLaVA-OneVision-1.5's chat class, the OpenAI-style and vLLM chat wrappers): the model-ready clip holds exactly
# the frames ``fetch_video`` returns, resized as it resizes them, and the reader fix the lmms-eval glue installs
# (``lmms_tasks/wrappers.py``) hands them back with the full-rate clip's metadata (its frame rate, the sampled
# indices, its frame count): what Qwen3-VL writes into its prompt as ``<t seconds>``.

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

#: lmms-eval 0.7.3's video wrappers whose sampler and resize the toolkit knows, by "<model id>/<kind>"
WRAPPERS: dict[str, Wrapper] = {w.key: w for w in (
    Wrapper("qwen2_5_vl", "chat", _QWEN_ARGS, "qwen", _qwen_chat_sample, _qwen_reader_size, "qwen",
            _qwen_chat_layout),
    Wrapper("qwen2_5_vl", "simple", _QWEN_ARGS, "qwen", _qwen_simple_sample, _qwen_reader_size, "qwen",
            _qwen_simple_layout),
    Wrapper("llava_hf", "simple", {"max_frames_num": 32}, "decord", _llava_simple_sample, _checkpoint_size,
            "hf", _plain_layout, checkpoint_size=True),
    Wrapper("streamgaze_llava_hf", "chat", {"max_frames_num": 32}, "decord", _streamgaze_llava_sample,
            _checkpoint_size, "hf", _plain_layout, checkpoint_size=True),
    Wrapper("llava_onevision", "simple", {"max_frames_num": 32, "video_decode_backend": "decord"}, "decord",
            _llava_simple_sample, _source, "", _plain_layout, requires={"video_decode_backend": "decord"},
            note="LLaVA-NeXT's processor is not installed here: the frames keep the source size"),
    Wrapper("internvl_hf", "chat", {"num_frames": 32, "fps": None}, "torchcodec", _internvl_hf_sample,
            _checkpoint_size, "hf", _plain_layout, unsupported=("fps",), checkpoint_size=True),
    Wrapper("internvl2", "simple", {"num_frame": 32, "modality": "image"}, "decord", _internvl_simple_sample,
            _internvl2_size, "pil", _internvl_simple_layout, requires={"modality": "video"},
            note="its model code comes from the Hub (trust_remote_code): proven through its load_video"),
    *(Wrapper(name, "simple", {"num_frame": 32, "max_num": 12, "total_max_num": 64, "modality": "image"}, "decord",
              _internvl_simple_sample, _internvl3_size, "internvl", _internvl_simple_layout,
              requires={"modality": "video"},
              note="its model code comes from the Hub (trust_remote_code): proven through its load_video")
      for name in ("internvl3", "internvl3_5")),
    Wrapper("openai", "simple", {"max_frames_num": 10, "video_fps": None}, "decord", _openai_sample, _source, "",
            _plain_layout, unsupported=("video_fps",)),
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
    Wrapper("gpt4v", "simple", {"max_frames_num": 10}, "decord", _gpt4v_sample, _source, "", _plain_layout),
    Wrapper("batch_gpt4", "simple", {"max_frames_num": 10}, "decord", _batch_gpt4_sample, _source, "",
            _plain_layout),
)}
#: lmms-eval aliases of the table's model ids
ALIASES = {"openai_compatible": "openai"}



# ---- a run's choice -------------------------------------------------------------------------------

#: lmms-eval wrappers whose frames the toolkit cannot hand over model-ready, and why: "<model id>/<kind>" -> the
#: reason (``streamgaze eval`` prints it at the end of the run; they get full-rate clips)
UNMATCHED = {
    "sglang/chat": "it hands the clip's path to the SGLang engine, which samples and decodes the frames itself "
                   "(inside the engine: what it sends the model is not the wrapper's to match)",
}


def unmatched_reason(model: str, kind: str, model_args: Mapping[str, Any]) -> str | None:
    """Why a wrapper the toolkit knows gets full-rate clips (:data:`UNMATCHED`; the OpenAI chat wrapper with
    ``pass_video_url``), or None."""
    key = f"{ALIASES.get(model, model)}/{kind}"
    if key == "openai/chat" and str(model_args.get("pass_video_url", "")).strip().lower() in {"1", "true", "yes"}:
        return "with pass_video_url it sends the clip as a file:// URL, and the server decodes it"
    return UNMATCHED.get(key)


#: the wrappers that read no video (the toolkit's baselines): "<model id>/<kind>" -> the model argument that makes
#: them read every document's visuals all the same (a pipeline check)
NO_VIDEO = {"streamgaze_random/simple": "check_visuals", "streamgaze_oracle/simple": "check_visuals"}


def reads_no_video(model: str, kind: str, model_args: Mapping[str, Any]) -> bool:
    """Whether the wrapper never reads a document's video (:data:`NO_VIDEO`): then nothing is cut for it."""
    arg = NO_VIDEO.get(f"{model}/{kind}")
    return arg is not None and str(model_args.get(arg, "")).strip().lower() not in {"1", "true", "yes", "on"}


def frames_request(model: str, kind: str, model_args: Mapping[str, Any]) -> dict | None:
    """What a run needs to choose model-ready frames: ``{"wrapper": "<id>/<kind>", "args": {...}}`` with only
    the arguments the table reads (and ``pretrained``, where the checkpoint's processor decides a size:
    :func:`with_checkpoint_size` replaces it by that size); ``{..., "video": false}`` for a wrapper that reads no
    video (:func:`reads_no_video`); or None for a wrapper the table does not cover (or a sampler mode it does not:
    e.g. ``video_fps``)."""
    if reads_no_video(model, kind, model_args):
        return {"wrapper": f"{model}/{kind}", "args": {}, "video": False}
    wrapper = WRAPPERS.get(f"{ALIASES.get(model, model)}/{kind}")
    if wrapper is None:
        return None
    args = {name: model_args.get(name, default) for name, default in wrapper.args.items()}
    if any(str(args.get(k)) != str(v) for k, v in wrapper.requires.items()):
        return None
    if any(args.get(k) is not None for k in wrapper.unsupported):
        return None
    if wrapper.checkpoint_size:
        args["pretrained"] = str(model_args.get("pretrained", ""))
    return {"wrapper": wrapper.key, "args": args}


def with_checkpoint_size(request: dict) -> dict:
    """``request`` with its ``pretrained`` checkpoint replaced by the size its video processor resizes to
    (``size_w``/``size_h``), read once where the run starts, so that every process of the run (and the record)
    uses the same size; a checkpoint not in the local cache yet leaves no size (frames keep the source size)."""
    args = dict(request["args"])
    if "pretrained" in args:
        size = checkpoint_video_size(str(args.pop("pretrained")))
        if size is not None:
            args["size_w"], args["size_h"] = size
    return {**request, "args": args}


@dataclass(frozen=True)
class FramesSpec:
    """A run's model-ready frames: the wrapper, the arguments its sampler and resize read (the checkpoint's
    video-processor size resolved: ``size_w``/``size_h``), and the reader backend whose metadata it sees."""

    wrapper: str
    params: tuple[tuple[str, Any], ...]
    reader: str

    @property
    def row(self) -> Wrapper:
        return WRAPPERS[self.wrapper]

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.params)

    def describe(self) -> str:
        """One line: ``<id>/<kind> k=v ... reader=<backend> v<PLAN_VERSION>`` (:meth:`parse` reads it back)."""
        parts = [self.wrapper, *(f"{k}={json.dumps(v)}" for k, v in self.params), f"reader={self.reader}",
                 f"v{PLAN_VERSION}"]
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> FramesSpec:
        parts = text.split()
        if len(parts) < 3 or parts[0] not in WRAPPERS or not parts[-1].startswith("v"):
            raise StreamGazeError(f"not a model-frames description: {text!r}")
        if parts[-1] != f"v{PLAN_VERSION}":
            raise StreamGazeError(f"model frames of plan version {parts[-1][1:]} (this toolkit makes {PLAN_VERSION})")
        params, reader = [], ""
        for part in parts[1:-1]:
            k, _, v = part.partition("=")
            if k == "reader":
                reader = v
            else:
                params.append((k, json.loads(v)))
        return cls(parts[0], tuple(params), reader)

    def plan(self, total: int, fps: float, width: int, height: int) -> FramePlan:
        """The model-ready clip of a full-rate clip of ``total`` frames at ``fps`` (as :attr:`reader` reports
        them) and ``width`` x ``height``; raises ValueError when the wrapper would fail on the full-rate clip
        too, or when no layout passes the check (the document then gets its full-rate clip)."""
        row, p = self.row, self.args
        reading = row.sample(p, total, fps)
        if not reading.picks:
            raise ValueError("the sampler picks no frame")
        distinct = _distinct_in_order(reading.picks)
        order_idx, rate = (row.layout or _plain_layout)(p, reading, total, fps)
        order = tuple(distinct[i] for i in order_idx)
        size = row.size(p, width, height, reading)
        if size is not None and size == (width, height) and not is_composite(row.kernel, size):
            size = None  # (a composite of the source's own size is still a composite)
        plan = FramePlan(order, size, row.kernel if size else "", rate, reading.picks, reading.timing)
        self.check(plan, width, height)
        return plan

    def check(self, plan: FramePlan, width: int, height: int) -> None:
        """Raise ValueError unless the wrapper's sampler on the model-ready clip (``len(plan.order)`` frames at
        ``plan.rate``) reaches exactly the full-rate frames it reaches (and the same timing, to float32), and its
        resize leaves the model-ready size unchanged."""
        small = self.check_read(plan, len(plan.order), float(plan.rate))
        if plan.size is not None and not is_composite(plan.kernel, plan.size):  # a composite: the reader fix reads it
            w, h = plan.size
            again = self.row.size(self.args, w, h, small)
            if again not in (None, (w, h)):
                raise ValueError(f"{self.wrapper}: a {w}x{h} frame would be resized again to {again}")

    def check_read(self, plan: FramePlan, n_frames: int, fps: float) -> Reading:
        """The wrapper's reading of a model-ready clip its reader reports as ``n_frames`` at ``fps``; raises
        ValueError unless it reaches exactly ``plan.seen`` (and ``plan.timing``, to float32)."""
        import numpy as np

        if self.row.hook:  # the reader fix returns every frame, with the full-rate clip's metadata
            if n_frames != len(plan.order):
                raise ValueError(f"{self.wrapper}: {n_frames} frames in the model-ready clip, {len(plan.order)} planned")
            small = Reading(tuple(range(n_frames)), decoded=n_frames)
        else:
            small = self.row.sample(self.args, n_frames, fps)
        seen = tuple(plan.order[i] for i in small.picks)
        if seen != plan.seen:
            raise ValueError(f"{self.wrapper}: the model-ready clip would be read as {seen}, not {plan.seen}")
        if (small.timing is None) != (plan.timing is None) or (
                plan.timing is not None and np.float32(2.0 / small.timing) != np.float32(2.0 / plan.timing)):
            raise ValueError(f"{self.wrapper}: timing {small.timing} on the model-ready clip, {plan.timing} on the "
                             "full-rate one")
        return small


@lru_cache(maxsize=256)
def _parsed(text: str) -> FramesSpec:
    return FramesSpec.parse(text)


def frames_spec(value: FramesSpec | str) -> FramesSpec:
    """The one reading of a frame spec: ``value`` as written (:meth:`FramesSpec.describe`: a document's
    ``model_ready``, a model-ready clip's sidecar, a job) parsed once per text in this process; a
    :class:`FramesSpec` as it is."""
    return value if isinstance(value, FramesSpec) else _parsed(str(value))


def is_composite(kernel: str, size: tuple[int, int] | None) -> bool:
    """Whether a model-ready frame of ``size`` made with ``kernel`` is an InternVL composite (several tiles and a
    thumbnail in one frame, ``video/resize.py``)."""
    from ..video.resize import INTERNVL_TILE

    return kernel == "internvl" and size is not None and tuple(size) != (INTERNVL_TILE, INTERNVL_TILE)


def reader_backend(row: Wrapper, environ: Mapping[str, str] | None = None) -> str:
    """The library whose metadata a wrapper sees: qwen_vl_utils' backend (``FORCE_QWENVL_VIDEO_READER``, else
    torchcodec where importable, else decord), or the row's fixed reader."""
    if row.reader != "qwen":
        return row.reader
    env = os.environ if environ is None else environ
    forced = env.get("FORCE_QWENVL_VIDEO_READER")
    if forced:
        return forced
    import importlib.util

    return "torchcodec" if importlib.util.find_spec("torchcodec") is not None else "decord"


def resolve_spec(request: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> FramesSpec | None:
    """The :class:`FramesSpec` of a :func:`frames_request`: the checkpoint's video-processor size read from the
    checkpoint (a local directory, or the Hugging Face cache: never the network) where the row needs it; None
    when the reader cannot be used."""
    row = WRAPPERS.get(str(request.get("wrapper")))
    if row is None:
        return None
    args = dict(request.get("args") or {})
    pretrained = args.pop("pretrained", None)
    if row.checkpoint_size and "size_w" not in args:
        size = checkpoint_video_size(str(pretrained or ""))
        if size is not None:
            args["size_w"], args["size_h"] = size
    reader = reader_backend(row, environ)
    if reader not in ("decord", "torchcodec"):
        return None
    return FramesSpec(row.key, tuple(sorted(args.items())), reader)


def checkpoint_video_size(pretrained: str) -> tuple[int, int] | None:
    """(width, height) a checkpoint's Hugging Face video processor resizes every frame to (a fixed
    ``size: {height, width}`` with bicubic resampling), or None (unknown, or not a fixed size)."""
    return _checkpoint_video_size(pretrained) if pretrained else None


@lru_cache(maxsize=16)
def _checkpoint_video_size(pretrained: str) -> tuple[int, int] | None:
    config = _video_processor_config(pretrained)
    if not config or not config.get("do_resize", True) or int(config.get("resample", 3)) != 3:
        return None
    size = config.get("size") or {}
    if isinstance(size, dict) and "height" in size and "width" in size:
        return int(size["width"]), int(size["height"])
    return None


def _video_processor_config(pretrained: str) -> dict | None:
    for name, inner in (("processor_config.json", "video_processor"), ("video_preprocessor_config.json", None),
                        ("preprocessor_config.json", None)):
        path = _checkpoint_file(pretrained, name)
        if path is None:
            continue
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if inner:
            data = data.get(inner)
        if isinstance(data, dict) and data:
            return data
    return None


def _checkpoint_file(pretrained: str, name: str) -> str | None:
    local = Path(pretrained).expanduser()
    if local.is_dir():
        return str(local / name) if (local / name).is_file() else None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - a dependency
        return None
    try:
        found = try_to_load_from_cache(pretrained, name)
    except Exception:  # a malformed repo id: not a Hub checkpoint
        return None
    return found if isinstance(found, str) else None
