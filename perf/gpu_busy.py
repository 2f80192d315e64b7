"""How busy is the GPU? A random-weight Qwen3-VL through lmms-eval on a CUDA device, with model-ready frames and with
``--frames full`` (issue 42).

    python perf/gpu_busy.py [--device cuda] [--questions 40] [--size 1280x720] [--seconds 240] [--hidden 1024]
                            [--layers 8] [--frames model,full] [--work DIR] [--dry-run]

Everything is made here, offline: a Qwen3-VL checkpoint with random weights (the builder of
``perf/shared/tiny_checkpoints.py``, its text tower widened to ``--hidden`` x ``--layers`` so that a question is
real work for a GPU), a camera-layout video (10 s GOPs, 3 B-frames, BT.709, as perf/frames_to_model.py writes it)
and a StreamGaze dataset around it (perf/model_wait.py's: past windows ``[0, t]`` and present windows
``[t - 60, t]``). Then ``streamgaze eval`` runs lmms-eval's own ``qwen3_vl`` chat wrapper on the device, once per
``--frames`` choice, each on an empty clip cache (a first run: the background makes the clips while the model
works), ``--questions`` questions, one new token... up to 16. While each runs, ``nvidia-smi
--query-gpu=utilization.gpu`` is sampled every 100 ms. Printed per run: wall seconds, the wrapper's reading time (what
``streamgaze eval`` records), and the GPU's busy share: the mean utilization and the share of samples above 0 %,
over the whole run and from the first busy sample (the model loaded, the questions started) to the end.

Writes ``$OUT/gpu_busy.json`` (and the runs' logs under ``$OUT/logs``) when ``$OUT`` is set. Without a CUDA device
(or without ``nvidia-smi``) it says so in one line and exits 0, measuring nothing. ``--dry-run`` checks the script's
path on any machine: ``--device cpu``, a small checkpoint and video, two questions, no sampling.
About 4-5 minutes on a 16-core machine with an H200 (both runs); run it from the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from perf.shared.scripts import load_script  # noqa: E402

REPO = HERE.parent
TASKS = "streamgaze_nfi_nogaze,streamgaze_oi_easy_nogaze"


def gpu_available(device: str) -> str:
    """"" when ``device`` can be measured, else why not."""
    if not device.startswith("cuda"):
        return f"--device {device} is not a CUDA device"
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if shutil.which("nvidia-smi") is None:
        return "nvidia-smi is not on PATH"
    return ""


class Sampler:
    """``nvidia-smi --query-gpu=utilization.gpu`` every ``period_ms`` in the background: (time, %) samples of the GPU
    the run uses (its index: ``CUDA_VISIBLE_DEVICES``' first, else 0)."""

    def __init__(self, period_ms: int = 100) -> None:
        gpu = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
        self._proc = subprocess.Popen(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                                       "-i", gpu, "-lms", str(period_ms)], stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True)
        self.samples: list[tuple[float, float]] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            try:
                self.samples.append((time.monotonic(), float(line.strip())))
            except ValueError:
                continue

    def stop(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._thread.join(timeout=5)


def busy(samples: list[tuple[float, float]]) -> dict:
    """Mean utilization and the share of samples above 0 %: over all ``samples`` and from the first busy one."""
    def stats(values: list[float]) -> dict:
        if not values:
            return {"samples": 0, "mean_util_pct": None, "busy_share": None}
        return {"samples": len(values), "mean_util_pct": round(sum(values) / len(values), 1),
                "busy_share": round(sum(v > 0 for v in values) / len(values), 3)}

    values = [v for _, v in samples]
    first = next((i for i, v in enumerate(values) if v > 0), len(values))
    return {"whole_run": stats(values), "from_first_busy": stats(values[first:])}


def build(work: Path, a) -> tuple[Path, Path]:
    """(the dataset root, the checkpoint), made under ``work``."""
    sys.path.insert(0, str(REPO))
    from perf.shared.tiny_checkpoints import build_qwen3_vl

    ckpt = work / "qwen3_vl"
    if not (ckpt / "config.json").is_file():
        build_qwen3_vl(ckpt, hidden=a.hidden, layers=a.layers, vision_hidden=max(32, a.hidden // 4),
                       vision_depth=max(2, a.layers // 2))
    root = work / "streamgaze"
    if not (root / "manifest.json").is_file():
        w, h = (int(x) for x in a.size.split("x"))
        video = work / "camera.mp4"
        if not video.is_file():
            ftm = load_script("frames_to_model")
            tmp = video.with_name(".camera.tmp.mp4")
            ftm.write_camera(tmp, w, h, 24.0, int(a.seconds * 24), bt709=True)
            tmp.rename(video)
        load_script("model_wait").write_dataset(video, root, a.questions)
    return root, ckpt


def evaluate(root: Path, ckpt: Path, frames: str, a, work: Path, out_dir: Path | None) -> dict:
    """One ``streamgaze eval`` run on an empty clip cache, sampled."""
    cache = work / f"cache-{frames}"
    shutil.rmtree(cache, ignore_errors=True)
    run_out = work / f"run-{frames}"
    shutil.rmtree(run_out, ignore_errors=True)
    per_task = max(1, a.questions // 2)
    model_args = (f"pretrained={ckpt},device={a.device},device_map={a.device},max_num_frames={a.frames_per_question},"
                  f"max_pixels={a.max_pixels},min_pixels={a.min_pixels}")
    cmd = [sys.executable, "-m", "streamgaze_hf", "eval", "--dataset", str(root), "--frames", frames, "--",
           "--model", "qwen3_vl", "--model_args", model_args, "--tasks", TASKS, "--limit", str(per_task),
           "--gen_kwargs", "max_new_tokens=16", "--output_path", str(run_out), "--verbosity", "WARNING"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TQDM_DISABLE": "1",
           "STREAMGAZE_CLIP_CACHE": str(cache), "HF_HOME": str(work / "hf-home"),
           "STREAMGAZE_VERIFY_CACHE": str(work / "verified")}
    log = (out_dir / "logs" if out_dir else work) / f"eval-{frames}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    sampler = Sampler() if not a.dry_run else None
    t0 = time.perf_counter()
    try:
        with open(log, "w") as f:
            rc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, cwd=str(REPO),
                                timeout=a.timeout).returncode
    finally:
        if sampler is not None:
            sampler.stop()
    wall = time.perf_counter() - t0
    if rc:
        raise SystemExit(f"streamgaze eval --frames {frames} failed (exit {rc}); see {log}")
    results = json.loads(sorted(run_out.rglob("*_results.json"))[-1].read_text())["streamgaze"]
    return {"frames": frames, "wall_s": round(wall, 1), "questions": 2 * per_task,
            "video_read": results.get("video_read"), "background": results.get("background"),
            "model_ready": results.get("model_ready", ""),
            "gpu": busy(sampler.samples) if sampler is not None else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--questions", type=int, default=40, help="questions per run (half past, half present)")
    ap.add_argument("--size", default="1280x720", help="the video's frame size (default 1280x720)")
    ap.add_argument("--seconds", type=float, default=240.0, help="the video's length (default 240)")
    ap.add_argument("--hidden", type=int, default=1024, help="the text tower's width (default 1024)")
    ap.add_argument("--layers", type=int, default=8, help="the text tower's depth (default 8)")
    ap.add_argument("--frames-per-question", type=int, default=32, help="the wrapper's max_num_frames (default 32)")
    ap.add_argument("--max-pixels", type=int, default=401408, help="the wrapper's max_pixels (default 401408)")
    ap.add_argument("--min-pixels", type=int, default=200704, help="the wrapper's min_pixels (default 200704)")
    ap.add_argument("--frames", default="model,full", help="the --frames choices to run (default model,full)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take (default 600)")
    ap.add_argument("--work", type=Path, default=None, help="working directory (default: a temporary one)")
    ap.add_argument("--dry-run", action="store_true", help="the script's path on the CPU: small, two questions")
    a = ap.parse_args(argv)
    if a.dry_run:
        a.device, a.questions, a.size, a.seconds = "cpu", 2, "320x240", 70.0
        a.hidden, a.layers, a.frames_per_question, a.max_pixels, a.min_pixels = 64, 2, 4, 76800, 3136
    out_dir = Path(os.environ["OUT"]) if os.environ.get("OUT") else None
    why = "" if a.dry_run else gpu_available(a.device)
    if why:
        print(f"gpu_busy: nothing measured: {why} (a CUDA device and nvidia-smi are needed; --dry-run checks the "
              "script on the CPU)")
        if out_dir:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "gpu_busy.json").write_text(json.dumps({"measured": False, "why": why}) + "\n")
        return 0
    work = a.work or Path(tempfile.mkdtemp(prefix="gpu-busy-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict = {"measured": not a.dry_run, "device": a.device, "runs": []}
    try:
        t0 = time.perf_counter()
        root, ckpt = build(work, a)
        report["build_s"] = round(time.perf_counter() - t0, 1)
        if a.device.startswith("cuda"):
            import torch

            report["gpu_name"] = torch.cuda.get_device_name(0)
        print(f"gpu_busy: built the checkpoint and the dataset in {report['build_s']} s", flush=True)
        for frames in [f for f in a.frames.split(",") if f]:
            r = evaluate(root, ckpt, frames, a, work, out_dir)
            report["runs"].append(r)
            read = r["video_read"] or {}
            line = (f"gpu_busy: --frames {frames}: {r['wall_s']} s for {r['questions']} questions; the wrapper read "
                    f"video {read.get('video_read_s')} s (median {read.get('video_read_median_ms')} ms a question)")
            if r["gpu"] is not None:
                g = r["gpu"]
                line += (f"; GPU busy {g['from_first_busy']['busy_share']} of the samples from the first busy one "
                         f"(mean utilization {g['from_first_busy']['mean_util_pct']} %), "
                         f"{g['whole_run']['busy_share']} over the whole run")
            print(line, flush=True)
        if out_dir:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "gpu_busy.json").write_text(json.dumps(report, indent=2) + "\n")
        return 0
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
