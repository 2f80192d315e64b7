"""The leaderboard web app (Gradio): ``streamgaze leaderboard serve``, and the app a Space runs (:mod:`.space`).

Tabs:

* one leaderboard per benchmark, as the static page shows it (:func:`tables_html`: the page's own table
  renderer): **one table per dataset section** (a demo dataset's rows are never ranked with the paper's),
  the settings under the model name, the summary columns with the rest behind an "All columns" button and
  empty columns left out (no sideways scrolling at 1280 px: :mod:`..fit`), headers on one line, scores in
  percent with one decimal and their standard error beside them (±), who submitted each row (its pull
  request linked), flags, partial runs marked and unranked, rows the leaderboard evaluated itself marked (a
  button shows only those); a click on a column header sorts its table. Filters: gaze mode, prompt mode,
  params, frames, and flagged rows (show, hide, only);
* **Submit**: sign in with the Hub first (Gradio OAuth: ``gr.LoginButton``; the Space's README sets
  ``hf_oauth: true``), then the quota is applied (:func:`quota_reason`: the sync's rule, before anything is
  sent). The upload is re-scored on the server in the bounded child (:mod:`.verdict`; any hostile file gets its
  one-line reason and the app keeps serving), against the datasets the app lists only (:mod:`.pinning`), and
  when valid a pull request is opened with the Space's token whose description names the signed-in user
  (``Submitted by @USER via the Space.``, :mod:`.identity`), whom the sync records as the submitter. The same
  tab asks the leaderboard to evaluate a model itself (:func:`request_evaluation`: the form of
  ``streamgaze request-eval``). Outside a Space, Gradio's sign-in is a stand-in: the button signs in the owner of ``HF_TOKEN``
  (tests set the signed-in user with a session cookie, tests/fixtures/gradio_session.py);
* **About**: the protocol and how to reproduce a row.

The results come from ``ORG/RESULTS`` on the Hub, a local directory of the same layout, or nothing (the
papers' rows only: the embedded default, which works offline). Every string a submission brings is escaped
(HTML, and the template characters ``$ { }`` of Gradio's HTML component). Gradio is the optional
``[leaderboard]`` extra: it is imported only here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ... import __version__
from ...registry import Benchmark, benchmarks
from ...util.errors import StreamGazeError
from ..page import SORT_JS, TABLE_CSS, evaluated_only_button, render_table
from .quota import DEFAULT_QUOTA
from .results import data_path, local_results, paper_result_rows, read_results, results_sections
from .untrusted import RESCORE_TIMEOUT_S, comment_text
from .uploads import upload_folder

__all__ = ["load_results", "tables_html", "filter_choices", "build_app", "serve", "submit_upload", "ABOUT",
           "FLAG_FILTERS", "request_evaluation", "quota_reason", "theme"]

#: the flagged-rows filter's choices
FLAG_FILTERS = ("show flagged", "hide flagged", "only flagged")

ABOUT = f"""\
### How rows are made

Every row marked *re-scored* comes from a submission file: every raw response of a model on every question
of a benchmark (from `streamgaze submit` over an `lmms-eval --log_samples` run), sent as a pull request to the
requests dataset. The maintainer's `streamgaze leaderboard sync` re-scores each file from its raw responses
with the benchmark's own parser and metrics, only against a dataset commit the maintainer listed, rejects any
reported score, parsed answer or dataset that differs, and commits the exact bytes it re-scored; self-reported
numbers are never used. Missing answers count as wrong (see Coverage). Rows marked *reported in the paper*
are copied from the benchmark's paper and never re-scored. A row says who submitted it (the pull request's
author, or the user signed in here) and links the pull request and its *traces* (every per-sample response,
parsed answer and score it was re-scored from; for a row the leaderboard evaluated itself, also the digest of the
model-ready frames of each question); a *flagged* row links the discussion about it.

Scores are percentages here (fractions in the results dataset), ± their standard error. Gaze, prompt mode,
clip fps cap, frames and params change numbers: compare rows only where they match, and only within one
table (one dataset).

### Reproduce a row

