"""How much of the dataset a run or submission covers, said the same way everywhere.

A run with ``lmms-eval --limit N`` answers only the first N documents of every task; the other items
count as wrong, so its scores are far below a full run's and not comparable with one. ``submit``
warns about it, ``validate`` reports it beside every score, the leaderboard shows the coverage of
every row. Undefined ratios (None, an empty denominator) are shown as "n/a", never as 0 or 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..registry import Benchmark

__all__ = ["fmt_ratio", "fmt_pct", "pct_text", "score_cell", "fmt_coverage", "task_coverage", "scores_line", "partial_coverage_warning", "is_partial"]


def fmt_ratio(value: float | None, digits: int = 3) -> str:
    """A fraction with ``digits`` decimals; "n/a" when undefined."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A fraction shown to people: percent with one decimal (as lmms-eval and the papers print
    scores), "n/a" when undefined. JSON files keep fractions."""
    return "n/a" if value is None else f"{100.0 * value:.{digits}f}"


def pct_text(value: float | None, digits: int = 1) -> str:
    """A fraction in running text: "12.3%", or "n/a" (no percent sign) when undefined."""
    return "n/a" if value is None else f"{fmt_pct(value, digits)}%"


def score_cell(column, value: float | None) -> str:
    """A declared leaderboard column's value in a line of text: ``"45.3%"`` for a percent unit, the
    column's own unit with its decimals otherwise (:meth:`~streamgaze_hf.registry.LeaderboardColumn.text`),
    "n/a" when undefined."""
    text = column.text(value, "n/a")
    return text + "%" if column.is_percent and value is not None else text


def fmt_coverage(answered: int, expected: int) -> str:
    """``"12.3% (456/3,700)"``."""
    pct = 100.0 * answered / expected if expected else 0.0
    if answered < expected:  # never round a partial run up to 100% or down to 0%
        pct = min(pct, 99.9)
        shown = f"{pct:.2f}" if 0 < pct < 0.1 else f"{pct:.1f}"
    else:
        shown = f"{pct:.1f}"
    return f"{shown}% ({answered:,}/{expected:,})"


def task_coverage(task_scores: Mapping[str, Any]) -> tuple[int, int]:
    """(answered, expected) items of one task's scores (``n``, ``n_missing``)."""
    n = int(task_scores["n"])
    return n - int(task_scores["n_missing"]), n


def is_partial(scores: Mapping[str, Any]) -> bool:
    cov = scores["coverage"]
    return int(cov["answered"]) < int(cov["expected"])


def scores_line(scores: Mapping[str, Any], bench: Benchmark) -> str:
    """One line of a submission's scores with the coverage beside them: in a benchmark's own layout (a
    ``score_answers`` hook) the overall and category means, else its leaderboard values."""
    cov = scores["coverage"]
    on = f"on coverage {fmt_coverage(cov['answered'], cov['expected'])}"
    from .schema import has_own_layout

    if not has_own_layout(scores):  # the shared layout (submission/schema.py "Benchmarks")
        overall = bench.leaderboard.overall_column()
        cols = ", ".join(f"{c.label} {score_cell(c, scores['columns'].get(c.key))}"
                         for c in bench.leaderboard.score_columns())
        return f"{overall.label} {score_cell(overall, scores['overall'])} ({cols}) {on}"
    means = ", ".join(f"{c} {pct_text(scores[c])}" for c in bench.categories)
    return f"overall {pct_text(scores['overall'])} ({means}) {on}"


def partial_coverage_warning(scores: Mapping[str, Any], limit: float | None = None) -> str | None:
    """The warning for a submission that does not answer every item (None when it does)."""
    if not is_partial(scores):
        return None
    cov = scores["coverage"]
    cause = f" (the run used lmms-eval --limit {limit:g})" if limit is not None else ""
    unanswered = [t for t, s in scores["tasks"].items() if task_coverage(s)[0] == 0]
    empty = f"; no answers at all for {', '.join(unanswered)}" if unanswered else ""
    return (f"partial run: {fmt_coverage(cov['answered'], cov['expected'])} of the dataset's items answered"
            f"{cause}{empty}. Missing answers count as wrong, so these scores are not comparable with a full "
            "run's; run without --limit for a leaderboard submission")
