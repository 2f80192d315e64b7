"""The closest names to a misspelt one, for the "did you mean ...?" of an error (a CLI choice, an lmms-eval model
or task name)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def _normal(name: str) -> str:
    return re.sub(r"[-_ ]", "", name.lower())


def closest(value: str, names: Iterable[str]) -> list[str]:
    """The names closest to ``value``, best first: one spelt the same but for case, ``-``, ``_`` and spaces,
    else up to three similar ones."""
    names = [str(n) for n in names]
    same = [n for n in names if _normal(n) == _normal(value)]
    if same:
        return same[:1]
    by_normal = {_normal(n): n for n in names}
    return [by_normal[m] for m in difflib.get_close_matches(_normal(value), list(by_normal), n=3, cutoff=0.6)]


def did_you_mean(value: str, names: Iterable[str]) -> str:
    """``"; did you mean X?"`` (or ``X or Y``) for the closest names, or ""."""
    near = closest(value, names)
    return f"; did you mean {' or '.join(near)}?" if near else ""
