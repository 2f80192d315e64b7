"""The review pages (paper appendix A.5, Figure 22): one self-contained HTML file per video.

Each page embeds its CSS, its script and its data; the only outside file is the gaze-overlay video
(a relative URL). For every scene-consistent fixation it shows the overlay video with a "play this
fixation" control (seeks to the start, pauses at the end), the gazed object (include / exclude and
fields for the corrected identity and caption), the other objects inside the FOV circle and the
objects outside it (include / exclude each), and an "exclude whole fixation" box. Decisions are kept
in the browser's localStorage while the annotator works; "Export CSV" downloads them (and writes
the text into ``<textarea id="csv-output">``) in the format of :mod:`.corrections`.

Safety: every dataset string goes through :func:`html.escape` (text and attributes); the embedded
JSON has ``</`` written as ``<\\/`` and ``<!--`` as ``\\u003c!--``, so no string can end the
``<script>`` element; a Content-Security-Policy lets only the page's own script (by hash) run.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from importlib.resources import files
from typing import Any

from ..util.htmlpage import attr, page_head
from .corrections import CSV_COLUMNS

__all__ = ["PageFixation", "PageVideo", "embed_json", "render_index", "render_video_page", "script_csp",
           "video_header", "export_tail", "asset"]


@dataclass(frozen=True)
class PageFixation:
    """One scene-consistent fixation as the page shows it."""

    fixation_index: int
    start: float
    end: float
    x: float
    y: float
    episode_index: int
    gazed: str
    fov: tuple[str, ...]
    out: tuple[str, ...]


@dataclass(frozen=True)
class PageVideo:
    """One video's page: its id, source, the overlay video's URL (relative to the page) and fixations."""

    video_id: str
    source: str
    video_src: str
    duration: float
    fixations: list[PageFixation] = field(default_factory=list)
    dataset_version: str = ""

    def data(self) -> dict[str, Any]:
        fixes = [{"k": k, "fixation_index": f.fixation_index, "start": f.start, "end": f.end,
                  "episode_index": f.episode_index, "gazed": f.gazed, "fov": list(f.fov), "out": list(f.out)}
                 for k, f in enumerate(self.fixations)]
        payload = {"video_id": self.video_id, "source": self.source, "dataset_version": self.dataset_version,
                   "columns": list(CSV_COLUMNS), "fixations": fixes}
        key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:12]
        return {**payload, "key": key}


def embed_json(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: nothing in it can close the element."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    return (text.replace("</", "<\\/").replace("<!--", "\\u003c!--")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _clock(t: float) -> str:
    m, s = divmod(max(t, 0.0), 60.0)
    return f"{int(m):02d}:{s:04.1f}"


def asset(name: str) -> str:
    """A file of ``review/assets/`` (the pages' CSS, scripts and guides; package data) as text."""
    return files(__package__).joinpath("assets").joinpath(name).read_text(encoding="utf-8")


#: the pages' style sheet, script and reviewer guide (review/assets/)
_CSS = asset("review.css")
_JS = asset("review.js")
_GUIDE = asset("review_guide.html")


def _radios(name: str) -> str:
    return (f'<label><input type="radio" name="{name}" value="include" checked> Include</label>'
            f'<label><input type="radio" name="{name}" value="exclude"> Exclude</label>')


def _object_rows(k: int, region: str, names: Sequence[str]) -> str:
    if not names:
        return '<p class="none">none listed</p>'
    rows = []
    for j, n in enumerate(names):
        radio = f"f{k}-{region}-{j}"
        rows.append(f'<div class="object" data-region="{region}" data-object="{attr(n)}" data-radio="{radio}">'
                    f'<span class="name">{escape(n)}</span>{_radios(radio)}</div>')
    return "".join(rows)


def _fixation_card(k: int, f: PageFixation, video: PageVideo) -> str:
    dur = f.end - f.start
    if f.gazed:
        gazed = (f'<div class="object" data-region="gazed" data-object="{attr(f.gazed)}" data-radio="f{k}-g">'
                 f'<span class="name">{escape(f.gazed)}</span>{_radios(f"f{k}-g")}')
    else:
        gazed = ('<div class="object" data-region="gazed" data-object="">'
                 '<span class="name none">no gazed object found</span>')
    gazed += (f'<input type="text" name="f{k}-g-obj" placeholder="correct object name (if wrong or missing)" '
              f'aria-label="corrected gazed object, fixation {f.fixation_index}">'
              f'<textarea name="f{k}-g-cap" placeholder="caption: 1-2 sentences on its attributes or location" '
              f'aria-label="caption of the gazed object, fixation {f.fixation_index}"></textarea></div>')
    return f"""
<article class="fixation" id="fix-{k}" data-k="{k}" data-fixation-index="{f.fixation_index}">
<h2>Fixation {f.fixation_index} <span class="when">{_clock(f.start)} - {_clock(f.end)} ({dur:.1f} s) \u00b7 \
episode {f.episode_index} \u00b7 gaze at ({f.x:.2f}, {f.y:.2f})</span></h2>
<div class="clip">
<video class="clip-video" id="video-{k}" data-k="{k}" src="{attr(video.video_src)}" preload="none" muted \
playsinline controls></video>
<div class="controls"><button type="button" class="play-fixation" data-k="{k}">\u25b6 Play this fixation</button>\
<span id="time-{k}" class="time"></span></div>
</div>
<div class="decisions">
<label class="whole"><input type="checkbox" name="f{k}-x"> Exclude whole fixation</label>
<label class="whole"><input type="checkbox" name="f{k}-done"> Reviewed</label>
<div class="regions">
<fieldset class="region gazed"><legend>1. Gazed object (green dot)</legend>{gazed}</fieldset>
<fieldset class="region fov"><legend>2. Other objects inside the red circle</legend>{_object_rows(k, "fov", f.fov)}\
</fieldset>
<fieldset class="region out"><legend>3. Objects outside the red circle</legend>{_object_rows(k, "out", f.out)}\
</fieldset>
</div>
</div>
</article>"""


def script_csp(js: str, media: str = "img-src data:; media-src 'self' file: http: https: blob:") -> str:
    """The Content-Security-Policy of a review page: only the page's own script ``js`` (by hash) runs;
    ``media`` says where images and videos may come from."""
    script_hash = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; {media}; script-src 'sha256-{script_hash}'"


def _csp() -> str:
    return script_csp(_JS)


def render_video_page(video: PageVideo, benchmark_title: str) -> str:
    """The review page of one video (see the module docstring), headed with its benchmark's title."""
    cards = "".join(_fixation_card(k, f, video) for k, f in enumerate(video.fixations))
    if not cards:
        cards = '<p class="none">This video has no scene-consistent fixation: nothing to review.</p>'
    title = f"{benchmark_title} human verification: {video.video_id}"
    version = f", dataset {video.dataset_version}" if video.dataset_version else ""
    meta = (f"source {video.source or 'unknown'}{version} \u00b7 {len(video.fixations)} fixations \u00b7 "
            f"{_clock(video.duration)} of video")
    return page_head(title, _csp(), _CSS) + f"""{video_header(title, meta)}
{_GUIDE}
<form id="review-form" autocomplete="off">
<div id="toolbar">
<label>Annotator <input type="text" name="annotator" id="annotator" placeholder="your name" required></label>
<span id="progress"></span>
<button type="button" id="reset-all">Reset all</button>
<button type="button" id="export-csv" class="primary">Export CSV</button>
<a id="download-link" hidden></a>
<span id="status" role="status"></span>
</div>
<main>{cards}
</main>
</form>
{export_tail(CSV_COLUMNS, video.data(), _JS)}"""


def video_header(title: str, meta: str) -> str:
    """The header of one video's review page (fixations or questions): its title, one line of facts and the link
    back to the index."""
    return f"""<header>
<h1>{escape(title)}</h1>
<p class="meta">{escape(meta)} \u00b7 <a href="index.html">all videos</a></p>
</header>"""


def export_tail(columns: Sequence[str], data: Any, js: str) -> str:
    """The end of a review page: the exported-CSV box, the page's data and its script."""
    return f"""<section id="export">
<h2>Exported CSV</h2>
<p class="meta">Columns: {escape(", ".join(columns))}.</p>
<textarea id="csv-output" readonly aria-label="exported CSV"></textarea>
</section>
<script type="application/json" id="review-data">{embed_json(data)}</script>
<script>{js}</script>
</body>
</html>
"""


def render_index(videos: Sequence[PageVideo], pages: Mapping[str, str], benchmark_title: str) -> str:
    """The folder's index.html: a table of the video pages (``pages``: video_id -> file name)."""
    title = f"{benchmark_title} human verification"
    rows = []
    for v in videos:
        n_obj = sum(bool(f.gazed) + len(f.fov) + len(f.out) for f in v.fixations)
        rows.append(f'<tr><td><a href="{attr(pages[v.video_id])}">{escape(v.video_id)}</a></td>'
                    f'<td>{escape(v.source)}</td><td class="num">{len(v.fixations)}</td>'
                    f'<td class="num">{n_obj}</td><td class="num">{_clock(v.duration)}</td></tr>')
    csp = "default-src 'none'; style-src 'unsafe-inline'"
    return page_head(title, csp, _CSS) + f"""<header>
<h1>{escape(title)}</h1>
<p class="meta">{len(videos)} videos. Open each page, review every fixation, press <strong>Export CSV</strong>
and send the CSV files back; they are applied with <code>streamgaze build --review CSV...</code>.</p>
<table class="videos">
<thead><tr><th>video</th><th>source</th><th>fixations</th><th>objects</th><th>length</th></tr></thead>
<tbody>
{"".join(rows)}
</tbody>
</table>
</header>
{_GUIDE}
</body>
</html>
"""
