"""The human-verification round trip in a real browser (headless Chromium driven by Playwright):
export the review pages of a small built dataset, click "Exclude" on an out-of-FOV object that a
generated question uses, press "Export CSV", read the CSV back, and rebuild the video's questions
with the corrections applied: the object is gone from every question. A screenshot is saved in the
test's tmp dir (copied to $STREAMGAZE_SCREENSHOTS when set).

Needs /usr/bin/chromium (``scripts/install_browser.sh``) and the ``playwright`` package (never
``playwright install``: the Debian browser is used). Skipped when either is missing, unless
``STREAMGAZE_REQUIRE_BROWSER=1`` (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.dataset.files import data_file
from streamgaze_hf.review import export_review, load_corrections, verification_stats
from streamgaze_hf.review.page import PageFixation, PageVideo, render_video_page

from ..fixtures.browser import keep_screenshot, require_browser
from ..fixtures.once import once_per_run

pytestmark = pytest.mark.slow
require_browser()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One 30 s demo video (raw recording) and the dataset built from it."""
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset
    from streamgaze_hf.demo.world import generate_world

    def build(d):
        (rec,) = generate_world(d / "raw", n_videos=1, seed=0, duration=30.0, progress=False)
        return rec, build_dataset(d / "raw", d / "streamgaze", "0.1.0")

    return once_per_run(tmp_path_factory, "test_review_browser.world", build)


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(accept_downloads=True, viewport={"width": 1300, "height": 1000})
    pg = ctx.new_page()
    pg.dialogs, pg.errors = [], []
    pg.on("dialog", lambda dlg: (pg.dialogs.append(dlg.message), dlg.dismiss()))
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    yield pg
    ctx.close()


def _questions(root: Path) -> list[dict]:
    rows = []
    for task in TASK_IDS:
        path = data_file(root, task)
        if path.is_file():
            rows += pq.read_table(path).to_pylist()
    return rows


def _mentions(row: dict, name: str) -> bool:
    """Does a question row use the object anywhere: question, options, answer or metadata?"""
    text = json.dumps([row["question"], list(row["options"]), row["answer_text"], row["metadata"]],
                      ensure_ascii=False)
    return name in text


def _pick_target(root: Path, rec: Path) -> tuple[str, list[dict]]:
    """An object seen only outside the FOV, used by some question, whose name is in no other name."""
    fix = [r for r in pq.read_table(data_file(root, "fixations")).to_pylist() if r["kept"]]
    inside = {r["gazed_object"] for r in fix} | {o for r in fix for o in r["fov_objects"]}
    outside = {o for r in fix for o in r["out_objects"]}
    questions = _questions(root)
    others = inside | outside | {a["label"] for a in json.loads((rec / "actions.json").read_text())}
    others |= {o for q in questions if q["task"] == "oar" for o in q["options"]}
    candidates = []
    for name in sorted(outside - inside):
        if any(name in o for o in others if o != name):
            continue  # e.g. "sponge" inside "green sponge": a substring test would be ambiguous
        n_fix = sum(name in r["out_objects"] for r in fix)
        n_q = sum(_mentions(q, name) for q in questions)
        if n_q:
            candidates.append((n_fix, -n_q, name))
    assert candidates, "the demo video has no out-of-FOV object used by a question"
    name = min(candidates)[2]
    return name, [r for r in fix if name in r["out_objects"]]


def _export_csv(pg) -> str:
    """Click Export CSV; the downloaded file must equal the text shown in the page."""
    with pg.expect_download() as dl:
        pg.click("#export-csv")
    downloaded = Path(dl.value.path()).read_text(encoding="utf-8-sig")
    shown = pg.input_value("#csv-output")
    assert downloaded == shown
    return shown


def _regenerate(rec: Path, corrections) -> tuple[dict[str, list[dict]], list]:
    """The video's QA rebuilt with the corrections applied before the scanpath (as `build --review`)."""
    from streamgaze_hf.benchmarks.streamgaze.build import BuildOptions, analyse_recording
    from streamgaze_hf.benchmarks.streamgaze.qa.generate import generate_questions
    from streamgaze_hf.gaze.scanpath import build_scanpath
    from streamgaze_hf.review import apply_corrections

    opts = BuildOptions()
    a = analyse_recording(rec, opts)
    ctx = a.context
    ctx.objects.per_fixation = apply_corrections(ctx.video_id, ctx.fixations, ctx.objects.per_fixation,
                                                 corrections, fixation_indices=a.kept_idx)
    ctx.episodes = build_scanpath(ctx.fixations, ctx.objects.per_fixation, opts.merge_gap,
                                  opts.fixation.r_thresh, a.track.aspect)
    return generate_questions(ctx, opts.seed, opts.cap_per_task), ctx.objects.per_fixation


