"""lmms-eval's model wrappers as streaming models: ``stream-eval --model lmms:<name> --model-args ...``
(``lmms:<name>/simple``: lmms-eval's ``--model <name> --force_simple``).

:class:`LmmsClipModel` is a clip model behind the polling adapter (:mod:`.polling`). At each poll it takes the
evaluation document of the request's window (:meth:`~.runner.VideoPlan.doc_at`: at a checkpoint, the checkpoint
protocol's own document; at any other poll time, the window ``[0, t]`` with the gaze known at ``t``) and hands it to
the lmms-eval wrapper as lmms-eval's task would (``harness/wrapper_requests.py``: the wrapper's own
``generate_until`` generates). The documents name the wrapper's frames (``RunSettings.model``), so the clip the
wrapper reads is the window's model-ready clip (``evaluation/ready.py``): the source frames it would sample from that
window, at its processor's size, losslessly (never JPEG), none after the window's end, which is the stream time of
the poll. A video's clips are made in one pass over it before its first poll (:meth:`LmmsClipModel.prepare`: each
frame decoded at most once). A wrapper outside the table of model-ready frames is refused before any work
(``wrapper_requests.refusal``).

The wrapper samples from the window's source frames as in lmms-eval, never from the frames pushed at ``--fps``: a run
of an lmms-eval wrapper pushes every frame (``--fps 0``; another rate is refused).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ....util.errors import StreamGazeError
from .. import BENCHMARK
from .interface import LeakageError
from .polling import ClipModel, ClipRequest, PollingAdapter, parse_poll, poll_times

if TYPE_CHECKING:
    from ....evaluation import RunSettings
    from ....harness.model import WrapperChoice
    from ....harness.wrapper_requests import WrapperRequests

__all__ = ["LMMS_PREFIX", "LmmsChoice", "LmmsClipModel", "lmms_choice"]

#: ``--model`` of an lmms-eval wrapper: ``lmms:<lmms-eval model name>``
LMMS_PREFIX = "lmms:"
_EPS = 1e-6


class LmmsClipModel(ClipModel):
    """An lmms-eval wrapper answering each poll from its window's document (module docstring)."""

    needs_frames = False  # it reads the window's model-ready clip, never the pushed frames

    def __init__(self, wrapper: WrapperRequests, plan, poll: str | float = "checkpoints") -> None:
        """``plan``: the run's ``runner.StreamPlan`` (its videos' documents); ``poll``: the adapter's."""
        self.wrapper = wrapper
        self.gaze = plan.gaze
        self.poll = poll
        self.videos = {qid: v for v in plan.videos.values() for qid, _cp in v.docs}  # question id -> VideoPlan
        self.prepared: dict[str, dict] = {}  # video id -> what its pass did

    def prepare(self, video) -> dict:
        """Make every poll's clip of ``video`` (a ``runner.VideoPlan``) in one pass over the source before its
        first poll: each frame decoded at most once, as ``streamgaze eval`` makes a video's clips. The toolkit's
        work ahead of the stream, like ``clips warm``; each clip holds no frame after its window's end, and the
        wrapper is handed it only at that poll."""
        from ....evaluation import make_ready_clips

        docs = []
        for q in video.questions:
            times = poll_times(q, self.poll, video.duration) if q.is_proactive else [(q.time, -1)]
            docs += [video.doc_at(q.question_id, max(t, q.time), cp) for t, cp in times]
        self.prepared[video.video_id] = make_ready_clips(docs)
        return self.prepared[video.video_id]

    def document(self, request: ClipRequest) -> dict:
        """The evaluation document of ``request``; refuses one whose window ends after the request's time."""
        video = self.videos.get(request.question_id)
        if video is None:
            raise StreamGazeError(f"no question {request.question_id!r} in this run")
        doc = video.doc_at(request.question_id, request.time, request.checkpoint_index)
        if float(doc["window_end"]) > request.time + _EPS:
            raise LeakageError(f"the window of {request.question_id!r} ends at {doc['window_end']:.3f} s, after the "
                               f"stream time {request.time:.3f} s")
        return doc

    def answer(self, request: ClipRequest) -> str:
        doc = self.document(request)
        video = self.videos[request.question_id]
        if video.video_id not in self.prepared:
            self.prepare(video)
        return self.wrapper.generate(doc, BENCHMARK.lmms_task_name(request.task, self.gaze), BENCHMARK.name)


@dataclass(frozen=True)
class LmmsChoice:
    """An ``lmms:<name>`` model, checked: lmms-eval's model name, its ``--model_args`` (lmms-eval's syntax), the
    wrapper lmms-eval resolves them to and the frames its clips are made for (``RunSettings.model``)."""

    name: str
    model_args: str
    choice: WrapperChoice
    frames: str
    gen_kwargs: str = ""

    def settings(self, base: RunSettings | None = None) -> RunSettings:
        """The documents' run settings: ``base`` (None: ``settings.given``) with this wrapper's frames."""
        from ....evaluation import given

        return dataclasses.replace(given(base), model=self.frames)

    def model(self, plan, poll: str | float) -> PollingAdapter:
        """Load the wrapper (lmms-eval's registry) and put it behind the polling adapter."""
        from ....harness.wrapper_requests import WrapperRequests

        wrapper = WrapperRequests(self.name, self.model_args, self.choice, self.gen_kwargs)
        return PollingAdapter(LmmsClipModel(wrapper, plan, parse_poll(poll)), poll)


def lmms_choice(model: str, model_args: str, fps: float, gen_kwargs: str = "") -> LmmsChoice | None:
    """The :class:`LmmsChoice` of ``--model lmms:<name>`` (None for another model), checked before any work;
    ``gen_kwargs``: lmms-eval's ``--gen_kwargs`` (``k=v,...``) over the task's generation settings.

    Raises:
        StreamGazeError: no name, a push rate other than every frame, lmms-eval missing or without that model, a
            wrapper the toolkit does not cover (one line saying why), or ``gen_kwargs`` for another model.
    """
    if not model.startswith(LMMS_PREFIX):
        if gen_kwargs:
            raise StreamGazeError(f"--gen-kwargs is for an lmms-eval wrapper (--model lmms:<name>), not {model!r}")
        return None
    name, _, kind = model[len(LMMS_PREFIX):].strip().partition("/")
    if not name or kind not in ("", "simple"):
        raise StreamGazeError(f"--model {model}: expected lmms:<name> (lmms-eval's --model, e.g. lmms:qwen2_5_vl) or "
                              "lmms:<name>/simple (with its --force_simple)")
    if fps:
        raise StreamGazeError(f"--model {model}: the wrapper samples its frames from each window of the video as in "
                              f"lmms-eval, never from the pushed frames: --fps {fps:g} does not apply (leave it at 0)")
    from ....harness.wrapper_requests import choose_wrapper

    choice, frames = choose_wrapper(name, model_args, force_simple=kind == "simple")
    return LmmsChoice(name, model_args, choice, frames, gen_kwargs)
