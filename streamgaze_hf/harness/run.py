"""Run lmms-eval in this process over our task folder (``streamgaze eval``).

* :func:`run_evaluation`: one planned evaluation (``plan.py``: :class:`~streamgaze_hf.harness.plan.EvalPlan`)
  from the files it needs to the reading-time summary, its first clips begun before lmms-eval starts
  (``head_start.py``);
* :func:`run_lmms_eval`: lmms-eval's own CLI with ``--include_path`` set to our task folder
  (``task_files.py``); a run of our tasks only skips lmms-eval's index of its ~3,400 built-in task YAMLs
  (:func:`skip_builtin_task_index`, a patch of its ``TaskManager``);
* :func:`prepare_files`: fetch (a Hub dataset) and verify what the run's tasks read, before it starts;
* :func:`annotate_results`: record the run's settings in the results files it wrote; :func:`redact_files`:
  no secret in any text file it wrote.

Whether the run produced its results is checked by :mod:`streamgaze_hf.harness.checks`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..registry import task_index
from ..util.errors import StreamGazeError
from .lmms_args import LmmsArgs, parse_lmms_args

if TYPE_CHECKING:
    from ..dataset import DatasetHandle
    from .plan import EvalPlan


def run_evaluation(plan: EvalPlan) -> int:
    """Run one planned evaluation: fetch and verify what its tasks read, start its first clips in the background
    (``head_start.py``), run lmms-eval over the run's task folder (:func:`run_task_folder`: the glue takes the
    run's dataset and settings from its task files), check its results, record the settings in them (with what the
    background and the head start did), and print the time the wrapper spent reading video.

    Args:
        plan: the evaluation (``plan.plan_evaluation``).

    Returns:
        0 when lmms-eval wrote results for every requested task (``checks.run_checked``).

    Raises:
        StreamGazeError: a file is missing or damaged, our task code stopped the run, or (``EvalRunFailed``, exit
            status 1) lmms-eval wrote no or incomplete results.
    """
    import tempfile

    from . import video_time
    from .checks import run_checked
    from .head_start import start_head_start

    args = plan.lmms_args
    prepare_files(plan.dataset, args)
    from ..evaluation import background_summary

    head = start_head_start(plan)  # the first clips while lmms-eval starts and the model loads
    try:
        with tempfile.TemporaryDirectory(prefix="streamgaze-tasks-") as folder:
            tasks = run_task_folder(plan, folder)
            rc = run_checked(args, video_time.measured(lambda a: run_lmms_eval(a, include_path=tasks)),
                             lambda paths: annotate_results(paths, {
                                 **plan.recorded, "video_read": video_time.summary(),
                                 "background": background_summary(), "head_start": head.join()}),
                             redact_files)
    finally:
        head.join()
    read = video_time.summary()
    print(video_time.format_summary(read), file=sys.stderr)
    note = full_rate_note(plan, read)
    if note:
        print(note, file=sys.stderr)
    return rc


def run_task_folder(plan: EvalPlan, folder: str) -> str | None:
    """Write the run's task files into ``folder`` (``task_files.run_task_files``: every template names the run's
    settings, and its benchmark's the dataset the plan opened, under ``metadata``) and return it as the run's
    include path; None when lmms-eval's arguments name an include path of their own (then the glue reads the
    settings from the environment and lmms-eval's arguments, as in a plain ``lmms-eval`` run: a note says so)."""
    from pathlib import Path

    from .task_files import run_task_files, settings_metadata, write_task_files

    if plan.lmms_args.include_path is not None:
        print(f"streamgaze: note: --include_path {plan.lmms_args.include_path} given: its tasks get the settings of "
              "the environment and lmms-eval's arguments, not this command's flags", file=sys.stderr)
        return None
    settings = settings_metadata(plan.settings)
    write_task_files(Path(folder), run_task_files(plan.dataset.root, plan.benchmark.name, settings))
    return folder


def full_rate_note(plan: EvalPlan, read: dict) -> str:
    """The line that says why the run's wrapper got full-rate clips under ``--frames model``: one the toolkit
    knows but cannot match (``model_frames.unmatched_reason``), or one whose sampler it does not know; "" when it
    got model-ready clips (or read no video)."""
    from ..evaluation import unmatched_reason

    wrapper = plan.wrapper
    if wrapper is None or plan.settings.frames != "model" or plan.settings.model:
        return ""
    cost = (f"; reading them cost a median of {read['video_read_median_ms']:.0f} ms per question"
            if read.get("video_read_s") else "")
    reason = unmatched_reason(wrapper.model_id, wrapper.kind, wrapper.args)
    if reason:
        return (f"streamgaze: note: lmms-eval's {wrapper.requested} ({wrapper.kind}) wrapper got full-rate clips: "
                f"{reason}{cost} (docs/performance.md: Frames to the model)")
    if not read.get("video_read_s"):
        return ""
    return (f"streamgaze: note: the toolkit does not know how lmms-eval's {wrapper.requested} ({wrapper.kind}) "
            f"wrapper samples video, so it got full-rate clips{cost} (docs/performance.md: Frames to the model)")


