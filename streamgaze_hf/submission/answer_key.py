"""Score raw responses against a dataset's answer key with the shared scoring code.

Both ``submit`` and ``validate`` go through :func:`score_responses`, which scores the evaluation
documents of the dataset's benchmark with its evaluation module (``score_doc``, ``task_metrics``, the
``leaderboard_scores`` hook and ``breakdown``; see ``streamgaze_hf.registry``), so reference prompt mode
uses the reference parsers exactly as the lmms-eval plugin does, into the scores layout of
:mod:`streamgaze_hf.submission.schema` ("Benchmarks"). A benchmark with a layout of its own (StreamGaze:
overall and category means, per-source scores, bootstrap errors) scores the key in its ``score_answers``
hook. A question without an answer is wrong and counted (``n_missing``), never excluded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset import DatasetHandle, manifest_digest, open_dataset
from ..registry import Benchmark, default_benchmark
from ..util.errors import StreamGazeError

__all__ = ["ItemKey", "AnswerKey", "Rescored", "scored_dataset", "load_answer_key", "score_responses"]

#: one scored item: (question id, checkpoint index); the index is -1 for multiple-choice questions
ItemKey = tuple[str, int]


@dataclass
class AnswerKey:
    """The evaluation documents of every task of one dataset build of one benchmark, indexed by item."""

    dataset: DatasetHandle
    version: str
    manifest_sha256: str
    gaze: str
    docs: dict[str, dict[ItemKey, dict]]
    task_of: dict[str, str]
    bench: Benchmark

    @property
    def benchmark(self) -> str:
        """The benchmark's name."""
        return self.bench.name

    @property
    def root(self) -> Path:
        """The dataset's directory."""
        return self.dataset.path

    @property
    def expected(self) -> int:
        return sum(len(d) for d in self.docs.values())

    def problem(self, task_id: str, qid: str, checkpoint: int) -> str | None:
        """Why (task, question, checkpoint) is not an item of this dataset, or None when it is."""
        owner = self.task_of.get(qid)
        if owner is None:
            return f"unknown question id {qid!r} (not in dataset version {self.version})"
        if owner != task_id:
            return f"question id {qid!r} is a {owner} question, not a {task_id} one"
        if (qid, checkpoint) not in self.docs[task_id]:
            if checkpoint < 0:
                return f"question {qid!r} of the proactive task {task_id} needs a checkpoint index"
            n = sum(1 for q, _ in self.docs[task_id] if q == qid)
            return f"question {qid!r} has no checkpoint {checkpoint} (it has {n})"
        return None


def scored_dataset(dataset: DatasetHandle | str | os.PathLike[str] | None,
                   bench: Benchmark | None = None) -> DatasetHandle:
    """The dataset a submission or run is scored against.

    Args:
        dataset: the open dataset, or a reference (opened here); None: the benchmark's ``$..._ROOT``, else its
            default directory.
        bench: the benchmark the submission or run is for; None: the one the dataset's manifest names.

    Returns:
        The open dataset.

    Raises:
        StreamGazeError: no dataset there, or ``bench`` is given and the dataset is another benchmark's.
    """
    data = open_dataset(dataset, lookup=bench or default_benchmark())
    if bench is not None and data.benchmark is not bench:
        raise StreamGazeError(f"this dataset is {data.benchmark.name}'s, but the submission or run is for {bench.name}: "
                              f"pass a {bench.name} dataset (--dataset)", data.path)
    return data


def load_answer_key(dataset: DatasetHandle | str | os.PathLike[str] | None, gaze: str | None = None,
                    bench: Benchmark | None = None) -> AnswerKey:
    """Every task's evaluation documents (proactive: one per checkpoint) of a dataset, by item.

    Args:
        dataset: the open dataset, or a reference (see :func:`scored_dataset`).
        gaze: the gaze mode of the documents (None: the benchmark's plain task's).
        bench: the benchmark the key is for (checked against the dataset); None: the dataset's.

    Returns:
        The :class:`AnswerKey`: the dataset's version and manifest digest, and each task's documents by item
        (tasks with no questions are empty).

    Raises:
        StreamGazeError: see :func:`scored_dataset`; a damaged dataset file.
    """
    data = scored_dataset(dataset, bench)
    bench = data.benchmark
    if gaze is None:
        gaze = bench.plain_gaze
    module = bench.plugin()
    # a Hub dataset's tables in one download (one progress bar), before the tasks read them one by one
    data.files([rel for rel in data.manifest.get("files") or {} if rel.startswith("data/") and rel.endswith(".parquet")
                and not rel.startswith("data/previews/")])
    docs: dict[str, dict[ItemKey, dict]] = {}
    task_of: dict[str, str] = {}
    present = data.nonempty_tasks(bench.task_ids)
    for task_id in bench.task_ids:
        by_item: dict[ItemKey, dict] = {}
        for doc in (module.load_docs(task_id, gaze, data) if task_id in present else ()):
            by_item[(doc["question_id"], int(doc.get("checkpoint_index", -1)))] = doc
            task_of[doc["question_id"]] = task_id
        docs[task_id] = by_item
    return AnswerKey(data, data.version, manifest_digest(data.path), gaze, docs, task_of, bench)


