"""One leaderboard section per dataset: rows are ranked only against rows on the same dataset.

A demo-scale build (a few videos, a few hundred questions) and the full benchmark give numbers that
cannot be compared, so a demo submission is never ranked among the paper's rows. Each benchmark has its
sections: its reference rows (``LeaderboardLayout.reference_rows()``) in ``<name>-reference``, joined by
submissions on a dataset of exactly the paper's question count (``LeaderboardLayout.reference_questions``);
other datasets in ``<name>-dataset-<version>``. A benchmark with its own rule declares the ``leaderboard``
part of its package, whose hooks ``dataset_section(manifest)`` and ``reference_section()`` (called through
``Benchmark.plugin()``) :func:`section_of` and :func:`reference_section_of` ask first. Sections holding
submissions come first; the rank column counts within a section (the Human row is a reference, never ranked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rows import Row, sort_rows

__all__ = ["Section", "group_sections", "reference_section", "benchmark_dataset_section", "section_of",
           "reference_section_of"]


@dataclass
class Section:
    key: str
    title: str
    note: str
    rows: list[Row] = field(default_factory=list)
    benchmark: str = ""
    columns: tuple = ()  # the table's columns (rows.benchmark_columns)
    higher_is_better: bool = True  # the direction of its Overall (its ranking)


def _questions(manifest: Mapping[str, Any]) -> int:
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    per_task = counts.get("questions") if isinstance(counts.get("questions"), dict) else {}
    return int(sum(v for v in per_task.values() if isinstance(v, int)))


def section_of(benchmark, manifest: Mapping[str, Any]) -> tuple[str, str, str]:
    """(key, title, note) of the section of ``benchmark``'s submissions on the dataset with ``manifest``:
    its own rule when it has one (the ``dataset_section`` hook), else :func:`benchmark_dataset_section`."""
    return benchmark.plugin().dataset_section(manifest) or benchmark_dataset_section(benchmark, manifest)


def reference_section_of(benchmark) -> tuple[str, str, str]:
    """(key, title, note) of ``benchmark``'s reference rows' section (its own rule, else the shared one)."""
    return benchmark.plugin().reference_section() or reference_section(benchmark)


def reference_section(benchmark) -> tuple[str, str, str]:
    """(key, title, note) of a registered benchmark's reference-rows section (the shared rule)."""
    n = benchmark.leaderboard.reference_questions
    size = f" ({n:,} questions)" if isinstance(n, int) else ""
    title = f"{benchmark.title}: the paper's benchmark{size}"
    note = (f"Rows marked 'reported in the paper' are copied from the {benchmark.title} paper (its own scorer and "
            "prompts); they are not re-scored.")
    return f"{benchmark.name}-reference", title, note


def benchmark_dataset_section(benchmark, manifest: Mapping[str, Any]) -> tuple[str, str, str]:
    """(key, title, note) of the section for a registered benchmark's submissions on the dataset with
    this manifest (the shared rule)."""
    version = str(manifest.get("version", "?"))
    n_q = _questions(manifest)
    if n_q and n_q == benchmark.leaderboard.reference_questions:
        key, title, note = reference_section(benchmark)
        return key, title, note + f" Submissions here are on dataset version {version}."
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    videos = counts.get("videos")
    size = f"{n_q:,} questions" + (f", {videos:,} videos" if isinstance(videos, int) else "")
    note = (f"{benchmark.title} dataset version {version}. Its scores are ranked only against each other, never "
            "against the paper's rows.")
    return f"{benchmark.name}-dataset-{version}", f"{benchmark.title}: dataset {version} ({size})", note


def group_sections(rows: Sequence[Row], titles: Mapping[str, tuple[str, str]], *, benchmark: str = "",
                   columns: tuple = (), higher_is_better: bool = True) -> list[Section]:
    """Rows grouped by their ``section`` key, each sorted and ranked on its own; sections with
    submissions first, then in ``titles`` order. ``titles``: key -> (title, note); ``benchmark``,
    ``columns``, ``higher_is_better``: those of every section (one benchmark's)."""
    order = list(titles)
    by_key: dict[str, list[Row]] = {}
    for row in rows:
        if row.section not in titles:
            raise KeyError(f"row {row.name!r} names unknown section {row.section!r}")
        by_key.setdefault(row.section, []).append(row)
    keys = sorted(by_key, key=lambda k: (not any(r.source == "submission" for r in by_key[k]), order.index(k)))
    return [Section(k, *titles[k], rows=sort_rows(by_key[k], higher_is_better), benchmark=benchmark, columns=columns,
                    higher_is_better=higher_is_better) for k in keys]
