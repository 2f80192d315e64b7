"""The leaderboard web app (Gradio): ``streamgaze leaderboard serve``, and the app a Space runs (:mod:`.space`).

Tabs:

* one leaderboard per benchmark: its declared columns (:func:`table_frame`), filters on gaze mode, prompt
  mode, params and frames, paper rows marked "reported in the paper" (never re-scored), sortable columns
  (click a header); one row per accepted submission of the results dataset, plus the paper's rows;
* **Submit**: upload a submission JSON; it is re-scored on the server at once (size and depth limits, the
  time bound: :func:`~.sync.rescore_file`) and, when valid and the app has a requests dataset, a pull
  request adding it is opened (its URL shown); the maintainer's sync merges it;
* **About**: the protocol and how to reproduce a row.

The results come from ``ORG/RESULTS`` on the Hub, a local directory of the same layout, or nothing (the
papers' rows only: the embedded default, which works offline). Every string a submission brings is shown as
text (table cells are plain strings; Markdown output goes through ``comment_text``). Gradio is the optional
``[leaderboard]`` extra: it is imported only here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ... import __version__
from ...registry import Benchmark, benchmarks
from ...util.errors import StreamGazeError
from ..rows import SOURCE_LABELS
from .results import data_path, local_results, paper_result_rows, read_results, result_row
from .untrusted import RESCORE_TIMEOUT_S, comment_text
from .uploads import upload_folder

__all__ = ["load_results", "table_frame", "filter_choices", "build_app", "serve", "submit_upload", "ABOUT"]

ABOUT = f"""\
### How rows are made

Every row marked *re-scored* comes from a submission file: every raw response of a model on every question
of a benchmark (from `streamgaze submit` over an `lmms-eval --log_samples` run), sent as a pull request to the
requests dataset. The maintainer's `streamgaze leaderboard sync` re-scores each file from its raw responses
with the benchmark's own parser and metrics against the dataset revision the file pins
(`hf://datasets/ORG/NAME@COMMIT`), rejects any reported score, parsed answer or dataset that differs, and
only then merges it; self-reported numbers are never used. Missing answers count as wrong (see Coverage).
Rows marked *reported in the paper* are copied from the benchmark's paper and never re-scored.

Scores are percentages here (fractions in the results dataset). Gaze, prompt mode, clip fps cap, frames and
params change numbers: compare rows only where they match, and only within one dataset (the Section column).

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

