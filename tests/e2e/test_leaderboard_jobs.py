"""Evaluated by the leaderboard (issue 44), end to end: evaluation requests run as Hub Jobs through the Hub and Jobs
stand-ins (perf/shared/hub_stub.py, jobs_stub.py: the job's command runs in a local subprocess) with the real
huggingface_hub client, every command through the installed ``streamgaze`` script.

The model is a tiny random-weight Qwen2.5-VL checkpoint (perf/shared/tiny_checkpoints.py) served by the Hub
stand-in as ``org/tiny-qwen``; the dataset a StreamGaze release fixture of one task and two questions, with its
videos, on the stand-in. In order:

1. ``request-eval`` (alice), and a request for a wrapper lmms-eval does not have (bob, made with the client);
2. ``leaderboard sync --evaluate jobs``: both accepted as PENDING and started (RUNNING), the job a ``bash`` script
   whose secret ``HF_TOKEN`` is the maintainer's token;
3. the jobs end; the next sync: alice's job ran ``streamgaze eval`` on the tiny model, its responses are re-scored
   and the row is marked "evaluated by the leaderboard" (results, site); bob's job exited non-zero: FAILED with the
   last lines of its log on the request;
4. a job past its time bound is cancelled (``cancel_job``: the stand-in's process is gone) and FAILED;
5. the budget in leaderboard.yaml spent: a new request waits with that reason;
6. the maintainer's token appears in no file, log, job environment or pull request.

Slow: about three minutes on 2 cores (two lmms-eval runs of two questions each on the tiny model).
"""

from __future__ import annotations

import json
import time

import pytest

from perf.shared.hub_stub import hub_env
from perf.shared.leaderboard_jobs import DATA, MODEL, MODEL_ARGS, REQUESTS, RESULTS, TOKEN, jobs_hub

from ..fixtures.leaderboard_hub import load_results, run_sg

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    work = tmp_path_factory.mktemp("jobs")
    with jobs_hub(work) as (stub, commit):
        yield stub, commit, work


@pytest.fixture
def online(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)


def _queue(stub) -> dict:
    return json.loads(stub.files(REQUESTS)["queue.json"])["requests"]


def _request_pr(stub, token: str, name: str, lmms: str, args: str, commit: str, when: str) -> int:
    """A request file made with the client itself (what request-eval would write, for a wrapper it would refuse)."""
    from huggingface_hub import CommitOperationAdd, HfApi

    from streamgaze_hf.leaderboard.service.untrusted import model_slug

    model_commit = stub.models[MODEL].branches["main"]
    manifest = json.loads(stub.files(DATA)["manifest.json"])
    import hashlib

    req = {"request_version": 1, "kind": "evaluation-request", "toolkit_version": "0.1.0", "benchmark": "streamgaze",
           "model": {"id": MODEL, "revision": model_commit, "name": name, "params": "", "frames": ""},
           "lmms_eval": {"model": lmms, "model_args": args}, "settings": {"gaze": "visual", "prompt_mode": "default"},
           "dataset": {"repo": DATA, "revision": "v0.2.0", "commit": commit, "version": manifest["version"],
                       "manifest_sha256": hashlib.sha256(stub.files(DATA)["manifest.json"]).hexdigest()}}
    info = HfApi(endpoint=stub.url, token=token).create_commit(
        REQUESTS, [CommitOperationAdd(f"requests/streamgaze/{model_slug(name)}/{when}.json", json.dumps(req).encode())],
        repo_type="dataset", create_pr=True, commit_message=f"Evaluation request: {name}")
    return int(info.pr_url.rstrip("/").rsplit("/", 1)[1])


