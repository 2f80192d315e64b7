"""`streamgaze ...`: thin command-line glue over the library.

One module per group of commands: data.py (world, overlay, gaze, build, import, stats, doctor),
review.py, evaluate.py (tasks-dir, eval, report, stream-eval, export-sft), submit.py (submit,
import-official-results, validate, compare, leaderboard), cache.py (clips) and hub.py (publish). A job
done for several benchmarks is one verb with the benchmark's name: ``import BENCH SRC``, ``build BENCH``,
``report BENCH RUN``, ``eval [BENCH]``; a command that reads a dataset takes ``--dataset`` and learns the
benchmark from its manifest. The older names (:data:`ALIASES`) still work for one version, each with one
``streamgaze: note: 'OLD' is deprecated; use 'NEW'`` line on stderr; they are not listed in the help.

Every bad input surfaces as the verb's usage on one line and one error line ``streamgaze VERB: error:
<file>: <reason>``, exit code 2 (usage.py); a run that fails (``eval`` without results) as the error line
alone, exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..util.errors import StreamGazeError
from . import cache, data, evaluate, hub, review, submit
from .base import COMMANDS, deprecated
from .usage import Parser, error_lines

__all__ = ["main", "build_parser", "ALIASES"]

#: the command modules in the help's order (each registers its commands in its own order)
GROUPS = (data, review, evaluate, submit, cache, hub)


def _take_benchmark(rest: list[str]) -> tuple[str | None, list[str]]:
    """The value of ``--benchmark X`` / ``--benchmark=X`` in ``rest`` and ``rest`` without it."""
    for i, arg in enumerate(rest):
        if arg == "--benchmark" and i + 1 < len(rest):
            return rest[i + 1], rest[:i] + rest[i + 2:]
        if arg.startswith("--benchmark="):
            return arg.split("=", 1)[1], rest[:i] + rest[i + 1:]
    return None, rest


def _renamed(verb: str, bench: str) -> Callable[[list[str]], tuple[list[str], str]]:
    return lambda rest: ([verb, bench, *rest], f"{verb} {bench}")


def _import_release(rest: list[str]) -> tuple[list[str], str]:
    bench, rest = _take_benchmark(rest)
    return ["import", bench or "streamgaze", *rest], f"import {bench or 'streamgaze'}"


#: old command name -> its arguments as the new command's, and the new command's name
ALIASES: dict[str, Callable[[list[str]], tuple[list[str], str]]] = {
    "import-release": _import_release,
    "import-egogazevqa": _renamed("import", "egogazevqa"),
    "import-streameqa": _renamed("import", "streameqa"),
    "build-vl4gaze": _renamed("build", "vl4gaze"),
    "egogazevqa-report": _renamed("report", "egogazevqa"),
    "streameqa-report": _renamed("report", "streameqa"),
}


def _build_without_bench(rest: list[str]) -> list[str]:
    """``build --raw ...`` (no BENCH): StreamGaze's build; ``build --benchmark X ...`` (deprecated): X's."""
    from .base import benchmark_names

    if not rest or rest[0] in ("-h", "--help") or not rest[0].startswith("-") or rest[0] in benchmark_names():
        return ["build", *rest]  # a word first: a benchmark's name (or a misspelt one, which argparse names)
    bench, rest = _take_benchmark(rest)
    if bench is not None:
        deprecated(f"build --benchmark {bench}", f"build {bench}")
    return ["build", bench or "streamgaze", *rest]


def canonical_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with an old command name (:data:`ALIASES`, ``build --benchmark X``) spelt as the new
    command; the deprecation line is printed here."""
    argv = list(argv)
    if not argv:
        return argv
    if argv[0] in ALIASES:
        new, name = ALIASES[argv[0]](argv[1:])
        deprecated(argv[0], name)
        return new
    if argv[0] == "build":
        return _build_without_bench(argv[1:])
    if argv[0] == "leaderboard" and len(argv) > 1 and argv[1] in submit.LEADERBOARD_VERBS:
        return [f"leaderboard {argv[1]}", *argv[2:]]  # `leaderboard sync ...`: a command of its own
    return argv


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="streamgaze", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction, help="print the toolkit's version and commit, then exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    order = {m.__name__: i for i, m in enumerate(GROUPS)}
    for name, (help_text, configure) in sorted(COMMANDS.items(), key=lambda c: order[c[1][1].__module__]):
        p = sub.add_parser(name, help=help_text, description=help_text)
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
            args, extra = build_parser().parse_known_args(canonical_argv(sys.argv[1:] if argv is None else argv))
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
