"""The leaderboard page in a real browser (headless Chromium driven by Playwright).

Checks what only a browser can, at a 1280 px wide window (a laptop): nothing needs horizontal
scrolling and the settings that decide comparability (Gaze, Prompt, Clip fps cap, Frames, Params) are
on screen for every row; one table per dataset (the demo submissions are never ranked among the
paper's full-benchmark rows); the rendered row order and ranks; sorting by clicking a header, with
the line above the table saying the new order; the chart's caption saying which rows it leaves out;
and that a model named ``<script>alert(1)</script>`` is shown as text and runs nothing. The site also
holds EgoGazeVQA, StreamEQA and VL4Gaze submissions: each benchmark has its own section (StreamGaze's first, as
before) with its own columns, rows and the paper's reference rows.

Readable at 1280x800 (issue 44), on this static site and on the synced one (what ``leaderboard sync`` writes into
the results dataset's ``site/`` for the same rows): no table wider than its box unless the reader opened its wide
view, headers on one line, no column empty for every row, the order the sort line says, every font face the
computed styles ask for loaded, the submitter shown (synced), partial runs marked and unranked. Screenshots of each
benchmark's section are saved in the test's tmp dir (copied to $STREAMGAZE_SCREENSHOTS when set:
docs/images/leaderboard-site/).

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

from ..fixtures.browser import FONTS_JS, check_tables, keep_screenshot, require_browser
from ..fixtures.leaderboard_sites import benchmark_submission, other_datasets, results_dir
from ..fixtures.once import once_per_run
from ..fixtures.submissions import RESPONSES, SCRIPT_NAME, ego_dataset, ego_submission

pytestmark = pytest.mark.slow
require_browser()


@pytest.fixture(scope="module")
def site(demo_dataset, tmp_path_factory):
    """A leaderboard of three synthetic StreamGaze submissions (no lmms-eval needed) plus the paper rows,
    two EgoGazeVQA submissions with that paper's rows, and three StreamEQA and VL4Gaze submissions each (one a
    partial run); and the synced site of the same rows (the results dataset's ``site/``)."""
    return once_per_run(tmp_path_factory, "test_leaderboard_browser.site", lambda d: _site(demo_dataset, d))


def _site(demo_dataset, d):
    key = load_answer_key(demo_dataset)
    subs = [synthetic_submission(key, d / "alpha.json", "Alpha", 0.95, frames="32", params="7B"),
            synthetic_submission(key, d / "script.json", SCRIPT_NAME, 0.45, frames="16"),
            synthetic_submission(key, d / "gamma.json", "Gamma", 0.0, drop=0.5)]
    ego_root = ego_dataset(d)
    ego = [ego_submission(ego_root, d / "ego.json"),
           ego_submission(ego_root, d / "ego_weak.json", "Ego weak", dict.fromkeys(RESPONSES, "E"))]
    roots = other_datasets(d, ("streameqa", "vl4gaze"))
    more = [benchmark_submission(b, root, d / f"{b}-{kind}.json", f"{b} {kind}", right, drop=drop)
            for b, root in roots.items()
            for kind, right, drop in (("strong", 0.8, 0.0), ("weak", 0.3, 0.0), ("partial", 0.9, 0.85))]
    all_roots = [demo_dataset, ego_root, *roots.values()]
    out = write_leaderboard(subs + ego + more, all_roots, d / "site")
    overall = {validate_submission(s, demo_dataset).submission["model"]["name"]:
               validate_submission(s, demo_dataset).scores["overall"] for s in subs}
    paper = {r.name: r.overall for r in paper_rows()}
    by_root = {"streamgaze": demo_dataset, "egogazevqa": ego_root, **roots}
    reports = [validate_submission(s, by_root[b]) for s, b in
               [*((s, "streamgaze") for s in subs), *((s, "egogazevqa") for s in ego),
                *((s, s.name.split("-")[0]) for s in more)]]
    synced = results_dir(reports, d / "results", {"alpha.json": "alice", "ego.json": "bob"}) / "site"
    return out, overall, paper, synced


WIDTH = 1280
SUBS, PAPER = "#leaderboard-0", "#leaderboard-1"
EGO_SUBS, EGO_PAPER = "#leaderboard-2", "#leaderboard-3"
SETTINGS = {"gaze": "Gaze", "prompt_mode": "Prompt", "clip_fps": "Clip fps cap", "frames": "Frames",
            "params": "Params"}


@pytest.fixture(params=["local"])
def page(request, browser, site):
    """The page served over loopback HTTP in a 1280 px window; collects dialogs (there must be none). ``local``:
    ``streamgaze leaderboard``'s site; ``synced``: the one the sync writes into the results dataset."""
    handler = functools.partial(_QuietHandler, directory=str(site[0] if request.param == "local" else site[3]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    pg = browser.new_page(viewport={"width": WIDTH, "height": 800})
    pg.which = request.param
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
    _, overall, paper, _ = site
    assert page.locator("section.dataset h2").all_inner_texts()[0].startswith("Dataset 0.1.0 (")
    assert page.locator("section.dataset h2").all_inner_texts()[1] == \
        "Full benchmark: the official release (8,521 questions)"
    assert names(page, SUBS) == sorted(overall, key=lambda n: -overall[n]) == ["Alpha", SCRIPT_NAME, "Gamma"]
    assert names(page, PAPER) == sorted(paper, key=lambda n: -paper[n]) and names(page, PAPER)[0] == "Human"
    for table in (SUBS, PAPER):
        assert page.get_attribute(f"{table} thead th[data-key=overall]", "aria-sort") == "descending"
    # ranks count within a dataset: the demo's full submissions 1..2 (Gamma, a partial run, is not ranked: it is
    # marked and listed after them), the paper's methods 1..13, Human unranked
    assert column(page, SUBS, "rank") == [1.0, 2.0, None]
    gamma = page.locator(f"{SUBS} tbody tr", has_text="Gamma").first
    assert re.fullmatch(r"partial run: (4\d|5\d)\.\d% answered, not ranked", gamma.locator(".partial-run").inner_text())
    assert "1 partial run (not every question answered" in page.locator("section.dataset p.note").first.inner_text()
    assert page.locator("#sorted-0").inner_text().startswith("Sorted by Overall (descending, partial runs after")
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
                if table == PAPER and key == "clip_fps":  # the paper's rows have none: the setting is left out
                    assert setting.count() == 0
                    continue
                box = setting.bounding_box()
                assert setting.is_visible() and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (table, i, key)
                assert setting.inner_text().startswith(label)
        for key in ("overall", "oaa", "coverage") if table == SUBS else ("overall", "oaa"):  # the last on screen too
            box = page.locator(f"{table} thead th[data-key={key}]").bounding_box()
            assert box["x"] + box["width"] <= WIDTH, key
    # the paper's rows have no coverage: the column is left out of their table, and its note says so
    assert page.locator(f"{PAPER} thead th[data-key=coverage]").count() == 0
    assert "Left out, no row has a value: Coverage." in page.locator("section.dataset p.note").nth(1).inner_text()
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
    _, overall, paper, _ = site
    assert alpha.locator("td.overall").inner_text() == f"{100 * overall['Alpha']:.1f}"
    assert float(alpha.locator("td.overall").get_attribute("data-sort")) == pytest.approx(overall["Alpha"])
    assert gpt_overall(page) == f"{100 * paper['GPT-4o']:.1f}"
    gpt = page.locator(f"{PAPER} tbody tr", has_text="GPT-4o").first
    assert gpt.locator(".setting[data-key=prompt_mode]").inner_text() == "Prompt reference"


def test_sorting_by_clicking_headers_updates_the_subtitle(page, site):
    status = page.locator("#sorted-0")
    assert status.inner_text().startswith("Sorted by Overall (descending")
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
    _, _, paper, _ = site
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
    _, _, paper, _ = site
    titles = ["StreamGaze", "EgoGazeVQA", "StreamEQA", "VL4Gaze"]
    assert page.locator("nav.benchmarks a").all_inner_texts() == titles
    assert page.locator("section.benchmark > h2.benchmark").all_inner_texts() == titles
    sg = page.locator("section.benchmark[data-benchmark=streamgaze] section.dataset h2").all_inner_texts()
    assert sg[0].startswith("Dataset 0.1.0 (") and sg[1] == "Full benchmark: the official release (8,521 questions)"
    ego = page.locator("section.benchmark[data-benchmark=egogazevqa] section.dataset h2").all_inner_texts()
    assert ego[0].startswith("EgoGazeVQA: dataset 1.0.0 (5 questions")
    assert ego[1] == "EgoGazeVQA: the paper's benchmark (1,757 questions)" and len(ego) == 2
    for table in (EGO_SUBS, EGO_PAPER):  # the EgoGazeVQA tables are in its section, with its columns
        assert page.locator(f"section.benchmark[data-benchmark=egogazevqa] {table}").count() == 1
        keys = page.locator(f"{table} thead th").evaluate_all("hs => hs.map(h => h.getAttribute('data-key'))")
        labels = [t.replace(" ▼", "") for t in page.locator(f"{table} thead th button").all_inner_texts()]
        # the paper reports no exact match and no coverage: its table leaves both out
        n = 8 if table == EGO_SUBS else 6
        assert keys == ["rank", "model", "overall", "spatial", "temporal", "causal", "exact_match", "coverage"][:n]
        assert labels == ["#", "Model", "Avg.", "Spatial", "Temporal", "Causal", "Exact match", "Coverage"][:n]
    sg_keys = page.locator(f"{SUBS} thead th").evaluate_all("hs => hs.map(h => h.getAttribute('data-key'))")
    assert "nfi" in sg_keys and "spatial" not in sg_keys and "exact_match" not in sg_keys

    # its submissions, re-scored by its scorer (shown in %, as the paper prints it), ranked on their own; "Ego
    # synthetic" left one question unanswered (80% coverage): a partial run, after the full one and unranked
    assert names(page, EGO_SUBS) == ["Ego weak", "Ego synthetic"] and column(page, EGO_SUBS, "rank") == [1.0, None]
    cells = {key: page.locator(f"{EGO_SUBS} tbody td.{key}").all_inner_texts()
             for key in ("overall", "spatial", "temporal", "causal", "exact_match")}
    assert cells == {"overall": ["16.7", "66.7"], "spatial": ["0.0", "100.0"],
                     "temporal": ["50.0", "0.0\n50.0%"],  # the coverage of a partial task under its score
                     "causal": ["0.0", "100.0"], "exact_match": ["16.7", "50.0"]}
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
    assert names(page, EGO_SUBS) == ["Ego weak", "Ego synthetic"] and not page.errors


# ---- readable at 1280x800, on the local and the synced site (issue 44) -------------------------------------------

@pytest.mark.parametrize("page", ["local", "synced"], indirect=True)
def test_every_table_is_readable_at_1280(page, site, tmp_path):
    assert page.viewport_size == {"width": WIDTH, "height": 800}
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    tables = check_tables(page, page.which)
    assert len(tables) == 8  # four benchmarks, a table for the submissions' dataset and one for the paper's rows
    fonts = page.evaluate(FONTS_JS)
    assert fonts["missing"] == [] and fonts["declared"] == 0  # the system's fonts: no web font asked for or faked
    # StreamEQA's 48 columns: its summary by default, the rest behind "All columns"; open, it may scroll sideways
    button = page.locator("section.benchmark[data-benchmark=streameqa] button.columns").first
    table_id = button.get_attribute("aria-controls")
    shown = page.locator(f"#{table_id} thead th").evaluate_all("hs => hs.filter(h => h.getClientRects().length).length")
    assert button.inner_text() == f"All columns ({button.get_attribute('data-more')} more)"
    button.click()
    assert button.get_attribute("aria-pressed") == "true" and button.inner_text() == "Summary columns only"
    wide = page.locator(f"#{table_id} thead th").evaluate_all("hs => hs.filter(h => h.getClientRects().length).length")
    assert wide == shown + int(button.get_attribute("data-more"))
    assert page.evaluate(f"document.getElementById('{table_id}').scrollWidth") > WIDTH  # the wide view scrolls
    button.click()
    check_tables(page, page.which + " (closed again)")
    # VL4Gaze: no overall in any row; its tables say they are not ranked, and leave the empty columns out
    vl = page.locator("section.benchmark[data-benchmark=vl4gaze] section.dataset")
    assert [n.inner_text().split(" Left out")[0].endswith("No row is ranked.") or "1 partial run" in n.inner_text()
            for n in vl.locator("p.note").all()] == [True, True]
    assert "Left out, no row has a value: Overall, GOD ROUGE-L, Coverage." in vl.nth(1).locator("p.note").inner_text()
    assert vl.nth(0).locator("thead th[data-key=overall]").count() == 0
    # the synced site shows who submitted each row (its pull request linked); the local files name nobody
    alpha = page.locator(f"{SUBS} tbody tr", has_text="Alpha").first
    if page.which == "synced":
        assert alpha.locator(".by").inner_text() == "by @alice · #1"
        assert alpha.locator(".by a").get_attribute("href").endswith("/discussions/1")
    else:
        assert alpha.locator(".by").count() == 0
    # a screenshot of each benchmark's first table at 1280x800
    for bench in ("streamgaze", "egogazevqa", "streameqa", "vl4gaze"):
        page.locator(f"section.benchmark[data-benchmark={bench}] section.dataset h2").first.scroll_into_view_if_needed()
        page.evaluate(f"document.querySelector('section.benchmark[data-benchmark={bench}] section.dataset')"
                      ".scrollIntoView({block: 'start'})")
        shot = tmp_path / f"site_{page.which}_{bench}.png"
        page.screenshot(path=str(shot))
        keep_screenshot(shot, shot.name)
