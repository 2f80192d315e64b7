"""The leaderboard app (issues 31 and 37) in a real browser at 1280x800: ``streamgaze leaderboard serve`` (Gradio)
against a local results directory and the Hub stand-in, driven by Playwright in Debian's Chromium.

* The leaderboard tab shows the demo row and the paper's rows in separate tables (each ranked on its own),
  fits 1280 px without sideways scrolling, no header breaks, every score has one decimal with its standard
  error beside it, the submitter is shown, and a click on a header sorts its table.
* Every benchmark's tab (the results hold rows of all four, a partial run among them) is readable at 1280x800
  (tests/fixtures/browser.py ``check_tables``: widths, one-line headers, no empty column, the order the sort line
  says) and every font face its computed styles ask for is loaded (``document.fonts``: the theme loads Source Sans
  Pro at 700 too); a screenshot of each.
* The Submit tab refuses when nobody is signed in (nothing is sent). Signed in (the stand-in: the session
  cookie Gradio stores after a sign-in, for ``alice``), a tampered file and a file with a 5,001-digit number
  get their one-line reasons and the app keeps serving; an honest file is re-scored and a pull request is
  opened with the app's token (``space-bot``) whose description names ``@alice``.

Screenshots: under the test's tmp dir (copied to $STREAMGAZE_SCREENSHOTS when set). Slow-marked (about a
minute: the app's start-up imports Gradio).
"""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest

from perf.shared.hub_stub import HubStub, hub_env, put_dataset
from perf.shared.synthetic import synthetic_submission

from ..fixtures.browser import (  # noqa: F401  (the browser fixture)
    FONTS_JS,
    browser,
    check_tables,
    glyphs_missing,
    keep_screenshot,
    require_browser,
)
from ..fixtures.gradio_session import session_cookie
from ..fixtures.leaderboard_hub import USERS, pinned, start_sg

pytestmark = pytest.mark.slow
require_browser()

DATA, REQUESTS = "org/sg", "org/requests"
ACCEPTED = "Accepted <i>model</i>"
WIDTH, HEIGHT = 1280, 800


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _results_dir(sub: Path, root: Path, out: Path) -> Path:
    """A results directory (as the sync writes it) of one accepted StreamGaze row, and for each other benchmark a
    full run and a partial one."""
    from streamgaze_hf.submission.validate import validate_submission

    from ..fixtures.leaderboard_sites import benchmark_submission, other_datasets, results_dir

    reports = [validate_submission(sub, root)]
    for bench, broot in other_datasets(out.parent / "others").items():
        for kind, right, drop in (("strong", 0.8, 0.0), ("partial", 0.9, 0.6)):
            reports.append(validate_submission(benchmark_submission(
                bench, broot, out.parent / f"{bench}-{kind}.json", f"{bench} {kind}", right, drop=drop), broot))
    out.mkdir()
    return results_dir(reports, out, {})


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=False)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep_screenshot(path, name)


def _names(table) -> list[str]:
    return [n.inner_text() for n in table.locator("tbody td.model .name").all()]


def _submit(page, path: Path, expect: str) -> str:
    """Upload ``path``, click the button, and wait for an outcome holding ``expect`` (Gradio's progress gone)."""
    page.locator("#submission-file input[type=file]").set_input_files(str(path))
    page.locator("#submit-button").click()
    page.wait_for_function("([sel, want]) => { const t = document.querySelector(sel).innerText; "
                           "return t.includes(want) && !t.includes('processing'); }",
                           arg=["#submit-outcome", expect], timeout=90_000)
    text = page.locator("#submit-outcome").inner_text().strip()
    clear = page.locator("#submission-file button[aria-label='Clear']")
    if clear.count():
        clear.first.click()
    return text


