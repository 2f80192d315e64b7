"""The leaderboard app (issue 31 item 4) in a real browser: ``streamgaze leaderboard serve`` (Gradio) against a
local results directory and the Hub stand-in, driven by Playwright in Debian's Chromium. It shows the accepted
row (the model name as text, markup and all); the Submit tab re-scores an uploaded file on the server and opens
a pull request on the requests dataset (its author the app's token user). A file with a tampered score is
rejected with its reason. Screenshots: under the test's tmp dir (copied to $STREAMGAZE_SCREENSHOTS when set).

Slow-marked (about 40 s: the app's start-up imports Gradio).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from ..fixtures.browser import browser, keep_screenshot, require_browser  # noqa: F401  (the fixture)
from ..fixtures.hub_stub import HubStub
from ..fixtures.leaderboard_hub import USERS, hub_env, pinned, put_dataset, start_sg

pytestmark = pytest.mark.slow
require_browser()

DATA, REQUESTS = "org/sg", "org/requests"
ACCEPTED = "Accepted <i>model</i>"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _results_dir(sub: Path, root: Path, out: Path) -> Path:
    """A results directory of one accepted row (as the sync writes it)."""
    from streamgaze_hf.dataset.load import read_manifest
    from streamgaze_hf.leaderboard.sections import section_of
    from streamgaze_hf.leaderboard.service.results import result_row, results_files
    from streamgaze_hf.registry import get_benchmark
    from streamgaze_hf.submission.validate import validate_submission

    report = validate_submission(sub, root)
    bench = get_benchmark("streamgaze")
    row = result_row(bench, report.submission, report.scores, section_of(bench, read_manifest(root)),
                     submitter="alice", pr_number=1, path="submissions/streamgaze/accepted-i-model-i/20260101T000000Z.json")
    for path, data in results_files({"streamgaze": [row]}).items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)
    return out


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep_screenshot(path, name)


def test_app_shows_rows_and_submits(browser, demo_dataset, tmp_path):  # noqa: F811
    from streamgaze_hf.submission.answer_key import load_answer_key

    from ..e2e.test_submission import synthetic_submission

    key = load_answer_key(demo_dataset)
    with HubStub() as stub:
        stub.token_users.update(USERS)
        commit = put_dataset(stub, demo_dataset, DATA)
        stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
        accepted = pinned(synthetic_submission(key, tmp_path / "accepted.json", ACCEPTED, 0.7, params="7B"), DATA, commit)
        upload = pinned(synthetic_submission(key, tmp_path / "upload.json", "Uploaded model", 0.5), DATA, commit)
        bad = json.loads(upload.read_text())
        bad["scores"]["overall"] = 0.99
        (tmp_path / "tampered.json").write_text(json.dumps(bad))
        results = _results_dir(accepted, demo_dataset, tmp_path / "results")
        port = _free_port()
        env = hub_env(stub, tmp_path / "app", "tok-alice", GRADIO_TEMP_DIR=str(tmp_path / "gradio"))
        app = start_sg(env, "leaderboard", "serve", "--results", results, "--requests", REQUESTS,
                       "--dataset", f"hf://datasets/{DATA}@v0.1.0", "--port", str(port))
        try:
            deadline = time.time() + 120
            while time.time() < deadline:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert app.poll() is None, app.communicate()[1][-3000:]
                time.sleep(0.5)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"http://127.0.0.1:{port}/")
            # the leaderboard tab: the accepted row, its name as text (no markup rendered), the paper rows marked
            table = page.locator("#table-streamgaze")
            first = table.get_by_test_id("cell-0-0")
            first.wait_for(timeout=30_000)
            assert first.inner_text() == ACCEPTED  # the best re-scored row first
            assert page.locator("#table-streamgaze i").count() == 0
            assert table.get_by_text("reported in the paper").count() > 0
            _shot(page, tmp_path, "app_leaderboard.png")

            # Submit: a tampered file is rejected with its reason; an honest one is re-scored and sent
            page.get_by_role("tab", name="Submit").click()
            page.locator("#submission-file input[type=file]").set_input_files(str(tmp_path / "tampered.json"))
            page.locator("#submit-button").click()
            outcome = page.locator("#submit-outcome")
            outcome.get_by_text("Rejected").wait_for(timeout=60_000)
            assert "reported score scores.overall = 0.99 differs" in outcome.inner_text()
            assert not stub.repos[REQUESTS].prs
            page.locator("#submission-file button[aria-label='Clear']").first.click()
            page.locator("#submission-file input[type=file]").set_input_files(str(upload))
            page.locator("#submit-button").click()
            outcome.get_by_text("Pull request opened").wait_for(timeout=60_000)
            text = outcome.inner_text()
            assert "Re-scored" in text and "Uploaded model" in text and f"{REQUESTS}/discussions/1" in text
            _shot(page, tmp_path, "app_submit.png")
            pr = stub.discussion(REQUESTS, 1)
            assert pr.author == "alice" and pr.status == "open"
            [(path, kind)] = stub.diff(stub.repos[REQUESTS], pr.base, stub.repos[REQUESTS].prs[1])
            assert kind == "new" and path.startswith("submissions/streamgaze/uploaded-model/")
            assert stub.files(REQUESTS, "refs/pr/1")[path] == upload.read_bytes()
            page.get_by_role("tab", name="About").click()
            page.get_by_text("Reproduce a row").wait_for(timeout=10_000)
            page.close()
        finally:
            app.terminate()
            app.communicate(timeout=30)
