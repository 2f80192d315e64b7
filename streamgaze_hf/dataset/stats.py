"""Counts and duration statistics of a built dataset: the one place the card, the manifest counts,
the default CHANGELOG entry and ``streamgaze stats ROOT`` all take their numbers from.

:func:`stats_from_files` reads the parquet files of a dataset directory (also the half-built
temporary one inside :func:`~streamgaze_hf.dataset.writer.write_dataset`); :func:`compute_stats`
does the same for a finished dataset and takes the version from its manifest. :func:`stats_tables`
turns the numbers into rows of pre-formatted cells, rendered as aligned text by
:func:`format_stats` and as Markdown by :func:`markdown_tables`, so both show identical figures.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..registry import Benchmark, get_benchmark
from ..util.errors import StreamGazeError
from .files import config_features, data_file, read_config
from .load import DatasetHandle, open_dataset
from .reader import parquet_rows

Stats = dict[str, Any]


@dataclass(frozen=True)
class Table:
    """A titled table of already formatted cells; ``numeric`` marks right-aligned columns."""

    title: str
    header: list[str]
    rows: list[list[str]]
    numeric: list[bool]


# ---------------------------------------------------------------------------------------------- reading


def _read(root: Path, config: str, columns: list[str], benchmark: Benchmark | None = None) -> pa.Table:
    return read_config(data_file(root, config), config, config_features(config, benchmark), columns)


def _num_rows(root: Path, config: str) -> int:
    return parquet_rows(data_file(root, config), f"parquet file of config {config!r}", config_features(config))


def _task_stats(root: Path, benchmark: Benchmark) -> tuple[list[dict], dict[str, int]]:
    """Per-task question/checkpoint counts, and questions per source over all tasks."""
    tasks, by_source = [], {}
    for spec in benchmark.tasks:
        table = _read(root, spec.id, ["source", "checkpoints"] if spec.checkpointed else ["source"], benchmark)
        n_cp = int(pc.sum(pc.list_value_length(table["checkpoints"])).as_py() or 0) if spec.checkpointed else 0
        tasks.append(
            {
                "task": spec.id,
                "name": spec.name,
                "category": spec.category,
                "questions": table.num_rows,
                "checkpoints": n_cp if spec.checkpointed else None,
            }
        )
        for source in table["source"].to_pylist():
            by_source[source] = by_source.get(source, 0) + 1
    return tasks, by_source


def _durations(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"videos": 0, "total_hours": 0.0, "min_s": 0.0, "median_s": 0.0, "max_s": 0.0}
    return {
        "videos": len(values),
        "total_hours": sum(values) / 3600.0,
        "min_s": min(values),
        "median_s": float(statistics.median(values)),
        "max_s": max(values),
    }


def stats_from_files(root: str | os.PathLike[str], version: str, benchmark: Benchmark) -> Stats:
    """Statistics of the dataset directory ``root`` of ``benchmark`` (only its parquet files are read, as they
    are: a caller reading a finished dataset fetches and verifies them first, :func:`compute_stats`)."""
    root = Path(root)
    tasks, questions_by_source = _task_stats(root, benchmark)
    videos = _read(root, "videos", ["source", "duration"])
    per_source: dict[str, list[float]] = {}
    for source, duration in zip(videos["source"].to_pylist(), videos["duration"].to_pylist()):
        per_source.setdefault(source, []).append(float(duration))
    sources = [
        {
            "source": s,
            "videos": len(per_source.get(s, [])),
            "hours": sum(per_source.get(s, [])) / 3600.0,
            "questions": questions_by_source.get(s, 0),
        }
        for s in sorted(set(per_source) | set(questions_by_source))
    ]
    return {
        "benchmark": benchmark.name,
        "media": benchmark.dataset.media,
        "version": version,
        "tasks": tasks,
        "questions": sum(t["questions"] for t in tasks),
        "checkpoints": sum(t["checkpoints"] or 0 for t in tasks),
        "categories": {c: sum(t["questions"] for t in tasks if t["category"] == c)
                       for c in benchmark.categories},
        "sources": sources,
        "durations": _durations([d for ds in per_source.values() for d in ds]),
        "videos": videos.num_rows,
        "gaze_samples": _num_rows(root, "gaze"),
        "fixations": _num_rows(root, "fixations"),
    }


def compute_stats(root) -> Stats:
    """Statistics of the built dataset at ``root`` (version from its manifest; ``streamgaze stats``).

    Args:
        root: the dataset: open (``dataset.load.DatasetHandle``), a directory, or a Hub reference
            ``hf://datasets/ORG/NAME@REV`` (every table is then fetched in one download).

    Returns:
        The :class:`Stats` (counts per task, category and source, durations, rows of the shared configs).

    Raises:
        StreamGazeError: naming the path, when ``root`` is missing or not a dataset, its manifest names
            no registered benchmark, or a data file is damaged (footer, schema, row count or sha256).
    """
    from ..hub.reference import is_reference

    if not isinstance(root, DatasetHandle) and not is_reference(str(root)) and not Path(root).is_dir():
        raise StreamGazeError("no such dataset directory", Path(root))
    data = open_dataset(root)  # the same first check of every file as every other command (footer, schema, rows)
    data.files([f for f in data.manifest.get("files") or {} if f.startswith("data/") and f.endswith(".parquet")])
    return stats_from_files(data.path, data.version, data.benchmark)


def manifest_counts(stats: Stats) -> dict[str, Any]:
    """The ``counts`` object of ``manifest.json``."""
    return {
        "questions": {t["task"]: t["questions"] for t in stats["tasks"]},
        "checkpoints": {t["task"]: t["checkpoints"] for t in stats["tasks"] if t["checkpoints"] is not None},
        "videos": stats["videos"],
        "gaze_samples": stats["gaze_samples"],
        "fixations": stats["fixations"],
        "by_source": {
            s["source"]: {"videos": s["videos"], "questions": s["questions"]} for s in stats["sources"]
        },
    }


# ---------------------------------------------------------------------------------------------- tables


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _hours(value: float) -> str:
    return f"{value:.2f}"


def _seconds(value: float) -> str:
    return f"{value:.1f}"


def stats_tables(stats: Stats) -> list[Table]:
    """The statistics as tables of formatted cells (shared by the card and ``streamgaze stats``)."""
    tasks = Table(
        "Questions per task",
        ["Task", "Name", "Category", "Questions", "Checkpoints"],
        [
            [t["task"], t["name"], t["category"], _n(t["questions"]), _n(t["checkpoints"])]
            for t in stats["tasks"]
        ]
        + [["total", "", "", _n(stats["questions"]),
            _n(stats["checkpoints"] if any(t["checkpoints"] is not None for t in stats["tasks"]) else None)]],
        [False, False, False, True, True],
    )
    categories = Table(
        "Questions per category",
        ["Category", "Tasks", "Questions"],
        [
            [c, ", ".join(t["task"] for t in stats["tasks"] if t["category"] == c), _n(n)]
            for c, n in stats["categories"].items()
        ],
        [False, False, True],
    )
    if stats.get("media") == "image":  # still images: counted, no durations
        sources = Table(
            "Sources",
            ["Source", "Images", "Questions"],
            [[s["source"], _n(s["videos"]), _n(s["questions"])] for s in stats["sources"]]
            + [["total", _n(stats["videos"]), _n(stats["questions"])]],
            [False, True, True],
        )
        return [tasks, categories, sources, _configs_table(stats, "images (the `videos` config)")]
    sources = Table(
        "Sources",
        ["Source", "Videos", "Hours", "Questions"],
        [[s["source"], _n(s["videos"]), _hours(s["hours"]), _n(s["questions"])] for s in stats["sources"]]
        + [["total", _n(stats["videos"]), _hours(stats["durations"]["total_hours"]), _n(stats["questions"])]],
        [False, True, True, True],
    )
    d = stats["durations"]
    durations = Table(
        "Video durations",
        ["Videos", "Total hours", "Min (s)", "Median (s)", "Max (s)"],
        [
            [
                _n(d["videos"]),
                _hours(d["total_hours"]),
                _seconds(d["min_s"]),
                _seconds(d["median_s"]),
                _seconds(d["max_s"]),
            ]
        ],
        [True] * 5,
    )
    return [tasks, categories, sources, durations, _configs_table(stats, "videos")]


def _configs_table(stats: Stats, videos_label: str) -> Table:
    return Table(
        "Other configs",
        ["Config", "Rows"],
        [
            [videos_label, _n(stats["videos"])],
            ["gaze", _n(stats["gaze_samples"])],
            ["fixations", _n(stats["fixations"])],
        ],
        [False, True],
    )


def _aligned(table: Table) -> str:
    widths = [max(len(row[i]) for row in [table.header, *table.rows]) for i in range(len(table.header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, table.numeric)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([table.title, line(table.header), rule, *(line(r) for r in table.rows)])


def format_stats(stats: Stats) -> str:
    """Readable aligned text tables (what ``streamgaze stats ROOT`` prints)."""
    head = f"{get_benchmark(stats['benchmark']).title} dataset {stats['version']}"
    return "\n\n".join([head, *(_aligned(t) for t in stats_tables(stats))])


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _markdown(table: Table, level: str) -> str:
    sep = ["---:" if num else "---" for num in table.numeric]
    lines = [f"{level} {table.title}", "", _md_row(table.header), "| " + " | ".join(sep) + " |"]
    lines += [_md_row(row) for row in table.rows]
    return "\n".join(lines)


def markdown_tables(stats: Stats, level: str = "###") -> str:
    """The same tables as :func:`format_stats`, as Markdown sections (for the dataset card)."""
    return "\n\n".join(_markdown(t, level) for t in stats_tables(stats))
