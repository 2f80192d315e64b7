"""What a small ``streamgaze eval`` costs before and around its questions: the imports it does not need.

    python perf/eval_startup.py [--runs 5] [--root DATASET] [--work DIR]

One run is ``streamgaze eval --root DATASET -- --model streamgaze_random --tasks streamgaze_nfi --limit 2`` (the
demo dataset, built here unless ``--root`` names one): lmms-eval's start-up, two questions of a baseline that reads
no video, and the toolkit's checks around them. Timed, interleaved, each in a fresh process (wall seconds and the
child's CPU seconds; median of ``--runs``, and min-max):

``now``      the installed ``streamgaze eval``;
``eager``    the same, with the imports ``util/imports.py`` defers or waits for done at the interpreter's start (a
             ``sitecustomize`` on ``PYTHONPATH``): Hugging Face ``evaluate`` (lmms-eval's registry imports it for
             one fallback), torchcodec (the reading-time wrappers), lmms-eval's LLaVA chat wrapper and InternVL3
             module (the wrapper fixes): what every run imported before.

Reported: both, and ``now`` against ``eager`` (the ratio of the medians). Informational (no target).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
EAGER = ("import evaluate\nimport torchcodec.decoders._video_decoder\nimport lmms_eval.models.chat.llava_hf\n"
         "import lmms_eval.models.simple.internvl3\n")


def _run(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one command in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--root", type=Path, default=None, help="a StreamGaze dataset (default: the demo's, built here)")
    ap.add_argument("--work", type=Path, default=None, help="working directory (default: a temporary one)")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="eval-startup-"))
    work.mkdir(parents=True, exist_ok=True)
    root = a.root
    if root is None:
        root = work / "demo" / "streamgaze"
        if not (root / "manifest.json").is_file():
            for cmd in (["world", "--out", str(work / "demo" / "world"), "--videos", "1", "--seed", "0"],
                        ["build", "--raw", str(work / "demo" / "world"), "--out", str(root), "--version", "0.1.0",
                         "--force"]):
                subprocess.run([str(BIN / "streamgaze"), *cmd], check=True, capture_output=True)
    eager = work / "eager"
    eager.mkdir(exist_ok=True)
    (eager / "sitecustomize.py").write_text(EAGER)
    base = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    envs = {"now": base, "eager": {**base, "PYTHONPATH": os.pathsep.join(
        p for p in (str(eager), os.environ.get("PYTHONPATH", "")) if p)}}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in envs}
    for i in range(a.runs):
        for name, env in envs.items():
            out = work / f"out-{name}-{i}"
            shutil.rmtree(out, ignore_errors=True)
            times[name].append(_run([str(BIN / "streamgaze"), "eval", "--root", str(root), "--", "--model",
                                     "streamgaze_random", "--tasks", "streamgaze_nfi", "--limit", "2",
                                     "--output_path", str(out)], env))
    med = {}
    for name, rows in times.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        med[name] = statistics.median(walls), statistics.median(cpus)
        print(f"{name:6s} wall {med[name][0]:5.2f} s ({min(walls):.2f}-{max(walls):.2f}), CPU {med[name][1]:5.2f} s "
              f"({min(cpus):.2f}-{max(cpus):.2f}), {a.runs} runs")
    print(f"now / eager: wall {med['now'][0] / med['eager'][0]:.2f} x, CPU {med['now'][1] / med['eager'][1]:.2f} x "
          f"({med['eager'][1] - med['now'][1]:.1f} CPU seconds less per run); {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
