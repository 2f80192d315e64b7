"""Every generated question checked against the demo world's ground truth (issue: dataset)."""

import json

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.build import BuildOptions, analyse_recording, process_recording
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS, window
from streamgaze_hf.gaze.io import read_gaze_csv
from streamgaze_hf.video.frame_reader import probe_video

from ..fixtures.once import once_per_run


class World:
    """Ground truth of one demo video, queried at exact times."""

    def __init__(self, d):
        self.gt = json.loads((d / "objects.json").read_text())
        self.actions = json.loads((d / "actions.json").read_text())
        info = probe_video(d / "video.mp4")
        self.track = read_gaze_csv(d / "gaze.csv", info.width, info.height, info.fps)
        self.ft = np.asarray(self.gt["frames"]["t"])
        self.names = {o["id"]: o["name"] for o in self.gt["objects"]}
        self.attrs = {o["name"]: o["attributes"] for o in self.gt["objects"]}

    def frame(self, t):
        return int(np.searchsorted(self.ft, t + 1e-6, side="right") - 1)

    def boxes(self, t):
        return {self.names[b[0]]: b[1:] for b in self.gt["frames"]["visible"][self.frame(t)]}

    def gaze_object(self, t):
        """The object whose box contains the latest gaze sample at or before t (None if none)."""
        k = int(self.track.index_at(t)[0])
        if k < 0 or not self.track.in_frame[k]:
            return None
        x, y = self.track.x[k], self.track.y[k]
        hits = [n for n, (x0, y0, x1, y1) in self.boxes(t).items() if x0 <= x <= x1 and y0 <= y <= y1]
        return hits[0] if hits else None

    def fixated_by(self, name, t):
        return any(f["object"] == name and f["start"] <= t for f in self.gt["fixations"])

    def seen_by(self, name, t):
        last = self.frame(t)
        return any(name in {self.names[b[0]] for b in self.gt["frames"]["visible"][i]} for i in range(last + 1))


@pytest.fixture(scope="module")
def generated(demo_world, demo_build_work, tmp_path_factory):
    """Each demo video's ground truth and generated questions: ``process_recording`` finds them finished in the
    demo dataset build's work directory (it would compute them there, once per run, if it did not)."""
    def process(_):
        return [json.loads((process_recording(d, demo_build_work, BuildOptions()) / "result.json").read_text())["qa"]
                for d in demo_world]

    qa = once_per_run(tmp_path_factory, "test_qa_world.generated", process)
    return [(World(d), q) for d, q in zip(demo_world, qa)]


def rows(generated, task):
    return [(w, r) for w, qa in generated for r in qa[task]]


def test_every_task_has_at_least_15_questions(generated):
    for task in TASK_IDS:
        assert len(rows(generated, task)) >= 15, task


def test_windows_follow_the_task_rule_and_end_at_the_query_time(generated):
    for task in TASK_IDS:
        for _, r in rows(generated, task):
            if task in ("gta", "oaa"):
                assert r["window_start"] == 0 and r["window_end"] == r["checkpoints"][-1]["time"]
            else:
                assert (r["window_start"], r["window_end"]) == window(task, r["query_time"])
            assert all(f["end"] <= r["window_end"] + 1e-9 for f in r["fixations"])


def test_oi_answer_is_the_object_under_the_gaze_at_the_query_time(generated):
    for task in ("oi_easy", "oi_hard"):
        for w, r in rows(generated, task):
            assert w.gaze_object(r["query_time"]) == r["answer_text"], r["question_id"]


def test_oi_hard_distractors_are_in_view_and_easy_ones_are_not_gazed(generated):
    for w, r in rows(generated, "oi_hard"):
        in_frame = w.boxes(r["query_time"])
        for o in r["options"]:
            assert o in in_frame, (r["question_id"], o)
    for w, r in rows(generated, "oi_easy"):
        assert sum(o == w.gaze_object(r["query_time"]) for o in r["options"]) == 1


def test_oar_answer_is_the_gazed_objects_attribute(generated):
    for w, r in rows(generated, "oar"):
        meta = json.loads(r["metadata"])
        assert w.gaze_object(r["query_time"]) == meta["object"]
        assert w.attrs[meta["object"]][meta["attribute_type"]] == r["answer_text"]
        assert sum(w.attrs[meta["object"]][meta["attribute_type"]] == o for o in r["options"]) == 1


def test_nfi_answer_never_fixated_before_the_query_time(generated):
    for w, r in rows(generated, "nfi"):
        t = r["query_time"]
        assert not w.fixated_by(r["answer_text"], t), r["question_id"]
        assert w.seen_by(r["answer_text"], t)
        for o in r["options"]:
            if o != r["answer_text"]:
                assert w.fixated_by(o, t), (r["question_id"], o)


def test_past_answers_happened_by_the_query_time(generated):
    for w, r in rows(generated, "otp"):
        assert w.fixated_by(r["answer_text"], r["query_time"])
    for w, r in rows(generated, "gsm"):
        seq = json.loads(r["metadata"])["correct_sequence"]
        starts = [min(f["start"] for f in w.gt["fixations"] if f["object"] == g[0] and f["start"] <= r["query_time"])
                  for g in seq]
        assert all(s <= r["query_time"] for s in starts)
    for w, r in rows(generated, "sr"):
        meta = json.loads(r["metadata"])
        s, e = meta["episode_time"]
        assert w.seen_by(r["answer_text"], r["query_time"])
        during = {w.names[b[0]] for i in range(w.frame(s), w.frame(e) + 1) for b in w.gt["frames"]["visible"][i]}
        assert r["answer_text"] not in during, r["question_id"]


def test_fap_answer_is_the_next_action(generated):
    for w, r in rows(generated, "fap"):
        t = r["query_time"]
        nxt = min((a for a in w.actions if a["start"] > t), key=lambda a: a["start"])
        assert r["answer_text"] == nxt["label"]


def test_gta_labels_match_the_gaze_at_the_exact_checkpoint_time(generated):
    n_yes = n_no = 0
    for w, r in rows(generated, "gta"):
        target = json.loads(r["metadata"])["target_object"]
        for cp in r["checkpoints"]:
            on = w.gaze_object(cp["time"]) == target
            if cp["label"] == "Yes":
                assert on, (r["question_id"], cp)
                n_yes += 1
            else:
                assert not on, (r["question_id"], cp)
                n_no += 1
    assert n_yes >= 15 and n_no >= 15


def test_oaa_labels_match_visibility_and_targets_are_never_fixated(generated):
    for w, r in rows(generated, "oaa"):
        target = json.loads(r["metadata"])["target_object"]
        assert not any(f["object"] == target for f in w.gt["fixations"])
        for cp in r["checkpoints"]:
            visible = target in w.boxes(cp["time"])
            assert visible == (cp["label"] == "Yes"), (r["question_id"], cp)


def test_generation_is_deterministic(demo_world):
    from streamgaze_hf.benchmarks.streamgaze.qa.generate import generate_questions

    ctx = analyse_recording(demo_world[0], BuildOptions()).context
    a, b, c = generate_questions(ctx, 0), generate_questions(ctx, 0), generate_questions(ctx, 1)
    assert a == b and a != c
