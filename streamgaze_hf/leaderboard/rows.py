"""Leaderboard rows and columns, shared by the HTML, Markdown, CSV and chart renderers.

A table's columns come from its benchmark's leaderboard layout (``Benchmark.leaderboard``: ``columns``,
Overall and the score columns, e.g. category means and tasks; ``settings``: the settings under each
model name): :func:`benchmark_columns`. Nothing here names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..evaluation import every_recorded_setting, recorded_settings
from ..registry import score_text, to_fraction

__all__ = ["Row", "Column", "SETTINGS_COLUMNS", "SOURCE_LABELS", "BADGES", "sort_rows", "is_partial", "partial_text",
           "category_means",
           "coverage_text", "efficiency_text", "benchmark_columns", "html_columns", "settings_columns", "settings_column",
           "chart_columns"]

#: how each row source is shown: re-scored submissions vs numbers copied from the paper
SOURCE_LABELS = {"submission": "submission (re-scored)", "paper": "reported in the paper",
                 "human": "reported in the paper (human)"}
#: the short mark beside a model name on the page (the page has no separate Source column)
BADGES = {"paper": "reported in the paper", "human": "reported in the paper"}


@dataclass
class Row:
    """One leaderboard line. ``tasks``: every score column's value by column key (category means too;
    ``categories`` given to the constructor are merged into it), in the column's unit (fractions for
    ratios); None = not available (blank)."""

    name: str
    source: str  # a key of SOURCE_LABELS
    tasks: dict[str, float | None]
    overall: float | None
    categories: dict[str, float | None] = field(default_factory=dict)
    dataset: str = ""
    gaze: str = ""
    prompt_mode: str = ""
    #: the recorded settings as people read them (``evaluation.recorded.row_texts``), by name
    settings: dict[str, str] = field(default_factory=dict)
    by_source: str = ""  # overall score per video source in percent, e.g. "egtea 31.2 · holoassist 28.0"
    frames: str = ""
    params: str = ""
    coverage: float | None = None
    url: str = ""
    group: str = ""
    rank: int | None = None
    file: str = ""
    section: str = ""  # the leaderboard section (one per dataset; see sections.py)
    task_coverage: dict[str, tuple[int, int]] | None = None  # column key -> (answered, expected); submissions
    # the leaderboard service's provenance (results rows): who submitted it, where, which of their runs of this
    # model it is, a maintainer's flag (reason, discussion), the Hub model's warnings, standard errors by column key
    submitter: str = ""
    pr_number: int | None = None
    pr_url: str = ""
    run: int | None = None
    flag: str = ""
    flag_url: str = ""
    warnings: str = ""
    stderr: dict[str, float] = field(default_factory=dict)
    efficiency: str = ""  # how long the model wrapper waited for video (efficiency_text); submissions that measured it
    evaluated: bool = False  # the leaderboard ran the model itself (a Hub Job of an evaluation request)
    job_url: str = ""  # that job's page
    traces_url: str = ""  # its per-sample responses, parsed answers and scores (results rows)

    def __post_init__(self) -> None:
        if self.categories:
            self.tasks = {**self.categories, **self.tasks}

    @property
    def source_label(self) -> str:
        return SOURCE_LABELS[self.source]


def efficiency_text(run: dict) -> str:
    """A submission's ``run.video_read_*`` figures (``streamgaze eval`` measures them) as people read them, after
    the column's label "Video reading": ``"1.9% of the run, 9 ms a question"`` (a share under 0.05% as
    ``"under 0.1% of the run"``); blank where the run has none."""
    share, median = run.get("video_read_share"), run.get("video_read_median_ms")
    if not isinstance(share, (int, float)) or isinstance(share, bool):
        return ""
    per_question = f", {median:.0f} ms a question" if isinstance(median, (int, float)) else ""
    part = "under 0.1%" if share < 0.0005 else f"{100 * share:.1f}%"
    return f"{part} of the run{per_question}"


def category_means(benchmark, tasks: dict[str, float | None]) -> dict[str, float | None]:
    """One mean per category of ``benchmark`` over its tasks that have a score (None when none has)."""
    out: dict[str, float | None] = {}
    for cat in benchmark.categories:
        vals = [tasks[t.id] for t in benchmark.tasks if t.category == cat and tasks.get(t.id) is not None]
        out[cat] = sum(vals) / len(vals) if vals else None
    return out


def coverage_text(value: float | None) -> str:
    """A row's coverage (a fraction) as people read it, with one decimal as everywhere else (``"100.0%"``,
    ``"80.0%"``), a partial run never rounded up to 100% (blank when unknown)."""
    if value is None:
        return ""
    return "100.0%" if value >= 1.0 else f"{min(100.0 * value, 99.9):.1f}%"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    numeric: bool
    get: Callable[[Row], object]
    title: str = ""
    settings: bool = False  # a setting that changes a number (shown, never averaged)
    digits: int = 3  # decimals shown for a unit other than a percent unit
    higher_is_better: bool = True
    unit: str = "fraction"  # a score's unit (registry.LeaderboardColumn)
    score: bool = False  # a score column (Overall, a declared column, the coverage)
    brief: bool = False  # a setting shown by its first word under the model name (whole in its tooltip)

    @property
    def is_score(self) -> bool:
        return self.score

    def text(self, value) -> str:
        """A score cell as people read it: percent with one decimal, or the column's own unit
        (:func:`~streamgaze_hf.registry.score_text`); the coverage column as :func:`coverage_text`."""
        if self.key == "coverage":
            return coverage_text(value)
        return score_text(value, self.unit, self.digits)

    def fraction(self, value):
        """A score for a machine-readable file: a fraction when the unit is a percent unit."""
        return to_fraction(value, self.unit)


_SHARED: dict[str, Column] = {c.key: c for c in (
    Column("rank", "#", True, lambda r: r.rank, "rank among the full runs on the same dataset (Human and partial runs: "
           "not ranked)"),
    Column("model", "Model", False, lambda r: r.name),
    Column("source", "Source", False, lambda r: r.source_label,
           "re-scored from raw responses, or copied from the paper"),
    Column("coverage", "Coverage", True, lambda r: r.coverage, "answered / expected items; missing = wrong",
           score=True),
    Column("dataset", "Dataset", False, lambda r: r.dataset, "dataset version", True),
    Column("efficiency", "Video reading", False, lambda r: r.efficiency,
           "time the model wrapper spent reading video: share of the run, median a question (where measured)", True),
)}
#: the settings a benchmark may show under the model name besides its recorded ones (``LeaderboardLayout.settings``:
#: their keys, or a recorded setting's name: :func:`settings_column`)
SETTINGS_COLUMNS: dict[str, Column] = {c.key: c for c in (
    Column("gaze", "Gaze", False, lambda r: r.gaze, "gaze input: visual overlay, none, text, salience", True),
    Column("prompt_mode", "Prompt", False, lambda r: r.prompt_mode,
           "prompt/parser: default (ours) or reference (the official code's)", True),
    Column("frames", "Frames", False, lambda r: r.frames, "frames given to the model", True),
    Column("params", "Params", False, lambda r: r.params, "model size", True),
    Column("by_source", "By source", False, lambda r: r.by_source,
           "overall score (mean of the task scores) on each video source's questions", True),
)}


def settings_column(key: str) -> Column:
    """The column of a setting: one of :data:`SETTINGS_COLUMNS`, else a recorded setting's
    (``evaluation.recorded``: its label, tooltip and the row's text of it).

    Raises:
        KeyError: neither.
    """
    if key in SETTINGS_COLUMNS:
        return SETTINGS_COLUMNS[key]
    s = {s.name: s for s in every_recorded_setting()}[key]
    return Column(s.name, s.label, False, lambda r: r.settings.get(key, ""), s.help, True, brief=s.brief)


def html_columns(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """A table's page columns: scores only (the dataset is the section, settings sit in the model cell)."""
    return tuple(c for c in columns if not c.settings and c.key != "source")


def settings_columns(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """A table's settings that decide whether two rows are comparable (under the model name)."""
    return tuple(c for c in columns if c.settings and c.key != "dataset")


def _score_column(col, get: Callable[[Row], object]) -> Column:
    better = "higher" if col.higher_is_better else "lower"
    title = f"{col.title}; {better} is better" if col.title else f"{better} is better"
    return Column(col.key, col.label, True, get, title, digits=col.digits, higher_is_better=col.higher_is_better,
                  unit=col.unit, score=True)


def benchmark_columns(benchmark) -> tuple[Column, ...]:
    """The columns of a registered benchmark's table: rank, model, source, its Overall, its declared score
    columns (``LeaderboardLayout.score_columns``), coverage, the dataset, then its settings
    (``LeaderboardLayout.settings``) and the efficiency (the wrapper's time reading video)."""
    return (_SHARED["rank"], _SHARED["model"], _SHARED["source"],
            _score_column(benchmark.leaderboard.overall_column(), lambda r: r.overall),
            *(_score_column(c, lambda r, k=c.key: r.tasks.get(k)) for c in benchmark.leaderboard.score_columns()),
            _SHARED["coverage"], _SHARED["dataset"], *(settings_column(k) for k in _settings_keys(benchmark)),
            _SHARED["efficiency"])


def _settings_keys(benchmark) -> tuple[str, ...]:
    """Its declared settings columns (``LeaderboardLayout.settings``), then every other setting it records
    (``evaluation.recorded``), so that each row names every value its run recorded."""
    declared = tuple(benchmark.leaderboard.settings)
    return declared + tuple(s.name for s in recorded_settings(benchmark) if s.name not in declared)


def chart_columns(benchmark) -> tuple[Column, ...]:
    """The columns a benchmark's chart draws: its declared score columns that are tasks (in task order) and
    shown as percentages; empty when it has none (no chart)."""
    by_key = {c.key: c for c in benchmark_columns(benchmark)}
    return tuple(by_key[t] for t in benchmark.task_ids
                 if t in by_key and by_key[t].unit in ("fraction", "percent"))


def is_partial(row: Row) -> bool:
    """A submission that did not answer every question (a ``--limit`` run, a crash): its missing answers count as
    wrong, so its scores do not compare with a full run's; it is listed after the ranked rows and never ranked."""
    return row.source == "submission" and row.coverage is not None and row.coverage < 1.0


def partial_text(row: Row) -> str:
    """The mark of a partial run (:func:`is_partial`): ``"partial run: 13.2% answered, not ranked"``."""
    return f"partial run: {coverage_text(row.coverage)} answered, not ranked"


def sort_rows(rows: list[Row], higher_is_better: bool = True) -> list[Row]:
    """Overall descending (ascending when lower is better; blank last); ties: submissions first, then by
    name (alphabetical, whatever the case); partial runs (:func:`is_partial`) after every full one, in the same order. Ranks every full row but the
    Human reference and rows without an overall score (e.g. a benchmark whose metrics have no common unit), so
    call it on the rows of one dataset (one leaderboard section) only."""
    order = {"submission": 0, "paper": 1, "human": 2}
    sign = -1.0 if higher_is_better else 1.0
    out = sorted(rows, key=lambda r: (is_partial(r), r.overall is None, sign * (r.overall or 0.0), order[r.source],
                                      r.name.casefold(), r.name))
    rank = 0
    for r in out:
        r.rank = None
        if r.source != "human" and r.overall is not None and not is_partial(r):
            rank += 1
            r.rank = rank
    return out
