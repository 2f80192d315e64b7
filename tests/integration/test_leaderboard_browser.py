"""The leaderboard page in a real browser (headless Chromium driven by Playwright).

Checks what only a browser can, at a 1280 px wide window (a laptop): nothing needs horizontal
scrolling and the settings that decide comparability (Gaze, Prompt, Clip fps cap, Frames, Params) are
on screen for every row; one table per dataset (the demo submissions are never ranked among the
paper's full-benchmark rows); the rendered row order and ranks; sorting by clicking a header, with
the line above the table saying the new order; the chart's caption saying which rows it leaves out;
and that a model named ``<script>alert(1)</script>`` is shown as text and runs nothing. The site also
holds EgoGazeVQA submissions: each benchmark has its own section (StreamGaze's first, as before) with
its own columns, rows and the paper's reference rows. A screenshot is saved in the test's tmp dir and
(copied to $STREAMGAZE_SCREENSHOTS when set).

Needs /usr/bin/chromium (``scripts/install_browser.sh``) and the ``playwright`` package (never
``playwright install``: the Debian browser is used). Skipped when either is missing, unless
``STREAMGAZE_REQUIRE_BROWSER=1`` (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.benchmarks.streamgaze.paper import paper_rows
from streamgaze_hf.leaderboard.site import write_leaderboard
from streamgaze_hf.submission import load_answer_key, validate_submission

from ..fixtures.browser import keep_screenshot, require_browser
from ..fixtures.once import once_per_run
from ..fixtures.submissions import RESPONSES, SCRIPT_NAME, ego_dataset, ego_submission

pytestmark = pytest.mark.slow
require_browser()


@pytest.fixture(scope="module")
def site(demo_dataset, tmp_path_factory):
    """A leaderboard of three synthetic StreamGaze submissions (no lmms-eval needed) plus the paper rows,
    and two EgoGazeVQA submissions with that paper's rows."""
    return once_per_run(tmp_path_factory, "test_leaderboard_browser.site", lambda d: _site(demo_dataset, d))


def _site(demo_dataset, d):
    key = load_answer_key(demo_dataset)
    subs = [synthetic_submission(key, d / "alpha.json", "Alpha", 0.95, frames="32", params="7B"),
            synthetic_submission(key, d / "script.json", SCRIPT_NAME, 0.45, frames="16"),
            synthetic_submission(key, d / "gamma.json", "Gamma", 0.0, drop=0.5)]
    ego_root = ego_dataset(d)
    ego = [ego_submission(ego_root, d / "ego.json"),
           ego_submission(ego_root, d / "ego_weak.json", "Ego weak", dict.fromkeys(RESPONSES, "E"))]
    out = write_leaderboard(subs + ego, [demo_dataset, ego_root], d / "site")
    overall = {validate_submission(s, demo_dataset).submission["model"]["name"]:
               validate_submission(s, demo_dataset).scores["overall"] for s in subs}
    paper = {r.name: r.overall for r in paper_rows()}
    return out, overall, paper


WIDTH = 1280
SUBS, PAPER = "#leaderboard-0", "#leaderboard-1"
EGO_SUBS, EGO_PAPER = "#leaderboard-2", "#leaderboard-3"
SETTINGS = {"gaze": "Gaze", "prompt_mode": "Prompt", "clip_fps": "Clip fps cap", "frames": "Frames",
            "params": "Params"}


