"""Which of a table's columns a reader sees at 1280 px: the one rule of the static site and the app.

* **Empty columns are left out**: a score column without a value in any row of the table (a paper that did not
  report it, a metric no run measured) is not shown; the table's note names it (:func:`empty_columns`).
* **Summary columns by default**: a table keeps Overall, the coverage and the benchmark's declared score columns
  in their declared order (summaries first: categories, then tasks) while they fit :data:`BUDGET_PX` beside the
  rank and model columns, by an estimate of each column's width (:func:`column_px`: its label, headers stay on one
  line, and its widest value); the columns after the first that does not fit are *detail* columns, hidden until
  the reader opens the wide view (a button above the table; :func:`split_columns`). A table whose columns all fit
  has no button.

The estimate is deliberately generous (a bold label, the sort arrow, the standard error under a score); the browser
tests check the result at 1280x800 for every benchmark, in the static site and in the app.
"""

from __future__ import annotations

from collections.abc import Sequence

from .rows import Column, Row

__all__ = ["BUDGET_PX", "empty_columns", "split_columns", "column_px"]

#: the width the score columns may take beside the rank and model columns, in CSS px: a 1280 px window's table box
#: (about 1,200 px in the app, 1,240 on the page) less the model column's 12rem and the rank column
BUDGET_PX = 900
_CHAR_PX = 7.4  # a bold character at the tables' 0.8rem in a sans-serif font, generously
_PAD_PX = 12  # a cell's padding (.32rem on each side) and its border
_ARROW_PX = 14  # " ▼" beside a sorted header
_ALWAYS = ("rank", "model")


def column_px(col: Column, rows: Sequence[Row]) -> float:
    """The estimated width of a score column: its label on one line with the sort arrow, or its widest value."""
    values = [len(col.text(col.get(r))) for r in rows] or [0]
    return max(len(col.label) * _CHAR_PX + _ARROW_PX, max(values) * _CHAR_PX) + _PAD_PX


def empty_columns(columns: Sequence[Column], rows: Sequence[Row]) -> list[Column]:
    """The score columns (Overall and coverage too) without a value in any of ``rows``, and the rank column when no
    row is ranked."""
    return [c for c in columns if (c.is_score or c.key == "rank") and all(c.get(r) is None for r in rows)]


def split_columns(columns: Sequence[Column], rows: Sequence[Row], budget_px: float = BUDGET_PX
                  ) -> tuple[list[Column], list[Column]]:
    """(summary, detail) of a table's page columns (``columns``: what the page shows, empty ones already left out):
    Overall and the coverage always summary; declared score columns in order while they fit ``budget_px``."""
    fixed = [c for c in columns if c.key in ("overall", "coverage")]
    used = sum(column_px(c, rows) for c in fixed)
    summary_keys = {c.key for c in columns if c.key in _ALWAYS or c in fixed or not c.is_score}
    full = False
    for col in columns:
        if col.key in summary_keys:
            continue
        width = column_px(col, rows)
        if not full and used + width <= budget_px:
            used += width
            summary_keys.add(col.key)
        else:
            full = True  # the declared order is kept: nothing after the first detail column is a summary
    return [c for c in columns if c.key in summary_keys], [c for c in columns if c.key not in summary_keys]
