"""Parsing the official release's ``qa/*.json`` files (reference §1.2-1.3, §2.2) into questions.

Nothing here touches videos: a :class:`ReleaseQuestion` carries everything of one official question
(text, label-stripped options, answer letter, parsed times, every other field) plus where it came
from; the importer turns it into a dataset row once the video is resolved and probed.

Counting follows the official evaluator (``evaluate_results.py`` and the benchmark classes): the
file name decides the task; an answer letter is read as its ``normalize_answer`` does; a missing
``time_stamp`` is its default ``"0:00"``; a checkpoint whose type is not 0/1 is dropped on its own.
What is changed on the way is recorded as a flag on the question (release_report.FLAG_KINDS).
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...dataset import LETTERS, Problem, snippet
from .tasks import TaskDef, task_for_release_file

OTP_PREFIX = "What object does the user gaze at next after looking at the"
GSM_QUESTION = "Which transition best matches the user's gaze pattern?"
#: what the official evaluator uses when a question has no ``time_stamp`` (StreamingBenchGaze*.py)
DEFAULT_TIME_STAMP = "0:00"
_LABEL = re.compile(r"^[A-Z]\.\s")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_LETTER_FORM = re.compile(r"^[(\[]?\s*([A-Z])\s*[)\]]?\s*[.:)]?$")
_OFFICIAL_LETTER = re.compile(r"\b([ABCD])\b")  # evaluate_results.normalize_answer
_SOURCES = {"egtea": "egtea", "egteagaze": "egtea", "egoexo": "egoexolearn", "egoexolearn": "egoexolearn",
            "holoassist": "holoassist", "ego4d": "ego4d"}
# Fields turned into columns; everything else goes to the metadata JSON.
_QUESTION_COLUMNS = ("question", "options", "answer")


class EntryError(ValueError):
    """A malformed entry or question: ``kind`` is the skip kind it is reported under."""

    def __init__(self, message: str, kind: str = "malformed_entry"):
        super().__init__(message)
        self.kind = kind


@dataclass
class ReleaseQuestion:
    """One official question, parsed. ``task`` is its file's task (the file name decides).

    ``flags`` are the imported-with-a-flag findings so far (see release_report.FLAG_KINDS);
    ``checkpoint_sources[i]`` is the index in the official ``test_info`` of checkpoint ``i``;
    ``text_task`` is the OTP/GSM task the question text names (None when it names neither).
    """

    file: str
    entry: int
    index: int  # position in the entry's ``questions`` list
    task: str
    video_ref: str  # the entry's video_path / video, normalised (see video_ref_of)
    video_categories: str
    question: str
    options: list[str]
    answer: str
    query_time: float
    checkpoints: list[dict] = field(default_factory=list)
    extras: dict = field(default_factory=dict)
    flags: list[Problem] = field(default_factory=list)
    checkpoint_sources: list[int] = field(default_factory=list)
    text_task: str | None = None
    fingerprint: str = ""

    @property
    def video_name(self) -> str:
        return posixpath.basename(self.video_ref)

    def question_id(self, video_id: str) -> str:
        return release_question_id(self.task, video_id, Path(self.file).name, self.entry, self.index)

    def problem(self, kind: str, detail: str = "") -> Problem:
        return Problem(kind, self.file, self.entry, self.index, snippet(self.question), detail)

    def flag(self, kind: str, detail: str = "") -> None:
        self.flags.append(self.problem(kind, detail))


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


#: file-name keywords → task, in the order of the official step-4 router (pipeline/step4_run_all_filtering.py)
#: plus the evaluator's and the pipeline's other names; the first match wins
NAME_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("future_action", "fap"), ("action_prediction", "fap"),
    ("remind_hard", "oaa"), ("object_appearance", "oaa"),
    ("remind_easy", "gta"), ("gaze_triggered", "gta"),
    ("present_attr", "oar"), ("attribute_recognition", "oar"),
    ("ident_hard", "oi_hard"), ("identification_hard", "oi_hard"),
    ("present_ident", "oi_easy"), ("identification_easy", "oi_easy"),
    ("next_after_group", "gsm"), ("gaze_sequence", "gsm"),
    ("scene_reconstruction", "sr"), ("scene_recall", "sr"),
    ("transition_pattern", "otp"), ("object_transition", "otp"),
    ("never_gazed", "nfi"), ("non_fixated", "nfi"),
)


def task_for_name(file_name: str) -> str | None:
    """The task a file name means: one of the ten release names exactly, else the first keyword of
    :data:`NAME_KEYWORDS` it contains (``*object_transition*`` → otp, ``*gaze_sequence*`` → gsm: the
    router sends the next-after-group generator's file to GSM); None when none fits."""
    spec = task_for_release_file(file_name)
    if spec is not None:
        return spec.id
    name = file_name.lower()
    return next((task for word, task in NAME_KEYWORDS if word in name), None)


def task_from_text(question: str) -> str | None:
    """``otp``/``gsm`` from the question text (reference §1.2 recommendation); None if neither."""
    text = " ".join(question.split())
    if text.startswith(OTP_PREFIX):
        return "otp"
    if text.startswith(GSM_QUESTION):
        return "gsm"
    return None


def video_ref_of(entry: dict) -> str:
    """The entry's ``video_path`` (or ``video``) as a normalised relative posix path.

    Backslashes become slashes; empty and ``.`` components and a leading ``/`` are dropped, so
    ``/data/R001/Export_py/Video_pitchshift.mp4`` and ``R001\\Export_py\\Video_pitchshift.mp4``
    end the same way. The whole path is kept: videos are told apart by path, not basename alone.
    """
    raw = entry.get("video_path") or entry.get("video")
    if not isinstance(raw, str) or not raw.strip():
        raise EntryError("no video_path/video")
    parts = [p for p in raw.strip().replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or parts[-1] == "..":
        raise EntryError(f"bad video path {raw!r}")
    return "/".join(parts)


def normalise_answer(raw: object, options: list[str]) -> str:
    """The answer letter of a multiple-choice question, read the way the official scorer does.

    ``evaluate_results.normalize_answer`` upper-cases and strips the answer and takes the first
    ``\\b([ABCD])\\b``; here: a bare letter in any case, ``"C."``, ``"(C)"``, ``"C)"``; else the text
    of one option (case and spacing ignored); else the official regex (``"C. knife"``,
    ``"Answer: C"``). Raises EntryError (``answer_not_in_options``) when no letter among the
    options comes out.
    """
    if raw is None or isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise EntryError(f"answer {raw!r} is not a string", "answer_not_in_options")
    text = str(raw).strip().upper()
    letter = None
    m = _LETTER_FORM.match(text)
    if m:
        letter = m.group(1)
    else:
        wanted = _fold(str(raw))
        hits = [i for i, o in enumerate(options) if _fold(o) == wanted]
        if len(hits) == 1:
            letter = LETTERS[hits[0]]
        else:
            m = _OFFICIAL_LETTER.search(text)
            letter = m.group(1) if m else None
    if letter is None or letter not in LETTERS[:len(options)]:
        raise EntryError(f"answer {raw!r} with {len(options)} options", "answer_not_in_options")
    return letter


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def load_qa_file(path: Path) -> list:
    """The file's JSON list; raises ValueError if it is not valid JSON or not a list."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot parse JSON ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"top level is a {type(data).__name__}, not a list of entries")
    return data


def rows_in_entry(entry: object) -> int:
    """How many rows (questions) an entry counts for in the report: its questions, at least one."""
    qs = entry.get("questions") if isinstance(entry, dict) else None
    return len(qs) if isinstance(qs, list) and qs else 1


def parse_qa_entries(data: list, file_name: str,
                     spec: TaskDef) -> tuple[list[ReleaseQuestion], list[Problem]]:
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
                problems.append(Problem(exc.kind, file_name, i, j, snippet(text), str(exc)))
    return questions, problems


def parse_question(entry: dict, q: object, file_name: str, i: int, j: int, spec: TaskDef) -> ReleaseQuestion:
    """One official question → :class:`ReleaseQuestion` (raises EntryError with its skip kind)."""
    if not isinstance(q, dict):
        raise EntryError("question is not an object")
    text = q.get("question")
    if not isinstance(text, str) or not text.strip():
        raise EntryError("no question text")
    video_ref = video_ref_of(entry)
    raw_time = q.get("time_stamp")
    try:
        query_time = parse_time(DEFAULT_TIME_STAMP if raw_time is None else raw_time)
    except ValueError as exc:
        raise EntryError(f"time_stamp: {exc}") from None
    rq = ReleaseQuestion(file_name, i, j, spec.id, video_ref, str(entry.get("video_categories") or ""), text,
                         [], "", query_time, extras=_extras(entry, q), text_task=task_from_text(text),
                         fingerprint=_fingerprint(video_ref, q))
    if raw_time is None:
        rq.flag("time_stamp_missing", f"no time_stamp: the official default {DEFAULT_TIME_STAMP} is used")
    if spec.checkpointed:
        rq.checkpoints, rq.checkpoint_sources, dropped = parse_checkpoints(q.get("test_info"))
        for k, why in dropped:
            rq.flag("checkpoint_dropped", f"test_info[{k}] dropped: {why}")
    else:
        rq.options, rq.answer = _parse_mc(q)
        if str(q.get("answer")) != rq.answer:
            rq.flag("answer_normalised", f"answer {q.get('answer')!r} read as {rq.answer}")
            rq.extras["release_answer"] = q.get("answer")  # the official value, kept
    return rq


def _fingerprint(video_ref: str, q: dict) -> str:
    """Identity of an exact duplicate: same video path and the same question object, field for field."""
    body = json.dumps([video_ref, q], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha1(body.encode()).hexdigest()


def _parse_mc(q: dict) -> tuple[list[str], str]:
    options = q.get("options")
    if options is None or options == []:
        raise EntryError("no options", "no_options")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise EntryError("options is not a list of strings")
    try:
        stripped = strip_labels(options)
    except ValueError as exc:
        raise EntryError(str(exc), "bad_option_labels") from None
    return stripped, normalise_answer(q.get("answer"), stripped)


def parse_checkpoints(test_info: object) -> tuple[list[dict], list[int], list[tuple[int, str]]]:
    """Proactive ``test_info`` [{realtime, type}] → ([{time, label}], their test_info indices, dropped).

    type 1 ⇒ "Yes", 0 ⇒ "No". A checkpoint with any other type (the official scorer skips
    ``None``), or without a readable ``realtime``, is dropped on its own: ``dropped`` lists
    (index, why). Raises EntryError (``no_checkpoints``) when none is left.
    """
    if not isinstance(test_info, list) or not test_info:
        raise EntryError("proactive question without a test_info list", "no_checkpoints")
    out, sources, dropped = [], [], []
    for k, cp in enumerate(test_info):
        why = checkpoint_problem(cp)
        if why:
            dropped.append((k, why))
            continue
        out.append({"time": parse_time(cp["realtime"]), "label": "Yes" if cp["type"] == 1 else "No"})
        sources.append(k)
    if not out:
        raise EntryError(f"no checkpoint of type 0/1 among {len(test_info)}", "no_checkpoints")
    return out, sources, dropped


def checkpoint_problem(cp: object) -> str:
    """Why an official checkpoint is not imported ("" when it is): the one rule for import and re-scoring."""
    if not isinstance(cp, dict):
        return "not an object"
    kind = cp.get("type")
    if isinstance(kind, bool) or kind not in (0, 1):
        return f"type {kind!r} is not 0/1"
    try:
        parse_time(cp.get("realtime"))
    except ValueError as exc:
        return f"realtime: {exc}"
    return ""


def _extras(entry: dict, q: dict) -> dict:
    """Every official field not stored in a column (entry-level keys prefixed ``entry_`` on a clash)."""
    extras = {k: v for k, v in q.items() if k not in _QUESTION_COLUMNS}
    for k, v in entry.items():
        if k == "questions":
            continue
        extras[f"entry_{k}" if k in extras else k] = v
    return extras
