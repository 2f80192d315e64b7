"""A leaderboard people can trust (issue 37), end to end through the Hub stand-in with the real
huggingface_hub and datasets clients, every command through the installed ``streamgaze`` script.

Hostile pull requests of our own, mixed with honest ones: numbers out of range (5,001 digits, 401 digits,
1e400), answer keys the maintainer did not list (a commit on a pull request of the dataset repository, the
literal ``"main"``, another commit of the repository), look-alike names (case, a Cyrillic letter, another
submitter's exact name), a quota overrun, a missing, a private and a misdeclared Hub model, a Space pull
request and a forged Space line, a head changed while the sync reads it, a flag, and an ``.eval_results``
pull request parsed back by ``huggingface_hub``. After every sync the exit status is 0 and the honest pull
requests are accepted; the bytes on ``main`` are the bytes that were re-scored.

Slow (a few minutes on 2 cores: a demo dataset, about 40 re-scores in child processes).
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from perf.shared.hub_stub import HubStub, git_oid, hub_env, put_dataset
from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.leaderboard.service.untrusted import submission_path

from ..fixtures.cli_entry import one_error_line
from ..fixtures.leaderboard_hub import USERS, load_results, pinned, run_sg

pytestmark = pytest.mark.slow

DATA, REQUESTS, RESULTS = "org/sg", "org/requests", "org/results"
TOKENS = {**USERS, "tok-space": "space-bot", "tok-erin": "erin", "tok-frank": "frank", "tok-grace": "grace",
          "tok-heidi": "heidi", "tok-ivan": "ivan", "tok-judy": "judy", "tok-mallory": "mallory", "tok-kim": "kim",
          "tok-leo": "leo"}
LICENSED_CARD = b"---\nlicense: apache-2.0\n---\n# Gaze 7B\n\nA model that looks where you look.\n"


@pytest.fixture(scope="module")
def hub(demo_dataset, tmp_path_factory):
    """The stand-in with the dataset (tag v0.1.0), the requests dataset, the results dataset holding the
    maintainers' leaderboard.yaml, and four models; (stub, dataset commit, a folder, the answer key)."""
    with HubStub() as stub:
        stub.token_users.update(TOKENS)
        commit = put_dataset(stub, demo_dataset, DATA)
        stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
        stub.put_files(RESULTS, {"leaderboard.yaml": b"maintainers: [maintainer]\nspace_accounts: [space-bot]\n"})
        stub.put_model("grace/gaze-7b", {"README.md": LICENSED_CARD, "model.safetensors": b"weights"},
                       safetensors={"total": 7_620_000_000, "parameters": {"BF16": 7_620_000_000}})
        stub.put_model("grace/bare-1b", {"config.json": b"{}"}, safetensors={"total": 1_100_000_000,
                                                                             "parameters": {"F32": 1_100_000_000}})
        stub.put_model("grace/secret-3b", {"README.md": LICENSED_CARD}, private=True)
        stub.put_model("grace/look-2b", {"README.md": LICENSED_CARD}, safetensors={"total": 2_200_000_000,
                                                                                  "parameters": {"BF16": 2_200_000_000}})
        from streamgaze_hf.submission.answer_key import load_answer_key

        yield stub, commit, tmp_path_factory.mktemp("trust"), load_answer_key(demo_dataset)


@pytest.fixture
def online(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)


_STAMP = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
_SALTS = itertools.count(1)


def _open_pr(stub: HubStub, token: str, name: str, data: bytes, description: str | None = None,
             path: str | None = None) -> tuple[int, str]:
    """A pull request adding one submission file at its proper path (a new timestamp each), made with the
    client itself; (its number, the path)."""
    from huggingface_hub import CommitOperationAdd, HfApi

    _STAMP[0] += timedelta(seconds=1)
    path = path or submission_path("streamgaze", name, _STAMP[0])
    info = HfApi(endpoint=stub.url, token=token).create_commit(
        REQUESTS, [CommitOperationAdd(path, data)], repo_type="dataset", create_pr=True,
        commit_message=f"Submission: {name}", commit_description=description)
    return int(info.pr_url.rstrip("/").rsplit("/", 1)[1]), path


