"""The field's timing scores (streaming/timing.py) and the real-time clock (streaming/clock.py): hand-computed
cases, and StreamingBench's and StreamGaze's own public functions on the same inputs."""

import json
import random
from types import SimpleNamespace

import pytest

from streamgaze_hf.benchmarks.streamgaze.streaming.clock import realtime_alerts, replay
from streamgaze_hf.benchmarks.streamgaze.streaming.metrics import event_end
from streamgaze_hf.benchmarks.streamgaze.streaming.results import proactive_events, realtime_scores
from streamgaze_hf.benchmarks.streamgaze.streaming.timing import (
    Event,
    first_response,
    streamgaze_correct,
    streamingbench_correct,
    timing_scores,
)

from ..fixtures import field_timing_reference as ref

# (event, alerts): A early then on time with duplicates; B late by 2.5 s inside StreamGaze's window; C silent;
# D alerts at its query time (StreamingBench's loop never looks there), then 1 s before the event, then at it
CASES = [(Event(10.0, 20.0, 24.0), [12.0, 21.0, 22.0, 30.0]),
         (Event(5.0, 8.0, 8.0), [10.5]),
         (Event(0.0, 3.0, 6.0), []),
         (Event(1.0, 4.0, 5.0), [1.0, 3.0, 4.0])]


def test_each_timing_score_by_hand():
    s = timing_scores(CASES, sb_protocol=True)
    # first responses 12, 10.5, none, 1: none within 2 s of its event
    assert s["streamingbench"] == {"correct": 0, "accuracy": 0.0}
    # the protocol skips D's alert at its query time: its first look with a "yes" is 3, 1 s before the event
    assert s["streamingbench_protocol"] == {"correct": 1, "accuracy": 0.25}
    # [t1, t2 + 3]: only B (10.5 in [8, 11])
    assert s["streamgaze_window"] == {"correct": 1, "accuracy": 0.25}
    # A: 22 and 30 follow its first alert at or after the event; 2 of 8 alerts
    assert s["duplicates"] == {"n": 2, "rate": 0.25}
    # F1 at tolerance: 0.2 below 1 s (only D on time), 0.4 from 1 s (A), 0.6 from 2.5 s (B)
    curve = s["f1_curve"]["f1"]
    assert [curve[k] for k in ("0", "0.5", "1", "1.5", "2", "2.5", "10")] == pytest.approx([0.2, 0.2, 0.4, 0.4, 0.4,
                                                                                            0.6, 0.6])
    # trapezoids: .1 + .15 + .2 + .2 + .25 + 7.5 * .6 = 5.4 over 10 s
    assert s["f1_curve"]["area"] == pytest.approx(0.54)
    assert timing_scores(CASES, sb_protocol=False)["streamingbench_protocol"] == {"correct": None, "accuracy": None}
    empty = timing_scores([(Event(0.0, 3.0, 3.0), [])], sb_protocol=False)
    assert empty["duplicates"] == {"n": 0, "rate": None} and empty["f1_curve"]["area"] == 0.0


def test_event_end_from_the_release_interval_or_our_fixation():
    assert event_end({"task": "gta", "metadata": {"fixation_intervals": [{"start": "02:22", "end": "02:31"}]}},
                     142.0) == 151.0
    row = {"task": "gta", "metadata": json.dumps({"first_fixation": 12.5}),
           "fixations": [{"start": 3.0, "end": 4.0}, {"start": 12.5, "end": 14.25}]}
    assert event_end(row, 12.5) == 14.25
    assert event_end({"task": "oaa", "metadata": {"first_appearance": 7.0}}, 7.0) == 7.0  # ours: no end recorded
    # a question's evaluation documents (no fixations in the visual gaze mode): the end comes from its dataset row
    docs = [{**row, "question_id": "q1", "query_time": 2.0, "fixations": [], "checkpoint_index": i} for i in range(3)]
    assert proactive_events(docs, {"q1": row})["gta"] == {"q1": Event(2.0, 12.5, 14.25)}
    assert proactive_events(docs)["gta"] == {"q1": Event(2.0, 12.5, 12.5)}


class _LogModel:
    """StreamingBench's model, answering from our --poll 1 log: "yes" at a look where the log has an alert."""

    def __init__(self, alerts):
        self.alerts = alerts

    def name(self):
        return "ours"

    def respond(self, clip, inp):
        _path, _start, current = clip
        qid = next(q for q in self.alerts if q in inp)
        if "Is it the right time" not in inp:
            return f"{qid} OUT"  # the second call after a yes: the ground-truth output
        return "Yes." if current in self.alerts[qid] else "No."


