"""Human verification of generated questions (EgoGazeVQA paper §3 "Human verification": every QA pair
is judged on six criteria and the failing ones are removed). The question-level twin of the
fixation/object pages of :mod:`.page`, sharing their page frame (head, CSP, styles, safe embedded
JSON) and their round trip:

1. ``streamgaze review export ROOT --out DIR`` on a question-set dataset (EgoGazeVQA) writes
   ``DIR/<video_id>.html`` per video and ``DIR/index.html``, with the keyframes copied under
   ``DIR/frames/`` (``--link``: pointed to in the dataset). Each question shows its nine keyframes with
   the gaze point marked, the question and its options (the generated answer marked), a keep / drop
   decision, the six criteria (tick those that fail), an optional corrected answer and a note;
   "Export CSV" downloads the decisions;
2. ``streamgaze review import CSV...`` validates the CSVs and prints the kept / dropped counts and
   the failures per criterion;
3. ``streamgaze build egogazevqa ... --review CSV...`` leaves out the dropped questions.

CSV (UTF-8, BOM accepted, one header row, column order free, extra columns ignored):
``question_id, video_id, task, decision`` (``keep`` | ``drop``), ``failed_criteria`` (criteria
separated by ``;``, from :data:`CRITERIA`), ``corrected_answer`` (a letter or empty), ``note``,
``annotator``, ``source``. Several annotators: majority per question; a tie drops the question.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from ..registry import Benchmark
from ..util.errors import StreamGazeError
from ..util.htmlpage import attr, page_head
from .page import _CSS, asset, export_tail, script_csp, video_header

__all__ = ["QA_CSV_COLUMNS", "CRITERIA", "QAVerdicts", "QAPageQuestion", "load_qa_verdicts",
           "parse_qa_verdicts", "render_qa_page", "render_qa_index", "qa_verdict_stats", "is_qa_csv"]

CRITERIA: tuple[str, ...] = ("relevance", "answerability", "fluency", "accuracy", "conciseness", "difficulty")
CRITERIA_HELP = {
    "relevance": "fits the keyframes and the gaze",
    "answerability": "can be answered from the frames and gaze shown",
    "fluency": "natural, clear language",
    "accuracy": "the marked answer is right and the only right one",
    "conciseness": "no unnecessary detail",
    "difficulty": "neither trivial nor unanswerable",
}
QA_CSV_COLUMNS: tuple[str, ...] = ("question_id", "video_id", "task", "decision", "failed_criteria",
                                   "corrected_answer", "note", "annotator", "source")
REQUIRED = ("question_id", "decision")
DECISIONS = ("keep", "drop")
LETTERS = "ABCDEFGHIJ"


# ---------------------------------------------------------------------------------------------- CSV


@dataclass(frozen=True)
class QAVerdict:
    question_id: str
    video_id: str
    task: str
    decision: str
    failed: tuple[str, ...]
    corrected_answer: str
    note: str
    annotator: str
    source: str
    file: str
    row: int

    @property
    def rater(self) -> str:
        return self.annotator or f"<{self.file}>"


@dataclass
class QAVerdicts:
    rows: list[QAVerdict] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def decisions(self) -> dict[str, str]:
        """Per question the combined decision (majority of its raters' last verdicts; a tie drops)."""
        last: dict[tuple[str, str], str] = {}
        for r in self.rows:
            last[(r.question_id, r.rater)] = r.decision
        votes: dict[str, Counter] = {}
        for (qid, _), d in last.items():
            votes.setdefault(qid, Counter())[d] += 1
        return {q: "keep" if c["keep"] > c["drop"] else "drop" for q, c in sorted(votes.items())}

    @property
    def rejected(self) -> set[str]:
        return {q for q, d in self.decisions().items() if d == "drop"}


def is_qa_csv(path: str | os.PathLike[str]) -> bool:
    """Whether a review CSV is a question-verification one (has a ``question_id`` column)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return "question_id" in [h.strip() for h in header]


def parse_qa_verdicts(text: str, file: str = "<text>") -> list[QAVerdict]:
    """The validated rows of one CSV text (StreamGazeError naming the file and row otherwise)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise StreamGazeError(f"not a question-review CSV: missing column(s) {', '.join(missing)}", file)
    rows = []
    for n, cells in enumerate(reader, start=2):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise StreamGazeError(f"row {n}: expected {len(header)} fields, got {len(cells)}", file)
        get = dict(zip(header, (c.strip() for c in cells))).get
        qid = get("question_id") or ""
        if not qid:
            raise StreamGazeError(f"row {n}: empty question_id", file)
        decision = (get("decision") or "").lower()
        if decision not in DECISIONS:
            raise StreamGazeError(f"row {n}: decision {get('decision')!r} is not one of {', '.join(DECISIONS)}", file)
        failed = tuple(c.strip().lower() for c in (get("failed_criteria") or "").split(";") if c.strip())
        bad = [c for c in failed if c not in CRITERIA]
        if bad:
            raise StreamGazeError(f"row {n}: unknown criteria {', '.join(bad)} (criteria: {', '.join(CRITERIA)})",
                                  file)
        corrected = (get("corrected_answer") or "").upper()
        if corrected and (len(corrected) != 1 or corrected not in LETTERS):
            raise StreamGazeError(f"row {n}: corrected_answer {corrected!r} is not a letter", file)
        rows.append(QAVerdict(qid, get("video_id") or "", get("task") or "", decision, failed, corrected,
                              get("note") or "", get("annotator") or "", get("source") or "", file, n))
    return rows


def load_qa_verdicts(paths: Iterable[str | os.PathLike[str]]) -> QAVerdicts:
    """Every row of the given question-review CSVs (each validated; errors name the file and row).

    Args:
        paths: the CSV files the question pages exported (UTF-8, a byte-order mark allowed).

    Returns:
        The :class:`QAVerdicts`: every row, and the files in the order given (empty for no files).

    Raises:
        StreamGazeError: naming the file (and row): a file that cannot be read or is not UTF-8, a missing
            column, a row with another number of fields than the header, an empty ``question_id``, an
            unknown decision or criterion, or a ``corrected_answer`` that is not a letter.
    """
    out = QAVerdicts()
    for p in paths:
        path = Path(p)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise StreamGazeError(f"cannot read review CSV ({exc})", path) from None
        out.rows += parse_qa_verdicts(text, str(path))
        out.files.append(str(path))
    return out


def qa_verdict_stats(verdicts: QAVerdicts) -> dict:
    """Kept / dropped questions (combined decisions) and, over every verdict, failures per criterion."""
    decisions = verdicts.decisions()
    n = len(decisions)
    kept = sum(d == "keep" for d in decisions.values())
    failures = Counter(c for r in verdicts.rows for c in r.failed)
    return {"questions": n, "kept": kept, "dropped": n - kept, "keep_ratio": kept / n if n else 0.0,
            "verdicts": len(verdicts.rows), "annotators": len({r.rater for r in verdicts.rows}),
            "failed_criteria": {c: failures.get(c, 0) for c in CRITERIA}}


# ---------------------------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class QAPageQuestion:
    """One question as its review card shows it (``frames``: (image URL, gaze x, gaze y, caption))."""

    question_id: str
    task: str
    question: str
    options: tuple[str, ...]
    answer: str
    frames: tuple[tuple[str, float, float, str], ...]


#: the question pages' extra style, script and guide (review/assets/)
_QA_CSS = asset("qa_review.css")
_QA_JS = asset("qa_review.js")
_QA_GUIDE = asset("qa_review_guide.html")


def _qa_card(k: int, q: QAPageQuestion) -> str:
    strip = "".join(
        f'<figure class="kf"><div class="pic"><img src="{attr(src)}" alt="keyframe {j}" loading="lazy">'
        + (f'<span class="gz" style="left:{100 * x:.2f}%;top:{100 * y:.2f}%"></span>'
           if 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 else "")
        + f"</div><figcaption>{j}. {escape(cap)}</figcaption></figure>"
        for j, (src, x, y, cap) in enumerate(q.frames, 1))
    options = "".join(f'<li class="{"correct" if LETTERS[i] == q.answer else ""}">{escape(o)}</li>'
                      for i, o in enumerate(q.options))
    criteria = "".join(f'<label title="{attr(CRITERIA_HELP[c])}"><input type="checkbox" name="q{k}-c-{c}"> {c}'
                       "</label>" for c in CRITERIA)
    letters = "".join(f'<option value="{LETTERS[i]}">{LETTERS[i]}</option>' for i in range(len(q.options)))
    return f"""
<article class="qa" id="q-{k}" data-k="{k}" data-question-id="{attr(q.question_id)}">
<h2>{escape(q.task)}: {escape(q.question)}</h2>
<div class="strip">{strip}</div>
<ol class="options" type="A">{options}</ol>
<p class="meta">generated answer: {escape(q.answer)}</p>
<div class="decision">
<label><input type="radio" name="q{k}-d" value="keep" checked> Keep</label>
<label><input type="radio" name="q{k}-d" value="drop"> Drop</label>
<label class="whole"><input type="checkbox" name="q{k}-done"> Reviewed</label>
</div>
<div class="criteria">Fails: {criteria}</div>
<label>corrected answer <select name="q{k}-fix"><option value="">-</option>{letters}</select></label>
<label>note <input type="text" name="q{k}-note"></label>
</article>"""


def _csp() -> str:
    return script_csp(_QA_JS, media="img-src 'self' file: http: https: data:")


def render_qa_page(video_id: str, source: str, questions: Sequence[QAPageQuestion], version: str,
                   bench: Benchmark) -> str:
    """The question-review page of one video (see the module docstring)."""
    import hashlib
    import json

    payload = {"video_id": video_id, "source": source, "dataset_version": version,
               "columns": list(QA_CSV_COLUMNS), "criteria": list(CRITERIA),
               "questions": [{"question_id": q.question_id, "task": q.task} for q in questions]}
    payload["key"] = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]
    title = f"{bench.title} question verification: {video_id}"
    cards = "".join(_qa_card(k, q) for k, q in enumerate(questions)) or '<p class="none">No questions.</p>'
    meta = f"source {source or 'unknown'}{', dataset ' + version if version else ''} \u00b7 {len(questions)} questions"
    return page_head(title, _csp(), _CSS + _QA_CSS) + f"""{video_header(title, meta)}
{_QA_GUIDE}
<form id="review-form" autocomplete="off">
<div id="toolbar">
<label>Annotator <input type="text" name="annotator" id="annotator" placeholder="your name" required></label>
<button type="button" id="export-csv" class="primary">Export CSV</button>
<a id="download-link" hidden></a>
</div>
<main>{cards}
</main>
</form>
{export_tail(QA_CSV_COLUMNS, payload, _QA_JS)}"""


def render_qa_index(videos: Sequence[tuple[str, str, int]], pages: Mapping[str, str], bench: Benchmark) -> str:
    """The folder's index: (video id, source, question count) per video page."""
    title = f"{bench.title} question verification"
    rows = "".join(f'<tr><td><a href="{attr(pages[v])}">{escape(v)}</a></td><td>{escape(s)}</td>'
                   f'<td class="num">{n}</td></tr>' for v, s, n in videos)
    return page_head(title, "default-src 'none'; style-src 'unsafe-inline'", _CSS) + f"""<header>
<h1>{escape(title)}</h1>
<p class="meta">{len(videos)} videos. Review every question, press <strong>Export CSV</strong> and send the CSV files
back; they are applied with <code>streamgaze build {escape(bench.name)} ... --review CSV...</code>.</p>
<table class="videos">
<thead><tr><th>video</th><th>source</th><th>questions</th></tr></thead>
<tbody>
{rows}
</tbody>
</table>
</header>
{_QA_GUIDE}
</body>
</html>
"""
