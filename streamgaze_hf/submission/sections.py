"""One leaderboard section per dataset: rows are ranked only against rows on the same dataset.

A demo-scale build (a few videos, a few hundred questions) and the full benchmark give numbers that
cannot be compared, so a demo submission is never ranked among the paper's Table 2 rows. Each row
belongs to a section:

* the **full release** section: the paper's rows (the official release: 8,521 questions), joined by
  submissions re-scored against a dataset imported from the complete official release;
* one section per other dataset version (builds from raw data, subsets of the release).

Sections holding submissions come first; the rank column counts within a section (the Human row is a
reference, never ranked).

Every other registered benchmark has its own sections, the same way (:func:`benchmark_dataset_section`):
its reference rows (``Benchmark.reference_rows()``) in ``<name>-reference``, joined by submissions on a
dataset of exactly the paper's question count (``extra["reference_questions"]``); other datasets in
``<name>-dataset-<version>``. Its sections carry its columns and ranking direction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rows import Row, sort_rows

__all__ = ["Section", "FULL_RELEASE", "PAPER_QUESTIONS", "dataset_section", "group_sections",
           "reference_section", "benchmark_dataset_section"]

#: the section key of the full benchmark (the paper's rows)
FULL_RELEASE = "full-release"
#: questions of the complete official release (the paper's benchmark)
PAPER_QUESTIONS = 8521
FULL_TITLE = f"Full benchmark: the official release ({PAPER_QUESTIONS:,} questions)"
FULL_NOTE = ("The paper's Table 2 (reported, not re-scored; official prompts and parser = prompt mode "
             "'reference') and submissions re-scored on the complete official release.")
_RELEASE_ROAD = "official-release"  # benchmarks/streamgaze/release.py ROAD, not imported to keep this module light


@dataclass
class Section:
    key: str
    title: str
    note: str
    rows: list[Row] = field(default_factory=list)
    benchmark: str = "streamgaze"
    columns: tuple | None = None  # the table's columns (rows.benchmark_columns); None = StreamGaze's COLUMNS
    higher_is_better: bool = True  # the direction of its Overall (its ranking)

    @property
    def n_submissions(self) -> int:
        return sum(r.source == "submission" for r in self.rows)


def _questions(manifest: Mapping[str, Any]) -> int:
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    per_task = counts.get("questions") if isinstance(counts.get("questions"), dict) else {}
    return int(sum(v for v in per_task.values() if isinstance(v, int)))


def dataset_section(manifest: Mapping[str, Any]) -> tuple[str, str, str]:
    """(key, title, note) of the section for submissions on the dataset with this manifest."""
    version = str(manifest.get("version", "?"))
    build = manifest.get("build") if isinstance(manifest.get("build"), dict) else {}
    road = str(build.get("road") or "")
    n_q = _questions(manifest)
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    videos = counts.get("videos")
    if road == _RELEASE_ROAD and n_q == PAPER_QUESTIONS:
        return FULL_RELEASE, FULL_TITLE, FULL_NOTE + f" Submissions here are on dataset version {version}."
    what = "imported from part of the official release" if road == _RELEASE_ROAD else "built by the toolkit"
    size = f"{n_q:,} questions" + (f", {videos:,} videos" if isinstance(videos, int) else "")
    title = f"Dataset {version} ({size})"
    note = (f"Dataset version {version}, {what}. Its scores are ranked only against each other, never "
            f"against the full benchmark's ({PAPER_QUESTIONS:,} questions).")
    return f"dataset-{version}", title, note


def reference_section(benchmark) -> tuple[str, str, str]:
    """(key, title, note) of a registered benchmark's reference-rows section (not StreamGaze's)."""
    n = benchmark.extra.get("reference_questions")
    size = f" ({n:,} questions)" if isinstance(n, int) else ""
    title = f"{benchmark.title}: the paper's benchmark{size}"
    note = (f"Rows marked 'reported in the paper' are copied from the {benchmark.title} paper (its own scorer and "
            "prompts); they are not re-scored.")
    return f"{benchmark.name}-reference", title, note


def benchmark_dataset_section(benchmark, manifest: Mapping[str, Any]) -> tuple[str, str, str]:
    """(key, title, note) of the section for a registered benchmark's submissions on the dataset with
    this manifest (not StreamGaze's: see :func:`dataset_section`)."""
    version = str(manifest.get("version", "?"))
    n_q = _questions(manifest)
    if n_q and n_q == benchmark.extra.get("reference_questions"):
        key, title, note = reference_section(benchmark)
        return key, title, note + f" Submissions here are on dataset version {version}."
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    videos = counts.get("videos")
    size = f"{n_q:,} questions" + (f", {videos:,} videos" if isinstance(videos, int) else "")
    note = (f"{benchmark.title} dataset version {version}. Its scores are ranked only against each other, never "
            "against the paper's rows.")
    return f"{benchmark.name}-dataset-{version}", f"{benchmark.title}: dataset {version} ({size})", note


def group_sections(rows: Sequence[Row], titles: Mapping[str, tuple[str, str]], *, benchmark: str = "streamgaze",
                   columns: tuple | None = None, higher_is_better: bool = True) -> list[Section]:
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
