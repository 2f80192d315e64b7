"""The timing scripts in perf/ are not run by the suite (minutes each), but they must keep importing:
a refactor of the library must not break them silently."""

import importlib.util
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[2] / "perf"


@pytest.mark.parametrize("name", ["overlay", "clips", "frames_to_model", "model_ready", "model_wait",
                                  "full_benchmark", "own_recordings", "leaderboard_service", "leaderboard_sync",
                                  "leaderboard_jobs", "cli_startup", "clip_write", "store", "unit_hold"])
def test_perf_script_imports(name):
    spec = importlib.util.spec_from_file_location(f"perf_{name}", PERF / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None))


def test_full_benchmark_has_the_release_shape():
    """perf/full_benchmark.py at scale 1: 285 videos, 64 h, 8,521 questions in the release's
    task counts, and questions that pass the dataset writer's validation."""
    import numpy as np

    from streamgaze_hf.benchmarks.streamgaze.qa.validate import validate_qa_row

    spec = importlib.util.spec_from_file_location("perf_full", PERF / "full_benchmark.py")
    fb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fb)
    n_videos, counts = fb.scaled_counts(1.0)
    assert n_videos == 285 and sum(counts.values()) == 8521
    assert sum(counts[t] for t in ("nfi", "otp", "sr", "gsm", "oi_easy", "oi_hard", "oar", "fap")) == 6325
    d = fb.durations(285, 64 * 3600, np.random.default_rng(0))
    assert min(d) >= 120 and abs(sum(d) - 64 * 3600) <= 285
    videos = {f"v{k}": {"dur": 600 + 100 * k, "fstart": np.arange(0, 599, 0.6), "fx": np.full(999, 0.5),
                        "fy": np.full(999, 0.5)} for k in range(3)}
    qa = fb._qa_rows(videos, fb.scaled_counts(0.02)[1], np.random.default_rng(1))
    assert {t: len(rows) for t, rows in qa.items()} == fb.scaled_counts(0.02)[1]
    for rows in qa.values():
        for r in rows:
            assert validate_qa_row(r, duration=videos[r["video_id"]]["dur"]) == []


def test_an_unknown_task_of_a_benchmark_is_a_clear_error_before_any_reading(tmp_path):
    from streamgaze_hf.benchmarks.egogazevqa import evaluation as ego
    from streamgaze_hf.benchmarks.streameqa import evaluation as eqa
    from streamgaze_hf.benchmarks.vl4gaze import evaluation as vl
    from streamgaze_hf.util.errors import StreamGazeError

    for module, name in ((ego, "EgoGazeVQA"), (eqa, "StreamEQA"), (vl, "VL4Gaze")):
        with pytest.raises(StreamGazeError, match=r"unknown \w+ task 'nope'; tasks are ") as exc:
            module.load_docs("nope", dataset=tmp_path / "no_dataset_here")
        assert "no_dataset_here" not in str(exc.value), name  # the task is checked before the dataset
