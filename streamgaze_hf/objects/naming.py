"""Object-name and attribute normalisation shared by the annotation and VLM object back-ends.

Names from the official metadata and from a VLM are compared across fixations (transitions,
sequences, "was it ever fixated"), so both back-ends reduce them to one canonical form: lower case,
underscores as spaces (the reference names people ``man_wearing_blue_shirt``), single spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

ATTRIBUTE_KINDS = ("color", "material", "shape", "texture")

# A small built-in vocabulary per attribute: OAR needs at least three distractor values per attribute,
# and one video's answers rarely cover that many.
BUILTIN_ATTRIBUTE_VALUES: dict[str, tuple[str, ...]] = {
    "color": ("black", "blue", "brown", "gray", "green", "orange", "pink", "purple", "red", "silver",
              "white", "yellow"),
    "material": ("cardboard", "ceramic", "fabric", "glass", "metal", "paper", "plastic", "rubber", "stone",
                 "wood"),
    "shape": ("cylindrical", "flat", "oval", "rectangular", "round", "square", "triangular"),
    "texture": ("glossy", "matte", "patterned", "rough", "smooth", "striped"),
}

_UNKNOWN = {"", "unknown", "n/a", "na", "none", "null", "unclear", "not visible", "various", "mixed"}
_SYNONYMS = {"grey": "gray", "wooden": "wood", "metallic": "metal", "circular": "round"}
_SPACES = re.compile(r"\s+")


def normalize_name(name: object) -> str:
    """Canonical object name: lower case, ``_`` → space, surrounding quotes/dots stripped, one space."""
    if name is None:
        return ""
    text = str(name).replace("_", " ").strip().strip("\"'`.").strip().lower()
    return _SPACES.sub(" ", text)


def unique_names(names: Iterable[object], exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """Normalised, non-empty, de-duplicated names in first-seen order, without those in ``exclude``."""
    seen = set(exclude)
    out = []
    for n in names:
        key = normalize_name(n)
        if key and key not in seen:
            seen.add(key)
            out.append(key)
    return tuple(out)


def normalize_attribute(value: object) -> str | None:
    """Canonical attribute value (lower case, common synonyms folded); None when unknown or empty."""
    if not isinstance(value, str):
        return None
    text = _SPACES.sub(" ", value.replace("_", " ").strip().strip(".").lower())
    if text in _UNKNOWN:
        return None
    return _SYNONYMS.get(text, text)
