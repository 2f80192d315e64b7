"""The whole benchmark's cost: a synthetic dataset the size of the real one, warmed and evaluated.

    python perf/full_benchmark.py [--scale 1.0] [--work DIR] [--fps 4] [--size 96x64]
                                        [--gaze-hz 30] [--workers 2] [--keep] [--json OUT]

Builds a StreamGaze dataset with the real release's shape (``--scale 1``): 285 videos adding up to
64 hours and 8,521 questions in the paper's task proportions (the eight multiple-choice tasks with the
per-task counts of the release, reference Appendix A; the 2,196 proactive questions split evenly
between GTA and OAA, each with 4-12 checkpoints), a 30 Hz gaze track per video, fixations every
0.6 s and, in every question, the fixations of its window (as the real build stores them). Videos
are small (``--size``, ``--fps``) so that the run measures the harness, not the codec: keyframes
every second as our build writes them, gaze overlays rendered by the real renderer.

Then, each step in its own process (wall time and the peak RSS of its largest process):

1. ``write``  the dataset through the shared writer (validation, parquet, card, manifest);
2. ``warm``   ``streamgaze clips warm ROOT`` (every clip of the default variant, resumable);
3. ``eval``   ``streamgaze eval -- --model streamgaze_random --tasks streamgaze`` through lmms-eval,
              with the cache warm; the baseline asks for every document's clip (``check_visuals``)
              as a model wrapper would, so this is the harness's per-question cost on the critical path;
4. ``startup`` the same evaluation with ``--limit 1``: lmms-eval's fixed start-up cost, subtracted
              from ``eval`` for the time per question;

and reports the cache's bytes, time per question, and checks lmms-eval's results file: every task
scored over exactly the dataset's questions. Memory should not grow with the dataset: run with
``--scale 0.1`` and ``--scale 1`` and compare the peaks. Not part of CI (about 40 min at scale 1 on
the 2-core development machine); ``make perf`` does not run it either.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from streamgaze_hf.benchmarks.streamgaze.tasks import PRESENT_WINDOW_S, TASK_IDS, get_task, window

#: questions per task of the official release (reference Appendix A; proactive split evenly)
RELEASE_COUNTS = {"nfi": 638, "otp": 494, "sr": 211, "gsm": 186, "oi_easy": 1469, "oi_hard": 1005,
                  "oar": 1401, "fap": 921, "gta": 1098, "oaa": 1098}
RELEASE_VIDEOS = 285
RELEASE_HOURS = 64.0
FIXATION_PERIOD_S = 0.6
OBJECTS = ("cup", "plate", "knife", "jar", "bowl", "pan", "spoon", "bottle", "towel", "kettle")


def scaled_counts(scale: float) -> tuple[int, dict[str, int]]:
    n_videos = max(2, round(RELEASE_VIDEOS * scale))
    return n_videos, {t: max(1, round(c * scale)) for t, c in RELEASE_COUNTS.items()}


def durations(n_videos: int, total_s: float, rng: np.random.Generator) -> list[int]:
    """Integer durations (>= 120 s) adding up to ``total_s`` within a second per video."""
    raw = rng.uniform(0.3, 1.7, n_videos)
    d = np.maximum(120, np.round(raw / raw.sum() * total_s)).astype(int)
    return [int(v) for v in d]


# ------------------------------------------------------------------------------------------ videos + gaze


def _make_video(args: tuple[int, str, int, float, int, int, float, str]) -> dict:
    """One video, its gaze track (30 Hz random walk), its overlay; returns its rows as columns."""
    from streamgaze_hf.gaze.overlay import render_overlay
    from streamgaze_hf.gaze.track import GazeTrack
    from streamgaze_hf.video.writer import H264Writer

    k, vid, dur, fps, w, h, gaze_hz, out = args
    rng = np.random.default_rng(1000 + k)
    out_dir = Path(out)
    n = int(dur * fps)
    base = rng.integers(40, 200, 3)
    yy, xx = np.mgrid[0:h, 0:w]
    frame = np.empty((h, w, 3), np.uint8)
    with H264Writer(out_dir / f"{vid}.mp4", w, h, fps) as wr:
        for i in range(n):
            frame[:] = base
            frame[..., 0] = (base[0] + xx * 2 + i) % 256
            cx, cy = int((i * 3) % w), int((i * 2) % h)
            frame[max(0, cy - 6):cy + 6, max(0, cx - 6):cx + 6] = (30, 220, 60)
            wr.write(frame)
    m = int(dur * gaze_hz) + 1
    t = np.arange(m) / gaze_hz
    x = np.clip(0.5 + np.cumsum(rng.normal(0, 0.01, m)), -0.05, 1.05)
    y = np.clip(0.5 + np.cumsum(rng.normal(0, 0.01, m)), -0.05, 1.05)
    valid = rng.random(m) > 0.03
    x[~valid] = np.nan
    y[~valid] = np.nan
    track = GazeTrack(t=t, x=x, y=y, valid=valid, width=w, height=h, fps=fps, hfov_deg=90.0)
    render_overlay(out_dir / f"{vid}.mp4", track, out_dir / f"{vid}_overlay.mp4", progress=False)
    fstart = np.arange(0.0, dur - FIXATION_PERIOD_S, FIXATION_PERIOD_S)
    return {"k": k, "vid": vid, "dur": dur, "t": t, "x": x, "y": y, "valid": valid,
            "in_frame": np.asarray(track.in_frame), "fstart": fstart,
            "fx": rng.uniform(0.1, 0.9, len(fstart)), "fy": rng.uniform(0.1, 0.9, len(fstart))}


def _qa_rows(videos: dict[str, dict], counts: dict[str, int], rng: np.random.Generator) -> dict[str, list[dict]]:
    """Questions spread over the videos at integer query times, with their windows' fixations."""
    vids = sorted(videos)
    qa: dict[str, list[dict]] = {t: [] for t in TASK_IDS}
    for task_id in TASK_IDS:
        spec = get_task(task_id)
        for j in range(counts[task_id]):
            vid = vids[int(rng.integers(len(vids)))]
            v = videos[vid]
            dur = v["dur"]
            row = {"question_id": f"{task_id}-{j:05d}", "task": task_id, "category": spec.category,
                   "video_id": vid, "source": "synthetic", "video_path": f"videos/original/{vid}.mp4",
                   "overlay_path": f"videos/overlay/{vid}.mp4", "metadata": "{}"}
            if spec.checkpointed:
                q = int(rng.integers(0, max(1, dur - 60)))
                n_cp = int(rng.integers(4, 13))
                cps = sorted({min(dur, q + 5 * (i + 1)) for i in range(n_cp)})
                row.update(question=f"Tell me when the {OBJECTS[j % 10]} appears.", options=[], answer="",
                           answer_text="", checkpoints=[{"time": float(c), "label": "Yes" if rng.random() < 0.3
                                                         else "No"} for c in cps],
                           query_time=float(q), window_start=0.0, window_end=float(cps[-1]))
            else:
                lo = PRESENT_WINDOW_S if spec.category == "present" else 1
                q = int(rng.integers(min(lo, dur - 1), dur))
                ws, we = window(task_id, float(q))
                opts = [OBJECTS[(j + i) % 10] for i in range(4)]
                a = int(rng.integers(4))
                row.update(question=f"Which object did I look at ({task_id})?", options=opts, answer="ABCD"[a],
                           answer_text=opts[a], checkpoints=[], query_time=float(q), window_start=ws,
                           window_end=we)
            sel = (v["fstart"] >= row["window_start"]) & (v["fstart"] + 0.4 <= row["window_end"])
            row["fixations"] = [{"start": float(s), "end": float(s + 0.4), "x": float(x), "y": float(y)}
                                for s, x, y in zip(v["fstart"][sel], v["fx"][sel], v["fy"][sel])]
            qa[task_id].append(row)
    return qa


