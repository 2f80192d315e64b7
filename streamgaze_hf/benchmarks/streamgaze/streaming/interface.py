"""The streaming model interface (docs/streaming.md), harness-agnostic.

A streaming model is driven by one clock per video, the *stream time*:

* :meth:`StreamingModel.on_frame` receives the video's frames in time order, at the stream's frame
  rate, each at its own time; with it, in the gaze modes that give the model gaze samples (``text``,
  ``salience``), the samples recorded since the previous frame up to this one (``Frame.gaze``);
* :meth:`StreamingModel.on_question` receives each question at its query time, after every frame up
  to that time (a frame and a question at the same time: the frame first);
* the model answers or alerts whenever one of its hooks returns: what a hook returns is stamped with
  the stream time of that moment. Between events a model can ask to be woken at a stream time of its
  choice (:meth:`StreamingModel.next_wakeup` / :meth:`StreamingModel.on_wakeup`), which is how a clip
  model is polled (:mod:`.polling`).

A model is never handed a frame whose time is after the stream time, and never a question before its
query time: :func:`run_stream` is the one place that orders the events, and the runner
(:mod:`.runner`) feeds it one decoded video at a time. Prompts a model may need (the dataset's
wording of a question at a given moment, gaze mode and prompt mode applied) come from
:meth:`StreamContext.prompt_at`, which refuses a moment after the stream time.

Multiple-choice questions are answered at their query time: only a response returned by
``on_question`` (stamped at the query time) is scored; later ones are recorded as late. Likewise a
response tagged with a checkpoint counts for the checkpoint protocol only when given at or before that
checkpoint's time (a later one has seen frames after the checkpoint). Proactive
questions (GTA, OAA) are answered by *alerts*: a response whose ``alert`` is True (or, when it is
None, whose text reads as "Yes" with the shared parser) says "the event is happening now".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from ....scoring import parse_yes_no
from ....util.errors import StreamGazeError
from ..tasks import get_task

__all__ = ["GazeSamples", "Frame", "Question", "Response", "StreamContext", "StreamingModel", "StampedResponse",
           "LeakageError", "run_stream", "GAZE_SAMPLE_MODES"]

#: gaze modes in which the model receives raw gaze samples with the frames (in ``visual`` mode the
#: gaze is drawn into the frames; in ``none`` the model gets no gaze at all)
GAZE_SAMPLE_MODES = frozenset({"text", "salience"})
_EPS = 1e-9


class LeakageError(StreamGazeError):
    """Something asked for information from after the current stream time."""


@dataclass(frozen=True)
class GazeSamples:
    """Gaze samples: seconds on the video clock, position normalised (origin top-left), validity."""

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray

    def __len__(self) -> int:
        return len(self.t)


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its index in the source video, its time (s), the BGR image, and the gaze
    samples with time in (previous frame's time, this frame's time] (None when the gaze mode gives
    the model no samples)."""

    index: int
    time: float
    image: np.ndarray
    gaze: GazeSamples | None = None


@dataclass(frozen=True)
class Question:
    """A question as the model sees it at its query time ``time`` (never its answer or labels).

    ``prompt`` is the dataset's prompt at the query time (gaze and prompt mode applied). ``options``:
    the multiple-choice option texts (empty for proactive questions). ``window_start``: where the
    task's window begins (present tasks: ``time - 60``; else 0). ``checkpoints``: for proactive
    questions, the benchmark's checkpoint times (the paper's polling protocol; a model deciding by
    itself when to alert should not use them).
    """

    question_id: str
    task: str
    time: float
    prompt: str
    options: tuple[str, ...] = ()
    window_start: float = 0.0
    checkpoints: tuple[float, ...] = ()

    @property
    def is_proactive(self) -> bool:
        return get_task(self.task).checkpointed


@dataclass(frozen=True)
class Response:
    """What a model says about one question. ``checkpoint_index``: the checkpoint a proactive
    response answers (the paper's protocol), else -1. ``alert``: for proactive questions, whether
    this is an alert; None = read the text ("Yes" = alert)."""

    question_id: str
    text: str
    checkpoint_index: int = -1
    alert: bool | None = None


@dataclass(frozen=True)
class StampedResponse:
    """A response with the stream time at which the model gave it (what the runner records)."""

    response: Response
    stream_time: float
    task: str
    query_time: float
    alert: bool | None  # proactive: resolved alert flag; None for multiple choice
    late: bool  # given after its query time (multiple choice) or checkpoint time (recorded, never scored)


@dataclass
class StreamContext:
    """What a model knows about the stream it is in (given to :meth:`StreamingModel.start`)."""

    video_id: str
    width: int
    height: int
    fps: float  # the source video's frame rate
    duration: float  # the source video's duration (s)
    stream_fps: float  # frames per second pushed to the model (0 = every frame)
    gaze: str
    prompt_mode: str
    now: float = 0.0
    _prompter: Callable[[str, float], str] | None = field(default=None, repr=False)

    def prompt_at(self, question_id: str, time: float) -> str:
        """The dataset's prompt of an asked question at stream time ``time`` (proactive: the
        checkpoint prompt with the gaze known at ``time``). Refuses a time after the stream time."""
        if time > self.now + _EPS:
            raise LeakageError(f"prompt of {question_id!r} asked for t={time:.3f} s after the stream time "
                               f"{self.now:.3f} s")
        if self._prompter is None:
            raise StreamGazeError("this stream has no prompt source")
        return self._prompter(question_id, time)


