"""StreamGaze's evaluation documents: what an evaluation harness shows a model and how its answer is scored.

Harness-agnostic (the lmms-eval plugin in ``lmms_tasks/`` is thin glue over this module):
- :func:`load_docs` turns a task's dataset rows into evaluation documents; proactive questions are
  expanded into one document per checkpoint whose window is [0, r];
- :func:`doc_visuals` (shared, ``streamgaze_hf/evaluation/visuals.py``) prepares exactly the document's window
  as a clip (no frame after the window end, none before its start) — for every model, never left to
  model wrappers (reference bug 3);
- :func:`doc_prompt` / :func:`score_doc` build the prompt and score a response with the shared parser.

The run settings (prompt mode, clip fps, protocol, proxy) are a ``streamgaze_hf.evaluation.settings.RunSettings``
the caller passes (the benchmark's ``recorded_settings`` are recorded in every document and sample record:
``streamgaze_hf.evaluation.recorded``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from ... import scoring
from ...dataset import DatasetHandle, open_dataset
from ...evaluation import (  # noqa: F401  (re-exported: the plugin reads them from here)
    RunSettings,
    clip_fixations,
    doc_clip_spec,
    doc_fps_cap,
    doc_visuals,
    doc_window,
    document_settings,
    gaze_tracks,
    record_settings,
    salience_image,
    video_gaze_track,
    video_geometry,
)
from ...registry import hook
from ...scoring.bootstrap import bootstrap_standard_errors
from ...submission import AnswerKey, ItemKey, Rescored
from ...util.errors import StreamGazeError
from ...util.provenance import run_provenance
from . import BENCHMARK, prompts
from .tasks import TASK_IDS, get_task

#: task-name suffix -> gaze-input mode (paper Table 3); "" is the paper's main setting
GAZE_VARIANTS: dict[str, str] = dict(BENCHMARK.gaze_variants)


def task_name(task_id: str, gaze: str = "visual") -> str:
    suffix = {v: k for k, v in GAZE_VARIANTS.items()}[gaze]
    return f"{get_task(task_id).lmms_name}{suffix}"


# ---- documents -------------------------------------------------------------------------------------

#: the gaze modes whose prompt or visuals use the window's fixations (the others' documents carry none)
FIXATION_VARIANTS = ("text", "salience")


def load_docs(task_id: str, gaze: str = "visual", dataset: DatasetHandle | str | os.PathLike[str] | None = None,
              reasoning: str = "", *, rows=None, settings: RunSettings | None = None) -> list[dict]:
    """Evaluation documents of one task (see the module docstring); ``dataset``: the open dataset (a direct
    call may give a reference, opened here; None: ``$STREAMGAZE_ROOT``, else ``./streamgaze``);
    ``reasoning`` ("" or one of ``prompts.REASONING_MODES``) selects a reasoning variant's prompts and answer
    extraction; ``rows``: the task config's rows when the caller has read them (lmms-eval's ``process_docs``),
    else read here; ``settings``: the run's (``streamgaze_hf.evaluation.settings.given``)."""
    spec = get_task(task_id)
    if reasoning and reasoning not in prompts.REASONING_MODES:
        raise StreamGazeError(f"unknown reasoning mode {reasoning!r}; expected one of "
                              f"{', '.join(prompts.REASONING_MODES)}")
    if gaze not in GAZE_VARIANTS.values():
        raise StreamGazeError(f"unknown gaze mode {gaze!r}; expected one of {', '.join(GAZE_VARIANTS.values())}")
    data = open_dataset(dataset, benchmark=BENCHMARK)
    rows = [dict(r) for r in (data.load_task(task_id) if rows is None else rows)]
    check_variant(task_id, gaze, rows, data)
    geometry = video_geometry(data)
    fields = {"benchmark": BENCHMARK.name, "dataset_root": data.root, "gaze": gaze,
              **document_settings(BENCHMARK, settings, data.path)}
    if reasoning:
        fields["reasoning"] = reasoning
    tracks = {}
    if spec.checkpointed and gaze in FIXATION_VARIANTS:  # clip_fixations at every checkpoint
        tracks = gaze_tracks(data, {r["video_id"] for r in rows}, geometry)
    # Only the text and salience variants read a document's fixations; the others carry none, which
    # keeps the documents lmms-eval holds (and logs with --log_samples) small: a past question over a
    # long video has hundreds of fixations, a proactive one that many per checkpoint.
    uses_fixations = gaze in FIXATION_VARIANTS
    docs = []
    for row in rows:
        g = geometry.get(row["video_id"], {})
        base = {**row, **fields, "frame_width": int(g.get("width", 0)), "frame_height": int(g.get("height", 0)),
                "checkpoint_index": -1, "checkpoint_time": math.nan, "checkpoint_label": ""}
        if not uses_fixations:
            base["fixations"] = []
        if not spec.checkpointed:
            docs.append(base)
            continue
        for i, cp in enumerate(row["checkpoints"]):
            fixations = (clip_fixations(row["fixations"], cp["time"], tracks.get(row["video_id"]))
                         if uses_fixations else [])
            docs.append({**base, "window_end": cp["time"], "checkpoint_index": i, "checkpoint_time": cp["time"],
                         "checkpoint_label": cp["label"], "fixations": fixations})
    return docs