```bash
# streamgaze-toolkit is not on a package index: its wheel is in this Space's files (or clone its repository)
pip install "./streamgaze_toolkit-{__version__}-py3-none-any.whl[eval]"
# the file of the row: submission_path in the results dataset, in the requests dataset
hf download ORG/REQUESTS SUBMISSION_PATH --repo-type dataset --local-dir sub
streamgaze validate sub/SUBMISSION_PATH --dataset hf://datasets/DATASET_REPO@DATASET_COMMIT
# or run the model yourself and compare
streamgaze eval --root hf://datasets/DATASET_REPO@DATASET_COMMIT -- --model MODEL --tasks BENCHMARK --log_samples \\
    --output_path runs/mine
streamgaze submit runs/mine --dataset hf://datasets/DATASET_REPO@DATASET_COMMIT --model-name NAME --out mine.json
streamgaze compare sub/SUBMISSION_PATH mine.json --dataset hf://datasets/DATASET_REPO@DATASET_COMMIT
```

### Submit

`streamgaze push-submission mine.json --requests ORG/REQUESTS` (or the Submit tab, signed in) opens the pull
request.
"""

#: the app's own additions to the tables' style: the tables fill the tab's width (headers stay on one line, as on
#: the page: the columns that do not fit are behind the "All columns" button, leaderboard/fit.py)
_APP_CSS = """
.wrap{overflow-x:auto;max-width:100%}
table.leaderboard{width:100%}
section.dataset h2{font-size:1.05rem;margin:1rem 0 .2rem}
"""


def theme():
    """Gradio's default theme with a whole face for every weight its text uses. The default loads Source Sans Pro at
    400 and 600 only, so the browser faked the bold (700) of headings and of the tables' Overall; and the 600 file
    Gradio ships (``SourceSansPro-SemiBold.woff2``) is a subset of 55 glyphs, so text at 600 (the tables' headers,
    labels) mixed its few glyphs with another font's. Here 600 and 700 are both drawn from Gradio's complete Bold
    file; the mono font is one Gradio ships (Source Code Pro; the default names IBM Plex Mono, which it does not)."""
    import gradio as gr

    class WholeFaces(gr.themes.LocalFont):
        def stylesheet(self) -> dict:
            sheet = super().stylesheet()
            return {**sheet, "css": sheet["css"].replace("SourceSansPro-SemiBold.woff2", "SourceSansPro-Bold.woff2")}

    return gr.themes.Default(
        font=(WholeFaces("Source Sans Pro", weights=(400, 600, 700)), "ui-sans-serif", "system-ui", "sans-serif"),
        font_mono=(gr.themes.LocalFont("Source Code Pro", weights=(400, 600)), "ui-monospace", "Consolas",
                   "monospace"))


def load_results(results: str | os.PathLike[str] | None, token: str | None = None) -> dict[str, list[dict]]:
    """Accepted rows per benchmark (their flags set): from a local directory, from ``ORG/RESULTS`` on the Hub
    (its configs' parquet files at ``main``), or none."""
    if results is None:
        return {}
    if Path(results).is_dir():
        return local_results(results)
    from huggingface_hub import HfApi, hf_hub_download

    from .hub_push import hub_error

    try:
        present = set(HfApi(token=token).list_repo_files(str(results), repo_type="dataset"))
        files = {}
        for bench in benchmarks():
            path = data_path(bench.name)
            if path in present:
                files[path] = Path(hf_hub_download(str(results), path, repo_type="dataset", token=token))
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"reading the results dataset {results}") from None
    return read_results(files)


def _template_safe(html: str) -> str:
    """HTML for Gradio's HTML component, whose value passes through a template engine: ``$``, ``{`` and ``}``
    as character references (our markup has none; user text is already HTML-escaped)."""
    return html.replace("$", "&#36;").replace("{", "&#123;").replace("}", "&#125;")


def _keep(r: Mapping, gaze: Sequence[str], prompt: Sequence[str], params: str, frames: str, flagged: str) -> bool:
    is_flagged = bool(r.get("flag_reason"))
    return ((not gaze or r["gaze"] in gaze) and (not prompt or r["prompt_mode"] in prompt)
            and params.strip().lower() in (r["model_params"] or "").lower()
            and frames.strip().lower() in (r["model_frames"] or "").lower()
            and not (flagged == FLAG_FILTERS[1] and is_flagged) and not (flagged == FLAG_FILTERS[2] and not is_flagged))


