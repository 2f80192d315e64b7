"""The leaderboard as a service on the Hub (issue 31), end to end through the Hub stand-in
(perf/shared/hub_stub.py) with the real huggingface_hub and datasets clients, every command through the
installed ``streamgaze`` script:

1. two users push submissions (``push-submission`` of a file made on the dataset on the Hub; ``submit --push``
   of a real lmms-eval run made on a local copy of it), and a tampered file is refused before any upload;
2. hostile pull requests made with the client directly: a tampered score, a second file beside a valid
   submission, a 50 MB payload;
3. two syncs started together: only the honest pull request is merged, the others are closed, each with
   one comment holding its reason (never two: the merge or close carries the comment);
4. ``load_dataset`` of the results gives exactly the accepted row (the paper rows are their own config);
5. a third sync changes nothing; a pull request changing an existing submission is closed and no row changes.

Slow (about a minute on 2 cores: a demo dataset, ten ``streamgaze`` processes).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from perf.shared.hub_stub import HubStub, hub_env, put_dataset
from perf.shared.synthetic import synthetic_submission

from ..fixtures.leaderboard_hub import USERS, load_results, pinned, run_sg, start_sg

pytestmark = pytest.mark.slow

DATA, REQUESTS, RESULTS = "org/sg", "org/requests", "org/results"
HONEST = "Alpha <b>7B</b> | *x*"  # markup in the name: escaped in comments, the site and the app


@pytest.fixture(scope="module")
def stub():
    with HubStub() as s:
        s.token_users.update(USERS)
        yield s


@pytest.fixture
def online(monkeypatch):
    """This process may reach the stand-in (the session is offline): for the hostile clients below."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)  # the stand-in speaks LFS


def _client(stub: HubStub, token: str):
    from huggingface_hub import HfApi

    return HfApi(endpoint=stub.url, token=token)


def _hostile_pr(stub, token: str, files: dict[str, bytes]) -> int:
    from huggingface_hub import CommitOperationAdd

    info = _client(stub, token).create_commit(REQUESTS, [CommitOperationAdd(p, d) for p, d in files.items()],
                                              repo_type="dataset", create_pr=True, commit_message="my submission")
    return int(info.pr_url.rstrip("/").rsplit("/", 1)[1])


