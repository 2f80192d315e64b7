"""Streaming interface semantics, the polling adapter and the time-aware alert metrics, on hand-made
streams (no video): exact orders, times and values."""

import json

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.streaming import (
    ClipModel,
    Frame,
    LeakageError,
    PollingAdapter,
    Question,
    Response,
    StreamContext,
    StreamingModel,
    run_stream,
)
from streamgaze_hf.benchmarks.streamgaze.streaming.clip_models import (
    RandomClipModel,
    make_model,
    parse_model_args,
)
from streamgaze_hf.benchmarks.streamgaze.streaming.metrics import alert_metrics, event_time, question_outcome
from streamgaze_hf.util.errors import StreamGazeError

TIMES = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]


def _frames():
    for i, t in enumerate(TIMES):
        yield Frame(i, t, np.full((8, 8, 3), i, np.uint8))


def _ctx(prompter=None):
    return StreamContext("v", 8, 8, 2.0, 5.5, 0.0, "visual", "default", _prompter=prompter or (lambda q, t: f"{q}@{t}"))


MC = Question("mc1", "oi_easy", 1.2, "which?", ("cup", "pot"), 0.0)
PRO = Question("pro1", "gta", 3.0, "alert me", (), 0.0, (3.0, 4.0))


class Recorder(StreamingModel):
    """Logs every event with the stream time; answers the MC question at once and again (late) at
    frame 2.0, alerts on the proactive question at frame 4.0, wakes itself at 2.25."""

    def start(self, ctx):
        self.ctx, self.log, self.woke = ctx, [], False

    def on_frame(self, frame):
        self.log.append(("frame", frame.index, self.ctx.now))
        if frame.time == 2.0:
            return [Response("mc1", "B")]
        if frame.time == 4.0:
            return [Response("pro1", "You are now gazing at the cup.", alert=True)]
        return ()

    def on_question(self, q):
        self.log.append(("question", q.question_id, self.ctx.now))
        return [Response("mc1", "A")] if q.question_id == "mc1" else [Response("pro1", "No")]

    def next_wakeup(self):
        return None if self.woke else 2.25

    def on_wakeup(self, t):
        self.woke = True
        self.log.append(("wake", t, self.ctx.now))
        with pytest.raises(LeakageError):
            self.ctx.prompt_at("pro1", 2.5)
        return ()


def test_events_are_delivered_in_stream_time_order_and_responses_stamped():
    model = Recorder()
    out = run_stream(_ctx(), model, _frames(), [PRO, MC])
    log = model.log
    assert [e for e in log if e[0] != "frame"] == [("question", "mc1", 1.2), ("wake", 2.25, 2.25),
                                                   ("question", "pro1", 3.0)]
    frames = [e for e in log if e[0] == "frame"]
    assert [e[1] for e in frames] == list(range(11)) and [e[2] for e in frames] == TIMES
    # a question comes after every frame up to its time (the frame at 3.0 first) and before the next
    assert log.index(("question", "mc1", 1.2)) == log.index(("frame", 2, 1.0)) + 1
    assert log.index(("question", "pro1", 3.0)) == log.index(("frame", 6, 3.0)) + 1
    assert log.index(("wake", 2.25, 2.25)) == log.index(("frame", 4, 2.0)) + 1
    got = [(s.response.question_id, s.response.text, s.stream_time, s.late, s.alert) for s in out]
    assert got == [("mc1", "A", 1.2, False, None), ("mc1", "B", 2.0, True, None), ("pro1", "No", 3.0, False, False),
                   ("pro1", "You are now gazing at the cup.", 4.0, False, True)]


def test_a_model_cannot_answer_before_the_question_or_wake_in_the_past():
    class Eager(StreamingModel):
        def on_frame(self, frame):
            return [Response("pro1", "Yes")] if frame.time == 2.0 else ()

    with pytest.raises(StreamGazeError, match="before that question was asked"):
        run_stream(_ctx(), Eager(), _frames(), [PRO])

    class Stuck(StreamingModel):
        def next_wakeup(self):
            return 1.0

    with pytest.raises(StreamGazeError, match="wake-up at 1.000"):
        run_stream(_ctx(), Stuck(), _frames(), [])

    class BadCheckpoint(StreamingModel):
        def on_question(self, q):
            return [Response(q.question_id, "Yes", checkpoint_index=2)]

    with pytest.raises(StreamGazeError, match="checkpoint 2"):
        run_stream(_ctx(), BadCheckpoint(), _frames(), [PRO])


def test_frames_going_back_in_time_are_refused():
    frames = [Frame(0, 0.0, np.zeros((2, 2, 3), np.uint8)), Frame(1, 1.0, np.zeros((2, 2, 3), np.uint8)),
              Frame(2, 0.5, np.zeros((2, 2, 3), np.uint8))]
    with pytest.raises(StreamGazeError, match="time order"):
        run_stream(_ctx(), StreamingModel(), frames, [])


class Echo(ClipModel):
    def __init__(self):
        self.requests = []

    def answer(self, req):
        self.requests.append(req)
        return "Yes" if req.time >= 4.0 else "No"


def test_polling_adapter_at_checkpoints_is_the_checkpoint_protocol():
    clip = Echo()
    mc = Question("mc1", "oi_easy", 2.2, "which?", ("cup", "pot"), 1.0)
    out = run_stream(_ctx(), PollingAdapter(clip), _frames(), [PRO, mc])
    reqs = [(r.question_id, r.checkpoint_index, r.time, r.window_start, r.prompt, [f.index for f in r.frames])
            for r in clip.requests]
    assert reqs == [("mc1", -1, 2.2, 1.0, "which?", [2, 3, 4]),
                    ("pro1", 0, 3.0, 0.0, "pro1@3.0", [0, 1, 2, 3, 4, 5, 6]),
                    ("pro1", 1, 4.0, 0.0, "pro1@4.0", [0, 1, 2, 3, 4, 5, 6, 7, 8])]
    assert clip.requests[1].frames[-1].image()[0, 0, 0] == 6  # JPEG round trip of frame 6
    assert [(s.response.checkpoint_index, s.stream_time, s.alert) for s in out] == [(-1, 2.2, None), (0, 3.0, False),
                                                                                     (1, 4.0, True)]


