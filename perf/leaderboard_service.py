"""The leaderboard service's costs (issue 31): re-scoring a full-size submission in the sync and in the app,
and the app's leaderboard tab with 100 rows. Acceptance: each re-score under 10 s and 1 GiB on 2 cores (a
free Space has 2 vCPUs), the 100-row tab under 2 s.

    python perf/leaderboard_service.py [--runs 3] [--scale 1.0] [--work DIR]

Builds (once per ``--work``) a StreamGaze dataset of the release's shape without media: 8,521 questions in
the release's task counts over 285 synthetic videos (perf/full_benchmark.py's question generator, each
question with its window's fixations), proactive questions holding 23,821 checkpoints in all, and the video
files as placeholders (re-scoring never reads media). Then a submission answering every question and
checkpoint (responses of a few words, as models give them), and, each timed ``--runs`` times (median), pinned
to 2 cores (``os.sched_setaffinity``), each run in a fresh process (its peak RSS and its children's):

* ``baseline``: ``validate_submission`` in the process (the plain local ``streamgaze validate``);
* ``sync``: the sync's re-score of a pull request's file (``verdict.verdict``: the bounded child reads it under
  the size, depth and number limits and re-scores it under the time and memory bounds), with the child's peak
  RSS;
* ``app``: the Submit tab's handler (``app.submit_upload``, no requests dataset: the re-score and its table);
* ``tab``: the app's leaderboard tab for 100 results rows: the tables rendered (``app.tables_html``, the
  page's renderer, one table per dataset).

Prints each median, the service/baseline ratios, and exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RESCORE_LIMIT_S = 10.0
RSS_LIMIT_MIB = 1024.0
TAB_LIMIT_S = 2.0
CHECKPOINTS = 23821


def _full_benchmark():
    spec = importlib.util.spec_from_file_location("perf_full", Path(__file__).with_name("full_benchmark.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_dataset(work: Path, scale: float, seed: int = 0) -> Path:
    """The media-less dataset of the release's shape (reused when ``work`` already holds it)."""
    from streamgaze_hf.dataset.writer import DatasetContent, write_dataset
    from streamgaze_hf.registry import get_benchmark

    root = work / "streamgaze"
    if (root / "manifest.json").is_file():
        return root
    fb = _full_benchmark()
    rng = np.random.default_rng(seed)
    n_videos, counts = fb.scaled_counts(scale)
    durs = fb.durations(n_videos, fb.RELEASE_HOURS * 3600 * scale, rng)
    placeholder = work / "placeholder.mp4"
    placeholder.parent.mkdir(parents=True, exist_ok=True)
    placeholder.write_bytes(b"not a video: re-scoring never reads media\n")
    content = DatasetContent(qa={}, videos=[], gaze=[], fixations=[], files={})
    videos = {}
    for k, dur in enumerate(durs):
        vid = f"v{k:03d}"
        fstart = np.arange(0.0, dur - 0.5, fb.FIXATION_PERIOD_S)
        videos[vid] = {"dur": dur, "fstart": fstart, "fx": np.full(len(fstart), 0.5), "fy": np.full(len(fstart), 0.5)}
        content.videos.append({"video_id": vid, "source": "synthetic", "video_path": f"videos/original/{vid}.mp4",
                               "overlay_path": f"videos/overlay/{vid}.mp4", "fps": 4.0, "width": 96, "height": 64,
                               "n_frames": int(dur * 4), "duration": float(dur), "hfov_deg": 90.0})
        content.files[f"videos/original/{vid}.mp4"] = placeholder
        content.files[f"videos/overlay/{vid}.mp4"] = placeholder
    qa = fb._qa_rows(videos, counts, rng)
    # the release's 23,821 checkpoints over its proactive questions (10 or 11 each, 5 s apart)
    proactive = [r for t in ("gta", "oaa") for r in qa[t]]
    target = round(CHECKPOINTS * scale)
    base, extra = divmod(target, len(proactive))
    for i, row in enumerate(proactive):
        n = base + (i < extra)
        q = row["query_time"]
        row["checkpoints"] = [{"time": q + 5.0 * (j + 1), "label": "Yes" if rng.random() < 0.3 else "No"}
                              for j in range(n)]
        row["window_end"] = we = row["checkpoints"][-1]["time"]
        v = videos[row["video_id"]]
        sel = v["fstart"] + 0.4 <= we
        row["fixations"] = [{"start": float(f), "end": float(f + 0.4), "x": 0.5, "y": 0.5} for f in v["fstart"][sel]]
    content.qa = qa
    write_dataset(root, content, "1.0.0", {"benchmark": "perf/leaderboard_service.py"}, force=True, progress=False,
                  benchmark=get_benchmark("streamgaze"))
    return root


def build_submission(root: Path, out: Path) -> tuple[Path, dict]:
    from streamgaze_hf.submission.answer_key import load_answer_key
    from streamgaze_hf.submission.build import assemble_submission, write_submission

    key = load_answer_key(root)
    rng = np.random.default_rng(1)
    responses = {}
    for docs in key.docs.values():
        for item, doc in docs.items():
            if doc["checkpoint_index"] >= 0:
                responses[item] = "Yes, it is visible now." if rng.random() < 0.4 else "No."
            else:
                responses[item] = f"The answer is {'ABCD'[int(rng.integers(4))]}."
    sub = assemble_submission(key, responses, prompt_mode="default", clip_fps=0.0,
                              model={"name": "Perf model", "url": "", "params": "7B", "frames": "32"},
                              run={"harness": "lmms-eval", "harness_version": "perf", "model": "perf",
                                   "model_args": "", "date": "", "limit": None})
    write_submission(sub, out)
    n_cp = sum(1 for docs in key.docs.values() for d in docs.values() if d["checkpoint_index"] >= 0)
    n_q = sum(len({d["question_id"] for d in docs.values()}) for docs in key.docs.values())
    return out, {"questions": n_q, "checkpoint_answers": n_cp, "bytes": out.stat().st_size}