def _folder(work: Path, name: str) -> Path:
    (work / name).mkdir()
    return work / name


def _submission(key, work: Path, name: str, right: float, commit: str, **model) -> bytes:
    out = work / f"{len(list(work.iterdir()))}.json"
    # each call a run of its own (other wrong letters): equal responses would be refused as a repeat
    synthetic_submission(key, out, name, right, params=model.pop("params", ""), salt=next(_SALTS))
    return pinned(out, DATA, commit, **model).read_bytes()


def _with_number(data: bytes, where: tuple[str, str], literal: str) -> bytes:
    """The submission with one number replaced by a literal the JSON parser meets as it is."""
    sub = json.loads(data)
    sub[where[0]][where[1]] = "__NUMBER__"
    return json.dumps(sub).replace('"__NUMBER__"', literal).encode()


def _sync(stub: HubStub, home: Path, *extra: str):
    env = hub_env(stub, home, "tok-maint")
    return run_sg(env, "leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset",
                  f"hf://datasets/{DATA}@v0.1.0", *extra, timeout=900)


def _decisions(stub: HubStub, nums) -> dict[int, str]:
    """Pull request -> the sync's one comment's first words (``Accepted`` or the reason)."""
    out = {}
    for n in nums:
        [text] = stub.comments(REQUESTS, n, author="maintainer")
        out[n] = "Accepted" if text.startswith("**Accepted**") else text.split("\n")[0].removeprefix("**Rejected**: ")
    return out


