"""The static site shows each chart's caption once and the coverage as every other percentage (issue 38.9), through
the installed ``streamgaze leaderboard`` script: the page's chart images carry no caption of their own (the
``<figcaption>`` under each holds it), ``chart.png`` (a file on its own) has it drawn in, and a complete run's
coverage reads ``100.0%`` as a partial one reads ``79.7%``."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
from PIL import Image

from perf.shared.synthetic import synthetic_submission

from ..fixtures.cli_entry import streamgaze


def _caption_strip_ink(png: bytes) -> int:
    """Dark pixels in the bottom 2% of the image, where the caption is drawn."""
    img = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    strip = img[int(img.shape[0] * 0.98):, :]
    return int((strip < 160).sum())


def test_chart_caption_once_and_coverage_with_one_decimal(demo_dataset, tmp_path):
    from streamgaze_hf.submission.answer_key import load_answer_key

    key = load_answer_key(demo_dataset)
    full = synthetic_submission(key, tmp_path / "full.json", "Complete", 0.7)
    part = synthetic_submission(key, tmp_path / "part.json", "Partial", 0.7, drop=0.2)
    out = tmp_path / "site"
    proc = streamgaze("leaderboard", full, part, "--dataset", demo_dataset, "--out", out, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (out / "index.html").read_text()
    cells = re.findall(r'<td class="coverage[^"]*"[^>]*>([^<]*)</td>', html)
    assert cells[0] == "100.0%" and re.fullmatch(r"[1-9]\d\.\d%", cells[1]), cells  # Complete, then Partial
    assert "100%<" not in html
    figures = re.findall(r'<img class="chart"[^>]*src="data:image/png;base64,([^"]+)"><figcaption>([^<]+)</figcaption>',
                         html)
    assert figures and all(caption.startswith("Bars: ") for _, caption in figures)
    assert [_caption_strip_ink(base64.b64decode(png)) for png, _ in figures] == [0] * len(figures)
    assert _caption_strip_ink((out / "chart.png").read_bytes()) > 0
