"""One style for every error of every verb: the verb's usage on one line, then one error line, exit 2.

::

    usage: streamgaze build streamgaze --raw RAW --out OUT --version VERSION [options]
    streamgaze build streamgaze: error: --source: 'pupil-cloud' is not one of world, egtea, ...; did you mean pupil_cloud?

:class:`Parser` is the argument parser of ``streamgaze`` and (argparse makes sub-parsers of the parent's
class) of every verb. It gives argparse's own errors this form (a bad choice names the choices and the
closest one; unknown arguments get the verb's hint, e.g. ``eval``'s "lmms-eval's arguments go after --"), and
:func:`error_lines` gives a :class:`~streamgaze_hf.util.errors.StreamGazeError` raised while a verb runs
the same two lines (``streamgaze.cli.main``). ``--help`` still prints the full usage.
"""

from __future__ import annotations

import argparse
import re
import sys

from ..util.spelling import did_you_mean

__all__ = ["Parser", "fail", "error_lines"]

_ARGUMENT = re.compile(r"^argument ([^:]+): ")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one usage line and one error line (the module docstring).

    ``unrecognized_hint``: appended to an "unrecognized arguments" error of this verb."""

    unrecognized_hint = ""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.set_defaults(_parser=self)  # the deepest verb parsed wins (sub-parsers set theirs last)

    def short_usage(self) -> str:
        """``usage: PROG <required arguments> [options]`` on one line."""
        required = [a for a in self._actions if a.option_strings and a.required]
        positional = [a for a in self._actions if not a.option_strings]
        optional = [a for a in self._actions if a.option_strings and not a.required]
        formatter = argparse.HelpFormatter(self.prog, width=100_000)
        parts = [self.prog]
        for action in required:
            metavar = formatter._metavar_formatter(action, action.dest.upper())(1)[0]
            parts.append(action.option_strings[0] if action.nargs == 0 else f"{action.option_strings[0]} {metavar}")
        if optional:
            parts.append("[options]")
        for action in positional:
            if action.nargs == argparse.REMAINDER and action.metavar:
                parts.append(str(action.metavar))
            else:
                parts.append(formatter._format_usage(None, [action], [], "").strip().removeprefix(self.prog).strip())
        return "usage: " + " ".join(p for p in parts if p)

    def _check_value(self, action: argparse.Action, value) -> None:
        if action.choices is not None and value not in action.choices:
            shown = [a.dest for a in getattr(action, "_choices_actions", [])] or [str(c) for c in action.choices]
            raise argparse.ArgumentError(action, f"{value!r} is not one of {', '.join(shown)}"
                                                 f"{did_you_mean(str(value), shown)}")

    def error(self, message: str):
        message = _ARGUMENT.sub(r"\1: ", message)
        if message.startswith("unrecognized arguments") and self.unrecognized_hint:
            message += f"; {self.unrecognized_hint}"
        fail(self, message)


def error_lines(parser: argparse.ArgumentParser | None, message: str, usage: bool = True) -> list[str]:
    """``parser``'s one-line usage (with ``usage``) and ``PROG: error: message``."""
    if parser is None:
        return [f"streamgaze: error: {message}"]
    head = [parser.short_usage() if isinstance(parser, Parser) else f"usage: {parser.prog}"] if usage else []
    return [*head, f"{parser.prog}: error: {message}"]


def fail(parser: argparse.ArgumentParser | None, message: str, status: int = 2):
    """Print :func:`error_lines` on stderr and exit with ``status`` (2: bad input)."""
    print("\n".join(error_lines(parser, message)), file=sys.stderr)
    sys.exit(status)
