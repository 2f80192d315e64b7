"""``streamgaze stream-eval``: run a streaming model over a dataset root, one video at a time.

Each video is decoded once, in order (:func:`~streamgaze_hf.video.frame_reader.iter_frames`), the
overlay video in the ``visual`` gaze mode and the original otherwise, and pushed to the model through
:func:`~.interface.run_stream` at the chosen frame rate (``fps`` 0 = every frame; otherwise the first
frame of each ``1 / fps`` slot of the video clock), with the questions of every selected task at their
query times. The model is never handed a frame after the stream time.

Output directory::

    OUT/stream_run.json          dataset (root, version, manifest sha256), settings, tasks, videos
    OUT/videos/<video_id>.jsonl  every response of one video with its stream time (written when the
                                 video is complete: a rerun resumes with the videos not yet written)
    OUT/metrics.json             checkpoint-protocol scores and time-aware alert metrics (when complete)

A rerun with the same dataset and settings resumes; different ones are refused (choose a new --out).
``streamgaze submit OUT --dataset ROOT ...`` turns a complete run into a submission.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ....dataset import manifest_digest, open_dataset
from ....evaluation import prompts
from ....gaze import GazeTrack
from ....util.errors import StreamGazeError
from ....util.fsutil import write_text_atomic
from ....util.provenance import redact_model_args
from .. import BENCHMARK, BUILD_HINT, evaluation
from ..tasks import TASK_IDS, get_task
from .interface import (
    GAZE_SAMPLE_MODES,
    Frame,
    GazeSamples,
    Question,
    StreamContext,
    StreamingModel,
    run_stream,
)
from .results import RUN_FILE, compute_metrics, read_stream_run, video_file

if TYPE_CHECKING:
    from ....evaluation import RunSettings

__all__ = ["StreamPlan", "VideoPlan", "load_plan", "run_plan", "stream_eval", "frames_of", "RUN_FILE",
           "METRICS_FILE", "RUN_FORMAT"]

METRICS_FILE = "metrics.json"
RUN_FORMAT = 1


@dataclass
class VideoPlan:
    """One video's stream: source file, geometry, questions, and what the prompts are built from."""

    video_id: str
    source: Path
    width: int
    height: int
    fps: float
    duration: float
    questions: list[Question]
    docs: dict[tuple[str, int], dict]  # (question id, checkpoint index) -> evaluation document
    rows: dict[str, dict]  # proactive question id -> dataset row (full fixation list)
    track: GazeTrack | None

    def prompt_at(self, question_id: str, time: float) -> str:
        """The dataset's prompt of a question at ``time`` (multiple choice: its query-time prompt;
        proactive: the checkpoint prompt with the fixations known at ``time``, equal to the
        checkpoint protocol's prompt at a checkpoint time)."""
        return evaluation.doc_prompt(self.doc_at(question_id, time))

    def doc_at(self, question_id: str, time: float, checkpoint: int = -1) -> dict:
        """The evaluation document of a question asked at ``time``: multiple choice: its document; proactive:
        the document of ``checkpoint`` when it is asked at that checkpoint's time, else the checkpoint
        document of the window ``[0, time]`` with the fixations known at ``time``."""
        if question_id not in self.rows:
            return self.docs[(question_id, -1)]
        doc = self.docs.get((question_id, checkpoint))
        if doc is not None and abs(float(doc["window_end"]) - time) <= 1e-6:
            return doc
        base = self.docs[(question_id, 0)]
        return {**base, "window_end": time, "checkpoint_time": time,
                "fixations": evaluation.clip_fixations(self.rows[question_id]["fixations"], time, self.track)}


@dataclass
class StreamPlan:
    root: Path
    version: str
    manifest_sha256: str
    gaze: str
    prompt_mode: str
    tasks: tuple[str, ...]
    videos: dict[str, VideoPlan] = field(default_factory=dict)

    @property
    def docs(self) -> dict[tuple[str, int], dict]:
        return {k: d for v in self.videos.values() for k, d in v.docs.items()}


