"""What an import of the official release did: questions imported per task, rows skipped per kind.

Every problem is one :class:`Problem` (kind, file, entry index, question snippet, detail). Kinds in
``SKIP_KINDS`` drop the row (or the whole file / metadata row) and make ``--strict`` fail; kinds in
``NOTE_KINDS`` are informational (the data is still imported).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StreamGazeError
from ..tasks import TASK_IDS

# Problems that drop data (a row, a file or a metadata row). Order = order in the printed report.
SKIP_KINDS: dict[str, str] = {
    "unknown_file": "unknown file in qa/",
    "malformed_json": "malformed JSON file",
    "malformed_entry": "malformed entry",
    "bad_option_labels": "option labels not A., B., C., ... in order",
    "answer_not_in_options": "answer letter not among the options",
    "missing_video": "original video not found",
    "missing_overlay": "gaze-overlay video not found",
    "unreadable_video": "video cannot be read",
    "unreadable_archive": "video archive cannot be read",
    "time_beyond_video": "timestamp beyond the end of the video",
    "invalid_row": "other validation failure",
    "duplicate": "duplicate question (same video, task, question, options, time)",
    "malformed_metadata": "malformed metadata CSV row or file",
}
# Informational: nothing is dropped.
NOTE_KINDS: dict[str, str] = {
    "otp_gsm_remapped": "OTP/GSM question imported under the task its text names",
    "checkpoints_beyond_video": "proactive question imported without its checkpoints after the video end",
    "missing_task_file": "task file absent from qa/",
    "duplicate_video_file": "same video file name found in several places (first one used)",
    "source_from_categories": "video source taken from video_categories (not found in a per-source archive)",
    "metadata_video_not_imported": "metadata episodes of a video without imported questions (left out)",
}
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

    def describe(self) -> str:
        label = SKIP_KINDS.get(self.kind, NOTE_KINDS.get(self.kind, self.kind))
        text = f"{self.location()}: {self.detail or label}"
        if self.question:
            text += f' ("{self.question}")'
        return text

    def error(self, base: Path | None = None) -> StreamGazeError:
        """The error ``--strict`` raises for this problem (path = the release file, under ``base``)."""
        where = "" if self.entry is None else f"entry {self.entry}" + (
            f" question {self.question_index}" if self.question_index else "") + ": "
        reason = f"{where}{self.kind}: {self.detail or SKIP_KINDS.get(self.kind, self.kind)}"
        if self.question:
            reason += f' ("{self.question}")'
        return StreamGazeError(reason, self.file if base is None else base / self.file)


@dataclass
class ImportReport:
    """Outcome of :func:`import_release`; ``format()`` is what the CLI prints."""

    imported: dict[str, int] = field(default_factory=lambda: {t: 0 for t in TASK_IDS})
    #: the problem kinds of this import (another benchmark's importer passes its own)
    skip_kinds: dict[str, str] = field(default_factory=lambda: dict(SKIP_KINDS))
    note_kinds: dict[str, str] = field(default_factory=lambda: dict(NOTE_KINDS))
    skipped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    examples: dict[str, list[Problem]] = field(default_factory=dict)
    videos: int = 0
    fixations: int = 0
    root: str = ""
    version: str = ""

    def add(self, problem: Problem) -> None:
        """Count a problem (skip or note) and keep the first few as examples."""
        (self.notes if problem.kind in self.note_kinds else self.skipped)[problem.kind] += 1
        ex = self.examples.setdefault(problem.kind, [])
        if len(ex) < MAX_EXAMPLES:
            ex.append(problem)

    @property
    def total_imported(self) -> int:
        return sum(self.imported.values())

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())

    def counts(self) -> dict:
        """Deterministic counts only (for the manifest's build_info)."""
        return {
            "imported": dict(self.imported),
            "skipped": {k: self.skipped[k] for k in self.skip_kinds if self.skipped[k]},
            "notes": {k: self.notes[k] for k in self.note_kinds if self.notes[k]},
            "videos": self.videos,
            "fixations": self.fixations,
        }

    def format(self) -> str:
        """Readable multi-line summary: imported per task, skipped per kind (with examples), notes."""
        lines = [f"Imported {self.total_imported} questions, {self.videos} videos, {self.fixations} "
                 f"fixation episodes" + (f" into {self.root} (version {self.version})" if self.root else "")]
        lines.append("Imported per task:")
        lines += [f"  {task:<8} {n:>6}" for task, n in self.imported.items()]
        lines.append(f"Skipped: {self.total_skipped}")
        lines += self._section(self.skip_kinds, self.skipped)
        if any(self.notes.values()):
            lines.append("Notes (imported anyway):")
            lines += self._section(self.note_kinds, self.notes)
        return "\n".join(lines)

    def _section(self, kinds: dict[str, str], counts: Counter) -> list[str]:
        out = []
        for kind, label in kinds.items():
            if not counts[kind]:
                continue
            out.append(f"  {kind:<24} {counts[kind]:>6}  {label}")
            out += [f"      e.g. {p.describe()}" for p in self.examples.get(kind, [])]
        return out
