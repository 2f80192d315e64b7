"""The field's timing scores of proactive alerts, from the same alert times as :mod:`.metrics`
(docs/streaming.md gives each rule's source).

Per question: its query time ``q``, its event ``[t1, t2]`` (:class:`Event`) and the model's alert times.
The model's *response* is its first alert at or after the query time.

* **StreamingBench** (THUNLP-MT/StreamingBench ``src/data/count.py``, proactive branch): time-correct when
  ``-2 <= response - t1 <= 2``; a question without a response is wrong. ``protocol=True`` reads the log
  as StreamingBench's polling loop (``src/benchmark/StreamingBenchProactive.py``) would have run: looks at
  ``q + 1, q + 2, ...`` up to ``t1 + 4``, the first "yes" ends the dialogue, no "yes" ends it at the last
  look. From a ``--poll 1`` log (looks at ``q, q + 1, ...``) that is the first alert at ``q + k``
  (``k >= 1``) up to ``t1 + 4``.
* **StreamGaze** (daeunni/StreamGaze ``src/utils/timing_accuracy.py``, ``TimingAccuracyEvaluator``):
  time-accurate when ``t1 <= response <= t2 + 3``.
* **tolerance curve**: F1 of :func:`~.metrics.alert_metrics`' rule at tolerances 0, 0.5, ..., 10 s and
  its normalised area (trapezoids / 10 s, in [0, 1]).
* **duplicate-alert rate**: alerts after the first alert at or after the event (the user was already
  alerted) over all alerts; None when there is no alert.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["Event", "first_response", "streamingbench_correct", "streamgaze_correct", "duplicate_count",
           "CURVE_TOLERANCES_S", "timing_scores", "SB_TOLERANCE_S", "SB_POLL_END_S", "SG_MARGIN_S"]

SB_TOLERANCE_S = 2.0  # StreamingBench: |last_time - ground_truth_time| <= 2
SB_POLL_END_S = 4.0  # StreamingBench: polls up to ground_truth_time + 4
SG_MARGIN_S = 3.0  # StreamGaze: TimingAccuracyEvaluator(time_margin_T=3.0)
CURVE_TOLERANCES_S: tuple[float, ...] = tuple(k * 0.5 for k in range(21))  # 0, 0.5, ..., 10 s
_EPS = 1e-6


class Event(NamedTuple):
    """A proactive question's query time and event interval (seconds on the video clock)."""

    query: float
    start: float
    end: float


def first_response(alerts: Sequence[float], query: float) -> float | None:
    """The first alert at or after the query time (None: the model never responded)."""
    after = [a for a in alerts if a >= query - _EPS]
    return min(after) if after else None


def _sb_protocol_response(alerts: Sequence[float], query: float, gt: float) -> float | None:
    """StreamingBench's loop over a 1 s poll log: the first alert at q + k (k >= 1) up to gt + 4."""
    for a in sorted(alerts):
        k = a - query
        if k < 1 - _EPS or abs(k - round(k)) > 1e-3:
            continue
        return a if a <= gt + SB_POLL_END_S + _EPS else None
    return None


def streamingbench_correct(alerts: Sequence[float], event: Event, *, protocol: bool = False) -> bool:
    """StreamingBench's time rule (``-2 <= t_answer - t_gt <= 2``) on one question's alerts."""
    t = _sb_protocol_response(alerts, event.query, event.start) if protocol else first_response(alerts, event.query)
    return t is not None and -SB_TOLERANCE_S - _EPS <= t - event.start <= SB_TOLERANCE_S + _EPS


def streamgaze_correct(alerts: Sequence[float], event: Event, margin: float = SG_MARGIN_S) -> bool:
    """StreamGaze's window rule: the response lies in ``[t1, t2 + margin]``."""
    t = first_response(alerts, event.query)
    return t is not None and event.start - _EPS <= t <= event.end + margin + _EPS


def duplicate_count(alerts: Sequence[float], event: Event) -> int:
    """Alerts after the first one at or after the event."""
    return max(0, sum(1 for a in alerts if a >= event.start - _EPS) - 1)


def timing_scores(items: Sequence[tuple[Event, Sequence[float]]], *, sb_protocol: bool) -> dict:
    """The field's timing scores of (event, alert times) pairs (see the module docstring).
    ``sb_protocol``: also StreamingBench's polling protocol (meaningful for a ``--poll 1`` log only;
    else its value is None)."""
    from .metrics import alert_metrics, tolerance_key

    n = len(items)
    sb = sum(streamingbench_correct(a, e) for e, a in items)
    sbp = sum(streamingbench_correct(a, e, protocol=True) for e, a in items) if sb_protocol else None
    sg = sum(streamgaze_correct(a, e) for e, a in items)
    n_alerts = sum(len(a) for _, a in items)
    dups = sum(duplicate_count(a, e) for e, a in items)
    by_tol = alert_metrics([(e.start, a) for e, a in items], CURVE_TOLERANCES_S)["tolerances"]
    f1 = [by_tol[tolerance_key(t)]["f1"] for t in CURVE_TOLERANCES_S]
    span = CURVE_TOLERANCES_S[-1] - CURVE_TOLERANCES_S[0]
    area = float(np.sum((np.array(f1[1:]) + np.array(f1[:-1])) / 2 * np.diff(CURVE_TOLERANCES_S))) / span
    curve = {tolerance_key(t): v for t, v in zip(CURVE_TOLERANCES_S, f1)}

    def frac(k):
        return None if k is None else (k / n if n else 0.0)

    return {"streamingbench": {"correct": sb, "accuracy": frac(sb)},
            "streamingbench_protocol": {"correct": sbp, "accuracy": frac(sbp)},
            "streamgaze_window": {"correct": sg, "accuracy": frac(sg)},
            "f1_curve": {"f1": curve, "area": area},
            "duplicates": {"n": dups, "rate": dups / n_alerts if n_alerts else None}}