class StreamingModel:
    """Base class of streaming models: override the hooks you need. Each hook returns the responses
    the model gives at that moment (any iterable; empty = silence)."""

    def start(self, ctx: StreamContext) -> None:
        """A new video begins (``ctx.now`` is 0). Reset any per-video state here."""

    def on_frame(self, frame: Frame) -> Iterable[Response]:
        return ()

    def on_question(self, question: Question) -> Iterable[Response]:
        return ()

    def next_wakeup(self) -> float | None:
        """The next stream time at which the model wants :meth:`on_wakeup` (None = no wish). It must
        not lie before the stream time, and must move on after each wake-up."""
        return None

    def on_wakeup(self, time: float) -> Iterable[Response]:
        return ()

    def finish(self) -> Iterable[Response]:
        """The stream ended (stream time = the last frame's time, or the last question's)."""
        return ()


def _alert_of(resp: Response) -> bool:
    if resp.alert is not None:
        return bool(resp.alert)
    return parse_yes_no(resp.text) is True


def run_stream(ctx: StreamContext, model: StreamingModel, frames: Iterable[Frame],
               questions: Iterable[Question]) -> list[StampedResponse]:
    """Drive ``model`` through one video: frames (in time order), questions at their query times and
    the model's own wake-ups, ordered by stream time (ties: frame, then question, then wake-up).

    The frame iterator is read one frame ahead (to know when the next frame is due) but a frame is
    handed to the model only when the stream time reaches it. Raises :class:`StreamGazeError` when the
    frames go back in time, or the model answers a question that was not asked yet, gives a checkpoint
    index the question does not have, or asks for a wake-up in the past.
    """
    qs = sorted(questions, key=lambda q: (q.time, q.question_id))
    asked: dict[str, Question] = {}
    out: list[StampedResponse] = []

    def take(responses: Iterable[Response] | None, time: float) -> None:
        for r in responses or ():
            q = asked.get(r.question_id)
            if q is None:
                raise StreamGazeError(f"video {ctx.video_id}: the model answered {r.question_id!r} at "
                                      f"{time:.3f} s, before that question was asked (or it is unknown)")
            if r.checkpoint_index != -1 and not (q.is_proactive and 0 <= r.checkpoint_index < len(q.checkpoints)):
                raise StreamGazeError(f"video {ctx.video_id}: response to {r.question_id!r} names checkpoint "
                                      f"{r.checkpoint_index}, which that question does not have")
            proactive = q.is_proactive
            due = q.checkpoints[r.checkpoint_index] if r.checkpoint_index >= 0 else (None if proactive else q.time)
            out.append(StampedResponse(r, time, q.task, q.time, _alert_of(r) if proactive else None,
                                       late=due is not None and time > due + _EPS))

    ctx.now = 0.0
    model.start(ctx)
    it = iter(frames)
    nxt = next(it, None)
    qi = 0
    last_frame = -math.inf
    last_wake = None
    end = -math.inf
    while True:
        wake = model.next_wakeup()
        if wake is not None and (wake < ctx.now - _EPS or (last_wake is not None and wake <= last_wake)):
            raise StreamGazeError(f"video {ctx.video_id}: the model asked for a wake-up at {wake:.3f} s, not after "
                                  f"the stream time {ctx.now:.3f} s / its previous wake-up")
        tf = nxt.time if nxt is not None else math.inf
        tq = qs[qi].time if qi < len(qs) else math.inf
        tw = wake if wake is not None else math.inf
        if nxt is None and qi >= len(qs) and (wake is None or wake > max(end, ctx.duration) + _EPS):
            break
        if tf <= tq and tf <= tw:
            if nxt.time < last_frame:
                raise StreamGazeError(f"video {ctx.video_id}: frame {nxt.index} at {nxt.time:.3f} s comes after a "
                                      f"frame at {last_frame:.3f} s (frames must be in time order)")
            frame, last_frame = nxt, nxt.time
            ctx.now = max(ctx.now, frame.time)
            end = max(end, ctx.now)
            take(model.on_frame(frame), ctx.now)
            nxt = next(it, None)
        elif tq <= tw:
            q = qs[qi]
            qi += 1
            ctx.now = max(ctx.now, q.time)
            end = max(end, ctx.now)
            asked[q.question_id] = q
            take(model.on_question(q), ctx.now)
        else:
            ctx.now = max(ctx.now, tw)
            last_wake = tw
            take(model.on_wakeup(tw), ctx.now)
    take(model.finish(), ctx.now)
    return out
