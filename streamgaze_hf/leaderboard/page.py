"""The leaderboard page: one self-contained index.html (inline CSS and JS, chart as a data URI).

Every user-provided string goes through :func:`html.escape` (``quote=True``), in text and in
attributes; links are rendered only for http(s) URLs. A Content-Security-Policy allows only the
page's own inline script (by hash), so even a missed escape could not run injected code.
One table per dataset section (rows are ranked only within their dataset), each with its chart. The settings that decide
whether two rows are comparable (gaze, prompt, clip fps cap, frames, params) sit under the model name, and a table
shows its summary columns by default (:mod:`.fit`: the rest behind an "All columns" button, empty columns left out and
named in its note), so the page needs no horizontal scrolling at 1280 px; headers stay on one line. Partial runs are
marked and listed after the ranked rows, unranked; rows the leaderboard evaluated itself are marked, and a button
shows only those. Clicking a column header sorts its table by it
(numbers: descending first, ascending first where lower is better; blanks always last) and the line
above the table says the current order. Each benchmark's tables sit in a ``section.benchmark`` of
their own (with a heading and a link bar when the site has several benchmarks), each table with that
benchmark's columns.

The leaderboard app (``leaderboard serve``) shows the same tables (:func:`render_table`, :data:`TABLE_CSS`,
:data:`SORT_JS`), with each score's standard error beside it. Rows of the results dataset also say who
submitted them (a link to the pull request, the run number when a submitter sent the same model again), a
maintainer's flag (with the discussion) and the Hub model's warnings, under the model name.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from html import escape

from ..submission import fmt_coverage, valid_url
from ..util.htmlpage import attr, page_head
from .fit import empty_columns, split_columns
from .rows import BADGES, Column, Row, html_columns, is_partial, partial_text, settings_columns
from .sections import Section

__all__ = ["render_html", "render_table", "TABLE_CSS", "SORT_JS", "EVALUATED"]

#: the mark of a row the leaderboard evaluated itself (an evaluation request run as a Hub Job)
EVALUATED = "evaluated by the leaderboard"

_PAGE_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:1.2rem;color:#1b1f24}
h1{font-size:1.5rem;margin:0 0 .3rem}
h2{font-size:1.1rem;margin:1.6rem 0 .2rem}
p.meta{color:#57606a;margin:.2rem 0 .6rem;font-size:.9rem}
ul.notes{font-size:.82rem;color:#57606a;max-width:70rem}
nav.benchmarks{margin:.3rem 0 .6rem;font-size:.95rem}
nav.benchmarks a{margin-right:1rem}
h2.benchmark{font-size:1.35rem;margin:2rem 0 .2rem;border-bottom:2px solid #d0d7de}
figure{margin:1rem 0 0}
img.chart{max-width:100%;border:1px solid #d0d7de}
figcaption{font-size:.8rem;color:#57606a;max-width:70rem}
"""

#: the tables' own style (the page's and the app's)
TABLE_CSS = """
p.note{color:#57606a;margin:.1rem 0 .3rem;font-size:.8rem;max-width:70rem}
p.sorted{color:#57606a;margin:.1rem 0 .4rem;font-size:.8rem}
.wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:.8rem}
th,td{padding:.25rem .32rem;border-bottom:1px solid #d0d7de;text-align:right;white-space:nowrap}
table.leaderboard:not(.wide) .detail{display:none}
button.columns,button.evaluated-only{font:inherit;font-size:.8rem;margin:0 0 .4rem;padding:.1rem .5rem;
border:1px solid #d0d7de;border-radius:.4rem;background:#f6f8fa;color:#1b1f24;cursor:pointer}
button.columns[aria-pressed=true],button.evaluated-only[aria-pressed=true]{background:#ddf4ff;border-color:#54aeff}
.evaluated-only tr.submission:not(.evaluated),.evaluated-only tr.paper,.evaluated-only tr.human{display:none}
.partial-run{display:block;font-size:.7rem;color:#9a6700;font-weight:600}
th{background:#f6f8fa;position:sticky;top:0;vertical-align:bottom}
th button{font:inherit;font-weight:600;background:none;border:0;cursor:pointer;padding:0;color:inherit}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
td.text,th.text{text-align:left}
td.model{white-space:normal;min-width:12rem;max-width:19rem}
td.overall{font-weight:700}
td.coverage.partial,td.partial .cov{color:#9a6700;font-weight:600}
.cov{display:block;font-size:.65rem}
tr.paper td,tr.human td{color:#57606a}
tr.human td{background:#fff8e5}
.badge{display:inline-block;margin-left:.4rem;padding:0 .35rem;border-radius:.6rem;font-size:.7rem;
font-style:normal;background:#eaeef2;color:#57606a}
.settings{display:block;margin-top:.1rem;font-size:.7rem;color:#57606a;line-height:1.35}
.setting{display:inline-block;margin-right:.55rem;white-space:nowrap}
.setting b{font-weight:600;color:#6e7781}
.se{display:block;font-size:.65rem;color:#6e7781;font-weight:400}
.by{display:block;font-size:.7rem;color:#57606a}
.flag{display:inline-block;margin-left:.4rem;padding:0 .35rem;border-radius:.6rem;font-size:.7rem;background:#ffebe9;
color:#a40e26}
.evaluated{display:inline-block;margin-left:.4rem;padding:0 .35rem;border-radius:.6rem;font-size:.7rem;
background:#dafbe1;color:#116329}
.warn{display:inline-block;margin-left:.4rem;padding:0 .35rem;border-radius:.6rem;font-size:.7rem;background:#fff8c5;
color:#7d4e00}
tr.flagged td{background:#fff5f5}
"""
_CSS = _PAGE_CSS + TABLE_CSS

