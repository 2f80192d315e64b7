"""What an import of the official StreamGaze release did, counted the way the official evaluator counts.

Every finding is one :class:`~streamgaze_hf.dataset.import_report.Problem` (kind, file, entry index,
question snippet, detail) of one of three classes:

* ``SKIP_KINDS`` drop a row (or a whole file / metadata row): only what the official evaluator could
  not score either (no video, no usable options or answer, no checkpoint);
* ``FLAG_KINDS`` mark a row that is imported anyway, changed the way the official code treats it
  (lower-case answer letter, default time stamp, a checkpoint dropped, a time clamped at the video
  end, an exact duplicate);
* ``NOTE_KINDS`` are informational (file- or video-level), nothing is dropped or changed.

``--strict`` turns every skip and every flag into an error. Per task the report counts the rows
(questions) in the files, the rows imported, the imported rows with at least one flag and the rows
skipped (``in_files == imported + skipped``); for proactive tasks also the checkpoints.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ...dataset import ImportReport, Problem, kind_section
from .tasks import TASK_IDS, get_task, task_for_release_file

# Problems that drop data (a row, a file or a metadata row). Order = order in the printed report.
SKIP_KINDS: dict[str, str] = {
    "unknown_file": "unknown file in qa/",
    "malformed_json": "malformed JSON file",
    "malformed_entry": "malformed entry (no question text, no questions list, unreadable options)",
    "no_options": "multiple-choice question without options",
    "bad_option_labels": "option labels not A., B., C., ... in order",
    "answer_not_in_options": "answer is no option letter (nor an option's text)",
    "no_checkpoints": "proactive question without a checkpoint of type 0/1",
    "missing_video": "original video not found",
    "unreadable_video": "video cannot be read",
    "unreadable_archive": "video archive cannot be read",
    "invalid_row": "other validation failure",
    "malformed_metadata": "malformed metadata CSV row or file",
}
# Imported, but changed or doubtful: counted as "imported with a flag"; errors under --strict.
FLAG_KINDS: dict[str, str] = {
    "answer_normalised": "answer letter normalised as the official scorer does (case, 'C.', '(C)')",
    "time_stamp_missing": "no time_stamp: the official default 0:00 is used",
    "empty_window": "query time 0: the official clip [0, 0] is empty, the window is the first frame",
    "checkpoint_dropped": "checkpoint with a type other than 0/1 (or no readable realtime) dropped",
    "time_beyond_video": "time past the video end: window clamped at the end",
    "duplicate": "exact duplicate of a row above (the official evaluator scores both)",
}
# Informational: nothing is dropped or changed.
NOTE_KINDS: dict[str, str] = {
    "task_text_disagrees": "OTP/GSM question whose text names the other task (kept under its file's task)",
    "missing_task_file": "task file absent from qa/",
    "duplicate_video_file": "same video (identical bytes) found in several places (first one used)",
    "source_from_categories": "video source taken from video_categories (not found in a per-source archive)",
    "metadata_video_not_imported": "metadata episodes of a video without imported questions (left out)",
    "fixation_centres_in_pixels": "fixation centres given in pixels (divided by the frame size)",
    "overlay_rendered": "no gaze-overlay video in the release: rendered from the fixation centres",
    "no_overlay": "no gaze-overlay video and no gaze to render one: the visual variant is unavailable",
}
_ROW_COLUMNS = ("in_files", "imported", "flagged", "skipped")
_CHECKPOINT_COLUMNS = ("in_files", "imported", "dropped")


def task_of_file(label: str) -> str | None:
    """The task a ``qa/<file>`` label belongs to (the file name decides), or None."""
    spec = task_for_release_file(Path(label).name) if label.startswith("qa/") else None
    return spec.id if spec else None


def is_row(problem: Problem) -> bool:
    """Whether a problem is about one row (question) of a task file."""
    return problem.entry is not None and task_of_file(problem.file) is not None




def _zero(columns: tuple[str, ...], tasks) -> dict[str, Counter]:
    return {t: Counter({c: 0 for c in columns}) for t in tasks}


@dataclass
class ReleaseImportReport(ImportReport):
    """The one import report (:class:`~streamgaze_hf.dataset.import_report.ImportReport`) with StreamGaze's
    per-task accounting: rows in the files / imported / flagged / skipped, proactive checkpoints, notes per
    file and the gaze variants the dataset supports; ``format()`` is what the CLI prints."""

    imported: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TASK_IDS, 0))
    skip_kinds: dict[str, str] = field(default_factory=lambda: dict(SKIP_KINDS))
    note_kinds: dict[str, str] = field(default_factory=lambda: dict(NOTE_KINDS))
    flag_kinds: dict[str, str] = field(default_factory=lambda: dict(FLAG_KINDS))
    rows: dict[str, Counter] = field(default_factory=lambda: _zero(_ROW_COLUMNS, TASK_IDS))
    checkpoints: dict[str, Counter] = field(default_factory=lambda: _zero(
        _CHECKPOINT_COLUMNS, [t for t in TASK_IDS if get_task(t).checkpointed]))
    per_file: dict[str, Counter] = field(default_factory=dict)  # note kind -> file -> count
    variants: dict[str, str] = field(default_factory=dict)  # gaze mode -> "" (supported) or why not

    def add(self, problem: Problem) -> None:
        """Count a skip, flag or note (a skip of a row also counts against its task)."""
        super().add(problem)
        if problem.kind in self.note_kinds:
            self.per_file.setdefault(problem.kind, Counter())[problem.file] += 1
        elif problem.kind not in self.flag_kinds and is_row(problem):
            self.rows[task_of_file(problem.file)]["skipped"] += 1

    def row_imported(self, task: str, flags: list[Problem]) -> None:
        """Count one imported row of ``task`` and its flags."""
        self.rows[task]["imported"] += 1
        self.imported[task] += 1
        if flags:
            self.rows[task]["flagged"] += 1
        for f in flags:
            self.add(f)

    def counts(self) -> dict:
        """Deterministic counts only (for the manifest's build_info)."""
        return {
            "imported": dict(self.imported),
            "rows": {t: {c: int(n[c]) for c in _ROW_COLUMNS} for t, n in self.rows.items()},
            "checkpoints": {t: {c: int(n[c]) for c in _CHECKPOINT_COLUMNS} for t, n in self.checkpoints.items()},
            "skipped": {k: self.skipped[k] for k in SKIP_KINDS if self.skipped[k]},
            "flagged": {k: self.flags[k] for k in FLAG_KINDS if self.flags[k]},
            "notes": {k: self.notes[k] for k in NOTE_KINDS if self.notes[k]},
            "task_text_disagrees": dict(sorted(self.per_file.get("task_text_disagrees", Counter()).items())),
            "videos": self.videos,
            "fixations": self.fixations,
        }

    def format(self) -> str:
        """Readable summary: rows per task, checkpoints, skipped / flagged / notes per kind (with examples)."""
        lines = [f"Imported {self.total_imported} questions, {self.videos} videos, {self.fixations} "
                 f"fixation episodes" + (f" into {self.root} (version {self.version})" if self.root else "")]
        lines.append("Per task: rows in the files / imported / imported with a flag / skipped")
        lines += [f"  {task:<8} {n['in_files']:>6} {n['imported']:>6} {n['flagged']:>6} {n['skipped']:>6}"
                  for task, n in self.rows.items()]
        lines.append("Proactive checkpoints: in the files / imported / dropped")
        lines += [f"  {task:<8} {n['in_files']:>6} {n['imported']:>6} {n['dropped']:>6}"
                  for task, n in self.checkpoints.items()]
        lines.append(f"Skipped: {self.total_skipped}")
        lines += self._section(SKIP_KINDS, self.skipped)
        if any(self.flags.values()):
            lines.append("Flagged (imported; --strict makes these errors):")
            lines += self._section(FLAG_KINDS, self.flags)
        if any(self.notes.values()):
            lines.append("Notes (imported anyway):")
            lines += self._section(NOTE_KINDS, self.notes)
        disagree = self.per_file.get("task_text_disagrees")
        if disagree:
            lines.append("Question text naming the other task, per file (the file name decides the task):")
            for file, n in sorted(disagree.items()):
                task = task_of_file(file)
                total = self.rows[task]["in_files"] if task else 0
                lines.append(f"  {file}: {n} of {total} questions")
        if self.variants:
            lines.append("Gaze variants: " + ", ".join(
                f"{mode} {'yes' if not why else 'no (' + why + ')'}" for mode, why in self.variants.items()))
        return "\n".join(lines)

    def _section(self, kinds: dict[str, str], counts: Counter) -> list[str]:
        return kind_section(kinds, counts, self.examples)