`streamgaze push-submission mine.json --requests ORG/REQUESTS` (or the Submit tab) opens the pull request.
"""


def load_results(results: str | os.PathLike[str] | None, token: str | None = None) -> dict[str, list[dict]]:
    """Accepted rows per benchmark: from a local directory, from ``ORG/RESULTS`` on the Hub (its configs'
    parquet files at ``main``), or none."""
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


def _columns(bench: Benchmark):
    return (bench.overall_column(), *bench.score_columns())


def _shown(col, value):
    """A score as the table shows it (numbers, so the columns sort): percent with one decimal for ratios."""
    if value is None:
        return None
    return round(100.0 * value, 1) if col.is_percent else round(float(value), col.digits)


def table_frame(bench: Benchmark, rows: Sequence[Mapping], *, gaze: Sequence[str] = (), prompt: Sequence[str] = (),
                params: str = "", frames: str = ""):
    """One benchmark's table (a pandas DataFrame): re-scored rows and paper rows, filtered, sorted by overall
    (in its direction) within each dataset section; scores in percent (ratios) or their unit."""
    import pandas as pd

    cols = _columns(bench)
    sign = -1.0 if bench.overall_column().higher_is_better else 1.0

    def keep(r: Mapping) -> bool:
        return ((not gaze or r["gaze"] in gaze) and (not prompt or r["prompt_mode"] in prompt)
                and params.strip().lower() in (r["model_params"] or "").lower()
                and frames.strip().lower() in (r["model_frames"] or "").lower())

    chosen = sorted((r for r in rows if keep(r)), key=lambda r: (
        r["reported"], r["section"], r["overall"] is None, sign * (r["overall"] or 0.0), r["model_name"]))
    records = []
    for r in chosen:
        source = SOURCE_LABELS[r["source"]] if r["reported"] else SOURCE_LABELS["submission"]
        rec = {"Model": r["model_name"], "Source": source}
        for c in cols:
            rec[c.label] = _shown(c, r["overall"] if c.key == "overall" else r.get(f"score_{c.key}"))
        rec["Coverage"] = None if r["coverage"] is None else round(100.0 * r["coverage"], 1)
        rec.update({"Gaze": r["gaze"], "Prompt": r["prompt_mode"], "Frames": r["model_frames"],
                    "Params": r["model_params"], "Section": r["section_title"], "Submitter": r["submitter"] or "",
                    "PR": "" if r["pr_number"] is None else f"#{r['pr_number']}"})
        records.append(rec)
    header = ["Model", "Source", *(c.label for c in cols), "Coverage", "Gaze", "Prompt", "Frames", "Params",
              "Section", "Submitter", "PR"]
    return pd.DataFrame.from_records(records, columns=header)


def filter_choices(rows: Sequence[Mapping]) -> dict[str, list[str]]:
    """The values the gaze and prompt-mode filters offer (those present)."""
    return {"gaze": sorted({r["gaze"] for r in rows if r["gaze"]}),
            "prompt": sorted({r["prompt_mode"] for r in rows if r["prompt_mode"]})}


def submit_upload(path: str | None, requests: str | None, choices: Mapping | None = None, *,
                  token: str | None = None, timeout_s: float = RESCORE_TIMEOUT_S) -> str:
    """The Submit tab's work: re-score the uploaded file on the server (against ``choices``, the app's
    datasets from :func:`~.sync.dataset_choices`; none: the revision the file pins) and, when it is valid and
    the app has a requests dataset, open the pull request. Returns the Markdown shown (user strings escaped)."""
    from ...registry import get_benchmark
    from ...submission.schema import submission_benchmark
    from .hub_push import open_pull_request
    from .sync import rescore_file, scored_table

    if not path:
        return "Choose a submission file (JSON from `streamgaze submit`) first."
    try:
        checked, against = rescore_file(Path(path), dict(choices or {}), timeout_s)
        sub = checked.submission
        bench = get_benchmark(submission_benchmark(sub))
        row = result_row(bench, sub, checked.scores, checked.section, submitter="", pr_number=0, path="upload.json",
                         dataset=against)
        text = (f"**Re-scored** on the server: {comment_text(sub['model']['name'])} on {comment_text(bench.title)} "
                f"dataset {comment_text(sub['dataset']['version'])}.\n\n{scored_table(bench, row)}\n\n")
        if not requests:
            return text + "This app has no requests dataset: send it with `streamgaze push-submission`."
        pushed = open_pull_request(requests, Path(path).read_bytes(), sub, token=token,
                                   how="through the leaderboard app")
        return text + (f"**Pull request opened**: {comment_text(pushed.url)} (file {comment_text(pushed.path)}). "
                       "The maintainer's sync re-scores it again and merges it.")
    except StreamGazeError as exc:
        return f"**Rejected**: {comment_text(exc.reason)}"


def build_app(results: str | os.PathLike[str] | None = None, requests: str | None = None,
              datasets: Sequence[str] = (), *, token: str | None = None):
    """The Gradio Blocks of the leaderboard (``demo.launch()`` serves it); uploads go to a folder of its own,
    removed when the app stops (:mod:`.uploads`)."""
    upload_folder()  # before Gradio is imported: it reads GRADIO_TEMP_DIR then
    import gradio as gr

    from .sync import dataset_choices

    rows = load_results(results, token)
    choices = dataset_choices(datasets) if datasets else {}  # resolved once, not per upload
    title = "Gaze benchmarks leaderboard"
    with gr.Blocks(title=title, analytics_enabled=False) as demo:
        gr.Markdown(f"# {title}\nRe-scored submissions and the papers' reported rows, one table per benchmark. "
                    "Click a column header to sort.")
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
                    table = gr.Dataframe(table_frame(bench, all_rows), interactive=False, wrap=True,
                                         elem_id=f"table-{bench.name}", max_height=800)

                    def update(g, p, pa, fr, _bench=bench, _rows=all_rows):
                        return table_frame(_bench, _rows, gaze=g or (), prompt=p or (), params=pa or "",
                                           frames=fr or "")

                    for control in (gaze, prompt, params, frames):
                        control.change(update, [gaze, prompt, params, frames], table)
            with gr.Tab("Submit", elem_id="tab-submit"):
                gr.Markdown("Upload a submission file (from `streamgaze submit`). It is re-scored here from its raw "
                            "responses" + (f"; when valid, a pull request adding it to `{requests}` is opened."
                                           if requests else "."))
                upload = gr.File(label="Submission JSON", file_types=[".json"], type="filepath",
                                 elem_id="submission-file")
                send = gr.Button("Re-score and submit", variant="primary", elem_id="submit-button")
                outcome = gr.Markdown(elem_id="submit-outcome")
                send.click(lambda p: submit_upload(p, requests, choices, token=token), upload, outcome)
            with gr.Tab("About", elem_id="tab-about"):
                gr.Markdown(ABOUT)
    return demo


def serve(results: str | None, requests: str | None, datasets: Sequence[str] = (), *, host: str = "127.0.0.1",
          port: int = 7860) -> None:
    """``streamgaze leaderboard serve``: build the app and serve it until interrupted."""
    upload_folder()
    try:
        import gradio  # noqa: F401
    except ImportError:
        raise StreamGazeError("the leaderboard app needs Gradio: pip install 'streamgaze-toolkit[leaderboard]'") from None
    import signal
    import sys

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # a stopped service cleans up too
    build_app(results, requests, datasets).launch(server_name=host, server_port=port, show_error=False)
