"""StreamEQA evaluation documents and scoring (the interface every benchmark's evaluation module offers
the lmms-eval glue: ``load_docs``, ``doc_visuals``, ``doc_prompt``, ``doc_target``, ``score_doc``,
``task_metrics``; plus ``table_breakdown`` and the leaderboard hook ``leaderboard_scores``).

Settings from the environment (every rank of a distributed run agrees): ``$STREAMEQA_ROOT`` (the dataset
root, default ``./streameqa``), ``$STREAMGAZE_PROMPT_MODE`` (``default``: our prompt and parser;
``reference``: the supplement's prompt and the official scorer), ``$STREAMGAZE_CLIP_FPS`` and
``--protocol`` (frame-rate caps of the clips): a ``streamgaze_hf.evaluation.settings.RunSettings``; and
``$STREAMGAZE_CLIP_CACHE``.

What the model sees: the window ``[window_start, window_end]`` of the HD-EPIC video (the gaze-overlay
video for the ``visual`` extension variant) cut by the shared clip cache (``video/clips.py``, through
``streamgaze_hf.evaluation.visuals.doc_clip_spec`` as StreamGaze's evaluation does): exactly the frames with
timestamps inside the window, never one after the query time. A window of 1 s or less (the official
code skips the question) gives the frames inside it (``[0, 0]``: the first frame).

Scoring: every record carries both verdicts. ``parsed``/``correct`` in the default mode use the shared
parser (``scoring.parse_choice``); ``official`` is the official code's rule (:func:`official_correct`:
its ``normalize_choice``, then the first character of the stored prediction against the answer letter).
``correct`` follows the run's prompt mode. An empty response (no prediction) is wrong in both (the official code leaves
such items out of the denominator; docs/streameqa.md lists this departure).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from ... import scoring
from ...dataset import LETTERS, DatasetHandle, open_dataset
from ...evaluation import RunSettings, document_settings, record_settings
from ...registry import hook
from ...util.errors import StreamGazeError
from . import BENCHMARK, DIRECTIONS, LEVELS, NAME, SUBTASKS, subtasks
from .prompts import GAZE_MODES, question_prompt

#: the run settings every document records (``RunSettings.record``), then ``proxy`` "" (no proxy videos)
TEXT_GAZE_STEP_S = 1.0  # one gaze point per second of the window in the text variant


def load_docs(task_id: str, gaze: str = "none", dataset: DatasetHandle | str | os.PathLike[str] | None = None, *,
              rows=None, settings: RunSettings | None = None) -> list[dict]:
    """Evaluation documents of one level: the dataset rows plus the run settings (``settings``, see
    ``streamgaze_hf.evaluation.settings.given``; no proxy videos: ``proxy`` is always "") and, for the text gaze
    extension, the window's gaze points. ``dataset``: the open dataset (a direct call may give a reference,
    opened here; None: ``$STREAMEQA_ROOT``, else ``./streameqa``)."""

    BENCHMARK.require_task(task_id)
    if gaze not in GAZE_MODES:
        raise StreamGazeError(f"unknown StreamEQA gaze mode {gaze!r}; expected one of {', '.join(GAZE_MODES)}")
    data = open_dataset(dataset, benchmark=BENCHMARK, build_hint="import it with `streamgaze import streameqa "
                                                                 "RELEASE_DIR --videos DIR --out ROOT --version X.Y.Z`")
    rows = [dict(r) for r in (data.load_task(task_id) if rows is None else rows)]
    if gaze != "none":
        without = sorted({r["video_id"] for r in rows if not r["overlay_path"]})
        if without:
            raise StreamGazeError(f"the gaze extension variant ({gaze}) needs Aria gaze for every video; "
                                  f"{len(without)} video(s) have none (e.g. {without[0]}): import with "
                                  "--gaze-dir, or run the plain tasks", data.path)
    fields = {"benchmark": NAME, "dataset_root": data.root, "gaze": gaze,
              **document_settings(BENCHMARK, settings), "proxy": "", "checkpoint_index": -1}
    docs = [{**row, **fields} for row in rows]
    if gaze == "text":
        for doc in docs:
            doc["gaze_points"] = window_gaze_points(data, doc)
    return docs


def window_gaze_points(dataset: DatasetHandle, doc: Mapping) -> list[list[float]]:
    """[time, x, y] of the text variant: for each time ``window_end - k`` s (k = 0, 1, ...) inside the
    window, the last valid gaze sample at or before it (none after the query time), oldest first."""
    import numpy as np

    from ...evaluation import video_gaze_track

    track = video_gaze_track(dataset, doc["video_id"], 1, 1)
    if track is None:
        return []
    ok = track.valid
    tv, xv, yv = track.t[ok], track.x[ok], track.y[ok]
    start, end = float(doc["window_start"]), float(doc["window_end"])
    n = int(np.floor((end - start) / TEXT_GAZE_STEP_S + 1e-9)) + 1
    at = end - TEXT_GAZE_STEP_S * np.arange(n)[::-1]  # oldest first, the last one at the query time
    idx = np.searchsorted(tv, at + 1e-9, side="right") - 1  # the last valid sample at or before each time
    keep = (idx >= 0) & (tv[np.maximum(idx, 0)] >= at - TEXT_GAZE_STEP_S) if len(tv) else np.zeros(n, bool)
    return [[float(tv[i]), float(xv[i]), float(yv[i])] for i in idx[keep]]


def doc_visuals(doc: Mapping, cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The window clip (original video, or the gaze overlay in the visual variant), from the shared
    clip cache: model-ready where the run chose it (``model_ready``)."""
    from ...evaluation import window_clip

    return [str(window_clip(dict(doc), cache_dir))]


