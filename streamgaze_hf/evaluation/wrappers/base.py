"""What every row of the wrapper table is made of (``table.py``): a wrapper's :class:`Reading` of a clip, the
:class:`FramePlan` of a model-ready clip, the :class:`Wrapper` row itself, and the layouts and sizes several
families share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


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


def linspace_int(stop: int, count: int) -> list[int]:
    """``np.linspace(0, stop, count, dtype=int)`` (floor; repeats kept)."""
    import numpy as np

    return np.linspace(0, stop, count, dtype=int).tolist()


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


def _source(p, width, height, reading):
    return None


# Wrappers that read through qwen_vl_utils' ``fetch_video`` and hand its frames on whole (Qwen3-VL, Qwen3.5,
# LLaVA-OneVision-1.5's chat class, the OpenAI-style and vLLM chat wrappers): the model-ready clip holds exactly
# the frames ``fetch_video`` returns, resized as it resizes them, and the reader fix the lmms-eval glue installs
# (``lmms_tasks/wrappers.py``) hands them back with the full-rate clip's metadata (its frame rate, the sampled
# indices, its frame count): what Qwen3-VL writes into its prompt as ``<t seconds>``.


def _checkpoint_size(p, width, height, reading):
    """The size a Hugging Face video processor brings frames to: the checkpoint's (``size_w``, ``size_h``,
    ``model_frames.with_checkpoint_size``), or the source size when it is not known."""
    return (int(p["size_w"]), int(p["size_h"])) if p.get("size_w") else None
