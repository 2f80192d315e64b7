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

from ..util.errors import StreamGazeError


def prepare_files(root, benchmark: str, args: list[str]) -> None:
    """Fetch (a Hub dataset) and verify what the run's tasks of ``benchmark`` read and show, before
    lmms-eval starts (files.py)."""
    from lmms_tasks import group_members

    from .files import lmms_selection, prepare_run_files, tasks_argument

    pairs = lmms_selection(tasks_argument(args), group_members()).get(benchmark, [])
    if pairs:
        prepare_run_files(root, benchmark, pairs)


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

    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        if "streamgaze" in data:
            continue
        data["streamgaze"] = settings
        with atomic_output(path) as tmp:
            tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def only_our_tasks(args: list[str]) -> bool:
    """Whether ``--tasks`` names only task folders of ours (so lmms-eval need not index its own)."""
    from lmms_tasks import task_names

    from .files import tasks_argument

    requested = tasks_argument(args)
    return bool(requested) and set(requested) <= task_names()


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


def run_lmms_eval(args: list[str]) -> int:
    """Call lmms-eval's CLI in this process with our task directory on its include path."""
    from lmms_tasks import TASKS_DIR

    from ..util.preflight import require_module

    args = list(args[1:] if args[:1] == ["--"] else args)
    if "--include_path" not in args:
        args += ["--include_path", TASKS_DIR]
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
