"""What one evaluation by the leaderboard costs (issue 44): a request run as a Hub Job through the Hub and Jobs
stand-ins, timed, then scaled to the full benchmark on the flavors docs/leaderboard.md suggests.

    python perf/leaderboard_jobs.py [--work DIR] [--json FILE]

One request (the tests' tiny random-weight Qwen2.5-VL checkpoint, served by the Hub stand-in, on a StreamGaze
dataset of one task and two questions with its videos) goes through ``request-eval``, ``leaderboard sync --evaluate
jobs`` and a second sync, as tests/e2e/test_leaderboard_jobs.py does; the job runs in a local subprocess on this
machine's cores. Measured:

* the job's running time (the stand-in's ``durations.runningSecs``) and, from its log, the model's own generation
  time (lmms-eval's "Total elapsed time") and the clip hand-over per question ("streamgaze: video: ...");
* the job's fixed cost: its running time less the generation time (the toolkit's check, the request, the model's
  files, lmms-eval's start-up, the dataset, ``submit``, the commit), about the same for any dataset size but for
  the dataset's download (the full release's videos are not in it).

The full benchmark's cost on a flavor is then ``gpus x (fixed + 23,821 documents x (model seconds a document +
hand-over seconds a document)) / 3600`` GPU-hours, with the model's time a document taken from docs/performance.md
(a 7B video model, 0.61 s a question on an H100) and scaled to another GPU by its memory bandwidth (decoding a 7B
model is bound by it): an estimate, printed as one.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: documents of the full benchmark: 8,521 questions, the proactive ones one per checkpoint (docs/performance.md)
FULL_DOCUMENTS = 23_821
#: a 7B video model's time a question on an H100 (docs/performance.md: "Frames to the model")
H100_SECONDS = 0.61
H100_TBPS = 3.35
#: flavor -> (GPUs, memory bandwidth of one GPU in TB/s, GPU memory in GB): the public specifications of the GPUs
#: the Hub's Jobs flavors name
FLAVORS = {"l4x1": (1, 0.30, 24), "a10g-large": (1, 0.60, 24), "l40sx1": (1, 0.86, 48), "a100-large": (1, 2.04, 80),
           "h200": (1, 4.80, 141)}


def measure(work: Path) -> dict:
    """One request through the stand-ins; the job's running time, the generation time and the hand-over."""
    from huggingface_hub import constants

    constants.HF_HUB_OFFLINE = False
    constants.HF_HUB_DISABLE_XET = True
    from perf.shared.hub_stub import hub_env
    from perf.shared.leaderboard_jobs import DATA, MODEL, MODEL_ARGS, REQUESTS, RESULTS, TOKEN, jobs_hub

    def run_sg(env: dict, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
        """The installed ``streamgaze`` script (beside this interpreter) in a child process, as a user runs it."""
        return subprocess.run([str(Path(sys.executable).parent / "streamgaze"), *map(str, args)], env=env,
                              capture_output=True, text=True, timeout=timeout)

    with jobs_hub(work) as (stub, _commit):
        ask = run_sg(hub_env(stub, work / "alice", "tok-alice"), "request-eval", MODEL, "--revision", "main",
                     "--lmms-model", "qwen2_5_vl", "--model-args", MODEL_ARGS, "--requests", REQUESTS, "--dataset",
                     f"hf://datasets/{DATA}@v0.2.0")
        assert ask.returncode == 0, ask.stderr[-2000:]
        sync = ("leaderboard", "sync", "--requests", REQUESTS, "--results", RESULTS, "--dataset",
                f"hf://datasets/{DATA}@v0.2.0", "--evaluate", "jobs", "--flavor", "t4-small")
        t0 = time.perf_counter()
        first = run_sg(hub_env(stub, work / "maint", TOKEN), *sync, timeout=900)
        assert first.returncode == 0, first.stderr[-2000:]
        sync_s = time.perf_counter() - t0
        [job] = stub.jobs.jobs.values()
        stub.jobs.wait(job.id, timeout=900)
        log = stub.jobs.log_text(job.id)
        assert job.stage == "COMPLETED", log[-3000:]
        second = run_sg(hub_env(stub, work / "maint", TOKEN), *sync, timeout=900)
        assert second.returncode == 0, second.stderr[-2000:]
        queue = json.loads(stub.files(REQUESTS)["queue.json"])["requests"]["1"]
        assert queue["status"] == "FINISHED", queue
        running = job.finished - job.created
        gen = sum(float(x) for x in re.findall(r"Total elapsed time: ([0-9.]+)s", log))
        hand = re.search(r"the toolkit's clip hand-over on that path: ([0-9.]+) s\)", log)
        docs = re.search(r"over (\d+) questions", log)
        return {"job_running_s": running, "generation_s": gen, "documents": int(docs.group(1)) if docs else 0,
                "handover_s": float(hand.group(1)) if hand else 0.0, "first_sync_s": sync_s,
                "fixed_s": running - gen}


def costs(m: dict) -> list[dict]:
    """The full benchmark's GPU-hours on each flavor of :data:`FLAVORS` from the measured fixed cost and hand-over."""
    handover = m["handover_s"] / max(m["documents"], 1)
    out = []
    for flavor, (gpus, tbps, vram) in FLAVORS.items():
        per_doc = H100_SECONDS * H100_TBPS / tbps
        hours = gpus * (m["fixed_s"] + FULL_DOCUMENTS * (per_doc + handover)) / 3600
        out.append({"flavor": flavor, "gpus": gpus, "vram_gb": vram, "model_s_per_document": round(per_doc, 2),
                    "gpu_hours": round(hours, 2)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=None, help="a working directory (default: a temporary one)")
    ap.add_argument("--json", default=None, help="write the numbers as JSON")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import os

    os.environ.setdefault("HF_HUB_DISABLE_XET", "1")
    work = Path(a.work or tempfile.mkdtemp(prefix="perf-jobs-"))
    work.mkdir(parents=True, exist_ok=True)
    from perf.shared.caches import cache_env

    os.environ.update(cache_env(work / "caches"))  # this script's caches in its work folder, never the user's
    m = measure(work)
    print(f"job: {m['job_running_s']:.1f} s running ({m['documents']} documents; the tiny model generated for "
          f"{m['generation_s']:.2f} s; clip hand-over {m['handover_s']:.2f} s); fixed cost {m['fixed_s']:.1f} s; "
          f"the sync that started it {m['first_sync_s']:.1f} s")
    table = costs(m)
    print(f"the full benchmark ({FULL_DOCUMENTS:,} documents), a 7B model (0.61 s a document on an H100, scaled by "
          "memory bandwidth: an estimate):")
    for row in table:
        print(f"  {row['flavor']:<11} {row['gpus']} GPU, {row['vram_gb']} GB: {row['model_s_per_document']:.2f} s a "
              f"document -> {row['gpu_hours']:.1f} GPU-hours")
    if a.json:
        Path(a.json).write_text(json.dumps({"measured": m, "full_benchmark": table}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