def test_requests_run_as_hub_jobs(hub, online):
    stub, commit, work = hub
    outputs: list[str] = []

    def sg(who: str, token: str, *args: str, timeout: int = 900):
        proc = run_sg(hub_env(stub, work / who, token), *args, timeout=timeout)
        outputs.extend([proc.stdout, proc.stderr])
        return proc

    def sync(*extra: str):
        return sg("maint", TOKEN, "leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset",
                  f"hf://datasets/{DATA}@v0.2.0", "--evaluate", "jobs", "--flavor", "t4-small", *extra)

    # 1. the requests
    proc = sg("alice", "tok-alice", "request-eval", MODEL, "--revision", "main", "--lmms-model", "qwen2_5_vl",
              "--model-args", MODEL_ARGS, "--requests", REQUESTS, "--dataset", f"hf://datasets/{DATA}@v0.2.0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith(f"{stub.url}/datasets/{REQUESTS}/discussions/1")
    [(path, kind)] = stub.diff(stub.repos[REQUESTS], stub.discussion(REQUESTS, 1).base, stub.repos[REQUESTS].prs[1])
    request = json.loads(stub.files(REQUESTS, "refs/pr/1")[path])
    assert kind == "new" and path.startswith("requests/streamgaze/org-tiny-qwen/")
    assert request["model"] == {"id": MODEL, "revision": stub.models[MODEL].branches["main"], "name": MODEL,
                                "params": "", "frames": ""}  # pinned: the commit, not "main"
    assert request["lmms_eval"] == {"model": "qwen2_5_vl", "model_args": MODEL_ARGS}
    assert (request["dataset"]["commit"], request["settings"]) == (commit, {"gaze": "visual", "prompt_mode": "default"})
    bad = _request_pr(stub, "tok-bob", "Bob tiny", "no_such_wrapper", "", commit, "20260101T000000Z")

    # 2. the sync accepts both and starts their jobs
    proc = sync("--job-timeout", "900")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    queue = _queue(stub)
    assert {n: (q["status"], q["flavor"], q["gpus"]) for n, q in queue.items()} == {
        "1": ("RUNNING", "t4-small", 1), str(bad): ("RUNNING", "t4-small", 1)}
    assert [stub.discussion(REQUESTS, n).status for n in (1, bad)] == ["closed", "closed"]
    assert stub.comments(REQUESTS, 1, author="maintainer")[0].startswith("**Accepted** as an evaluation request")
    good_job, bad_job = queue["1"]["job_id"], queue[str(bad)]["job_id"]
    spec = stub.jobs.jobs[good_job].spec
    assert spec["secrets"] == {"HF_TOKEN": TOKEN} and spec["environment"] == {"HF_ENDPOINT": stub.url}
    assert spec["flavor"] == "t4-small" and spec["timeoutSeconds"] == 900 and spec["command"][:2] == ["bash", "-c"]
    assert "streamgaze leaderboard run-request" in spec["command"][2]

    # 3. the jobs end; the next sync scores alice's and fails bob's
    for job in (good_job, bad_job):
        stub.jobs.wait(job, timeout=600)
    log = stub.jobs.log_text(good_job)
    assert stub.jobs.jobs[good_job].stage == "COMPLETED", log[-3000:]
    assert "streamgaze-toolkit: the image has" in log  # this environment's toolkit, not installed again
    assert f"running: streamgaze eval streamgaze --dataset hf://datasets/{DATA}@{commit}" in log
    assert "--model qwen2_5_vl --model_args pretrained=" in log and f"/snapshots/{request['model']['revision']}," in log
    assert stub.jobs.jobs[bad_job].stage == "ERROR"
    proc = sync()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    queue = _queue(stub)
    assert queue["1"]["status"] == "FINISHED" and queue["1"]["gpu_hours"] > 0
    responses = json.loads(stub.files(REQUESTS)[queue["1"]["responses_path"]])
    assert responses["run"]["model"] == "qwen2_5_vl" and responses["scores"]["coverage"]["expected"] == 2
    assert responses["dataset"]["commit"] == commit
    failed = queue[str(bad)]
    assert failed["status"] == "FAILED" and failed["reason"].startswith("the job ended ERROR")
    assert any("no_such_wrapper" in line and "not a model lmms-eval knows" in line for line in failed["log_tail"])
    comment = stub.comments(REQUESTS, bad, author="maintainer")[-1]
    assert comment.startswith("**Evaluation failed**") and "not a model lmms-eval knows" in comment
    [row] = load_results(hub_env(stub, work / "reader", "tok-alice"), RESULTS, "streamgaze")
    assert (row["model_name"], row["submitter"], row["pr_number"]) == (MODEL, "alice", 1)
    assert (row["evaluated_by"], row["job_id"], row["model_commit"]) == ("leaderboard", good_job,
                                                                        request["model"]["revision"])
    assert row["coverage"] == 1.0 and row["requests_commit"] == queue["1"]["responses_commit"]
    site = stub.files(RESULTS)["site/index.html"].decode()
    assert "evaluated by the leaderboard" in site
    # its traces: the responses, and one digest of the model-ready frames per document, which re-deriving those
    # frames here (a fresh clip cache) gives again
    from streamgaze_hf.dataset import open_dataset
    from streamgaze_hf.evaluation import document_digests
    from streamgaze_hf.registry import get_benchmark

    assert f'href="{row["traces_url"]}"' in site
    traces = load_results(hub_env(stub, work / "reader-traces", "tok-alice"), RESULTS, "streamgaze_traces")
    answers = {qid: a["response"] for by_q in responses["answers"].values() for qid, a in by_q.items()}
    assert {t["question_id"]: t["response"] for t in traces} == answers and len(traces) == 2
    assert responses["settings"]["model_ready"] and all(len(t["frames_sha256"]) == 64 for t in traces)
    again = document_digests(get_benchmark("streamgaze"), open_dataset(work / "tiny"), responses["settings"],
                             cache_dir=work / "rederived-clips")
    assert {f"{t['task']}/{t['question_id']}/{t['checkpoint_index']}": t["frames_sha256"] for t in traces} == again
    assert len(list((work / "rederived-clips").rglob("ready/*/*.json"))) == 2  # made here, not the job's
    assert stub.comments(REQUESTS, 1, author="maintainer")[-1].startswith("**Evaluated by the leaderboard**")

    # 4. a job past its time bound is cancelled
    slow = _request_pr(stub, "tok-carol", "Carol tiny", "qwen2_5_vl", MODEL_ARGS.replace("=6", "=4"), commit,
                       "20260101T000001Z")
    stub.jobs.image_pull_s = 120  # the job is still running when the next sync looks (the tiny run takes ~10 s)
    proc = sync("--job-timeout", "3")
    stub.jobs.image_pull_s = 0
    assert proc.returncode == 0 and _queue(stub)[str(slow)]["status"] == "RUNNING", proc.stderr[-3000:]
    slow_job = _queue(stub)[str(slow)]["job_id"]
    time.sleep(6)
    proc = sync()
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = _queue(stub)[str(slow)]
    assert record["status"] == "FAILED" and record["reason"].startswith("cancelled: the job ran"), record
    assert "longer than its time bound of 3 s" in record["reason"]
    stub.jobs.wait(slow_job, timeout=60)
    assert stub.jobs.jobs[slow_job].stage == "CANCELED" and stub.jobs.jobs[slow_job].proc.poll() is not None

    # 5. the budget spent: a new request waits, with the reason
    spent = sum(q["gpu_hours"] for q in _queue(stub).values())
    stub.put_files(RESULTS, {"leaderboard.yaml": f"maintainers: [maintainer]\ngpu_hours_budget: {spent}\n".encode()})
    late = _request_pr(stub, "tok-dave", "Dave tiny", "qwen2_5_vl", MODEL_ARGS.replace("=6", "=2"), commit,
                       "20260101T000002Z")
    n_jobs = len(stub.jobs.jobs)
    proc = sync()
    assert proc.returncode == 0, proc.stderr[-3000:]
    waiting = _queue(stub)[str(late)]
    assert waiting["status"] == "PENDING" and len(stub.jobs.jobs) == n_jobs
    assert waiting["reason"].startswith(f"waiting for GPU-hours: the budget of {spent:g} GPU-hours"), waiting
    assert f"#{late} PENDING: waiting for GPU-hours" in proc.stdout

    # 6. the token: only ever a Job secret
    texts = list(outputs)
    texts += [p.read_bytes().decode("utf-8", "replace") for p in work.rglob("*") if p.is_file()]
    texts += [data.decode("utf-8", "replace") for data in stub.blobs.values()]
    for repo in (*stub.repos.values(), *stub.models.values()):
        texts += [json.dumps(d.events) + d.title for d in repo.discussions.values()]
        texts += [" ".join(m) for m in repo.messages.values()]
    for job in stub.jobs.jobs.values():
        texts += [stub.jobs.log_text(job.id), json.dumps({k: v for k, v in job.spec.items() if k != "secrets"})]
    leaks = [t[max(0, t.find(TOKEN) - 80):t.find(TOKEN) + 40] for t in texts if TOKEN in t]
    assert not leaks, leaks
