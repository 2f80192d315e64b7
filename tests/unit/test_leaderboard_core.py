"""The leaderboard's decision as a core (issue 52 item 3): the oracle rule, the one function, at the trust boundary
(the verdict, push-submission) as at submit; the verdict reads the untrusted file once; a row's benchmark is read
off its path by one function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamgaze_hf.leaderboard.service import hub_push, verdict
from streamgaze_hf.leaderboard.service.pinning import local_listed
from streamgaze_hf.submission.assemble import is_oracle
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.submissions import ego_dataset, ego_submission

#: the oracle's class registered under a model id of its own (lmms-eval accepts any id for a class path)
ORACLE_AS_OTHER = "lmms_tasks.models.OracleBaseline"


@pytest.fixture(scope="module")
def ego(tmp_path_factory):
    base = tmp_path_factory.mktemp("core")
    return ego_dataset(base), base


def _with_run_model(src: Path, out: Path, model: str) -> Path:
    sub = json.loads(src.read_text(encoding="utf-8"))
    sub["run"]["model"] = model
    out.write_text(json.dumps(sub), encoding="utf-8")
    return out


def test_the_oracle_rule_reads_the_model_id_and_the_backend_class():
    assert is_oracle({"model": "streamgaze_oracle"})
    assert is_oracle({"model": "mine", "model_backend": "lmms_tasks.models.OracleBaseline (simple)"})
    assert is_oracle({"model": ORACLE_AS_OTHER, "model_args": ""})
    assert not is_oracle({"model": "streamgaze_random", "model_backend": "lmms_tasks.models.RandomBaseline (simple)"})
    assert not is_oracle({"model": "llava_onevision", "model_args": "pretrained=oracle-7b"})


def test_the_verdict_refuses_the_oracle_under_another_model_id(ego):
    root, base = ego
    honest = ego_submission(root, base / "honest.json")
    oracle = _with_run_model(honest, base / "oracle.json", ORACLE_AS_OTHER)
    listed = local_listed([str(root)])
    with pytest.raises(StreamGazeError, match=r"^the oracle baseline \(it reads the answer key\) is never ranked$"):
        verdict.file_verdict(str(oracle), listed)
    assert verdict.file_verdict(str(honest), listed)["row"]["model_name"] == "Ego synthetic"


def test_push_submission_refuses_the_oracle_under_another_model_id(ego, monkeypatch):
    """push-submission refuses it after the local re-score and before it reads the requests dataset's ledger."""
    from streamgaze_hf.leaderboard.service import bounded
    from streamgaze_hf.submission.validate import load_submission

    root, base = ego
    oracle = _with_run_model(ego_submission(root, base / "push.json"), base / "push-oracle.json", ORACLE_AS_OTHER)
    monkeypatch.setattr(hub_push, "hub_api", lambda token=None: object())
    monkeypatch.setattr(hub_push, "require_repo", lambda *a, **k: None)
    monkeypatch.setattr(bounded, "rescore_bounded", lambda path, root, **k: bounded.Rescore(
        load_submission(path), {}, ("", "", "")))

    def reached(*_a, **_k):
        raise AssertionError("the ledger was read: the oracle was not refused")

    monkeypatch.setattr(hub_push, "refuse_repeat", reached)
    with pytest.raises(StreamGazeError, match=r"this is the oracle baseline \(it reads the answer key\): never ranked"):
        hub_push.push_submission(oracle, "org/requests", dataset=str(root))


def test_the_verdict_parses_the_untrusted_file_once(ego, monkeypatch):
    from streamgaze_hf.submission import validate

    root, base = ego
    honest = ego_submission(root, base / "once.json")
    calls: list[int] = []
    parse = validate.parse_submission

    def counted(text: str) -> dict:
        calls.append(len(text))
        return parse(text)

    monkeypatch.setattr(validate, "parse_submission", counted)
    v = verdict.file_verdict(str(honest), local_listed([str(root)]),
                             "submissions/egogazevqa/ego-synthetic/20260101T000000Z.json")
    assert calls == [honest.stat().st_size]
    assert (v["benchmark"], v["row"]["submission_path"]) == (
        "egogazevqa", "submissions/egogazevqa/ego-synthetic/20260101T000000Z.json")


