"""The run's model wrapper, as lmms-eval will resolve it, and the frames it is handed (``streamgaze eval``).

lmms-eval picks a wrapper class from ``--model`` (an id or alias) and ``--force_simple`` (the chat class
whenever the model has one, unless forced), and passes ``--model_args`` parsed by its own parser. This module
asks lmms-eval's registry and parser the same questions (function-level imports: the library never imports
lmms-eval), and hands the answer to the table of ``streamgaze_hf/evaluation/model_frames.py``:
:func:`run_model` gives ``(model id, kind, args)``, :func:`frames_choice` the JSON of the
``frames_request`` (``$STREAMGAZE_MODEL``) or "" for a wrapper the table does not know.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RunModel:
    """The wrapper a run uses: lmms-eval's canonical model id, its class kind ("chat"/"simple"), its args."""

    requested: str
    model_id: str
    kind: str
    args: dict


def _arg(args: Sequence[str], name: str) -> str | None:
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def run_model(args: Sequence[str]) -> RunModel | None:
    """The wrapper lmms-eval's arguments ``args`` name (None without ``--model``, or for a name lmms-eval's
    registry does not know: lmms-eval reports that itself)."""
    name = _arg(args, "--model")
    if not name:
        return None
    force_simple = "--force_simple" in args
    from lmms_eval.models import MODEL_REGISTRY_V2
    from lmms_eval.utils import simple_parse_args_string

    try:
        resolved = MODEL_REGISTRY_V2.resolve(name, force_simple=force_simple)
    except Exception:  # an unknown model: lmms-eval fails with its own message
        return None
    try:
        model_args = simple_parse_args_string(_arg(args, "--model_args") or "")
    except ValueError:
        model_args = {}
    return RunModel(name, resolved.model_id, resolved.model_type, model_args)


def frames_choice(model: RunModel | None) -> str:
    """``$STREAMGAZE_MODEL`` for the run: the table's request for ``model`` as JSON, or "" (not a wrapper whose
    sampler the toolkit knows: full-rate clips)."""
    from ..evaluation.model_frames import frames_request, with_checkpoint_size

    if model is None:
        return ""
    request = frames_request(model.model_id, model.kind, model.args)
    return "" if request is None else json.dumps(with_checkpoint_size(request), sort_keys=True)
