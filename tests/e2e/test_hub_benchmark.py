"""A benchmark the Hub recognises, results with their traces (issue 55), end to end through the Hub stand-in
with the real huggingface_hub and datasets clients, every command through the installed ``streamgaze`` script.

``streamgaze publish`` writes the dataset's ``eval.yaml``; a submission naming a Hub model is accepted by
``leaderboard sync --model-card-prs``; the ``.eval_results`` pull request it opens on the model names a task id
of that ``eval.yaml``, carries ``evaluation_framework`` and links the row's traces, which resolve on the
stand-in, load with ``load_dataset`` and re-score to the row's numbers.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from perf.shared.hub_stub import HubStub, hub_env
from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.leaderboard.service.untrusted import submission_path

from ..fixtures.leaderboard_hub import USERS, load_results, pinned, run_sg

DATA, REQUESTS, RESULTS, MODEL = "org/sg", "org/requests", "org/results", "grace/look-2b"
CARD = b"---\nlicense: apache-2.0\n---\n# Look 2B\n\nA model that looks where you look.\n"


@pytest.fixture
def online(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)


def _load_parquet_url(env: dict, url: str) -> list[dict]:
    """``datasets.load_dataset("parquet", data_files=url)`` in a fresh process (the real client)."""
    code = (f"import datasets, json; ds = datasets.load_dataset('parquet', data_files={url!r}, split='train'); "
            "print(json.dumps(ds.to_list()))")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_eval_yaml_eval_results_and_traces(demo_dataset, tmp_path, online):
    from datetime import datetime, timezone

    from huggingface_hub import CommitOperationAdd, HfApi

    from streamgaze_hf.submission.answer_key import load_answer_key, score_responses

    with HubStub() as stub:
        stub.token_users.update({**USERS, "tok-grace": "grace"})
        stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
        stub.put_files(RESULTS, {"leaderboard.yaml": b"maintainers: [maintainer]\n"})
        stub.put_model(MODEL, {"README.md": CARD}, safetensors={"total": 2_200_000_000,
                                                               "parameters": {"BF16": 2_200_000_000}})
        env = hub_env(stub, tmp_path / "maint", "tok-maint")

        # publish: eval.yaml at the dataset's root, from the registry's declaration of StreamGaze
        proc = run_sg({**env, "HF_TOKEN": "tok-alice"}, "publish", str(demo_dataset), "--repo", DATA)
        assert proc.returncode == 0, proc.stderr[-3000:]
        commit = stub.repos[DATA].tags["v0.1.0"]
        declared = yaml.safe_load(stub.files(DATA, "v0.1.0")["eval.yaml"])
        assert declared == {
            "name": "StreamGaze", "description": declared["description"], "evaluation_framework": "streamgaze-toolkit",
            "tasks": [{"id": t, "config": "nfi", "split": "test"}
                      for t in ("streamgaze", "streamgaze_nogaze", "streamgaze_textgaze", "streamgaze_salience")]}
        assert declared["description"].startswith("StreamGaze: gaze-guided temporal reasoning")

        # a submission naming the Hub model, accepted by the sync, which opens the model's .eval_results PR
        key = load_answer_key(demo_dataset)
        sub = synthetic_submission(key, tmp_path / "look.json", "Look 2B", 0.55, params="2B", salt=3)
        data = pinned(sub, DATA, commit, url=f"{stub.url}/{MODEL}").read_bytes()
        path = submission_path("streamgaze", "Look 2B", datetime(2026, 1, 1, tzinfo=timezone.utc))
        HfApi(endpoint=stub.url, token="tok-grace").create_commit(
            REQUESTS, [CommitOperationAdd(path, data)], repo_type="dataset", create_pr=True, commit_message="Look 2B")
        proc = run_sg(env, "leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset",
                      f"hf://datasets/{DATA}@v0.1.0", "--model-card-prs", timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        [row] = load_results(hub_env(stub, tmp_path / "r1"), RESULTS, "streamgaze")
        model = stub.models[MODEL]
        [num] = model.prs
        [entry] = yaml.safe_load(stub.blobs[model.commits[model.prs[num]][".eval_results/streamgaze.yaml"].blob])
        assert entry["dataset"] == {"id": DATA, "task_id": "streamgaze", "revision": commit}
        assert entry["dataset"]["task_id"] in [t["id"] for t in declared["tasks"]]
        assert entry["evaluation_framework"] == "streamgaze-toolkit"
        assert entry["value"] == round(100 * row["overall"], 1)
        url = entry["source"]["url"]
        traces_file = f"traces/streamgaze/pr-{row['pr_number']:06d}.parquet"
        assert url == row["traces_url"] == f"{stub.url}/datasets/{RESULTS}/resolve/main/{traces_file}"
        # the row links its traces on the pages
        assert f'href="{url}"' in stub.files(RESULTS)["site/index.html"].decode()

        # the traces: the address resolves on the stand-in, load_dataset loads it (and the benchmark's config)
        traces = _load_parquet_url(hub_env(stub, tmp_path / "r2"), url)
        assert traces == load_results(hub_env(stub, tmp_path / "r3"), RESULTS, "streamgaze_traces")
        assert len(traces) == key.expected and {t["pr_number"] for t in traces} == {row["pr_number"]}
        responses = json.loads(data)["answers"]
        first = traces[0]
        answer = responses[first["task"]][first["question_id"]]
        answer = answer[str(first["checkpoint_index"])] if first["checkpoint_index"] >= 0 else answer
        assert (first["response"], json.loads(first["parsed"])) == (answer["response"], answer["parsed"])

        # ... and re-score to the row's numbers
        given = {(t["question_id"], t["checkpoint_index"]): t["response"] for t in traces if not t["missing"]}
        rescored = score_responses(key, given, "default")
        values = key.bench.plugin().leaderboard_values(rescored.scores)
        assert values["overall"] == pytest.approx(row["overall"], abs=1e-12)
        for task_id in key.bench.task_ids:
            mine = [t for t in traces if t["task"] == task_id]
            assert sum(t["correct"] for t in mine) / len(mine) == pytest.approx(row[f"task_{task_id}"], abs=1e-12)
