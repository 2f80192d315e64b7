"""The leaderboard page: one self-contained index.html (inline CSS and JS, chart as a data URI).

Every user-provided string goes through :func:`html.escape` (``quote=True``), in text and in
attributes; links are rendered only for http(s) URLs. A Content-Security-Policy allows only the
page's own inline script (by hash), so even a missed escape could not run injected code.
Clicking a column header sorts by it (numbers: descending first; blanks always last).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from html import escape

from ..htmlpage import attr, page_head
from .rows import COLUMNS, SCORE_KEYS, Column, Row, fmt_score
from .schema import valid_url

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:1.5rem;color:#1b1f24}
h1{font-size:1.5rem;margin:0 0 .3rem}
p.meta{color:#57606a;margin:.2rem 0 1rem;font-size:.9rem}
.wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:.82rem;white-space:nowrap}
th,td{padding:.3rem .5rem;border-bottom:1px solid #d0d7de;text-align:right}
th{background:#f6f8fa;position:sticky;top:0}
th button{font:inherit;font-weight:600;background:none;border:0;cursor:pointer;padding:0;color:inherit}
th[aria-sort=ascending] button::after{content:" \\25B2"}
th[aria-sort=descending] button::after{content:" \\25BC"}
td.text,th.text{text-align:left}
th.settings,td.settings{background:#fbfbfc;color:#57606a}
td.overall{font-weight:700}
tr.paper td,tr.human td{color:#57606a;font-style:italic}
tr.human td{background:#fff8e5}
.badge{display:inline-block;margin-left:.4rem;padding:0 .35rem;border-radius:.6rem;font-size:.7rem;
font-style:normal;background:#ddf4ff;color:#0a3069}
tr.paper .badge,tr.human .badge{background:#eaeef2;color:#57606a}
ul.notes{font-size:.82rem;color:#57606a;max-width:60rem}
img.chart{max-width:100%;margin-top:1rem;border:1px solid #d0d7de}
"""

_JS = """
(function () {
  var table = document.getElementById("leaderboard");
  var tbody = table.tBodies[0];
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  Array.prototype.forEach.call(tbody.rows, function (r, i) { r.setAttribute("data-order", String(i)); });
  headers.forEach(function (th, col) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var numeric = th.getAttribute("data-kind") === "num";
      var current = th.getAttribute("aria-sort");
      var dir = current === "descending" ? "ascending" : current === "ascending" ? "descending"
        : (numeric && th.getAttribute("data-key") !== "rank" ? "descending" : "ascending");
      headers.forEach(function (h) { if (h.querySelector("button")) { h.setAttribute("aria-sort", "none"); } });
      th.setAttribute("aria-sort", dir);
      var sign = dir === "ascending" ? 1 : -1;
      var rows = Array.prototype.slice.call(tbody.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-sort"), y = b.cells[col].getAttribute("data-sort");
        var order = Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
        if (x === "" || y === "") { return x === y ? order : (x === "" ? 1 : -1); }
        var c = numeric ? Number(x) - Number(y) : x.localeCompare(y, undefined, {sensitivity: "base", numeric: true});
        return c !== 0 ? sign * c : order;
      });
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  });
})();
"""


def _sort_value(col: Column, row: Row) -> str:
    value = col.get(row)
    if value is None or value == "":
        return ""
    return repr(float(value)) if col.numeric else str(value)


def _cell(col: Column, row: Row) -> str:
    value = col.get(row)
    classes = [col.key, "num" if col.numeric else "text"] + (["settings"] if col.settings else [])
    if col.key == "model":
        name = f'<span class="name">{escape(row.name)}</span>'
        if row.url and valid_url(row.url):
            name = f'<a href="{attr(row.url)}" rel="nofollow noopener noreferrer">{name}</a>'
        if row.source != "submission":
            name += f'<span class="badge">{escape(row.source_label)}</span>'
        text = name
    elif col.key in SCORE_KEYS:
        text = escape(fmt_score(value))
    else:
        text = escape("" if value is None else str(value))
    return f'<td class="{" ".join(classes)}" data-sort="{attr(_sort_value(col, row))}">{text}</td>'


def _header(col: Column) -> str:
    sort = ' aria-sort="descending"' if col.key == "overall" else ' aria-sort="none"'
    classes = ("num" if col.numeric else "text") + (" settings" if col.settings else "")
    title = f' title="{attr(col.title)}"' if col.title else ""
    return (f'<th class="{classes}" data-key="{attr(col.key)}" data-kind="{"num" if col.numeric else "text"}"'
            f'{sort}{title} scope="col"><button type="button">{escape(col.label)}</button></th>')


def render_html(rows: Sequence[Row], *, title: str, meta: str, notes: Sequence[str], chart_png: bytes | None,
                extra_html: str = "") -> str:
    """The page: title, one meta line, the sortable table (rows in the given order), notes, chart;
    ``extra_html`` (already escaped, e.g. the streaming table) goes after the chart."""
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    csp = f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{script_hash}'"
    head = "".join(_header(c) for c in COLUMNS)
    body = "\n".join(f'<tr class="{attr(r.source)}">' + "".join(_cell(c, r) for c in COLUMNS) + "</tr>"
                     for r in rows)
    chart = ""
    if chart_png:
        data = base64.b64encode(chart_png).decode("ascii")
        chart = f'<img class="chart" alt="Per-task scores (grouped bars)" src="data:image/png;base64,{data}">'
    notes_html = "".join(f"<li>{escape(n)}</li>" for n in notes)
    return page_head(title, csp, _CSS) + f"""<h1>{escape(title)}</h1>
<p class="meta">{escape(meta)}</p>
<div class="wrap">
<table id="leaderboard">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>
</div>
<ul class="notes">{notes_html}</ul>
{chart}
{extra_html}
<script>{_JS}</script>
</body>
</html>
"""
