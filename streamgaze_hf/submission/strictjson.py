"""Strict JSON reading for submission files: no duplicate keys, no NaN/Infinity, bounded numbers, clear reasons.

``json.loads`` silently keeps the last of two equal keys (a duplicated question id would vanish)
and accepts ``NaN`` / ``Infinity``. Here a duplicate key or a non-finite constant is an error; the
duplicate is reported by :func:`check_object` with its location (``answers.nfi``), so the message
can say *which* question id is duplicated.

Numbers are bounded before they are converted: a literal of more than :data:`MAX_NUMBER_CHARS` characters
(Python's ``int`` refuses 4,300 digits with a ``ValueError``; a 400-digit integer overflows ``float``) or a
value beyond :data:`MAX_MAGNITUDE` is a :class:`StrictJSONError`, so every later ``float()`` or comparison
of a submission's number is safe.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["JSONObject", "StrictJSONError", "loads_strict", "check_object", "describe_type", "nesting_depth",
           "MAX_DEPTH", "MAX_NUMBER_CHARS", "MAX_MAGNITUDE"]

#: the deepest nesting of arrays and objects a submission may have (its own layout needs 5; a hostile file's
#: ``[[[[...`` would otherwise exhaust the parser's recursion): checked before parsing
MAX_DEPTH = 32
#: the longest number literal read (``-0.12345678901234567e-10`` has 24): checked before it is converted
MAX_NUMBER_CHARS = 40
#: the largest magnitude of a number (scores are fractions, times seconds, counts of questions)
MAX_MAGNITUDE = 1e15
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


class StrictJSONError(ValueError):
    """Malformed or non-strict JSON, or an object that does not follow its field spec."""


class JSONObject(dict):
    """A JSON object that remembers the keys that appeared more than once (last value kept)."""

    duplicates: list[str]

    def __init__(self, pairs: list[tuple[str, Any]]):
        super().__init__()
        self.duplicates = []
        for key, value in pairs:
            if key in self and key not in self.duplicates:
                self.duplicates.append(key)
            self[key] = value


def _no_constant(name: str) -> Any:
    raise StrictJSONError(f"non-finite number {name} is not allowed in JSON")


def _short_literal(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise StrictJSONError(f"a number of {len(text):,} characters ({text[:12]}...): at most {MAX_NUMBER_CHARS} "
                              "(checked before it is converted)")
    return text


def _bounded(text: str, value: float | int) -> float | int:
    if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:  # NaN fails both comparisons
        raise StrictJSONError(f"number {text} is out of range (at most {MAX_MAGNITUDE:g} in magnitude)")
    return value


def _finite_float(text: str) -> float:
    return _bounded(text, float(_short_literal(text)))


def _bounded_int(text: str) -> int:
    return _bounded(text, int(_short_literal(text)))


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` in JSON text, strings left out (a linear scan, no parsing)."""
    import numpy as np

    bare = _STRING.sub("", text).encode("utf-8", "replace")
    codes = np.frombuffer(bare, dtype=np.uint8)
    step = np.isin(codes, (0x5B, 0x7B)).astype(np.int32) - np.isin(codes, (0x5D, 0x7D)).astype(np.int32)
    return int(np.cumsum(step).max()) if step.size else 0


def loads_strict(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON text; objects become :class:`JSONObject` (duplicates recorded, not dropped).

    Raises :class:`StrictJSONError` for nesting deeper than ``max_depth`` (checked before parsing), malformed
    JSON (with line and column) and for NaN, Infinity or overflowing numbers.
    """
    depth = nesting_depth(text)
    if depth > max_depth:
        raise StrictJSONError(f"nested {depth} levels deep: at most {max_depth} (checked before parsing)")
    try:
        return json.loads(text, object_pairs_hook=JSONObject, parse_constant=_no_constant,
                          parse_float=_finite_float, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


def describe_type(value: Any) -> str:
    """The JSON name of a Python value's type (for error messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_number(value: Any) -> bool:
    """A JSON number (int or finite float, never a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: a field check returns None when the value is fine, else the expected type / rule in words
FieldCheck = Callable[[Any], "str | None"]


def check_object(value: Any, where: str, fields: Mapping[str, FieldCheck], *, duplicate_name: str = "field",
                 optional: frozenset[str] = frozenset()) -> dict:
    """Check that ``value`` is an object with exactly ``fields`` (``optional`` ones may be absent),
    no duplicate keys and values passing their checks; return it.

    ``where`` is the object's dotted location (``"model"``, ``"answers.nfi"``); ``""`` is the
    document itself (messages then say "the submission").
    """
    name = where or "the submission"
    if not isinstance(value, dict):
        raise StrictJSONError(f"{name} must be an object, got {describe_type(value)}")
    dups = getattr(value, "duplicates", [])
    if dups:
        raise StrictJSONError(f"duplicate {duplicate_name} {dups[0]!r} in {name}")
    unknown = [k for k in value if k not in fields]
    if unknown:
        raise StrictJSONError(f"unknown field {unknown[0]!r} in {name} (allowed: {', '.join(fields)})")
    missing = [k for k in fields if k not in value and k not in optional]
    if missing:
        raise StrictJSONError(f"{name} is missing the field {missing[0]!r}")
    for key, check in fields.items():
        if key in value:
            problem = check(value[key])
            if problem:
                loc = f"{where}.{key}" if where else key
                raise StrictJSONError(f"{loc} must be {problem}, got {describe_type(value[key])} "
                                      f"{_short(value[key])}")
    return value


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# ---- field checks ---------------------------------------------------------------------------------

def string(max_len: int = 10_000, nonempty: bool = False) -> FieldCheck:
    def check(v: Any) -> str | None:
        if not isinstance(v, str):
            return "a string"
        if nonempty and not v.strip():
            return "a non-empty string"
        if len(v) > max_len:
            return f"a string of at most {max_len} characters"
        return None

    return check


def one_of(*choices: str) -> FieldCheck:
    def check(v: Any) -> str | None:
        return None if isinstance(v, str) and v in choices else f"one of {', '.join(map(repr, choices))}"

    return check


def number(minimum: float | None = None) -> FieldCheck:
    def check(v: Any) -> str | None:
        if not is_number(v):
            return "a number"
        if minimum is not None and v < minimum:
            return f"a number >= {minimum}"
        return None

    return check


def nullable(inner: FieldCheck) -> FieldCheck:
    def check(v: Any) -> str | None:
        if v is None:
            return None
        problem = inner(v)
        return None if problem is None else f"null or {problem}"

    return check


def exact_int(expected: int) -> FieldCheck:
    """A check that the value is the integer ``expected`` (a file's format version)."""
    def check(v: Any) -> str | None:
        return None if is_int(v) and v == expected else f"the integer {expected}"

    return check


def obj(v: Any) -> str | None:
    return None if isinstance(v, dict) else "an object"
