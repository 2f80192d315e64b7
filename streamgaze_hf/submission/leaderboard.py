"""``streamgaze leaderboard``: validated submissions + the paper's Table 2 -> a static site.

Writes ``index.html`` (sortable tables, see :mod:`.page`), ``leaderboard.md`` and ``leaderboard.csv``
(for READMEs and papers) and ``chart.png`` (per-task grouped bars, see :mod:`.chart`) into one
directory, atomically. Every submission is validated and re-scored against ``--dataset`` first (the
first invalid one stops everything, naming its file); the oracle baseline is never ranked.
Paper rows (and the Human row) are marked "reported in the paper" and never re-scored. Rows are
ranked only against rows on the same dataset: one section per dataset (:mod:`.sections`), so a
demo-scale submission never appears ranked among the paper's full-benchmark rows.

One site serves every registered benchmark: each submission names its benchmark (``benchmark``; none =
StreamGaze) and is validated against that benchmark's dataset (``roots``: one dataset root per
benchmark, told apart by their manifests). Each benchmark with submissions gets its own section of
the page, with its own tables (its declared columns, ranked in its Overall's direction) and its
reference rows (``Benchmark.reference_rows()``); StreamGaze's section is the one described above.
Files: ``leaderboard.md`` holds every table; ``leaderboard.csv`` and ``chart.png`` are StreamGaze's,
``leaderboard-<benchmark>.csv`` another benchmark's.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..benchmarks import benchmarks, get_benchmark
from ..benchmarks.api import score_text
from ..dataset.load import DEFAULT_BENCHMARK, read_manifest, resolve_root
from ..dataset.writer import manifest_digest
from ..errors import StreamGazeError
from ..fsutil import atomic_directory
from .cells import csv_safe, md_escape
from .chart import chart_caption, chart_rows, render_chart
from .coverage import task_coverage
from .page import render_html
from .rows import COLUMNS, TASK_IDS, Row, benchmark_columns
from .schema import submission_benchmark
from .sections import (
    FULL_NOTE,
    FULL_RELEASE,
    FULL_TITLE,
    Section,
    benchmark_dataset_section,
    dataset_section,
    group_sections,
    reference_section,
)
from .validate import ValidationReport, load_submission, validate_submission

__all__ = ["submission_row", "collect_rows", "collect_sections", "collect_benchmark_sections", "reference_row",
           "render_markdown", "render_csv", "write_leaderboard", "OUTPUT_FILES"]

OUTPUT_FILES = ("index.html", "leaderboard.md", "leaderboard.csv", "chart.png")
TITLE = "StreamGaze leaderboard"
NOTES = (
    "Scores are percentages (one decimal; leaderboard.csv holds the fractions); proactive tasks (GTA, OAA) "
    "report checkpoint accuracy. "
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
#: the notes of a site with benchmarks other than StreamGaze
OTHER_NOTES = (
    "Each benchmark has its own section, columns and units (accuracies, F1 and other ratios in percent with one "
    "decimal; angles, distances and BLEU in their own units; a column's tooltip says whether higher or lower "
    "is better); rows are ranked by that benchmark's Overall, in its direction.",
    "Submission rows are re-scored from their raw responses by their benchmark's own scorer against the dataset "
    "named in their table's title; missing answers count as wrong. Rows marked 'reported in the paper' are "
    "copied from the benchmark's paper and never re-scored.",
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
               by_source=" · ".join(f"{src} {score_text(v['overall'])}" for src, v in s["sources"].items()),
               frames=sub["model"]["frames"], params=sub["model"]["params"],
               coverage=float(s["coverage"]["fraction"]), url=sub["model"]["url"], file=report.path.name,
               section=section, task_coverage={t: task_coverage(s["tasks"][t]) for t in TASK_IDS})


def _refuse_oracle(rep: ValidationReport) -> None:
    if rep.is_oracle:
        raise StreamGazeError("this is the oracle baseline (it reads the answer key): never ranked on the "
                              "leaderboard", rep.path)


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
        _refuse_oracle(rep)
        rows.append(submission_row(rep, key))
    if include_paper:
        rows += get_benchmark(DEFAULT_BENCHMARK).reference_rows()
    return group_sections(rows, titles)


def reference_row(ref, section: str) -> Row:
    """A benchmark's reference row (a :class:`Row` or the dict of the registry's contract) in ``section``."""
    if isinstance(ref, Row):
        return Row(**{**ref.__dict__, "section": section, "rank": None})
    source = str(ref.get("source") or "paper")
    if source not in ("paper", "human"):
        raise StreamGazeError(f"reference row {ref.get('name')!r}: source must be 'paper' or 'human', not {source!r}")
    return Row(name=str(ref["name"]), source=source, tasks=dict(ref.get("tasks") or {}), overall=ref.get("overall"),
               categories={}, dataset=str(ref.get("dataset") or ""), gaze=str(ref.get("gaze") or ""),
               prompt_mode=str(ref.get("prompt_mode") or ""), frames=str(ref.get("frames") or ""),
               params=str(ref.get("params") or ""), group=str(ref.get("group") or ""), section=section)


def benchmark_submission_row(report: ValidationReport, section: str) -> Row:
    """The row of a validated submission of a benchmark other than StreamGaze (its leaderboard values)."""
    sub, s = report.submission, report.scores
    return Row(name=sub["model"]["name"], source="submission", tasks=dict(s["columns"]), overall=s["overall"],
               categories={}, dataset=sub["dataset"]["version"], gaze=sub["settings"]["gaze"],
               prompt_mode=sub["settings"]["prompt_mode"], frames=sub["model"]["frames"],
               params=sub["model"]["params"], coverage=float(s["coverage"]["fraction"]), url=sub["model"]["url"],
               file=report.path.name, section=section,
               task_coverage={t: task_coverage(v) for t, v in s["tasks"].items()})


def collect_benchmark_sections(benchmark, reports: Sequence[ValidationReport], manifest: dict,
                               include_paper: bool = True) -> list[Section]:
    """:func:`collect_sections` for a registered benchmark other than StreamGaze: its submissions (all on
    the dataset with ``manifest``) and its reference rows, each section with the benchmark's columns."""
    key, title, note = benchmark_dataset_section(benchmark, manifest)
    titles = {key: (title, note)}
    rows = []
    for rep in reports:
        _refuse_oracle(rep)
        rows.append(benchmark_submission_row(rep, key))
    refs = benchmark.reference_rows() if include_paper else []
    if refs:
        ref_key, ref_title, ref_note = reference_section(benchmark)
        titles.setdefault(ref_key, (ref_title, ref_note))
        rows += [reference_row(r, ref_key) for r in refs]
    return group_sections(rows, titles, benchmark=benchmark.name, columns=benchmark_columns(benchmark),
                          higher_is_better=benchmark.overall_column().higher_is_better)


