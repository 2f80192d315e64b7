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
from typing import Any

from ..htmlpage import attr, page_head
from .corrections import CSV_COLUMNS

__all__ = ["PageFixation", "PageVideo", "embed_json", "render_index", "render_video_page", "script_csp",
           "export_tail"]


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


_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1b1f24;
background:#f6f8fa}
header,main,#instructions,#export{max-width:78rem;margin:0 auto;padding:0 1rem}
h1{font-size:1.4rem;margin:1rem 0 .2rem}
p.meta{color:#57606a;margin:.2rem 0 .8rem;font-size:.9rem}
#instructions{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.6rem 1rem;font-size:.88rem}
#instructions h2{font-size:1rem;margin:.6rem 0 .2rem}
#instructions ul,#instructions ol{margin:.2rem 0 .4rem;padding-left:1.3rem}
.dot{display:inline-block;width:.7rem;height:.7rem;border-radius:50%;background:#1a7f37;vertical-align:middle}
.ring{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;border:2px solid #cf222e;
vertical-align:middle}
#toolbar{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid #d0d7de;padding:.5rem 1rem;
display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;font-size:.9rem}
#toolbar button{font:inherit;padding:.25rem .7rem;border-radius:6px;border:1px solid #8c959f;background:#f6f8fa;
cursor:pointer}
#toolbar button.primary{background:#1f883d;color:#fff;border-color:#1a7f37}
#status{color:#57606a}
article.fixation{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:.6rem .9rem;
display:grid;grid-template-columns:minmax(0,26rem) minmax(0,1fr);gap:1rem}
article.fixation h2{grid-column:1/-1;font-size:1rem;margin:0;display:flex;gap:1rem;flex-wrap:wrap;
align-items:baseline}
article.fixation h2 .when{color:#57606a;font-weight:400;font-size:.88rem}
article.fixation.done h2::after{content:"reviewed";font-size:.75rem;color:#1a7f37;border:1px solid #1a7f37;
border-radius:1rem;padding:0 .45rem}
article.fixation.excluded .regions{opacity:.45}
.clip video{width:100%;background:#000;border-radius:4px;aspect-ratio:4/3}
.clip .controls{display:flex;gap:.6rem;align-items:center;font-size:.85rem;margin-top:.3rem}
.clip button{font:inherit;padding:.2rem .6rem;border-radius:6px;border:1px solid #8c959f;background:#f6f8fa;
cursor:pointer}
.whole{display:block;margin:.1rem 0 .5rem;font-size:.88rem}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:0 0 .5rem;padding:.3rem .6rem}
legend{font-size:.85rem;font-weight:600;padding:0 .3rem}
.object{display:flex;flex-wrap:wrap;gap:.2rem .7rem;align-items:center;padding:.2rem 0;
border-bottom:1px dashed #eaeef2;font-size:.9rem}
.object:last-child{border-bottom:0}
.object .name{min-width:9rem;font-weight:600}
.object.is-excluded .name{text-decoration:line-through;color:#cf222e}
.object label{cursor:pointer}
.object input[type=text],.object textarea{font:inherit;font-size:.85rem;width:100%;padding:.2rem .35rem;
border:1px solid #d0d7de;border-radius:4px}
.object textarea{min-height:2.6rem;resize:vertical}
.none{color:#8c959f;font-size:.85rem;font-style:italic}
#export textarea{width:100%;min-height:8rem;font-family:ui-monospace,monospace;font-size:.78rem}
table.videos{border-collapse:collapse;background:#fff;font-size:.9rem;margin:1rem 0}
table.videos th,table.videos td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left}
table.videos td.num{text-align:right}
@media (max-width:50rem){article.fixation{grid-template-columns:1fr}}
"""

_JS = r"""
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("review-data").textContent);
  const KEY = "streamgaze-review:" + DATA.video_id + ":" + DATA.key;
  const NAME_KEY = "streamgaze-review:annotator";
  const form = document.getElementById("review-form");
  const all = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const field = (name) => form.elements.namedItem(name);
  const statusEl = document.getElementById("status");
  let blobUrl = null;

  function say(msg) { statusEl.textContent = msg; }

  function radio(name) {
    const el = form.querySelector('input[type=radio][name="' + name + '"]:checked');
    return el ? el.value : "include";
  }

  function save() {
    const state = {};
    for (const el of all("input[name], textarea[name]", form)) {
      if (el.type === "radio") { if (el.checked) state[el.name] = el.value; }
      else if (el.type === "checkbox") state[el.name] = el.checked;
      else state[el.name] = el.value;
    }
    try {
      localStorage.setItem(KEY, JSON.stringify(state));
      if (state.annotator) localStorage.setItem(NAME_KEY, state.annotator);
    } catch (err) {
      say("Progress could not be saved in this browser (" + err.message + "): export before closing.");
    }
  }

  function restore() {
    let state = null;
    try { state = JSON.parse(localStorage.getItem(KEY) || "null"); } catch (err) { state = null; }
    if (state && typeof state === "object") {
      for (const el of all("input[name], textarea[name]", form)) {
        if (!Object.prototype.hasOwnProperty.call(state, el.name)) continue;
        const v = state[el.name];
        if (el.type === "radio") el.checked = (el.value === v);
        else if (el.type === "checkbox") el.checked = !!v;
        else el.value = String(v);
      }
    }
    const who = field("annotator");
    if (!who.value) {
      try { who.value = localStorage.getItem(NAME_KEY) || ""; } catch (err) { /* no storage */ }
    }
  }

  function update() {
    let done = 0;
    for (const card of all("article.fixation")) {
      const k = card.dataset.k;
      card.classList.toggle("excluded", field("f" + k + "-x").checked);
      const isDone = field("f" + k + "-done").checked;
      card.classList.toggle("done", isDone);
      if (isDone) done += 1;
      for (const row of all(".object[data-radio]", card)) {
        row.classList.toggle("is-excluded", radio(row.dataset.radio) === "exclude");
      }
    }
    document.getElementById("progress").textContent =
      done + " of " + DATA.fixations.length + " fixations reviewed";
  }

  form.addEventListener("change", (ev) => {
    const card = ev.target.closest("article.fixation");
    if (card && !ev.target.name.endsWith("-done")) field("f" + card.dataset.k + "-done").checked = true;
    update();
    save();
  });
  form.addEventListener("input", () => save());
  form.addEventListener("submit", (ev) => ev.preventDefault());

  // ---- playback: seek to the fixation start, pause at its end ------------------------------------
  function watch(video) {
    const stop = parseFloat(video.dataset.stopAt);
    if (isNaN(stop)) return;
    if (video.currentTime >= stop - 0.02) {
      video.pause();
      video.currentTime = stop;
      delete video.dataset.stopAt;
      return;
    }
    if (!video.paused) requestAnimationFrame(() => watch(video));
  }

  function playFixation(k) {
    const f = DATA.fixations[k];
    const video = document.getElementById("video-" + k);
    video.dataset.cued = "1";
    const go = () => {
      video.currentTime = f.start;
      video.dataset.stopAt = String(f.end);
      const p = video.play();
      if (p && p.catch) p.catch((err) => say("Cannot play the video: " + err.message));
      requestAnimationFrame(() => watch(video));
    };
    if (video.readyState >= 1) go();
    else {
      video.preload = "auto";
      video.addEventListener("loadedmetadata", go, { once: true });
      video.load();
    }
  }

  // Show each clip's first frame once its card scrolls near the viewport (hundreds of cards: lazy).
  function cue(video) {
    if (video.dataset.cued) return;
    video.dataset.cued = "1";
    const f = DATA.fixations[Number(video.dataset.k)];
    const seek = () => { if (video.paused && video.currentTime === 0) video.currentTime = f.start; };
    if (video.readyState >= 1) seek();
    else {
      video.addEventListener("loadedmetadata", seek, { once: true });
      video.preload = "auto";
      video.load();
    }
  }
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) { cue(e.target); io.unobserve(e.target); }
    }, { rootMargin: "400px 0px" });
    for (const video of all("video.clip-video")) io.observe(video);
  }

  for (const btn of all("button.play-fixation")) {
    btn.addEventListener("click", () => playFixation(Number(btn.dataset.k)));
  }
  for (const video of all("video.clip-video")) {
    video.addEventListener("play", () => requestAnimationFrame(() => watch(video)));
    video.addEventListener("seeking", () => {
      const f = DATA.fixations[Number(video.dataset.k)];
      if (video.dataset.stopAt && (video.currentTime < f.start - 0.1 || video.currentTime > f.end + 0.1)) {
        delete video.dataset.stopAt;  // the annotator scrubbed elsewhere: let the video play on
      }
    });
    video.addEventListener("timeupdate", () => {
      const t = document.getElementById("time-" + video.dataset.k);
      if (t) t.textContent = "t = " + video.currentTime.toFixed(1) + " s";
    });
  }

  // ---- export ------------------------------------------------------------------------------------
  function cell(v) {
    const s = String(v);
    return /[",\r\n]/.test(s) || s !== s.trim() ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function buildCsv() {
    const who = field("annotator").value.trim();
    const rows = [DATA.columns];
    const problems = [];
    for (const f of DATA.fixations) {
      const k = f.k;
      const base = [DATA.video_id, f.fixation_index, f.start, f.end];
      const tail = [who, DATA.source];
      rows.push(base.concat(["fixation", "", field("f" + k + "-x").checked ? "exclude" : "include", "", ""], tail));
      const corrected = field("f" + k + "-g-obj").value.trim();
      const caption = field("f" + k + "-g-cap").value.trim();
      if (f.gazed) {
        rows.push(base.concat(["gazed", f.gazed, radio("f" + k + "-g"), corrected, caption], tail));
      } else if (corrected) {
        rows.push(base.concat(["gazed", "", "include", corrected, caption], tail));
      } else if (caption) {
        problems.push("fixation " + f.fixation_index + ": a caption without the object's name");
      }
      f.fov.forEach((name, j) => rows.push(base.concat(["fov", name, radio("f" + k + "-fov-" + j), "", ""], tail)));
      f.out.forEach((name, j) => rows.push(base.concat(["out", name, radio("f" + k + "-out-" + j), "", ""], tail)));
    }
    return { text: rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n", problems: problems };
  }

  function exportCsv() {
    const csv = buildCsv();
    if (csv.problems.length) {
      say("Not exported: " + csv.problems.join("; ") + ".");
      return;
    }
    document.getElementById("csv-output").value = csv.text;
    const who = field("annotator").value.trim() || "anonymous";
    const name = (DATA.video_id + ".review." + who).replace(/[^A-Za-z0-9._-]+/g, "_") + ".csv";
    if (blobUrl) URL.revokeObjectURL(blobUrl);
    blobUrl = URL.createObjectURL(new Blob(["\ufeff" + csv.text], { type: "text/csv;charset=utf-8" }));
    const link = document.getElementById("download-link");
    link.href = blobUrl;
    link.download = name;
    link.textContent = "download " + name + " again";
    link.hidden = false;
    link.click();
    const done = all("article.fixation.done").length;
    const left = DATA.fixations.length - done;
    say("Exported " + (csv.text.split("\r\n").length - 2) + " rows to " + name +
        (left ? " (" + left + " fixations not marked reviewed yet)" : "") + ".");
  }

  document.getElementById("export-csv").addEventListener("click", exportCsv);
  document.getElementById("reset-all").addEventListener("click", () => {
    if (!window.confirm("Clear every decision on this page?")) return;
    try { localStorage.removeItem(KEY); } catch (err) { /* no storage */ }
    const who = field("annotator").value;
    form.reset();
    field("annotator").value = who;
    document.getElementById("csv-output").value = "";
    update();
    save();
    say("All decisions reset.");
  });

  restore();
  update();
  document.body.dataset.ready = "1";
})();
"""


_GUIDE = """
<section id="instructions">
<h2>1. Task description</h2>
<p>Verify whether the objects the AI model recognised, and their names, are correct. In the video
<span class="dot" aria-hidden="true"></span> the <strong>green dot</strong> is the user's gaze point and
<span class="ring" aria-hidden="true"></span> the <strong>red circle</strong> the user's field of view (FOV).
For every fixation you have three tasks:</p>
<ol>
<li><strong>Gazed object (green dot):</strong> is the object under the green dot correct?</li>
<li><strong>Other objects in the red circle:</strong> are the objects listed as inside the red circle correct?</li>
<li><strong>Objects outside the red circle:</strong> are the objects listed as visible outside the red circle
correct?</li>
</ol>
<h2>2. Verification guide</h2>
<ul>
<li>Press <em>Play this fixation</em>: the clip starts at the fixation and pauses at its end.</li>
<li>If the prediction is correct, do nothing and leave it as <strong>Include</strong>.
If it is wrong, switch it to <strong>Exclude</strong>.</li>
<li>Gazed object wrong or missing: also type <strong>the correct object name</strong> and a
<strong>caption</strong>, a short description (1-2 sentences) of the object's attributes or location.</li>
<li>If the object itself is right but its description is wrong, it is still incorrect: correct it.</li>
<li>Tick <strong>Exclude whole fixation</strong> when the clip cannot be judged (scene cut, gaze lost,
no clear target).</li>
</ul>
<h2>3. Evaluation guide</h2>
<ul>
<li>If the green dot briefly leaves and returns, treat it as continuous gaze on a single object: the one the
user focused on the most; ignore objects it only passed over.</li>
<li>Small or background objects can also be correct: watch the whole frame.</li>
</ul>
<h2>4. Logging</h2>
<ul>
<li>Enter your name first. Your progress is saved in this browser as you go; <em>Reset all</em> clears it.</li>
<li>When you are done, press <strong>Export CSV</strong> and send the downloaded file back (the same text
also appears at the bottom of the page). Open the file to check that your decisions are in it.</li>
</ul>
</section>
"""


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


def render_video_page(video: PageVideo) -> str:
    """The review page of one video (see the module docstring)."""
    cards = "".join(_fixation_card(k, f, video) for k, f in enumerate(video.fixations))
    if not cards:
        cards = '<p class="none">This video has no scene-consistent fixation: nothing to review.</p>'
    title = f"StreamGaze human verification: {video.video_id}"
    version = f", dataset {video.dataset_version}" if video.dataset_version else ""
    meta = (f"source {video.source or 'unknown'}{version} \u00b7 {len(video.fixations)} fixations \u00b7 "
            f"{_clock(video.duration)} of video")
    return page_head(title, _csp(), _CSS) + f"""<header>
<h1>{escape(title)}</h1>
<p class="meta">{escape(meta)} \u00b7 <a href="index.html">all videos</a></p>
</header>
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


def render_index(videos: Sequence[PageVideo], pages: Mapping[str, str], title: str = "") -> str:
    """The folder's index.html: a table of the video pages (``pages``: video_id -> file name)."""
    title = title or "StreamGaze human verification"
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