def test_the_verdict_gives_the_parent_its_benchmark_as_a_field(ego):
    root, base = ego
    honest = ego_submission(root, base / "field.json")
    v = verdict.verdict(honest, local_listed([str(root)]), timeout_s=120)
    assert isinstance(v, verdict.Verdict)
    assert (v.benchmark.name, v.row["model_name"], v.name_key, v.model_id) == (
        "egogazevqa", "Ego synthetic", "egosynthetic", "")


@pytest.mark.parametrize(("path", "bench"), [
    ("submissions/egogazevqa/m/20260102T030405Z.json", "egogazevqa"),
    ("evaluations/streamgaze/m/20260102T030405Z.json", "streamgaze"),
])
def test_a_rows_benchmark_is_read_off_its_path(path, bench):
    from streamgaze_hf.leaderboard.service.untrusted import row_benchmark

    assert row_benchmark({"submission_path": path, "model_name": "m"}).name == bench


def _snapshot(tmp_path, maintainers=()):
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from streamgaze_hf.leaderboard.service.requests_hub import RequestsRead
    from streamgaze_hf.leaderboard.service.results import LeaderboardConfig
    from streamgaze_hf.leaderboard.service.results_repo import ResultsState
    from streamgaze_hf.leaderboard.service.sync_state import SyncState

    row = {"model_name": "Gaze-7B", "submitter": "alice", "pr_number": 3, "created_at": "2026-01-01T00:00:00Z",
           "responses_sha256": "d1", "submission_path": "submissions/streamgaze/gaze-7b/20260101T000000Z.json"}
    read = RequestsRead({row["submission_path"]}, {}, {}, {})
    rows = ResultsState("head", {"streamgaze": [row]}, {}, LeaderboardConfig(maintainers=frozenset(maintainers)))
    queue = SimpleNamespace(read=lambda: SimpleNamespace(records={}))
    return SyncState.build("org/requests", "org/results", datetime(2026, 1, 2, tzinfo=timezone.utc), tmp_path, {},
                           read, rows, queue)


def test_acceptance_is_ordered_checks_over_one_snapshot(tmp_path):
    from types import SimpleNamespace

    from streamgaze_hf.leaderboard.service.acceptance import FRESH, SCORED, SHAPE, PullRequest, first_refusal

    state = _snapshot(tmp_path)
    path = "submissions/streamgaze/gaze-7b/20260101T000000Z.json"
    two = PullRequest(5, "bob", [("a.json", "new"), ("b.json", "new")], quota=1)
    assert first_refusal(SHAPE, two, state) == ("a submission pull request adds exactly one new file; this one "
                                                "changes 2 files (a.json, b.json)")
    odd = PullRequest(5, "bob", [("x/y.json", "new")], quota=1)
    assert first_refusal(SHAPE, odd, state).startswith("x/y.json is not a submission path")
    on_main = PullRequest(5, "bob", [(path, "new")], quota=1)
    assert first_refusal(SHAPE, on_main, state) == "" and on_main.kind == "submissions"
    assert first_refusal(FRESH, on_main, state) == f"{path} already exists: a pull request cannot change an " \
                                                    "existing submission"
    alices = PullRequest(6, "alice", [(path.replace("20260101", "20260102"), "new")], quota=1)
    assert first_refusal(FRESH, alices, state).startswith("over the quota: @alice has 1 submission(s)")
    assert first_refusal(FRESH, alices, _snapshot(tmp_path, maintainers=["alice"])) == ""
    bobs = SimpleNamespace(row={"model_name": "gaze 7b", "responses_sha256": "d2"}, name_key="gaze7b")
    assert first_refusal(SCORED, PullRequest(7, "bob", [], 1), state, bobs) == (
        "the model name 'gaze 7b' reads as 'Gaze-7B' of @alice (pull request #3): choose a name of your own")
    again = SimpleNamespace(row={"model_name": "Gaze-7B", "responses_sha256": "d1"}, name_key="gaze7b")
    assert first_refusal(SCORED, PullRequest(8, "alice", [], 1), state, again) == (
        "its responses are those of the accepted row #3 ('Gaze-7B' of @alice): the same run is one row")
    assert first_refusal(SCORED, PullRequest(3, "alice", [], 1), state, again) == ""
    assert first_refusal(SCORED, PullRequest(8, "alice", [], 1, done="c0ffee"), state, again) == ""


