"""References: how a declaration names a benchmark package's code, and the one file convention they follow.

A declaration holds no code, only ``"module:attribute"`` strings (``"module"`` for a module), imported on
first use by :func:`resolve`, so looking a benchmark up costs little. ``declare`` (``declarations.py``) derives
them from the package's name: the same file for the same job in every benchmark package
(:data:`PACKAGE_FILES`); an explicit reference wins.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["IMPORTER_KINDS", "PACKAGE_FILES", "OPTIONAL_PARTS", "package_ref", "resolve"]

#: importer kinds: ``release`` converts a benchmark's official release files, ``raw`` builds the dataset
#: from raw recordings (or annotations) through the benchmark's pipeline
IMPORTER_KINDS: tuple[str, ...] = ("release", "raw")
#: the file and attribute of each job inside a benchmark package: ``<package>.<file>:<attribute>``, or
#: ``<package>.<file>`` for the jobs that name a module (the evaluation module and the optional parts)
PACKAGE_FILES: Mapping[str, str] = {
    "evaluation": "evaluation",
    "paper_rows": "paper:paper_rows",
    "release": "release:import_release",
    "raw": "build:build_dataset",
    "qa_features": "schema:QA_FEATURES",
    "validate_row": "schema:validate_row",
    "file_paths": "schema:file_paths",
    "card_intro": "card:intro",
    "card_sections": "card:sections",
    "cli": "cli",
    "report": "report",
    "leaderboard": "leaderboard",
}
#: the optional parts a package may have, each a module of hooks (``hooks.HOOKS``): ``cli`` (its own
#: ``build``/``import`` options), ``report`` (``streamgaze report NAME RUN``), ``leaderboard`` (its own section
#: rule); a package declares those it has (``declare(..., parts=...)``), never found by looking for the file
OPTIONAL_PARTS: tuple[str, ...] = ("cli", "report", "leaderboard")


def resolve(ref: str) -> Any:
    """The object a declaration names, imported on first use.

    Args:
        ref: ``"package.module:attribute"``, or ``"package.module"`` for the module itself.

    Returns:
        The attribute (or the module).

    Raises:
        ImportError: the module cannot be imported (``ModuleNotFoundError`` when there is none).
        AttributeError: the module has no such attribute.
    """
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


def package_ref(package: str, job: str) -> str:
    """The ``"module:attribute"`` of a job in a benchmark package.

    Args:
        package: the benchmark package's ``__name__``.
        job: a key of :data:`PACKAGE_FILES`.

    Returns:
        ``"<package>.<file>:<attribute>"`` (a module reference for the jobs that name a module).

    Raises:
        KeyError: ``job`` is not a key of :data:`PACKAGE_FILES`.
    """
    return f"{package}.{PACKAGE_FILES[job]}"