def step(name: str, work: Path) -> dict:
    """One measurement in this (fresh) process: the step's seconds, and the peak RSS of this process and its
    children (the re-scoring child), MiB."""
    import resource

    root, sub = work / "streamgaze", work / "submission.json"
    if name == "baseline":
        from streamgaze_hf.submission.validate import validate_submission

        run = lambda: validate_submission(sub, root)  # noqa: E731
    elif name == "sync":
        from streamgaze_hf.leaderboard.service.pinning import local_listed
        from streamgaze_hf.leaderboard.service.verdict import verdict

        choices = local_listed([str(root)])  # once per sync
        run = lambda: verdict(sub, choices, timeout_s=120.0)  # noqa: E731
    else:
        from streamgaze_hf.leaderboard.service.app import submit_upload
        from streamgaze_hf.leaderboard.service.pinning import local_listed

        choices = local_listed([str(root)])  # once per app

        def run():
            text = submit_upload(str(sub), None, choices)
            assert text.startswith("**Re-scored**"), text
    t0 = time.perf_counter()
    run()
    seconds = time.perf_counter() - t0
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {"seconds": seconds, "rss_mib": rss / 1024.0}


def measured(name: str, work: Path, runs: int) -> tuple[float, float]:
    """(median seconds, largest peak RSS MiB) of ``runs`` fresh processes running the step on 2 cores."""
    import subprocess

    out = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, __file__, "--step", name, "--work", str(work)], capture_output=True,
                              text=True, check=True)
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(r["seconds"] for r in out), max(r["rss_mib"] for r in out)


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def results_rows(n: int) -> list[dict]:
    """``n`` results rows of StreamGaze (varied scores and settings)."""
    from streamgaze_hf.leaderboard.service.results import paper_result_rows
    from streamgaze_hf.registry import get_benchmark

    bench = get_benchmark("streamgaze")
    template = paper_result_rows(bench)[1]
    rng = np.random.default_rng(2)
    rows = []
    for i in range(n):
        row = dict(template)
        row.update(model_name=f"Model {i}", source="submission", reported=False, submitter=f"user{i}", pr_number=i + 1,
                   gaze=("visual", "none", "text")[i % 3], prompt_mode=("default", "reference")[i % 2],
                   model_params=f"{1 + i % 70}B", model_frames=str(8 * (1 + i % 8)), coverage=1.0,
                   section="full-release", overall=float(rng.random()))
        row.update({k: float(rng.random()) for k in row if k.startswith(("score_", "task_"))})
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="dataset size relative to the release (default 1)")
    ap.add_argument("--work", default=None, help="keep the dataset here (reused by later runs)")
    ap.add_argument("--json", default=None, help="write the numbers as JSON")
    ap.add_argument("--step", default=None, choices=["baseline", "sync", "app"], help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])  # 2 cores, as a free Space
    if a.step:
        print(json.dumps(step(a.step, Path(a.work))))
        return 0
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="perf-leaderboard-"))
    t0 = time.perf_counter()
    root = build_dataset(work, a.scale)
    sub, shape = build_submission(root, work / "submission.json")
    print(f"dataset and submission: {time.perf_counter() - t0:.1f} s; {shape['questions']:,} questions, "
          f"{shape['checkpoint_answers']:,} checkpoint answers, {shape['bytes'] / 2**20:.1f} MiB file, "
          f"cores {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}")

    base, base_rss = measured("baseline", work, a.runs)
    sync_s, sync_rss = measured("sync", work, a.runs)
    app_s, app_rss = measured("app", work, a.runs)
    rss = max(sync_rss, app_rss)

    from streamgaze_hf.leaderboard.service.app import tables_html
    from streamgaze_hf.registry import get_benchmark

    rows = results_rows(100)
    bench = get_benchmark("streamgaze")
    tab_s = timed(lambda: tables_html(bench, rows), a.runs)
    numbers = {**shape, "baseline_validate_s": base, "sync_rescore_s": sync_s, "app_rescore_s": app_s,
               "peak_rss_mib": rss, "baseline_rss_mib": base_rss, "tab_100_rows_s": tab_s, "sync_over_baseline": sync_s / base,
               "app_over_baseline": app_s / base}
    print(f"baseline (validate, in a fresh process): {base:.2f} s, peak RSS {base_rss:.0f} MiB")
    print(f"sync re-score (limits + bounded child): {sync_s:.2f} s ({sync_s / base:.2f}x baseline), "
          f"peak RSS {sync_rss:.0f} MiB")
    print(f"app Submit re-score: {app_s:.2f} s ({app_s / base:.2f}x baseline), peak RSS {app_rss:.0f} MiB")
    print(f"app leaderboard tab, 100 rows: {tab_s * 1000:.0f} ms")
    if a.json:
        Path(a.json).write_text(json.dumps(numbers, indent=1) + "\n")
    missed = [name for name, ok in (("sync re-score", sync_s < RESCORE_LIMIT_S), ("app re-score", app_s < RESCORE_LIMIT_S),
                                    ("memory", rss < RSS_LIMIT_MIB), ("100-row tab", tab_s < TAB_LIMIT_S)) if not ok]
    if missed:
        print(f"missed: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
