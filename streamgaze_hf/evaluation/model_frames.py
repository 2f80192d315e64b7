"""Model-ready frames: what each lmms-eval video wrapper does with a clip, so that it can be handed only that.

A wrapper given a window clip reads its frame count (and for some its frame rate), picks frames with its
own sampler, decodes them and resizes them for its processor, all on the model's critical path. The table
:data:`WRAPPERS` (``wrappers/``: each family in one module, ``wrappers/qwen.py`` is how Qwen samples) is the one
place that knows, per wrapper of lmms-eval 0.7.3 (keyed by lmms-eval model id and class kind, ``chat`` or
``simple``):

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
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..util.errors import StreamGazeError
from .wrappers.base import (  # noqa: F401 - the table's names, as the callers know them
    FramePlan,
    Reading,
    Wrapper,
    _distinct_in_order,
    _plain_layout,
    linspace_int,
)
from .wrappers.internvl import internvl_grid, internvl_index, internvl_tiles_budget  # noqa: F401
from .wrappers.qwen import (  # noqa: F401
    qwen_ele_nframes,
    qwen_fetch_size,
    qwen_indices,
    qwen_smart_nframes,
    qwen_smart_resize,
    qwen_video_pixels,
)
from .wrappers.table import ALIASES, WRAPPERS

#: bumped when a plan for the same spec and clip would change (part of every model-ready clip's cache key)
PLAN_VERSION = 2  # 2: InternVL3's frames of several tiles are composites (``internvl`` kernel), no longer the source


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
    from ..video import INTERNVL_TILE

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