def load_plan(root: str | os.PathLike[str] | None, gaze: str = "visual", prompt_mode: str = "default",
              tasks: tuple[str, ...] | None = None, settings: RunSettings | None = None,
              limit: int | None = None) -> StreamPlan:
    """Questions and prompt sources of every video of the dataset at ``root`` (checked up front);
    ``settings``: the documents' run settings (None: ``settings.given``; an lmms-eval wrapper's names the
    frames it samples, ``RunSettings.model``); ``limit``: only the first questions of each task (a quick run,
    as lmms-eval's ``--limit``)."""
    if limit is not None and limit < 1:
        raise StreamGazeError(f"--limit must be >= 1, got {limit}")
    if gaze not in evaluation.GAZE_VARIANTS.values():
        raise StreamGazeError(f"unknown gaze mode {gaze!r}; expected one of "
                              f"{', '.join(evaluation.GAZE_VARIANTS.values())}")
    if prompt_mode not in prompts.PROMPT_MODES:
        raise StreamGazeError(f"unknown prompt mode {prompt_mode!r}; expected one of {', '.join(prompts.PROMPT_MODES)}")
    for t in tasks or ():
        if t not in TASK_IDS:
            raise StreamGazeError(f"unknown task {t!r}; tasks are {', '.join(TASK_IDS)}")
    data = open_dataset(root, benchmark=BENCHMARK, build_hint=BUILD_HINT)
    path = data.path
    tasks = tuple(tasks or data.nonempty_tasks())  # asked for by name, an empty task is an error (load_task)
    plan = StreamPlan(path, data.version, manifest_digest(path), gaze, prompt_mode, tasks)
    geometry = evaluation.video_geometry(data)
    docs_by_video: dict[str, dict[tuple[str, int], dict]] = {}
    rows: dict[str, dict] = {}
    for task_id in tasks:
        task_rows = data.load_task(task_id)
        if limit is not None:
            task_rows = task_rows.select(range(min(limit, len(task_rows))))
        for doc in evaluation.load_docs(task_id, gaze, data, rows=task_rows, settings=settings):
            doc["prompt_mode"] = prompt_mode
            docs_by_video.setdefault(doc["video_id"], {})[(doc["question_id"], int(doc["checkpoint_index"]))] = doc
        if get_task(task_id).checkpointed:
            rows.update({r["question_id"]: dict(r) for r in task_rows})
    tracks = evaluation.gaze_tracks(data, set(docs_by_video), geometry)
    for vid in sorted(docs_by_video):
        docs = docs_by_video[vid]
        g = geometry.get(vid)
        if g is None:
            raise StreamGazeError(f"video {vid!r} has questions but no row in the videos config", path)
        any_doc = next(iter(docs.values()))
        rel = any_doc["overlay_path"] if gaze == "visual" else any_doc["video_path"]
        source = data.file(rel)
        if not source.is_file():
            raise StreamGazeError(f"video file of {vid!r} not found", source)
        from ....video import probe_video

        info = probe_video(source)
        vrows = {q: rows[q] for q, cp in docs if cp >= 0}
        plan.videos[vid] = VideoPlan(vid, source, int(g["width"]), int(g["height"]), float(info.fps),
                                     float(info.duration), [], docs, vrows, tracks.get(vid))
        plan.videos[vid].questions = _questions(plan.videos[vid])
    return plan


def _questions(video: VideoPlan) -> list[Question]:
    out = []
    for (qid, cp), doc in sorted(video.docs.items()):
        if cp > 0:
            continue
        t = float(doc["query_time"])
        if cp == -1:
            out.append(Question(qid, doc["task"], t, evaluation.doc_prompt(doc), tuple(doc["options"]),
                                float(doc["window_start"])))
        else:
            cps = tuple(float(c["time"]) for c in doc["checkpoints"])
            out.append(Question(qid, doc["task"], t, video.prompt_at(qid, t), (), 0.0, cps))
    return sorted(out, key=lambda q: (q.time, q.question_id))


