"""EgoGazeVQA evaluation documents and scoring (the interface every benchmark's evaluation module
offers the lmms-eval glue: ``load_docs``, ``doc_visuals``, ``doc_prompt``, ``doc_target``,
``score_doc``, ``task_metrics``).

Settings from the environment (every rank of a distributed run agrees): ``$EGOGAZEVQA_ROOT`` (the
dataset root, default ``./egogazevqa``), ``$STREAMGAZE_PROMPT_MODE`` (``default``: our prompts and
parser; ``reference``: the paper's prompts and the official exact-match scorer),
``$EGOGAZEVQA_VISUALS`` (``images``, the default: the keyframes as images; ``clip``: one short clip
for video-only model wrappers), both through ``streamgaze_hf.evaluation.settings.RunSettings``, and ``$STREAMGAZE_CLIP_CACHE`` (where GazeS maps and clips are cached).

Scoring: five options, read by the shared parser (``scoring.parse_choice``: "C.", "(C)", "the answer
is C", the option text ...); every record also says whether the official exact-match rule would
have counted it (``exact_match``), so both numbers come out of one run. Breakdowns per category,
source, scenario and activity: :func:`breakdown`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ... import scoring
from ...dataset import DatasetHandle, open_dataset
from ...evaluation import RunSettings, document_settings, given, record_settings
from ...registry import hook, provide
from ...util.errors import StreamGazeError
from . import BENCHMARK, NAME
from .prompts import GAZE_MODES, question_prompt
from .visuals import VISUAL_FORMS
from .visuals import doc_visuals as _doc_visuals

#: the run option of the visual form (declared in __init__.py, read by RunSettings.from_env)
VISUAL_FORM_OPTION = "egogazevqa_visuals"
BREAKDOWN_KEYS = ("task", "source", "scenario", "activity")
provide(__name__, BREAKDOWN_KEYS=BREAKDOWN_KEYS)
#: the run settings every document and sample record carries (``RunSettings.record``), in this order


def visual_form(settings: RunSettings | None = None) -> str:
    """The run's visual form (the run option ``egogazevqa_visuals``), checked."""
    form = given(settings).option(VISUAL_FORM_OPTION)
    if form not in VISUAL_FORMS:
        raise StreamGazeError(f"visual form {form!r}; expected one of {', '.join(VISUAL_FORMS)}")
    return form


def load_docs(task_id: str, gaze: str = "none", dataset: DatasetHandle | str | os.PathLike[str] | None = None, *,
              rows=None, settings: RunSettings | None = None) -> list[dict]:
    """Evaluation documents of one category: the dataset rows plus the run settings (``settings``, see
    ``streamgaze_hf.evaluation.settings.given``). ``dataset``: the open dataset (a direct call may give a
    reference, opened here; None: ``$EGOGAZEVQA_ROOT``, else ``./egogazevqa``)."""
    settings = given(settings)
    BENCHMARK.require_task(task_id)
    if gaze not in GAZE_MODES:
        raise StreamGazeError(f"unknown EgoGazeVQA gaze mode {gaze!r}; expected one of {', '.join(GAZE_MODES)}")
    data = open_dataset(dataset, benchmark=BENCHMARK, build_hint="build it with `streamgaze import egogazevqa "
                                                                 "RELEASE_DIR --out ROOT --version X.Y.Z`")
    visual_form(settings)
    fields = {"benchmark": NAME, "dataset_root": data.root, "gaze": gaze, **document_settings(BENCHMARK, settings),
              "checkpoint_index": -1}
    return [{**dict(row), **fields} for row in (data.load_task(task_id) if rows is None else rows)]


def doc_visuals(doc: Mapping, cache_dir: str | os.PathLike[str] | None = None) -> list:
    return _doc_visuals(doc, cache_dir)


def doc_prompt(doc: Mapping) -> str:
    import json

    release_gaze = json.loads(doc.get("metadata") or "{}").get("release_gaze")
    return question_prompt(doc["question"], doc["options"], doc["frames"], gaze=doc["gaze"], mode=doc["prompt_mode"],
                           release_gaze=release_gaze)


def doc_target(doc: Mapping) -> str:
    return doc["answer"]


def score_doc(doc: Mapping, response: str) -> dict:
    """The per-sample record: ids, context fields, raw response, our parse, the exact-match verdict,
    and ``correct`` by the run's prompt mode (default: our parser; reference: exact match)."""
    response = response or ""
    parsed = scoring.parse_choice(response, doc["options"])
    exact = scoring.exact_match_correct(response, doc["answer"])
    correct = exact if doc["prompt_mode"] == "reference" else parsed == doc["answer"]
    return {"benchmark": NAME, "question_id": doc["question_id"], "task": doc["task"], "video_id": doc["video_id"],
            "source": doc["source"], "scenario": doc["scenario"], "activity": doc["activity"],
            "checkpoint_index": -1, "response": response, "answer": doc["answer"], "parsed": parsed,
            "exact_match": bool(exact), "correct": bool(correct), "gaze": doc["gaze"],
            **record_settings(BENCHMARK, doc), "score": 100.0 if correct else 0.0}


def task_metrics(records: list[dict]) -> dict:
    """Accuracy of one category's records (fractions), unparsed answers counted as wrong."""
    return scoring.mc_metrics((r["correct"] for r in records), sum(r["parsed"] is None for r in records))


@hook
def leaderboard_scores(records: Mapping[str, list[dict]]) -> dict:
    """The leaderboard values (registry contract) as fractions: each category's accuracy, their mean (the
    paper's Avg.) and that mean under the official exact-match rule."""
    cols: dict[str, float | None] = {}
    exact = []
    for cat in BENCHMARK.task_ids:
        recs = records.get(cat, [])
        cols[cat] = task_metrics(recs)["accuracy"] if recs else None
        if recs:
            exact.append(sum(bool(r["exact_match"]) for r in recs) / len(recs))
    defined = [v for v in cols.values() if v is not None]
    cols["exact_match"] = sum(exact) / len(exact) if exact else None
    return {"columns": cols, "overall": sum(defined) / len(defined) if defined else None}


@hook
def breakdown(records: Iterable[Mapping], key: str) -> dict[str, dict]:
    """Metrics per value of ``key`` (``task``, ``source``, ``scenario``, ``activity``; "" = unknown),
    values sorted."""
    if key not in BREAKDOWN_KEYS:
        raise ValueError(f"breakdown key {key!r}; expected one of {', '.join(BREAKDOWN_KEYS)}")
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(str(r.get(key) or ""), []).append(dict(r))
    return {k: task_metrics(v) for k, v in sorted(groups.items())}
