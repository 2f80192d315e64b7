"""lmms-eval's own VLM wrappers on tiny random-weight checkpoints of real architectures (issue 9).

Through the real lmms-eval CLI (``--limit 1``), every wrapper runs every gaze variant of one task per
category (past, present, proactive), which covers each of its code paths (video only, video + salience
image, checkpoints); the Qwen2.5-VL chat wrapper also runs all ten tasks in the main (visual) setting. A probe (``tests/fixtures/probe/sitecustomize.py``) records what each Hugging Face processor call received:
the tests check that every sample has a non-empty response, that the clip reached the processor (and,
in ``_salience``, the salience map as an image), and that every frame handed over is a frame of the
document's window, read from the demo world's burnt-in frame codes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from streamgaze_hf.benchmarks.streamgaze.evaluation import GAZE_VARIANTS, load_docs
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.dataset.files import data_file

from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.tiny_checkpoints import tiny_checkpoints

pytestmark = pytest.mark.slow
PROBE_DIR = Path(__file__).parents[1] / "fixtures" / "probe"
#: one task per category in every gaze variant
PER_CATEGORY = [f"streamgaze_{task}{suffix}" for suffix in GAZE_VARIANTS for task in ("nfi", "oi_easy", "gta")]
SUFFIX_TO_GAZE = dict(GAZE_VARIANTS)


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Built once per test run, shared by the xdist workers."""
    return tiny_checkpoints(tmp_path_factory, "qwen2_5_vl", "llava_onevision")


WRAPPERS = {
    "qwen2_5_vl_chat": lambda m: ["--model", "qwen2_5_vl", "--model_args",
                                  f"pretrained={m['qwen2_5_vl']},device=cpu,device_map=cpu,max_pixels=76800,"
                                  "min_pixels=3136,max_num_frames=6"],
    "qwen2_5_vl_simple": lambda m: ["--model", "qwen2_5_vl", "--force_simple", "--model_args",
                                    f"pretrained={m['qwen2_5_vl']},device=cpu,device_map=cpu,max_pixels=76800,"
                                    "min_pixels=3136,max_num_frames=6"],
    "llava_onevision": lambda m: ["--model", "streamgaze_llava_hf", "--model_args",
                                  f"pretrained={m['llava_onevision']},device=cpu,device_map=cpu,max_frames_num=6"],
}


def _task_gaze(name: str) -> tuple[str, str]:
    for suffix in sorted(GAZE_VARIANTS, key=len, reverse=True):
        if suffix and name.endswith(suffix):
            return name[len("streamgaze_"):-len(suffix)], SUFFIX_TO_GAZE[suffix]
    return name[len("streamgaze_"):], "visual"


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_wrapper_runs_every_task_and_variant_on_window_frames(wrapper, tiny_models, demo_dataset, tmp_path,
                                                              tmp_path_factory):
    probe = tmp_path / "probe.jsonl"
    clips = tmp_path_factory.getbasetemp().parent / "wrapper_clips"  # clips shared by the wrappers (the same documents)
    geometry = pq.read_table(data_file(demo_dataset, "videos")).to_pylist()
    sizes = {(g["width"], g["height"]) for g in geometry}
    assert len(sizes) == 1
    (width, height), fps = sizes.pop(), {g["video_id"]: g["fps"] for g in geometry}
    env = {"PYTHONPATH": os.pathsep.join([str(PROBE_DIR), os.environ.get("PYTHONPATH", "")]),
           "STREAMGAZE_PROBE_LOG": str(probe), "STREAMGAZE_PROBE_FRAME_SIZE": f"{width}x{height}",
           "STREAMGAZE_CLIP_CACHE": str(clips)}
    names = PER_CATEGORY + ([t.lmms_name for t in TASKS if t.lmms_name not in PER_CATEGORY]
                            if wrapper == "qwen2_5_vl_chat" else [])
    proc, results, samples = run_lmms_eval([*WRAPPERS[wrapper](tiny_models), "--tasks", ",".join(names),
                                            "--limit", "1"], demo_dataset, tmp_path / "out", env_extra=env)
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(samples) == sorted(names)
    # by default the wrapper is handed model-ready clips (issue 36), recorded in every sample and the results;
    # the time it spent reading them is measured per question
    kind = "simple" if "--force_simple" in WRAPPERS[wrapper](tiny_models) else "chat"
    model = WRAPPERS[wrapper](tiny_models)[1]
    assert {s["accuracy"]["model_ready"].split()[0] for recs in samples.values() for s in recs} == {f"{model}/{kind}"}
    read = results["streamgaze"]["video_read"]
    assert read["questions"] == len(names) and read["video_read_s"] > 0 and 0 < read["video_read_share"] < 1
    assert "streamgaze: video: the model wrapper spent" in proc.stderr
    calls = [json.loads(line) for line in probe.read_text().splitlines()]
    assert len(calls) == len(names)  # one processor call per document (batch size 1)
    # A call belongs to the longest prompt it contains (one variant's prompt can extend another's).
    prompts = {name: samples[name][0]["input"].strip() for name in names}
    owner = {}
    for i, call in enumerate(calls):
        text = "".join(call["text"] if isinstance(call["text"], list) else [call["text"]])
        found = [name for name, p in prompts.items() if p in text]
        assert found, f"a processor call with no known prompt: {text[-300:]}"
        owner[i] = max(found, key=lambda n: len(prompts[n]))

    for name in names:
        task_id, gaze = _task_gaze(name)
        (sample,) = samples[name]
        rec = sample["accuracy"]
        assert rec["task"] == task_id and rec["gaze"] == gaze
        assert rec["response"].strip(), (name, rec["response"])
        doc = next(d for d in load_docs(task_id, gaze, demo_dataset)
                   if d["question_id"] == rec["question_id"] and d["checkpoint_index"] == rec["checkpoint_index"])
        mine = [c for i, c in enumerate(calls) if owner[i] == name or prompts[owner[i]] == prompts[name]]
        assert mine, f"{name}: the prompt never reached the processor"
        start, end, rate = float(doc["window_start"]), float(doc["window_end"]), fps[doc["video_id"]]
        for call in mine:
            assert len(call["images"]) == (1 if gaze == "salience" else 0), (name, call["images"])
            assert len(call["videos"]) == 1, name
            codes = call["videos"][0]
            assert codes and None not in codes, (name, codes)
            times = [c / rate for c in codes]
            assert min(times) >= start - 1.0 / rate - 1e-6, (name, start, times)
            assert max(times) <= end + 1e-6, (name, end, times)  # never a frame after the window end
            assert codes == sorted(codes)