def prepare_files(dataset: DatasetHandle, args: Sequence[str] | LmmsArgs) -> None:
    """Fetch (a Hub dataset) and verify what the run's tasks of the dataset's benchmark read and show, before
    lmms-eval starts (files.py).

    Args:
        dataset: the evaluated dataset.
        args: lmms-eval's arguments; their ``--tasks`` names (groups expanded through the task index) say
            which tasks of the dataset's benchmark run. Nothing is done when none is.

    Raises:
        StreamGazeError: a file is missing or does not match the manifest, or a task's documents cannot be
            made (:func:`~streamgaze_hf.harness.files.prepare_run_files`).
    """
    from .files import prepare_run_files

    pairs = task_index().selection(list(parse_lmms_args(args).tasks)).get(dataset.benchmark.name, [])
    if pairs:
        prepare_run_files(dataset, pairs)


#: the files of a run that are text (lmms-eval's results and samples, logs); others are left as written
_TEXT_SUFFIXES = (".json", ".jsonl", ".txt", ".log", ".yaml", ".md", ".csv")


def redact_files(paths: list) -> None:
    """Rewrite each text file of ``paths`` (what a run wrote) with every secret redacted
    (:func:`streamgaze_hf.util.secrets.redact`: lmms-eval records ``model_args`` as given, ``api_key=`` included)."""
    from ..util.fsutil import atomic_output
    from ..util.secrets import redact, secret_values

    secrets = secret_values()
    for path in paths:
        if path.suffix not in _TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        clean = redact(text, secrets)
        if clean != text:
            with atomic_output(path) as tmp:
                tmp.write_text(clean, encoding="utf-8")


def annotate_results(paths: list, settings: dict) -> None:
    """Record a run's settings (prompt mode, protocol, clip fps, toolkit version) under ``"streamgaze"``
    in the lmms-eval results files it wrote: task names are the same in every mode, so the results
    themselves must say which mode made them."""
    import json

    from ..util.fsutil import atomic_output
    from ..util.provenance import TOOLKIT

    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        if TOOLKIT in data:
            continue
        data[TOOLKIT] = settings
        with atomic_output(path) as tmp:
            tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def only_our_tasks(args: Sequence[str] | LmmsArgs) -> bool:
    """Whether ``--tasks`` names only tasks and groups of ours (so lmms-eval need not index its own)."""
    requested = parse_lmms_args(args).tasks
    return bool(requested) and set(requested) <= task_index().names


def skip_builtin_task_index() -> None:
    """lmms-eval indexes every YAML of its ~3,400 built-in tasks at start-up (10-60 s); a run of our
    tasks only needs the include path's, so its task manager is told not to include the defaults."""
    import lmms_eval.tasks as lmms_tasks_module

    manager = lmms_tasks_module.TaskManager
    if getattr(manager, "_streamgaze_no_defaults", False):
        return
    init = manager.__init__

    def without_defaults(self, *a, **k):
        k["include_defaults"] = False
        init(self, *a, **k)

    manager.__init__ = without_defaults
    manager._streamgaze_no_defaults = True


def names_not_folders(args: Sequence[str] | LmmsArgs) -> list[str]:
    """lmms-eval reads a ``--tasks`` value that is an existing directory of the working directory as a folder
    of task YAMLs, so ``--tasks streamgaze`` run beside ``./streamgaze`` (the default dataset root) finds no
    task. A single task or group name of ours that is also such a directory is given twice (``X,X``: no
    directory has that name; lmms-eval's name match takes each name once)."""
    import os

    parsed = parse_lmms_args(args)
    names = parsed.tasks
    if len(names) != 1 or names[0] not in task_index().names or not os.path.isdir(names[0]):
        return list(parsed.argv)
    return list(parsed.with_tasks([names[0], names[0]]).argv)


def run_lmms_eval(args: Sequence[str], include_path: str | None = None) -> int:
    """Call lmms-eval's CLI in this process with our task directory on its include path.

    Args:
        args: lmms-eval's arguments (a leading ``--`` is dropped); ``--include_path`` is added unless
            given, and a run of our tasks only skips lmms-eval's index of its built-in tasks.
        include_path: the include path added (a run's task folder, :func:`run_task_folder`); None: the toolkit's
            task folder (``task_files.task_folder``).

    Returns:
        lmms-eval's exit status (its ``SystemExit`` code; 0 when it returns normally). lmms-eval exits 0 on
        most failures: :func:`~streamgaze_hf.harness.checks.run_checked` checks the results.

    Raises:
        StreamGazeError: lmms-eval is not installed, or our task code stopped the run with a
            ``streamgaze: error:`` exit (bad input).
    """
    from ..util.preflight import require_module
    from .task_files import task_folder

    args = list(args)
    parsed = parse_lmms_args(args[1:] if args[:1] == ["--"] else args)
    if parsed.include_path is None:
        parsed = parsed.with_option("--include_path", include_path or task_folder())
    args = names_not_folders(parsed)
    require_module("lmms_eval", "streamgaze eval")
    from .process import prepare_lmms_eval_process

    prepare_lmms_eval_process()
    if only_our_tasks(parsed):
        skip_builtin_task_index()
    from lmms_eval.cli.dispatch import main as lmms_main

    saved = sys.argv
    sys.argv = ["lmms-eval", *args]
    try:
        rc = lmms_main()
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str) and exc.code.startswith("streamgaze: error: "):
            raise StreamGazeError(exc.code.removeprefix("streamgaze: error: ")) from None  # our task code
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    finally:
        sys.argv = saved
    return int(rc or 0)