@pytest.fixture()
def page(browser, site):
    """The page served over loopback HTTP in a 1280 px window; collects dialogs (there must be none)."""
    handler = functools.partial(_QuietHandler, directory=str(site[0]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    pg = browser.new_page(viewport={"width": WIDTH, "height": 900})
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


def names(pg, table: str) -> list[str]:
    return pg.locator(f"{table} tbody td.model .name").all_inner_texts()


def column(pg, table: str, key: str) -> list[float | None]:
    vals = pg.locator(f"{table} tbody td.{key}").evaluate_all("cells => cells.map(c => c.getAttribute('data-sort'))")
    return [float(v) if v else None for v in vals]


def click_header(pg, table: str, key: str) -> str:
    pg.click(f"{table} thead th[data-key={key}] button")
    return pg.get_attribute(f"{table} thead th[data-key={key}]", "aria-sort")


def test_one_table_per_dataset_in_expected_order(page, site):
    _, overall, paper = site
    assert page.locator("section.dataset h2").all_inner_texts()[0].startswith("Dataset 0.1.0 (")
    assert page.locator("section.dataset h2").all_inner_texts()[1] == \
        "Full benchmark: the official release (8,521 questions)"
    assert names(page, SUBS) == sorted(overall, key=lambda n: -overall[n]) == ["Alpha", SCRIPT_NAME, "Gamma"]
    assert names(page, PAPER) == sorted(paper, key=lambda n: -paper[n]) and names(page, PAPER)[0] == "Human"
    for table in (SUBS, PAPER):
        assert page.get_attribute(f"{table} thead th[data-key=overall]", "aria-sort") == "descending"
    # ranks count within a dataset: the demo submissions 1..3, the paper's methods 1..13, Human unranked
    assert column(page, SUBS, "rank") == [1.0, 2.0, 3.0]
    assert column(page, PAPER, "rank") == [None] + [float(i) for i in range(1, len(paper))]
    human = page.locator(f"{PAPER} tbody tr", has_text="Human").first
    assert human.inner_text().count("reported in the paper") == 1
    assert page.locator(f"{SUBS} .badge").count() == 0


def gpt_overall(pg) -> str:
    return pg.locator(f"{PAPER} tbody tr", has_text="GPT-4o").first.locator("td.overall").inner_text()


def test_settings_visible_without_horizontal_scrolling(page, site):
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    assert page.evaluate("Math.max(...[...document.querySelectorAll('.wrap')].map(w => w.scrollWidth - "
                         "w.clientWidth))") == 0
    for table in (SUBS, PAPER):
        rows = page.locator(f"{table} tbody tr")
        for i in range(rows.count()):
            for key, label in SETTINGS.items():
                setting = rows.nth(i).locator(f".setting[data-key={key}]")
                box = setting.bounding_box()
                assert setting.is_visible() and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (table, i, key)
                assert setting.inner_text().startswith(label)
        for key in ("overall", "oaa", "coverage"):  # the last score columns are on screen too
            box = page.locator(f"{table} thead th[data-key={key}]").bounding_box()
            assert box["x"] + box["width"] <= WIDTH, key
    alpha = page.locator(f"{SUBS} tbody tr", has_text="Alpha").first
    assert alpha.locator(".setting[data-key=frames]").inner_text() == "Frames 32"
    assert alpha.locator(".setting[data-key=params]").inner_text() == "Params 7B"
    # coverage beside every score: Gamma left out half of every task's items
    gamma = page.locator(f"{SUBS} tbody tr", has_text="Gamma").first
    assert re.fullmatch(r"(4\d|5\d)\.\d%", gamma.locator("td.coverage").inner_text())
    for key in ("nfi", "gta"):
        cell = gamma.locator(f"td.{key}")
        shown = cell.locator(".cov").inner_text()
        got = re.fullmatch(r"coverage (\d+\.\d)% \((\d+)/(\d+)\)", cell.get_attribute("title"))
        assert got and shown == f"{got[1]}%" and 0 < int(got[2]) < int(got[3]), (key, shown)
        assert f"{100 * int(got[2]) / int(got[3]):.1f}" == got[1]
    assert alpha.locator(".cov").count() == 0 and alpha.locator("td.coverage").inner_text() == "100.0%"
    # scores read in percent with one decimal (as papers and lmms-eval print them); data-sort keeps the fraction
    _, overall, paper = site
    assert alpha.locator("td.overall").inner_text() == f"{100 * overall['Alpha']:.1f}"
    assert float(alpha.locator("td.overall").get_attribute("data-sort")) == pytest.approx(overall["Alpha"])
    assert gpt_overall(page) == f"{100 * paper['GPT-4o']:.1f}"
    gpt = page.locator(f"{PAPER} tbody tr", has_text="GPT-4o").first
    assert gpt.locator(".setting[data-key=prompt_mode]").inner_text() == "Prompt reference"


def test_sorting_by_clicking_headers_updates_the_subtitle(page, site):
    status = page.locator("#sorted-0")
    assert status.inner_text().startswith("Sorted by Overall (descending)")
    assert click_header(page, SUBS, "overall") == "ascending"
    assert status.inner_text().startswith("Sorted by Overall (ascending)")
    vals = column(page, SUBS, "overall")
    assert vals == sorted(vals) and names(page, SUBS) == ["Gamma", SCRIPT_NAME, "Alpha"]
    assert names(page, PAPER)[0] == "Human"  # the other table is untouched
    assert page.locator("#sorted-1").inner_text().startswith("Sorted by Overall (descending)")

    # another column: GTA, descending first; blanks (AssistGaze has none) stay last
    assert click_header(page, PAPER, "gta") == "descending"
    assert page.locator("#sorted-1").inner_text().startswith("Sorted by GTA (descending)")
    gta = column(page, PAPER, "gta")
    assert gta[-1] is None and names(page, PAPER)[-1] == "AssistGaze"
    present = [v for v in gta if v is not None]
    assert present == sorted(present, reverse=True)
    assert page.get_attribute(f"{PAPER} thead th[data-key=overall]", "aria-sort") == "none"
    assert click_header(page, PAPER, "gta") == "ascending"
    assert page.locator("#sorted-1").inner_text().startswith("Sorted by GTA (ascending)")
    gta = column(page, PAPER, "gta")
    assert gta[-1] is None and [v for v in gta if v is not None] == sorted(v for v in gta if v is not None)
    assert not page.errors


def test_chart_caption_says_what_is_left_out(page, site):
    """One chart per table: a chart draws only rows that its table says compare (one dataset)."""
    _, _, paper = site
    sg = "section.benchmark[data-benchmark=streamgaze] section.dataset"
    assert page.locator(f"{sg} figure").count() == 2  # the demo dataset's table and the full release's
    demo, full = page.locator(f"{sg} figure figcaption").all_inner_texts()
    assert demo == "Bars: 3 submission(s) (dataset 0.1.0) (at most 10 bars per task; the table lists every row)."
    n_methods = len(paper) - 1  # without the Human row
    assert full.startswith(f"Bars: the Human row, the 9 best of the paper's {n_methods} methods by overall")


def test_script_model_name_is_text(page, tmp_path):
    cell = page.locator("tbody td.model .name", has_text="alert(1)")
    assert cell.count() == 1
    assert cell.inner_text() == SCRIPT_NAME
    assert page.evaluate("document.querySelectorAll('tbody script').length") == 0
    assert page.evaluate("document.scripts.length") == 1  # the page's own sorting script
    page.click(f"{SUBS} thead th[data-key=model] button")  # re-sorting moves nodes, never re-parses them
    assert page.locator("tbody td.model .name", has_text="alert(1)").inner_text() == SCRIPT_NAME
    assert page.dialogs == [] and not page.errors
    shot = tmp_path / "leaderboard.png"
    assert click_header(page, SUBS, "overall") == "descending"  # back to the default order for the picture
    assert names(page, SUBS)[0] == "Alpha"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep_screenshot(shot, "leaderboard.png")


def test_each_benchmark_has_its_own_section(page, site):
    _, _, paper = site
    assert page.locator("nav.benchmarks a").all_inner_texts() == ["StreamGaze", "EgoGazeVQA"]
    assert page.locator("section.benchmark > h2.benchmark").all_inner_texts() == ["StreamGaze", "EgoGazeVQA"]
    sg = page.locator("section.benchmark[data-benchmark=streamgaze] section.dataset h2").all_inner_texts()
    assert sg[0].startswith("Dataset 0.1.0 (") and sg[1] == "Full benchmark: the official release (8,521 questions)"
    ego = page.locator("section.benchmark[data-benchmark=egogazevqa] section.dataset h2").all_inner_texts()
    assert ego[0].startswith("EgoGazeVQA: dataset 1.0.0 (5 questions")
    assert ego[1] == "EgoGazeVQA: the paper's benchmark (1,757 questions)" and len(ego) == 2
    for table in (EGO_SUBS, EGO_PAPER):  # the EgoGazeVQA tables are in its section, with its columns
        assert page.locator(f"section.benchmark[data-benchmark=egogazevqa] {table}").count() == 1
        keys = page.locator(f"{table} thead th").evaluate_all("hs => hs.map(h => h.getAttribute('data-key'))")
        labels = page.locator(f"{table} thead th button").all_inner_texts()
        assert keys == ["rank", "model", "overall", "spatial", "temporal", "causal", "exact_match", "coverage"]
        assert labels == ["#", "Model", "Avg.", "Spatial", "Temporal", "Causal", "Exact match", "Coverage"]
    sg_keys = page.locator(f"{SUBS} thead th").evaluate_all("hs => hs.map(h => h.getAttribute('data-key'))")
    assert "nfi" in sg_keys and "spatial" not in sg_keys and "exact_match" not in sg_keys

    # its submissions, re-scored by its scorer (shown in %, as the paper prints it), ranked on their own
    assert names(page, EGO_SUBS) == ["Ego synthetic", "Ego weak"] and column(page, EGO_SUBS, "rank") == [1.0, 2.0]
    cells = {key: page.locator(f"{EGO_SUBS} tbody td.{key}").all_inner_texts()
             for key in ("overall", "spatial", "temporal", "causal", "exact_match")}
    assert cells == {"overall": ["66.7", "16.7"], "spatial": ["100.0", "0.0"],
                     "temporal": ["0.0\n50.0%", "50.0"],  # the coverage of a partial task under its score
                     "causal": ["100.0", "0.0"], "exact_match": ["50.0", "16.7"]}
    synthetic = page.locator(f"{EGO_SUBS} tbody tr", has_text="Ego synthetic").first
    assert synthetic.locator("td.coverage").inner_text() == "80.0%"
    assert synthetic.locator("td.temporal .cov").inner_text() == "50.0%"  # one of its two questions unanswered
    for key, text in (("gaze", "Gaze none"), ("prompt_mode", "Prompt default"), ("frames", "Frames 9"),
                      ("params", "Params 7B")):
        setting = synthetic.locator(f".setting[data-key={key}]")
        box = setting.bounding_box()
        assert setting.inner_text() == text and box["x"] + box["width"] <= WIDTH, key
    assert synthetic.locator(".setting[data-key=clip_fps]").count() == 0  # a StreamGaze setting only

    # its reference rows: the paper's Table 3, never mixed with StreamGaze's
    ego_paper = names(page, EGO_PAPER)
    assert len(ego_paper) == 29 and ego_paper[0] == "Human" and ego_paper[1] == "Qwen2.5-VL-72B"
    assert column(page, EGO_PAPER, "rank") == [None] + [float(i) for i in range(1, 29)]
    assert column(page, EGO_PAPER, "overall")[:3] == pytest.approx([0.838, 0.663, 0.65])  # fractions sort
    assert column(page, EGO_PAPER, "exact_match") == [None] * 29
    assert page.locator(f"{EGO_PAPER} .badge").count() == 29 and page.locator(f"{EGO_SUBS} .badge").count() == 0
    best = page.locator(f"{EGO_PAPER} tbody tr").nth(1)
    assert best.locator(".setting[data-key=gaze]").inner_text() == "Gaze salience"
    assert best.locator(".setting[data-key=prompt_mode]").inner_text() == "Prompt reference"
    assert not set(ego_paper) & set(paper) - {"Human"} and "Ego synthetic" not in names(page, SUBS)
    assert not set(names(page, PAPER)) & {"Qwen2.5-VL-72B", "MiniCPM-o 2.6-8B"}

    # sorting one benchmark's table leaves the others alone
    assert click_header(page, EGO_PAPER, "causal") == "descending"
    assert page.locator("#sorted-3").inner_text().startswith("Sorted by Causal (descending)")
    causal = column(page, EGO_PAPER, "causal")
    assert causal == sorted(causal, reverse=True) and causal[0] == pytest.approx(0.952)
    assert page.locator("#sorted-1").inner_text().startswith("Sorted by Overall (descending)")
    assert names(page, EGO_SUBS) == ["Ego synthetic", "Ego weak"] and not page.errors
