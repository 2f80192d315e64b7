"""The question-verification page (EgoGazeVQA) in headless Chromium: the keyframes load under the
page's CSP, Drop + a failed criterion + a corrected letter come out of "Export CSV" in the format
``load_qa_verdicts`` reads, and the verdict drops the question. Skipped without Chromium/Playwright
(see tests/fixtures/browser.py)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.review.qa_review import QAPageQuestion, load_qa_verdicts, render_qa_page

from ..fixtures.browser import require_browser

pytestmark = pytest.mark.slow
require_browser()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(accept_downloads=True, viewport={"width": 1300, "height": 900})
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    yield pg
    ctx.close()


def test_drop_export_and_read_back(page, tmp_path):
    frames = []
    for j in range(9):
        rel = f"frames/world/v1/{j:06d}.jpg"
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(tmp_path / rel), np.full((48, 64, 3), 20 * j, np.uint8))
        frames.append((rel, 0.1 * j, 0.5, f"C looks at thing {j}"))
    questions = [QAPageQuestion(f"q{k}", cat, f"Question <{k}>?", ("a", "b", "c", "d", "e"), "B", tuple(frames))
                 for k, cat in enumerate(("spatial", "temporal"))]
    html = tmp_path / "v1.html"
    html.write_text(render_qa_page("v1", "world", questions, "1.0.0", get_benchmark("egogazevqa")), encoding="utf-8")
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth === 64)")
    assert page.locator(".kf .gz").count() == 18 and page.inner_text("#q-0 h2") == "spatial: Question <0>?"
    page.fill("#annotator", "ann 1")
    page.locator('#q-1 input[value="drop"]').click()
    page.locator('#q-1 input[name="q1-c-accuracy"]').check()
    page.select_option('#q-1 select[name="q1-fix"]', "D")
    page.fill('#q-1 input[name="q1-note"]', 'two, "right" answers')
    with page.expect_download() as dl:
        page.click("#export-csv")
    path = Path(dl.value.path())
    assert path.read_text(encoding="utf-8-sig") == page.input_value("#csv-output")
    assert page.locator("article.qa.done").count() == 1 and not page.errors
    verdicts = load_qa_verdicts([path])
    rows = {r.question_id: r for r in verdicts.rows}
    assert rows["q0"].decision == "keep" and rows["q0"].failed == ()
    r = rows["q1"]
    assert (r.decision, r.failed, r.corrected_answer, r.note, r.annotator, r.source, r.video_id, r.task) == \
        ("drop", ("accuracy",), "D", 'two, "right" answers', "ann 1", "world", "v1", "temporal")
    assert verdicts.rejected == {"q1"}