def tables_html(bench: Benchmark, rows: Sequence[Mapping], *, gaze: Sequence[str] = (), prompt: Sequence[str] = (),
                params: str = "", frames: str = "", flagged: str = FLAG_FILTERS[0]) -> str:
    """One benchmark's tables: its rows (results rows and paper rows) filtered, one table per dataset section,
    each ranked on its own (the page's renderer, with standard errors, its "All columns" and "Only rows evaluated by
    the leaderboard" buttons)."""
    chosen = [r for r in rows if _keep(r, gaze, prompt, params, frames, flagged)]
    mine = [r for r in chosen if not r["reported"]]
    paper = [r for r in chosen if r["reported"]]
    sections = [s for s in results_sections({bench.name: mine}, {bench.name: paper}) if s.benchmark == bench.name]
    if not sections:
        return '<p class="note">No rows match these filters.</p>'
    return _template_safe(evaluated_only_button(sections) + "\n".join(
        render_table(f"{bench.name}-{i}", sec, stderr=True) for i, sec in enumerate(sections)))


def filter_choices(rows: Sequence[Mapping]) -> dict[str, list[str]]:
    """The values the gaze and prompt-mode filters offer (those present)."""
    return {"gaze": sorted({r["gaze"] for r in rows if r["gaze"]}),
            "prompt": sorted({r["prompt_mode"] for r in rows if r["prompt_mode"]})}


SIGN_IN_FIRST = ("**Sign in** with Hugging Face (the button above) to submit: the pull request names you as its "
                 "submitter.")


def quota_reason(requests: str, rows: Mapping[str, Sequence[Mapping]], user: str, *, token: str | None = None,
                 quota: int = DEFAULT_QUOTA, maintainers: Sequence[str] = (), now=None) -> str | None:
    """The sync's quota (:func:`~.quota.over_quota`) for the signed-in ``user`` before the app sends anything: their
    accepted rows opened in the last 7 days, their open pull requests (theirs, or the Space's naming them) and their
    evaluation requests still waiting or running (the queue); None when they may submit (maintainers always)."""
    from datetime import datetime, timezone

    from .eval_queue import QueueRepo
    from .hub_push import hub_api
    from .identity import description_of, submitter_of
    from .quota import over_quota, parse_time

    if user in maintainers:
        return None
    now = now or datetime.now(timezone.utc)
    times = [parse_time(r.get("created_at")) for rs in rows.values() for r in rs if r.get("submitter") == user]
    api = hub_api(token)
    me = api.whoami()["name"]
    for d in api.get_repo_discussions(requests, discussion_type="pull_request", discussion_status="open",
                                      repo_type="dataset"):
        if d.author == me and d.author != user:
            details = api.get_discussion_details(requests, d.num, repo_type="dataset")
            try:
                who = submitter_of(d.author, description_of(details), {me})
            except StreamGazeError:
                continue
        else:
            who = d.author
        if who == user:
            times.append(parse_time(d.created_at))
    import tempfile

    with tempfile.TemporaryDirectory(prefix="streamgaze-app-queue-") as tmp:
        queued = QueueRepo(api, requests, Path(tmp)).read().records
    times += [parse_time(q.created_at) for q in queued.values() if q.submitter == user and q.status in
              ("PENDING", "RUNNING")]
    return over_quota(user, [t for t in times if t is not None], now, quota)