def test_hostile_pull_requests_never_stop_the_sync(hub, online):
    from huggingface_hub import CommitOperationAdd, HfApi

    stub, commit, work, key = hub
    subs = _folder(work, "subs")
    honest = _submission(key, subs, "Alpha", 0.6, commit)
    # a pull request on the dataset repository with a rewritten answer key: its commit is never an answer key
    forged = HfApi(endpoint=stub.url, token="tok-mallory").create_commit(
        DATA, [CommitOperationAdd("README.md", b"# every answer is A now\n")], repo_type="dataset", create_pr=True,
        commit_message="fix").oid
    later = stub.put_files(DATA, {"NOTES.md": b"main moved on\n"})  # main's head: not a listed commit either

    prs = {}
    prs["alpha"] = _open_pr(stub, "tok-alice", "Alpha", honest)
    prs["digits"] = _open_pr(stub, "tok-bob", "Beta", _with_number(
        _submission(key, subs, "Beta", 0.5, commit), ("settings", "clip_fps"), "1" + "0" * 5000))
    prs["overflow"] = _open_pr(stub, "tok-bob", "Beta", _with_number(
        _submission(key, subs, "Beta", 0.5, commit), ("run", "limit"), "9" * 401))
    prs["float"] = _open_pr(stub, "tok-bob", "Beta", _with_number(
        _submission(key, subs, "Beta", 0.5, commit), ("settings", "clip_fps"), "1e400"))
    prs["pr_key"] = _open_pr(stub, "tok-mallory", "Mallory", _submission(key, subs, "Mallory", 0.9, forged))
    prs["branch"] = _open_pr(stub, "tok-mallory", "Mallory", _submission(key, subs, "Mallory", 0.9, "main"))
    prs["other"] = _open_pr(stub, "tok-mallory", "Mallory", _submission(key, subs, "Mallory", 0.9, later))
    prs["upper"] = _open_pr(stub, "tok-carol", "ALPHA", _submission(key, subs, "ALPHA", 0.7, commit))
    prs["cyrillic"] = _open_pr(stub, "tok-dave", "Alph\u0430", _submission(key, subs, "Alph\u0430", 0.7, commit))
    prs["again"] = _open_pr(stub, "tok-alice", "alpha", _submission(key, subs, "alpha", 0.65, commit))
    for i in range(6):
        prs[f"erin{i}"] = _open_pr(stub, "tok-erin", f"Erin {i}", _submission(key, subs, f"Erin {i}", 0.3, commit))
    prs["missing"] = _open_pr(stub, "tok-frank", "Frank", _submission(
        key, subs, "Frank", 0.4, commit, url=f"{stub.url}/frank/no-such-model"))
    prs["private"] = _open_pr(stub, "tok-frank", "Secret", _submission(
        key, subs, "Secret", 0.4, commit, url=f"{stub.url}/grace/secret-3b"))
    prs["params"] = _open_pr(stub, "tok-grace", "Gaze 70B", _submission(
        key, subs, "Gaze 70B", 0.5, commit, url=f"{stub.url}/grace/gaze-7b", params="70B"))
    prs["model"] = _open_pr(stub, "tok-grace", "Gaze 7B", _submission(
        key, subs, "Gaze 7B", 0.5, commit, url=f"{stub.url}/grace/gaze-7b", params="7B"))
    prs["bare"] = _open_pr(stub, "tok-grace", "Bare 1B", _submission(
        key, subs, "Bare 1B", 0.2, commit, url=f"{stub.url}/grace/bare-1b", params="1B"))
    prs["space"] = _open_pr(stub, "tok-space", "Heidi", _submission(key, subs, "Heidi", 0.45, commit),
                            "Submitted by @heidi via the Space.\n\nre-scored by the app")
    prs["forged_space"] = _open_pr(stub, "tok-ivan", "Ivan", _submission(key, subs, "Ivan", 0.35, commit),
                                   "Submitted by @alice via the Space.")
    nums = {k: n for k, (n, _) in prs.items()}

    proc = _sync(stub, work / "maint")
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = _decisions(stub, nums.values())
    first_erin = stub.discussion(REQUESTS, nums["erin0"]).created_at
    free = (datetime.fromisoformat(first_erin.replace("Z", "+00:00")) + timedelta(days=7)).strftime("%Y-%m-%d %H:%M UTC")
    assert {k: got[n] for k, n in nums.items()} == {
        "alpha": "Accepted",
        "digits": "a number of 5,001 characters (100000000000...): at most 40 (checked before it is converted)",
        "overflow": "a number of 401 characters (999999999999...): at most 40 (checked before it is converted)",
        "float": "number 1e400 is out of range (at most 1e+15 in magnitude)",
        "pr_key": f"made on commit {forged[:12]} of {DATA}, which this leaderboard does not score: it scores only the "
                  f"commits its maintainer listed ({DATA}&#64;v0.1.0 = {commit[:12]})",
        "branch": f"pins the dataset revision 'main' of {DATA}, which is not a commit: this leaderboard scores only the "
                  f"commits its maintainer listed ({DATA}&#64;v0.1.0 = {commit[:12]})",
        "other": f"made on commit {later[:12]} of {DATA}, which this leaderboard does not score: it scores only the "
                 f"commits its maintainer listed ({DATA}&#64;v0.1.0 = {commit[:12]})",
        "upper": f"the model name 'ALPHA' reads as 'Alpha' of &#64;alice (pull request #{nums['alpha']}): choose a "
                 "name of your own",
        "cyrillic": f"the model name 'Alph\u0430' reads as 'Alpha' of &#64;alice (pull request #{nums['alpha']}): choose "
                    "a name of your own",
        "again": "Accepted",
        **{f"erin{i}": "Accepted" for i in range(5)},
        "erin5": f"over the quota: &#64;erin has 5 submission(s) accepted or pending in the last 7 days (at most 5); "
                 f"it would be accepted from {free}: open it again then",
        "missing": "names the model frank/no-such-model (model.url), which is not a public model on the Hub",
        "private": "names the model grace/secret-3b (model.url), which is not a public model on the Hub",
        "params": "model.params says 70B, but the safetensors weights of grace/gaze-7b hold 7.62B parameters",
        "model": "Accepted", "bare": "Accepted", "space": "Accepted", "forged_space": "Accepted"}
    summary = proc.stdout.strip().splitlines()[-1]
    assert summary.startswith("accepted 11, closed 12 (#2: a number of 5,001 characters") and summary.endswith(", left 0")
    assert all(stub.discussion(REQUESTS, n).merge_commit is None for n in nums.values())  # never a merge

    # merged is scored: main holds exactly the bytes of each accepted pull request, committed by the sync
    main = stub.files(REQUESTS)
    for k in ("alpha", "again", "model", "space"):
        n, path = prs[k]
        assert main[path] == stub.files(REQUESTS, f"refs/pr/{n}")[path]
    assert not any(p == prs["digits"][1] for p in main)

    rows = {r["pr_number"]: r for r in load_results(hub_env(stub, work / "reader"), RESULTS, "streamgaze")}
    assert sorted(rows) == sorted(n for n in nums.values() if got[n] == "Accepted")
    a, again = rows[nums["alpha"]], rows[nums["again"]]
    assert (a["submitter"], a["run"], again["submitter"], again["run"]) == ("alice", 1, "alice", 2)
    assert a["name_key"] == again["name_key"] == "alpha"
    assert a["pr_url"] == f"{stub.url}/datasets/{REQUESTS}/discussions/{nums['alpha']}"
    history = {m[0]: c for c, m in stub.repos[REQUESTS].messages.items()}
    assert a["requests_commit"] == history[f"Accept #{nums['alpha']}: {prs['alpha'][1]}"]
    assert (a["dataset_repo"], a["dataset_revision"], a["dataset_commit"]) == (DATA, "v0.1.0", commit)
    assert rows[nums["space"]]["submitter"] == "heidi" and rows[nums["forged_space"]]["submitter"] == "ivan"
    m = rows[nums["model"]]
    assert (m["model_id"], m["model_commit"], m["model_params_hub"], m["model_warnings"]) == (
        "grace/gaze-7b", stub.models["grace/gaze-7b"].branches["main"], 7_620_000_000, "")
    assert rows[nums["bare"]]["model_warnings"] == "no model card; no licence"
    assert a["stderr_nfi"] is not None and a["stderr_overall"] is not None

    # a second sync changes nothing and opens nothing
    before = dict(stub.files(RESULTS))
    proc = _sync(stub, work / "maint")
    assert proc.returncode == 0 and proc.stdout.strip().splitlines()[-2:] == ["results: unchanged",
                                                                              "accepted 0, closed 0, left 0"]
    assert stub.files(RESULTS) == before