def test_exclude_export_import_removes_the_object(world, page, tmp_path):
    rec, root = world
    target, where = _pick_target(root, rec)
    before = [q for q in _questions(root) if _mentions(q, target)]
    assert before

    out = tmp_path / "review"
    export_review(root, out)
    vid = rec.name
    page.goto((out / f"{vid}.html").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#annotator", "tester")
    cards = []
    for f in where:
        card = page.locator(f'article.fixation[data-fixation-index="{f["fixation_index"]}"]')
        card.locator(f'.object[data-region="out"][data-object="{target}"] input[value="exclude"]').click()
        cards.append(card)
    assert page.locator(".object.is-excluded").count() == len(where)
    assert page.inner_text("#progress") == f"{len(where)} of {page.locator('article.fixation').count()} " \
                                           "fixations reviewed"

    # "play this fixation" seeks to the start and pauses at the end
    first = where[0]
    cards[0].locator("button.play-fixation").click()
    k = cards[0].get_attribute("data-k")
    page.wait_for_function(f"() => {{ const v = document.getElementById('video-{k}'); "
                           f"return v.paused && v.currentTime > {first['start']}; }}", timeout=30_000)
    t = page.evaluate(f"document.getElementById('video-{k}').currentTime")
    assert first["end"] - 0.05 <= t <= first["end"] + 0.05

    text = _export_csv(page)
    cards[0].scroll_into_view_if_needed()
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep_screenshot(shot, "review.png")

    # progress survives a reload (localStorage): the same CSV again
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".object.is-excluded").count() == len(where)
    assert page.input_value("#annotator") == "tester"
    assert _export_csv(page) == text
    csv_path = tmp_path / f"{vid}.review.tester.csv"
    csv_path.write_text(text, encoding="utf-8")
    corrections = load_corrections([csv_path])
    excluded = [r for r in corrections.rows if r.excluded]
    assert [(r.region, r.object, r.fixation_index) for r in excluded] == \
        [("out", target, f["fixation_index"]) for f in where]
    assert {r.annotator for r in corrections.rows} == {"tester"}
    stats = verification_stats(corrections)["overall"]
    assert stats["excluded"] == len(where) and stats["fixations"] == page.locator("article.fixation").count()

    assert page.dialogs == [] and not page.errors

    # the questions rebuilt with the corrections no longer use the object; others are untouched
    qa, per_fixation = _regenerate(rec, corrections)
    assert all(target not in (o.gazed, *o.fov, *o.out) for o in per_fixation)
    after = [q for rows in qa.values() for q in rows]
    assert after and not [q["question_id"] for q in after if _mentions(q, target)]
    others = {o for f in where for o in f["out_objects"] if o != target}
    assert any(_mentions(q, o) for q in after for o in others) or not others

    # the same through the build option, when the build has one (`streamgaze build --review CSV`)
    from streamgaze_hf.benchmarks.streamgaze.build import BuildOptions, build_dataset

    if "review" in {f.name for f in dataclasses.fields(BuildOptions)}:
        reviewed = build_dataset(rec.parent, tmp_path / "reviewed", "0.1.1",
                                 options=BuildOptions(review=(str(csv_path),)))
        rows = _questions(reviewed)
        assert rows and not [q["question_id"] for q in rows if _mentions(q, target)]
        fix = pq.read_table(data_file(reviewed, "fixations")).to_pylist()
        assert all(target not in f["out_objects"] for f in fix)


MALICIOUS = '</script><script>alert(1)</script>'
QUOTES = '"><img src=x onerror=alert(2)>'


def test_malicious_object_names_are_text_and_round_trip(page, tmp_path):
    fx = PageFixation(3, 1.0, 3.0, 0.5, 0.5, 0, MALICIOUS, (QUOTES,), ("<!--<script>", 'comma, "quote"'))
    (tmp_path / "v1.html").write_text(render_video_page(PageVideo("v1", "demo", "none.mp4", 10.0, [fx]), "StreamGaze"),
                                      encoding="utf-8")
    page.goto((tmp_path / "v1.html").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.scripts.length") == 2
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    names = page.locator(".object .name").all_inner_texts()
    assert names == [MALICIOUS, QUOTES, "<!--<script>", 'comma, "quote"']
    row = page.locator(".object[data-region='out']").nth(1)
    assert row.get_attribute("data-object") == 'comma, "quote"'
    row.locator("input[value='exclude']").click()
    page.locator("input[name='f0-g-obj']").fill("cup, white")
    text = _export_csv(page)
    path = tmp_path / "v1.csv"
    path.write_text(text, encoding="utf-8")
    rows = load_corrections(path).rows
    assert [(r.region, r.object, r.decision, r.corrected_object) for r in rows] == [
        ("fixation", "", "include", ""), ("gazed", MALICIOUS, "include", "cup, white"),
        ("fov", QUOTES, "include", ""), ("out", "<!--<script>", "include", ""),
        ("out", 'comma, "quote"', "exclude", "")]
    assert all(r.fixation_index == 3 and r.start == 1.0 and r.end == 3.0 for r in rows)
    assert page.dialogs == [] and not page.errors