def submit_upload(path: str | None, requests: str | None, listed: Mapping | None = None, *,
                  user: str | None = None, token: str | None = None, timeout_s: float = RESCORE_TIMEOUT_S,
                  rows: Mapping[str, Sequence[Mapping]] | None = None, quota: int = DEFAULT_QUOTA) -> str:
    """The Submit tab's work: refuse when nobody is signed in (with a requests dataset) or the signed-in user is over
    the quota (:func:`quota_reason`), re-score the uploaded file in the bounded child against the app's listed
    datasets (:func:`~.pinning.listed_datasets`), and, when it is valid, the app has a requests dataset and the sync's
    checks of a re-scored file pass over the rows the app shows (:func:`~.acceptance.upload_refusal`: the model name
    is not another submitter's, the run is not an accepted row's), open the pull request for the signed-in ``user``.
    Returns the Markdown shown (user strings escaped); never raises for a
    bad file."""
    from .acceptance import upload_refusal
    from .claims import Claims
    from .comments import scored_table
    from .hub_push import open_pull_request
    from .verdict import verdict

    if requests and not user:
        return SIGN_IN_FIRST
    if requests and user:
        try:
            over = quota_reason(requests, rows or {}, user, token=token, quota=quota)
        except Exception as exc:  # noqa: BLE001 - the Hub: nothing is sent
            return f"**Not sent**: the quota could not be checked now ({comment_text(type(exc).__name__)}); try again"
        if over:
            return f"**Not sent**: {comment_text(over)}"
    if not path:
        return "Choose a submission file (JSON from `streamgaze submit`) first."
    if not listed:
        return ("**Rejected**: this app lists no dataset to score against (start it with --dataset "
                "hf://datasets/ORG/NAME@TAG)")
    try:
        v = verdict(Path(path), listed, timeout_s=timeout_s)
        row, bench = v.row, v.benchmark
        text = (f"**Re-scored** on the server: {comment_text(row['model_name'])} on {comment_text(bench.title)} "
                f"dataset {comment_text(row['dataset_version'])}.\n\n{scored_table(bench, row)}\n\n")
        if not requests:
            return text + "This app has no requests dataset: send it with `streamgaze push-submission`."
        refused = upload_refusal(Claims.of_rows((rows or {}).get(bench.name, ())), user, v)
        if refused:
            return text + f"**Not sent**: {comment_text(refused)}"
        pushed = open_pull_request(requests, Path(path).read_bytes(), _sub_header(row, bench), token=token,
                                   submitter=user, how="through the leaderboard app")
        return text + (f"**Pull request opened** for @{comment_text(user)}: {comment_text(pushed.url)} (file "
                       f"{comment_text(pushed.path)}). The maintainer's sync re-scores it again and accepts or refuses "
                       "it, with its reason, in a comment on the pull request.")
    except StreamGazeError as exc:
        return f"**Rejected**: {comment_text(exc.reason)}"
    except Exception as exc:  # noqa: BLE001 - whatever happens, the app answers in one line and keeps serving
        return f"**Rejected**: could not be handled: {comment_text(type(exc).__name__)}"


def request_evaluation(requests: str | None, user: str | None, *, model_id: str, revision: str, lmms_model: str,
                       dataset: str, model_args: str = "", gaze: str | None = None, prompt_mode: str = "default",
                       token: str | None = None, rows: Mapping[str, Sequence[Mapping]] | None = None,
                       quota: int = DEFAULT_QUOTA) -> str:
    """The Submit tab's evaluation request (``streamgaze request-eval``'s form) for the signed-in ``user``: the quota,
    then :func:`~.eval_requests.open_request` with the Space's token naming the user. Returns the Markdown shown."""
    from .eval_requests import open_request

    if not requests:
        return "This app has no requests dataset: ask with `streamgaze request-eval`."
    if not user:
        return SIGN_IN_FIRST
    try:
        over = quota_reason(requests, rows or {}, user, token=token, quota=quota)
        if over:
            return f"**Not sent**: {comment_text(over)}"
        pushed = open_request(requests, model_id=(model_id or "").strip(), revision=(revision or "main").strip(),
                              lmms_model=(lmms_model or "").strip(), dataset=dataset, model_args=(model_args or "").strip(),
                              gaze=gaze or None, prompt_mode=prompt_mode or "default", token=token, submitter=user)
    except StreamGazeError as exc:
        return f"**Not sent**: {comment_text(exc.reason)}"
    except Exception as exc:  # noqa: BLE001 - the app answers in one line and keeps serving
        return f"**Not sent**: could not be handled: {comment_text(type(exc).__name__)}"
    m = pushed.request["model"]
    return (f"**Evaluation requested** for @{comment_text(user)}: {comment_text(pushed.url)} ({comment_text(m['id'])} "
            f"at commit {comment_text(m['revision'][:12])}). The maintainer's sync checks it as a submission and, when "
            "it accepts it, queues it (PENDING) and runs it as a Hub Job within the leaderboard's GPU-hour budget; "
            "each step is a comment on the pull request.")


