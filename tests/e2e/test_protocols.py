"""Evaluation protocols (issue 9): the official wrappers' frame sampling and generation, selectable and recorded."""

import pytest

from streamgaze_hf.benchmarks.streamgaze.evaluation import doc_visuals, load_docs
from streamgaze_hf.evaluation.protocols import PROTOCOLS, get_protocol
from streamgaze_hf.evaluation.settings import RunSettings
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.clips import clip_frame_times

from ..fixtures.lmms_run import run_lmms_eval


def test_frame_rules_follow_the_official_wrappers():
    qwen, api, internvl = (get_protocol(n) for n in ("paper_qwen2_5_vl", "paper_api", "paper_internvl"))
    assert [qwen.fps_cap(d) for d in (10, 30, 31, 60, 61, 300, 301)] == [1.0, 1.0, 0.5, 0.5, 0.2, 0.2, 0.1]
    assert api.fps_cap(60) == pytest.approx(16 / 60, rel=1e-5)  # 16 frames d/16 apart, the last at the end
    assert [internvl.fps_cap(d) * d for d in (20, 45, 200, 900)] == pytest.approx([8, 16, 32, 64], rel=1e-5)
    assert PROTOCOLS["default"].fps_cap(60) is None and PROTOCOLS["default"].gen_kwargs() == ""
    assert qwen.gen_kwargs() == "max_new_tokens=128,temperature=0.7,top_p=0.8,do_sample=True"


def test_unknown_protocol_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("STREAMGAZE_PROTOCOL", "paper_llama")
    with pytest.raises(StreamGazeError, match=r"\$STREAMGAZE_PROTOCOL: unknown protocol 'paper_llama'"):
        RunSettings.from_env()


@pytest.mark.parametrize("name, expected", [("paper_api", lambda d: 16), ("paper_qwen2_5_vl", None)])
def test_protocol_clips_hold_the_family_frames(demo_dataset, tmp_path, monkeypatch, name, expected):
    monkeypatch.setenv("STREAMGAZE_PROTOCOL", name)
    docs = [d for d in load_docs("oi_easy", "none", demo_dataset) if d["window_end"] - d["window_start"] > 20][:3]
    assert docs
    for doc in docs:
        assert doc["protocol"] == name
        start, end = doc["window_start"], doc["window_end"]
        (clip,) = doc_visuals(doc, cache_dir=tmp_path)
        times = clip_frame_times(clip)
        assert times[-1] <= end + 1e-9 and times[0] >= start - 1e-9  # never a frame outside the window
        if expected is not None:
            assert len(times) == expected(end - start)
        else:  # Qwen: one frame per 1 / fps seconds, backwards from the window end
            fps = get_protocol(name).fps_cap(end - start)
            assert len(times) == int((times[-1] - start) * fps + 1e-9) + 1
            assert all(b - a >= 1 / fps - 1e-6 for a, b in zip(times, times[1:]))


@pytest.mark.slow
def test_eval_protocol_reaches_lmms_eval_and_every_record(demo_dataset, tmp_path):
    proc, results, samples = run_lmms_eval(
        ["--model", "streamgaze_random", "--tasks", "streamgaze_oi_easy,streamgaze_gta", "--limit", "2"],
        demo_dataset, tmp_path, eval_args=["--protocol", "paper_api", "--prompt-mode", "reference"])
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert results["streamgaze"]["protocol"] == "paper_api"
    assert results["streamgaze"]["prompt_mode"] == "reference"
    assert results["config"]["gen_kwargs"] == {"max_new_tokens": 1536, "temperature": 0.7, "top_p": 0.8, "do_sample": True}
    recs = [s["accuracy"] for recs in samples.values() for s in recs]
    assert len(recs) == 4 and {(r["protocol"], r["prompt_mode"]) for r in recs} == {("paper_api", "reference")}
    # the submission and its validation name the protocol; a leaderboard row shows it under the model
    from streamgaze_hf.cli import main
    from streamgaze_hf.leaderboard.site import submission_row
    from streamgaze_hf.submission.validate import validate_submission

    sub_path = tmp_path / "sub.json"
    assert main(["submit", str(tmp_path), "--dataset", str(demo_dataset), "--model-name", "Random (paper_api)",
                 "--out", str(sub_path)]) == 0
    report = validate_submission(sub_path, demo_dataset)
    assert report.submission["settings"]["protocol"] == "paper_api"
    assert "protocol paper_api" in report.format()
    assert submission_row(report).settings["protocol"] == "paper_api"