def test_streamingbench_rule_and_protocol_agree_with_its_own_code(tmp_path, monkeypatch):
    rng = random.Random(54)
    questions, alerts, events = [], {}, {}
    for i in range(60):
        q = rng.randint(0, 20)
        gt = q + rng.randint(0, 12)
        qid = f"question-{i:02d}?"
        events[qid] = Event(float(q), float(gt), float(gt))
        alerts[qid] = [float(t) for t in range(q, q + 20) if rng.random() < 0.12]  # a --poll 1 log's alerts
        hms = lambda s: f"00:{s // 60:02d}:{s % 60:02d}"  # noqa: E731
        questions.append({"task_type": qid, "question": qid, "time_stamp": hms(q), "ground_truth_time_stamp": hms(gt),
                          "ground_truth_output": f"{qid} OUT"})
    data = [{"video_path": "v.mp4", "questions": questions}]
    monkeypatch.chdir(tmp_path)  # count() writes its stats into the working directory
    ref.StreamingBenchProactiveEval(data, _LogModel(alerts), str(tmp_path / "out.json"), -1)
    ref.count(SimpleNamespace(task="proactive", src=str(tmp_path / "out.json"), model="ours"))
    stats = json.loads((tmp_path / "ours_stats.json").read_text())
    theirs = {qid: stats[qid]["time_correct"] == 1 for qid in events}
    ours = {qid: streamingbench_correct(alerts[qid], e, protocol=True) for qid, e in events.items()}
    assert ours == theirs and 10 < sum(ours.values()) < 50
    # its loop looks at q + 1, ..., gt + 4, each clip from the query time
    assert all(start < end for start, end in ref.CLIPS)
    # without the protocol our rule reads the same log from the query time on: it differs only where the first
    # alert is at the query time itself
    for qid, e in events.items():
        if ours[qid] != streamingbench_correct(alerts[qid], e):
            assert alerts[qid][0] == e.query


def test_streamgaze_window_agrees_with_its_own_code():
    rng = random.Random(7)
    evaluator = ref.TimingAccuracyEvaluator()  # time_margin_T = 3.0
    ours = []
    for i in range(200):
        t1 = round(rng.uniform(0, 60), 1)
        ev = Event(max(0.0, t1 - 5), t1, round(t1 + rng.choice([0.0, rng.uniform(0, 8)]), 1))
        alerts = sorted(round(rng.uniform(ev.query - 2, ev.end + 6), 1) for _ in range(rng.randint(1, 3)))
        if i % 5 == 0:  # one response at or just past one of the window's edges
            alerts = [round(rng.choice([ev.start - 0.01, ev.start, ev.end + 3.0, ev.end + 3.01]), 2)]
        response = first_response(sorted(alerts), ev.query)
        if response is None:
            continue
        theirs = evaluator.add_evaluation(response, ev.start, ev.end, question_id=str(i))
        ours.append(streamgaze_correct(sorted(alerts), ev))
        assert ours[-1] == theirs, (i, response, ev)
    assert evaluator.calculate_overall_timing_accuracy() == pytest.approx(sum(ours) / len(ours))
    assert 0.2 < sum(ours) / len(ours) < 0.8


def _log(video, rows):
    return [{"video_id": video, "question_id": q, "task": task, "stream_time": t, "checkpoint_index": -1,
             "alert": alert, "seconds": 3.0} for q, task, t, alert in rows]


# one GTA question asked at 10 s, polled every 1 s up to 20 s; the event at 14 s: "yes" at 14-17 s
POLLS = [("g1", "gta", float(t), 14 <= t <= 17) for t in range(10, 21)]


def test_realtime_clock_with_3_s_per_call_on_1_s_polls():
    log = _log("v", POLLS)
    kept = replay(log)
    # looks at 10, 13, 16, 19 (each busy for 3 s), delivered 3 s later
    assert [(r["stream_time"], start, end) for r, start, end in kept] == [(10.0, 10.0, 13.0), (13.0, 13.0, 16.0),
                                                                         (16.0, 16.0, 19.0), (19.0, 19.0, 22.0)]
    alerts, looks = realtime_alerts(log)
    assert looks == 4 < len(log) == 11
    assert alerts["gta"] == {"g1": [19.0]}  # the look at 16 s says yes; unlimited time: the first alert at 14 s
    events = {"gta": {"g1": Event(10.0, 14.0, 17.0)}, "oaa": {}}
    rt = realtime_scores({"call_seconds": [3.0] * 11, "stream_seconds": 30.0, "alerts": alerts}, events, "1.0")
    assert rt["rtf"] == pytest.approx(33.0 / 30.0)
    assert rt["response_seconds"] == {"n": 11, "median": 3.0, "p90": 3.0, "mean": 3.0}
    assert rt["streaming"]["gta"]["latency"]["median"] == 5.0  # 19 - 14
    assert rt["streaming"]["gta"]["tolerances"]["2"]["f1"] == 0.0 and rt["streaming"]["gta"]["tolerances"]["5"]["tp"] == 1


def test_realtime_clock_a_question_waits_for_the_busy_model():
    # a multiple-choice question at 11 s waits until the model is free at 13 s; the polls at 13-15 s are skipped
    log = _log("v", sorted(POLLS + [("m1", "oi_easy", 11.0, None)], key=lambda r: r[2]))
    kept = [(r["question_id"], start, end) for r, start, end in replay(log)]
    assert kept == [("g1", 10.0, 13.0), ("m1", 13.0, 16.0), ("g1", 16.0, 19.0), ("g1", 19.0, 22.0)]
    # two questions polled at the same moments share the model: the one looked at least recently goes first
    two = _log("v", [(q, "gta", float(t), False) for t in range(0, 7) for q in ("a", "b")])
    assert [(r["question_id"], start) for r, start, _ in replay(two)] == [("a", 0.0), ("b", 3.0), ("a", 6.0)]