def _sub_header(row: Mapping, bench: Benchmark) -> dict:
    """What :func:`~.hub_push.open_pull_request` needs of a submission (its benchmark and model name), from the
    re-scored row."""
    return {"benchmark": bench.name, "model": {"name": row["model_name"]}}


def build_app(results: str | os.PathLike[str] | None = None, requests: str | None = None,
              datasets: Sequence[str] = (), *, token: str | None = None):
    """The Gradio Blocks of the leaderboard (``demo.launch(theme=theme())`` serves it: the theme is an argument of launch() since Gradio 6); uploads go to a folder of its own,
    removed when the app stops (:mod:`.uploads`)."""
    upload_folder()  # before Gradio is imported: it reads GRADIO_TEMP_DIR then
    import gradio as gr

    from .bounded import use_forkserver
    from .pinning import listed_datasets

    rows = load_results(results, token)
    listed = listed_datasets(datasets) if datasets else {}  # resolved once, not per upload
    use_forkserver()  # the server has threads: the re-scoring child starts from a fork server
    title = "Gaze benchmarks leaderboard"
    with gr.Blocks(title=title, analytics_enabled=False) as demo:  # the theme is launch()'s (Gradio 6)
        gr.Markdown(f"# {title}\nRe-scored submissions and the papers' reported rows: one table per dataset, each "
                    "ranked on its own. Click a column header to sort its table.")
        with gr.Tabs():
            for bench in benchmarks():
                all_rows = [*rows.get(bench.name, []), *paper_result_rows(bench)]
                offered = filter_choices(all_rows)
                with gr.Tab(bench.title, elem_id=f"tab-{bench.name}"):
                    with gr.Row():
                        gaze = gr.CheckboxGroup(offered["gaze"], label="Gaze mode")
                        prompt = gr.CheckboxGroup(offered["prompt"], label="Prompt mode")
                        params = gr.Textbox(label="Params contains", placeholder="e.g. 7B")
                        frames = gr.Textbox(label="Frames contains", placeholder="e.g. 32")
                        flagged = gr.Radio(list(FLAG_FILTERS), value=FLAG_FILTERS[0], label="Flagged rows",
                                           elem_id=f"flagged-{bench.name}")
                    table = gr.HTML(tables_html(bench, all_rows), elem_id=f"table-{bench.name}",
                                    css_template=TABLE_CSS + _APP_CSS, js_on_load=f"({SORT_JS.strip()})(element);")

                    def update(g, p, pa, fr, fl, _bench=bench, _rows=all_rows):
                        return tables_html(_bench, _rows, gaze=g or (), prompt=p or (), params=pa or "",
                                           frames=fr or "", flagged=fl or FLAG_FILTERS[0])

                    controls = [gaze, prompt, params, frames, flagged]
                    for control in controls:
                        control.change(update, controls, table)
            with gr.Tab("Submit", elem_id="tab-submit"):
                gr.Markdown("Upload a submission file (from `streamgaze submit`). It is re-scored here from its raw "
                            "responses" + (f"; when valid, a pull request adding it to `{requests}` is opened in "
                                           "your name: sign in with Hugging Face first." if requests else "."))
                if requests:
                    gr.LoginButton(elem_id="login-button")
                upload = gr.File(label="Submission JSON", file_types=[".json"], type="filepath",
                                 elem_id="submission-file")
                send = gr.Button("Re-score and submit", variant="primary", elem_id="submit-button")
                outcome = gr.Markdown(elem_id="submit-outcome")

                def on_submit(path, profile=None):
                    return submit_upload(path, requests, listed, user=getattr(profile, "username", None), token=token,
                                         rows=rows)

                on_submit.__annotations__ = {"path": str | None, "profile": gr.OAuthProfile | None}
                send.click(on_submit, upload, outcome)
                if requests:
                    _request_form(gr, requests, datasets, rows, token)
            with gr.Tab("About", elem_id="tab-about"):
                gr.Markdown(ABOUT)
    return demo