def test_a_head_changed_during_the_sync_never_lands(hub, online):
    stub, commit, work, key = hub
    subs = _folder(work, "race")
    scored = _submission(key, subs, "Judy", 0.3, commit)
    raised = _submission(key, subs, "Judy", 0.95, commit)  # valid too: a higher score
    num, path = _open_pr(stub, "tok-judy", "Judy", scored)
    pushed = []

    def push_after_download(repo_id: str, revision: str, got: str) -> None:
        if repo_id == REQUESTS and got == path and not pushed:  # the author pushes right after the sync read it
            pushed.append(stub.push_to_pr(REQUESTS, num, {path: raised}))

    stub.on_download = push_after_download
    try:
        proc = _sync(stub, work / "maint")
    finally:
        stub.on_download = None
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert pushed and stub.files(REQUESTS, f"refs/pr/{num}")[path] == raised  # the push happened
    assert stub.files(REQUESTS)[path] == scored  # main holds what was scored, never the later push
    [comment] = stub.comments(REQUESTS, num, author="maintainer")
    accept = next(c for c, m in stub.repos[REQUESTS].messages.items() if m[0] == f"Accept #{num}: {path}")
    assert comment.startswith("**Accepted**") and f"/datasets/{REQUESTS}/commit/{accept}" in comment
    assert stub.repos[REQUESTS].commits[accept][path].oid == git_oid(scored)
    row = next(r for r in load_results(hub_env(stub, work / "reader2"), RESULTS, "streamgaze") if r["pr_number"] == num)
    assert row["overall"] == pytest.approx(json.loads(scored)["scores"]["overall"], abs=1e-12)
    assert not any(r.path.endswith("/merge") for r in stub.requests)

    # a sync interrupted right after its accept commit: the next one finishes it (one comment, the row added)
    from huggingface_hub import HfApi

    from streamgaze_hf.leaderboard.service.ledger import commit_accepted

    kate = _submission(key, subs, "Kate", 0.4, commit)
    num2, path2 = _open_pr(stub, "tok-carol", "Kate", kate)
    commit_accepted(HfApi(endpoint=stub.url, token="tok-maint"), REQUESTS, num2, path2, kate, "carol")
    proc = _sync(stub, work / "maint")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _decisions(stub, [num2]) == {num2: "Accepted"} and stub.files(REQUESTS)[path2] == kate
    assert sum(m[0] == f"Accept #{num2}: {path2}" for m in stub.repos[REQUESTS].messages.values()) == 1
    row = next(r for r in load_results(hub_env(stub, work / "reader3"), RESULTS, "streamgaze") if r["pr_number"] == num2)
    assert (row["model_name"], row["submitter"]) == ("Kate", "carol")


