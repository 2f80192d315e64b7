"""Time-aware scoring of proactive alerts (GTA, OAA) in streaming mode.

Each proactive question has one *event*: the first fixation on the target (GTA) or its first
appearance (OAA), read from the dataset (:func:`event_time`). A model's alerts on the question are
stream times. With a tolerance ``tol``:

* every alert before the event is *early*: a false positive;
* the first alert at or after the event resolves the question: a *hit* (true positive) when it lies in
  ``[event, event + tol]``; otherwise it is *late*: a false positive, and the event a false negative;
* a question with no alert at or after the event is a *miss*: a false negative;
* alerts after the resolving one are not scored (the user has been alerted).

precision = TP / (TP + FP), recall = TP / (TP + FN) (= hits / questions), F1 their harmonic mean;
a ratio with a zero denominator is 0.0. Latency = first alert at or after the event minus the event,
over the questions that have one (any tolerance): median and 90th percentile (linear interpolation,
``numpy.percentile``'s default), None when no question has one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ....util.errors import StreamGazeError

__all__ = ["TOLERANCES_S", "event_time", "event_end", "question_outcome", "alert_metrics", "tolerance_key"]

TOLERANCES_S: tuple[float, ...] = (1.0, 2.0, 5.0)
_EPS = 1e-6
# metadata keys holding the event, in order of preference (ours, then the official release's)
_EVENT_KEYS = {"gta": ("first_fixation", "fixation_intervals", "first_appearance"),
               "oaa": ("first_appearance", "appearance_intervals")}


def tolerance_key(tol: float) -> str:
    return f"{float(tol):g}"


def event_time(row: Mapping) -> float:
    """The event of a proactive row: ``metadata.first_fixation`` (GTA) / ``first_appearance`` (OAA),
    or the official release's equivalents (``fixation_intervals[0].start``, ``appearance_intervals``,
    ``MM:SS`` strings). Raises StreamGazeError naming the question when the row has none."""
    from ..release_parse import parse_time

    task = row.get("task")
    meta = _metadata(row)
    for key in _EVENT_KEYS.get(task, ()):
        value = meta.get(key)
        if isinstance(value, list):
            value = value[0].get("start") if value and isinstance(value[0], Mapping) else None
        if value is None or value == "":
            continue
        try:
            return parse_time(value)
        except ValueError:
            continue
    raise StreamGazeError(f"question {row.get('question_id', '?')!r} ({task}) has no event time in its metadata "
                          f"(looked for {', '.join(_EVENT_KEYS.get(task, ('-',)))})")


def event_end(row: Mapping, start: float) -> float:
    """The end ``t2`` of a proactive row's event ``[t1, t2]`` (``t1`` = ``start``, :func:`event_time`): the
    official release's interval end (``fixation_intervals[0].end`` / ``appearance_intervals[0].end``); for a
    GTA row of ours, the end of the row's fixation that starts at ``t1``; else ``t1`` (our OAA rows record
    only the first appearance)."""
    from ..release_parse import parse_time

    meta = _metadata(row)
    for key in _EVENT_KEYS.get(row.get("task"), ()):
        value = meta.get(key)
        if isinstance(value, list) and value and isinstance(value[0], Mapping) and value[0].get("end") not in (None, ""):
            try:
                return max(start, parse_time(value[0]["end"]))
            except ValueError:
                continue
    if row.get("task") == "gta":
        ends = [float(f["end"]) for f in row.get("fixations") or ()
                if isinstance(f, Mapping) and abs(float(f["start"]) - start) <= 1e-3]
        if ends:
            return max(start, max(ends))
    return start


def _metadata(row: Mapping) -> Mapping:
    meta = row.get("metadata") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if meta.strip() else {}
        except json.JSONDecodeError:
            meta = {}
    return meta if isinstance(meta, Mapping) else {}


def question_outcome(alerts: Sequence[float], event: float, tol: float) -> tuple[int, int, int]:
    """(tp, fp, fn) of one question's alerts (see the module docstring)."""
    fp = 0
    for a in sorted(alerts):
        if a < event - _EPS:
            fp += 1
            continue
        if a <= event + tol + _EPS:
            return 1, fp, 0
        return 0, fp + 1, 1
    return 0, fp, 1


def _latency(alerts: Sequence[float], event: float) -> float | None:
    after = [a for a in alerts if a >= event - _EPS]
    return max(0.0, min(after) - event) if after else None


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def alert_metrics(items: Iterable[tuple[float, Sequence[float]]],
                  tolerances: Sequence[float] = TOLERANCES_S) -> dict:
    """Metrics of (event time, alert times) pairs, one per question: per tolerance precision,
    recall, F1 and the counts; latency median / p90; question and alert counts."""
    items = [(float(e), sorted(float(a) for a in alerts)) for e, alerts in items]
    out: dict = {"n": len(items), "n_alerts": sum(len(a) for _, a in items), "tolerances": {}}
    for tol in tolerances:
        tp = fp = fn = 0
        for event, alerts in items:
            a, b, c = question_outcome(alerts, event, tol)
            tp, fp, fn = tp + a, fp + b, fn + c
        p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        out["tolerances"][tolerance_key(tol)] = {"precision": p, "recall": r, "f1": _ratio(2 * p * r, p + r),
                                                 "tp": tp, "fp": fp, "fn": fn}
    lat = [v for v in (_latency(a, e) for e, a in items) if v is not None]
    out["latency"] = {"n": len(lat), "median": float(np.median(lat)) if lat else None,
                      "p90": float(np.percentile(lat, 90)) if lat else None}
    return out

