"""The command-line reference (docs/cli.md), generated from the argument parser of :mod:`streamgaze_hf.cli`.

    python -m streamgaze_hf.cli.clidoc --out docs/cli.md     # `make docs`
    python -m streamgaze_hf.cli.clidoc --check docs/cli.md   # exit 1 when the file is out of date

The text depends only on the parser (no terminal width, no Python-version-specific help layout), so
tests/integration/test_docs.py can require the committed file to equal it: a command or option added without
regenerating the reference fails the suite. Sub-commands and options whose help is hidden
(``argparse.SUPPRESS``, e.g. deprecated aliases) are left out.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

HEADER = """\
# Command-line reference

<!-- Generated from the parser in streamgaze_hf/cli/ by `make docs`
(`python -m streamgaze_hf.cli.clidoc --out docs/cli.md`); do not edit by hand.
tests/integration/test_docs.py fails when this file is out of date. -->

Every command of `streamgaze`, its arguments and their defaults, as `streamgaze COMMAND --help` prints
them. Where a command fits in a workflow: [getting started](getting-started.md) and the pages linked from
the [README](../README.md). Every bad input ends with the command's usage on one line and one error
line `streamgaze COMMAND: error: <file>: <reason>`, exit code 2 ([reliability](reliability.md)); `streamgaze --version` prints the toolkit's version and git
commit; `-h` / `--help` works on every command.
"""


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _commands(parser: argparse.ArgumentParser, prefix: str) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(full name, one-line help, parser) of every listed (sub-)command, depth first, in parser order."""
    sub = _subparsers(parser)
    if sub is None:
        return
    for choice in sub._choices_actions:  # the listed ones: hidden aliases have no entry here
        if choice.help == argparse.SUPPRESS:
            continue
        name = f"{prefix} {choice.dest}"
        child = sub.choices[choice.dest]
        yield name, choice.help or "", child
        yield from _commands(child, name)


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    return action.dest.upper() if action.option_strings else action.dest


def _args(action: argparse.Action) -> str:
    """The argument's value part, as argparse spells it (``X``, ``[X]``, ``X [X ...]``, ``...``)."""
    if action.nargs == 0:
        return ""
    m = _metavar(action)
    if action.nargs is None:
        return m
    if action.nargs == argparse.OPTIONAL:
        return f"[{m}]"
    if action.nargs == argparse.ZERO_OR_MORE:
        return f"[{m} ...]"
    if action.nargs == argparse.ONE_OR_MORE:
        return f"{m} [{m} ...]"
    if action.nargs == argparse.REMAINDER:  # a metavar in brackets spells the whole remainder itself
        return m if m.startswith("[") else f"[-- {m} ...]"
    if isinstance(action.nargs, int):
        return " ".join([m] * action.nargs)
    raise ValueError(f"unsupported nargs {action.nargs!r} of {action.dest}")


def _shown(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]


def _invocation(action: argparse.Action) -> str:
    if isinstance(action, argparse._SubParsersAction):
        return "COMMAND ..."
    value = _args(action)
    if not action.option_strings:
        return value
    flag = max(action.option_strings, key=len)  # the long spelling
    return f"{flag} {value}".rstrip()


def _usage(name: str, parser: argparse.ArgumentParser) -> str:
    groups = {id(a): g for g in parser._mutually_exclusive_groups for a in g._group_actions}
    parts, done = [name], set()
    for action in _shown(parser):
        group = groups.get(id(action))
        if group is not None:
            if id(group) in done:
                continue
            done.add(id(group))
            members = [_invocation(a) for a in group._group_actions if a.help != argparse.SUPPRESS]
            joined = " | ".join(members)
            parts.append(f"({joined})" if group.required else f"[{joined}]")
            continue
        text = _invocation(action)
        parts.append(text if (action.required or not action.option_strings) else f"[{text}]")
    return " ".join(parts)


def _cell(text: str) -> str:
    """Help text as Markdown text: one line; ``|``, ``*`` and angle brackets escaped (not read as markup)."""
    text = " ".join(str(text).split())
    for raw, escaped in (("|", "\\|"), ("*", "\\*"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(raw, escaped)
    return text


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or isinstance(d, bool) or d in ("", [], (), argparse.SUPPRESS) or action.nargs == 0:
        return ""
    return f"`{d}`"


def _anchor(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens."""
    return "".join(c for c in title.lower() if c.isalnum() or c in " -_").replace(" ", "-")


def _section(name: str, help_text: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f"## {name}", "", _cell(parser.description or help_text), "", "```", _usage(name, parser), "```", ""]
    rows = []
    for action in _shown(parser):
        if isinstance(action, argparse._SubParsersAction):
            subs = [c.dest for c in action._choices_actions if c.help != argparse.SUPPRESS]
            rows.append(("`COMMAND`", "one of " + ", ".join(f"[`{s}`](#{_anchor(f'{name} {s}')})" for s in subs),
                         ""))
            continue
        value = _args(action)
        if action.option_strings:
            label = ", ".join(f"`{f} {value}`".replace(" `", "`") for f in action.option_strings)
        else:
            label = f"`{value}`"
        help_text = _cell(action.help or "")
        if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
            help_text += f" (one of: {', '.join(f'`{c}`' for c in action.choices)})"
        if action.required and action.option_strings:
            help_text = "**required.** " + help_text
        rows.append((label, help_text.strip(), _default(action)))
    if rows:
        lines += ["| argument | meaning | default |", "|---|---|---|"]
        lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
        lines.append("")
    return lines


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole reference as Markdown."""
    if parser is None:
        from . import build_parser

        parser = build_parser()
    commands = list(_commands(parser, parser.prog))
    lines = HEADER.splitlines() + ["", "| command | what it does |", "|---|---|"]
    for name, help_text, _ in commands:
        short = name[len(parser.prog) + 1:]
        lines.append(f"| [`{short}`](#{_anchor(name)}) | {_cell(help_text)} |")
    lines.append("")
    for name, help_text, child in commands:
        lines += _section(name, help_text, child)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m streamgaze_hf.cli.clidoc", description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--out", type=Path, help="write the reference here (default: print it)")
    mode.add_argument("--check", type=Path, metavar="FILE", help="exit 1 when FILE differs from the reference")
    a = ap.parse_args(argv)
    text = render()
    if a.check is not None:
        if not a.check.is_file() or a.check.read_text(encoding="utf-8") != text:
            print(f"{a.check}: out of date; regenerate it with `make docs`", file=sys.stderr)
            return 1
        return 0
    if a.out is None:
        sys.stdout.write(text)
        return 0
    from ..util.fsutil import write_text_atomic

    write_text_atomic(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