def check_variant(task_id: str, gaze: str, rows: list[dict], dataset: DatasetHandle) -> None:
    """One clear error when the dataset cannot serve this gaze variant (dataset/variants.py): no overlay
    video for the visual setting, no gaze at all for the text and salience settings."""
    from ...dataset import has_gaze

    name = task_name(task_id, gaze)
    if gaze == "visual":
        missing = sorted({r["video_id"] for r in rows if not r["overlay_path"]})
        if missing:
            raise StreamGazeError(f"{name}: {len(missing)} video(s) of this task have no gaze-overlay video (e.g. "
                                  f"{missing[0]}; a release imported without viz videos and without fixation "
                                  f"centres): run {task_name(task_id, 'none')} instead", dataset.path)
    elif gaze in ("text", "salience") and not has_gaze(dataset):
        raise StreamGazeError(f"{name}: this dataset has no gaze (no gaze samples, no fixation centres), so the "
                              f"{gaze} gaze variant would show none: run {task_name(task_id, 'visual')} or "
                              f"{task_name(task_id, 'none')} instead", dataset.path)


def doc_prompt(doc: dict) -> str:
    size = (doc["frame_width"], doc["frame_height"])
    if doc.get("reasoning"):
        if get_task(doc["task"]).checkpointed:
            return prompts.checkpoint_reasoning_prompt(doc["reasoning"], doc["task"], doc, gaze=doc["gaze"],
                                                       mode=doc["prompt_mode"], fixations=doc["fixations"],
                                                       frame_size=size)
        return prompts.mc_reasoning_prompt(doc["reasoning"], doc["question"], doc["options"], gaze=doc["gaze"],
                                           mode=doc["prompt_mode"], fixations=doc["fixations"], frame_size=size)
    if get_task(doc["task"]).checkpointed:
        return prompts.checkpoint_prompt(doc["task"], doc, gaze=doc["gaze"], mode=doc["prompt_mode"],
                                         fixations=doc["fixations"], frame_size=size)
    return prompts.mc_prompt(doc["question"], doc["options"], gaze=doc["gaze"], mode=doc["prompt_mode"],
                             fixations=doc["fixations"], frame_size=size)


def doc_target(doc: dict) -> str:
    return doc["checkpoint_label"] if get_task(doc["task"]).checkpointed else doc["answer"]


# ---- scoring ---------------------------------------------------------------------------------------

def score_doc(doc: dict, response: str) -> dict:
    """The per-sample record (what samples files and submissions carry): ids, raw response, parsed
    answer, correctness, the settings that change a number, and what scored it (``run_provenance``:
    ``toolkit_version``, ``toolkit_commit``, ``lmms_eval_version``, ``datasets_version``; lmms-eval's own "branch / commit" fields describe the
    directory it was started in, not lmms-eval)."""
    response = response or ""
    rec = {"benchmark": BENCHMARK.name, "question_id": doc["question_id"], "task": doc["task"],
           "video_id": doc["video_id"], "source": doc.get("source", ""), "checkpoint_index": int(doc["checkpoint_index"]), "response": response,
           "gaze": doc["gaze"], **record_settings(BENCHMARK, doc), **run_provenance()}
    reference = doc["prompt_mode"] == "reference"
    if doc.get("reasoning"):  # reasoning variants: only the <answer> is parsed, never the reasoning
        rec["reasoning"] = doc["reasoning"]
        response = scoring.reasoning_answer(response)
    if get_task(doc["task"]).checkpointed:
        label = doc["checkpoint_label"] == "Yes"
        if reference:
            correct = scoring.reference_yes_no_correct(response, label)
            parsed = label if correct else (not label)
        else:
            parsed = scoring.parse_yes_no(response)
            correct = parsed is not None and parsed == label
        rec.update({"checkpoint_time": doc["checkpoint_time"], "label": doc["checkpoint_label"],
                    "parsed": None if parsed is None else ("Yes" if parsed else "No"), "correct": bool(correct)})
    else:
        if reference:
            parsed = scoring.reference_parse_choice(response)
            correct = scoring.reference_mc_correct(response, doc["answer"])
        else:
            parsed = scoring.parse_choice(response, doc["options"])
            correct = parsed is not None and parsed == doc["answer"]
        rec.update({"answer": doc["answer"], "parsed": parsed, "correct": bool(correct)})
    rec["score"] = 100.0 if rec["correct"] else 0.0
    return rec


