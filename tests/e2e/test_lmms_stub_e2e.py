"""A built-in lmms-eval video model (``gpt4v``) against a loopback OpenAI-compatible stub, on all
ten tasks: the stub decodes the frame index burnt into every image it receives and answers with
the indices, and no frame after (or before) a document's window reaches the model.

The first ``LIMIT`` documents of each task go through the wrapper (checkpoints and windows of several
questions); every clip of every document and variant is checked against its window, without a model,
by ``test_clip_windows.py``."""

import json
import re

import datasets
import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.video.frame_reader import probe_video

from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.once import once_per_run
from ..fixtures.openai_stub_server import stub_server as serve_stub

pytestmark = pytest.mark.slow
LIMIT = 5  # documents per task


@pytest.fixture(scope="module")
def stub_server(tmp_path_factory):
    with serve_stub(tmp_path_factory.mktemp("stub")) as url:
        yield url


@pytest.fixture(scope="module")
def stub_run(demo_dataset, stub_server, tmp_path_factory):
    """The gpt4v wrapper's run against the stub (once per test run)."""
    env = {"OPENAI_BASE_URL": stub_server, "OPENAI_API_KEY": "stub", "API_TYPE": "openai"}
    return once_per_run(tmp_path_factory, "test_lmms_stub_e2e.stub_run", lambda out: run_lmms_eval(
        ["--model", "gpt4v", "--model_args", "model_version=stub,max_frames_num=6", "--tasks", "streamgaze", "--limit",
         str(LIMIT)], demo_dataset, out, env_extra=env))


def test_no_frame_outside_any_window_reaches_the_model(stub_run, demo_dataset):
    proc, results, samples = stub_run
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    times = {}  # video id -> source frame times
    checked = 0
    for spec in TASKS:
        rows = {r["question_id"]: r for r in datasets.load_dataset(str(demo_dataset), spec.id, split="test")}
        recs = [s["accuracy"] for s in samples[spec.lmms_name]]
        assert recs, spec.id
        for rec in recs:
            row = rows[rec["question_id"]]
            if row["video_id"] not in times:
                times[row["video_id"]] = probe_video(demo_dataset / row["overlay_path"]).frame_times
            ft = times[row["video_id"]]
            if spec.checkpointed:
                start, end = 0.0, row["checkpoints"][rec["checkpoint_index"]]["time"]
            else:
                start, end = row["window_start"], row["window_end"]
            m = re.fullmatch(r"frames: ([\d,]+)", rec["response"])
            assert m, (rec["question_id"], rec["response"])
            idx = [int(i) for i in m.group(1).split(",")]
            shown = ft[idx]
            assert shown.max() <= end + 1e-6, (spec.id, rec["question_id"], shown.max(), end)
            assert shown.min() >= start - 1e-6, (spec.id, rec["question_id"], shown.min(), start)
            # the model sees the window up to its end: the last frame is the one on screen at `end`
            assert idx[-1] == int(np.searchsorted(ft, end + 1e-6, side="right") - 1)
            checked += 1
    assert checked == sum(len(v) for v in samples.values()) == LIMIT * len(TASKS)
    assert results["results"]["streamgaze"]["accuracy,none"] == 0.0  # "frames: ..." never parses


def test_samples_record_settings(stub_run):
    _, _, samples = stub_run
    rec = samples["streamgaze_nfi"][0]["accuracy"]
    assert rec["gaze"] == "visual" and rec["prompt_mode"] == "default" and rec["clip_fps"] == 0.0
    assert rec["parsed"] is None and rec["correct"] is False
    json.dumps(rec)


def test_the_openai_chat_wrapper_gets_model_ready_frames_each_sent_once(demo_dataset, stub_server, tmp_path):
    """lmms-eval's OpenAI chat wrapper reads through qwen_vl_utils (issue 42): its documents get model-ready clips,
    recorded as such, and the stub receives the window's frames in order, each once (lmms-eval's frame cache keyed
    by ``id()`` could send a freed frame's encoding in place of a later frame: the glue bypasses it)."""
    env = {"OPENAI_BASE_URL": stub_server, "OPENAI_API_KEY": "stub", "API_TYPE": "openai"}
    proc, results, samples = run_lmms_eval(
        ["--model", "openai", "--model_args", f"model_version=stub,base_url={stub_server},api_key=stub,max_frames_num=8",
         "--tasks", "streamgaze_oi_easy,streamgaze_nfi", "--limit", "2"], demo_dataset, tmp_path / "out", env_extra=env)
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = [s["accuracy"] for name in ("streamgaze_oi_easy", "streamgaze_nfi") for s in samples[name]]
    assert {r["model_ready"].split()[0] for r in recs} == {"openai/chat"}
    assert results["streamgaze"]["video_read"]["video_read_s"] > 0 and "full-rate clips" not in proc.stderr
    for rec in recs:
        idx = [int(i) for i in re.fullmatch(r"frames: ([\d,]+)", rec["response"]).group(1).split(",")]
        assert len(idx) == 8 and idx == sorted(set(idx)), (rec["question_id"], idx)


def test_the_openai_chat_wrapper_passing_video_urls_gets_full_rate_clips_and_one_line(demo_dataset, stub_server,
                                                                                      tmp_path):
    """With ``pass_video_url`` the wrapper sends the clip's file:// URL and the server decodes it: the toolkit cannot
    hand it model-ready frames; its documents get the full-rate clips, recorded as such, and `streamgaze eval` says
    why in one line."""
    proc, results, samples = run_lmms_eval(
        ["--model", "openai", "--model_args",
         f"model_version=stub,base_url={stub_server},api_key=stub,max_frames_num=4,pass_video_url=True",
         "--tasks", "streamgaze_oi_easy", "--limit", "2"], demo_dataset, tmp_path / "out",
        env_extra={"OPENAI_API_KEY": "stub"})
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert [s["accuracy"]["model_ready"] for s in samples["streamgaze_oi_easy"]] == ["", ""]
    assert results["streamgaze"]["model_ready"] == ""
    assert re.search(r"lmms-eval's openai \(chat\) wrapper got full-rate clips: with pass_video_url it sends the "
                     r"clip as a file:// URL, and the server decodes it", proc.stderr), proc.stderr[-2000:]
