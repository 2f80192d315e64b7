"""lmms-eval's own wrappers as streaming models (issue 54 items 1 and 5): ``streamgaze stream-eval --model lmms:<name>``
through the installed script, on tiny random-weight checkpoints built locally.

* Same answers as lmms-eval: with ``--poll checkpoints`` and every frame, the streaming run gives the responses
  ``streamgaze eval`` gives for the same documents, and its wrapper's processor is handed the same prompts and the
  same frames (read from the demo world's burnt-in frame codes by the probe, ``tests/fixtures/probe``), for the
  Qwen2.5-VL chat wrapper and the LLaVA simple wrapper; the clips of a video are made in one pass (no source frame
  decoded twice).
* Polling every second writes the response log and the metrics, and no frame after the stream time reaches the
  wrapper: checked on the frames its processor receives at each poll.
* A wrapper the toolkit does not cover is refused with one line.
* Each request carries what lmms-eval's task gives it: our task file read by lmms-eval's own loader.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.streaming.runner import load_plan
from streamgaze_hf.harness.task_files import committed_tasks_dir
from streamgaze_hf.harness.wrapper_requests import task_requests
from streamgaze_hf.video.frame_reader import probe_video

from ..fixtures.cli_entry import REPO, one_error_line, streamgaze
from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.tiny_checkpoints import tiny_checkpoints

pytestmark = pytest.mark.slow
PROBE_DIR = Path(__file__).parents[1] / "fixtures" / "probe"
#: (lmms-eval --model, stream-eval's lmms: name, checkpoint, model args)
WRAPPERS = {
    "qwen2_5_vl": ("qwen2_5_vl", "lmms:qwen2_5_vl", "qwen2_5_vl",
                   "pretrained={},device=cpu,device_map=cpu,max_pixels=76800,min_pixels=3136,max_num_frames=6"),
    "llava_hf": ("llava_hf", "lmms:llava_hf/simple", "llava_onevision",
                 "pretrained={},device=cpu,device_map=cpu,max_frames_num=4"),
}


def _probe_env(log: Path, demo_dataset: Path) -> dict:
    import pyarrow.parquet as pq

    from streamgaze_hf.dataset.files import data_file

    (size,) = {(g["width"], g["height"]) for g in pq.read_table(data_file(demo_dataset, "videos")).to_pylist()}
    return {"PYTHONPATH": os.pathsep.join([str(PROBE_DIR), os.environ.get("PYTHONPATH", "")]),
            "STREAMGAZE_PROBE_LOG": str(log), "STREAMGAZE_PROBE_FRAME_SIZE": f"{size[0]}x{size[1]}"}


def _calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _records(out: Path) -> list[dict]:
    """The run's responses in the order the model gave them (videos in order, each in stream order)."""
    return [json.loads(line) for p in sorted((out / "videos").glob("*.jsonl")) for line in p.read_text().splitlines()]


def _seen(call: dict) -> tuple[str, tuple[int, ...]]:
    """What one processor call was handed: its text and the frame code of every video frame."""
    (codes,) = call["videos"]
    assert codes and None not in codes, codes
    return json.dumps(call["text"]), tuple(codes)


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_a_streaming_run_gives_the_answers_and_input_of_streamgaze_eval(wrapper, demo_dataset, tmp_path,
                                                                        tmp_path_factory):
    model, streaming_name, arch, args = WRAPPERS[wrapper]
    model_args = args.format(tiny_checkpoints(tmp_path_factory, arch)[arch])
    gen = "max_new_tokens=24"
    proc, results, samples = run_lmms_eval(
        ["--model", model, *(["--force_simple"] if streaming_name.endswith("/simple") else []), "--model_args",
         model_args, "--tasks", "streamgaze_oi_easy,streamgaze_gta", "--limit", "1", "--gen_kwargs", gen],
        demo_dataset, tmp_path / "eval", env_extra=_probe_env(tmp_path / "eval_probe.jsonl", demo_dataset))
    assert results is not None, proc.stderr[-3000:]
    expected = {(s["accuracy"]["question_id"], s["accuracy"]["checkpoint_index"]): s["accuracy"]["response"]
                for recs in samples.values() for s in recs}
    assert len(expected) == 2 and {cp for _q, cp in expected} == {-1, 0}

    out = tmp_path / "stream"
    # `streamgaze stream-eval ...` with the frames decoded from each source video counted (decode_count_run.py)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home"),
           "STREAMGAZE_CLIP_CACHE": str(tmp_path / "clip-cache"),
           **_probe_env(tmp_path / "stream_probe.jsonl", demo_dataset)}
    run = subprocess.run([sys.executable, str(REPO / "tests" / "fixtures" / "decode_count_run.py"),
                          str(tmp_path / "counts.json"), "stream-eval", str(demo_dataset), "--out", str(out),
                          "--model", streaming_name, "--model-args", model_args, "--gen-kwargs", gen, "--tasks",
                          "oi_easy", "gta", "--limit", "1"], capture_output=True, text=True, timeout=1200, env=env,
                         cwd=str(REPO))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = json.loads((tmp_path / "counts.json").read_text())["counts"]
    assert counts and all(n == 1 for c in counts.values() for n in c.values())  # one pass per video: once a frame
    records = _records(out)
    got = {(r["question_id"], r["checkpoint_index"]): r["response"] for r in records}
    assert {k: got.get(k) for k in expected} == expected
    assert len(records) == 3  # the question of gta polled at its two checkpoints
    assert all(r["stream_time"] >= r["query_time"] for r in records)
    # the same input: each of eval's processor calls is the streaming call of the same document
    calls = _calls(tmp_path / "stream_probe.jsonl")
    assert len(calls) == len(records)  # one wrapper call per poll
    mine = sorted(_seen(c) for r, c in zip(records, calls) if (r["question_id"], r["checkpoint_index"]) in expected)
    theirs = sorted(_seen(c) for c in _calls(tmp_path / "eval_probe.jsonl"))
    assert mine == theirs
    assert len({codes for _text, codes in mine}) == len(mine)  # every window its own frames
    meta = json.loads((out / "stream_run.json").read_text())["settings"]
    assert meta["model"] == streaming_name and meta["model_ready"].startswith('{"args"')


