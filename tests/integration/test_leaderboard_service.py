"""The leaderboard service's pieces through the installed ``streamgaze`` script, quick (issue 31; the whole
loop through the Hub stand-in is tests/e2e/test_leaderboard_hub.py): hostile files refused before any long
work or upload, the time bound, the Space folder, and the old ``leaderboard FILE ...`` usage beside the new
sub-verbs."""

from __future__ import annotations

import json

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.cli_entry import one_error_line, streamgaze


def test_hostile_files_are_refused_before_parsing_or_upload(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    line = one_error_line(streamgaze("validate", deep, tmp=tmp_path))
    assert line == f"streamgaze validate: error: {deep}: nested 50000 levels deep: at most 32 (checked before parsing)"
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(40 * 1024 * 1024)
    # the requests dataset is never contacted (offline: any request would fail with another message)
    line = one_error_line(streamgaze("push-submission", big, "--requests", "org/requests", tmp=tmp_path))
    assert line == (f"streamgaze push-submission: error: {big}: 41,943,040 bytes: a submission may have at most 33,554,432 bytes "
                    "(checked before it is read)")


def test_rescoring_is_time_bound(demo_dataset, tmp_path):
    from streamgaze_hf.leaderboard.service.bounded import rescore_bounded
    from streamgaze_hf.submission.answer_key import load_answer_key

    sub = synthetic_submission(load_answer_key(demo_dataset), tmp_path / "s.json", "S", 0.5)
    assert rescore_bounded(sub, demo_dataset, timeout_s=60).scores["coverage"]["fraction"] == 1.0
    with pytest.raises(StreamGazeError, match=r"re-scoring took longer than 0\.001 s: stopped"):
        rescore_bounded(sub, demo_dataset, timeout_s=0.001)
    bad = json.loads(sub.read_text())
    bad["scores"]["overall"] = 1.0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(StreamGazeError, match="reported score scores.overall = 1.0 differs") as err:
        rescore_bounded(tmp_path / "bad.json", demo_dataset)
    assert err.value.path == str(tmp_path / "bad.json")


def test_space_folder(tmp_path):
    out = tmp_path / "space"
    proc = streamgaze("leaderboard", "space", "--out", out, "--results", "org/results", "--requests", "org/requests",
                      "--dataset", "hf://datasets/org/sg@v1.0.0", tmp=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == str(out), proc.stderr[-2000:]
    from streamgaze_hf import __version__

    wheel = f"streamgaze_toolkit-{__version__}-py3-none-any.whl"  # the toolkit is on no index: the Space carries it
    assert sorted(p.name for p in out.iterdir()) == ["Dockerfile", "README.md", "app.py", "requirements.txt", wheel]
    assert (out / "requirements.txt").read_text().splitlines()[-1] == f"./{wheel}[leaderboard]"
    readme = (out / "README.md").read_text()
    assert readme.startswith("---\ntitle: Gaze benchmarks leaderboard\n") and "sdk: docker\napp_port: 7860\n" in readme
    assert "app_file: app.py\n" in readme
    app = (out / "app.py").read_text()
    assert 'os.environ.get("RESULTS", "org/results")' in app and "hf://datasets/org/sg@v1.0.0" in app
    compile(app, "app.py", "exec")
    line = one_error_line(streamgaze("leaderboard", "space", "--out", out, tmp=tmp_path))
    assert line == f"streamgaze leaderboard space: error: {out}: exists and is not empty: the Space folder goes into a new or empty directory"


def test_old_leaderboard_usage_and_sub_verbs_coexist(tmp_path):
    # `leaderboard FILE ...` is still the static site's command: a missing file is its own error
    line = one_error_line(streamgaze("leaderboard", tmp_path / "none.json", "--out", tmp_path / "site", tmp=tmp_path))
    assert "none.json" in line and "submission file" in line
    proc = streamgaze("leaderboard", "sync", "--help", tmp=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: streamgaze leaderboard sync")


def test_the_apps_submit_applies_the_quota_before_sending(tmp_path, monkeypatch):
    """The app counts the signed-in user's accepted rows of the last 7 days, their open pull requests (their own, and
    the Space's naming them) and their waiting evaluation requests, as the sync does; over the quota nothing is sent."""
    import huggingface_hub.constants
    from huggingface_hub import CommitOperationAdd, HfApi

    from perf.shared.hub_stub import HubStub
    from streamgaze_hf.leaderboard.service.app import quota_reason, request_evaluation, submit_upload
    from streamgaze_hf.leaderboard.service.identity import space_description

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    with HubStub() as stub:
        stub.token_users.update({"tok-space": "space-bot", "tok-alice": "alice"})
        stub.put_files("org/requests", {"README.md": b"# Requests\n"})
        space, alice = (HfApi(endpoint=stub.url, token=t) for t in ("tok-space", "tok-alice"))
        for i in range(2):  # alice's own pull requests
            alice.create_commit("org/requests", [CommitOperationAdd(f"submissions/streamgaze/a/2026010{i}T000000Z.json",
                                                                    b"{}")], repo_type="dataset", create_pr=True,
                                commit_message="mine")
        space.create_commit("org/requests", [CommitOperationAdd("submissions/streamgaze/b/20260103T000000Z.json", b"{}")],
                            repo_type="dataset", create_pr=True, commit_message="via the Space",
                            commit_description=space_description("alice"))
        rows = {"streamgaze": [{"submitter": "alice", "created_at": stub.discussion("org/requests", 1).created_at}]}
        kw = {"token": "tok-space", "rows": rows}
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", stub.url)
        assert quota_reason("org/requests", rows, "alice", token="tok-space", quota=5) is None
        said = quota_reason("org/requests", rows, "alice", token="tok-space", quota=4)
        assert said.startswith("over the quota: @alice has 4 submission(s) accepted or pending in the last 7 days")
        assert quota_reason("org/requests", rows, "alice", token="tok-space", quota=4, maintainers=["alice"]) is None
        n = len(stub.repos["org/requests"].prs)
        upload = tmp_path / "s.json"
        upload.write_text("{}")
        assert submit_upload(str(upload), "org/requests", {}, user="alice", quota=4, **kw).startswith(
            "**Not sent**: over the quota: &#64;alice has 4")
        assert request_evaluation("org/requests", "alice", model_id="org/m", revision="main", lmms_model="qwen2_5_vl",
                                  dataset="hf://datasets/org/d@v1", quota=4, **kw).startswith("**Not sent**: over the")
        assert len(stub.repos["org/requests"].prs) == n  # nothing was sent


def test_push_without_dataset_names_the_dataset_to_pass(demo_dataset, tmp_path):
    """A file made on a local copy pins no dataset on the Hub: the one line says which dataset it was made on and what
    to pass (before the Hub is contacted: this runs offline)."""
    from perf.shared.synthetic import synthetic_submission
    from streamgaze_hf.submission.answer_key import load_answer_key

    sub = synthetic_submission(load_answer_key(demo_dataset), tmp_path / "mine.json", "Mine", 0.5)
    digest = json.loads(sub.read_text())["dataset"]["manifest_sha256"]
    line = one_error_line(streamgaze("push-submission", sub, "--requests", "org/requests", tmp=tmp_path))
    assert line == (f"streamgaze push-submission: error: {sub}: the submission was made on a local copy of StreamGaze "
                    f"dataset version 0.1.0 (manifest sha256 {digest[:12]}...), which names no dataset on the Hub: pass "
                    "--dataset hf://datasets/ORG/NAME@TAG, the leaderboard's dataset that copy was made from (the one "
                    "its maintainer lists; the leaderboard re-scores against it)")


def test_leaderboard_help_lists_its_verbs_one_line_each(tmp_path):
    proc = streamgaze("leaderboard", "--help", tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    start = lines.index("verbs:")
    verbs = {ln.split()[0]: ln for ln in lines[start + 1:start + 9]}
    assert list(verbs) == ["FILE.json", "init", "sync", "serve", "space", "flag", "unflag", "run-request"]
    assert verbs["FILE.json"].strip().endswith("render the static site from submission files (this command)")
    assert all(len(ln.split(None, 1)[1]) > 10 for ln in verbs.values())  # each with its one line
    assert lines[start + 9] == ""  # and nothing wraps onto a second


def test_a_writer_commits_again_on_the_new_head_and_gives_up_when_it_keeps_moving(monkeypatch):
    """The leaderboard writers' one rule (``hub_commit.commit_on_head``) against the Hub stand-in: another writer
    committing between an attempt's read and its commit gets the Hub's 412, and the attempt is made again on the new
    head (both files end up on main); a head that moves before every commit gives up after ATTEMPTS with the caller's
    own exception; any other Hub error goes up as the caller's error."""
    import huggingface_hub.constants
    from huggingface_hub import CommitOperationAdd, HfApi

    from perf.shared.hub_stub import HubStub
    from streamgaze_hf.leaderboard.service.hub_commit import ATTEMPTS, commit_on_head

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    with HubStub() as stub:
        stub.token_users["tok-maint"] = "maint"
        stub.put_files("org/requests", {"README.md": b"# Requests\n"})
        api = HfApi(endpoint=stub.url, token="tok-maint")
        heads, moved = [], []

        def attempt(name, other_writer):
            head = api.repo_info("org/requests", repo_type="dataset").sha
            heads.append(head)
            if other_writer(len(heads)):
                stub.put_files("org/requests", {f"other-{name}-{len(heads)}.txt": b"another writer"})
            return api.create_commit("org/requests", [CommitOperationAdd(name, b"mine")], repo_type="dataset",
                                     parent_commit=head, commit_message="mine").oid

        oid = commit_on_head(lambda: attempt("mine.txt", lambda n: n == 1), moved=lambda: moved.append(heads[-1]),
                             gave_up=RuntimeError("gave up"))
        assert len(heads) == 2 and heads[0] != heads[1] and moved == heads[:1]
        assert api.repo_info("org/requests", repo_type="dataset").sha == oid
        assert {"other-mine.txt-1.txt", "mine.txt"} <= set(api.list_repo_files("org/requests", repo_type="dataset"))

        heads.clear()
        with pytest.raises(RuntimeError, match="gave up"):
            commit_on_head(lambda: attempt("late.txt", lambda n: True), moved=lambda: None, gave_up=RuntimeError("gave up"))
        assert len(heads) == ATTEMPTS and "late.txt" not in api.list_repo_files("org/requests", repo_type="dataset")

        with pytest.raises(StreamGazeError, match="writing org/nowhere"):
            commit_on_head(lambda: api.create_commit("org/nowhere", [CommitOperationAdd("a", b"a")], repo_type="dataset",
                                                     commit_message="a"),
                           moved=lambda: None, gave_up=RuntimeError("gave up"),
                           error=lambda exc: StreamGazeError(f"writing org/nowhere: {type(exc).__name__}"))