def test_flags_and_results_on_the_models_page(hub, online):
    """Each test of this module stands alone (they may run in different workers); this one's rows are its own."""
    import yaml
    from huggingface_hub import parse_eval_result_entries

    stub, commit, work, key = hub
    subs = _folder(work, "flags")
    env = hub_env(stub, work / "maint", "tok-maint")
    _open_pr(stub, "tok-heidi", "Flag me", _submission(key, subs, "Flag me", 0.5, commit))
    _open_pr(stub, "tok-grace", "Look 2B", _submission(key, subs, "Look 2B", 0.55, commit,
                                                      url=f"{stub.url}/grace/look-2b", params="2B"))
    proc = _sync(stub, work / "maint")  # accepted, no model-card pull request without the option
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not stub.models["grace/look-2b"].discussions
    rows = {r["model_name"]: r for r in load_results(hub_env(stub, work / "r3"), RESULTS, "streamgaze")}
    num = rows["Flag me"]["pr_number"]
    link = f"{stub.url}/datasets/{REQUESTS}/discussions/99"
    proc = run_sg(env, "leaderboard", "flag", str(num), "--results", RESULTS, "--reason", "trained on the test set?",
                  "--discussion", link)
    assert proc.returncode == 0 and proc.stdout.startswith(f"row #{num} flagged: trained on the test set?"), proc.stderr
    flagged = {r["pr_number"]: r for r in load_results(hub_env(stub, work / "r4"), RESULTS, "streamgaze")}
    assert (flagged[num]["flag_reason"], flagged[num]["flag_discussion"]) == ("trained on the test set?", link)
    assert len(flagged) == len(rows) and sum(bool(r["flag_reason"]) for r in flagged.values()) == 1  # not deleted
    assert "flagged" in stub.files(RESULTS)["site/index.html"].decode()
    proc = run_sg(env, "leaderboard", "flag", "4242", "--results", RESULTS, "--reason", "x", "--discussion", link)
    assert one_error_line(proc) == f"streamgaze leaderboard flag: error: {RESULTS} has no row of pull request #4242"
    # a sync keeps the flag (flags.json is the maintainers')
    proc = _sync(stub, work / "maint", "--model-card-prs")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {r["pr_number"]: r["flag_reason"] for r in load_results(hub_env(stub, work / "r5"), RESULTS,
                                                                   "streamgaze")}[num] == "trained on the test set?"
    proc = run_sg(env, "leaderboard", "unflag", str(num), "--results", RESULTS)
    assert proc.returncode == 0, proc.stderr
    assert not any(r["flag_reason"] for r in load_results(hub_env(stub, work / "r6"), RESULTS, "streamgaze"))

    # --model-card-prs: the accepted row naming grace/look-2b got one pull request on the model, never two
    model = stub.models["grace/look-2b"]
    assert [d.title for d in model.discussions.values()] == [
        f"Add StreamGaze leaderboard result (row #{rows['Look 2B']['pr_number']})"]
    [(path, kind)] = stub.diff(model, model.discussions[1].base, model.prs[1])
    assert (path, kind) == (".eval_results/streamgaze.yaml", "new")
    text = stub.blobs[model.commits[model.prs[1]][path].blob].decode()
    [entry] = parse_eval_result_entries(yaml.safe_load(text))
    row = rows["Look 2B"]
    assert (entry.dataset_id, entry.task_id, entry.value, entry.dataset_revision) == (
        DATA, "streamgaze", round(100 * row["overall"], 1), commit)
    assert entry.source_url == row["traces_url"] == (f"{stub.url}/datasets/{RESULTS}/resolve/main/traces/streamgaze/"
                                                     f"pr-{row['pr_number']:06d}.parquet")
    assert yaml.safe_load(text)[0]["evaluation_framework"] == "streamgaze-toolkit"
    assert entry.notes == "gaze=visual; prompt_mode=default; protocol=default" and entry.source_user == "grace"
    assert model.commits[model.prs[1]].keys() - {path} == model.commits[model.branches["main"]].keys()
    proc = _sync(stub, work / "maint", "--model-card-prs")
    assert proc.returncode == 0 and len(model.discussions) == 1