def generate(work: Path, scale: float, fps: float, size: tuple[int, int], gaze_hz: float, workers: int,
             seed: int = 0) -> tuple[Path, dict]:
    """Write the synthetic videos and the dataset content's parts; returns (pickle of content, counts)."""
    import pickle

    import pyarrow as pa
    from tqdm import tqdm

    from streamgaze_hf.dataset.schema import FIXATION_FEATURES, GAZE_FEATURES
    from streamgaze_hf.dataset.writer import DatasetContent, table_chunk

    rng = np.random.default_rng(seed)
    n_videos, counts = scaled_counts(scale)
    durs = durations(n_videos, RELEASE_HOURS * 3600 * scale, rng)
    raw = work / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    w, h = size
    jobs = [(k, f"v{k:03d}", durs[k], fps, w, h, gaze_hz, str(raw)) for k in range(n_videos)]
    content = DatasetContent(qa={}, videos=[], gaze=[], fixations=[], files={})
    videos = {}
    with ProcessPoolExecutor(workers) as pool:
        for res in tqdm(pool.map(_make_video, jobs), total=len(jobs), desc="videos", unit="video"):
            vid, dur = res["vid"], res["dur"]
            n = len(res["t"])
            content.gaze.append(table_chunk(GAZE_FEATURES, {
                "video_id": [vid] * n, "t": res["t"], "x": res["x"], "y": res["y"],
                "valid": res["valid"], "in_frame": res["in_frame"]}, "gaze"))
            m = len(res["fstart"])
            content.fixations.append(table_chunk(FIXATION_FEATURES, {
                "video_id": [vid] * m, "fixation_index": pa.array(np.arange(m), pa.int32()),
                "start": res["fstart"], "end": res["fstart"] + 0.4, "x": res["fx"], "y": res["fy"],
                "n_samples": pa.array(np.full(m, int(0.4 * gaze_hz)), pa.int32()),
                "scene_score": np.ones(m), "kept": np.ones(m, bool),
                "episode_index": pa.array(np.arange(m), pa.int32()), "gazed_object": [""] * m,
                "fov_objects": [[]] * m, "out_objects": [[]] * m}, "fixations"))
            content.videos.append({"video_id": vid, "source": "synthetic", "video_path": f"videos/original/{vid}.mp4",
                                   "overlay_path": f"videos/overlay/{vid}.mp4", "fps": fps, "width": w,
                                   "height": h, "n_frames": int(dur * fps), "duration": float(dur),
                                   "hfov_deg": 90.0})
            content.files[f"videos/original/{vid}.mp4"] = raw / f"{vid}.mp4"
            content.files[f"videos/overlay/{vid}.mp4"] = raw / f"{vid}_overlay.mp4"
            videos[vid] = {"dur": dur, "fstart": res["fstart"], "fx": res["fx"], "fy": res["fy"]}
    content.qa = _qa_rows(videos, counts, rng)
    path = work / "content.pickle"
    with open(path, "wb") as f:
        pickle.dump(content, f, protocol=pickle.HIGHEST_PROTOCOL)
    docs = {t: sum(max(1, len(r["checkpoints"])) for r in rows) for t, rows in content.qa.items()}
    # what the clip cache holds at most: every document's window, once (clips are cut per window)
    window_s = sum(c["time"] if r["checkpoints"] else r["window_end"] - r["window_start"]
                   for rows in content.qa.values() for r in rows for c in (r["checkpoints"] or [None]))
    info = {"videos": n_videos, "hours": sum(durs) / 3600, "questions": sum(counts.values()),
            "checkpoints": docs["gta"] + docs["oaa"], "documents": docs,
            "gaze_samples": sum(t.num_rows for t in content.gaze), "counts": counts,
            "window_hours": window_s / 3600}
    return path, info


