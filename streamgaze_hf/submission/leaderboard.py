"""``streamgaze leaderboard``: validated submissions + the paper's Table 2 -> a static site.

Writes ``index.html`` (sortable tables, see :mod:`.page`), ``leaderboard.md`` and ``leaderboard.csv``
(for READMEs and papers) and ``chart.png`` (per-task grouped bars, see :mod:`.chart`) into one
directory, atomically. Every submission is validated and re-scored against ``--dataset`` first (the
first invalid one stops everything, naming its file); the oracle baseline is never ranked.
Paper rows (and the Human row) are marked "reported in the paper" and never re-scored. Rows are
ranked only against rows on the same dataset: one section per dataset (:mod:`.sections`), so a
demo-scale submission never appears ranked among the paper's full-benchmark rows.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..dataset.load import read_manifest, resolve_root
from ..dataset.writer import manifest_digest
from ..errors import StreamGazeError
from ..fsutil import atomic_directory
from ..tasks import TASK_IDS
from .chart import chart_caption, chart_rows, render_chart
from .coverage import task_coverage
from .page import render_html
from .paper import paper_rows
from .rescore import AnswerKey
from .rows import COLUMNS, SCORE_KEYS, Row, fmt_score
from .sections import FULL_NOTE, FULL_RELEASE, FULL_TITLE, Section, dataset_section, group_sections
from .validate import ValidationReport, validate_submission

__all__ = ["submission_row", "collect_rows", "collect_sections", "render_markdown", "render_csv",
           "write_leaderboard", "OUTPUT_FILES"]

OUTPUT_FILES = ("index.html", "leaderboard.md", "leaderboard.csv", "chart.png")
TITLE = "StreamGaze leaderboard"
NOTES = (
    "Scores are fractions in [0, 1]; proactive tasks (GTA, OAA) report checkpoint accuracy. "
    "Overall is the unweighted mean of the ten task scores.",
    "Submission rows are re-scored from their raw responses against the dataset named in their table's title; "
    "missing answers count as wrong (see Coverage). Self-reported scores are never used.",
    "Rows marked 'reported in the paper' are copied from the StreamGaze paper's Table 2 (full benchmark, "
    "official prompts and parser = prompt mode 'reference'); they are not re-scored. AssistGaze has no "
    "proactive scores; its overall is over eight tasks, as in the paper.",
    "Gaze, Prompt, Clip fps cap, Frames and Params are the settings that change a number: compare rows "
    "only where they match.",
    "Each dataset has its own table and ranking: scores on a demo-scale or partial dataset are never ranked "
    "against the full benchmark's.",
)


def submission_row(report: ValidationReport, section: str = "") -> Row:
    """The leaderboard row of a validated submission (recomputed scores only)."""
    sub, s = report.submission, report.scores
    fps = sub["settings"]["clip_fps"]
    return Row(name=sub["model"]["name"], source="submission",
               tasks={t: float(s["tasks"][t]["accuracy"]) for t in TASK_IDS}, overall=float(s["overall"]),
               categories={c: float(s[c]) for c in ("past", "present", "proactive")},
               dataset=sub["dataset"]["version"], gaze=sub["settings"]["gaze"],
               prompt_mode=sub["settings"]["prompt_mode"], clip_fps="none" if not fps else f"{fps:g}",
               protocol=sub["settings"].get("protocol", "default"),
               by_source=" · ".join(f"{src} {fmt_score(v['overall'])}" for src, v in s["sources"].items()),
               frames=sub["model"]["frames"], params=sub["model"]["params"],
               coverage=float(s["coverage"]["fraction"]), url=sub["model"]["url"], file=report.path.name,
               section=section, task_coverage={t: task_coverage(s["tasks"][t]) for t in TASK_IDS})


def collect_sections(reports: Sequence[ValidationReport], manifest: dict, include_paper: bool = True
                     ) -> list[Section]:
    """Submission rows (oracle refused; all on the dataset with ``manifest``) plus the paper rows,
    one section per dataset, each sorted by overall descending and ranked on its own."""
    key, title, note = dataset_section(manifest)
    titles = {key: (title, note)}
    if include_paper:
        titles.setdefault(FULL_RELEASE, (FULL_TITLE, FULL_NOTE))
    rows = []
    for rep in reports:
        if rep.is_oracle:
            raise StreamGazeError("this is the oracle baseline (it reads the answer key): never ranked on the "
                                  "leaderboard", rep.path)
        rows.append(submission_row(rep, key))
    if include_paper:
        rows += paper_rows()
    return group_sections(rows, titles)


def collect_rows(reports: Sequence[ValidationReport], manifest: dict, include_paper: bool = True) -> list[Row]:
    """Every row, section by section (see :func:`collect_sections`)."""
    return [r for sec in collect_sections(reports, manifest, include_paper) for r in sec.rows]


# ---- Markdown / CSV -------------------------------------------------------------------------------

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"})


def md_escape(text: str) -> str:
    """A user string as literal Markdown table-cell text (HTML-escaped, Markdown specials escaped)."""
    flat = " ".join(str(text).split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").translate(_MD_SPECIAL)


def _plain(col, row: Row) -> str:
    value = col.get(row)
    if col.key in SCORE_KEYS:
        return "" if value is None else f"{value:.3f}"
    return "" if value is None else str(value)


def render_markdown(sections: Sequence[Section], meta: str) -> str:
    """GitHub-flavoured Markdown: one table per dataset section (3 decimals), then the notes."""
    cols = [c for c in COLUMNS if c.key != "dataset"]
    lines = [f"# {TITLE}", "", md_escape(meta)]
    for sec in sections:
        lines += ["", f"## {md_escape(sec.title)}", "", md_escape(sec.note), "",
                  "| " + " | ".join(md_escape(c.label) for c in cols) + " |",
                  "|" + "|".join("---:" if c.numeric else ":---" for c in cols) + "|"]
        lines += ["| " + " | ".join(md_escape(_plain(c, row)) for c in cols) + " |" for row in sec.rows]
    lines += [""] + [f"- {n}" for n in NOTES]
    return "\n".join(lines) + "\n"


def _csv_safe(text: str) -> str:
    """Neutralise spreadsheet formulas in user strings (a leading = + - @ tab or CR)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def render_csv(rows: Sequence[Row]) -> str:
    """Machine-readable table: full-precision scores (6 decimals), settings, source, URL and the
    section (rows are ranked within their section only)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    keys = [c.key for c in COLUMNS]
    writer.writerow([*keys, "url", "file", "section"])
    for row in rows:
        out = []
        for c in COLUMNS:
            value = c.get(row)
            if c.key in SCORE_KEYS or c.key == "rank":
                out.append("" if value is None else (str(value) if c.key == "rank" else f"{value:.6f}"))
            else:
                out.append(_csv_safe("" if value is None else str(value)))
        writer.writerow([*out, _csv_safe(row.url), _csv_safe(row.file), row.section])
    return buf.getvalue()


# ---- the site -------------------------------------------------------------------------------------

def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "index.html").is_file())):
        raise StreamGazeError("exists and is not a leaderboard directory (no index.html): refusing to replace "
                              "it; choose a new --out", out)


def write_leaderboard(submissions: Sequence[str | os.PathLike[str]], root: str | os.PathLike[str] | None,
                      out: str | os.PathLike[str], *, include_paper: bool = True) -> Path:
    """Validate every submission against the dataset at ``root`` and write the site to ``out``."""
    out = Path(out)
    _check_out(out)
    root_path = resolve_root(root)
    keys: dict[str, AnswerKey] = {}
    reports = [validate_submission(path, root_path, key_cache=keys) for path in submissions]
    manifest = read_manifest(root_path)
    sections = collect_sections(reports, manifest, include_paper)
    rows = [r for sec in sections for r in sec.rows]
    meta = (f"Submissions re-scored against StreamGaze dataset version {manifest['version']} (manifest sha256 "
            f"{manifest_digest(root_path)[:16]}...) by streamgaze-toolkit {__version__}; "
            f"{len(reports)} submission(s). One table per dataset, each sorted by overall.")
    shown = chart_rows(rows)
    caption = chart_caption(rows, shown)
    png = render_chart(rows, title="StreamGaze: per-task scores", caption=caption)
    from .streaming_table import (
        render_streaming_csv,
        render_streaming_html,
        render_streaming_markdown,
        streaming_rows,
    )

    stream_rows = streaming_rows(reports)
    with atomic_directory(out) as tmp:
        (tmp / "index.html").write_text(render_html(sections, title=TITLE, meta=meta, notes=NOTES, chart_png=png,
                                                    chart_caption=caption,
                                                    extra_html=render_streaming_html(stream_rows)),
                                        encoding="utf-8")
        if stream_rows:  # the separate streaming table (stream-eval submissions only)
            (tmp / "streaming.md").write_text(render_streaming_markdown(stream_rows), encoding="utf-8")
            (tmp / "streaming.csv").write_text(render_streaming_csv(stream_rows), encoding="utf-8")
        (tmp / "leaderboard.md").write_text(render_markdown(sections, meta), encoding="utf-8")
        (tmp / "leaderboard.csv").write_text(render_csv(rows), encoding="utf-8")
        (tmp / "chart.png").write_bytes(png)
    return out
