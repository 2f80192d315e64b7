"""StreamEQA evaluation (issue 14): window clips from the shared clip cache (never a frame after the query
time, windows of 1 s or less included), the supplement's prompt and the official scorer as the reference
mode, the gaze extension variants (Aria gaze projected: overlay and text), the leaderboard hook."""

from __future__ import annotations

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streameqa import evaluation as ev
from streamgaze_hf.benchmarks.streameqa.prompts import REFERENCE_PROMPT, question_prompt
from streamgaze_hf.benchmarks.streameqa.release import import_release
from streamgaze_hf.demo.timecode import read_frame_code
from streamgaze_hf.evaluation.baselines import oracle_answer, random_answer
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.clips import clip_frame_times
from streamgaze_hf.video.frame_reader import probe_video, read_frames_at

from ..fixtures.streameqa_fixture import FPS, V1, gaze_xy, write_release


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("eqa_eval")
    release = write_release(base / "release", gaze=True)
    import_release(release, base / "with_gaze", "1.0.0", gaze_dir=release / "gaze", progress=False)
    import_release(release, base / "plain", "1.0.0", progress=False)
    return {"gaze": base / "with_gaze", "plain": base / "plain"}


def test_short_windows_get_their_frames_and_nothing_later(roots, tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    docs = {d["release_id"]: d for d in ev.load_docs("perception", "none", roots["plain"])}
    # [0, .5], [0, 1], [0, 1.5] (all skipped by the official whole-second test), [0, 2], at 2 fps
    for rid, n_frames in (("short-a", 2), ("short-b", 3), ("short-c", 4), ("two", 5)):
        doc = docs[rid]
        clip = ev.doc_visuals(doc)[0]
        assert clip_frame_times(clip) == pytest.approx([k / FPS for k in range(n_frames)])
        info = probe_video(clip)
        (_, last), = read_frames_at(clip, [info.frame_times[-1]])
        assert read_frame_code(last) == n_frames - 1 and doc["short_window"] is (rid != "two")
    late = docs["late"]  # past the end of the 30 s video: the window ends at the last frame
    assert clip_frame_times(ev.doc_visuals(late)[0])[-1] == pytest.approx(29.5)


def test_reference_prompt_and_official_scorer(roots, monkeypatch):
    options = ["the pan", "the knife", "the bowl", "the tap"]
    ref = question_prompt("Which?", options, mode="reference")
    assert ref == REFERENCE_PROMPT.format("Which?", "A. the pan\nB. the knife\nC. the bowl\nD. the tap")
    assert ref.startswith("You are an advanced video question-answering AI assistant.")
    assert "Do not Respond any other words except for the letter (A, B, C, or D).\n\nQuestion: Which?" in ref
    default = question_prompt("Which?", options)
    assert default.endswith("Answer with only the letter (A, B, C, or D) of the correct option.")
    # the official normalize_choice, with the options as its prompt shows them ("C. the bowl")
    cases = {"C": "C", " C.": "C", "C) the bowl": "C", "the bowl": "C", "pan": "A", "I think B is right": "B",
             "(B)": "B", "the bowl.": None, "The Bowl": None, "": None, None: None}
    for response, norm in cases.items():
        assert ev.official_normalise(response, options) == norm, response
    assert ev.official_correct("the bowl", "C", options) and not ev.official_correct("", "C", options)
    assert ev.official_correct("Definitely the pan", "D", options)  # unparsed: the raw text's first letter
    assert not ev.official_correct(None, "C", options)

    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "reference")
    doc = ev.load_docs("planning", "none", roots["plain"])[0]
    assert ev.doc_prompt(doc).startswith("You are an advanced video") and doc["prompt_mode"] == "reference"
    answer = doc["answer"]
    assert ev.score_doc(doc, answer)["correct"] and ev.score_doc(doc, answer)["official"]
    assert not ev.score_doc(doc, "")["correct"]  # a missing prediction counts as wrong (official: skipped)
    wrong = "ABCD"[("ABCD".index(answer) + 1) % 4]
    rec = ev.score_doc(doc, f"Answer: {wrong}")
    assert not rec["correct"] and rec["parsed"] == wrong
    assert oracle_answer(doc) == answer
    letters = {random_answer(0, f"q{i}", -1, False, 4) for i in range(40)}
    assert letters == set("ABCD")


def test_gaze_extension_variants(roots, tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    with pytest.raises(StreamGazeError, match="--gaze-dir"):
        ev.load_docs("perception", "visual", roots["plain"])
    docs = ev.load_docs("perception", "text", roots["gaze"])
    doc = next(d for d in docs if d["question_id"] == "streameqa-perception-OPB-0")  # V1, window [11, 75]
    pts = doc["gaze_points"]
    assert len(pts) == 65 and pts[-1][0] == pytest.approx(75.0) and pts[0][0] == pytest.approx(11.0)
    assert all(doc["window_start"] - 1e-9 <= t <= doc["window_end"] + 1e-9 for t, _x, _y in pts)
    for t, x, y in pts[::16]:  # the projected gaze is the written one (linear camera, moved and turned)
        assert (x, y) == pytest.approx(gaze_xy(t), abs=1e-5)
    prompt = ev.doc_prompt(doc)
    x0, y0 = gaze_xy(11.0)
    assert f"t=0.0s: ({x0:.3f}, {y0:.3f})" in prompt and "What about OPB number 0?" in prompt
    short = {d["release_id"]: [p[0] for p in d["gaze_points"]] for d in docs if d["short_window"]}
    assert short == {"short-a": pytest.approx([0.5]), "short-b": pytest.approx([0.0, 1.0]),
                     "short-c": pytest.approx([0.5, 1.5])}  # one per second, counting back from t
    vis = next(d for d in ev.load_docs("perception", "visual", roots["gaze"]) if d["question_id"] == "streameqa-perception-OPB-0")
    assert vis["overlay_path"] == f"videos/overlay/{V1}.mp4" and "gaze point is marked" in ev.doc_prompt(vis)
    clip = ev.doc_visuals(vis)[0]
    ft = probe_video(roots["gaze"] / vis["overlay_path"]).frame_times
    assert np.array_equal(np.asarray(clip_frame_times(clip)), ft[(ft >= 11 - 1e-6) & (ft <= 75 + 1e-6)])


def test_breakdown_and_leaderboard_hook():
    def rec(code, level, direction, correct, short=False):
        return {"task_code": code, "level": level, "direction": direction, "correct": correct, "official": correct,
                "parsed": "A", "short_window": short}

    recs = [rec("OPB", "perception", "backward", True), rec("OPB", "perception", "backward", False),
            rec("ORQ", "perception", "realtime", True, short=True), rec("FPO", "planning", "forward", False)]
    b = ev.table_breakdown(recs)
    assert b["codes"]["OPB"] == 0.5 and b["codes"]["ORQ"] == 1.0 and b["codes"]["ASR"] is None
    assert b["levels"]["perception"]["micro"] == pytest.approx(2 / 3)
    assert b["levels"]["perception"]["macro"] == pytest.approx(0.75)
    assert b["levels"]["interaction"]["micro"] is None and b["directions"]["forward"]["micro"] == 0.0
    assert b["short_window"] == {"n": 1, "accuracy": 1.0} and b["without_short"] == {"micro": 1 / 3, "n": 3}
    cols = ev.leaderboard_columns(recs)
    assert cols["perception"] == pytest.approx(2 / 3) and cols["OPB"] == 0.5 and cols["backward"] == 0.5  # fractions
    assert cols["interaction"] is None and len(cols) == 3 + 3 + 42