#: the tables' sorting, one click handler on ``root`` for every table under it (tables re-rendered later, as in
#: the app, sort too): ``(function (root) {...})(document)`` on the page, ``(element)`` in the app
SORT_JS = """
function (root) {
  root.addEventListener("click", function (event) {
    var more = event.target.closest ? event.target.closest("button.columns, button.evaluated-only") : null;
    if (more) {
      var on = more.getAttribute("aria-pressed") !== "true";
      more.setAttribute("aria-pressed", on ? "true" : "false");
      if (more.classList.contains("columns")) {
        root.querySelector("#" + more.getAttribute("aria-controls")).classList.toggle("wide", on);
        more.textContent = on ? "Summary columns only" : "All columns (" + more.getAttribute("data-more") + " more)";
      } else {
        (root.querySelector(".lb-root") || root.body || root).classList.toggle("evaluated-only", on);
      }
      return;
    }
    var button = event.target.closest ? event.target.closest("table.leaderboard th button") : null;
    if (!button) { return; }
    var th = button.closest("th"), table = th.closest("table"), tbody = table.tBodies[0];
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells), col = headers.indexOf(th);
    if (!table.hasAttribute("data-ready")) {
      Array.prototype.forEach.call(tbody.rows, function (r, i) { r.setAttribute("data-order", String(i)); });
      table.setAttribute("data-ready", "1");
    }
    var status = table.getAttribute("data-status") ? root.querySelector("#" + table.getAttribute("data-status")) : null;
    var numeric = th.getAttribute("data-kind") === "num";
    var lower = th.getAttribute("data-better") === "lower";
    var current = th.getAttribute("aria-sort");
    var dir = current === "descending" ? "ascending" : current === "ascending" ? "descending"
      : (numeric && th.getAttribute("data-key") !== "rank" && !lower ? "descending" : "ascending");
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
    if (status) {
      status.textContent = "Sorted by " + th.getAttribute("data-label") + " (" + dir + "); ranks stay "
        + "by overall. Click a column header to sort.";
    }
  });
}
"""
_JS = f"(\n{SORT_JS.strip()}\n)(document);\n"


def _sort_value(col: Column, row: Row) -> str:
    value = col.get(row)
    if value is None or value == "":
        return ""
    return repr(float(value)) if col.numeric else str(value)


def _settings(row: Row, columns: tuple[Column, ...]) -> str:
    """The settings that decide comparability, compactly under the model name (never off-screen)."""
    parts = []
    for col in settings_columns(columns):
        value = col.get(row)
        text = "" if value is None else str(value)
        title, shown = col.title, text
        if col.brief and text:  # a long value: its first word here, the whole in the tooltip
            title, shown = f"{col.title}: {text}", text.split()[0]
        parts.append(f'<span class="setting" data-key="{attr(col.key)}" title="{attr(title)}">'
                     f"<b>{escape(col.label)}</b> {escape(shown) if shown else '&ndash;'}</span>")
    return f'<span class="settings">{"".join(parts)}</span>'


def _link(url: str, text: str) -> str:
    return f'<a href="{attr(url)}" rel="nofollow noopener noreferrer">{text}</a>' if url and valid_url(url) else text


