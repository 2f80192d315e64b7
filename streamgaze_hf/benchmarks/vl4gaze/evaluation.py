"""VL4Gaze evaluation documents, scoring and metrics (the interface every benchmark's evaluation module
offers the lmms-eval glue: ``load_docs``, ``doc_visuals``, ``doc_prompt``, ``doc_target``, ``score_doc``,
``task_metrics``; plus ``metric_value`` for the task files' aggregations and ``leaderboard_scores``
for the leaderboard columns declared in the registry).

Settings from the environment: ``$VL4GAZE_ROOT`` (the dataset root, default ``./vl4gaze``),
``$STREAMGAZE_PROMPT_MODE`` (``default``: the question plus a one-line answer-format instruction;
``reference``: the question alone, as the paper's fine-tuned models saw it) and, for the optional VLM
judge of GOD, ``$VL4GAZE_JUDGE_URL`` + ``$VL4GAZE_JUDGE_MODEL`` (``$VL4GAZE_JUDGE_KEY``; answers
cached under ``$STREAMGAZE_VLM_CACHE``); all but the cache through ``streamgaze_hf.evaluation.settings.RunSettings``. Without a judge the ``judge`` metric is undefined (NaN).

Metrics (paper §4.1; parsers in ``scoring/gaze_following.py``, the angle convention in ``gaze/direction.py``):

* GOD: corpus BLEU (sacrebleu, 0-100), mean ROUGE-L F (rouge-score, 0-1), mean judge score (0-1);
* GDD: ``direction_acc`` and ``angular_error`` (degrees; an unread answer counts 180);
* GPL: ``l2`` on normalised coordinates over in-frame targets (no in-frame point given there counts as
  the farthest image point) and ``inout_acc`` (``(-1, -1)`` = outside; unread = wrong);
* AQR: ``f1`` with "ambiguous" (cannot identify the observer) as the positive class.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from functools import lru_cache

from ... import scoring
from ...dataset import DatasetHandle, dataset_at, open_dataset
from ...evaluation import RunSettings, document_settings, given, record_settings
from ...registry import hook
from ...util.errors import StreamGazeError
from . import BENCHMARK, COLUMN_METRICS, NAME
from .prompts import eval_prompt

#: the judge's run options (URL, model, key; declared in __init__.py, read by RunSettings.from_env)
JUDGE_OPTIONS = ("vl4gaze_judge_url", "vl4gaze_judge_model", "vl4gaze_judge_key")
#: the run settings every document records (``RunSettings.record``)
JUDGE_PROMPT = """A person in this image is being asked about: "{question}".
Reference answer (what the person is looking at): "{reference}".
Candidate answer: "{candidate}".
Score how well the candidate identifies and describes the same gaze target as the reference, from 0 (wrong object)
to 1 (same object, correctly described). Return only this JSON object: {{"score": <number between 0 and 1>}}"""


def load_docs(task_id: str, gaze: str = "none", dataset: DatasetHandle | str | os.PathLike[str] | None = None, *,
              rows=None, settings: RunSettings | None = None) -> list[dict]:
    """Evaluation documents of one task: the dataset rows plus the run settings (``settings``, see
    ``streamgaze_hf.evaluation.settings.given``). ``dataset``: the open dataset (a direct call may give a
    reference, opened here; None: ``$VL4GAZE_ROOT``, else ``./vl4gaze``)."""
    BENCHMARK.require_task(task_id)
    if gaze != "none":
        raise StreamGazeError(f"VL4Gaze has no gaze mode {gaze!r} (the question names the person)")
    data = open_dataset(dataset, benchmark=BENCHMARK, build_hint="build it with `streamgaze build vl4gaze ...`")
    fields = {"benchmark": NAME, "dataset_root": data.root, "gaze": gaze,
              **document_settings(BENCHMARK, settings), "checkpoint_index": -1}
    return [{**dict(row), **fields} for row in (data.load_task(task_id) if rows is None else rows)]


def doc_visuals(doc: Mapping, cache_dir: str | os.PathLike[str] | None = None) -> list:
    """The scene image as a PIL image (RGB)."""
    from PIL import Image

    path = dataset_at(doc["dataset_root"]).file(doc["image_path"])
    try:
        with Image.open(path) as im:
            return [im.convert("RGB")]
    except OSError as exc:
        raise StreamGazeError(f"cannot read the question's image ({exc})", path) from None


def doc_prompt(doc: Mapping) -> str:
    return eval_prompt(doc["task"], doc["question"], int(doc["width"]), int(doc["height"]), doc["prompt_mode"])


def doc_target(doc: Mapping) -> str:
    return doc["answer"]


def _truth_point(doc: Mapping) -> tuple[float, float] | None:
    return (float(doc["gaze_x"]), float(doc["gaze_y"])) if doc["inside"] else None


def score_doc(doc: Mapping, response: str) -> dict:
    """The per-sample record: ids, the raw response, its reading and the per-sample scores."""
    response = response or ""
    task = doc["task"]
    rec: dict = {"benchmark": NAME, "question_id": doc["question_id"], "task": task, "video_id": doc["video_id"],
                 "source": doc["source"], "checkpoint_index": -1, "response": response, "answer": doc["answer"],
                 "gaze": doc["gaze"], **record_settings(BENCHMARK, doc)}
    if task == "god":
        rec.update(bleu=scoring.sentence_bleu(response, doc["answer"]), rouge_l=scoring.rouge_l(response, doc["answer"]),
                   judge=judge_score(doc, response), parsed=response.strip() or None)
        rec["correct"] = None
    elif task == "gdd":
        parsed = scoring.parse_direction(response)
        rec.update(parsed=parsed, truth=doc["direction"], correct=parsed == doc["direction"])
    elif task == "gpl":
        point = scoring.parse_point(response, doc["width"], doc["height"])
        truth = _truth_point(doc)
        rec.update(parsed=None if point is None else list(point), truth=None if truth is None else list(truth),
                   inside=bool(doc["inside"]),
                   correct=point is not None and (point != scoring.OUTSIDE) == bool(doc["inside"]))
    else:  # aqr
        flag = scoring.parse_ambiguity(response)
        rec.update(parsed=flag, truth=bool(doc["ambiguous"]), correct=flag is not None and flag == bool(doc["ambiguous"]))
    return rec


def task_metrics(records: list[dict]) -> dict:
    """The metrics of one task's records (module docstring); undefined values are None."""
    records = list(records)
    if not records:
        return {"n": 0}
    task = records[0]["task"]
    if task == "god":
        judged = [r["judge"] for r in records if r.get("judge") is not None]
        return {"bleu": scoring.corpus_bleu([r["response"] for r in records], [r["answer"] for r in records]),
                "rouge_l": sum(r["rouge_l"] for r in records) / len(records),
                "judge": sum(judged) / len(judged) if judged else None, "n": len(records),
                "n_judged": len(judged)}
    if task == "gdd":
        return scoring.direction_metrics((r["parsed"], r["truth"]) for r in records)
    if task == "gpl":
        return scoring.point_metrics((None if r["parsed"] is None else tuple(r["parsed"]),
                                      None if r["truth"] is None else tuple(r["truth"])) for r in records)
    return scoring.proactive_metrics((r["parsed"], r["truth"]) for r in records)


