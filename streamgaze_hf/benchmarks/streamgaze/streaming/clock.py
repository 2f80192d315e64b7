"""The real-time clock (``stream-eval --realtime``, docs/streaming.md): what a live assistant whose model
takes time to answer would have said, replayed from one response log.

A ``--realtime`` run polls as usual (every look of the unlimited-time run is in its log) and records with
each response the seconds its model call took: measured, or the ``--seconds-per-call`` declared for a
reproducible run. The clock then replays each video's calls with one model that does one call at a time:

* a call started at ``t`` is delivered at ``t + seconds``; the model is busy until then;
* a poll (a proactive look) that falls while the model is busy is skipped: the model's next look is the
  first later poll at which it is free (polls of several questions at the same moment: the question looked
  at least recently first, then the log's order);
* a multiple-choice question asked while the model is busy waits for it, its window still ending at its
  query time, and is answered before any later poll;
* an alert counts at its delivery time.

A clip model answers a look from the window ending at the look alone, so each look the clock keeps has
the answer the log recorded at that time. Reported beside the unlimited-time scores: the real-time factor
(the model seconds of every call of the log per second of video streamed), the model seconds per response
(median, p90, mean) and the alert scores under the clock.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Sequence

from ....util.errors import StreamGazeError
from ..tasks import TASK_IDS, get_task
from .polling import ClipModel, ClipRequest

__all__ = ["replay", "realtime_alerts", "realtime_section", "TimedClipModel", "parse_seconds_per_call"]

_EPS = 1e-6


def parse_seconds_per_call(value) -> float | None:
    """None (measure each call) or a declared positive number of seconds."""
    if value is None or value == "":
        return None
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise StreamGazeError(f"--seconds-per-call {value!r}: expected a number of seconds") from None
    if not (s > 0 and math.isfinite(s)):
        raise StreamGazeError(f"--seconds-per-call must be > 0 seconds, got {value!r}")
    return s


def _is_poll(rec: dict) -> bool:
    return get_task(rec["task"]).checkpointed


def replay(records: Sequence[dict]) -> list[tuple[dict, float, float]]:
    """(record, start, delivery) of the calls one video's model makes under the clock (see the module
    docstring); ``records``: the video's log in its order, each with its ``seconds``."""
    free = -math.inf
    waiting: deque[dict] = deque()
    last_look: dict[str, float] = {}
    done: list[tuple[dict, float, float]] = []

    def run(rec: dict, start: float) -> None:
        nonlocal free
        sec = rec.get("seconds")
        if not isinstance(sec, (int, float)) or not sec >= 0:
            raise StreamGazeError(f"video {rec['video_id']}: response to {rec['question_id']!r} at "
                                  f"{rec['stream_time']} s has no model seconds (was the run made with --realtime?)")
        free = start + float(sec)
        done.append((rec, start, free))

    def drain(now: float) -> None:  # waiting questions, each as soon as the model is free after its time
        while waiting and free <= now + _EPS:
            rec = waiting.popleft()
            run(rec, max(free, float(rec["stream_time"])))

    order = {id(r): i for i, r in enumerate(records)}
    ticks: dict[float, list[dict]] = {}
    for r in records:
        ticks.setdefault(round(float(r["stream_time"]), 6), []).append(r)
    for t in sorted(ticks):
        drain(t)
        group = ticks[t]
        waiting.extend(r for r in group if not _is_poll(r))
        drain(t)
        polls = sorted((r for r in group if _is_poll(r)),
                       key=lambda r: (last_look.get(r["question_id"], -math.inf), order[id(r)]))
        for r in polls:
            if free <= t + _EPS:
                run(r, t)
                last_look[r["question_id"]] = t
    drain(math.inf)
    return done


def realtime_alerts(records: Sequence[dict]) -> tuple[dict[str, dict[str, list[float]]], int]:
    """task -> question id -> alert delivery times under the clock (every proactive question of the log,
    maybe []), and the number of calls the clock keeps; ``records``: a whole run's log, videos in order."""
    out: dict[str, dict[str, list[float]]] = {t: {} for t in TASK_IDS if get_task(t).checkpointed}
    by_video: dict[str, list[dict]] = {}
    for r in records:
        by_video.setdefault(r["video_id"], []).append(r)
        if r["task"] in out:
            out[r["task"]].setdefault(str(r["question_id"]), [])
    looks = 0
    for recs in by_video.values():
        for rec, _start, delivered in replay(recs):
            looks += 1
            if rec["task"] in out and rec["alert"]:
                out[rec["task"]][str(rec["question_id"])].append(round(delivered, 6))
    return {t: {q: sorted(v) for q, v in sorted(qs.items())} for t, qs in out.items()}, looks


def realtime_section(run) -> dict | None:
    """The real-time data of a ``--realtime`` run (a :class:`~.results.StreamRunOutput`; None for another
    run): the declared seconds per call (None: measured), the seconds of every call of the log, the seconds
    of video streamed, the number of calls the clock keeps and the alert times under the clock."""
    setting = run.settings.get("realtime")
    if setting is None:
        return None
    durations = run.meta.get("durations") or {}
    missing = [v for v in run.done if v not in durations]
    if missing:
        raise StreamGazeError(f"the run file has no duration of video {missing[0]!r} (a --realtime run records them)",
                              run.path)
    alerts, looks = realtime_alerts(run.records)
    return {"seconds_per_call": None if setting == "measured" else float(setting),
            "stream_seconds": round(sum(float(durations[v]) for v in run.done), 6),
            "call_seconds": [float(r["seconds"]) for r in run.records], "looks": looks, "alerts": alerts}


class TimedClipModel(ClipModel):
    """Wraps a clip model and keeps the seconds of each call by (question id, checkpoint index, time):
    measured around the call, or the declared ``seconds``."""

    def __init__(self, inner: ClipModel, seconds: float | None = None) -> None:
        self.inner, self.seconds = inner, seconds
        self.needs_frames = inner.needs_frames
        self.taken: dict[tuple[str, int, float], float] = {}

    def answer(self, request: ClipRequest) -> str:
        t0 = time.perf_counter()
        text = self.inner.answer(request)
        took = self.seconds if self.seconds is not None else time.perf_counter() - t0
        self.taken[(request.question_id, request.checkpoint_index, round(float(request.time), 6))] = round(took, 6)
        return text

    def seconds_of(self, rec: dict) -> float:
        return self.taken[(rec["question_id"], int(rec["checkpoint_index"]), round(float(rec["stream_time"]), 6))]
