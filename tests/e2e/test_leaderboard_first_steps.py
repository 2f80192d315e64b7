"""A maintainer's first steps on the Hub (issue 38.4), through the Hub stand-in and the installed ``streamgaze``
script, with no repository made by hand:

1. before anything exists, a participant's push and the maintainer's sync each end in one line naming the
   missing requests dataset and ``leaderboard init``; the failed sync creates nothing (not the results dataset);
2. ``leaderboard init`` refuses a read-only token and a namespace the user cannot create repositories in, creating
   nothing; then creates both datasets (public, with their cards; the results dataset already loads the papers'
   rows) and prints the next commands; a second ``init`` leaves them as they are;
3. a participant's ``submit --push`` opens the pull request, the maintainer's ``leaderboard sync`` merges it
   (each decision printed once), and ``load_dataset`` of the results gives the accepted row.
"""

from __future__ import annotations

import json

import pytest

from perf.shared.hub_stub import HubStub, hub_env, put_dataset

from ..fixtures.cli_entry import one_error_line
from ..fixtures.leaderboard_hub import USERS, load_results, run_sg

pytestmark = pytest.mark.slow

DATA, REQUESTS, RESULTS = "org/sg", "org/requests", "org/results"
INIT_HINT = f"`streamgaze leaderboard init --requests {REQUESTS} --results "


def test_a_maintainers_first_steps(demo_dataset, demo_random_run, tmp_path):
    run = demo_random_run[0]
    with HubStub() as stub:
        stub.token_users.update(USERS)
        put_dataset(stub, demo_dataset, DATA)
        ref = f"hf://datasets/{DATA}@v0.1.0"
        maint, carol = hub_env(stub, tmp_path / "maint"), hub_env(stub, tmp_path / "carol", "tok-carol")
        sync = ("leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset", ref)

        # 1. nothing exists yet: one line each, naming the repository and the first step; nothing created
        proc = run_sg(carol, "submit", run, "--dataset", demo_dataset, "--model-name", "Carol random",
                      "--out", tmp_path / "carol.json", "--push", REQUESTS)
        assert one_error_line(proc) == (
            f"streamgaze submit: error: the leaderboard's requests dataset {REQUESTS} does not exist on the Hub (or this "
            f"token cannot see it); its maintainer creates it with {INIT_HINT}ORG/RESULTS`")
        assert (tmp_path / "carol.json").is_file()  # the submission itself was written before the push
        proc = run_sg(maint, *sync)
        assert one_error_line(proc) == (
            f"streamgaze leaderboard sync: error: the leaderboard's requests dataset {REQUESTS} does not exist on the "
            f"Hub (or this token cannot see it); its maintainer creates it with {INIT_HINT}{RESULTS}`")
        assert sorted(stub.repos) == [DATA]  # the failed sync created no results dataset

        # 2. init: rights checked before anything is created
        init = ("leaderboard", "init", "--requests", REQUESTS, "--results", RESULTS)
        proc = run_sg(hub_env(stub, tmp_path / "ro", "read-only"), *init)
        assert one_error_line(proc) == (
            "streamgaze leaderboard init: error: the token of tester can only read: create a token with write access "
            "(a 'write' or fine-grained token that may create repositories) and set HF_TOKEN to it")
        proc = run_sg(maint, "leaderboard", "init", "--requests", REQUESTS, "--results", "elsewhere/results")
        assert one_error_line(proc) == (
            "streamgaze leaderboard init: error: maintainer cannot create elsewhere/results: elsewhere is neither the "
            "token's user nor an organisation where maintainer may create repositories (those: org)")
        assert sorted(stub.repos) == [DATA]
        proc = run_sg(maint, *init)
        assert proc.returncode == 0, proc.stderr[-3000:]
        lines = proc.stdout.splitlines()
        assert lines[:2] == [f"{REQUESTS}: created (requests, public, with its card)",
                             f"{RESULTS}: created (results, public, with its card)"]
        assert f"  you (the maintainer, maintainer):  streamgaze leaderboard sync --requests {REQUESTS} --results " \
               f"{RESULTS} --dataset hf://datasets/ORG/NAME@vX.Y.Z" in lines
        assert not stub.repos[REQUESTS].private and not stub.repos[RESULTS].private
        card = stub.files(REQUESTS)["README.md"].decode()
        assert "submissions/<benchmark>/<model-slug>/<UTC timestamp>.json" in card and f"--push {REQUESTS}" in card
        paper = load_results(hub_env(stub, tmp_path / "reader"), RESULTS, "streamgaze_paper")
        assert len(paper) == 14 and all(r["reported"] for r in paper)
        again = run_sg(maint, *init)
        assert again.returncode == 0 and again.stdout.splitlines()[:2] == [
            f"{REQUESTS}: exists, left as it is", f"{RESULTS}: exists, left as it is"]

        # 3. a participant pushes, the maintainer syncs, anyone loads the results
        proc = run_sg(carol, "submit", run, "--dataset", demo_dataset, "--model-name", "Carol random",
                      "--out", tmp_path / "carol.json", "--push", REQUESTS)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stdout.strip().endswith(f"{stub.url}/datasets/{REQUESTS}/discussions/1")
        proc = run_sg(maint, *sync)
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = proc.stdout.splitlines()
        assert out[0] == "#1 accepted: Carol random (@carol)" and sum("#1" in line for line in out) == 1, out
        assert out[1].startswith("results: commit ") and out[-1] == "accepted 1, closed 0, left 0", out
        rows = load_results(hub_env(stub, tmp_path / "reader"), RESULTS, "streamgaze")
        sub = json.loads((tmp_path / "carol.json").read_text())
        assert [(r["model_name"], r["submitter"], r["pr_number"]) for r in rows] == [("Carol random", "carol", 1)]
        assert rows[0]["overall"] == pytest.approx(sub["scores"]["overall"], abs=1e-12)