@hook
def metric_value(records: Iterable[dict], name: str) -> float:
    """One metric of a task's records in the paper's units, NaN when undefined (the task files'
    aggregation hook: ``lmms_tasks.utils``)."""
    value = task_metrics(list(records)).get(name)
    return math.nan if value is None else float(value)


@hook
def leaderboard_scores(records: Mapping[str, list[dict]]) -> dict:
    """The leaderboard values (registry contract ``leaderboard_scores``): task id -> its per-sample
    records in, ``{"columns": {key: value or None}, "overall": None}`` out, each column the metric of
    ``COLUMN_METRICS`` in the paper's units (a task without records leaves its columns None). There is
    no overall: the four tasks' metrics are in different units."""
    metrics = {t: task_metrics([dict(r) for r in rs]) for t, rs in records.items() if rs}
    return {"columns": {key: metrics.get(task, {}).get(metric) for key, (task, metric) in COLUMN_METRICS.items()},
            "overall": None}


# ---------------------------------------------------------------------------------------------- baselines

RANDOM_TARGETS = ("the table", "the window", "the floor", "the door", "a book", "the camera", "the wall",
                  "something outside the image")


@hook
def baseline_random_answer(rng, doc: Mapping) -> str:
    """The random baseline (``baselines.random_doc_answer``): a random description (GOD), one of the
    eight directions (GDD), a uniform pixel or, one time in ten, (-1, -1) (GPL), Yes or No (AQR)."""
    from ...gaze import DIRECTIONS
    from .prompts import DIRECTION_PHRASES

    task = doc["task"]
    if task == "god":
        return f"The person is looking at {rng.choice(RANDOM_TARGETS)}."
    if task == "gdd":
        return f"The person is looking {DIRECTION_PHRASES[rng.choice(DIRECTIONS)]}."
    if task == "gpl":
        return "(-1, -1)" if rng.random() < 0.1 else f"({rng.randrange(int(doc['width']))}, {rng.randrange(int(doc['height']))})"
    return rng.choice(["Yes", "No"])


# ---------------------------------------------------------------------------------------------- the optional judge


@lru_cache(maxsize=4)
def _judge_client(url: str, model: str, key: str, cache_dir: str):
    from ...objects.vlm import ChatJSONClient

    return ChatJSONClient(url, model, api_key=key or None, cache_dir=cache_dir, image_format="png", max_tokens=64)


def _judge_validate(answer: dict) -> float:
    from ...objects.vlm_prompts import AnswerError

    s = answer.get("score") if isinstance(answer, dict) else None
    if isinstance(s, bool) or not isinstance(s, int | float) or not 0 <= s <= 1:
        raise AnswerError('"score" must be a number between 0 and 1')
    return float(s)


def judge_score(doc: Mapping, response: str, settings: RunSettings | None = None) -> float | None:
    """The VLM judge's score (0-1) of a GOD answer, or None when no judge is configured (the run options
    :data:`JUDGE_OPTIONS`: no URL or no model; ``settings``: see ``streamgaze_hf.evaluation.settings.given``)."""
    url, model, key = (given(settings).option(name) for name in JUDGE_OPTIONS)
    if not (url and model):
        return None
    import cv2

    path = dataset_at(doc["dataset_root"]).file(doc["image_path"])
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise StreamGazeError("cannot read the question's image for the judge", path)
    ok, buf = cv2.imencode(".png", img)
    prompt = JUDGE_PROMPT.format(question=doc["question"], reference=doc["answer"], candidate=response)
    from ...objects.vlm import default_cache_dir

    return _judge_client(url, model, key, str(default_cache_dir())).ask_json(prompt, [buf.tobytes()], "vl4gaze-judge", _judge_validate,
                                                   f"judge of {doc['question_id']}", path)