def test_the_evaluation_step_is_a_pipeline_over_the_snapshot_and_the_hub_adapter(tmp_path):
    """Without ``--evaluate jobs``, an accepted request whose queue record an interrupted sync never wrote is queued
    from the snapshot's ledger, its file read through the adapter, and written to the queue; nothing of the sync
    object is needed."""
    from dataclasses import replace
    from types import SimpleNamespace

    from streamgaze_hf.leaderboard.service.eval_requests import build_request
    from streamgaze_hf.leaderboard.service.evaluations import Evaluations
    from streamgaze_hf.leaderboard.service.ledger import Accepted
    from streamgaze_hf.leaderboard.service.sync import SyncReport
    from streamgaze_hf.leaderboard.service.sync_state import JobsAccess
    from streamgaze_hf.registry import get_benchmark

    req = build_request(get_benchmark("streamgaze"), model_id="org/model", commit="c" * 40, lmms_model="qwen2_5_vl",
                        dataset={"repo": "org/sg", "revision": "v1", "commit": "a" * 40, "version": "1.0.0",
                                 "manifest_sha256": "b" * 64})
    path = "requests/streamgaze/org-model/20260101T000000Z.json"
    state = _snapshot(tmp_path)
    written: list[dict] = []

    def update(change, message):
        queue = SimpleNamespace(records={})
        change(queue)
        written.append(queue.records)

    state.read = replace(state.read, ledger={9: Accepted(9, path, "carol", "d" * 40)})
    state.queue = SimpleNamespace(update=update)
    hub = SimpleNamespace(api=None, read_file=lambda p, c: json.dumps(req).encode() if (p, c) == (path, "d" * 40)
                          else b"")
    report, lines = SyncReport(), []
    assert Evaluations(state, hub, JobsAccess(), None, report, lines.append).run([]) == []
    [records] = written
    rec = records[9]
    assert (rec.status, rec.submitter, rec.model_id, rec.request_path, rec.reason) == (
        "PENDING", "carol", "org/model", path, "waiting for the maintainer's sync with --evaluate jobs")
    assert lines == ["#9: accepted earlier, queued now (PENDING)"] and report.evaluations == lines


def test_the_space_refuses_an_upload_the_sync_would_refuse_before_it_opens_the_pull_request(ego, monkeypatch):
    """The Submit tab runs the sync's SCORED checks over the rows it shows: another submitter's model name and an
    accepted row's run are refused in the sync's words, and nothing is sent; a free name goes on to the pull
    request."""
    from streamgaze_hf.leaderboard.service import app
    from streamgaze_hf.submission.fingerprint import responses_digest
    from streamgaze_hf.submission.validate import load_submission

    root, base = ego
    honest = ego_submission(root, base / "upload.json")
    digest = responses_digest(load_submission(honest))
    sent: list[str] = []

    class Pushed:
        url, path = "http://stand-in/discussions/9", "submissions/egogazevqa/ego-synthetic/x.json"

    monkeypatch.setattr(app, "quota_reason", lambda *a, **k: None)
    monkeypatch.setattr(hub_push, "open_pull_request", lambda repo, data, header, **k: sent.append(k["submitter"])
                        or Pushed())
    listed = local_listed([str(root)])

    def upload(rows):
        return app.submit_upload(str(honest), "org/requests", listed, user="alice", rows={"egogazevqa": rows},
                                 timeout_s=120)

    bob = {"submitter": "bob", "model_name": "Ego Synthetic", "name_key": "egosynthetic", "pr_number": 3,
           "responses_sha256": "0" * 64}
    said = upload([bob])
    assert said.endswith("**Not sent**: the model name 'Ego synthetic' reads as 'Ego Synthetic' "
                         "of &#64;bob (pull request #3): choose a name of your own"), said
    copied = {**bob, "model_name": "Bob's run", "name_key": "bobsrun", "responses_sha256": digest}
    said = upload([copied])
    assert said.endswith("**Not sent**: its responses are those of the accepted row #3 (\"Bob's run\" "
                         "of &#64;bob): the same run is one row"), said
    assert sent == []
    said = upload([{**bob, "submitter": "alice"}])
    assert "**Pull request opened** for @alice: http://stand-in/discussions/9" in said, said
    assert sent == ["alice"]
