"""Parsing the official release's ``qa/*.json`` files (reference §1.2-1.3, §2.2) into questions.

Nothing here touches videos: a :class:`ReleaseQuestion` carries everything of one official question
(text, label-stripped options, answer letter, parsed times, every other field) plus where it came
from; the importer turns it into a dataset row once the video is resolved and probed.
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset.schema import LETTERS
from ..tasks import TaskSpec, get_task
from .release_report import Problem, snippet

OTP_PREFIX = "What object does the user gaze at next after looking at the"
GSM_QUESTION = "Which transition best matches the user's gaze pattern?"
_LABEL = re.compile(r"^[A-Z]\.\s")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_SOURCES = {"egtea": "egtea", "egteagaze": "egtea", "egoexo": "egoexolearn", "egoexolearn": "egoexolearn",
            "holoassist": "holoassist", "ego4d": "ego4d"}
# Fields turned into columns; everything else goes to the metadata JSON.
_QUESTION_COLUMNS = ("question", "options", "answer")


class EntryError(ValueError):
    """A malformed entry or question (becomes a ``malformed_entry`` problem)."""


class _LabelError(ValueError):
    """Option labels that are not A., B., C., ... in order (a ``bad_option_labels`` problem)."""


@dataclass
class ReleaseQuestion:
    """One official question, parsed; ``task`` is the task it is imported under."""

    file: str
    entry: int
    index: int  # position in the entry's ``questions`` list
    task: str
    video_file: str  # basename of video_path / video
    video_categories: str
    question: str
    options: list[str]
    answer: str
    query_time: float
    checkpoints: list[dict] = field(default_factory=list)
    extras: dict = field(default_factory=dict)

    @property
    def video_id(self) -> str:
        return Path(self.video_file).stem

    @property
    def question_id(self) -> str:
        return release_question_id(self.task, self.video_id, Path(self.file).name, self.entry, self.index)

    def problem(self, kind: str, detail: str = "") -> Problem:
        return Problem(kind, self.file, self.entry, self.index, snippet(self.question), detail)


def release_question_id(task: str, video_id: str, file_name: str, entry: int, index: int) -> str:
    """Stable id: ``<task>-<video_id>-<sha1(file name, entry index, question index)[:10]>``."""
    digest = hashlib.sha1(f"{file_name}\n{entry}\n{index}".encode()).hexdigest()[:10]
    return f"{task}-{video_id}-{digest}"


def parse_time(value: object) -> float:
    """Seconds from ``MM:SS`` (minutes may exceed 59), ``HH:MM:SS`` or plain seconds (reference §2.2).

    Parts are non-negative numbers; the official files use whole seconds, for which this equals the
    reference's integer parsing.
    """
    if isinstance(value, bool):
        raise ValueError(f"bad time {value!r}")
    if isinstance(value, int | float):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"bad time {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"bad time {value!r}")
    parts = value.strip().split(":")
    if len(parts) > 3 or not all(_NUMBER.match(p) for p in parts):
        raise ValueError(f"bad time {value!r}")
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + float(p)
    return seconds


def strip_labels(options: list[str]) -> list[str]:
    """Option texts without their ``"A. "`` labels; labels must be A, B, C, ... in order if present.

    Options without any label are kept as they are. Raises ValueError on mixed or misordered labels.
    """
    labelled = [bool(_LABEL.match(o)) for o in options]
    if not any(labelled):
        return list(options)
    bad = [i for i, o in enumerate(options) if not (labelled[i] and i < len(LETTERS) and o[0] == LETTERS[i])]
    if bad:
        raise ValueError(f"option {bad[0]} ({options[bad[0]]!r}) is not labelled {LETTERS[min(bad[0], 25)]}.")
    return [_LABEL.sub("", o, count=1) for o in options]


def normalise_source(category: object) -> str:
    """``video_categories`` → lower-case source id (EGTEA→egtea, EGOEXO→egoexolearn, ...)."""
    key = re.sub(r"[^a-z0-9]", "", str(category or "").lower())
    return _SOURCES.get(key, key)


def task_from_text(question: str) -> str | None:
    """``otp``/``gsm`` from the question text (reference §1.2 recommendation); None if neither."""
    text = " ".join(question.split())
    if text.startswith(OTP_PREFIX):
        return "otp"
    if text.startswith(GSM_QUESTION):
        return "gsm"
    return None


def video_file_of(entry: dict) -> str:
    """Basename of the entry's ``video_path`` (or ``video``) value."""
    raw = entry.get("video_path") or entry.get("video")
    if not isinstance(raw, str) or not raw.strip():
        raise EntryError("no video_path/video")
    name = posixpath.basename(raw.strip().replace("\\", "/"))
    if name in ("", ".", ".."):
        raise EntryError(f"bad video path {raw!r}")
    return name