def doc_prompt(doc: Mapping) -> str:
    points = [tuple(p) for p in doc.get("gaze_points") or []]
    return question_prompt(doc["question"], doc["options"], gaze=doc["gaze"], mode=doc["prompt_mode"],
                           gaze_points=points, window_start=float(doc["window_start"]))


def doc_target(doc: Mapping) -> str:
    return doc["answer"]


def official_normalise(response, options: Sequence[str]) -> str | None:
    """The official ``normalize_choice`` (``streameqa/prompts.py``), with the options as the official
    prompt shows them ("A. text"): the stripped response equal to a letter or starting with "X." / "X)";
    else the letter of the first option whose "X. text" line *contains* the response; else the first
    whitespace-separated token that, stripped of `` .,:;()[]{}``, is A-D; else None."""
    if response is None:
        return None
    text = str(response).strip()
    for letter in LETTERS[:4]:
        if text == letter or text.startswith(letter + ".") or text.startswith(letter + ")"):
            return letter
    for i, opt in enumerate(options):
        line = f"{LETTERS[i]}. {opt}"
        if text and text in line:
            return line[0]
    for token in text.replace("\n", " ").split():
        token = token.strip(" .,:;()[]{}")
        if token in LETTERS[:4]:
            return token
    return None


def official_correct(response, answer: str, options: Sequence[str]) -> bool:
    """The official scoring (``infer_online.py`` + ``metrics.py``): the stored prediction is the
    normalised choice, else the raw response; it is correct when its first character is the answer
    letter. An empty or missing response is wrong here (the official code leaves it out)."""
    stored = official_normalise(response, options) or response
    return bool(stored) and str(stored)[0] == answer


def score_doc(doc: Mapping, response: str) -> dict:
    """The per-sample record: ids, level / code / direction, the window's context (the time-window
    policy the number depends on), raw response, our parse, the official verdict, and ``correct`` by
    the run's prompt mode."""
    response = response or ""
    parsed = scoring.parse_choice(response, doc["options"])
    official = official_correct(response, doc["answer"], doc["options"])
    correct = official if doc["prompt_mode"] == "reference" else parsed == doc["answer"]
    return {"benchmark": NAME, "question_id": doc["question_id"], "task": doc["task"], "level": doc["task"],
            "task_code": doc["task_code"], "direction": doc["direction"], "video_id": doc["video_id"],
            "short_window": bool(doc["short_window"]), "context_s": float(doc["context_s"]),
            "checkpoint_index": -1, "response": response,
            "answer": doc["answer"], "parsed": parsed, "official": bool(official), "correct": bool(correct),
            "gaze": doc["gaze"], **record_settings(BENCHMARK, doc), "score": 100.0 if correct else 0.0}