def frames_of(video: VideoPlan, fps: float = 0.0, with_gaze: bool = False) -> Iterator[Frame]:
    """The video's frames in order, decoded once: every frame (``fps`` 0) or the first of each
    ``1 / fps`` slot; with the gaze samples since the previous pushed frame when ``with_gaze``."""
    from ....video import iter_frames

    slot = None
    prev_t = -math.inf
    tr = video.track
    for index, t, image in iter_frames(video.source):
        if fps:
            s = math.floor(t * fps + 1e-6)
            if slot is not None and s <= slot:
                continue
            slot = s
        gaze = None
        if with_gaze and tr is not None:
            lo = int(np.searchsorted(tr.t, prev_t, side="right"))
            hi = int(np.searchsorted(tr.t, t + 1e-9, side="right"))
            gaze = GazeSamples(tr.t[lo:hi], tr.x[lo:hi], tr.y[lo:hi], tr.valid[lo:hi])
        elif with_gaze:
            gaze = GazeSamples(*(np.zeros(0) for _ in range(3)), np.zeros(0, bool))
        prev_t = t
        yield Frame(index, t, image, gaze)


def _meta(plan: StreamPlan, settings: dict) -> dict:
    return {"format": RUN_FORMAT,
            "dataset": {"root": str(plan.root), "version": plan.version, "manifest_sha256": plan.manifest_sha256},
            "settings": {"gaze": plan.gaze, "prompt_mode": plan.prompt_mode, **settings},
            "tasks": list(plan.tasks), "videos": sorted(plan.videos)}


def _check_out(out: Path, meta: dict) -> None:
    run_file = out / RUN_FILE
    if run_file.is_file():
        try:
            old = json.loads(run_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise StreamGazeError(f"unreadable run file ({exc}); choose a new --out", run_file) from None
        same = {k: old.get(k) for k in ("format", "settings", "tasks", "videos")} == \
            {k: meta[k] for k in ("format", "settings", "tasks", "videos")}
        same = same and {k: v for k, v in (old.get("dataset") or {}).items() if k != "root"} == \
            {k: v for k, v in meta["dataset"].items() if k != "root"}
        if not same:
            raise StreamGazeError("holds a stream-eval run with another dataset build, model or settings: "
                                  "choose a new --out (or delete it to start over)", out)
        return
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise StreamGazeError("exists and is not a stream-eval output directory (no stream_run.json): "
                              "choose a new --out", out)


def record(video_id: str, sr) -> dict:
    r = sr.response
    return {"video_id": video_id, "question_id": r.question_id, "task": sr.task, "query_time": sr.query_time,
            "stream_time": round(float(sr.stream_time), 6), "checkpoint_index": int(r.checkpoint_index),
            "response": r.text, "alert": sr.alert, "late": bool(sr.late)}


def run_plan(plan: StreamPlan, out: str | os.PathLike[str], model: StreamingModel, *, fps: float = 0.0,
             settings: dict | None = None, progress: bool = True,
             on_video: Callable[[str], None] | None = None, timer=None) -> dict | None:
    """Stream every video of ``plan`` through ``model`` into ``out`` (resuming a previous run);
    return the metrics (also written to ``metrics.json``). ``settings`` (model name, args, poll)
    are recorded and must match on resume. ``timer``: the :class:`~.clock.TimedClipModel` of a
    ``--realtime`` run (each record gets its call's ``seconds``; the run file the videos' durations)."""
    from tqdm import tqdm

    if fps < 0 or not math.isfinite(fps):
        raise StreamGazeError(f"--fps must be >= 0 (0 = every frame), got {fps}")
    out = Path(out)
    meta = _meta(plan, {"fps": float(fps), **(settings or {})})
    if timer is not None:
        meta["durations"] = {vid: round(v.duration, 6) for vid, v in sorted(plan.videos.items())}
    _check_out(out, meta)
    (out / "videos").mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / RUN_FILE, json.dumps(meta, indent=1, sort_keys=True) + "\n")
    todo = [v for v in sorted(plan.videos) if not video_file(out, v).is_file()]
    with_gaze = plan.gaze in GAZE_SAMPLE_MODES
    bar = tqdm(todo, desc="stream-eval", unit="video", disable=not progress,
               initial=len(plan.videos) - len(todo), total=len(plan.videos))
    for vid in bar:
        v = plan.videos[vid]
        ctx = StreamContext(vid, v.width, v.height, v.fps, v.duration, float(fps), plan.gaze, plan.prompt_mode,
                            _prompter=v.prompt_at)
        stamped = run_stream(ctx, model, frames_of(v, fps, with_gaze), v.questions)
        recs = [record(vid, s) for s in stamped]
        for r in recs if timer is not None else ():
            r["seconds"] = timer.seconds_of(r)
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in recs)
        write_text_atomic(video_file(out, vid), text)
        if on_video:
            on_video(vid)
    metrics = compute_metrics(read_stream_run(out), plan.root)
    write_text_atomic(out / METRICS_FILE, json.dumps(metrics, indent=1, sort_keys=True) + "\n")
    return metrics