def load_qa_file(path: Path) -> list:
    """The file's JSON list; raises ValueError if it is not valid JSON or not a list."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot parse JSON ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"top level is a {type(data).__name__}, not a list of entries")
    return data


def parse_qa_entries(data: list, file_name: str,
                     spec: TaskSpec) -> tuple[list[ReleaseQuestion], list[Problem]]:
    """Every question of every entry of one task file, plus the problems of the ones that fail."""
    questions: list[ReleaseQuestion] = []
    problems: list[Problem] = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("questions"), list):
            problems.append(Problem("malformed_entry", file_name, i, None, "", "entry has no questions list"))
            continue
        if not entry["questions"]:
            problems.append(Problem("malformed_entry", file_name, i, None, "", "empty questions list"))
        for j, q in enumerate(entry["questions"]):
            text = q.get("question", "") if isinstance(q, dict) else ""
            try:
                questions.append(parse_question(entry, q, file_name, i, j, spec))
            except EntryError as exc:
                problems.append(Problem("malformed_entry", file_name, i, j, snippet(text), str(exc)))
            except _LabelError as exc:
                problems.append(Problem("bad_option_labels", file_name, i, j, snippet(text), str(exc)))
    return questions, problems


def parse_question(entry: dict, q: object, file_name: str, i: int, j: int, spec: TaskSpec) -> ReleaseQuestion:
    """One official question → :class:`ReleaseQuestion` (raises EntryError / _LabelError)."""
    if not isinstance(q, dict):
        raise EntryError("question is not an object")
    text = q.get("question")
    if not isinstance(text, str) or not text.strip():
        raise EntryError("no question text")
    task = spec.id
    if spec.id in ("otp", "gsm"):
        task = task_from_text(text) or spec.id
    video_file = video_file_of(entry)
    try:
        query_time = parse_time(q.get("time_stamp"))
    except ValueError as exc:
        raise EntryError(f"time_stamp: {exc}") from None
    rq = ReleaseQuestion(file_name, i, j, task, video_file, str(entry.get("video_categories") or ""), text,
                         [], "", query_time, extras=_extras(entry, q))
    if get_task(task).is_proactive:
        rq.checkpoints = parse_checkpoints(q.get("test_info"))
    else:
        rq.options, rq.answer = _parse_mc(q)
    return rq


def _parse_mc(q: dict) -> tuple[list[str], str]:
    options = q.get("options")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise EntryError("options is not a list of strings")
    answer = q.get("answer")
    if not isinstance(answer, str):
        raise EntryError(f"answer {answer!r} is not a string")
    try:
        return strip_labels(options), answer.strip()
    except ValueError as exc:
        raise _LabelError(str(exc)) from None


def parse_checkpoints(test_info: object) -> list[dict]:
    """Proactive ``test_info`` [{realtime, type}] → [{time, label}] (type 1 ⇒ "Yes", 0 ⇒ "No")."""
    if not isinstance(test_info, list) or not test_info:
        raise EntryError("proactive question without a test_info list")
    out = []
    for k, cp in enumerate(test_info):
        if not isinstance(cp, dict) or cp.get("type") not in (0, 1) or isinstance(cp.get("type"), bool):
            raise EntryError(f"test_info[{k}] is not {{realtime, type: 0|1}}")
        try:
            out.append({"time": parse_time(cp.get("realtime")), "label": "Yes" if cp["type"] == 1 else "No"})
        except ValueError as exc:
            raise EntryError(f"test_info[{k}].realtime: {exc}") from None
    return out


def _extras(entry: dict, q: dict) -> dict:
    """Every official field not stored in a column (entry-level keys prefixed ``entry_`` on a clash)."""
    extras = {k: v for k, v in q.items() if k not in _QUESTION_COLUMNS}
    for k, v in entry.items():
        if k == "questions":
            continue
        extras[f"entry_{k}" if k in extras else k] = v
    return extras
