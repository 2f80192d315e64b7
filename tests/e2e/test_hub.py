"""Hub-native datasets (issue 26), against a stand-in of the Hub's HTTP API (perf/shared/hub_stub.py) served on
127.0.0.1: ``streamgaze publish`` -> ``load_dataset`` by name and revision -> ``streamgaze eval --root
hf://datasets/...@tag`` (the oracle scores 100, only the run's files are downloaded) -> a file altered on
the server is refused -> the same version published again is a no-op, other content under it is refused.
For StreamGaze and EgoGazeVQA. Every command runs through the installed ``streamgaze`` script with
``HF_ENDPOINT`` pointing at the stub, a temporary ``HF_HOME`` and a dummy token.

Slow (70-90 s on a shared 2-core machine: four lmms-eval runs, each ~8 s of lmms-eval start-up, plus a
demo build and about twenty `streamgaze` subprocesses).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from perf.shared.hub_stub import HubStub

from ..fixtures.cli_entry import error_lines, script

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stub():
    with HubStub() as s:
        yield s


@pytest.fixture(scope="module")
def sg_root(tmp_path_factory):
    """A small StreamGaze build: two 30 s videos of the demo world (original and overlay variants)."""
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset
    from streamgaze_hf.demo.world import generate_world

    base = tmp_path_factory.mktemp("hub_sg")
    generate_world(base / "world", n_videos=2, seed=0, duration=30.0, progress=False)
    return build_dataset(base / "world", base / "streamgaze", "0.1.0")


@pytest.fixture(scope="module")
def ego_root(tmp_path_factory):
    from streamgaze_hf.benchmarks.egogazevqa.release import import_release

    from ..fixtures.egogazevqa_fixture import write_release

    base = tmp_path_factory.mktemp("hub_ego")
    out = base / "egogazevqa"
    import_release(write_release(base / "release"), out, "1.0.0", progress=False)
    return out


def _env(stub: HubStub, home: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    # HF_HUB_CACHE and HF_DATASETS_CACHE win over HF_HOME: each "machine" of the test has its own caches
    env.update({"HF_ENDPOINT": stub.url, "HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub"),
                "HF_DATASETS_CACHE": str(home / "datasets"), "HF_TOKEN": "dummy", "HF_HUB_DISABLE_XET": "1",
                "STREAMGAZE_CLIP_CACHE": str(home / "clips"), "STREAMGAZE_VERIFY_CACHE": str(home / "verified"),
                **extra})
    for k in ("STREAMGAZE_ROOT", "EGOGAZEVQA_ROOT", "STREAMGAZE_HF_PINS"):
        env.pop(k, None)
    return env


def _sg(env: dict, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([script(), *args], env=env, capture_output=True, text=True, timeout=timeout)


def _error_lines(proc) -> list[str]:
    return error_lines(proc.stderr)


def _eval(env, ref, benchmark, tasks, out):
    proc = _sg(env, "eval", "--benchmark", benchmark, "--root", ref, "--", "--model", "streamgaze_oracle",
               "--model_args", "check_visuals=true", "--tasks", ",".join(tasks), "--log_samples", "--output_path",
               str(out))
    results = sorted(out.rglob("*_results.json"))
    return proc, (json.loads(results[-1].read_text()) if results else None)


def _manifest_files(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())["files"]


# ---- the test path, for two benchmarks -------------------------------------------------------------

CASES = {
    # benchmark: (repo, the two lmms-eval tasks run, their dataset task ids, the video variant they show)
    "streamgaze": ("org/streamgaze", ["streamgaze_oi_easy", "streamgaze_gta"], ["oi_easy", "gta"], "overlay"),
    "egogazevqa": ("org/egogazevqa", ["egogazevqa_spatial_gazev", "egogazevqa_temporal_gazev"], ["spatial", "temporal"],
                   None),
}


@pytest.mark.parametrize("benchmark", list(CASES))
def test_publish_load_eval_tamper_republish(benchmark, stub, sg_root, ego_root, tmp_path):
    root = {"streamgaze": sg_root, "egogazevqa": ego_root}[benchmark]
    repo, lmms_tasks, task_ids, variant = CASES[benchmark]
    version = json.loads((root / "manifest.json").read_text())["version"]
    tag, ref = f"v{version}", f"hf://datasets/{repo}@v{version}"
    env = _env(stub, tmp_path / "hf")

    # publish: one commit holding exactly the dataset, tagged v<version>; the usage lines printed
    proc = _sg(env, "publish", str(root), "--repo", repo)
    assert proc.returncode == 0, proc.stderr[-3000:]
    commit = stub.repos[repo].tags[tag]
    assert f"published {repo} {tag} (commit {commit})" in proc.stdout
    first_task = proc.stdout.split('load_dataset("', 1)[1].split('"')[2]
    assert f'load_dataset("{repo}", "{first_task}", split="test", revision="{tag}")' in proc.stdout
    assert f"--root {ref} --" in proc.stdout
    files = stub.files(repo, tag)
    local = {p: (root / p).read_bytes() for p in [*_manifest_files(root), "manifest.json"]}
    assert {p: b for p, b in files.items() if p not in (".gitattributes", "eval.yaml")} == local
    assert stub.repos[repo].branches["main"] == commit
    # and the Hub's benchmark declaration at its root: one task per gaze mode, each a task config's test split
    bench_tasks = {"streamgaze": ["streamgaze", "streamgaze_nogaze", "streamgaze_textgaze", "streamgaze_salience"],
                   "egogazevqa": ["egogazevqa", "egogazevqa_gazet", "egogazevqa_gazev", "egogazevqa_gazes"]}[benchmark]
    declared = yaml.safe_load(files["eval.yaml"])
    assert list(declared) == ["name", "description", "evaluation_framework", "tasks"]
    assert declared["name"] == {"streamgaze": "StreamGaze", "egogazevqa": "EgoGazeVQA"}[benchmark]
    assert declared["evaluation_framework"] == "streamgaze-toolkit" and declared["description"]
    assert declared["tasks"] == [{"id": t, "config": first_task, "split": "test"} for t in bench_tasks]

    # load_dataset by name and revision through the real datasets client
    code = (f"import datasets, json; ds = datasets.load_dataset({repo!r}, {task_ids[0]!r}, split='test', "
            f"revision={tag!r}); print(json.dumps(sorted(ds['question_id'])))")
    load = subprocess.run([sys.executable, "-c", code], env=_env(stub, tmp_path / "hf_load"), capture_output=True,
                          text=True, timeout=120)
    assert load.returncode == 0, load.stderr[-3000:]
    import pyarrow.parquet as pq

    expected_ids = sorted(pq.read_table(root / "data" / task_ids[0] / "test-00000-of-00001.parquet")["question_id"]
                          .to_pylist())
    assert json.loads(load.stdout.strip().splitlines()[-1]) == expected_ids

    # eval of two tasks straight from the tag: the oracle scores 100; only their files were downloaded
    stub.clear_log()
    proc, results = _eval(env, ref, benchmark, lmms_tasks, tmp_path / "run")
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-3000:]
    for name in lmms_tasks:
        assert results["results"][name]["accuracy,none"] == 100.0, name
    got = stub.downloads(repo)
    assert len(got) == len(set(got))  # nothing twice
    parquet = {p.split("/")[1] for p in got if p.endswith(".parquet")}
    assert set(task_ids) <= parquet and "videos" in parquet
    other = set(_bench_task_ids(benchmark)) - set(task_ids)
    assert not parquet & other, parquet
    media = [p for p in got if not p.endswith(".parquet") and p not in ("README.md", "manifest.json")]
    assert media and set(media) == set(_doc_media(root, benchmark, lmms_tasks))
    if variant:  # one video variant only: the overlay (visual gaze), never the original
        assert all(p.startswith(f"videos/{variant}/") for p in media), media

    # a submission made on a Hub dataset records the repository and the commit the tag named
    sub = tmp_path / "sub.json"
    proc = _sg(env, "submit", str(tmp_path / "run"), "--dataset", ref, "--model-name", "oracle", "--allow-oracle",
               "--out", str(sub))
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(sub.read_text())
    assert data["dataset"]["repo"] == repo and data["dataset"]["commit"] == commit

    # a file altered on the server: a fresh cache downloads it, and it is refused before anything runs
    bad = media[0]
    stub.tamper(repo, bad, files[bad][:-7] + b"tamper!")
    fresh = _env(stub, tmp_path / "hf_fresh")
    proc, results = _eval(fresh, ref, benchmark, lmms_tasks, tmp_path / "run_bad")
    assert proc.returncode == 2 and results is None, proc.stderr[-2000:]
    errors = _error_lines(proc)
    # the words `streamgaze doctor` uses for this file (one rule: hub/verify.py file_problem)
    got_sha, want_sha = hashlib.sha256(files[bad][:-7] + b"tamper!").hexdigest(), _manifest_files(root)[bad]["sha256"]
    assert len(errors) == 1 and errors[0].endswith(
        f"/{bad}: sha256 {got_sha[:12]}… differs from manifest.json ({want_sha[:12]}…)"), errors
    stub.tamper(repo, bad, files[bad])

    # the same version again: a no-op (no upload, no commit); other content under it: refused
    stub.clear_log()
    proc = _sg(env, "publish", str(root), "--repo", repo)
    assert proc.returncode == 0 and "nothing uploaded" in proc.stdout, proc.stderr[-2000:]
    assert not [r for r in stub.requests if r.method in ("PUT",) or "/commit/" in r.path or "/tag/" in r.path]
    changed = tmp_path / "changed"
    shutil.copytree(root, changed)
    _rewrite(changed, "CHANGELOG.md", (changed / "CHANGELOG.md").read_text() + "\nA later fix.\n")
    proc = _sg(env, "publish", str(changed), "--repo", repo)
    errors = _error_lines(proc)
    assert proc.returncode == 2 and len(errors) == 1, proc.stderr[-2000:]
    assert f"{repo} already has {tag}" in errors[0] and "other content" in errors[0]
    assert stub.repos[repo].tags[tag] == commit and stub.repos[repo].branches["main"] == commit


def _bench_task_ids(benchmark: str) -> tuple[str, ...]:
    from streamgaze_hf.registry import get_benchmark

    return get_benchmark(benchmark).task_ids


def _doc_media(root: Path, benchmark: str, lmms_tasks: list[str]) -> list[str]:
    """The files the run's documents show, by the toolkit's own rule (evaluation.doc_media) on the local build."""
    from streamgaze_hf.evaluation.visuals import doc_media
    from streamgaze_hf.registry import get_benchmark, task_index

    module = get_benchmark(benchmark).plugin().evaluation_module
    return sorted({m for tid, mode in task_index().selection(lmms_tasks)[benchmark]
                   for d in module.load_docs(tid, mode, root) for m in doc_media(d)})


def _rewrite(root: Path, rel: str, text: str) -> None:
    """Change one file of a dataset and its manifest entry (a locally valid build of other content)."""
    from streamgaze_hf.dataset.files import sha256_file

    (root / rel).write_text(text)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"][rel] = {"sha256": sha256_file(root / rel), "bytes": (root / rel).stat().st_size}
    (root / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n")


# ---- StreamGaze only: offline, clips warm, resume, refusals --------------------------------

def test_offline_warm_and_resume(stub, sg_root, tmp_path):
    repo = "org/sg-offline"
    env = _env(stub, tmp_path / "hf")
    assert _sg(env, "publish", str(sg_root), "--repo", repo).returncode == 0
    ref = f"hf://datasets/{repo}@v0.1.0"

    # clips warm fetches one variant (original, for nogaze) with a byte bar, then works offline
    stub.clear_log()
    proc = _sg(env, "clips", "warm", ref, "--tasks", "oi_easy", "--variants", "nogaze")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = stub.downloads(repo)
    assert {p for p in got if p.startswith("videos/")} == {p for p in _manifest_files(sg_root)
                                                          if p.startswith("videos/original/")}
    assert "download org/sg-offline@" in proc.stderr and "B/s" in proc.stderr
    stub.clear_log()
    offline = {**env, "HF_HUB_OFFLINE": "1"}
    proc = _sg(offline, "clips", "warm", ref, "--tasks", "oi_easy", "--variants", "nogaze")
    assert proc.returncode == 0 and stub.requests == [], proc.stderr[-2000:]
    assert "already cached" in proc.stdout

    # an interrupted upload resumes: the second run sends no large file again
    repo2 = "org/sg-resume"
    stub.fail_commits = 1
    proc = _sg(env, "publish", str(sg_root), "--repo", repo2)
    errors = _error_lines(proc)
    assert proc.returncode == 2 and len(errors) == 1 and "was interrupted" in errors[0], proc.stderr[-2000:]
    assert "v0.1.0" not in stub.repos[repo2].tags and stub.uploads()
    stub.clear_log()
    proc = _sg(env, "publish", str(sg_root), "--repo", repo2)
    assert proc.returncode == 0 and "published org/sg-resume v0.1.0" in proc.stdout, proc.stderr[-2000:]
    assert stub.uploads() == []


def test_refusals_before_any_upload(stub, sg_root, tmp_path):
    env = _env(stub, tmp_path / "hf")
    # a read-only token
    proc = _sg({**env, "HF_TOKEN": "read-only"}, "publish", str(sg_root), "--repo", "org/ro")
    assert proc.returncode == 2 and "write access" in _error_lines(proc)[0]
    assert "org/ro" not in stub.repos
    # a damaged local file: named, nothing sent
    broken = tmp_path / "broken"
    shutil.copytree(sg_root, broken)
    (broken / "data" / "gta" / "test-00000-of-00001.parquet").write_bytes(b"x")
    stub.clear_log()
    proc = _sg(env, "publish", str(broken), "--repo", "org/broken")
    assert proc.returncode == 2
    assert "does not match its manifest: data/gta/test-00000-of-00001.parquet: 1 bytes" in _error_lines(proc)[0]
    assert stub.requests == []
    # a bad reference
    proc = _sg(env, "stats", "hf://datasets/org")
    assert proc.returncode == 2 and "hf://datasets/ORG/NAME@REV" in _error_lines(proc)[0]
    proc = _sg(env, "stats", "hf://datasets/org/none@v1.0.0")
    assert proc.returncode == 2 and "no such dataset repository" in _error_lines(proc)[0]


def test_ranks_of_a_distributed_run_share_rank_0s_commit(stub, sg_root, tmp_path):
    """Under a torchrun/accelerate launch (the agent's key-value store), rank 0 resolves the tag and the
    other ranks take its commit from the store: rank 1 here cannot reach the Hub at all."""
    from datetime import timedelta

    from torch.distributed import TCPStore

    env = _env(stub, tmp_path / "hf")
    assert _sg(env, "publish", str(sg_root), "--repo", "org/sg-ranks").returncode == 0
    commit = stub.repos["org/sg-ranks"].tags["v0.1.0"]
    store = TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=60), wait_for_workers=False)
    code = ("from streamgaze_hf.hub.reference import parse_reference, resolve_commit; "
            "print(resolve_commit(parse_reference('hf://datasets/org/sg-ranks@v0.1.0')))")
    launch = {"WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(store.port),
              "TORCHELASTIC_USE_AGENT_STORE": "True"}
    rank1 = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**_env(stub, tmp_path / "hf1"), **launch, "RANK": "1",
                                  "HF_ENDPOINT": "http://127.0.0.1:9"})  # no Hub for rank 1
    rank0 = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**_env(stub, tmp_path / "hf0"), **launch, "RANK": "0"})
    out1, err1 = rank1.communicate(timeout=120)
    assert rank0.returncode == 0 and rank1.returncode == 0, rank0.stderr[-2000:] + err1[-2000:]
    assert rank0.stdout.split() == out1.split() == [commit]