def stream_eval(root: str | os.PathLike[str] | None, out: str | os.PathLike[str], model: str = "random",
                model_args: str = "", *, gaze: str = "visual", prompt_mode: str = "default", fps: float = 0.0,
                poll: str | float = "checkpoints", tasks: tuple[str, ...] | None = None,
                progress: bool = True, realtime: bool = False, seconds_per_call: float | str | None = None,
                gen_kwargs: str = "", limit: int | None = None) -> dict:
    """Load the plan, build the model (:func:`~.clip_models.make_model`) and run it (``streamgaze stream-eval``).

    Args:
        root: the StreamGaze dataset, a directory or a Hub reference (None: ``$STREAMGAZE_ROOT``, else its
            default directory).
        out: the output directory (see the module docstring); a run of the same dataset and settings there
            is resumed.
        model: ``random``, ``oracle``, ``openai``, ``lmms:<name>`` (an lmms-eval wrapper the model-ready frames
            cover: :mod:`.lmms_model`) or ``module:factory``.
        model_args: ``k=v,k2=v2`` for the model (recorded with secrets redacted; ``lmms:``: lmms-eval's
            ``--model_args``).
        gaze: the gaze mode (which video is streamed and what the prompts say).
        prompt_mode: the prompt mode.
        fps: the frame rate frames are pushed at (0: every frame).
        poll: ``"checkpoints"`` (the proactive questions asked at their checkpoints) or seconds between polls.
        tasks: the task ids to ask (None: every task with questions).
        progress: show a progress bar over the videos.
        realtime: time each model call and report the scores under the real-time clock (:mod:`.clock`)
            beside the unlimited-time ones.
        seconds_per_call: a declared time per call instead of the measured one (implies ``realtime``).
        gen_kwargs: ``lmms:<name>`` only: lmms-eval's ``--gen_kwargs`` over the task's generation settings.
        limit: only the first ``limit`` questions of each task (None: all).

    Returns:
        The run's metrics (also written to ``metrics.json``): ``checkpoint`` scores, ``streaming`` alert
        metrics and ``videos`` (done, total).

    Raises:
        StreamGazeError: before streaming: a bad poll, seconds per call, gaze mode, prompt mode, task, ``fps`` or model
            argument, an unknown model (or ``realtime`` for a model that is not a polled clip model), no
            dataset at ``root``, a missing video, or an ``out`` holding another run or something else; while streaming: a model that fails (e.g. the ``openai``
            model with no usable answer).
    """
    from .clip_models import make_model, parse_model_args
    from .clock import TimedClipModel, parse_seconds_per_call
    from .lmms_model import lmms_choice
    from .polling import PollingAdapter, parse_poll

    poll = parse_poll(poll)
    declared = parse_seconds_per_call(seconds_per_call)
    lmms = lmms_choice(model, model_args, fps, gen_kwargs)
    plan = load_plan(root, gaze, prompt_mode, tasks, settings=lmms.settings() if lmms else None, limit=limit)
    if lmms:
        streaming_model = lmms.model(plan, poll)
    else:
        streaming_model = make_model(model, parse_model_args(model_args), poll, answer_docs=plan.docs)
    optional = {"model_ready": lmms.frames if lmms else "", "gen_kwargs": gen_kwargs, "limit": limit}
    settings = {"model": model, "model_args": redact_model_args(model_args), "poll": str(poll),
                **{k: v for k, v in optional.items() if v}}  # recorded where given: other runs' files unchanged
    timer = None
    if realtime or declared is not None:
        if not isinstance(streaming_model, PollingAdapter):
            raise StreamGazeError(f"--realtime times the calls of a polled clip model; {model!r} is a streaming "
                                  "model of its own")
        timer = streaming_model.clip_model = TimedClipModel(streaming_model.clip_model, declared)
        settings["realtime"] = "measured" if declared is None else declared
    return run_plan(plan, out, streaming_model, fps=fps, settings=settings, progress=progress, timer=timer)
