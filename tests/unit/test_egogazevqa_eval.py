"""EgoGazeVQA evaluation: prompts, GazeV / GazeS pixels, visual forms, parser vs exact match (issue 13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamgaze_hf.benchmarks.egogazevqa import evaluation as ev
from streamgaze_hf.benchmarks.egogazevqa.prompts import gaze_lines, question_prompt
from streamgaze_hf.benchmarks.egogazevqa.release import import_release
from streamgaze_hf.benchmarks.egogazevqa.visuals import gazev_frame, gazev_radius, salience_image
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.frame_reader import probe_video

from ..fixtures.egogazevqa_fixture import OPTIONS, gaze_at, write_release


def _frame(x, y, valid=True):
    return {"path": "f.png", "frame": 0, "time": 0.0, "gaze_x": x, "gaze_y": y, "gaze_valid": valid, "caption": ""}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    base = tmp_path_factory.mktemp("egoeval")
    out = base / "egogazevqa"
    import_release(write_release(base / "release"), out, "1.0.0", progress=False)
    return out


def test_gazet_lines_and_prompts():
    frames = [_frame(0.1234, 0.5), _frame(math.nan, math.nan, False), _frame(0.9, 0.05)]
    assert gaze_lines(frames) == ("Gaze information for the relevant frames:\nFrame 1: Gaze(0.123, 0.500)\n"
                                  "Frame 2: Gaze unavailable\nFrame 3: Gaze(0.900, 0.050)")
    plain = question_prompt("Q?", OPTIONS, frames)
    assert plain == ("Question: Q?\nOptions:\nA. The cutting board.\nB. The stove.\nC. The refrigerator.\n"
                     "D. The plate on the counter.\nE. The sink.\n"
                     "Answer with only the letter (A, B, C, D, or E) of the correct option.")
    text = question_prompt("Q?", OPTIONS, frames, gaze="text")
    assert text.startswith("Gaze information for the relevant frames:\nFrame 1: Gaze(0.123, 0.500)")
    assert text.endswith(plain)
    assert "red circle" in question_prompt("Q?", OPTIONS, frames, gaze="visual")
    assert "Frames 1-3" in question_prompt("Q?", OPTIONS, frames, gaze="salience")
    ref = question_prompt("Q?", OPTIONS, frames, gaze="visual", mode="reference")
    assert "red circle spot" in ref and "Options:\nA: The cutting board.\nB: The stove." in ref
    assert ref.endswith("Choose the most appropriate option. Only return the letter of the correct option.")
    with pytest.raises(ValueError, match="gaze mode"):
        question_prompt("Q?", OPTIONS, frames, gaze="overlay")


def test_gazev_circle_pixels():
    assert gazev_radius(1920, 1080) == 25 and gazev_radius(960, 540) == 13 and gazev_radius(64, 48) == 3
    image = np.full((1080, 1920, 3), 100, np.uint8)
    marked = gazev_frame(image, _frame(0.25, 0.5))
    cx, cy = 480, 540
    assert tuple(marked[cy, cx + 25]) == (0, 0, 255) and tuple(marked[cy - 25, cx]) == (0, 0, 255)
    assert tuple(marked[cy, cx]) == (100, 100, 100)  # an outline: the gazed object stays visible
    assert tuple(marked[cy, cx + 40]) == (100, 100, 100)
    changed = np.argwhere(np.any(marked != image, axis=2))
    dist = np.hypot(changed[:, 1] - cx, changed[:, 0] - cy)
    assert dist.min() >= 25 - 3 - 1 and dist.max() <= 25 + 3 + 1  # thickness max(2, round(25/8)) = 3
    assert np.array_equal(gazev_frame(image, _frame(0.25, 0.5, valid=False)), image)
    assert np.array_equal(gazev_frame(image, _frame(1.2, 0.5)), image)  # off-frame gaze: no mark


def test_gazes_map_brightest_at_last_point():
    frames = [_frame(0.2, 0.3), _frame(math.nan, math.nan, False), _frame(0.5, 0.5), _frame(0.8, 0.7)]
    sal = salience_image(frames, 320, 240)
    assert sal.shape == (240, 320) and sal.dtype == np.uint8
    y, x = np.unravel_index(int(np.argmax(sal)), sal.shape)
    assert abs(x - 256) <= 1 and abs(y - 168) <= 1  # the last point, (0.8 * 320, 0.7 * 240)
    assert sal[168, 256] > sal[120, 160] > sal[72, 64] > sal[10, 310]  # later points brighter


def test_docs_and_visual_forms(root, monkeypatch, tmp_path):
    monkeypatch.setenv("EGOGAZEVQA_ROOT", str(root))
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "cache"))
    docs = ev.load_docs("causal", "visual")
    assert len(docs) == 1 and docs[0]["benchmark"] == "egogazevqa" and ev.doc_target(docs[0]) == "D"
    images = ev.doc_visuals(docs[0])
    assert len(images) == 9 and images[0].size == (64, 48)
    x, y = gaze_at(0, 3)
    cx, cy = int(x * 64), int(y * 48)
    assert images[0].getpixel((cx + 3, cy))[0] > 200 and images[0].getpixel((cx + 3, cy))[2] < 60  # red (RGB)
    sal = ev.doc_visuals(ev.load_docs("causal", "salience")[0])
    assert len(sal) == 10 and sal[0].size == (64, 48)
    monkeypatch.setenv("EGOGAZEVQA_VISUALS", "clip")
    (clip,) = ev.doc_visuals(ev.load_docs("causal", "none")[0])
    info = probe_video(clip)
    assert clip.endswith(".mp4") and info.n_frames == 9 and (info.width, info.height) == (64, 48)
    monkeypatch.setenv("EGOGAZEVQA_VISUALS", "gif")
    with pytest.raises(StreamGazeError, match="EGOGAZEVQA_VISUALS"):
        ev.load_docs("causal")


def test_wrong_dataset_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("EGOGAZEVQA_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StreamGazeError, match=r"looked at \./egogazevqa"):
        ev.load_docs("spatial")


TRICKY = [  # response, our parser's letter, exact-match verdict (answer C)
    ("C", "C", True),
    ("C.", "C", False),
    (" C", "C", False),
    ("(C)", "C", False),
    ("C: The refrigerator.", "C", False),
    ("The answer is C.", "C", False),
    ("the refrigerator", "C", False),
    ("c", "C", False),
    ("I think it is the refrigerator", "C", False),
    ("<answer>C</answer>", "C", False),
    ("**C**", "C", False),
    ("A", "A", False),
    ("B or C", None, False),
    ("E", "E", False),
]


@pytest.mark.parametrize("response,parsed,exact", TRICKY)
def test_parser_versus_exact_match(response, parsed, exact):
    doc = {"question_id": "q", "task": "spatial", "video_id": "v", "source": "ego4d", "scenario": "",
           "activity": "", "options": OPTIONS, "answer": "C", "gaze": "none", "visual_form": "images"}
    ours = ev.score_doc({**doc, "prompt_mode": "default"}, response)
    ref = ev.score_doc({**doc, "prompt_mode": "reference"}, response)
    assert ours["parsed"] == parsed and ours["correct"] == (parsed == "C")
    assert ours["exact_match"] == exact and ref["correct"] == exact and ref["parsed"] == parsed


def test_breakdown_per_source_scenario_activity():
    recs = [{"task": "spatial", "source": "ego4d", "scenario": "", "activity": "", "correct": True, "parsed": "A"},
            {"task": "causal", "source": "egtea", "scenario": "Kitchen", "activity": "Cooking", "correct": False,
             "parsed": None},
            {"task": "causal", "source": "egtea", "scenario": "Kitchen", "activity": "Cooking", "correct": True,
             "parsed": "B"}]
    by_source = ev.breakdown(recs, "source")
    assert by_source["ego4d"]["accuracy"] == 1.0 and by_source["egtea"]["accuracy"] == 0.5
    assert by_source["egtea"]["n_unparsed"] == 1
    assert list(ev.breakdown(recs, "scenario")) == ["", "Kitchen"]
    assert ev.breakdown(recs, "task")["causal"]["n"] == 2
