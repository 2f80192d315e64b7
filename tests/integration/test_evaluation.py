import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.helpers import piecewise_track

FIX = [{"start": 0.0, "end": 2.0, "x": 0.2, "y": 0.2}, {"start": 3.0, "end": 6.0, "x": 0.7, "y": 0.7},
       {"start": 8.0, "end": 9.0, "x": 0.4, "y": 0.4}]


def test_clip_fixations_never_uses_gaze_after_the_window_end():
    # gaze at (0.7, 0.7) from 3.0 to 4.5 s, then at (0.9, 0.9): a fixation running at t = 4.0 must
    # get the centroid of the samples up to 4.0 only.
    tr = piecewise_track([(90, 0.2, 0.2, True), (45, 0.7, 0.7, True), (60, 0.9, 0.9, True)])
    got = evaluation.clip_fixations(FIX, 4.0, tr)
    assert [f["start"] for f in got] == [0.0, 3.0]
    assert got[1]["end"] == 4.0 and got[1]["x"] == pytest.approx(0.7) and got[1]["y"] == pytest.approx(0.7)
    assert evaluation.clip_fixations(FIX, 4.0, None) == FIX[:1]  # no samples: the running one is dropped
    assert evaluation.clip_fixations(FIX, 10.0, None) == FIX


def test_settings_from_the_environment(monkeypatch):
    from streamgaze_hf.evaluation.settings import RunSettings

    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "reference")
    assert RunSettings.from_env().prompt_mode == "reference"
    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "fancy")
    with pytest.raises(StreamGazeError, match="STREAMGAZE_PROMPT_MODE"):
        RunSettings.from_env()
    monkeypatch.delenv("STREAMGAZE_PROMPT_MODE")
    monkeypatch.setenv("STREAMGAZE_CLIP_FPS", "2")
    assert RunSettings.from_env().clip_fps == 2.0
    for bad in ("0", "-1", "fast"):
        monkeypatch.setenv("STREAMGAZE_CLIP_FPS", bad)
        with pytest.raises(StreamGazeError):
            RunSettings.from_env()


def test_proactive_docs_expand_to_one_per_checkpoint_with_their_own_window(demo_dataset):
    import datasets

    rows = datasets.load_dataset(str(demo_dataset), "gta", split="test")
    docs = evaluation.load_docs("gta", "text", demo_dataset)
    assert len(docs) == sum(len(r["checkpoints"]) for r in rows)
    for d in docs:
        assert d["window_start"] == 0.0 and d["window_end"] == d["checkpoint_time"]
        assert all(f["end"] <= d["checkpoint_time"] + 1e-9 for f in d["fixations"])
        assert d["checkpoint_label"] in ("Yes", "No") and evaluation.doc_target(d) == d["checkpoint_label"]
        prompt = evaluation.doc_prompt(d)
        assert "Is the user gazing at the" in prompt
        if d["fixations"]:  # _textgaze: the fixation list known at the checkpoint is in the prompt
            assert f"Fixation {len(d['fixations'])} (" in prompt
            assert f"Fixation {len(d['fixations']) + 1} (" not in prompt
    assert np.mean([d["checkpoint_label"] == "Yes" for d in docs]) > 0.1


def test_only_the_text_and_salience_documents_carry_fixations(demo_dataset):
    """The visual and no-gaze documents (what lmms-eval holds and logs) carry no fixation lists; the
    text and salience ones carry each window's, and prompts of the other variants do not change."""
    text = evaluation.load_docs("nfi", "text", demo_dataset)
    visual = evaluation.load_docs("nfi", "visual", demo_dataset)
    assert sum(len(d["fixations"]) for d in text) > len(text)  # the demo's past windows have several each
    assert all(d["fixations"] == [] for d in visual)
    assert [d["question_id"] for d in visual] == [d["question_id"] for d in text]
    assert all(d["fixations"] == [] for d in evaluation.load_docs("gta", "none", demo_dataset))
    assert any(d["fixations"] for d in evaluation.load_docs("gta", "salience", demo_dataset))
    assert "Fixation 1 (" in evaluation.doc_prompt(text[0])
    assert "Fixation" not in evaluation.doc_prompt(visual[0])
