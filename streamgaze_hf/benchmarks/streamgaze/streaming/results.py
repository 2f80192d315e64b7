"""Read a ``stream-eval`` output directory and score it.

Two sets of numbers come out of one run:

* the **checkpoint protocol** (the paper's numbers, the main leaderboard table): multiple-choice
  answers given at their query time, and proactive responses tagged with a checkpoint index,
  scored with :func:`~streamgaze_hf.submission.answer_key.score_responses` exactly as an lmms-eval run is;
* the **streaming** alert metrics of GTA and OAA (:mod:`.metrics`): every alert with its stream time
  against the dataset's event time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ....submission import load_answer_key, score_responses
from ....util.errors import StreamGazeError
from .. import BENCHMARK
from ..tasks import TASK_IDS, get_task
from .clock import realtime_section
from .metrics import TOLERANCES_S, alert_metrics, event_end, event_time
from .timing import Event, timing_scores

__all__ = ["StreamRunOutput", "read_stream_run", "checkpoint_responses", "alerts_by_question",
           "stream_scores", "realtime_scores", "proactive_events", "key_events", "compute_metrics", "PROACTIVE_TASKS", "RUN_FILE", "video_file"]

RUN_FILE = "stream_run.json"  # the run's settings, plan and video list (written by the runner)
PROACTIVE_TASKS = tuple(t for t in TASK_IDS if get_task(t).checkpointed)
_RECORD_FIELDS = ("video_id", "question_id", "task", "query_time", "stream_time", "checkpoint_index", "response",
                  "alert", "late")


@dataclass
class StreamRunOutput:
    path: Path
    meta: dict
    records: list[dict]  # every video's records, videos in order
    done: list[str]  # videos written

    @property
    def missing_videos(self) -> list[str]:
        return [v for v in self.meta.get("videos", []) if v not in set(self.done)]

    @property
    def settings(self) -> dict:
        return self.meta.get("settings", {})


def video_file(out: Path, video_id: str) -> Path:
    return out / "videos" / f"{video_id}.jsonl"


def is_stream_run(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / RUN_FILE).is_file()


def read_stream_run(path: str | os.PathLike[str]) -> StreamRunOutput:
    """The run file and every written video's records (malformed lines: StreamGazeError with the line)."""
    out = Path(path)
    run_file = out / RUN_FILE
    try:
        meta = json.loads(run_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StreamGazeError(f"not a stream-eval output directory (no {RUN_FILE})", out) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"unreadable run file ({exc})", run_file) from None
    records, done = [], []
    for vid in meta.get("videos", []):
        f = video_file(out, vid)
        if not f.is_file():
            continue
        done.append(vid)
        for lineno, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise StreamGazeError(f"line {lineno}: malformed JSON ({exc.msg})", f) from None
            if not isinstance(rec, dict) or any(k not in rec for k in _RECORD_FIELDS):
                raise StreamGazeError(f"line {lineno}: not a stream-eval record (needs {', '.join(_RECORD_FIELDS)})", f)
            records.append(rec)
    return StreamRunOutput(out, meta, records, done)


def checkpoint_responses(records: list[dict]) -> dict[tuple[str, int], str]:
    """(question id, checkpoint index) -> raw response for the checkpoint protocol: a multiple-choice
    answer given at its query time (the first; late ones never count), a proactive response tagged
    with a checkpoint and given at or before its time (the first per checkpoint)."""
    out: dict[tuple[str, int], str] = {}
    for r in records:
        proactive = get_task(r["task"]).checkpointed
        cp = int(r["checkpoint_index"])
        if r["late"] or (proactive and cp < 0) or (not proactive and cp != -1):
            continue
        out.setdefault((str(r["question_id"]), cp), str(r["response"]))
    return out


def alerts_by_question(records: list[dict]) -> dict[str, dict[str, list[float]]]:
    """task -> question id -> sorted alert times (every proactive question the run asked, maybe [])."""
    out: dict[str, dict[str, list[float]]] = {t: {} for t in PROACTIVE_TASKS}
    for r in records:
        if r["task"] not in out:
            continue
        times = out[r["task"]].setdefault(str(r["question_id"]), [])
        if r["alert"]:
            times.append(float(r["stream_time"]))
    return {t: {q: sorted(v) for q, v in sorted(qs.items())} for t, qs in out.items()}


