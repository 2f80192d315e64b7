"""The leaderboard's separate "streaming" table: time-aware alert scores of stream-eval submissions.

One row per validated submission that has a ``streaming`` section (re-scored by ``validate``): GTA's and
OAA's headline scores (:func:`~.report.streaming_columns`), the real-time factor of a ``--realtime`` run,
and the settings that change them (poll schedule, stream fps, gaze, prompt mode). Written as
``streaming.md`` / ``streaming.csv`` and as a second table in ``index.html``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape

from ....leaderboard import csv_safe, md_escape
from ....registry import score_text
from ....submission import ValidationReport, valid_url
from ....util.htmlpage import attr
from .report import streaming_columns

__all__ = ["streaming_rows", "render_streaming_markdown", "render_streaming_csv", "render_streaming_html",
           "STREAMING_NOTE"]

TASKS = ("gta", "oaa")
STREAMING_NOTE = ("Streaming table: proactive alerts scored by their stream time against the dataset's event "
                  "(first fixation for GTA, first appearance for OAA). F1@2s: the first alert at or after the event "
                  "is a hit in [event, event + 2 s], earlier alerts false positives. SB ±2s: StreamingBench's rule "
                  "(first response within 2 s of the event). SG win: StreamGaze's window [t1, t2 + 3 s]. F1 AUC: "
                  "area under F1 against tolerance, 0-10 s. Dup.: alerts after the first one at or after the event. "
                  "Lat.: median first alert after the event. RTF: model seconds per stream second (--realtime "
                  "runs). Scores in percent, latencies in seconds (docs/streaming.md). Rows are sorted by mean "
                  "F1 at 2 s.")
_SETTINGS = (("poll", "Poll"), ("fps", "Stream fps"), ("gaze", "Gaze"), ("prompt_mode", "Prompt"))


def streaming_rows(reports: Sequence[ValidationReport]) -> list[dict]:
    """Rows (plain dicts) of the submissions with streaming scores, best mean F1@2s first."""
    rows = []
    for rep in reports:
        if rep.streaming is None or rep.is_oracle:
            continue
        sub = rep.submission
        values = {}
        for task in TASKS:
            for key, _label, get in streaming_columns():
                values[f"{task}_{key}"] = get(rep.streaming[task])
        fps = sub["streaming"]["fps"]
        values["rtf"] = sub["streaming"].get("realtime", {}).get("scores", {}).get("rtf")
        rows.append({"model": sub["model"]["name"], "url": sub["model"]["url"], "file": rep.path.name,
                     "poll": sub["streaming"]["poll"], "fps": "every frame" if not fps else f"{fps:g}",
                     "gaze": sub["settings"]["gaze"], "prompt_mode": sub["settings"]["prompt_mode"],
                     "mean_f1": sum(rep.streaming[t]["tolerances"]["2"]["f1"] for t in TASKS) / len(TASKS),
                     **values})
    return sorted(rows, key=lambda r: (-r["mean_f1"], r["model"]))


def _columns() -> list[tuple[str, str]]:
    cols = [("model", "Model")]
    for task in TASKS:
        cols += [(f"{task}_{k}", f"{task.upper()} {label}") for k, label, _ in streaming_columns()]
    return cols + [("rtf", "RTF")] + list(_SETTINGS)


def _text(row: dict, key: str, digits: int = 3) -> str:
    """A cell as people read it: F1, precision and recall (fractions) in percent with one decimal,
    latencies in seconds with ``digits`` decimals."""
    v = row.get(key)
    if v is None:
        return ""
    if not isinstance(v, float) or key == "fps":
        return str(v)
    if key == "rtf":
        return f"{v:.2f}"
    return score_text(v, "s" if "_latency_" in key else "fraction", digits)


def _data(row: dict, key: str) -> str:
    """A cell of the CSV (data): fractions and seconds at full precision (6 decimals)."""
    v = row.get(key)
    if v is None:
        return ""
    return f"{v:.6f}" if isinstance(v, float) and key != "fps" else str(v)


def render_streaming_markdown(rows: Sequence[dict]) -> str:
    cols = _columns()
    lines = ["# StreamGaze leaderboard: streaming", "", md_escape(STREAMING_NOTE), "",
             "| " + " | ".join(md_escape(label) for _, label in cols) + " |",
             "|" + "|".join(":---" if k in ("model", *dict(_SETTINGS)) else "---:" for k, _ in cols) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(md_escape(_text(row, k)) for k, _ in cols) + " |")
    return "\n".join(lines) + "\n"


def render_streaming_csv(rows: Sequence[dict]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    keys = [k for k, _ in _columns()]
    writer.writerow([*keys, "url", "file"])
    for row in rows:
        writer.writerow([csv_safe(_data(row, k)) for k in keys] + [csv_safe(row["url"]), csv_safe(row["file"])])
    return buf.getvalue()


def render_streaming_html(rows: Sequence[dict]) -> str:
    """A second (static) table for index.html; every user string escaped."""
    if not rows:
        return ""
    cols = _columns()
    per_task = streaming_columns()

    def th(k: str, label: str, span: str = "") -> str:
        return f'<th class="{"text" if k in ("model", *dict(_SETTINGS)) else "num"}" scope="col"{span}>{escape(label)}</th>'

    # two header rows (the task over its scores) keep the table within a 1280 px window
    single = [(k, label) for k, label in cols if not k.startswith(TASKS)]
    top = ([th(*single[0], ' rowspan="2"')]
           + [f'<th class="group" scope="colgroup" colspan="{len(per_task)}">{t.upper()}</th>' for t in TASKS]
           + [th(k, label, ' rowspan="2"') for k, label in single[1:]])
    head = "".join(top) + "</tr>\n<tr>" + "".join(th(f"{t}_{k}", label) for t in TASKS for k, label, _ in per_task)
    body = []
    for row in rows:
        cells = []
        for k, _ in cols:
            text = escape(_text(row, k))
            if k == "model" and row["url"] and valid_url(row["url"]):
                text = f'<a href="{attr(row["url"])}" rel="nofollow noopener noreferrer">{text}</a>'
            cells.append(f'<td class="{"text" if k in ("model", *dict(_SETTINGS)) else "num"}">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<h2>Streaming</h2>\n<p class="meta">{escape(STREAMING_NOTE)}</p>\n<div class="wrap">\n'
            f'<table id="streaming">\n<thead><tr>{head}</tr></thead>\n<tbody>\n' + "\n".join(body)
            + "\n</tbody>\n</table>\n</div>\n")
