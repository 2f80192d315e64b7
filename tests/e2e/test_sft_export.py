"""`streamgaze export-sft`: counts, negative sampling of proactive questions, formats, the eval-card guard."""

import json

import datasets
import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.sft_export import is_eval_card
from streamgaze_hf.benchmarks.streamgaze.streaming.metrics import event_time
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.cli import main
from streamgaze_hf.video.clips import read_sidecar
from streamgaze_hf.video.frame_reader import probe_video

pytestmark = pytest.mark.slow


def test_export_refuses_eval_data_then_writes_samples_with_negative_sampling(demo_dataset, tmp_path, capsys):
    out = tmp_path / "sft"
    assert is_eval_card(demo_dataset)
    assert main(["export-sft", str(demo_dataset), "--out", str(out)]) == 2
    assert "evaluation set" in capsys.readouterr().err and not out.exists()
    assert main(["export-sft", str(demo_dataset), "--out", str(out), "--allow-eval-data"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    rows = {spec.id: datasets.load_dataset(str(demo_dataset), spec.id, split="test") for spec in TASKS}
    assert manifest["samples"]["per_task"] == {t: len(r) for t, r in rows.items()}
    assert manifest["samples"]["n"] == len(samples) == sum(len(r) for r in rows.values())
    assert manifest["eval_card"] is True and manifest["allow_eval_data"] is True and manifest["format"] == "llava"
    by_id = {s["id"]: s for s in samples}
    silent = 0
    for spec in TASKS:
        for row in rows[spec.id]:
            s = by_id[row["question_id"]]
            conv = s["conversations"]
            assert conv[0]["from"] == "human" and conv[0]["value"].startswith("<video>\n")
            clip = out / s["video"]
            side = read_sidecar(clip)
            assert side["window"] == pytest.approx(s["window"])
            assert max(side["frame_times"]) <= s["window"][1] + 1e-6  # no frame after the window end
            assert probe_video(clip).n_frames == len(side["frame_times"])
            if not spec.checkpointed:
                letter = row["answer"]
                assert [c["from"] for c in conv] == ["human", "gpt"]
                assert conv[1]["value"] == f"{letter}. {row['options'][ord(letter) - 65]}"
                assert s["window"] == [row["window_start"], row["window_end"]]
                continue
            event = event_time(row)
            before = [c["time"] for c in row["checkpoints"] if c["time"] < event]
            assert [c["time"] for c in conv[1:-1]] == before and all(c["value"] == "" for c in conv[1:-1])
            assert conv[-1]["time"] == pytest.approx(event) and conv[-1]["value"].startswith(
                "You are now gazing at the" if spec.id == "gta" else "The ")
            assert s["window"] == [0.0, pytest.approx(event)] and s["proactive"] is True
            silent += len(before)
    assert manifest["proactive"]["silent_turns"] == silent > 0
    assert manifest["proactive"]["alert_turns"] == len(rows["gta"]) + len(rows["oaa"])
    assert manifest["clips"] == len({s["video"] for s in samples})
    # qwen format: messages with a video part; the same samples in the same order
    q_out = tmp_path / "sft_qwen"
    assert main(["export-sft", str(demo_dataset), "--out", str(q_out), "--format", "qwen", "--allow-eval-data"]) == 0
    q = [json.loads(line) for line in (q_out / "samples.jsonl").read_text().splitlines()]
    assert [s["id"] for s in q] == [s["id"] for s in samples]
    first = q[0]["messages"]
    assert first[0]["role"] == "user" and first[0]["content"][0]["type"] == "video"
    assert first[0]["content"][1]["text"] == samples[0]["conversations"][0]["value"][len("<video>\n"):]
    assert np.all([m["role"] == "assistant" for m in first[1:]])
