"""`streamgaze ...`: thin command-line glue over the library.

One module per group of commands: data.py (world, overlay, gaze, build, import, stats, doctor), bids.py
(export-bids), review.py, evaluate.py (tasks-dir, eval, report), submit.py (submit, push-submission, validate, compare,
leaderboard), evaluations.py (request-eval, leaderboard run-request), cache.py (clips) and hub.py (publish); a
benchmark adds commands of its own
(``Benchmark.commands``, e.g. StreamGaze's ``stream-eval``, ``export-sft``, ``import-official-results``),
listed after the group it names. A job done for several benchmarks is one verb with the benchmark's name:
``import BENCH SRC``, ``build BENCH``, ``report BENCH RUN``, ``eval [BENCH]``; a command that reads a dataset
takes ``--dataset`` and learns the benchmark from its manifest. Old command names (:data:`ALIASES` and each
benchmark's ``aliases``) still work, each with one ``streamgaze: note: 'OLD' is deprecated; use 'NEW'`` line
on stderr; they are not listed in the help.

Start-up: only the command being run is configured (its arguments added, its benchmark plug-ins asked), and
no command module imports the library at module level, so ``streamgaze --help``, ``--version`` and every
``<command> --help`` answer without importing ``datasets``, pandas, torch, lmms-eval or PyAV.

Every bad input surfaces as the verb's usage on one line and one error line ``streamgaze VERB: error:
<file>: <reason>``, exit code 2 (usage.py); a run that fails (``eval`` without results) as the error line
alone, exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..util.errors import StreamGazeError
from ..util.provenance import TOOLKIT
from . import bids, cache, data, evaluate, evaluations, hub, review, submit
from .base import COMMANDS, Configure, deprecated
from .usage import Parser, error_lines

__all__ = ["main", "build_parser", "ALIASES", "GROUPS"]

#: the command modules in the help's order (each registers its commands in its own order)
GROUPS = (data, bids, review, evaluate, submit, evaluations, cache, hub)


def _take_benchmark(rest: list[str]) -> tuple[str | None, list[str]]:
    """The value of ``--benchmark X`` / ``--benchmark=X`` in ``rest`` and ``rest`` without it."""
    for i, arg in enumerate(rest):
        if arg == "--benchmark" and i + 1 < len(rest):
            return rest[i + 1], rest[:i] + rest[i + 2:]
        if arg.startswith("--benchmark="):
            return arg.split("=", 1)[1], rest[:i] + rest[i + 1:]
    return None, rest


def _default_benchmark() -> str:
    from ..registry import default_benchmark

    return default_benchmark().name


def _import_release(rest: list[str]) -> tuple[list[str], str]:
    bench, rest = _take_benchmark(rest)
    bench = bench or _default_benchmark()
    return ["import", bench, *rest], f"import {bench}"


#: old command names of the shared commands -> their arguments as the new command's, and its name (the
#: benchmarks' own old names are their ``aliases``)
ALIASES: dict[str, Callable[[list[str]], tuple[list[str], str]]] = {
    "import-release": _import_release,
}


def _benchmark_alias(name: str) -> tuple[str, ...] | None:
    """The arguments a benchmark's old command name stands for (``Benchmark.aliases``), or None."""
    from ..registry import benchmarks

    return next((b.aliases[name] for b in benchmarks() if name in b.aliases), None)


def _build_without_bench(rest: list[str]) -> list[str]:
    """``build --raw ...`` (no BENCH): the default benchmark's build; ``build --benchmark X ...``
    (deprecated): X's."""
    from .base import benchmark_names

    if not rest or rest[0] in ("-h", "--help") or not rest[0].startswith("-") or rest[0] in benchmark_names():
        return ["build", *rest]  # a word first: a benchmark's name (or a misspelt one, which argparse names)
    bench, rest = _take_benchmark(rest)
    if bench is not None:
        deprecated(f"build --benchmark {bench}", f"build {bench}")
    return ["build", bench or _default_benchmark(), *rest]


