"""The pieces of issue 44, each on its own: an evaluation request's rules, the job's script (no secret in it), the
queue's budget arithmetic, which columns a table shows at 1280 px, partial runs ranked apart, the raw responses'
digest, the ledger's digest line and leaderboard.yaml's budget. The whole loop through the Hub and Jobs stand-ins:
tests/e2e/test_leaderboard_jobs.py."""

from __future__ import annotations

import copy
import re
import shlex

import pytest

from streamgaze_hf.leaderboard.fit import empty_columns, split_columns
from streamgaze_hf.leaderboard.rows import Row, benchmark_columns, html_columns, sort_rows
from streamgaze_hf.leaderboard.service.eval_queue import (
    QueueRecord,
    dumps_queue,
    parse_queue,
    spent_gpu_hours,
)
from streamgaze_hf.leaderboard.service.eval_requests import (
    build_request,
    model_args_problem,
    parse_request,
    request_digest,
    request_tasks,
)
from streamgaze_hf.leaderboard.service.jobs import job_script, parse_duration
from streamgaze_hf.leaderboard.service.results import parse_config
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.submission.fingerprint import responses_digest
from streamgaze_hf.util.errors import StreamGazeError

SG = get_benchmark("streamgaze")
DATASET = {"repo": "org/sg", "revision": "v1.0.0", "commit": "a" * 40, "version": "1.0.0", "manifest_sha256": "b" * 64}


def _request(**kw) -> dict:
    args = {"model_id": "org/model", "commit": "c" * 40, "lmms_model": "qwen2_5_vl", "model_args": "max_num_frames=32",
            "dataset": DATASET, **kw}
    return build_request(SG, **args)


@pytest.mark.parametrize(("args", "problem"), [
    ("pretrained=evil/model", "pretrained is the leaderboard's"),
    ("api_key=sk-123", "api_key names a secret"),
    ("max_num_frames=32,max_num_frames=8", "max_num_frames given twice"),
    ("max_pixels=1 2", "is not name=value"),
    ("x='a'", "is not name=value"),
    ("a=" + "1" * 1001, "at most 1000 characters"),
])
def test_model_args_of_a_request_are_plain_and_hold_no_weights_or_secret(args, problem):
    assert problem in model_args_problem(args)


def test_a_request_pins_the_model_and_runs_the_gaze_modes_tasks():
    req = _request(gaze="none")
    assert req["settings"] == {"gaze": "none", "prompt_mode": "default"}
    assert request_tasks(SG, "none") == ["streamgaze_nogaze"] and request_tasks(SG, "visual") == ["streamgaze"]
    import json

    assert parse_request(json.dumps(req).encode()) == req
    # the same evaluation twice has one digest; another model argument is another evaluation
    assert request_digest(_request(gaze="none", model_name="Another name")) == request_digest(req)
    assert request_digest(_request(gaze="none", model_args="max_num_frames=8")) != request_digest(req)


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda r: r["model"].update(revision="main"), "model.revision must be a 40-hex commit"),
    (lambda r: r.update(benchmark="nosuch"), "benchmark 'nosuch' is not a benchmark of this leaderboard"),
    (lambda r: r["settings"].update(gaze="telepathy"), "settings.gaze must be one of"),
    (lambda r: r["lmms_eval"].update(model_args="pretrained=x/y"), "pretrained is the leaderboard's"),
    (lambda r: r["lmms_eval"].update(model="rm -rf /"), "lmms_eval.model must be an lmms-eval model id"),
    (lambda r: r.update(extra=1), "unknown field 'extra'"),
])
def test_a_request_file_is_read_strictly(edit, reason):
    import json

    req = _request()
    edit(req)
    with pytest.raises(StreamGazeError, match=re.escape(reason)):
        parse_request(json.dumps(req).encode())
    with pytest.raises(StreamGazeError, match="at most 65,536 bytes"):
        parse_request(b" " * 70_000)
    with pytest.raises(StreamGazeError, match="duplicate field 'kind'"):
        parse_request(b'{"kind": 1, "kind": 2}')


def test_the_jobs_script_holds_no_secret_and_runs_the_toolkits_own_verb():
    script = job_script(requests="org/requests", request_path="requests/streamgaze/m/20260101T000000Z.json",
                        request_commit="d" * 40, num=7, responses_path="evaluations/streamgaze/m/20260101T000001Z.json",
                        wheel_url="https://hub/datasets/org/requests/resolve/e/toolkit/0.1.0/w.whl", wheel_sha256="f" * 64,
                        version_line="streamgaze-toolkit 0.1.0 (commit abc)")
    last = script.splitlines()[-1]
    assert shlex.split(last)[:4] == ["exec", "streamgaze", "leaderboard", "run-request"]
    assert "--pr 7" in last and "--commit " + "d" * 40 in last
    assert "streamgaze-toolkit[eval] @ https://hub/datasets/org/requests/resolve/e/toolkit/0.1.0/w.whl#sha256=" + "f" * 64 \
        in script  # installed only when the image's streamgaze is not this very toolkit
    assert "TOKEN" not in script and "secret" not in script.lower()


