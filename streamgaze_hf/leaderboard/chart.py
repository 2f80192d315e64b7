"""Per-task grouped bar chart in the style of StreamGaze's Figure 2: a benchmark's task columns on the x
axis (:func:`~.rows.chart_columns`, grouped by category), one bar per model.

One chart per leaderboard section (one dataset): only rows that the page says compare are drawn side by
side. Bars: every submission, then the Human row and the best paper rows by overall (hatched, "(paper)"),
at most :data:`MAX_BARS` per task so the chart stays readable; :func:`chart_caption` says which rows
were left out (the table above it has every row). matplotlib with the Agg backend (no display needed).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from .rows import Row, chart_columns

__all__ = ["chart_rows", "chart_caption", "render_chart", "MAX_BARS"]

MAX_BARS = 10
_MAX_LABEL = 40


def chart_rows(rows: Sequence[Row], max_bars: int = MAX_BARS) -> list[Row]:
    """Which rows get bars: submissions (best first), the Human row, then paper rows by overall."""
    def best(rs: list[Row]) -> list[Row]:
        return sorted(rs, key=lambda r: -(r.overall if r.overall is not None else -1.0))

    subs = best([r for r in rows if r.source == "submission"])
    human = [r for r in rows if r.source == "human"]
    paper = best([r for r in rows if r.source == "paper"])
    return (subs + human + paper)[:max(max_bars, len(subs))]


def chart_caption(rows: Sequence[Row], shown: Sequence[Row]) -> str:
    """What the chart of one section's ``rows`` shows and leaves out, in words (under the chart)."""
    shown_ids = {id(r) for r in shown}
    subs = [r for r in rows if r.source == "submission"]
    paper = [r for r in rows if r.source == "paper"]
    human = [r for r in rows if r.source == "human"]
    parts = []
    if subs:
        datasets = sorted({r.dataset for r in subs})
        parts.append(f"{len(subs)} submission(s) (dataset {', '.join(datasets)})")
    if human:
        parts.append("the Human row" if id(human[0]) in shown_ids else "not the Human row")
    if paper:
        k = sum(id(r) in shown_ids for r in paper)
        parts.append(f"all {k} paper methods" if k == len(paper) else
                     f"the {k} best of the paper's {len(paper)} methods by overall" if k else
                     f"none of the paper's {len(paper)} methods")
    return "Bars: " + ", ".join(parts) + f" (at most {MAX_BARS} bars per task; the table lists every row)."


def _label(row: Row) -> str:
    name = row.name if len(row.name) <= _MAX_LABEL else row.name[:_MAX_LABEL - 1] + "\u2026"
    name = name.replace("\\", "\\\\").replace("$", r"\$")  # no mathtext from user strings
    return name + ("" if row.source == "submission" else " (paper)")


def render_chart(rows: Sequence[Row], benchmark, title: str = "Per-task scores", caption: str = "") -> bytes:
    """PNG bytes of the grouped bar chart of one section's ``rows`` of ``benchmark`` (see :func:`chart_rows`
    for the selection, :func:`~.rows.chart_columns` for the bars of each row)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    shown = chart_rows(rows)
    columns = chart_columns(benchmark)
    tasks = [benchmark.task(c.key) for c in columns]
    n = max(len(shown), 1)
    x = np.arange(len(columns), dtype=float)
    width = 0.84 / n
    cmap = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(max(11.0, 0.12 * n * len(columns) + 4), 4.8), dpi=110)
    for i, row in enumerate(shown):
        vals = [c.fraction(c.get(row)) for c in columns]
        heights = [100.0 * v if v is not None else 0.0 for v in vals]  # percent, as the tables show them
        paper = row.source != "submission"
        ax.bar(x - 0.42 + (i + 0.5) * width, heights, width, label=_label(row), color=cmap(i % 20),
               edgecolor="#333333" if paper else "none", linewidth=0.4, hatch="//" if paper else None)
    start = 0
    for i in range(1, len(tasks) + 1):  # one group per category: a dotted line between, its name above
        if i == len(tasks) or tasks[i].category != tasks[start].category:
            if i < len(tasks):
                ax.axvline(i - 0.5, color="#999999", linewidth=0.8, linestyle=":")
            if len({t.category for t in tasks}) > 1:
                ax.text((start + i - 1) / 2, 1.02, tasks[start].category, ha="center", va="bottom", fontsize=9,
                        color="#555555", transform=ax.get_xaxis_transform())
            start = i
    ax.set_xticks(x, [c.label for c in columns])
    ax.set_ylim(0, 100)
    checkpointed = "/".join(dict.fromkeys(t.category for t in tasks if t.checkpointed))  # their categories
    ax.set_ylabel("accuracy, %" + (f" ({checkpointed}: checkpoint accuracy)" if checkpointed else ""))
    ax.set_title(title, pad=18)
    ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    ax.set_axisbelow(True)
    ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if caption:
        import textwrap

        wrapped = "\n".join(textwrap.wrap(caption.replace("$", r"\$"), 150))
        fig.text(0.01, 0.01, wrapped, fontsize=7, color="#555555", ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.04 * (wrapped.count("\n") + 1), 1, 1))
    else:
        fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