def canonical_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with an old command name (:data:`ALIASES`, a benchmark's ``aliases``, ``build --benchmark X``)
    spelt as the new command; the deprecation line is printed here."""
    argv = list(argv)
    if not argv or argv[0].startswith("-"):
        return argv
    if argv[0] in ALIASES:
        new, name = ALIASES[argv[0]](argv[1:])
        deprecated(argv[0], name)
        return new
    if argv[0] == "build":
        return _build_without_bench(argv[1:])
    if argv[0] == "leaderboard" and len(argv) > 1 and argv[1] in submit.LEADERBOARD_VERBS:
        return [f"leaderboard {argv[1]}", *argv[2:]]  # `leaderboard sync ...`: a command of its own
    if argv[0] not in COMMANDS and (alias := _benchmark_alias(argv[0])) is not None:
        deprecated(argv[0], " ".join(alias))
        return [*alias, *argv[1:]]
    return argv


def commands() -> list[tuple[str, str, Configure | tuple]]:
    """(name, help, configure) of every command in the help's order: each group's shared commands, then the
    benchmarks' own commands of that group (``configure``: a function, or ``(benchmark, command name)`` for a
    benchmark's own, imported through its adapter when the command is configured)."""
    order = {m.__name__.rsplit(".", 1)[1]: i for i, m in enumerate(GROUPS)}
    listed = [(order[configure.__module__.rsplit(".", 1)[1]], 0, name, help_text, configure)
              for name, (help_text, configure) in COMMANDS.items()]
    from ..registry import benchmarks

    for bench in benchmarks():
        for name, cmd in bench.commands.items():
            if name in COMMANDS:
                raise StreamGazeError(f"{bench.name} declares the command {name!r}, which the toolkit already has")
            listed.append((order.get(cmd.group, len(order)), 1, name, cmd.help, (bench, name)))
    return [(name, help_text, configure) for *_, name, help_text, configure in sorted(listed, key=lambda c: c[:2])]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``streamgaze`` argument parser.

    Args:
        command: configure only this command (the one being run: the others are listed with their help but
            get no arguments, so start-up imports nothing a command does not need); "" configures none (the
            top-level help); None configures every command (docs/cli.md).

    Returns:
        The parser; each configured command's namespace carries its handler as ``_handler``.
    """
    parser = Parser(prog=TOOLKIT, description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction, help="print the toolkit's version and commit, then exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text, configure in commands():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if command is None or command == name:
            if isinstance(configure, tuple):  # a benchmark's own command, through its adapter
                bench, own = configure
                configure = bench.plugin().command(own)
            p.set_defaults(_handler=configure(p))
    return parser


class _VersionAction(argparse.Action):
    """``--version``: the toolkit version and commit (resolved only when asked for)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..util.provenance import toolkit_description

        print(toolkit_description())
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    from .termio import SIGPIPE_STATUS, console, flush_stdout, silence_stdout, stdout_closed

    with console():
        verb = None  # the parser of the verb being run: its usage goes with an error
        try:
            argv = canonical_argv(sys.argv[1:] if argv is None else argv)
            command = argv[0] if argv and not argv[0].startswith("-") else ""
            args, extra = build_parser(command).parse_known_args(argv)
            verb = args._parser
            if extra:
                verb.error(f"unrecognized arguments: {' '.join(extra)}")
            rc = int(args._handler(args) or 0)
        except StreamGazeError as exc:
            rc = getattr(exc, "exit_code", 2)  # 2: bad input; harness.checks.EvalRunFailed: 1
            print("\n".join(error_lines(verb, str(exc), usage=rc == 2)), file=sys.stderr)
        except KeyboardInterrupt:
            print("streamgaze: interrupted", file=sys.stderr)
            rc = 130
        except SystemExit:  # argparse (--help, --version, usage errors): its output may meet a closed pipe too
            if not flush_stdout():
                raise SystemExit(SIGPIPE_STATUS) from None
            raise
        except BrokenPipeError:  # `streamgaze stats ROOT | head`: the reader has gone; stop quietly
            if not stdout_closed() and flush_stdout():
                raise  # not stdout's pipe (e.g. a socket): a real error
            silence_stdout()
            rc = SIGPIPE_STATUS
        if not flush_stdout():
            rc = SIGPIPE_STATUS
        return rc