@hook
def metric_records(record: dict) -> dict[str, dict]:
    """One item per metric for a harness that computes standard errors from per-item scores
    (lmms-eval's CLT and clustered stderr read each item's ``score``).

    Multiple choice: ``accuracy`` only. Proactive: every metric gets its own item. The proportions
    carry ``score`` only on the items in their denominator (precision: predicted Yes; recall and FNR:
    label Yes; FPR: label No), so their standard error is that of their own proportion, never the
    accuracy's; F1 is not a mean of per-item scores and carries none (its bootstrap standard error
    is in ``statistics``)."""
    if record["checkpoint_index"] < 0:
        return {"accuracy": record}
    pred, label = scoring.effective_yes(record), record["label"] == "Yes"
    base = {k: v for k, v in record.items() if k != "score"}
    conditional = {"precision": (pred, label), "recall": (label, pred), "fpr": (not label, pred),
                   "fnr": (label, not pred)}
    out = {"accuracy": record, "f1": base}
    for name, (in_denominator, hit) in conditional.items():
        out[name] = {**base, "score": 100.0 if hit else 0.0} if in_denominator else base
    return out


def task_metrics(records: list[dict]) -> dict:
    """Metrics of one task's records: accuracy for multiple choice; for proactive tasks checkpoint
    accuracy plus precision, recall, F1, FPR and FNR. Fractions in [0, 1]; None where a ratio's
    denominator is empty (undefined, see :func:`streamgaze_hf.scoring.proactive_metrics`)."""
    if not records:
        return {"accuracy": 0.0, "n": 0}
    if get_task(records[0]["task"]).checkpointed:
        pairs = [(None if r["parsed"] is None else r["parsed"] == "Yes", r["label"] == "Yes") for r in records]
        return scoring.proactive_metrics(pairs)
    return scoring.mc_metrics((r["correct"] for r in records), sum(r["parsed"] is None for r in records))


# ---- submissions: StreamGaze's scores layout (streamgaze_hf/submission/schema.py) -------------------------

@hook
def score_answers(key: AnswerKey, responses: Mapping[ItemKey, str], prompt_mode: str, clip_fps: float) -> Rescored:
    """The evaluation hook that scores a whole answer key (``streamgaze_hf.submission.answer_key.score_responses``) into
    StreamGaze's layout: per task its metrics with bootstrap standard errors, the overall and category
    means (:func:`streamgaze_hf.scoring.summarize`), coverage and per-source scores. An unanswered item
    is scored as an empty response with ``parsed`` None and ``correct`` False (in reference prompt mode
    too), and counted in ``n_missing``, not ``n_unparsed``."""
    tasks: dict[str, dict] = {}
    records: dict[str, list[dict]] = {}
    missing: list[tuple[str, str, int]] = []
    for task_id in TASK_IDS:
        recs, n_missing = [], 0
        for item, doc in key.docs[task_id].items():
            doc = {**doc, "prompt_mode": prompt_mode, "clip_fps": float(clip_fps)}
            if item in responses:
                recs.append(score_doc(doc, responses[item]))
                continue
            n_missing += 1
            missing.append((task_id, item[0], item[1]))
            rec = score_doc(doc, "")
            rec.update(parsed=None, correct=False, score=0.0, missing=True)
            recs.append(rec)
        metrics = dict(task_metrics(recs))
        metrics["stderr"] = bootstrap_standard_errors(recs)
        # task_metrics counts a missing answer as unparsed; report the two separately
        metrics["n_unparsed"] = int(metrics.get("n_unparsed", 0)) - n_missing
        metrics["n_missing"] = n_missing
        tasks[task_id] = metrics
        records[task_id] = recs
    summary = scoring.summarize({t: tasks[t]["accuracy"] for t in TASK_IDS}, BENCHMARK,
                                skip=[t for t in TASK_IDS if not key.docs[t]])  # no questions: skipped
    expected = key.expected
    answered = expected - len(missing)
    scores = {**summary,
              "coverage": {"answered": answered, "expected": expected,
                           "fraction": answered / expected if expected else 0.0},
              "tasks": tasks, "sources": source_scores(records)}
    return Rescored(scores, records, missing)


@hook
def leaderboard_values(scores: Mapping) -> dict:
    """The evaluation hook that reads StreamGaze's scores layout as leaderboard values (the columns of
    ``leaderboard.COLUMNS``): overall, the category means, each task's accuracy, the overall per source."""
    columns = {cat: scores[cat] for cat in BENCHMARK.categories}
    columns.update({t: scores["tasks"][t]["accuracy"] for t in TASK_IDS})
    return {"overall": scores["overall"], "columns": columns,
            "by_source": {src: v["overall"] for src, v in scores.get("sources", {}).items()}}


def source_scores(records: Mapping[str, list[dict]]) -> dict:
    """Per video source (EGTEA, EgoExoLearn, HoloAssist, world...): each task's accuracy on that source's
    items (None where the source has none) and their unweighted mean over the tasks it has."""
    out: dict[str, dict] = {}
    for source in sorted({r.get("source", "") for recs in records.values() for r in recs}):
        tasks = {}
        for task_id in TASK_IDS:
            mine = [r for r in records[task_id] if r.get("source", "") == source]
            tasks[task_id] = task_metrics(mine)["accuracy"] if mine else None
        defined = [v for v in tasks.values() if v is not None]
        out[source or "unknown"] = {"tasks": tasks, "overall": sum(defined) / len(defined) if defined else None,
                                    "n_tasks": len(defined)}
    return out
