"""``streamgaze leaderboard``: validated submissions + the paper's Table 2 -> a static site.

Writes ``index.html`` (sortable tables, see :mod:`.page`), ``leaderboard.md`` and ``leaderboard.csv``
(for READMEs and papers) and ``chart.png`` (per-task grouped bars, see :mod:`.chart`) into one
directory, atomically. Every submission is validated and re-scored against ``--dataset`` first (the
first invalid one stops everything, naming its file); the oracle baseline is never ranked.
Paper rows (and the Human row) are marked "reported in the paper" and never re-scored. Rows are
ranked only against rows on the same dataset: one section per dataset (:mod:`.sections`), so a
demo-scale submission never appears ranked among the paper's full-benchmark rows.

One site serves every registered benchmark: each submission names its benchmark (``benchmark``; none =
the default benchmark, StreamGaze) and is validated against that benchmark's dataset (``roots``: one dataset root per
benchmark, told apart by their manifests). Each benchmark with submissions gets its own section of
the page, with its own tables (its declared columns, ranked in its Overall's direction) and its
reference rows (``Benchmark.leaderboard.reference_rows()``); StreamGaze's section is the one described above.
The layout of each benchmark's tables (columns, title, notes, settings, CSV name, sections) is its own
declaration (``streamgaze_hf.registry``); nothing here names a benchmark. Files: ``leaderboard.md`` holds
every table; one CSV per benchmark (StreamGaze's ``leaderboard.csv``, another's
``leaderboard-<benchmark>.csv``); ``chart.png`` the first section's chart; each section's chart draws only
that section's rows.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..dataset import DatasetHandle, manifest_digest
from ..evaluation import row_texts
from ..registry import benchmarks, get_benchmark, score_text
from ..submission import (
    ValidationReport,
    load_submission,
    submission_benchmark,
    task_coverage,
    validate_submission,
)
from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_directory
from .cells import csv_safe, md_escape
from .chart import chart_caption, chart_rows, render_chart
from .page import render_html
from .rows import Row, benchmark_columns, chart_columns, efficiency_text, is_partial, partial_text
from .sections import Section, group_sections, reference_section_of, section_of

__all__ = ["submission_row", "collect_benchmark_sections", "reference_row", "render_markdown", "render_csv",
           "render_sections", "write_sections", "section_charts", "write_leaderboard", "site_title", "site_notes", "OTHER_NOTES"]

#: the notes of a site with a benchmark that declares none of its own
OTHER_NOTES = (
    "Each benchmark has its own section, columns and units (accuracies, F1 and other ratios in percent with one "
    "decimal; angles, distances and BLEU in their own units; a column's tooltip says whether higher or lower "
    "is better); rows are ranked by that benchmark's Overall, in its direction.",
    "Submission rows are re-scored from their raw responses by their benchmark's own scorer against the dataset "
    "named in their table's title; missing answers count as wrong. Rows marked 'reported in the paper' are "
    "copied from the benchmark's paper and never re-scored.",
)


def submission_row(report: ValidationReport, section: str = "") -> Row:
    """The leaderboard row of a validated submission (recomputed scores only), in its benchmark's columns
    (the evaluation module's ``leaderboard_values`` hook reads its scores layout)."""
    sub, s = report.submission, report.scores
    values = get_benchmark(report.benchmark).plugin().leaderboard_values(s)
    st = sub["settings"]
    coverage = {t: task_coverage(v) for t, v in s["tasks"].items()}
    return Row(name=sub["model"]["name"], source="submission", tasks=dict(values["columns"]),
               overall=values["overall"], dataset=sub["dataset"]["version"], gaze=st["gaze"],
               prompt_mode=st["prompt_mode"], settings=row_texts(report.bench, st),
               by_source=" · ".join(f"{src} {score_text(v)}" for src, v in values.get("by_source", {}).items()),
               frames=sub["model"]["frames"], params=sub["model"]["params"],
               coverage=float(s["coverage"]["fraction"]), url=sub["model"]["url"], file=report.path.name,
               section=section, task_coverage=coverage, efficiency=efficiency_text(sub.get("run", {})))


def _refuse_repeat(rep: ValidationReport, seen: dict) -> None:
    """One run is one row: a file whose raw responses are those of a file given before it is refused, naming it."""
    from ..submission import responses_digest

    digest = responses_digest(rep.submission)
    if digest in seen:
        raise StreamGazeError(f"its responses are those of {seen[digest]}, given before it: the same run is one row "
                              "(leave one of them out)", rep.path)
    seen[digest] = rep.path


def _refuse_oracle(rep: ValidationReport) -> None:
    if rep.is_oracle:
        raise StreamGazeError("this is the oracle baseline (it reads the answer key): never ranked on the "
                              "leaderboard", rep.path)


def reference_row(ref, section: str) -> Row:
    """A benchmark's reference row (a :class:`Row` or the dict of the registry's contract) in ``section``."""
    if isinstance(ref, Row):
        return Row(**{**ref.__dict__, "section": section, "rank": None})
    source = str(ref.get("source") or "paper")
    if source not in ("paper", "human"):
        raise StreamGazeError(f"reference row {ref.get('name')!r}: source must be 'paper' or 'human', not {source!r}")
    return Row(name=str(ref["name"]), source=source, tasks=dict(ref.get("tasks") or {}), overall=ref.get("overall"),
               dataset=str(ref.get("dataset") or ""), gaze=str(ref.get("gaze") or ""),
               prompt_mode=str(ref.get("prompt_mode") or ""), frames=str(ref.get("frames") or ""),
               params=str(ref.get("params") or ""), group=str(ref.get("group") or ""), section=section)


def collect_benchmark_sections(benchmark, reports: Sequence[ValidationReport], manifest: dict,
                               include_paper: bool = True) -> list[Section]:
    """A benchmark's sections: its submissions (all on the dataset with ``manifest``) and its reference rows,
    one section per dataset, each with the benchmark's columns, sorted and ranked on its own."""
    key, title, note = section_of(benchmark, manifest)
    titles = {key: (title, note)}
    out = []
    for rep in reports:
        _refuse_oracle(rep)
        out.append(submission_row(rep, key))
    refs = benchmark.leaderboard.reference_rows() if include_paper else []
    if refs:
        ref_key, ref_title, ref_note = reference_section_of(benchmark)
        titles[ref_key] = (ref_title, ref_note)
        out += [reference_row(r, ref_key) for r in refs]
    return group_sections(out, titles, benchmark=benchmark.name, columns=benchmark_columns(benchmark),
                          higher_is_better=benchmark.leaderboard.overall_column().higher_is_better)


# ---- Markdown / CSV -------------------------------------------------------------------------------

def _plain(col, row: Row) -> str:
    value = col.get(row)
    if col.is_score:
        return col.text(value)
    if col.key == "model" and is_partial(row):
        return f"{row.name} ({partial_text(row)})"
    return "" if value is None else str(value)


def render_markdown(sections: Sequence[Section], meta: str, title: str, notes: Sequence[str]) -> str:
    """GitHub-flavoured Markdown: one table per dataset section (scores in percent with one decimal; a
    column in another unit with its declared decimals), each benchmark's under its own heading when there
    are several, then the notes."""
    lines = [f"# {title}", "", md_escape(meta)]
    several = len({sec.benchmark for sec in sections}) > 1
    current = None
    for sec in sections:
        cols = [c for c in sec.columns if c.key != "dataset"]
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


def render_csv(rows: Sequence[Row], columns: Sequence) -> str:
    """Machine-readable table: scores as fractions in [0, 1] at full precision (6 decimals; a column
    in another unit, such as VL4Gaze's angles, in that unit), settings, source, URL and the
    section (rows are ranked within their section only). ``columns``: the benchmark's
    (:func:`~.rows.benchmark_columns`)."""
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


def _datasets(root) -> dict[str, DatasetHandle]:
    """Benchmark name -> open dataset, from one reference, several (one per benchmark, told apart by their
    manifests) or none (each benchmark's ``$..._ROOT`` or default directory, opened when a submission needs it)."""
    from ..dataset import open_dataset

    given = [] if root is None else [root] if isinstance(root, (str, os.PathLike)) else list(root)
    out: dict[str, DatasetHandle] = {}
    for r in given:
        data = open_dataset(r)
        name = data.benchmark.name
        if name in out and out[name].path != data.path:
            raise StreamGazeError(f"two {name} datasets given ({out[name].path} and {data.path}): one dataset per "
                                  "benchmark", data.path)
        out[name] = data
    return out


def write_leaderboard(submissions: Sequence[str | os.PathLike[str]], root, out: str | os.PathLike[str], *,
                      include_paper: bool = True) -> Path:
    """Validate every submission against its benchmark's dataset and write the site to ``out``.

    ``root``: a dataset root, a sequence of them (one per benchmark), or None (each benchmark's
    ``$..._ROOT``, else its default directory).

    Args:
        submissions: the submission files, of any registered benchmarks.
        root: the dataset root(s), as above (directories or Hub references).
        out: the site's directory: absent, empty, or an earlier site (it has ``index.html``); replaced
            atomically.
        include_paper: also show each benchmark's reference rows (the papers' results).

    Returns:
        ``out`` as a path: ``index.html``, ``leaderboard.md``, one CSV per benchmark, ``chart.png`` (and the
        streaming table's files when there are ``stream-eval`` submissions).

    Raises:
        StreamGazeError: ``out`` exists and is not a leaderboard directory; no dataset at a given root, or
            two datasets of one benchmark; a submission whose benchmark has no dataset among those given
            (and no ``$..._ROOT``), that does not validate (:func:`validate_submission`), or whose raw responses
            are those of a file given before it.
    """
    out = Path(out)
    _check_out(out)
    roots = _datasets(root)
    keys: dict = {}
    seen: dict[str, Path] = {}
    by_bench: dict[str, list[ValidationReport]] = {}
    for path in submissions:
        bench = submission_benchmark(load_submission(path))
        name = bench.name
        if roots and name not in roots and not os.environ.get(bench.root_env):
            raise StreamGazeError(f"the submission is for {name}, but no {name} dataset is among --dataset "
                                  f"({', '.join(str(d.path) for d in roots.values())}): add --dataset with its dataset", path)
        by_bench.setdefault(name, []).append(validate_submission(path, roots.get(name), key_cache=keys))
        _refuse_repeat(by_bench[name][-1], seen)
    reports = [r for reps in by_bench.values() for r in reps]
    sections: list[Section] = []
    parts = []
    for bench in benchmarks():
        reps = by_bench.get(bench.name)
        if not reps:
            continue
        root_path = reps[0].key.root
        manifest = reps[0].key.dataset.manifest
        parts.append(f"{bench.title} dataset version {manifest['version']} (manifest sha256 "
                     f"{manifest_digest(root_path)[:16]}...)")
        sections += collect_benchmark_sections(bench, reps, manifest, include_paper)
    meta = (f"Submissions re-scored against {'; '.join(parts)} by streamgaze-toolkit {__version__}; "
            f"{len(reports)} submission(s). One table per dataset, each sorted by overall.")
    # the streaming table of the (one) benchmark with a streaming evaluation, from its stream-eval submissions
    streamer = next((b for b in benchmarks() if b.streaming and b.name in by_bench), None)
    table = streamer.streaming_module() if streamer else None
    stream_rows = table.streaming_rows(by_bench[streamer.name]) if table else []
    extra = {}
    if stream_rows:  # the separate streaming table (stream-eval submissions only)
        extra = {"streaming.md": table.render_streaming_markdown(stream_rows),
                 "streaming.csv": table.render_streaming_csv(stream_rows)}
    return write_sections(sections, meta, out, extra_html=table.render_streaming_html(stream_rows) if table else "",
                          extra_files=extra)


def site_title(names: Sequence[str]) -> str:
    """The page's title for the benchmarks shown (registered names, registry order)."""
    if len(names) == 1:
        return get_benchmark(names[0]).leaderboard.page_title
    return f"Gaze benchmarks leaderboard: {', '.join(get_benchmark(n).title for n in names)}"


def site_notes(names: Sequence[str]) -> tuple[str, ...]:
    """The notes under the tables: each benchmark's declared notes, then the shared ones when a benchmark
    shown declares none."""
    notes: tuple[str, ...] = ()
    for n in names:
        notes += get_benchmark(n).leaderboard.notes
    if any(not get_benchmark(n).leaderboard.notes for n in names):
        notes += OTHER_NOTES
    return notes


def _chartable(sections: Sequence[Section]) -> list[Section]:
    return [sec for sec in sections if sec.rows and chart_columns(get_benchmark(sec.benchmark))]


def _chart(sec: Section, caption: str = "") -> bytes:
    bench = get_benchmark(sec.benchmark)
    return render_chart(sec.rows, bench, title=f"{bench.title}: {sec.title}", caption=caption)


def section_charts(sections: Sequence[Section]) -> dict[str, tuple[bytes, str]]:
    """One chart per section whose benchmark has chartable columns (its task columns in percent): the
    section's rows only (rows of different datasets are never drawn side by side), and its caption. The page
    shows the caption under the image (``<figcaption>``), so the image itself carries none."""
    return {sec.key: (_chart(sec), chart_caption(sec.rows, chart_rows(sec.rows))) for sec in _chartable(sections)}


def render_sections(sections: Sequence[Section], meta: str, extra_html: str = "") -> dict[str, bytes]:
    """The site's files (name -> bytes) for ``sections``: index.html (``extra_html``, already escaped, after
    the notes), leaderboard.md, one CSV per benchmark (its declared name), chart.png (the first chart, its caption
    drawn in)."""
    names = list(dict.fromkeys(sec.benchmark for sec in sections))
    title, notes = site_title(names), site_notes(names)
    charts = section_charts(sections)
    files: dict[str, bytes] = {
        "index.html": render_html(sections, title=title, meta=meta, notes=notes, charts=charts,
                                  extra_html=extra_html).encode("utf-8"),
        "leaderboard.md": render_markdown(sections, meta, title, notes).encode("utf-8")}
    for name in names:
        bench = get_benchmark(name)
        rows = [r for sec in sections if sec.benchmark == name for r in sec.rows]
        files[bench.leaderboard.csv_name] = render_csv(rows, benchmark_columns(bench)).encode("utf-8")
    if charts:  # a file on its own: the first chart with its caption drawn in
        first = _chartable(sections)[0]
        files["chart.png"] = _chart(first, charts[first.key][1])
    return files


def write_sections(sections: Sequence[Section], meta: str, out: str | os.PathLike[str], *, extra_html: str = "",
                   extra_files: dict[str, str] | None = None) -> Path:
    """Write the site of ``sections`` into ``out`` atomically (see :func:`render_sections`)."""
    out = Path(out)
    _check_out(out)
    files = render_sections(sections, meta, extra_html)
    with atomic_directory(out) as tmp:
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        for name, text in (extra_files or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
    return out