def test_polling_every_second_through_an_lmms_wrapper_never_shows_it_a_later_frame(demo_dataset, tmp_path,
                                                                                    tmp_path_factory):
    _model, streaming_name, arch, args = WRAPPERS["llava_hf"]
    model_args = args.format(tiny_checkpoints(tmp_path_factory, arch)[arch]).replace("max_frames_num=4",
                                                                                    "max_frames_num=2")
    out = tmp_path / "run"
    run = streamgaze("stream-eval", demo_dataset, "--out", out, "--model", streaming_name, "--model-args", model_args,
                     "--gen-kwargs", "max_new_tokens=1", "--tasks", "oar", "gta", "--limit", "1", "--poll", "1",
                     tmp=tmp_path, env=_probe_env(tmp_path / "probe.jsonl", demo_dataset), timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "checkpoint protocol overall" in run.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["videos"]["done"] == metrics["videos"]["total"] and "gta" in metrics["streaming"]
    plan = load_plan(demo_dataset, "visual", tasks=("oar", "gta"), limit=1)
    questions = {q.question_id: (q, v) for v in plan.videos.values() for q in v.questions}
    records = _records(out)
    assert {r["question_id"] for r in records} == set(questions) and len(questions) == 2
    calls = _calls(tmp_path / "probe.jsonl")
    assert len(calls) == len(records)
    polls = 0
    for r, call in zip(records, calls):
        q, video = questions[r["question_id"]]
        ft = probe_video(video.source).frame_times
        _text, codes = _seen(call)
        times = ft[list(codes)]
        now = r["stream_time"]
        assert times.max() <= now + 1e-6, (r, codes)  # no frame after the stream time reached the wrapper
        # the window ends at the stream time: its last frame is the last frame at or before it
        assert codes[-1] == int(np.flatnonzero(ft <= now + 1e-6)[-1]), (r, codes)
        assert times.min() >= q.window_start - 1e-6, (r, codes)
        if r["task"] == "gta":
            assert now == pytest.approx(q.time + polls) and r["checkpoint_index"] == -1
            polls += 1
        else:
            assert now == pytest.approx(q.time) and r["checkpoint_index"] == -1
    gta, video = next(qv for qv in questions.values() if qv[0].task == "gta")
    assert polls == int((video.duration - gta.time) // 1.0) + 1 > 20  # every second to the end of the video


def test_a_wrapper_the_toolkit_does_not_cover_is_refused_in_one_line(tmp_path):
    def refused(*args) -> str:
        return one_error_line(streamgaze("stream-eval", tmp_path / "no-dataset", "--out", tmp_path / "out", *args,
                                         tmp=tmp_path))

    chat = refused("--model", "lmms:llava_hf")
    assert "llava_hf/chat with these model args is not covered by the toolkit's table of model-ready frames" in chat
    assert chat.endswith("(its simple wrapper is covered: --model lmms:llava_hf/simple)")
    assert "sglang/chat: it hands the clip's path to the SGLang engine" in refused("--model", "lmms:sglang")
    assert "--fps 2 does not apply" in refused("--model", "lmms:qwen2_5_vl", "--fps", "2")
    assert "--gen-kwargs is for an lmms-eval wrapper" in refused("--model", "random", "--gen-kwargs", "x=1")
    assert not (tmp_path / "out").exists()


def test_a_task_file_gives_lmms_evals_generation_and_the_glue_functions():
    import lmms_tasks.utils as glue

    gta = committed_tasks_dir() / "streamgaze" / "streamgaze_gta.yaml"
    t = task_requests(gta, "qwen2_5_vl")
    assert t.name == "streamgaze_gta"
    # the template's generation as lmms-eval's TaskConfig completes it (its fewshot delimiter as the stop string)
    assert t.generation_kwargs == {"max_new_tokens": 64, "temperature": 0.0, "do_sample": False, "until": ["\n\n"]}
    assert (t.doc_to_visual, t.doc_to_text, t.doc_to_messages) == (glue.doc_to_visual, glue.doc_to_text,
                                                                    glue.doc_to_messages)
    assert t.specific_kwargs["pre_prompt"] == "" and t.specific_kwargs["post_prompt"] == ""
    # lmms-eval's --gen_kwargs over them; a reasoning variant keeps its own generation
    assert task_requests(gta, "qwen2_5_vl", {"max_new_tokens": 8}).generation_kwargs == {
        "max_new_tokens": 8, "temperature": 0.0, "do_sample": False, "until": ["\n\n"]}
    cot = task_requests(gta.with_name("streamgaze_gta_cot_text.yaml"), "qwen2_5_vl")
    assert cot.generation_kwargs["max_new_tokens"] == 1024 and cot.generation_kwargs["until"] == []