def _provenance(row: Row) -> str:
    """Who submitted a results row (its pull request linked; the run number of a resubmitted model), a
    maintainer's flag, the Hub model's warnings, the leaderboard's own evaluation and a partial run's mark: under
    the model name."""
    out = f'<span class="partial-run">{escape(partial_text(row))}</span>' if is_partial(row) else ""
    if row.evaluated:
        out += (f'<span class="evaluated" title="the leaderboard ran this model itself (a Hub Job of an evaluation '
                f'request)">{_link(row.job_url, EVALUATED)}</span>')
    if row.flag:
        out += f'<span class="flag" title="{attr(row.flag)}">{_link(row.flag_url, "flagged")}</span>'
    if row.warnings:
        out += f'<span class="warn" title="{attr(row.warnings)}">{escape(row.warnings)}</span>'
    if row.submitter:
        by = f"by @{escape(row.submitter)}"
        if row.pr_number is not None:
            by += " · " + _link(row.pr_url, f"#{row.pr_number}")
        if row.traces_url:
            by += " · " + _link(row.traces_url, "traces")
        if row.run and row.run > 1:
            by += f" · run {row.run} (resubmitted)"
        if row.flag:
            by += f" · flagged: {escape(row.flag)}"
        out += f'<span class="by">{by}</span>'
    return out


def _cell(col: Column, row: Row, columns: tuple[Column, ...], stderr: bool = False, detail: bool = False) -> str:
    value = col.get(row)
    classes = [col.key, "num" if col.numeric else "text"] + (["detail"] if detail else [])
    if col.key == "model":
        name = _link(row.url, f'<span class="name">{escape(row.name)}</span>')
        if row.source in BADGES:
            name += f'<span class="badge">{escape(BADGES[row.source])}</span>'
        text = name + _provenance(row) + _settings(row, columns)
    elif col.key == "coverage":
        text = escape(col.text(value))
        if value is not None and value < 1.0:
            classes.append("partial")
    elif col.is_score:
        text = escape(col.text(value))
        se = row.stderr.get(col.key) if stderr else None
        if se is not None and value is not None:
            text += f'<span class="se" title="standard error">±{escape(col.text(se))}</span>'

        answered, expected = (row.task_coverage or {}).get(col.key, (0, 0))
        if answered < expected:  # a partial task: its coverage beside the score (and in the tooltip)
            classes.append("partial")
            cov = fmt_coverage(answered, expected)
            return (f'<td class="{" ".join(classes)}" data-sort="{attr(_sort_value(col, row))}" '
                    f'title="{attr("coverage " + cov)}">{text}<span class="cov">{escape(cov.split(" ")[0])}</span></td>')
    else:
        text = escape("" if value is None else str(value))
    return f'<td class="{" ".join(classes)}" data-sort="{attr(_sort_value(col, row))}">{text}</td>'


def evaluated_only_button(sections: Sequence[Section]) -> str:
    """The button that shows only the rows the leaderboard evaluated itself (none when no row is such a row)."""
    n = sum(r.evaluated for sec in sections for r in sec.rows)
    if not n:
        return ""
    return (f'\n<button type="button" class="evaluated-only" aria-pressed="false">Only rows {EVALUATED} ({n})'
            "</button>")


def _direction(col: Column) -> str:
    return "descending" if col.higher_is_better else "ascending"


def _header(col: Column, detail: bool = False, sorted_by: str = "overall") -> str:
    sort = f' aria-sort="{_direction(col)}"' if col.key == sorted_by else ' aria-sort="none"'
    classes = ("num" if col.numeric else "text") + (" detail" if detail else "")
    title = f' title="{attr(col.title)}"' if col.title else ""
    better = "" if col.higher_is_better else ' data-better="lower"'
    return (f'<th class="{classes}" data-key="{attr(col.key)}" data-label="{attr(col.label)}" '
            f'data-kind="{"num" if col.numeric else "text"}"{better}{sort}{title} scope="col">'
            f'<button type="button">{escape(col.label)}</button></th>')