def test_app_tables_sign_in_and_submit(browser, demo_dataset, tmp_path):  # noqa: F811
    from streamgaze_hf.submission.answer_key import load_answer_key

    key = load_answer_key(demo_dataset)
    with HubStub() as stub:
        stub.token_users.update({**USERS, "tok-space": "space-bot"})
        commit = put_dataset(stub, demo_dataset, DATA)
        stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
        accepted = pinned(synthetic_submission(key, tmp_path / "accepted.json", ACCEPTED, 0.7, params="7B"), DATA, commit)
        upload = pinned(synthetic_submission(key, tmp_path / "upload.json", "Uploaded model", 0.5), DATA, commit)
        bad = json.loads(upload.read_text())
        bad["scores"]["overall"] = 0.99
        (tmp_path / "tampered.json").write_text(json.dumps(bad))
        bad["scores"]["overall"] = "__N__"
        (tmp_path / "digits.json").write_text(json.dumps(bad).replace('"__N__"', "1" + "0" * 5000))
        results = _results_dir(accepted, demo_dataset, tmp_path / "results")
        port = _free_port()
        env = hub_env(stub, tmp_path / "app", "tok-space", GRADIO_TEMP_DIR=str(tmp_path / "gradio"))
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
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/")

            # the leaderboard tab: the demo row and the paper's rows in separate tables
            tab = page.locator("#table-streamgaze")
            tab.locator("table.leaderboard").first.wait_for(timeout=60_000)
            tables = tab.locator("table.leaderboard")
            assert tables.count() == 2
            demo, paper = tables.nth(0), tables.nth(1)
            assert _names(demo) == [ACCEPTED] and page.locator("#table-streamgaze i").count() == 0
            assert len(_names(paper)) == 14 and "Human" in _names(paper)
            titles = [t.inner_text() for t in tab.locator("section.dataset h2").all()]
            assert titles == ["Dataset 0.1.0 (237 questions, 3 videos)", "Full benchmark: the official release (8,521 questions)"]
            assert "by @alice" in demo.locator("td.model").first.inner_text()
            # fits 1280 px: nothing scrolls sideways, and no header breaks
            assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
            assert page.evaluate("Array.from(document.querySelectorAll('#table-streamgaze .wrap'))"
                                 ".every(w => w.scrollWidth <= w.clientWidth + 1)")
            assert page.evaluate("Array.from(document.querySelectorAll('#table-streamgaze th button'))"
                                 ".every(b => b.getClientRects().length === 1)")
            # one decimal everywhere, the standard error beside each re-scored score
            first = demo.locator("tbody tr").first
            overall = first.locator("td.overall").inner_text().split("\n")
            assert re.fullmatch(r"\d+\.\d", overall[0]) and re.fullmatch(r"±\d+\.\d", overall[1]), overall
            cells = [c.inner_text().split("\n")[0] for c in paper.locator("tbody td.num:not(.rank)").all()]
            assert len(cells) > 100 and all(re.fullmatch(r"(\d+\.\d)?", c) for c in cells), cells
            _shot(page, tmp_path, "app_leaderboard.png")
            # sorting: a click on a header sorts that table (ascending on a second click)
            before = _names(paper)
            paper.locator("th[data-key=nfi] button").click()
            after = _names(paper)
            assert after != before and paper.locator("th[data-key=nfi]").get_attribute("aria-sort") == "descending"
            nfi = [float(c.inner_text() or "nan") for c in paper.locator("tbody td.nfi").all() if c.inner_text()]
            assert nfi == sorted(nfi, reverse=True)
            paper.locator("th[data-key=nfi] button").click()
            nfi = [float(c.inner_text()) for c in paper.locator("tbody td.nfi").all() if c.inner_text()]
            assert nfi == sorted(nfi)
            assert "Sorted by NFI (ascending)" in tab.locator("p.sorted").nth(1).inner_text()
            _shot(page, tmp_path, "app_leaderboard_sorted.png")
            page.reload()

            # every benchmark's tab, readable at 1280x800, with the font faces it asks for
            asked: set[str] = set()
            for bench, title in (("streamgaze", "StreamGaze"), ("egogazevqa", "EgoGazeVQA"), ("streameqa", "StreamEQA"),
                                 ("vl4gaze", "VL4Gaze")):
                page.get_by_role("tab", name=title, exact=True).click()
                page.locator(f"#table-{bench} table.leaderboard").first.wait_for(timeout=60_000)
                assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, bench
                tables = check_tables(page, f"app {bench}")
                assert len(tables) == 2, bench  # the submissions' dataset and the paper's rows
                fonts = page.evaluate(FONTS_JS)
                assert fonts["missing"] == [], (bench, fonts["asked"], fonts["missing"])
                assert glyphs_missing(fonts) == {}, bench  # every character in its own face, none from another font
                asked.update(fonts["asked"])
                if bench != "streamgaze":
                    partial = page.locator(f"#table-{bench} tr", has_text=f"{bench} partial").first
                    assert partial.locator(".partial-run").inner_text().endswith("answered, not ranked")
                    assert partial.locator("td.rank").count() == 0 or partial.locator("td.rank").inner_text() == ""
                _shot(page, tmp_path, f"app_{bench}.png")
            # the bold of the title and of the Overall column is Source Sans Pro's own 700 face, not a faked one
            assert "Source Sans Pro|700|normal" in asked, asked
            page.get_by_role("tab", name="StreamGaze", exact=True).click()

            # Submit, signed out: refused, nothing sent
            page.get_by_role("tab", name="Submit").click()
            text = _submit(page, upload, "Sign in")
            assert text.startswith("Sign in with Hugging Face"), text
            assert not stub.repos[REQUESTS].prs
            _shot(page, tmp_path, "app_submit_signed_out.png")

            # signed in as alice (the stand-in): hostile files get their one line; the honest one is sent
            context.add_cookies([{"name": "session", "value": session_cookie("alice"), "url": f"http://127.0.0.1:{port}"}])
            page.reload()
            page.get_by_role("tab", name="Submit").click()
            page.get_by_text("Logout (alice)").wait_for(timeout=30_000)
            text = _submit(page, tmp_path / "tampered.json", "Rejected")
            assert text.startswith("Rejected: reported score scores.overall = 0.99 differs"), text
            text = _submit(page, tmp_path / "digits.json", "5,001")
            assert text == ("Rejected: a number of 5,001 characters (100000000000...): at most 40 (checked before it "
                            "is converted)"), text
            assert not stub.repos[REQUESTS].prs
            text = _submit(page, upload, "Pull request opened")
            assert "Re-scored" in text and "Uploaded model" in text, text
            assert f"Pull request opened for @alice: {stub.url}/datasets/{REQUESTS}/discussions/1" in text
            _shot(page, tmp_path, "app_submit_signed_in.png")
            pr = stub.discussion(REQUESTS, 1)
            assert (pr.author, pr.status) == ("space-bot", "open")
            assert stub.comments(REQUESTS, 1)[0].startswith("Submitted by @alice via the Space.")
            [(path, kind)] = stub.diff(stub.repos[REQUESTS], pr.base, stub.repos[REQUESTS].prs[1])
            assert kind == "new" and path.startswith("submissions/streamgaze/uploaded-model/")
            assert stub.files(REQUESTS, "refs/pr/1")[path] == upload.read_bytes()
            # the same tab asks the leaderboard to evaluate a model itself (request-eval's form), for alice
            model_commit = stub.put_model("org/app-model", {"config.json": b"{}", "README.md": b"# m\n"})
            page.locator("#request-model textarea, #request-model input").first.fill("org/app-model")
            page.locator("#request-lmms textarea, #request-lmms input").first.fill("qwen2_5_vl")
            page.locator("#request-args textarea, #request-args input").first.fill("max_num_frames=8")
            page.locator("#request-button").click()
            page.wait_for_function("() => document.querySelector('#request-outcome').innerText.includes('requested') "
                                   "|| document.querySelector('#request-outcome').innerText.includes('Not sent')",
                                   timeout=90_000)
            said = page.locator("#request-outcome").inner_text()
            assert said.startswith(f"Evaluation requested for @alice: {stub.url}/datasets/{REQUESTS}/discussions/2"), said
            pr = stub.discussion(REQUESTS, 2)
            [(path, _)] = stub.diff(stub.repos[REQUESTS], pr.base, stub.repos[REQUESTS].prs[2])
            request = json.loads(stub.files(REQUESTS, "refs/pr/2")[path])
            assert path.startswith("requests/streamgaze/org-app-model/") and pr.author == "space-bot"
            assert stub.comments(REQUESTS, 2)[0].startswith("Submitted by @alice via the Space.")
            assert (request["model"]["revision"], request["lmms_eval"]) == (
                model_commit, {"model": "qwen2_5_vl", "model_args": "max_num_frames=8"})
            page.get_by_role("tab", name="About").click()
            page.get_by_text("Reproduce a row").wait_for(timeout=10_000)
            context.close()
        finally:
            app.terminate()
            out, err = app.communicate(timeout=30)
    # what `serve` prints: its address and, off a Space, one line on the sign-in stand-in; not Gradio's hint to set
    # share=True (the command cannot) nor its OAuth warning (twice before)
    said = out + err
    assert f"streamgaze leaderboard serve: http://127.0.0.1:{port} (Ctrl-C stops it)" in said, said[-2000:]
    assert said.count("is Gradio's stand-in: it signs in the owner of HF_TOKEN") == 1, said[-2000:]
    assert "share=True" not in said and "Gradio does not support OAuth" not in said, said[-2000:]
