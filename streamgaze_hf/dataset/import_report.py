"""What an importer found in a release: problems and their report, shared by every benchmark's importer.

Every finding is one :class:`Problem` (kind, file, entry index, question snippet, detail). An importer
declares its kinds (kind -> label) in the classes it reports: rows skipped, rows imported with a flag
(changed or doubtful), and notes (nothing dropped); :class:`ImportReport` counts them per kind with a few
examples, :class:`ProblemSink` raises a skip or a flag at once under ``--strict``. StreamGaze's importer
extends the one report with its per-task row and checkpoint accounting
(``benchmarks/streamgaze/release_report.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..util.errors import StreamGazeError

MAX_EXAMPLES = 3
_SNIPPET = 60


def snippet(text: object, limit: int = _SNIPPET) -> str:
    """A one-line prefix of a question text for reports."""
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


@dataclass(frozen=True)
class Problem:
    """One problem found in the release. ``entry``/``question_index`` are 0-based; None = whole file."""

    kind: str
    file: str
    entry: int | None = None
    question_index: int | None = None
    question: str = ""
    detail: str = ""

    def location(self) -> str:
        loc = self.file
        if self.entry is not None:
            loc += f" entry {self.entry}"
            if self.question_index:
                loc += f" question {self.question_index}"
        return loc

    def describe(self, labels: Mapping[str, str] | None = None) -> str:
        """One line for reports; ``labels`` (kind -> text) words a problem that has no detail."""
        text = f"{self.location()}: {self.detail or (labels or {}).get(self.kind, self.kind)}"
        if self.question:
            text += f' ("{self.question}")'
        return text

    def error(self, base: Path | None = None, labels: Mapping[str, str] | None = None) -> StreamGazeError:
        """The error ``--strict`` raises for this problem (path = the release file, under ``base``)."""
        where = "" if self.entry is None else f"entry {self.entry}" + (
            f" question {self.question_index}" if self.question_index else "") + ": "
        reason = f"{where}{self.kind}: {self.detail or (labels or {}).get(self.kind, self.kind)}"
        if self.question:
            reason += f' ("{self.question}")'
        return StreamGazeError(reason, self.file if base is None else base / self.file)


def keep_example(examples: dict[str, list[Problem]], problem: Problem) -> None:
    """Keep the first MAX_EXAMPLES problems of each kind (the report shows them)."""
    ex = examples.setdefault(problem.kind, [])
    if len(ex) < MAX_EXAMPLES:
        ex.append(problem)


def kind_section(kinds: dict[str, str], counts: Counter, examples: dict[str, list[Problem]]) -> list[str]:
    """One line per problem kind that occurred, with its examples."""
    out = []
    for kind, label in kinds.items():
        if not counts[kind]:
            continue
        out.append(f"  {kind:<28} {counts[kind]:>6}  {label}")
        out += [f"      e.g. {p.describe(kinds)}" for p in examples.get(kind, [])]
    return out


@dataclass
class ImportReport:
    """What an importer did: rows imported per config, skips, flags and notes of the importer's own kinds
    (kind -> label), with examples; ``format()`` is what the CLI prints, ``counts()`` what the manifest's
    build_info records."""

    imported: dict[str, int]
    skip_kinds: dict[str, str]
    note_kinds: dict[str, str]
    flag_kinds: dict[str, str] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    flags: Counter = field(default_factory=Counter)
    examples: dict[str, list[Problem]] = field(default_factory=dict)
    videos: int = 0
    fixations: int = 0
    root: str = ""
    version: str = ""

    @property
    def labels(self) -> dict[str, str]:
        """Every kind's wording (for problems without a detail of their own)."""
        return {**self.skip_kinds, **self.flag_kinds, **self.note_kinds}

    def add(self, problem: Problem) -> None:
        """Count a problem (note, flag or skip) and keep the first few as examples."""
        kind = problem.kind
        (self.notes if kind in self.note_kinds else self.flags if kind in self.flag_kinds else self.skipped)[kind] += 1
        keep_example(self.examples, problem)

    @property
    def total_imported(self) -> int:
        return sum(self.imported.values())

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())

    def counts(self) -> dict:
        """Deterministic counts only (for the manifest's build_info)."""
        return {"imported": dict(self.imported),
                "skipped": {k: self.skipped[k] for k in self.skip_kinds if self.skipped[k]},
                "notes": {k: self.notes[k] for k in self.note_kinds if self.notes[k]},
                "videos": self.videos, "fixations": self.fixations}

    def format(self) -> str:
        lines = [f"Imported {self.total_imported} questions, {self.videos} videos"
                 + (f" into {self.root} (version {self.version})" if self.root else "")]
        lines.append("Imported per config:")
        lines += [f"  {name:<8} {n:>6}" for name, n in self.imported.items()]
        lines.append(f"Skipped: {self.total_skipped}")
        lines += kind_section(self.skip_kinds, self.skipped, self.examples)
        if any(self.notes.values()):
            lines.append("Notes (imported anyway):")
            lines += kind_section(self.note_kinds, self.notes, self.examples)
        return "\n".join(lines)


class ProblemSink:
    """Where an importer reports its problems: counted in ``report`` (an :class:`ImportReport`), or, in
    strict mode, a skip or a flag (a kind of ``report.skip_kinds`` / ``flag_kinds``) raised at once as its
    error (the path under ``base``)."""

    def __init__(self, report: ImportReport, strict: bool, base: Path):
        self.report, self.strict, self.base = report, strict, base

    def __call__(self, problem: Problem) -> None:
        if self.strict and (problem.kind in self.report.skip_kinds or problem.kind in self.report.flag_kinds):
            raise problem.error(self.base, self.report.labels)
        self.report.add(problem)

    def flags(self, flags: list[Problem]) -> None:
        """In strict mode, raise the first of a row's flags (nothing is counted yet)."""
        if self.strict and flags:
            raise flags[0].error(self.base, self.report.labels)