def _request_form(gr, requests: str, datasets: Sequence[str], rows, token: str | None) -> None:
    """The Submit tab's "Evaluated by the leaderboard" form: ``streamgaze request-eval``'s fields."""
    gr.Markdown("### Or ask the leaderboard to run a model itself\nThe model repository is pinned to the commit its "
                "revision is now; the leaderboard runs `streamgaze eval` with lmms-eval's model on the dataset, as a "
                "Hub Job, and marks the row \"evaluated by the leaderboard\".")
    with gr.Row():
        model = gr.Textbox(label="Model repository (ORG/MODEL)", elem_id="request-model")
        revision = gr.Textbox(value="main", label="Revision (branch, tag or commit)", elem_id="request-revision")
        lmms = gr.Textbox(label="lmms-eval model id", placeholder="e.g. qwen2_5_vl", elem_id="request-lmms")
    with gr.Row():
        args = gr.Textbox(label="model_args (no pretrained, no keys)", placeholder="e.g. max_num_frames=32",
                          elem_id="request-args")
        dataset = gr.Dropdown(list(datasets), value=(list(datasets) or [None])[0], label="Dataset",
                              elem_id="request-dataset")
        gaze = gr.Textbox(label="Gaze mode (empty: the benchmark's default)", elem_id="request-gaze")
    ask = gr.Button("Request an evaluation", elem_id="request-button")
    said = gr.Markdown(elem_id="request-outcome")

    def on_request(m, rv, lm, ar, ds, gz, profile=None):
        return request_evaluation(requests, getattr(profile, "username", None), model_id=m, revision=rv, lmms_model=lm,
                                  dataset=ds, model_args=ar, gaze=gz, token=token, rows=rows)

    on_request.__annotations__ = {"m": str, "rv": str, "lm": str, "ar": str, "ds": str | None, "gz": str,
                                  "profile": gr.OAuthProfile | None}
    ask.click(on_request, [model, revision, lmms, args, dataset, gaze], said)


def serve(results: str | None, requests: str | None, datasets: Sequence[str] = (), *, host: str = "127.0.0.1",
          port: int = 7860) -> None:
    """``streamgaze leaderboard serve``: build the app and serve it until interrupted."""
    upload_folder()
    try:
        import gradio  # noqa: F401
    except ImportError:
        raise StreamGazeError("the leaderboard app needs Gradio: pip install 'streamgaze-toolkit[leaderboard]'") from None
    if requests:
        from huggingface_hub import get_token

        if get_token() is None:
            raise StreamGazeError(f"the Submit tab opens pull requests on {requests} with the app's token: set HF_TOKEN "
                                  "(on a Space: its secret)")
    import signal
    import sys

    def stop(signum, _frame):
        print(f"streamgaze leaderboard serve: stopped ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
        sys.exit(128 + signum)

    # Ctrl-C and SIGTERM end the app the same way, a SystemExit in the main thread (the upload folder is removed at
    # exit): Gradio's own Ctrl-C path sometimes never returned in the e2e runs, and a SIGINT ignored by the parent
    # process (a job control or test runner's choice) would otherwise stay ignored
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop)
    import warnings

    # Gradio's own launch lines: its hint to set share=True (this command cannot), and its OAuth warning, given
    # twice; one line of ours says each instead
    warnings.filterwarnings("ignore", message="Gradio does not support OAuth features outside of a Space")
    app = build_app(results, requests, datasets)
    from gradio.utils import get_space

    if requests and not get_space():
        print("streamgaze leaderboard serve: outside a Space, \"Sign in with Hugging Face\" is Gradio's stand-in: it "
              "signs in the owner of HF_TOKEN", file=sys.stderr, flush=True)
    print(f"streamgaze leaderboard serve: http://{host}:{port} (Ctrl-C stops it)", file=sys.stderr, flush=True)
    app.launch(server_name=host, server_port=port, show_error=False, quiet=True, theme=theme())
