"""Run lmms-eval in this process over our task folder (``streamgaze eval``).

* :func:`run_lmms_eval`: lmms-eval's own CLI with ``--include_path`` set to ``lmms_tasks``'s task
  directory; a run of our tasks only skips lmms-eval's index of its ~3,400 built-in task YAMLs
  (:func:`skip_builtin_task_index`, a patch of its ``TaskManager``);
* :func:`prepare_files`: fetch (a Hub dataset) and verify what the run's tasks read, before it starts;
* :func:`lmms_model_names`: the ``--model`` names lmms-eval can load (checked before it starts);
* :func:`annotate_results`: record the run's settings in the results files it wrote; :func:`redact_files`:
  no secret in any text file it wrote.

Whether the run produced its results is checked by :mod:`streamgaze_hf.harness.checks`.
"""

from __future__ import annotations

import sys

from ..registry import Benchmark, task_index
from ..util.errors import StreamGazeError


def prepare_files(root, bench: Benchmark, args: list[str]) -> None:
    """Fetch (a Hub dataset) and verify what the run's tasks of ``bench`` read and show, before lmms-eval
    starts (files.py).

    Args:
        root: the dataset root (a local directory or a resolved Hub reference's snapshot directory).
        bench: the benchmark whose tasks run.
        args: lmms-eval's arguments; their ``--tasks`` names (groups expanded through the task index) say
            which tasks of ``bench`` run. Nothing is done when none is of ``bench``.

    Raises:
        StreamGazeError: a file is missing or does not match the manifest, or a task's documents cannot be
            made (:func:`~streamgaze_hf.harness.files.prepare_run_files`).
    """
    from .checks import requested_tasks
    from .files import prepare_run_files

    pairs = task_index().selection(requested_tasks(args)).get(bench.name, [])
    if pairs:
        prepare_run_files(root, bench, pairs)


def lmms_model_names() -> list[str]:
    """Every ``--model`` name lmms-eval can load: its registry's ids and aliases, with the models of the
    installed ``lmms_eval.models`` entry points (and ``LMMS_EVAL_PLUGINS``). Reads lmms-eval's registry
    (``lmms_eval.models``, about 0.2 s), never imports a model's own module."""
    from lmms_eval.models import list_available_models

    return list_available_models(include_aliases=True)


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


def only_our_tasks(args: list[str]) -> bool:
    """Whether ``--tasks`` names only tasks and groups of ours (so lmms-eval need not index its own)."""
    from .checks import requested_tasks

    requested = requested_tasks(args)
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


def names_not_folders(args: list[str]) -> list[str]:
    """lmms-eval reads a ``--tasks`` value that is an existing directory of the working directory as a folder
    of task YAMLs, so ``--tasks streamgaze`` run beside ``./streamgaze`` (the default dataset root) finds no
    task. A single task or group name of ours that is also such a directory is given twice (``X,X``: no
    directory has that name; lmms-eval's name match takes each name once)."""
    import os

    from .checks import requested_tasks, tasks_arg

    names = requested_tasks(args)
    if len(names) != 1 or names[0] not in task_index().names or not os.path.isdir(names[0]):
        return args
    index, _ = tasks_arg(args)
    out = list(args)
    out[index] = f"--tasks={names[0]},{names[0]}" if out[index].startswith("--tasks=") else f"{names[0]},{names[0]}"
    return out


def run_lmms_eval(args: list[str]) -> int:
    """Call lmms-eval's CLI in this process with our task directory on its include path.

    Args:
        args: lmms-eval's arguments (a leading ``--`` is dropped); ``--include_path`` is added unless
            given, and a run of our tasks only skips lmms-eval's index of its built-in tasks.

    Returns:
        lmms-eval's exit status (its ``SystemExit`` code; 0 when it returns normally). lmms-eval exits 0 on
        most failures: :func:`~streamgaze_hf.harness.checks.run_checked` checks the results.

    Raises:
        StreamGazeError: lmms-eval is not installed, or our task code stopped the run with a
            ``streamgaze: error:`` exit (bad input).
    """
    from lmms_tasks import task_folder

    from ..util.preflight import require_module

    args = names_not_folders(list(args[1:] if args[:1] == ["--"] else args))
    if "--include_path" not in args:
        args += ["--include_path", task_folder()]
    require_module("lmms_eval", "streamgaze eval")
    from .process import prepare_lmms_eval_process

    prepare_lmms_eval_process()
    if only_our_tasks(args):
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
