"""The Hub's benchmark declaration (issue 55): every ``.eval_results`` entry the sync can write names a task id of the
``eval.yaml`` that ``publish`` writes, for every registered benchmark and gaze mode; a row's traces file round-trips
its records."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest
import yaml

from streamgaze_hf.dataset.eval_yaml import allow_list_request, eval_yaml, eval_yaml_text
from streamgaze_hf.leaderboard.service.eval_results import entry_dict, eval_entry
from streamgaze_hf.leaderboard.service.traces import trace_rows, traces_parquet, with_frames
from streamgaze_hf.registry import benchmarks


def _row(bench, gaze: str) -> dict:
    return {"submission_path": f"submissions/{bench.name}/m/20260101T000000Z.json", "gaze": gaze, "overall": 0.4567,
            "dataset_repo": "org/data", "dataset_commit": "c" * 40, "created_at": "2026-01-01T00:00:00Z",
            "submitter": "ann", "prompt_mode": "default", "protocol": "default", "pr_number": 7, "traces_url": ""}


@pytest.mark.parametrize("bench", benchmarks(), ids=lambda b: b.name)
def test_every_entry_names_a_declared_task(bench):
    declared = yaml.safe_load(eval_yaml_text(bench, ["videos", bench.task_ids[-1]]))
    assert declared == eval_yaml(bench, ["videos", bench.task_ids[-1]])
    assert list(declared) == ["name", "description", "evaluation_framework", "tasks"]
    ids = [t["id"] for t in declared["tasks"]]
    assert all(t["config"] == bench.task_ids[-1] and t["split"] == "test" for t in declared["tasks"])
    named = []
    for gaze in bench.gaze_variants.values():
        entry = entry_dict(eval_entry(_row(bench, gaze), "org/results"))
        assert entry["evaluation_framework"] == declared["evaluation_framework"] == "streamgaze-toolkit"
        assert entry["source"]["url"].endswith(f"/datasets/org/results/resolve/main/traces/{bench.name}/pr-000007.parquet")
        named.append(entry["dataset"]["task_id"])
    assert sorted(set(named)) == sorted(ids) and len(ids) == len(set(bench.gaze_variants.values()))
    assert ", ".join(ids) in allow_list_request(bench, "org/data", "org/results")


def test_streamgaze_task_ids():
    [bench] = [b for b in benchmarks() if b.name == "streamgaze"]
    assert [t["id"] for t in eval_yaml(bench)["tasks"]] == ["streamgaze", "streamgaze_nogaze", "streamgaze_textgaze",
                                                            "streamgaze_salience"]
    with pytest.raises(KeyError, match="unknown streamgaze gaze mode 'sideways'"):
        bench.gaze_group("sideways")


def test_a_traces_file_holds_the_records():
    records = {"gdd": [{"task": "gdd", "question_id": "q1", "checkpoint_index": -1, "response": "left", "parsed": "left",
                        "correct": True, "bleu": float("nan")},
                       {"task": "gdd", "question_id": "q2", "checkpoint_index": -1, "response": "", "parsed": None,
                        "correct": False, "missing": True}],
               "god": [{"task": "god", "question_id": "q3", "checkpoint_index": 2, "response": "a cup", "parsed": "a cup",
                        "correct": None, "bleu": 0.25}]}
    rows = with_frames(trace_rows(records), json.dumps({"gdd/q1/-1": "a" * 64, "god/q3/2": "not a digest"}).encode())
    table = pq.read_table(io.BytesIO(traces_parquet(12, rows))).to_pylist()
    assert [(t["pr_number"], t["task"], t["question_id"], t["checkpoint_index"], t["response"], json.loads(t["parsed"]),
             t["correct"], t["missing"], t["frames_sha256"]) for t in table] == [
        (12, "gdd", "q1", -1, "left", "left", True, False, "a" * 64),
        (12, "gdd", "q2", -1, "", None, False, True, ""),
        (12, "god", "q3", 2, "a cup", "a cup", None, False, "")]
    assert json.loads(table[2]["record"])["bleu"] == 0.25 and "NaN" in table[0]["record"]
    assert traces_parquet(12, rows) == traces_parquet(12, rows)
