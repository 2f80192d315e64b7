"""One evaluation, worked out once before lmms-eval starts: :class:`EvalPlan`.

``streamgaze eval`` parses its arguments and calls :func:`plan_evaluation`, then
``streamgaze_hf.harness.run.run_evaluation``; ``streamgaze clips warm`` builds its settings with the same
:func:`run_settings_for`. The plan holds, as values:

* the dataset, opened once (``dataset.load.DatasetHandle``) and its benchmark;
* lmms-eval's arguments (the protocol's generation added, ``--tasks`` planned against the dataset);
* the protocol, the video readers the wrappers get (``decode_backends``), the wrapper the frames are made
  for (``harness/model.py``: :func:`~streamgaze_hf.harness.model.frames_for`) and the run's ``RunSettings``;
* what the results files record.

Nothing is passed through ``os.environ``, and nothing through a process global: the run's task files
(``harness/run.py``: ``run_task_folder``) name its dataset and settings under their ``metadata``, and the
lmms-eval glue reads them there. A plain ``lmms-eval`` run of our tasks has no plan, and the glue builds its
settings from the environment (``RunSettings.from_env``) and lmms-eval's command line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..registry import Benchmark, default_benchmark, get_benchmark, task_index
from .lmms_args import LmmsArgs, parse_lmms_args

if TYPE_CHECKING:
    from ..dataset import DatasetHandle
    from ..evaluation import Protocol, RunSettings
    from .model import WrapperChoice

__all__ = ["EvalPlan", "plan_evaluation", "choose_benchmark", "run_settings_for"]


@dataclass(frozen=True)
class EvalPlan:
    """One evaluation run (module docstring).

    Attributes:
        dataset: the evaluated dataset, opened once.
        lmms_args: lmms-eval's arguments as the run passes them, read once (``lmms_args.LmmsArgs``).
        settings: the run's settings (``settings.model``: the wrapper the frames are made for, "" = full-rate).
        wrapper: the run's wrapper as lmms-eval resolves it (None: no ``--model``, or one lmms-eval does not know).
        protocol: the ``--protocol`` chosen, or None.
        decode_backends: the video readers the wrappers get (variable -> backend).
        recorded: what the results files record under ``"streamgaze"`` (before the reading-time summary).
    """

    dataset: DatasetHandle
    lmms_args: LmmsArgs
    settings: RunSettings
    wrapper: WrapperChoice | None = None
    protocol: Protocol | None = None
    decode_backends: dict[str, str] = field(default_factory=dict)
    recorded: dict = field(default_factory=dict)

    @property
    def benchmark(self) -> Benchmark:
        """The benchmark whose tasks run (the dataset's)."""
        return self.dataset.benchmark


def choose_benchmark(requested: str | None, dataset: DatasetHandle | None,
                     lmms_args: Sequence[str] | LmmsArgs) -> tuple[Benchmark, str]:
    """The benchmark an evaluation runs, and why: the one asked for (BENCH or ``--benchmark``), else the
    dataset's, else the one every requested task belongs to, else the default benchmark.

    Args:
        requested: the benchmark's name as given, or None.
        dataset: the dataset given (``--dataset``), opened, or None.
        lmms_args: lmms-eval's arguments (their ``--tasks``).

    Returns:
        (the benchmark, the reason, for messages).
    """
    from .checks import benchmarks_of_tasks

    if requested is not None:
        return get_benchmark(requested), "the benchmark given"
    if dataset is not None:
        return dataset.benchmark, f"the benchmark of --dataset {dataset.reference}"
    owners = benchmarks_of_tasks(parse_lmms_args(lmms_args).tasks, task_index())
    if len(owners) == 1:
        return next(iter(owners)), "the benchmark of the tasks"
    return default_benchmark(), "the default: give BENCH or --dataset"


def run_settings_for(lmms_args: Sequence[str] | LmmsArgs,
                     **flags: str | float | None) -> tuple[RunSettings, WrapperChoice | None]:
    """A run's settings: the command's flags over the environment, and the wrapper its frames are made for.

    Args:
        lmms_args: lmms-eval's arguments (``--model``, ``--model_args``, ``--force_simple`` name the wrapper).
        **flags: ``prompt_mode``, ``clip_fps``, ``protocol``, ``proxy``, ``frames``: each given (not None)
            overrides its variable (``evaluation.settings.with_flags``).

    Returns:
        (the settings, with ``model`` = :func:`~streamgaze_hf.harness.model.frames_for` of the wrapper; the wrapper
        or None).

    Raises:
        StreamGazeError: a flag or variable with a bad value.
    """
    from ..evaluation import with_flags
    from .model import frames_for, resolve_wrapper

    chosen = with_flags(**flags)
    parsed = parse_lmms_args(lmms_args)
    wrapper = resolve_wrapper(parsed) if parsed.model else None
    return replace(chosen, model=frames_for(wrapper, chosen.frames)), wrapper


def plan_evaluation(reference: str | None, lmms_args: Sequence[str] | LmmsArgs, *, benchmark: str | None = None,
                    prompt_mode: str | None = None, clip_fps: float | None = None, protocol: str | None = None,
                    proxy: str | None = None, frames: str | None = None) -> EvalPlan:
    """Work out an evaluation once, checking everything that can be checked before lmms-eval starts.

    The model and the task names are checked first (about a second: a typo ends here, before any dataset is
    read), then the dataset is opened once, then the settings are validated against it.

    Args:
        reference: the dataset (``--dataset``/``--root``: a directory or ``hf://`` reference), or None: the
            benchmark's ``$..._ROOT``, else its default directory.
        lmms_args: lmms-eval's arguments.
        benchmark: the benchmark asked for (BENCH or ``--benchmark``), or None.
        prompt_mode: ``--prompt-mode``, or None (``$STREAMGAZE_PROMPT_MODE``, else ``default``).
        clip_fps: ``--clip-fps``, or None.
        protocol: ``--protocol``, or None.
        proxy: ``--proxy``, or None.
        frames: ``--frames``, or None.

    Returns:
        The :class:`EvalPlan`.

    Raises:
        StreamGazeError: an unknown model or task name, a task of another benchmark whose dataset is not found,
            no dataset (or one of another benchmark), a task with no questions, or a bad setting.
    """
    from ..dataset import missing_dataset, open_dataset
    from ..evaluation import get_protocol, run_record
    from .backends import choose_backends
    from .checks import check_model, check_task_names, plan_tasks, tasks_elsewhere
    from .model import lmms_model_names

    args = parse_lmms_args(lmms_args)
    check_model(args, lmms_model_names)
    names = args.tasks
    index = task_index()
    check_task_names(names, index)
    given = open_dataset(reference) if reference is not None and benchmark is None else None
    bench, why = choose_benchmark(benchmark, given, args)
    tasks_elsewhere(names, index, bench, why, missing_dataset)
    dataset = given or open_dataset(reference, benchmark=bench)  # a Hub tag: its commit, once
    chosen_protocol = get_protocol(protocol) if protocol else None
    if chosen_protocol is not None and chosen_protocol.generation and args.gen_kwargs is None:
        args = args.with_option("--gen_kwargs", chosen_protocol.gen_kwargs())
    backends = choose_backends()  # before lmms-eval and qwen_vl_utils load: they read the variables once
    settings, wrapper = run_settings_for(args, prompt_mode=prompt_mode, clip_fps=clip_fps, proxy=proxy,
                                         protocol=chosen_protocol.name if chosen_protocol else None, frames=frames)
    recorded = {**run_record(settings, dataset), "decode_backends": backends}  # the proxy checked too
    args = parse_lmms_args(plan_tasks(args, index, dataset.is_empty_task,
                                      lambda note: print(f"streamgaze: note: {note}", file=sys.stderr)))
    return EvalPlan(dataset, args, settings, wrapper, chosen_protocol, backends, recorded)