def test_polling_adapter_every_n_seconds_until_the_end_of_the_video():
    clip = Echo()
    out = run_stream(_ctx(), PollingAdapter(clip, poll="1.5"), _frames(), [PRO])
    assert [(s.stream_time, s.response.checkpoint_index, s.alert) for s in out] == [(3.0, -1, False), (4.5, -1, True)]
    assert [len(r.frames) for r in clip.requests] == [7, 10]
    with pytest.raises(StreamGazeError, match="poll"):
        PollingAdapter(clip, poll="often")


def test_random_clip_model_needs_no_frames_and_model_args_are_checked():
    adapter = make_model("random", parse_model_args("seed=4"), "checkpoints")
    assert isinstance(adapter.clip_model, RandomClipModel) and adapter.clip_model.seed == 4
    run_stream(_ctx(), adapter, _frames(), [PRO])
    assert adapter.frames == []
    with pytest.raises(StreamGazeError, match="unknown --model-args colour"):
        make_model("random", {"colour": "red"}, "checkpoints")
    with pytest.raises(StreamGazeError, match="unknown --model"):
        make_model("gpt9", {}, "checkpoints")
    with pytest.raises(StreamGazeError, match="not key=value"):
        parse_model_args("seed")


# ---- time-aware alert metrics --------------------------------------------------------------------

ITEMS = [
    (10.0, [5.0, 10.5]),                    # early FP, then a hit after 0.5 s
    (20.0, [23.0]),                         # 3 s late: hit only at 5 s
    (30.0, []),                             # missed
    (40.0, [38.0, 39.0, 40.0, 41.5, 60.0]),  # two early FPs, a hit at the event, later ones not scored
    (50.0, [53.0, 52.0]),                   # 2 s late (unsorted input): hit from 2 s
]


def test_question_outcomes():
    assert question_outcome([5.0, 10.5], 10.0, 1.0) == (1, 1, 0)
    assert question_outcome([23.0], 20.0, 2.0) == (0, 1, 1)
    assert question_outcome([23.0], 20.0, 5.0) == (1, 0, 0)
    assert question_outcome([], 30.0, 5.0) == (0, 0, 1)
    assert question_outcome([52.0], 50.0, 2.0) == (1, 0, 0)  # the tolerance's end is inside


def test_alert_metrics_exact_values():
    m = alert_metrics(ITEMS)
    assert m["n"] == 5 and m["n_alerts"] == 10
    t1, t2, t5 = (m["tolerances"][k] for k in ("1", "2", "5"))
    assert (t1["tp"], t1["fp"], t1["fn"]) == (2, 5, 3)
    assert t1["precision"] == pytest.approx(2 / 7) and t1["recall"] == pytest.approx(2 / 5)
    assert t1["f1"] == pytest.approx(1 / 3)
    assert (t2["tp"], t2["fp"], t2["fn"]) == (3, 4, 2) and t2["f1"] == pytest.approx(0.5)
    assert (t5["tp"], t5["fp"], t5["fn"]) == (4, 3, 1) and t5["f1"] == pytest.approx(2 / 3)
    assert t5["precision"] == pytest.approx(4 / 7) and t5["recall"] == pytest.approx(4 / 5)
    # latencies 0.5, 3.0, 0.0, 2.0 -> median 1.25, p90 (linear) 2.7
    assert m["latency"] == {"n": 4, "median": pytest.approx(1.25), "p90": pytest.approx(2.7)}
    empty = alert_metrics([(5.0, [])])
    assert empty["latency"] == {"n": 0, "median": None, "p90": None}
    assert empty["tolerances"]["1"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 1}


def test_event_time_from_our_metadata_and_the_official_release_fields():
    assert event_time({"task": "gta", "metadata": json.dumps({"first_fixation": 12.5, "anchor": 13.0})}) == 12.5
    assert event_time({"task": "gta", "metadata": {"fixation_intervals": [{"start": "02:22", "end": "02:31"}],
                                                   "first_appearance": "02:20"}}) == 142.0
    assert event_time({"task": "oaa", "metadata": json.dumps({"first_appearance": "01:05"})}) == 65.0
    with pytest.raises(StreamGazeError, match="q9"):
        event_time({"task": "oaa", "question_id": "q9", "metadata": "{}"})


def test_a_checkpoint_answer_given_after_its_checkpoint_does_not_count():
    from streamgaze_hf.benchmarks.streamgaze.streaming.results import checkpoint_responses
    from streamgaze_hf.benchmarks.streamgaze.streaming.runner import record

    class Slow(StreamingModel):
        def start(self, ctx):
            self.ctx = ctx

        def on_frame(self, frame):
            if frame.time == 3.5:  # after checkpoint 0 (3.0), before checkpoint 1 (4.0)
                return [Response("pro1", "Yes", checkpoint_index=0), Response("pro1", "No", checkpoint_index=1)]
            return ()

    out = run_stream(_ctx(), Slow(), _frames(), [PRO])
    assert [(s.response.checkpoint_index, s.late) for s in out] == [(0, True), (1, False)]
    assert checkpoint_responses([record("v", s) for s in out]) == {("pro1", 1): "No"}