def write_step(content_path: str, root: str) -> None:
    """Step 1, in its own process: the shared writer over the pickled content."""
    import pickle

    from streamgaze_hf.dataset.writer import write_dataset
    from streamgaze_hf.registry import get_benchmark

    with open(content_path, "rb") as f:
        content = pickle.load(f)
    write_dataset(root, content, "1.0.0", {"benchmark": "perf/full_benchmark.py"}, force=True, progress=False,
                  benchmark=get_benchmark("streamgaze"))


# ------------------------------------------------------------------------------------------------ steps


def timed(cmd: list[str], env: dict[str, str], log: Path) -> tuple[float, float, int]:
    """Run ``cmd`` in a fresh wrapper process; (wall s, peak RSS MiB of its largest process, exit code)."""
    wrapper = ("import resource, subprocess, sys, json;"
               "rc = subprocess.run(sys.argv[1:]).returncode;"
               "print(json.dumps([rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]), file=sys.stderr)")
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], env=env, stdout=out, stderr=subprocess.PIPE,
                              text=True)
    wall = time.perf_counter() - t0
    tail = proc.stderr.strip().splitlines()
    with open(log, "a") as out:
        out.write("\n".join(tail[:-1]) + "\n")
    rc, rss_kib = json.loads(tail[-1])
    return wall, rss_kib / 1024, rc


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def check_results(out: Path, docs: dict[str, int]) -> dict[str, int]:
    """Per task: the number of documents lmms-eval scored (must equal the dataset's: one per question,
    one per checkpoint for the proactive tasks)."""
    found = sorted(out.rglob("*_results.json"))
    if len(found) != 1:  # `streamgaze eval` already fails without results; a stale or missing file is named here
        raise SystemExit(f"expected one lmms-eval *_results.json under {out}, found {len(found)}")
    results = found[0]
    data = json.loads(results.read_text())
    scored = {}
    for t in TASK_IDS:
        name = f"streamgaze_{t}"
        n = data["n-samples"][name]["effective"]
        scored[t] = n
        if n != docs[t]:
            raise SystemExit(f"lmms-eval scored {n} {name} documents, the dataset has {docs[t]} ({results})")
    return scored


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the release's size (default 1)")
    ap.add_argument("--work", type=Path, default=None, help="working directory (default: a temporary one)")
    ap.add_argument("--fps", type=float, default=4.0, help="video frame rate (default 4)")
    ap.add_argument("--size", default="96x64", help="video frame size WxH (default 96x64)")
    ap.add_argument("--gaze-hz", type=float, default=30.0, help="gaze sampling rate (default 30)")
    ap.add_argument("--workers", type=int, default=2, help="processes for generation and clip warming")
    ap.add_argument("--keep", action="store_true", help="keep the working directory")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the dataset and warm cache a kept --work holds: run only the eval steps")
    a = ap.parse_args(argv)
    if a.reuse and not (a.work and (a.work / "info.json").is_file() and (a.work / "streamgaze").is_dir()):
        ap.error("--reuse needs --work DIR of an earlier run with --keep (DIR/info.json, DIR/streamgaze)")
    if a.scale is None or not 0 < a.scale <= 1.0:
        ap.error("--scale must be in (0, 1]")
    w, h = (int(v) for v in a.size.lower().split("x"))
    work = a.work or Path(tempfile.mkdtemp(prefix="sg-full-"))
    work.mkdir(parents=True, exist_ok=True)
    root, cache, runs = work / "streamgaze", work / "clips", work / "runs"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "STREAMGAZE_ROOT": str(root),
           "STREAMGAZE_CLIP_CACHE": str(cache), "TQDM_DISABLE": "1"}
    report: dict = {"scale": a.scale, "fps": a.fps, "size": a.size, "gaze_hz": a.gaze_hz}
    try:
        t0 = time.perf_counter()
        if a.reuse:
            info = json.loads((work / "info.json").read_text())
            content_path = work / "content.pickle"
            shutil.rmtree(runs, ignore_errors=True)
            shutil.rmtree(work / "startup", ignore_errors=True)
        else:
            content_path, info = generate(work, a.scale, a.fps, (w, h), a.gaze_hz, a.workers)
            (work / "info.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
        report.update(info, generate_s=time.perf_counter() - t0)
        print(f"generated {info['videos']} videos, {info['hours']:.1f} h, {info['questions']} questions, "
              f"{info['checkpoints']} checkpoints, {info['gaze_samples']:,} gaze samples in "
              f"{report['generate_s']:.0f} s", flush=True)
        steps = {
            "write": [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import full_benchmark as f;"
                      " f.write_step(sys.argv[2], sys.argv[3])", str(Path(__file__).parent), str(content_path),
                      str(root)],
            "warm": [sys.executable, "-m", "streamgaze_hf", "clips", "warm", str(root), "--cache", str(cache),
                     "--workers", str(a.workers), "--variants", "default"],
            "eval": [sys.executable, "-m", "streamgaze_hf", "eval", "--root", str(root), "--", "--model",
                     "streamgaze_random", "--model_args", "check_visuals=true", "--tasks", "streamgaze",
                     "--output_path", str(runs), "--log_samples", "--verbosity", "WARNING"],
            "startup": [sys.executable, "-m", "streamgaze_hf", "eval", "--root", str(root), "--", "--model",
                        "streamgaze_random", "--model_args", "check_visuals=true", "--tasks", "streamgaze",
                        "--limit", "1", "--output_path", str(work / "startup"), "--verbosity", "WARNING"],
        }
        if a.reuse:
            steps = {k: v for k, v in steps.items() if k in ("eval", "startup")}
        for name, cmd in steps.items():
            wall, rss, rc = timed(cmd, env, work / f"{name}.log")
            report[name] = {"wall_s": round(wall, 1), "peak_rss_mib": round(rss)}
            print(f"{name:6s} wall {wall:8.1f} s   peak RSS {rss:7.0f} MiB   (log {work / (name + '.log')})",
                  flush=True)
            if rc:
                print(f"{name} failed (exit {rc}); see {work / (name + '.log')}", file=sys.stderr)
                return 1
        report["scored"] = check_results(runs, info["documents"])
        report["dataset_bytes"] = dir_bytes(root)
        report["cache_bytes"] = dir_bytes(cache)
        report["clips"] = sum(1 for _ in cache.rglob("*.mp4"))
        report["cache_bytes_per_window_minute"] = round(report["cache_bytes"] / (info["window_hours"] * 60))
        q, d = info["questions"], sum(info["documents"].values())
        per_run = report["eval"]["wall_s"] - report["startup"]["wall_s"]
        report["eval_ms_per_question"] = round(per_run * 1000 / q, 1)
        report["eval_ms_per_document"] = round(per_run * 1000 / d, 1)
        if "warm" in report:
            report["warm_ms_per_clip"] = round(report["warm"]["wall_s"] * 1000 / max(1, report["clips"]), 1)
        print(f"dataset {report['dataset_bytes'] / 2**20:,.0f} MiB; cache {report['cache_bytes'] / 2**20:,.0f} MiB "
              f"in {report['clips']:,} clips ({report.get('warm_ms_per_clip', '-')} ms per clip to warm); "
              f"for {info['window_hours']:,.0f} h of windows ({report['cache_bytes_per_window_minute']:,} bytes per "
              f"window minute); eval {report['eval_ms_per_question']} ms per question, {report['eval_ms_per_document']} ms per "
              f"document beyond lmms-eval's start-up (warm cache, random baseline)")
        if a.json:
            a.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
        return 0
    finally:
        if not a.keep and a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