@dataclass
class Rescored:
    """Scores recomputed from raw responses, with the per-item records and what was missing."""

    scores: dict
    records: dict[str, list[dict]] = field(default_factory=dict)
    missing: list[tuple[str, str, int]] = field(default_factory=list)  # (task, question id, checkpoint)

    @property
    def coverage(self) -> float:
        return float(self.scores["coverage"]["fraction"])


def score_responses(key: AnswerKey, responses: Mapping[ItemKey, str], prompt_mode: str,
                    clip_fps: float = 0.0) -> Rescored:
    """Score ``responses`` (item -> raw response) against ``key`` under ``prompt_mode``.

    Every item of the key is scored; unanswered items are wrong (parsed None). Items not in the key
    raise ``KeyError`` (callers check them first with :meth:`AnswerKey.problem` for a clear reason).

    Args:
        key: the dataset's answer key (:func:`load_answer_key`).
        responses: item ``(question id, checkpoint index)`` -> the model's raw response.
        prompt_mode: the run's prompt mode (``reference`` uses the reference parsers).
        clip_fps: the run's clip frame-rate cap (0: none), recorded with the scores.

    Returns:
        The :class:`Rescored` scores: in the benchmark's own layout when its evaluation module has
        ``score_answers``, else the shared one (columns, coverage, tasks, breakdowns); the per-item records
        and the missing items.

    Raises:
        KeyError: a response is for an item not in the key.
    """
    known = {item for docs in key.docs.values() for item in docs}
    unknown = [item for item in responses if item not in known]
    if unknown:
        raise KeyError(f"items not in the answer key: {unknown[:3]}")
    own = key.bench.plugin().score_answers(key, responses, prompt_mode, clip_fps)
    return own if own is not None else _score_benchmark(key, responses, prompt_mode, clip_fps)


def leaderboard_values(bench: Benchmark, records: Mapping[str, list[dict]]) -> dict:
    """``{"columns": {key: value}, "overall": value}`` of a benchmark's records (task id -> records): its
    evaluation module's ``leaderboard_scores`` hook, else each task's ``task_metrics`` accuracy and their
    unweighted mean (the registry's default columns)."""
    out = bench.plugin().leaderboard_scores(records)
    return {"columns": {c.key: out["columns"].get(c.key) for c in bench.leaderboard.score_columns()},
            "overall": out.get("overall")}


def _score_benchmark(key: AnswerKey, responses: Mapping[ItemKey, str], prompt_mode: str,
                     clip_fps: float) -> Rescored:
    """:func:`score_responses` in the shared scores layout (module docstring), through the benchmark's
    evaluation module."""


    module = key.bench.plugin()
    tasks: dict[str, dict] = {}
    records: dict[str, list[dict]] = {}
    missing: list[tuple[str, str, int]] = []
    for task_id, docs in key.docs.items():
        recs, n_missing, unparsed_missing = [], 0, 0
        for item, doc in docs.items():
            doc = {**doc, "prompt_mode": prompt_mode, "clip_fps": float(clip_fps)}
            if item in responses:
                recs.append(module.score_doc(doc, responses[item]))
                continue
            n_missing += 1
            missing.append((task_id, item[0], item[1]))
            rec = {**module.score_doc(doc, ""), "missing": True}
            unparsed_missing += rec.get("parsed") is None
            recs.append(rec)
        metrics = dict(module.task_metrics(recs))
        if "n_unparsed" in metrics:  # task_metrics counts a missing answer as unparsed; report the two apart
            metrics["n_unparsed"] = int(metrics["n_unparsed"]) - unparsed_missing
        metrics.update(n=len(recs), n_missing=n_missing)
        tasks[task_id] = metrics
        records[task_id] = recs
    expected = key.expected
    answered = expected - len(missing)
    every = [r for recs in records.values() for r in recs]
    breakdowns = module.breakdowns(every)
    scores = {**leaderboard_values(key.bench, records),
              "coverage": {"answered": answered, "expected": expected,
                           "fraction": answered / expected if expected else 0.0},
              "tasks": tasks, "breakdowns": breakdowns}
    return Rescored(json.loads(json.dumps(scores)), records, missing)
