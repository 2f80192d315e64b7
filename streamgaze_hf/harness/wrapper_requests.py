"""An lmms-eval model wrapper asked one request at a time, the way an lmms-eval run of our tasks asks it (the streaming
path: ``streamgaze stream-eval --model lmms:<name>``).

:class:`WrapperRequests` instantiates the wrapper through lmms-eval's own model registry, as ``lmms_eval``'s evaluator
does (``get_model(name).create_from_arg_string(model_args, {batch_size 1, ...})``: the chat class where the model has
one), and builds each request as lmms-eval's task builds it from our task file (read with lmms-eval's own YAML loader,
``!function``s resolved): a simple wrapper gets ``(context, generation kwargs, doc_to_visual, doc id, task, split)``,
a chat wrapper ``(context, doc_to_messages, generation kwargs, doc id, task, split)``, the generation kwargs as
lmms-eval's ``TaskConfig`` completes them, the document in the wrapper's ``task_dict``. The wrapper's
``generate_until`` does the generation: no second model implementation.

Only a wrapper whose frames the toolkit hands over model-ready is accepted (:func:`refusal`: the one rule,
``frames_for``): its documents name the frames it samples, so each request's clip holds exactly those.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..util.errors import StreamGazeError
from .model import WrapperChoice, frames_for, resolve_wrapper

__all__ = ["WrapperRequests", "choose_wrapper", "refusal"]

#: the split of every task of ours (the template's ``test_split``)
SPLIT = "test"


def refusal(choice: WrapperChoice) -> str | None:
    """Why the streaming path cannot drive ``choice`` (one line), or None: a wrapper that reads no video, one the
    toolkit's table of model-ready frames does not cover (``evaluation/wrappers/``), or one it covers but cannot hand
    model-ready frames (``unmatched_reason``)."""
    from ..evaluation import frames_request, reads_no_video, unmatched_reason

    name = f"{choice.model_id}/{choice.kind}"
    if reads_no_video(choice.model_id, choice.kind, choice.args):
        return f"{name} reads no video (a baseline): use --model random or oracle"
    reason = unmatched_reason(choice.model_id, choice.kind, choice.args)
    if reason:
        return f"{name}: {reason}, so the toolkit cannot hand it a window's frames"
    if frames_request(choice.model_id, choice.kind, choice.args) is None:
        return (f"{name} with these model args is not covered by the toolkit's table of model-ready frames "
                "(evaluation/wrappers/): which frames it samples from a window is not known")
    return None


def choose_wrapper(name: str, model_args: str, force_simple: bool = False) -> tuple[WrapperChoice, str]:
    """The wrapper lmms-eval resolves ``--model name --model_args model_args`` (and ``--force_simple``) to and the
    frames its clips are made for (``RunSettings.model``: ``frames_for``'s JSON); checked before any work.

    Raises:
        StreamGazeError: lmms-eval is not installed, it has no model ``name``, or :func:`refusal` refuses it.
    """
    from ..util.preflight import require_module

    shown = f"lmms:{name}" + ("/simple" if force_simple else "")
    require_module("lmms_eval", f"--model {shown}")
    choice = resolve_wrapper(["--model", name, "--model_args", model_args, *(["--force_simple"] * force_simple)])
    if choice is None:
        raise StreamGazeError(f"--model {shown}: lmms-eval has no model {name!r} (`lmms-eval --help` lists them)")
    why = refusal(choice)
    if why and not force_simple and choice.kind == "chat":
        simple = resolve_wrapper(["--model", name, "--model_args", model_args, "--force_simple"])
        if simple is not None and simple.kind == "simple" and refusal(simple) is None:
            why += f" (its simple wrapper is covered: --model lmms:{name}/simple)"
    if why:
        raise StreamGazeError(f"--model {shown}: refused: {why}")
    return choice, frames_for(choice, "model")


@dataclass(frozen=True)
class TaskRequests:
    """What lmms-eval's task of one task file gives each request: its functions and generation kwargs."""

    name: str
    doc_to_visual: Any
    doc_to_text: Any
    doc_to_messages: Any
    generation_kwargs: dict
    specific_kwargs: dict | None


def task_requests(task_file: Path, model_name: str, gen_kwargs: dict | None = None) -> TaskRequests:
    """Read one task file as lmms-eval reads it (``load_yaml_config``, ``TaskConfig``), the model-specific prompt
    and generation kwargs as ``ConfigurableTask._prepare_model_specific_config`` picks them for ``model_name``, and
    lmms-eval's ``--gen_kwargs`` (``gen_kwargs``, parsed) over them as its evaluator sets them."""
    import dataclasses

    from lmms_eval.api.task import TaskConfig
    from lmms_eval.utils import load_yaml_config

    raw = load_yaml_config(str(task_file))
    fields = {f.name for f in dataclasses.fields(TaskConfig)}
    config = TaskConfig(**{k: v for k, v in raw.items() if k in fields})
    specific = copy.deepcopy(config.lmms_eval_specific_kwargs)
    if specific is not None:
        if model_name in specific:
            specific = specific[model_name]
        elif "default" in specific:
            specific.update(specific.get("default", {}))
    generation = dict(config.generation_kwargs or {})
    per_model = config.model_specific_generation_kwargs
    if per_model:
        generation.update(per_model.get(model_name, per_model.get("default", {})))
    generation.update(gen_kwargs or {})
    return TaskRequests(config.task, config.doc_to_visual, config.doc_to_text, config.doc_to_messages, generation,
                        specific)


class WrapperRequests:
    """One lmms-eval wrapper (module docstring), loaded once; :meth:`generate` asks it one document."""

    def __init__(self, name: str, model_args: str, choice: WrapperChoice, gen_kwargs: str = "") -> None:
        from lmms_eval.models import get_model
        from lmms_eval.utils import simple_parse_args_string

        from .backends import choose_backends
        from .process import prepare_lmms_eval_process

        choose_backends()  # the readers `streamgaze eval` gives the wrapper, before they load
        prepare_lmms_eval_process()
        self.name, self.choice = name, choice
        try:
            self.gen_kwargs = simple_parse_args_string(gen_kwargs) if gen_kwargs else {}
        except ValueError as exc:
            raise StreamGazeError(f"--gen-kwargs {gen_kwargs!r}: {exc}") from None
        cls = get_model(name, force_simple=choice.kind == "simple")
        try:
            self.lm = cls.create_from_arg_string(model_args, {"batch_size": 1, "max_batch_size": None,
                                                              "device": None})
        except (TypeError, ValueError, OSError) as exc:
            raise StreamGazeError(f"--model lmms:{name}: lmms-eval's wrapper did not load ({exc})") from None
        self.chat = not getattr(self.lm, "is_simple", True)
        self._tasks: dict[str, TaskRequests] = {}

    def _task(self, task_name: str, benchmark: str) -> TaskRequests:
        if task_name not in self._tasks:
            from .task_files import task_folder

            path = Path(task_folder()) / benchmark / f"{task_name}.yaml"
            if not path.is_file():
                raise StreamGazeError("no such task file", path)
            self._tasks[task_name] = task_requests(path, self.name, self.gen_kwargs)
        return self._tasks[task_name]

    def instance(self, doc: dict, task_name: str, benchmark: str):
        """The lmms-eval ``Instance`` of ``doc`` in the task ``task_name`` (doc id 0), as the task builds it; the
        document is put where the wrapper looks it up (``task_dict``)."""
        from lmms_eval.api.instance import Instance

        t = self._task(task_name, benchmark)
        context = t.doc_to_text(doc, t.specific_kwargs) if t.specific_kwargs is not None else t.doc_to_text(doc)
        generation = copy.deepcopy(t.generation_kwargs)
        self.lm.task_dict = {t.name: {SPLIT: {0: doc}}}
        if self.chat:
            specific = t.specific_kwargs

            def doc_to_messages(d, **_round):
                return t.doc_to_messages(d, specific) if specific is not None else t.doc_to_messages(d)

            args = (context, doc_to_messages, generation, 0, t.name, SPLIT)
        else:
            args = (context, generation, t.doc_to_visual, 0, t.name, SPLIT)
        return Instance(request_type="generate_until", arguments=args, idx=0,
                        metadata={"task": t.name, "doc_id": 0, "repeats": 1})

    def generate(self, doc: dict, task_name: str, benchmark: str) -> str:
        """The wrapper's response to ``doc`` (its ``generate_until`` on the one request)."""
        from lmms_eval.api.instance import unwrap_generation_output

        out = self.lm.generate_until([self.instance(doc, task_name, benchmark)])
        if not out:
            return ""
        text, _counts = unwrap_generation_output(out[0])
        return str(text)