def task_metrics(records: list[dict]) -> dict:
    """Accuracy of a set of records (fractions), unparsed answers counted as wrong."""
    return scoring.mc_metrics((r["correct"] for r in records), sum(r["parsed"] is None for r in records))


def _acc(records: list[Mapping]) -> float | None:
    return sum(bool(r["correct"]) for r in records) / len(records) if records else None


def _macro(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def table_breakdown(records: Iterable[Mapping]) -> dict:
    """Accuracies (fractions; None where a cell has no question) in the supplement's layout:

    ``codes`` {code: acc}, ``n`` {code: count}; per level ``levels`` {level: {"micro", "macro", "n",
    direction: {"micro", "macro", "n"}}} (micro = over questions, macro = mean of the codes' accuracies);
    ``directions`` {direction: {"micro", "macro", "n"}} over all levels; ``context_s`` (the window
    contexts met, normally [64.0]); ``overall`` {"micro", "macro"
    (mean of the 42 codes), "n"}; ``short_window`` {"n", "accuracy"} and ``without_short`` (the
    official subset: windows over 1 s only) {"micro", "n"}; ``official`` (the official rule's micro
    accuracy)."""
    recs = [dict(r) for r in records]
    by_code: dict[str, list[dict]] = {}
    for r in recs:
        by_code.setdefault(r["task_code"], []).append(r)
    codes = {s.code: _acc(by_code.get(s.code, [])) for s in SUBTASKS}

    def cell(level: str | None, direction: str | None) -> dict:
        subs = subtasks(level, direction)
        items = [r for s in subs for r in by_code.get(s.code, [])]
        return {"micro": _acc(items), "macro": _macro(codes[s.code] for s in subs), "n": len(items)}

    levels = {lv: {**cell(lv, None), **{d: cell(lv, d) for d in DIRECTIONS}} for lv in LEVELS}
    short = [r for r in recs if r.get("short_window")]
    rest = [r for r in recs if not r.get("short_window")]
    contexts = sorted({float(r["context_s"]) for r in recs if "context_s" in r})
    return {"codes": codes, "n": {s.code: len(by_code.get(s.code, [])) for s in SUBTASKS}, "levels": levels,
            "context_s": contexts,
            "directions": {d: cell(None, d) for d in DIRECTIONS}, "overall": cell(None, None),
            "short_window": {"n": len(short), "accuracy": _acc(short)},
            "without_short": {"micro": _acc(rest), "n": len(rest)},
            "official": (sum(bool(r["official"]) for r in recs) / len(recs)) if recs else None}


@hook
def leaderboard_scores(records: Mapping[str, list[dict]]) -> dict:
    """The leaderboard hook (registry contract): task id -> per-sample records in; out the declared
    columns (:func:`leaderboard_columns`) and the overall, the mean of the three levels' accuracies
    as the paper's reference rows here have it, fractions (None when a level has no question)."""
    cols = leaderboard_columns([r for recs in records.values() for r in recs])
    levels = [cols[lv] for lv in LEVELS]
    return {"columns": cols, "overall": None if None in levels else sum(levels) / len(levels)}


def leaderboard_columns(records: Iterable[Mapping]) -> dict[str, float | None]:
    """Per-sample records -> the declared columns (``LEADERBOARD_COLUMNS``: level and direction
    accuracies over questions, then each task code), fractions (None: no question)."""
    b = table_breakdown(records)
    out = {lv: b["levels"][lv]["micro"] for lv in LEVELS}
    out.update({d: b["directions"][d]["micro"] for d in DIRECTIONS})
    out.update(dict(b["codes"]))
    return out


