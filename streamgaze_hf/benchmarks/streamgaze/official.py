"""``streamgaze import-official-results``: the official evaluator's output files → a normal submission.

The official harness (``src/eval.py``, reference §2.6) writes one ``<task file stem>_output.json`` per
task, e.g. ``past_object_transition_prediction_output.json``:

* multiple choice: the task file's entries, each with ``model_predictions`` — one
  ``{question, time_stamp, model_prediction, ...}`` per question (``zip`` order); an entry whose video
  was missing has none;
* proactive: the task file itself, each ``test_info`` checkpoint with the model's ``response``.

The file name decides the task (as the official ``evaluate_results.py`` reads files by name; names of
the pipeline's raw files are recognised by the step-4 router's keywords). Each official question is
matched to a question of the dataset imported from the same release (``import streamgaze``) by its
video path, question text and ``time_stamp``; when several rows match (exact duplicates), its entry
and question position decide; a question that matches nothing, or stays ambiguous, is reported and
left out, never guessed. Proactive checkpoints map through the same rule the importer used
(``release_parse.checkpoint_problem``), so a checkpoint the importer dropped is reported, not scored.

The responses are re-scored with our parser (``settings.prompt_mode = "default"``: the parser; the
prompts were the official ones, ``run.harness = "official-evaluator"``) into a submission that
``validate`` and ``leaderboard`` accept; the reference parser's scores of the same responses are
computed beside it (:attr:`OfficialImport.reference_scores`). Unanswered questions count as wrong.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ...dataset import snippet
from ...submission import AnswerKey, ItemKey, assemble_submission, load_answer_key, score_responses
from ...util.errors import StreamGazeError
from . import BENCHMARK
from .release_parse import checkpoint_problem, task_for_name, video_ref_of
from .tasks import TASK_IDS, get_task

__all__ = ["OfficialImport", "import_official_results", "HARNESS"]

HARNESS = "official-evaluator"
OUTPUT_SUFFIX = "_output.json"


@dataclass(frozen=True)
class Unmatched:
    """An official question (or checkpoint) that was not scored, and why."""

    file: str
    entry: int
    question_index: int
    question: str
    reason: str

    def describe(self) -> str:
        return f"{self.file} entry {self.entry} question {self.question_index}: {self.reason} (\"{self.question}\")"


@dataclass
class OfficialImport:
    """The submission and what happened on the way."""

    submission: dict
    reference_scores: dict
    files: dict[str, str]  # output file name -> task id
    matched: Counter = field(default_factory=Counter)  # task -> scored items (questions / checkpoints)
    unanswered: Counter = field(default_factory=Counter)  # task -> matched questions without a response
    unmatched: list[Unmatched] = field(default_factory=list)
    ignored_files: list[str] = field(default_factory=list)

    def format(self, max_listed: int = 20) -> str:
        ours, ref = self.submission["scores"], self.reference_scores
        lines = [f"Re-scored {sum(self.matched.values())} answers from {len(self.files)} official output file(s)",
                 "Per task: answers scored / expected, accuracy with our parser | with the reference parser"]
        for t in TASK_IDS:
            a, b = ours["tasks"][t], ref["tasks"][t]
            n = a["n"]
            lines.append(f"  {t:<8} {n - a['n_missing']:>6} / {n:<6} {100 * a['accuracy']:7.2f} | "
                         f"{100 * b['accuracy']:7.2f}")
        lines.append(f"  overall  {100 * ours['overall']:>24.2f} | {100 * ref['overall']:7.2f}   "
                     f"(past {100 * ours['past']:.2f} | {100 * ref['past']:.2f}, present {100 * ours['present']:.2f}"
                     f" | {100 * ref['present']:.2f}, proactive {100 * ours['proactive']:.2f} | "
                     f"{100 * ref['proactive']:.2f})")
        if self.unanswered:
            lines.append("Matched but unanswered (no prediction / response in the output; counted wrong): "
                         + ", ".join(f"{t} {n}" for t, n in sorted(self.unanswered.items())))
        if self.ignored_files:
            lines.append("Ignored (not a task output file): " + ", ".join(self.ignored_files))
        lines.append(f"Unmatched (not scored, not guessed): {len(self.unmatched)}")
        lines += [f"  {u.describe()}" for u in self.unmatched[:max_listed]]
        if len(self.unmatched) > max_listed:
            lines.append(f"  ... and {len(self.unmatched) - max_listed} more")
        return "\n".join(lines)


def output_files(results_dir: Path) -> tuple[dict[Path, str], list[str]]:
    """``*_output.json`` files of ``results_dir`` → task id (one per task), and the names ignored."""
    if not results_dir.is_dir():
        raise StreamGazeError("not a directory (expected the official evaluator's results folder with "
                              "*_output.json files)", results_dir)
    files: dict[Path, str] = {}
    ignored: list[str] = []
    by_task: dict[str, Path] = {}
    for path in sorted(results_dir.glob(f"*{OUTPUT_SUFFIX}")):
        task = task_for_name(path.name[: -len(OUTPUT_SUFFIX)] + ".json")
        if task is None:
            ignored.append(path.name)
            continue
        if task in by_task:
            raise StreamGazeError(f"two output files for task {task}: {by_task[task].name} and {path.name}",
                                  results_dir)
        by_task[task] = path
        files[path] = task
    if not files:
        raise StreamGazeError(f"no official output files here (no <task>{OUTPUT_SUFFIX}, e.g. "
                              f"past_scene_recall{OUTPUT_SUFFIX})", results_dir)
    return files, ignored


@dataclass
class _Question:
    qid: str
    entry: int
    index: int
    sources: list[int]  # checkpoint index -> official test_info index (proactive)


def _index(key: AnswerKey, task: str) -> dict[tuple, list[_Question]]:
    """(video path, question text, time_stamp) -> the task's dataset questions."""
    out: dict[tuple, list[_Question]] = {}
    seen: set[str] = set()
    for (qid, _cp), doc in key.docs[task].items():
        if qid in seen:
            continue
        seen.add(qid)
        meta = json.loads(doc["metadata"])
        try:
            ref = video_ref_of(meta)
        except ValueError:
            continue
        info = meta.get("test_info")
        sources = [k for k, cp in enumerate(info) if not checkpoint_problem(cp)] if isinstance(info, list) else []
        q = _Question(qid, int(meta.get("release_entry", -1)), int(meta.get("release_question", -1)), sources)
        out.setdefault((ref, doc["question"], _stamp(meta.get("time_stamp"))), []).append(q)
    return out


