"""What a submission says about the frames its model was handed (issue 36): the model-ready frames in its
settings, the wrapper's time reading video in its run, and the leaderboard's efficiency column from them."""

from __future__ import annotations

import copy

import pytest

from streamgaze_hf.leaderboard.rows import benchmark_columns, efficiency_text
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.submission.schema import check_structure
from streamgaze_hf.submission.strictjson import StrictJSONError

SUBMISSION = {
    "schema_version": 2, "toolkit_version": "0.1.0", "benchmark": "streamgaze",
    "dataset": {"version": "0.1.0", "manifest_sha256": "0" * 64},
    "settings": {"gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default",
                 "model_ready": "qwen2_5_vl/chat fps=null max_num_frames=32 max_pixels=1605632 min_pixels=200704 "
                                "reader=decord v1"},
    "model": {"name": "m", "url": "", "params": "7B", "frames": "32"},
    "run": {"harness": "lmms-eval", "harness_version": "0.7.3", "model": "qwen2_5_vl", "model_args": "", "date": "",
            "limit": None, "video_read_s": 12.5, "video_read_share": 0.021, "video_read_median_ms": 9.4},
    "answers": {}, "scores": {},
}


def test_a_submission_may_carry_its_model_ready_frames_and_reading_time():
    check_structure(copy.deepcopy(SUBMISSION))
    older = copy.deepcopy(SUBMISSION)  # files made before issue 36 carry neither
    del older["settings"]["model_ready"]
    for k in ("video_read_s", "video_read_share", "video_read_median_ms"):
        del older["run"][k]
    check_structure(older)
    for field, value in (("video_read_share", 1.5), ("video_read_s", -1), ("video_read_median_ms", "9 ms")):
        bad = copy.deepcopy(SUBMISSION)
        bad["run"][field] = value
        with pytest.raises(StrictJSONError, match=field):
            check_structure(bad)


def test_the_leaderboard_shows_the_reading_time_where_measured():
    # shown after the label "Video reading": the words are not said twice, a tiny share is not "0.0%"
    assert efficiency_text(SUBMISSION["run"]) == "2.1% of the run, 9 ms a question"
    assert efficiency_text({"video_read_share": 0.0004, "video_read_median_ms": 5}) == "under 0.1% of the run, 5 ms a question"
    assert efficiency_text({"harness": "lmms-eval"}) == ""
    column = next(c for c in benchmark_columns(get_benchmark("streamgaze")) if c.key == "efficiency")
    assert column.label == "Video reading" and column.settings