def _figure(chart: tuple[bytes, str] | None) -> str:
    """A section's chart (PNG bytes, caption) as an inline figure."""
    if not chart:
        return ""
    data = base64.b64encode(chart[0]).decode("ascii")
    return (f'\n<figure><img class="chart" alt="Per-task scores (grouped bars)" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(chart[1])}</figcaption></figure>")


def _rows_text(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _ranking(sec: Section, overall: Column, shown: bool) -> tuple[str, str]:
    """(the note's sentence on ranking, the sort line) of a section as its rows are ordered (:func:`~.rows.sort_rows`)."""
    ranked = sum(r.rank is not None for r in sec.rows)
    partial = sum(is_partial(r) for r in sec.rows)
    note = (f"{_rows_text(ranked, 'ranked row')}." if ranked else "No row is ranked.")
    if partial:
        note += (f" {_rows_text(partial, 'partial run')} (not every question answered: missing answers count as "
                 "wrong) listed after the full runs, not ranked.")
    after = ", partial runs after the full ones" if partial else ""
    if not shown:
        return note, (f"Rows in name order{after}: no row has an {overall.label} score, so none is ranked. Click a "
                      "column header to sort.")
    return note, f"Sorted by {overall.label} ({_direction(overall)}{after}). Click a column header to sort."


def render_table(ident: str, sec: Section, *, stderr: bool = False, chart: tuple[bytes, str] | None = None) -> str:
    """One dataset section's table (heading, note, the wide-view button when it has detail columns, sort line,
    table; ``chart`` after it): ``ident`` makes its element ids unique on the page; ``stderr``: each score's standard
    error beside it. Columns: :mod:`.fit` (empty ones left out and named in the note, detail ones hidden until the
    button is pressed)."""
    columns = sec.columns
    empty = empty_columns(html_columns(columns), sec.rows)
    summary, detail = split_columns([c for c in html_columns(columns) if c not in empty], sec.rows)
    shown = [c for c in html_columns(columns) if c not in empty]
    detail_keys = {c.key for c in detail}
    overall = next(c for c in html_columns(columns) if c.key == "overall")
    ranking, sort_line = _ranking(sec, overall, overall not in empty)
    head = "".join(_header(c, c.key in detail_keys, "overall" if overall not in empty else "") for c in shown)
    # the settings under the model name: those no row of this table has are left out too
    under = tuple(c for c in columns if not (c.settings and all(c.get(r) in (None, "") for r in sec.rows)))
    body = "\n".join(f'<tr class="{attr(r.source)}{" flagged" if r.flag else ""}{" evaluated" if r.evaluated else ""}">'
                     + "".join(_cell(c, r, under, stderr, c.key in detail_keys) for c in shown) + "</tr>"
                     for r in sec.rows)
    named = [c.label for c in empty if c.key != "rank"]  # no rank: the ranking sentence says so
    left_out = f" Left out, no row has a value: {', '.join(named)}." if named else ""
    toggle = (f'\n<button type="button" class="columns" aria-pressed="false" aria-controls="leaderboard-{ident}" '
              f'data-more="{len(detail)}">All columns ({len(detail)} more)</button>' if detail else "")
    return f"""<section class="dataset" data-section="{attr(sec.key)}">
<h2>{escape(sec.title)}</h2>
<p class="note">{escape(sec.note)} {escape(ranking)}{escape(left_out)}</p>{toggle}
<p class="sorted" id="sorted-{ident}" aria-live="polite">{escape(sort_line)}</p>
<div class="wrap">
<table class="leaderboard" id="leaderboard-{ident}" data-status="sorted-{ident}">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>
</div>{_figure(chart)}
</section>"""


def _section(i: int, sec: Section, chart: tuple[bytes, str] | None = None) -> str:
    return render_table(str(i), sec, chart=chart)


def _benchmarks(sections: Sequence[Section], charts: Mapping[str, tuple[bytes, str]]) -> str:
    """The tables, one ``section.benchmark`` per benchmark (registry order kept from ``sections``); a
    heading per benchmark and a link bar to each when there are several."""
    from ..registry import get_benchmark

    groups: dict[str, list[tuple[int, Section]]] = {}
    for i, sec in enumerate(sections):
        groups.setdefault(sec.benchmark, []).append((i, sec))
    several = len(groups) > 1
    out = []
    if several:
        links = "".join(f'<a href="#benchmark-{attr(name)}">{escape(get_benchmark(name).title)}</a>' for name in groups)
        out.append(f'<nav class="benchmarks" aria-label="Benchmarks">{links}</nav>')
    for name, secs in groups.items():
        heading = f'\n<h2 class="benchmark">{escape(get_benchmark(name).title)}</h2>' if several else ""
        tables = "\n".join(_section(i, sec, charts.get(sec.key)) for i, sec in secs)
        out.append(f'<section class="benchmark" id="benchmark-{attr(name)}" data-benchmark="{attr(name)}">'
                   f"{heading}\n{tables}\n</section>")
    return "\n".join(out)


def render_html(sections: Sequence[Section], *, title: str, meta: str, notes: Sequence[str],
                charts: Mapping[str, tuple[bytes, str]] | None = None, extra_html: str = "") -> str:
    """The page: title, one meta line, one sortable table per dataset section (rows in the given
    order), each followed by its chart (``charts``: section key -> (PNG bytes, caption); a chart draws
    only the rows of its own table), notes; ``extra_html`` (already escaped, e.g. the streaming table)
    after the notes."""
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    csp = f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{script_hash}'"
    tables = _benchmarks(sections, charts or {})
    notes_html = "".join(f"<li>{escape(n)}</li>" for n in notes)
    return page_head(title, csp, _CSS) + f"""<h1>{escape(title)}</h1>
<p class="meta">{escape(meta)}</p>{evaluated_only_button(sections)}
{tables}
<ul class="notes">{notes_html}</ul>
{extra_html}
<script>{_JS}</script>
</body>
</html>
"""
