"""References: how a declaration names a benchmark package's code, and the one file convention they follow.

A declaration holds no code, only ``"module:attribute"`` strings (``"module"`` for a module), imported on
first use by :func:`resolve`, so looking a benchmark up costs little. ``declare`` (``declarations.py``) derives
them from the package's name: the same file for the same job in every benchmark package
(:data:`PACKAGE_FILES`); an explicit reference wins.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from ..util.errors import StreamGazeError

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


class DeclaredReferences:
    """The declared references of a benchmark (its importers, streaming module, dataset layout's schema and card
    functions and its own commands), each imported on first use: the part of the adapter (``plugin.Plugin``) that
    shared code reaches them through, so nothing outside the registry calls :func:`resolve`.

    Args:
        benchmark: the declaration (a ``Benchmark``).
    """

    benchmark: Any

    def _ref(self, ref: str) -> Any:
        """The object a declared ``"module:attribute"`` names (``references.resolve``), the one place shared code
        reaches it."""
        return resolve(ref)

    def importer(self, kind: str = "release") -> Callable:
        """The importer of a kind (``Benchmark.importers``).

        Args:
            kind: ``release`` (the official release files) or ``raw`` (the benchmark's pipeline).

        Returns:
            The importer function (``release.py:import_release`` or ``build.py:build_dataset`` as declared).

        Raises:
            KeyError: the benchmark declares no importer of that kind (the message lists those it has).
        """
        ref = self.benchmark.importers.get(kind)
        if ref is None:
            raise KeyError(f"{self.benchmark.name} has no importer {kind!r}; importers: "
                           f"{', '.join(self.benchmark.importers)}")
        return self._ref(ref)

    def streaming_module(self) -> ModuleType:
        """The benchmark's streaming evaluation (``streamgaze stream-eval``; ``Benchmark.streaming``).

        Returns:
            Its module (runner, results, submissions, leaderboard table).

        Raises:
            StreamGazeError: the benchmark has no streaming evaluation.
        """
        if not self.benchmark.streaming:
            raise StreamGazeError(f"{self.benchmark.title} has no streaming evaluation (stream-eval)")
        return self._ref(self.benchmark.streaming)

    def qa_features(self) -> Any:
        """The QA rows' schema (``DatasetLayout.qa_features``).

        Returns:
            The ``datasets.Features`` of the benchmark's QA rows.
        """
        return self._ref(self.benchmark.dataset.qa_features)

    def validate_row(self, row: Mapping, duration: float) -> list[str]:
        """The problems of one QA row (``DatasetLayout.validate_row``; empty: valid).

        Args:
            row: a QA row.
            duration: its video's duration in seconds.

        Returns:
            One line per problem.
        """
        return self._ref(self.benchmark.dataset.validate_row)(row, duration)

    def file_paths(self, row: Mapping) -> list[str]:
        """The dataset-relative files a QA row refers to (``DatasetLayout.file_paths``).

        Args:
            row: a QA row.

        Returns:
            The paths, each to be written with the dataset.
        """
        return self._ref(self.benchmark.dataset.file_paths)(row)

    def card_intro(self, stats: Any, version: str) -> str:
        """The dataset card's opening text (``DatasetLayout.card_intro``).

        Args:
            stats: the dataset's statistics.
            version: the dataset version.

        Returns:
            Markdown.
        """
        return self._ref(self.benchmark.dataset.card_intro)(stats, version)

    def card_sections(self, stats: Any, root: Any) -> list[str]:
        """The dataset card's sections after the video-files note (``DatasetLayout.card_sections``).

        Args:
            stats: the dataset's statistics.
            root: the dataset directory.

        Returns:
            Markdown sections.
        """
        return list(self._ref(self.benchmark.dataset.card_sections)(stats, root))

    def command(self, name: str) -> Callable:
        """The ``configure(parser)`` of one of the benchmark's own commands (``Benchmark.commands``).

        Args:
            name: the command's name.

        Returns:
            The function that adds its arguments and returns its handler.

        Raises:
            KeyError: the benchmark declares no such command.
        """
        return self._ref(self.benchmark.commands[name].configure)