def test_the_same_responses_are_one_row(hub, online):
    """One file pushed twice, with two spellings of --dataset (the tag, then its commit): both pull requests open (no
    row had those responses yet), the sync accepts the first and refuses the second naming it; a third push, and the
    same responses under another name by another user, are refused before anything is sent."""
    from perf.shared.synthetic import synthetic_submission

    stub, commit, work, key = hub
    path = pinned(synthetic_submission(key, _folder(work, "twice") / "kim.json", "Kim", 0.55, salt=next(_SALTS)),
                  DATA, commit)
    kim = hub_env(stub, work / "kim", "tok-kim")
    nums = []
    for spelling in (f"hf://datasets/{DATA}@v0.1.0", f"hf://datasets/{DATA}@{commit}"):
        proc = run_sg(kim, "push-submission", path, "--requests", REQUESTS, "--dataset", spelling)
        assert proc.returncode == 0, proc.stderr[-2000:]
        nums.append(int(proc.stdout.strip().rsplit("/", 1)[1]))
    first, second = nums
    proc = _sync(stub, work / "maint")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _decisions(stub, nums) == {
        first: "Accepted",
        second: f"its responses are those of the accepted row #{first} ('Kim' of &#64;kim): the same run is one row"}
    rows = [r for r in load_results(hub_env(stub, work / "reader"), RESULTS, "streamgaze") if r["model_name"] == "Kim"]
    assert [r["pr_number"] for r in rows] == [first]
    accepted = rows[0]["submission_path"]
    n_prs = len(stub.repos[REQUESTS].prs)
    proc = run_sg(kim, "push-submission", path, "--requests", REQUESTS)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"streamgaze push-submission: error: {path}: its responses are those of the accepted row #{first} (@kim, "
        f"{accepted}): the same run is one row on the leaderboard")
    renamed = json.loads(path.read_text())
    renamed["model"]["name"] = "Leo's own model"
    (work / "twice" / "leo.json").write_text(json.dumps(renamed))
    proc = run_sg(hub_env(stub, work / "leo", "tok-leo"), "push-submission", work / "twice" / "leo.json",
                  "--requests", REQUESTS)
    assert proc.returncode == 2 and f"its responses are those of the accepted row #{first} (@kim" in proc.stderr
    # leo's machine fetched the dataset: one progress bar for its card and one for all its tables, not one a file
    tables = sum(p.startswith("data/") and p.endswith(".parquet") and "/previews/" not in p for p in stub.files(DATA))
    assert sorted(set(re.findall(rf"download {DATA}@\w+ \((\d+) files?\)", proc.stderr)), key=int) == ["1", str(tables)]
    assert len(stub.repos[REQUESTS].prs) == n_prs  # nothing was sent
