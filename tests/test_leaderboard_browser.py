"""The leaderboard page in a real browser (headless Chromium driven by Playwright).

Checks what only a browser can: the rendered table's row order, sorting by clicking a header, and
that a model named ``<script>alert(1)</script>`` is shown as text and runs nothing. A screenshot is
saved in the test's tmp dir and at /tmp/streamgaze_leaderboard.png.

Needs /usr/bin/chromium (``scripts/install_browser.sh``) and the ``playwright`` package (never
``playwright install``: the Debian browser is used). Skipped when either is missing, unless
``STREAMGAZE_REQUIRE_BROWSER=1`` (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from streamgaze_hf.submission import load_answer_key, validate_submission
from streamgaze_hf.submission.leaderboard import write_leaderboard
from streamgaze_hf.submission.paper import paper_rows

from .browser import require_browser
from .test_submission import SCRIPT_NAME, synthetic_submission

pytestmark = pytest.mark.slow
SCREENSHOT_COPY = Path("/tmp/streamgaze_leaderboard.png")
require_browser()


@pytest.fixture(scope="module")
def site(demo_dataset, tmp_path_factory):
    """A leaderboard of three synthetic submissions (no lmms-eval needed) plus the paper rows."""
    d = tmp_path_factory.mktemp("browser_site")
    key = load_answer_key(demo_dataset)
    subs = [synthetic_submission(key, d / "alpha.json", "Alpha", 0.95, frames="32", params="7B"),
            synthetic_submission(key, d / "script.json", SCRIPT_NAME, 0.45, frames="16"),
            synthetic_submission(key, d / "gamma.json", "Gamma", 0.0, drop=0.5)]
    out = write_leaderboard(subs, demo_dataset, d / "site")
    overall = {validate_submission(s, demo_dataset).submission["model"]["name"]:
               validate_submission(s, demo_dataset).scores["overall"] for s in subs}
    overall.update({r.name: r.overall for r in paper_rows()})
    return out, overall


@pytest.fixture()
def page(browser, site):
    """The page served over loopback HTTP; collects dialogs (there must be none)."""
    handler = functools.partial(_QuietHandler, directory=str(site[0]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    pg = browser.new_page(viewport={"width": 2100, "height": 1100})
    pg.dialogs = []
    pg.on("dialog", lambda dlg: (pg.dialogs.append(dlg.message), dlg.dismiss()))
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    yield pg
    pg.close()
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


def names(pg) -> list[str]:
    return pg.locator("tbody td.model .name").all_inner_texts()


def column(pg, key: str) -> list[float | None]:
    vals = pg.locator(f"tbody td.{key}").evaluate_all("cells => cells.map(c => c.getAttribute('data-sort'))")
    return [float(v) if v else None for v in vals]


def click_header(pg, key: str) -> str:
    pg.click(f"thead th[data-key={key}] button")
    return pg.get_attribute(f"thead th[data-key={key}]", "aria-sort")


def test_rows_in_expected_order(page, site):
    _, overall = site
    expected = sorted(overall, key=lambda n: -overall[n])
    got = names(page)
    assert got == expected
    assert got[0] == "Alpha" and got[1] == "Human" and got[-1] == "Gamma"
    assert page.get_attribute("thead th[data-key=overall]", "aria-sort") == "descending"
    # paper rows are marked and unranked; submissions are ranked 1..3
    human = page.locator("tbody tr", has_text="Human").first
    assert "reported in the paper" in human.inner_text()
    ranks = [v for v in column(page, "rank") if v is not None]
    assert ranks == [1.0, 2.0, 3.0]


def test_sorting_by_clicking_headers(page, site):
    assert click_header(page, "overall") == "ascending"
    vals = column(page, "overall")
    assert vals == sorted(vals) and names(page)[0] == "Gamma" and names(page)[-1] == "Alpha"
    assert click_header(page, "overall") == "descending"
    vals = column(page, "overall")
    assert vals == sorted(vals, reverse=True) and names(page)[0] == "Alpha"

    # another column: GTA, descending first; blanks (AssistGaze has none) stay last
    assert click_header(page, "gta") == "descending"
    gta = column(page, "gta")
    assert gta[-1] is None and names(page)[-1] == "AssistGaze"
    present = [v for v in gta if v is not None]
    assert present == sorted(present, reverse=True)
    assert page.get_attribute("thead th[data-key=overall]", "aria-sort") == "none"
    assert click_header(page, "gta") == "ascending"
    gta = column(page, "gta")
    assert gta[-1] is None and [v for v in gta if v is not None] == sorted(v for v in gta if v is not None)
    assert not page.errors


def test_script_model_name_is_text(page, tmp_path):
    cell = page.locator("tbody td.model .name", has_text="alert(1)")
    assert cell.count() == 1
    assert cell.inner_text() == SCRIPT_NAME
    assert page.evaluate("document.querySelectorAll('tbody script').length") == 0
    assert page.evaluate("document.scripts.length") == 1  # the page's own sorting script
    page.click("thead th[data-key=model] button")  # re-sorting moves nodes, never re-parses them
    assert page.locator("tbody td.model .name", has_text="alert(1)").inner_text() == SCRIPT_NAME
    assert page.dialogs == [] and not page.errors
    shot = tmp_path / "leaderboard.png"
    assert click_header(page, "overall") == "descending"  # back to the default order for the picture
    assert names(page)[0] == "Alpha"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    try:
        shutil.copy(shot, SCREENSHOT_COPY)
    except OSError:
        pass  # the copy is a convenience for humans; the test's own screenshot is what counts
