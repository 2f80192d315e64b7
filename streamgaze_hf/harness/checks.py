"""Did an lmms-eval run produce its results? (``streamgaze eval``)

lmms-eval exits 0 on most failures (an unknown task, a model that raises, a dataset that cannot be
read): it logs the error and writes no results file. ``streamgaze eval`` therefore

1. checks the model and the requested task names before lmms-eval is started: ``--model`` against the
   names lmms-eval knows (its registry and the installed ``lmms_eval.models`` entry points:
   :func:`check_model`); a task name against every registered benchmark's tasks (:func:`check_task_names`: a
   name of one of our benchmarks that no task YAML defines is an error with the closest names;
   :func:`tasks_elsewhere`: a task of another benchmark than the run's, whose dataset is not found, is named
   with that benchmark and where its dataset is looked for); a task with no questions in the dataset is one
   clear error (:func:`plan_tasks`), and a group whose member task has no questions runs as its other
   members (a note says so). Each is one error line and exit 2;
2. runs lmms-eval with an ERROR-level log collector and always with an ``--output_path`` (a temporary
   one, removed afterwards, when none was given);
3. checks what it wrote (:func:`results_problem`): a new ``*_results.json`` holding every requested
   task or group; otherwise it fails (exit 1) with the cause as the last line: lmms-eval's own
   error when it logged one.

Harness-agnostic: the task and group names come from the registry's task index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..registry import Benchmark, TaskIndex
from ..util.errors import StreamGazeError
from .lmms_args import LmmsArgs, parse_lmms_args

#: exit status of an evaluation that ran but did not produce its results (bad input stays 2)
RUN_FAILED = 1


class EvalRunFailed(StreamGazeError):
    """The evaluation harness ran but produced no (or incomplete) results."""

    exit_code = RUN_FAILED


def check_model(args: Sequence[str] | LmmsArgs, known: Callable[[], Sequence[str]]) -> None:
    """``--model`` is one of the names lmms-eval can load (``known()``: its registry's ids and aliases with the
    installed entry points'); else one error with the closest names. No ``--model``: left to lmms-eval."""
    from ..util.spelling import did_you_mean

    model = parse_lmms_args(args).model
    if model is None:
        return
    names = list(known())
    if model not in names:
        raise StreamGazeError(f"--model: {model!r} is not a model lmms-eval knows ({len(names)} names in its registry "
                              f"and installed entry points; `lmms-eval models` lists them){did_you_mean(model, names)}")


def check_task_names(names: Sequence[str], index: TaskIndex) -> None:
    """Every name of one of our benchmarks (its name, or its task-name prefix) is a task or group of the index;
    else one error with the closest names. Other names are left to lmms-eval."""
    from ..util.spelling import did_you_mean

    benches = list(index.benchmarks)
    prefixes = tuple(f"{n}_" for n in benches)
    for name in names:
        if name not in index.names and (name.startswith(prefixes) or name in benches):
            raise StreamGazeError(f"unknown task {name!r}: no task or group of that name (`streamgaze tasks-dir` prints "
                                  f"the folder of our task YAMLs){did_you_mean(name, sorted(index.names))}")


def benchmarks_of_tasks(names: Sequence[str], index: TaskIndex) -> dict[Benchmark, list[str]]:
    """Benchmark -> the names of ``names`` whose tasks are that benchmark's (a group: its member tasks')."""
    out: dict[Benchmark, list[str]] = {}
    for name in names:
        for leaf in index.leaves(name):
            task = index.lmms_task(leaf)
            if task is not None and name not in (mine := out.setdefault(index.benchmarks[task.benchmark], [])):
                mine.append(name)
    return {b: n for b, n in out.items() if n}


def tasks_elsewhere(names: Sequence[str], index: TaskIndex, benchmark: Benchmark, why: str,
                    missing_dataset: Callable[[Benchmark], str | None]) -> None:
    """A task of another benchmark than the run's (``benchmark``, chosen by ``why``) runs only where that
    benchmark's dataset is found (``missing_dataset(other)``: None when it is, else where it was looked for);
    else one error naming the benchmark, where its dataset is looked for and the command that runs it."""
    for other, mine in benchmarks_of_tasks(names, index).items():
        if other is benchmark:
            continue
        looked = missing_dataset(other)
        if looked is not None:
            raise StreamGazeError(
                f"task {mine[0]!r} is a task of {other.name}, not of {benchmark.name} ({why}); {other.name}'s dataset "
                f"is looked for at {looked}: run it as `streamgaze eval {other.name} --dataset ROOT -- ... --tasks "
                f"{mine[0]}`")


def plan_tasks(args: Sequence[str] | LmmsArgs, index: TaskIndex, empty: Callable[[str, str], bool],
               note: Callable[[str], None]) -> list[str]:
    """The lmms-eval arguments with ``--tasks`` checked against the task index and the dataset.

    Args:
        args: lmms-eval's arguments.
        index: every registered benchmark's task and group names (``registry.task_index()``).
        empty: ``empty(benchmark, task_id)``: the task has no questions in the dataset.
        note: prints one note line (a group run without its empty member).

    Returns:
        The arguments, ``--tasks`` without the empty members of a group.

    Raises:
        StreamGazeError: a name that looks like one of ours but is none, or a task with no questions.
    """
    parsed = parse_lmms_args(args)
    names = list(parsed.tasks)
    check_task_names(names, index)
    planned = []
    for name in names:
        leaves = index.leaves(name)
        dropped = [leaf for leaf in leaves if (t := index.lmms_task(leaf)) and empty(t.benchmark, t.task_id)]
        if not dropped:
            planned.append(name)
        elif name not in index.groups:
            task = index.lmms_task(name)
            raise StreamGazeError(f"task {name!r} has no questions in this dataset ({task.benchmark} task "
                                  f"{task.task_id}: 0 rows, see `streamgaze stats`); leave it out of --tasks")
        else:
            kept = [leaf for leaf in leaves if leaf not in dropped]
            note(f"{', '.join(dropped)} {'has' if len(dropped) == 1 else 'have'} no questions in this dataset: group "
                 f"{name} runs as its {len(kept)} other task{'' if len(kept) == 1 else 's'}, without a group score")
            planned.extend(k for k in kept if k not in planned)
    return list(parsed.with_tasks(planned).argv) if planned != names else list(parsed.argv)


def results_files(out: str | os.PathLike[str]) -> list[Path]:
    return sorted(Path(out).rglob("*_results.json"))


def results_problem(new_files: Sequence[Path], requested: Sequence[str] | None, out: str) -> str | None:
    """What is missing from a run's new results files: none written, unreadable, or a requested task
    or group absent from every one; None when every requested name has results."""
    if not new_files:
        return f"lmms-eval wrote no *_results.json under {out}"
    have: set[str] = set()
    for path in new_files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            return f"unreadable results file {path}: {exc}"
        have.update((data.get("results") or {}).keys(), (data.get("group_subtasks") or {}).keys())
    missing = [t for t in (requested or []) if t not in have]
    if missing:
        return f"the results ({new_files[-1]}) have no {', '.join(missing)}"
    return None


@contextmanager
def collect_errors():
    """Collect the ERROR-level messages lmms-eval logs (loguru) while the block runs. lmms-eval
    reconfigures loguru (``logger.remove()``) at start-up; the collector is added back each time."""
    messages: list[str] = []
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - lmms-eval depends on loguru
        yield messages
        return

    def collect(message) -> None:
        messages.append(str(message.record["message"]))

    original_remove = logger.remove
    state = {"id": logger.add(collect, level="ERROR", format="{message}")}

    def remove(handler_id=None):
        original_remove(handler_id)
        if handler_id is None or handler_id == state["id"]:
            state["id"] = logger.add(collect, level="ERROR", format="{message}")

    logger.remove = remove
    try:
        yield messages
    finally:
        del logger.remove  # back to the class's method
        try:
            original_remove(state["id"])
        except ValueError:
            pass


def _short(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else message
    line = line.replace(". Please set `--verbosity=DEBUG` to get more information.", "")
    return line if len(line) <= 300 else line[:297] + "..."


def _snapshot(out: str) -> dict[Path, tuple[int, int]]:
    """Every file under ``out``: (modification time, size)."""
    state = {}
    for path in Path(out).rglob("*") if Path(out).is_dir() else ():
        try:
            st = path.stat()
        except OSError:
            continue
        if path.is_file():
            state[path] = (st.st_mtime_ns, st.st_size)
    return state


def run_checked(args: Sequence[str] | LmmsArgs, run: Callable[[list[str]], int],
                annotate: Callable[[list[Path]], None], scrub: Callable[[list[Path]], None] = lambda _paths: None) -> int:
    """Run lmms-eval (``run(args)``, its exit status) and check its results (module docstring);
    ``scrub(written)`` gets every file the run wrote or changed under its output path (secrets redacted:
    harness/run.py), then ``annotate(new_results_files)`` records our settings in the results.

    Args:
        args: lmms-eval's arguments (``--tasks`` already planned; without ``--output_path`` a temporary one is
            added and removed afterwards).
        run: runs lmms-eval on the arguments and returns its exit status.
        annotate: called with the new ``*_results.json`` files, when there are any, before they are checked.
        scrub: called with every file the run wrote or changed under its output path.

    Returns:
        0: the run wrote results for every requested task and group and exited 0.

    Raises:
        EvalRunFailed: (exit status 1) lmms-eval raised, exited non-zero, or wrote no, unreadable or
            incomplete results; the message ends with lmms-eval's last logged error when it logged one.
        StreamGazeError: raised by our task code during the run (bad input), passed on unchanged.
    """
    import shutil
    import tempfile

    parsed = parse_lmms_args(args)
    requested = list(parsed.tasks) or None
    out = parsed.output_path
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="streamgaze-eval-")
        out, parsed = tmp, parsed.with_option("--output_path", tmp)
    before = set(results_files(out))
    files_before = _snapshot(out)
    try:
        with collect_errors() as errors:
            try:
                rc = run(list(parsed.argv))
            except StreamGazeError:
                raise
            except Exception as exc:  # lmms-eval re-raises with --verbosity DEBUG
                raise EvalRunFailed(f"lmms-eval failed: {type(exc).__name__}: {_short(str(exc))}") from exc
            finally:
                scrub([p for p, state in _snapshot(out).items() if files_before.get(p) != state])
        new = [p for p in results_files(out) if p not in before]
        if new:
            annotate(new)
        problem = results_problem(new, requested, out)
        if rc and not problem:
            problem = f"lmms-eval exited with status {rc}"
        if problem:
            cause = f"; lmms-eval: {_short(errors[-1])}" if errors else ""
            raise EvalRunFailed(f"the evaluation did not produce its results: {problem}{cause}")
        return 0
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