@pytest.mark.parametrize(("text", "seconds"), [("5400", 5400), ("90m", 5400), ("2h", 7200), ("1.5h", 5400)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds
    with pytest.raises(StreamGazeError, match="a duration such as"):
        parse_duration("soon")


def _record(num, status, **kw) -> QueueRecord:
    return QueueRecord(num, f"requests/streamgaze/m/2026010{num}T000000Z.json", "e" * 40, "alice",
                       "2026-01-01T00:00:00Z", "streamgaze", "M", "m", status=status, **kw)


def test_the_budget_counts_used_and_reserved_gpu_hours():
    records = {1: _record(1, "FINISHED", gpu_hours=1.5, gpus=1),
               2: _record(2, "RUNNING", gpus=2, timeout_s=3600, running_s=1800, gpu_hours=1.0),
               3: _record(3, "FAILED", gpu_hours=0.25), 4: _record(4, "PENDING")}
    # finished 1.5 + failed 0.25 + running: 1.0 used and 0.5 h x 2 GPUs still reserved
    assert spent_gpu_hours(records) == pytest.approx(1.5 + 0.25 + 1.0 + 1.0)
    assert parse_queue(dumps_queue(records).decode()) == records
    with pytest.raises(StreamGazeError, match="queue.json"):
        parse_queue('{"requests": {"1": {"num": 1, "status": "DONE"}}}')


def test_leaderboard_yaml_sets_the_budget():
    assert parse_config("maintainers: [m]\ngpu_hours_budget: 12.5\n").gpu_hours_budget == 12.5
    assert parse_config("maintainers: [m]\n").gpu_hours_budget is None
    with pytest.raises(StreamGazeError, match="gpu_hours_budget must be a number"):
        parse_config("gpu_hours_budget: lots\n")


def _row(name, overall, coverage=1.0, source="submission", **tasks) -> Row:
    return Row(name=name, source=source, tasks=tasks, overall=overall, coverage=coverage)


def test_a_partial_run_is_marked_and_never_ranked_among_full_runs():
    rows = sort_rows([_row("Full low", 0.30), _row("Partial", 0.90, coverage=0.132), _row("Full high", 0.50),
                      _row("Paper", 0.40, coverage=None, source="paper")])
    assert [(r.name, r.rank) for r in rows] == [("Full high", 1), ("Paper", 2), ("Full low", 3), ("Partial", None)]


def test_empty_columns_are_left_out_and_wide_tables_keep_their_summary_columns():
    eqa = get_benchmark("streameqa")
    cols = html_columns(benchmark_columns(eqa))
    rows = [Row(name="P", source="paper", overall=0.5, tasks={c.key: 0.5 for c in eqa.leaderboard.score_columns()[:3]})]
    empty = empty_columns(cols, rows)
    # a paper row has no coverage, and no row of this table is ranked (the rank column is left out too)
    assert {c.key for c in empty} == {c.key for c in eqa.leaderboard.score_columns()[3:]} | {"coverage", "rank"}
    full = [Row(name="S", source="submission", overall=0.5, coverage=1.0,
                tasks={c.key: 0.5 for c in eqa.leaderboard.score_columns()})]
    summary, detail = split_columns(cols, full)
    keys = [c.key for c in summary]
    assert keys[:3] == ["rank", "model", "overall"] and "coverage" in keys and detail
    # the declared order is kept: the summary is a prefix of the declared score columns
    declared = [c.key for c in eqa.leaderboard.score_columns()]
    shown = [k for k in keys if k in declared]
    assert shown == declared[:len(shown)] and len(shown) + len(detail) == len(declared)
    # a benchmark whose columns fit has no detail columns
    assert split_columns(html_columns(benchmark_columns(SG)), [])[1] == []


def test_the_responses_digest_is_the_raw_responses_only():
    sub = {"benchmark": "streamgaze", "model": {"name": "A"}, "settings": {"gaze": "visual"},
           "answers": {"nfi": {"q1": {"response": "B", "parsed": "B"}},
                       "gta": {"q2": {"0": {"response": "Yes", "parsed": "Yes"}}}}}
    other = copy.deepcopy(sub)
    other["model"]["name"] = "Another name"
    other["answers"]["nfi"]["q1"]["parsed"] = None  # what the scorer makes of it is not the run
    assert responses_digest(other) == responses_digest(sub)
    other["answers"]["gta"]["q2"]["0"]["response"] = "No"
    assert responses_digest(other) != responses_digest(sub)


def test_the_ledger_names_an_accepted_files_responses_and_accepts_requests():
    from types import SimpleNamespace

    from streamgaze_hf.leaderboard.service.ledger import accepted_prs

    digest = "9" * 64
    commits = [SimpleNamespace(title="Accept #3: requests/streamgaze/m/20260101T000000Z.json", commit_id="c3",
                               message="Submitted by @bob in pull request #3. Re-scored by ..."),
               SimpleNamespace(title="Accept #2: submissions/streamgaze/m/20260101T000000Z.json", commit_id="c2",
                               message=f"Submitted by @alice in pull request #2. ... responses sha256 {digest}.")]
    api = SimpleNamespace(list_repo_commits=lambda *a, **k: commits)
    got = accepted_prs(api, "org/requests", "head")
    assert (got[2].responses, got[2].submitter) == (digest, "alice")
    assert (got[3].path.split("/")[0], got[3].responses) == ("requests", "")