def collect_rows(reports: Sequence[ValidationReport], manifest: dict, include_paper: bool = True) -> list[Row]:
    """Every row, section by section (see :func:`collect_sections`)."""
    return [r for sec in collect_sections(reports, manifest, include_paper) for r in sec.rows]


# ---- Markdown / CSV -------------------------------------------------------------------------------

def _plain(col, row: Row) -> str:
    value = col.get(row)
    if col.is_score:
        return col.text(value)
    return "" if value is None else str(value)


def render_markdown(sections: Sequence[Section], meta: str, title: str = TITLE,
                    notes: Sequence[str] = NOTES) -> str:
    """GitHub-flavoured Markdown: one table per dataset section (scores in percent with one decimal; a
    column in another unit with its declared decimals), each benchmark's under its own heading when there
    are several, then the notes."""
    lines = [f"# {title}", "", md_escape(meta)]
    several = len({sec.benchmark for sec in sections}) > 1
    current = None
    for sec in sections:
        cols = [c for c in (sec.columns or COLUMNS) if c.key != "dataset"]
        level = "##"
        if several:
            level = "###"
            if sec.benchmark != current:
                current = sec.benchmark
                lines += ["", f"## {md_escape(get_benchmark(current).title)}"]
        lines += ["", f"{level} {md_escape(sec.title)}", "", md_escape(sec.note), "",
                  "| " + " | ".join(md_escape(c.label) for c in cols) + " |",
                  "|" + "|".join("---:" if c.numeric else ":---" for c in cols) + "|"]
        lines += ["| " + " | ".join(md_escape(_plain(c, row)) for c in cols) + " |" for row in sec.rows]
    lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def render_csv(rows: Sequence[Row], columns: Sequence = COLUMNS) -> str:
    """Machine-readable table: scores as fractions in [0, 1] at full precision (6 decimals; a column
    in another unit, such as VL4Gaze's angles, in that unit), settings, source, URL and the
    section (rows are ranked within their section only). ``columns``: StreamGaze's, or another
    benchmark's (:func:`~.rows.benchmark_columns`)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    keys = [c.key for c in columns]
    writer.writerow([*keys, "url", "file", "section"])
    for row in rows:
        out = []
        for c in columns:
            value = c.get(row)
            if c.is_score or c.key == "rank":
                out.append("" if value is None else (str(value) if c.key == "rank" else f"{c.fraction(value):.6f}"))
            else:
                out.append(csv_safe("" if value is None else str(value)))
        writer.writerow([*out, csv_safe(row.url), csv_safe(row.file), row.section])
    return buf.getvalue()


# ---- the site -------------------------------------------------------------------------------------

def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "index.html").is_file())):
        raise StreamGazeError("exists and is not a leaderboard directory (no index.html): refusing to replace "
                              "it; choose a new --out", out)


def _roots(root) -> dict[str, Path]:
    """Benchmark -> dataset root, from one root, several (one per benchmark, told apart by their
    manifests) or none (each benchmark's ``$..._ROOT`` or default directory)."""
    from ..dataset.load import benchmark_of

    given = [] if root is None else [root] if isinstance(root, (str, os.PathLike)) else list(root)
    out: dict[str, Path] = {}
    for r in given:
        path = resolve_root(r)
        name = benchmark_of(read_manifest(path))
        if name in out and out[name] != path:
            raise StreamGazeError(f"two {name} datasets given ({out[name]} and {path}): one dataset per benchmark", path)
        out[name] = path
    return out


def write_leaderboard(submissions: Sequence[str | os.PathLike[str]], root, out: str | os.PathLike[str], *,
                      include_paper: bool = True) -> Path:
    """Validate every submission against its benchmark's dataset and write the site to ``out``.

    ``root``: a dataset root, a sequence of them (one per benchmark), or None (each benchmark's
    ``$..._ROOT``, else its default directory)."""
    out = Path(out)
    _check_out(out)
    roots = _roots(root)
    keys: dict = {}
    by_bench: dict[str, list[ValidationReport]] = {}
    for path in submissions:
        name = submission_benchmark(load_submission(path))
        if roots and name not in roots and not os.environ.get(get_benchmark(name).root_env):
            raise StreamGazeError(f"the submission is for {name}, but no {name} dataset is among --dataset "
                                  f"({', '.join(str(p) for p in roots.values())}): add --dataset with its dataset", path)
        by_bench.setdefault(name, []).append(validate_submission(path, roots.get(name), key_cache=keys))
    reports = [r for reps in by_bench.values() for r in reps]
    sections: list[Section] = []
    parts, csvs = [], {}
    for bench in benchmarks():
        reps = by_bench.get(bench.name)
        if not reps:
            continue
        root_path = reps[0].key.root
        manifest = read_manifest(root_path)
        parts.append(f"{bench.title} dataset version {manifest['version']} (manifest sha256 "
                     f"{manifest_digest(root_path)[:16]}...)")
        if bench.name == "streamgaze":
            mine = collect_sections(reps, manifest, include_paper)
            csvs["leaderboard.csv"] = render_csv([r for sec in mine for r in sec.rows])
        else:
            mine = collect_benchmark_sections(bench, reps, manifest, include_paper)
            csvs[f"leaderboard-{bench.name}.csv"] = render_csv([r for sec in mine for r in sec.rows],
                                                               benchmark_columns(bench))
        sections += mine
    names = [b.title for b in benchmarks() if b.name in by_bench]
    title = TITLE if names == ["StreamGaze"] else (f"{names[0]} leaderboard" if len(names) == 1 else
                                                  f"Gaze benchmarks leaderboard: {', '.join(names)}")
    notes = (NOTES if "streamgaze" in by_bench else ()) + (OTHER_NOTES if set(by_bench) - {"streamgaze"} else ())
    meta = (f"Submissions re-scored against {'; '.join(parts)} by streamgaze-toolkit {__version__}; "
            f"{len(reports)} submission(s). One table per dataset, each sorted by overall.")
    if "streamgaze" in by_bench:
        rows = [r for sec in sections if sec.benchmark == "streamgaze" for r in sec.rows]
        shown = chart_rows(rows)
        caption = chart_caption(rows, shown)
        png = render_chart(rows, title="StreamGaze: per-task scores", caption=caption)
    else:
        png, caption = None, ""
    # the streaming table of the (one) benchmark with a streaming evaluation, from its stream-eval submissions
    streamer = next((b for b in benchmarks() if b.streaming and b.name in by_bench), None)
    table = streamer.streaming_module() if streamer else None
    stream_rows = table.streaming_rows(by_bench[streamer.name]) if table else []
    with atomic_directory(out) as tmp:
        (tmp / "index.html").write_text(render_html(sections, title=title, meta=meta, notes=notes, chart_png=png,
                                                    chart_caption=caption,
                                                    extra_html=table.render_streaming_html(stream_rows) if table else ""),
                                        encoding="utf-8")
        if stream_rows:  # the separate streaming table (stream-eval submissions only)
            (tmp / "streaming.md").write_text(table.render_streaming_markdown(stream_rows), encoding="utf-8")
            (tmp / "streaming.csv").write_text(table.render_streaming_csv(stream_rows), encoding="utf-8")
        (tmp / "leaderboard.md").write_text(render_markdown(sections, meta, title, notes), encoding="utf-8")
        for name, text in csvs.items():
            (tmp / name).write_text(text, encoding="utf-8")
        if png is not None:
            (tmp / "chart.png").write_bytes(png)
    return out
