"""The run's model wrapper, as lmms-eval will resolve it, and the frames it is handed.

lmms-eval picks a wrapper class from ``--model`` (an id or alias) and ``--force_simple`` (the chat class
whenever the model has one, unless forced), and passes ``--model_args`` parsed by its own parser. This module
asks lmms-eval's registry and parser the same questions (function-level imports, only when a run names a
model), and hands the answer to the table of ``streamgaze_hf/evaluation/model_frames.py``:
:func:`resolve_wrapper` gives the :class:`WrapperChoice` (model id, class kind, args) of lmms-eval's arguments, and
:func:`frames_for` is the one rule for which wrapper a run's clips are made for (``streamgaze eval``,
``streamgaze clips warm`` and a plain ``lmms-eval`` run of our tasks all ask it): the JSON of the
``frames_request`` (``RunSettings.model``, ``$STREAMGAZE_MODEL``), or "" for full-rate clips.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .lmms_args import LmmsArgs, parse_lmms_args


@dataclass(frozen=True)
class WrapperChoice:
    """Which wrapper a run uses: the ``--model`` asked for, lmms-eval's canonical model id, its class kind
    ("chat"/"simple") and its ``--model_args``. What a wrapper does with a clip is its row of the one table
    (``evaluation/wrappers/``, a ``Wrapper``), found by ``model_id``/``kind``."""

    requested: str
    model_id: str
    kind: str
    args: dict


def resolve_wrapper(args: Sequence[str] | LmmsArgs) -> WrapperChoice | None:
    """The wrapper lmms-eval's arguments name, resolved as lmms-eval resolves them.

    Args:
        args: lmms-eval's arguments (``--model``, ``--model_args``, ``--force_simple``; read by
            :func:`~streamgaze_hf.harness.lmms_args.parse_lmms_args`).

    Returns:
        The :class:`WrapperChoice`; None without ``--model``, or for a name lmms-eval's registry does not know
        (lmms-eval reports that itself).
    """
    parsed = parse_lmms_args(args)
    name = parsed.model
    if not name:
        return None
    from lmms_eval.models import MODEL_REGISTRY_V2
    from lmms_eval.utils import simple_parse_args_string

    try:
        resolved = MODEL_REGISTRY_V2.resolve(name, force_simple=parsed.force_simple)
    except Exception:  # an unknown model: lmms-eval fails with its own message
        return None
    try:
        model_args = simple_parse_args_string(parsed.model_args or "")
    except ValueError:
        model_args = {}
    return WrapperChoice(name, resolved.model_id, resolved.model_type, model_args)


def frames_for(wrapper: WrapperChoice | None, frames: str = "model") -> str:
    """The wrapper a run's clips are made for (``RunSettings.model``): the one rule.

    Args:
        wrapper: the run's wrapper (:func:`resolve_wrapper`), or None.
        frames: the run's ``--frames`` choice, ``model`` (model-ready clips where the wrapper is known) or
            ``full`` (full-rate clips for every wrapper).

    Returns:
        The table's request for ``wrapper`` as JSON (``model_frames.frames_request``, with the checkpoint's own
        size; a wrapper that reads no video says so, and then nothing is cut for it), or "": full-rate clips
        (``frames`` is ``full``, no wrapper, or one whose sampler the toolkit does not know).
    """
    from ..evaluation import frames_request, reads_no_video, with_checkpoint_size

    if wrapper is None:
        return ""
    if reads_no_video(wrapper.model_id, wrapper.kind, wrapper.args):  # whatever --frames says: nothing is cut
        return json.dumps(frames_request(wrapper.model_id, wrapper.kind, wrapper.args), sort_keys=True)
    if frames != "model":
        return ""
    request = frames_request(wrapper.model_id, wrapper.kind, wrapper.args)
    return "" if request is None else json.dumps(with_checkpoint_size(request), sort_keys=True)


def lmms_model_names() -> list[str]:
    """Every ``--model`` name lmms-eval can load: its registry's ids and aliases, with the models of the
    installed ``lmms_eval.models`` entry points (and ``LMMS_EVAL_PLUGINS``). Reads lmms-eval's registry
    (``lmms_eval.models``, about 0.2 s), never imports a model's own module."""
    from lmms_eval.models import list_available_models

    return list_available_models(include_aliases=True)