def proactive_events(docs, rows: dict[str, dict] | None = None) -> dict[str, dict[str, Event]]:
    """task -> question id -> :class:`~.timing.Event` (query time, event start and end), from evaluation
    documents (an iterable); the end from the question's dataset row in ``rows`` (question id -> row, with
    its whole fixation list) when given, else from its documents."""
    best: dict[tuple[str, str], dict] = {}
    for d in docs:
        if d["task"] in PROACTIVE_TASKS:
            best.setdefault((d["task"], d["question_id"]), d)
    out: dict[str, dict[str, Event]] = {t: {} for t in PROACTIVE_TASKS}
    for (task, qid), d in best.items():
        start = event_time(d)
        out[task][qid] = Event(float(d["query_time"]), start, event_end((rows or {}).get(qid, d), start))
    return out


def key_events(key) -> dict[str, dict[str, Event]]:
    """The events of every proactive question of an answer key's dataset (rows read for the event ends)."""
    rows = {r["question_id"]: dict(r) for t in PROACTIVE_TASKS if key.docs.get(t) for r in key.dataset.load_task(t)}
    return proactive_events((d for t in PROACTIVE_TASKS for d in key.docs[t].values()), rows)


def stream_scores(events: dict[str, dict[str, Event]], alerts: dict[str, dict[str, list[float]]],
                  poll: str = "") -> dict:
    """Alert metrics (:mod:`.metrics`) and the field's timing scores (:mod:`.timing`) per proactive task over
    every question of the dataset (a question the run never asked has no alerts: a miss). ``poll``: the run's
    poll setting (StreamingBench's protocol is read from a ``--poll 1`` log only)."""
    out = {}
    for t in PROACTIVE_TASKS:
        items = [(e, alerts.get(t, {}).get(q, [])) for q, e in sorted(events[t].items())]
        out[t] = {**alert_metrics([(e.start, a) for e, a in items], TOLERANCES_S),
                  **timing_scores(items, sb_protocol=is_one_second_poll(poll))}
    return out


def is_one_second_poll(poll) -> bool:
    try:
        return float(poll) == 1.0
    except (TypeError, ValueError):
        return False


def realtime_scores(section: dict, events: dict, poll: str) -> dict:
    """The scores of a run's real-time section (``call_seconds``, ``stream_seconds``, ``alerts``): the
    real-time factor, the model seconds per response and the alert scores under the clock."""
    secs = np.asarray(section["call_seconds"], dtype=float)
    stream = float(section["stream_seconds"])
    per = {"n": int(secs.size), "median": float(np.median(secs)) if secs.size else None,
           "p90": float(np.percentile(secs, 90)) if secs.size else None,
           "mean": float(secs.mean()) if secs.size else None}
    return {"rtf": float(secs.sum()) / stream if stream > 0 else None, "response_seconds": per,
            "streaming": stream_scores(events, section["alerts"], poll)}


def compute_metrics(run: StreamRunOutput, root: str | os.PathLike[str] | None) -> dict:
    """Checkpoint-protocol scores and streaming alert metrics of a run against the dataset at ``root``."""
    st = run.settings
    key = load_answer_key(root, st.get("gaze", "visual"), BENCHMARK)
    responses = {k: v for k, v in checkpoint_responses(run.records).items()
                 if key.problem(get_task_of(key, k[0]), *k) is None}
    rescored = score_responses(key, responses, st.get("prompt_mode", "default"), float(st.get("fps", 0.0)))
    events = key_events(key)
    poll = str(st.get("poll", ""))
    out = {"checkpoint": rescored.scores, "streaming": stream_scores(events, alerts_by_question(run.records), poll),
           "videos": {"done": len(run.done), "total": len(run.meta.get("videos", []))}}
    section = realtime_section(run)
    if section is not None:
        out["realtime"] = {**realtime_scores(section, events, poll),
                           **{k: section[k] for k in ("seconds_per_call", "stream_seconds", "looks")},
                           "calls": len(section["call_seconds"])}
    return out


def get_task_of(key, qid: str) -> str:
    owner = key.task_of.get(qid)
    if owner is None:
        raise StreamGazeError(f"the run answers question {qid!r}, which is not in the dataset at {key.root}")
    return owner
