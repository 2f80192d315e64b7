"""The polling adapter: any clip model becomes a streaming model (docs/streaming.md).

A clip model answers one request: a prompt and the frames of a window ``[start, end]`` that ends at
the request's stream time. :class:`PollingAdapter` keeps the frames it has been pushed and asks the
clip model

* for a multiple-choice question, once, at its query time, with the task's window (past ``[0, t]``,
  present ``[t - 60, t]``);
* for a proactive question, at each poll time with the window ``[0, r]`` and the dataset's checkpoint
  prompt at ``r``: ``poll="checkpoints"`` polls at the question's checkpoint times and tags each
  answer with its checkpoint index, which is exactly the paper's checkpoint protocol;
  ``poll=S`` (seconds) polls every S seconds from the query time to the end of the video (untagged).
  A poll answered "Yes" is an alert.

With every frame pushed (stream fps 0) the frames of a request are exactly the frames of the clip the
lmms-eval plugin cuts for the same window; a lower stream rate gives the frames pushed at that rate.
Frames are kept JPEG-encoded (quality 95) and only when the clip model looks at pixels
(``needs_frames``), so a long video costs little memory.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ....util.errors import StreamGazeError
from ..tasks import get_task
from .interface import Frame, Question, Response, StreamContext, StreamingModel

__all__ = ["BufferedFrame", "ClipRequest", "ClipModel", "PollingAdapter", "parse_poll", "poll_times"]

JPEG_QUALITY = 95
_EPS = 1e-6


@dataclass(frozen=True)
class BufferedFrame:
    index: int
    time: float
    jpeg: bytes

    def image(self) -> np.ndarray:
        """The frame decoded back to a BGR array."""
        import cv2

        return cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class ClipRequest:
    """One stateless request to a clip model: the window ``[window_start, time]`` (``time`` = the
    stream time of the request) with its frames, the prompt and the question's identity."""

    question_id: str
    task: str
    checkpoint_index: int  # proactive polls at a checkpoint; else -1
    time: float
    window_start: float
    prompt: str
    options: tuple[str, ...]
    frames: tuple[BufferedFrame, ...]

    @property
    def poll_key(self) -> str:
        """What identifies this request within its question: the checkpoint index (-1 for a
        multiple-choice question), or ``t<time>`` for a proactive poll between checkpoints."""
        if self.checkpoint_index >= 0 or not get_task(self.task).checkpointed:
            return str(self.checkpoint_index)
        return f"t{self.time:.3f}"


class ClipModel:
    """A stateless model of one request (override :meth:`answer`)."""

    #: whether the model looks at the frames (else the adapter keeps none)
    needs_frames = True

    def answer(self, request: ClipRequest) -> str:
        raise NotImplementedError


def parse_poll(value: str | float) -> str | float:
    """``"checkpoints"`` or a positive number of seconds (``"2"``, ``2.5``)."""
    if isinstance(value, str) and value.strip() == "checkpoints":
        return "checkpoints"
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise StreamGazeError(f"poll {value!r}: expected 'checkpoints' or a number of seconds") from None
    if not seconds > 0:
        raise StreamGazeError(f"poll interval must be > 0 seconds, got {value!r}")
    return seconds


def poll_times(q: Question, poll: str | float, duration: float) -> list[tuple[float, int]]:
    """When a proactive question is polled: (time, checkpoint index) at its checkpoints (``poll`` is
    ``"checkpoints"``), else every ``poll`` seconds from its query time to the end of the video (index -1)."""
    if poll == "checkpoints":
        return [(t, i) for i, t in enumerate(q.checkpoints)]
    n = int((duration - q.time) // poll) + 1
    return [(round(q.time + k * poll, 6), -1) for k in range(max(n, 0))]


class PollingAdapter(StreamingModel):
    """Wrap a :class:`ClipModel` as a :class:`~.interface.StreamingModel` (see the module docstring)."""

    def __init__(self, clip_model: ClipModel, poll: str | float = "checkpoints") -> None:
        self.clip_model = clip_model
        self.poll = parse_poll(poll)
        self.ctx: StreamContext | None = None
        self.frames: list[BufferedFrame] = []
        self._times: list[float] = []
        self._pending: list[tuple[float, str, int]] = []  # (time, question id, checkpoint index)
        self._questions: dict[str, Question] = {}

    def start(self, ctx: StreamContext) -> None:
        self.ctx = ctx
        self.frames, self._times, self._pending, self._questions = [], [], [], {}

    def on_frame(self, frame: Frame) -> Iterable[Response]:
        if self.clip_model.needs_frames:
            import cv2

            ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            if not ok:
                raise StreamGazeError(f"video {self.ctx.video_id}: cannot JPEG-encode frame {frame.index}")
            self.frames.append(BufferedFrame(frame.index, frame.time, buf.tobytes()))
            self._times.append(frame.time)
        return ()

    def _window(self, start: float, end: float) -> tuple[BufferedFrame, ...]:
        lo = int(np.searchsorted(self._times, start - _EPS, side="left"))
        hi = int(np.searchsorted(self._times, end + _EPS, side="right"))
        return tuple(self.frames[lo:hi])

    def _ask(self, q: Question, cp: int, time: float, start: float, prompt: str) -> Response:
        req = ClipRequest(q.question_id, q.task, cp, time, start, prompt, q.options, self._window(start, time))
        return Response(q.question_id, str(self.clip_model.answer(req) or ""), checkpoint_index=cp)

    def on_question(self, q: Question) -> Iterable[Response]:
        now = self.ctx.now
        if not q.is_proactive:
            return [self._ask(q, -1, now, q.window_start, q.prompt)]
        self._questions[q.question_id] = q
        for t, i in poll_times(q, self.poll, self.ctx.duration):
            heapq.heappush(self._pending, (max(t, now), q.question_id, i))
        return self._due(now)

    def _due(self, now: float) -> list[Response]:
        out = []
        while self._pending and self._pending[0][0] <= now + _EPS:
            t, qid, cp = heapq.heappop(self._pending)
            q = self._questions[qid]
            out.append(self._ask(q, cp, now, 0.0, self.ctx.prompt_at(qid, now)))
        return out

    def next_wakeup(self) -> float | None:
        return self._pending[0][0] if self._pending else None

    def on_wakeup(self, time: float) -> Iterable[Response]:
        return self._due(time)
