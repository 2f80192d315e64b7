"""Checks that run before any long work starts: one clear :class:`StreamGazeError` per bad argument.

A long command (a build of hours, an import, an evaluation) must not discover at its very end that its
version string, an input path, an output path or a back-end option is wrong. Library entry points call
these at their top and the CLI maps the error to the command's usage line and
``streamgaze COMMAND: error: <file>: <reason>``, exit 2; new commands reuse them rather than writing their own variants:

* :func:`existing_dir` / :func:`existing_file` (inputs), :func:`output_file` (a file to write);
* :func:`positive`, :func:`in_range` (numbers); :func:`require_module` (an optional extra's package).

A dataset destination (``--out ROOT --version X.Y.Z [--force]`` of build and import) is checked by
:func:`streamgaze_hf.dataset.writer.dataset_destination`, next to the rule the writer applies.
"""

from __future__ import annotations

import importlib
import math
import os
from pathlib import Path

from .errors import ArgumentError, StreamGazeError

__all__ = ["existing_dir", "existing_file", "output_file", "positive", "in_range",
           "require_module", "require_declared", "EXTRAS"]

#: optional package -> the install that provides it (pyproject.toml's extras)
EXTRAS = {"lmms_eval": "the [eval] extra: pip install -e '.[eval]' (or: make setup)"}


def existing_dir(path: str | os.PathLike[str] | None, what: str) -> Path:
    """``path`` if it is a directory; else ``<path>: <what> not found`` (or "is not a directory")."""
    if path is None or str(path) == "":
        raise StreamGazeError(f"{what}: no path given")
    p = Path(path)
    if not p.exists():
        raise StreamGazeError(f"{what} not found", p)
    if not p.is_dir():
        raise StreamGazeError(f"{what} is not a directory", p)
    return p


def existing_file(path: str | os.PathLike[str] | None, what: str, *, allow_dir: bool = False) -> Path:
    """``path`` if it is a file (or, with ``allow_dir``, a directory)."""
    if path is None or str(path) == "":
        raise StreamGazeError(f"{what}: no path given")
    p = Path(path)
    if not p.exists():
        raise StreamGazeError(f"{what} not found", p)
    if p.is_dir() and not allow_dir:
        raise StreamGazeError(f"{what} is a directory, not a file", p)
    return p


def output_file(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """A file to be written: not an existing directory, and its parent (if it exists) a directory."""
    p = Path(path)
    if p.is_dir():
        raise StreamGazeError(f"is a directory: {what} is the file to write", p)
    parent = next((a for a in p.absolute().parents if a.exists()), None)
    if parent is not None and not parent.is_dir():
        raise StreamGazeError(f"cannot create {what}: {parent} is not a directory", p)
    return p


def positive(value: float | None, name: str, *, integer: bool = False) -> None:
    """``value`` > 0 (and finite); None passes (an unset option)."""
    if value is None:
        return
    if not math.isfinite(value) or value <= 0 or (integer and int(value) != value):
        kind = "a positive integer" if integer else "a positive number"
        raise ArgumentError(f"{name} must be {kind}, got {value:g}")


def in_range(value: float | None, name: str, lo: float, hi: float, *, include_hi: bool = True) -> None:
    """``lo < value <= hi`` (``< hi`` without ``include_hi``); None passes."""
    if value is None:
        return
    if not (math.isfinite(value) and lo < value and (value <= hi if include_hi else value < hi)):
        raise ArgumentError(f"{name} must be in ({lo:g}, {hi:g}{']' if include_hi else ')'}, got {value:g}")


def require_module(module: str, feature: str) -> None:
    """Fail with the install that provides ``module`` when it cannot be imported (no traceback)."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the package is there but one of *its* dependencies is broken: show that
        how = EXTRAS.get(top, f"pip install {top}")
        raise StreamGazeError(f"{feature} needs {top}, which is not installed: install {how}") from None


def require_declared(extra: str, feature: str) -> None:
    """Fail when an installed package breaks a range the toolkit declares for itself or for ``extra``
    (pyproject.toml bounds what is known to break, e.g. filelock 4 for lmms-eval 0.7.3), before the run."""
    from .environment import unmet_requirements

    problems = unmet_requirements((extra,))
    if problems:
        raise StreamGazeError(f"{feature} cannot run in this environment: {'; '.join(problems)}; install the "
                              "tested set with `make setup FORCE=1` (uv.lock), or the declared ranges: "
                              f"pip install -e '.[{extra}]'")