def _stamp(value: object) -> str | None:
    return None if value is None else str(value)


def _match(index: dict[tuple, list[_Question]], entry: dict, q: dict, i: int, j: int) -> _Question | str:
    try:
        ref = video_ref_of(entry)
    except ValueError:
        return "no video_path"
    hits = index.get((ref, q.get("question"), _stamp(q.get("time_stamp"))), [])
    if len(hits) > 1:
        hits = [h for h in hits if (h.entry, h.index) == (i, j)]
        if len(hits) != 1:
            return "several dataset questions have this video, text and time_stamp, none at this position"
    if not hits:
        return "no dataset question with this video path, text and time_stamp"
    return hits[0]


def _read(path: Path) -> list:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"unreadable official output ({exc})", path) from None
    if not isinstance(data, list):
        raise StreamGazeError("not an official output file (top level is not a list of entries)", path)
    return data


def _collect(path: Path, task: str, index: dict[tuple, list[_Question]], responses: dict[ItemKey, str],
             result: OfficialImport) -> None:
    proactive = get_task(task).checkpointed
    for i, entry in enumerate(_read(path)):
        questions = entry.get("questions") if isinstance(entry, dict) else None
        if not isinstance(questions, list):
            result.unmatched.append(Unmatched(path.name, i, 0, "", "entry has no questions list"))
            continue
        predictions = entry.get("model_predictions")
        for j, q in enumerate(questions):
            if not isinstance(q, dict):
                continue
            found = _match(index, entry, q, i, j)
            if isinstance(found, str):
                result.unmatched.append(Unmatched(path.name, i, j, snippet(q.get("question")), found))
                continue
            if proactive:
                _checkpoints(path.name, i, j, q, found, responses, result, task)
                continue
            if not isinstance(predictions, list) or j >= len(predictions) or not isinstance(predictions[j], dict):
                result.unanswered[task] += 1
                continue
            prediction = predictions[j].get("model_prediction")
            responses[(found.qid, -1)] = prediction if isinstance(prediction, str) else str(prediction or "")
            result.matched[task] += 1


def _checkpoints(file: str, i: int, j: int, q: dict, found: _Question, responses: dict[ItemKey, str],
                 result: OfficialImport, task: str) -> None:
    info = q.get("test_info") if isinstance(q.get("test_info"), list) else []
    position = {k: n for n, k in enumerate(found.sources)}
    answered = False
    for k, cp in enumerate(info):
        if not isinstance(cp, dict) or "response" not in cp:
            continue
        if k not in position:
            result.unmatched.append(Unmatched(file, i, j, snippet(q.get("question")),
                                              f"test_info[{k}] is not a checkpoint of the dataset "
                                              f"({checkpoint_problem(cp) or 'not in the imported question'})"))
            continue
        response = cp["response"]
        responses[(found.qid, position[k])] = response if isinstance(response, str) else str(response or "")
        result.matched[task] += 1
        answered = True
    if not answered:
        result.unanswered[task] += 1


def import_official_results(results_dir: str | os.PathLike[str], root: str | os.PathLike[str] | None, *,
                            model_name: str, model_url: str = "", params: str = "", frames: str = "",
                            gaze: str = "visual") -> OfficialImport:
    """The submission for the official outputs in ``results_dir`` on the dataset at ``root``.

    Args:
        results_dir: the official evaluator's results folder (``<task file stem>_output.json`` files).
        root: the StreamGaze dataset imported from the same release, a directory or a Hub reference (None:
            ``$STREAMGAZE_ROOT``, else its default directory).
        model_name: the model's name on the leaderboard.
        model_url: a link for the model ("" = none).
        params: the model's parameter count as shown ("" = unknown).
        frames: the frames the model was shown, as shown ("" = unknown).
        gaze: the gaze mode the official run used.

    Returns:
        The :class:`OfficialImport`: the submission (re-scored with our parser), the reference parser's
        scores of the same responses, and what was matched, unanswered, unmatched and ignored.

    Raises:
        StreamGazeError: ``results_dir`` is not a directory, holds no task output file or two for one task,
            or an output file is unreadable or malformed; no dataset at ``root``.
    """
    files, ignored = output_files(Path(results_dir))
    key = load_answer_key(root, gaze, BENCHMARK)
    result = OfficialImport(submission={}, reference_scores={}, files={p.name: t for p, t in files.items()},
                            ignored_files=ignored)
    responses: dict[ItemKey, str] = {}
    for path, task in files.items():
        _collect(path, task, _index(key, task), responses, result)
    run = {"harness": HARNESS, "harness_version": "", "model": model_name, "model_args": "", "date": "",
           "limit": None}
    result.submission = assemble_submission(key, responses, prompt_mode="default", clip_fps=0.0,
                                            model={"name": model_name, "url": model_url, "params": params,
                                                   "frames": frames}, run=run)
    result.reference_scores = score_responses(key, responses, "reference").scores
    return result