def test_submit_sync_results_loop(stub, demo_dataset, demo_random_run, tmp_path, online):
    from streamgaze_hf.submission.answer_key import load_answer_key

    commit = put_dataset(stub, demo_dataset, DATA)
    stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
    ref = f"hf://datasets/{DATA}@v0.1.0"
    key = load_answer_key(demo_dataset)
    honest = pinned(synthetic_submission(key, tmp_path / "alpha.json", HONEST, 0.6, params="7B", frames="16"),
                    DATA, commit)
    second = pinned(synthetic_submission(key, tmp_path / "beta.json", "Beta", 0.4), DATA, commit)
    tampered = json.loads(second.read_text())
    tampered["scores"]["overall"] = 0.99
    (tmp_path / "tampered.json").write_text(json.dumps(tampered))

    # 1. alice pushes: validated locally, one file added by a pull request, its URL printed, author recorded
    alice = hub_env(stub, tmp_path / "alice", "tok-alice")
    proc = run_sg(alice, "push-submission", honest, "--requests", REQUESTS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith(f"{stub.url}/datasets/{REQUESTS}/discussions/1")
    pr1 = stub.discussion(REQUESTS, 1)
    assert pr1.author == "alice" and pr1.status == "open"
    [(path, kind)] = stub.diff(stub.repos[REQUESTS], pr1.base, stub.repos[REQUESTS].prs[1])
    assert kind == "new" and path.startswith("submissions/streamgaze/alpha-b-7b-b-x/") and path.endswith("Z.json")
    assert stub.files(REQUESTS, "refs/pr/1")[path] == honest.read_bytes()
    # carol: `submit --push` of an lmms-eval run (the random baseline) made on her local copy of the dataset
    carol = hub_env(stub, tmp_path / "carol", "tok-carol")
    proc = run_sg(carol, "submit", demo_random_run[0], "--dataset", demo_dataset, "--model-name", "Carol random",
                  "--out", tmp_path / "carol.json", "--push", REQUESTS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith(f"{stub.url}/datasets/{REQUESTS}/discussions/2")
    assert stub.discussion(REQUESTS, 2).author == "carol"
    # bob's tampered file is refused before anything is sent
    bob = hub_env(stub, tmp_path / "bob", "tok-bob")
    n_requests = len(stub.requests)
    proc = run_sg(bob, "push-submission", tmp_path / "tampered.json", "--requests", REQUESTS)
    assert proc.returncode == 2 and "reported score scores.overall = 0.99 differs" in proc.stderr
    assert not any(r.method == "POST" for r in stub.requests[n_requests:]) and len(stub.repos[REQUESTS].prs) == 2

    # 2. hostile pull requests made with the client itself
    sub_dir = "submissions/streamgaze/beta"
    tampered_pr = _hostile_pr(stub, "tok-bob", {f"{sub_dir}/20260101T000000Z.json": (tmp_path / "tampered.json").read_bytes()})
    two_files_pr = _hostile_pr(stub, "tok-carol", {f"{sub_dir}/20260101T000001Z.json": second.read_bytes(),
                                                   "README.md": b"# mine now\n"})
    big = b'{"pad": "' + b"x" * (50 * 1024 * 1024) + b'"}'
    big_pr = _hostile_pr(stub, "tok-dave", {f"{sub_dir}/20260101T000002Z.json": big})

    # 3. two syncs started together: one consistent result
    maint = hub_env(stub, tmp_path / "maint")
    args = ("leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset", ref)
    procs = [start_sg(maint, *args), start_sg(hub_env(stub, tmp_path / "maint2"), *args)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    # accepted pull requests are closed too: the sync commits the bytes it scored itself (never a merge)
    assert {n: stub.discussion(REQUESTS, n).status for n in (1, 2, tampered_pr, two_files_pr, big_pr)} == {
        1: "closed", 2: "closed", tampered_pr: "closed", two_files_pr: "closed", big_pr: "closed"}
    comments = {n: stub.comments(REQUESTS, n, author="maintainer") for n in (1, 2, tampered_pr, two_files_pr, big_pr)}
    assert all(len(c) == 1 for c in comments.values()), comments  # one sync acted on each
    assert comments[1][0].startswith("**Accepted**") and "Alpha &lt;b&gt;7B&lt;/b&gt; \\| \\*x\\*" in comments[1][0]
    assert "<b>" not in comments[1][0] and "| Overall | Past | Present | Proactive | NFI |" in comments[1][0]
    assert "reported score scores.overall = 0.99 differs from the recomputed" in comments[tampered_pr][0]
    assert "adds exactly one new file; this one changes 2 files" in comments[two_files_pr][0]
    assert "at most 33,554,432 bytes (checked before it is read)" in comments[big_pr][0]
    assert path in stub.files(REQUESTS) and "README.md" in stub.files(REQUESTS)
    assert stub.files(REQUESTS)["README.md"] == b"# Submissions\n"
    # created, then one write per sync that accepted something (rows keyed by pull request: one result)
    n_commits = len(stub.repos[RESULTS].commits)
    assert n_commits in (2, 3)

    # 4. load_dataset gives exactly the accepted rows, with their provenance
    rows = load_results(hub_env(stub, tmp_path / "reader"), RESULTS, "streamgaze")
    assert [(r["model_name"], r["submitter"], r["pr_number"]) for r in rows] == [(HONEST, "alice", 1),
                                                                                ("Carol random", "carol", 2)]
    carol_row, carol_sub = rows[1], json.loads((tmp_path / "carol.json").read_text())
    assert carol_row["overall"] == pytest.approx(carol_sub["scores"]["overall"], abs=1e-12)
    # made on a local copy: scored against (and recorded as) the leaderboard's dataset, whose manifest it matches
    assert (carol_row["dataset_repo"], carol_row["dataset_revision"], carol_row["dataset_commit"]) == (
        DATA, "v0.1.0", commit)
    assert carol_row["lmms_eval_version"] == carol_sub["run"]["harness_version"] != ""
    row = rows[0]
    expected = json.loads(honest.read_text())
    assert (row["model_name"], row["model_params"], row["model_frames"]) == (HONEST, "7B", "16")
    assert (row["dataset_repo"], row["dataset_revision"], row["dataset_commit"]) == (DATA, "v0.1.0", commit)
    assert (row["submitter"], row["pr_number"], row["submission_path"]) == ("alice", 1, path)
    assert row["overall"] == pytest.approx(expected["scores"]["overall"], abs=1e-12)
    assert row["score_past"] == pytest.approx(expected["scores"]["past"], abs=1e-12)
    assert row["task_nfi"] == pytest.approx(expected["scores"]["tasks"]["nfi"]["accuracy"], abs=1e-12)
    assert row["coverage"] == 1.0 and row["reported"] is False and row["toolkit_version"] == expected["toolkit_version"]
    assert row["lmms_eval_version"] == "test"  # the run's harness version: this synthetic run says "test"
    paper = load_results(hub_env(stub, tmp_path / "reader"), RESULTS, "streamgaze_paper")
    assert len(paper) == 14 and all(r["reported"] for r in paper) and paper[0]["model_name"] == "Human"
    card = stub.files(RESULTS)["README.md"].decode()  # a benchmark without accepted rows has only its paper config
    assert "config_name: egogazevqa_paper" in card and "config_name: egogazevqa\n" not in card
    # the app reads the same results from the Hub: one table per dataset (the demo rows apart from the paper's)
    code = ("import json; from streamgaze_hf.registry import get_benchmark; "
            "from streamgaze_hf.leaderboard.service.app import load_results, tables_html; "
            "from streamgaze_hf.leaderboard.service.results import paper_result_rows; "
            f"b = get_benchmark('streamgaze'); rows = load_results({RESULTS!r})['streamgaze']; "
            "print(json.dumps(tables_html(b, rows + paper_result_rows(b))))")
    proc = subprocess.run([sys.executable, "-c", code], env=hub_env(stub, tmp_path / "app"), capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = json.loads(proc.stdout.strip().splitlines()[-1])
    tables = html.split('<section class="dataset"')[1:]
    assert len(tables) == 2 and "<h2>Dataset 0.1.0 (" in tables[0] and "<h2>Full benchmark: the official release" in tables[1]
    assert re.findall(r'<span class="name">(.*?)</span>', tables[0]) == ["Alpha &lt;b&gt;7B&lt;/b&gt; | *x*",
                                                                         "Carol random"]
    assert "by @alice" in tables[0] and "<b>7B" not in html
    assert len(re.findall(r'<span class="name">', tables[1])) == 14 and "reported in the paper" in tables[1]
    site = stub.files(RESULTS)["site/index.html"].decode()
    assert "Alpha &lt;b&gt;7B&lt;/b&gt; | *x*" in site and "<b>7B</b>" not in site

    # 5. a third sync changes nothing; a pull request changing the accepted file is closed, rows unchanged
    before = dict(stub.files(RESULTS))
    proc = run_sg(maint, *args)
    assert proc.returncode == 0 and proc.stdout.strip().splitlines()[-2:] == [
        "results: unchanged", "accepted 0, closed 0, left 0"], proc.stderr[-2000:]
    assert stub.files(RESULTS) == before and len(stub.repos[RESULTS].commits) == n_commits
    changed = json.loads(honest.read_text())
    changed["model"]["params"] = "70B"
    eve_pr = _hostile_pr(stub, "tok-eve", {path: json.dumps(changed).encode()})
    proc = run_sg(maint, *args)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert stub.discussion(REQUESTS, eve_pr).status == "closed"
    assert "this one changes 1 files" in stub.comments(REQUESTS, eve_pr, author="maintainer")[0]
    assert stub.files(RESULTS) == before
