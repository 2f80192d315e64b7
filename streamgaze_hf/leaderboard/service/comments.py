"""What the sync and the app write in pull-request comments besides the untrusted text itself (untrusted.py
escapes that): the re-scored table of a results row."""

from __future__ import annotations

from ...submission import score_cell
from .untrusted import comment_text

__all__ = ["scored_table"]

def scored_table(bench, row: dict) -> str:
    """The re-scored values of a results row as a Markdown table (labels and values only: no user text)."""
    cols = [bench.leaderboard.overall_column(), *bench.leaderboard.score_columns()]
    head = "| " + " | ".join(comment_text(c.label) for c in cols) + " | Coverage |"
    rule = "|" + "---:|" * (len(cols) + 1)
    values = [score_cell(c, row["overall"] if c.key == "overall" else row.get(f"score_{c.key}")) for c in cols]
    return "\n".join([head, rule, "| " + " | ".join(values) + f" | {100 * row['coverage']:.1f}% |"])
