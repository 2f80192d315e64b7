"""lmms-eval's arguments, read once and the way lmms-eval reads them: :class:`LmmsArgs`.

lmms-eval (0.7.3, ``lmms_eval.__main__.parse_eval_args``) reads its command line with ``argparse``: the last
``--model`` given wins, ``--opt=value`` and ``--opt value`` are the same, a unique prefix of an option's name
stands for it, and a leading ``eval`` (``lmms-eval eval --model ...``) is its sub-command. :func:`parse_lmms_args`
asks ``argparse`` the same questions about the options the toolkit needs (the model, its arguments, the tasks,
the include path, ``--limit``, the output path, ``--gen_kwargs``, ``--force_simple``) and leaves the others to
lmms-eval; it is the one reader of those options (``streamgaze eval``'s plan, its checks and runner,
``streamgaze clips warm`` and the lmms-eval glue of a plain ``lmms-eval`` run all use it), so the frames are
made for the model lmms-eval will run. Nothing here imports lmms-eval.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..util.errors import StreamGazeError

__all__ = ["LmmsArgs", "clip_tasks", "parse_lmms_args", "process_lmms_args"]

#: the options the toolkit reads (lmms-eval's names); every other one is lmms-eval's alone
_VALUED = ("--model", "--model_args", "--tasks", "--include_path", "--limit", "--output_path", "--gen_kwargs")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would exit; lmms-eval reports its own usage errors
        raise StreamGazeError(f"lmms-eval's arguments: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lmms-eval", add_help=False)
    for option in _VALUED:
        p.add_argument(option, default=None)
    p.add_argument("--force_simple", action="store_true")
    return p


@dataclass(frozen=True)
class LmmsArgs:
    """lmms-eval's arguments as given (``argv``) and the options the toolkit reads, as lmms-eval resolves them.

    Attributes:
        argv: the arguments as lmms-eval gets them.
        model: ``--model`` (the last given), or None.
        model_args: ``--model_args``, or None.
        tasks: the task and group names of ``--tasks``, in order (blank entries dropped); () without it.
        include_path: ``--include_path``, or None.
        limit: ``--limit`` as a number, or None (not given, or not a number: lmms-eval says so itself).
        output_path: ``--output_path``, or None.
        gen_kwargs: ``--gen_kwargs``, or None.
        force_simple: ``--force_simple`` given.
    """

    argv: tuple[str, ...]
    model: str | None = None
    model_args: str | None = None
    tasks: tuple[str, ...] = ()
    include_path: str | None = None
    limit: float | None = None
    output_path: str | None = None
    gen_kwargs: str | None = None
    force_simple: bool = False

    def with_tasks(self, names: Sequence[str]) -> LmmsArgs:
        """These arguments with ``--tasks`` set to ``names``: the value of the ``--tasks`` that lmms-eval reads is
        replaced in its own spelling where it is spelt out (``--tasks X`` or ``--tasks=X``), else one is added."""
        value = ",".join(names)
        argv = list(self.argv)
        for i in range(len(argv) - 1, -1, -1):
            if argv[i] == "--tasks" and i + 1 < len(argv):
                argv[i + 1] = value
                break
            if argv[i].startswith("--tasks="):
                argv[i] = f"--tasks={value}"
                break
        again = parse_lmms_args(argv)
        return again if again.tasks == tuple(n for n in names if n) else parse_lmms_args([*self.argv, f"--tasks={value}"])

    def with_option(self, option: str, value: str) -> LmmsArgs:
        """These arguments with ``option value`` added at the end."""
        return parse_lmms_args([*self.argv, option, value])


def parse_lmms_args(args: Sequence[str] | LmmsArgs) -> LmmsArgs:
    """lmms-eval's arguments read as lmms-eval reads them (module docstring): the one reader.

    Args:
        args: lmms-eval's arguments (a leading ``eval`` sub-command is lmms-eval's and read past), or an
            :class:`LmmsArgs` already read (returned as it is).

    Returns:
        The :class:`LmmsArgs`.

    Raises:
        StreamGazeError: arguments lmms-eval could not read either (an option without its value, an ambiguous
            abbreviation).
    """
    if isinstance(args, LmmsArgs):
        return args
    argv = tuple(args)
    known, _rest = _parser().parse_known_args(list(argv[1:] if argv[:1] == ("eval",) else argv))
    try:
        limit = float(known.limit) if known.limit is not None else None
    except ValueError:
        limit = None
    tasks = tuple(t.strip() for t in (known.tasks or "").split(",") if t.strip())
    return LmmsArgs(argv, known.model, known.model_args, tasks, known.include_path, limit,
                    known.output_path, known.gen_kwargs, known.force_simple)


def process_lmms_args() -> LmmsArgs:
    """The arguments of the lmms-eval run of this process (its command line: a plain ``lmms-eval``, ``python -m
    lmms_eval`` or ``accelerate launch -m lmms_eval`` run, or ``streamgaze eval``, which runs lmms-eval in
    process with them as its command line). An unreadable command line reads as no arguments."""
    try:
        return parse_lmms_args(sys.argv[1:])
    except StreamGazeError:
        return LmmsArgs(tuple(sys.argv[1:]))


def clip_tasks(args: LmmsArgs) -> frozenset[str] | None:
    """The lmms-eval task names a run loads whose documents are window clips (groups expanded through the task
    index), or None when there is none: what ``prefetch.start_prefetch`` is told to expect (the glue and the head
    start tell it the same)."""
    from ..registry import get_benchmark, task_index

    index = task_index()
    names = [leaf for name in args.tasks for leaf in index.leaves(name)]
    return frozenset(n for n in names if (t := index.lmms_task(n)) is not None
                     and get_benchmark(t.benchmark).window_clips) or None
