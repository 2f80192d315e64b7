"""Per-video work on a local Ray cluster against the local process pool, in the same run (issue 53).

    python perf/ray_scaling.py [--videos 8] [--duration 30] [--runs 3] [--json OUT.json]

Linux and root: the script runs itself again under ``unshare -n`` (a network namespace of its own: every node
takes 127.0.0.1, all traffic stays on loopback), with Ray's token authentication on and every file under one
temporary directory. It generates a demo world (``--videos`` recordings of ``--duration`` s, 320x240, 24 fps),
starts a head node that runs nothing (``--num-cpus 0``) and one worker node of one CPU, then:

1. **1 worker**: ``--runs`` times, interleaved, ``streamgaze build`` with ``--workers 1`` (this process's
   pool: the recordings one after the other) and with ``--executor ray`` (the worker node), and ``clips warm``
   of the built dataset (a fresh cache each time) the same two ways;
2. a second worker node joins; **2 workers**: the same with ``--workers 2`` and ``--executor ray``;
3. **per-task overhead**: calls of a function that does nothing through the Ray executor and through a process
   pool of 2 (``util/executors.py``): (wall of 200 calls - wall of 20) / 180, each on a fresh executor.

Printed (and with ``--json`` written): per configuration the median wall time over the runs, videos per hour,
seconds of video per core-second (video seconds / (wall x cores)), the ratio of Ray's median to the pool's
median measured in the same phase, the 1 -> 2 worker efficiency (speed-up / 2) of each, and the per-task
overheads. Each command runs through the installed ``streamgaze`` script, as a user runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
ADDR = "127.0.0.1:6379"


def _sg(*args: str, env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([str(BIN / "streamgaze"), *args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"streamgaze {' '.join(args[:2])} failed: {proc.stderr[-2000:]}")
    return wall


def _start_node(tmp: Path, name: str, nodes: int, *opts: str, env: dict) -> None:
    """``ray start`` of one node (temp dir ``tmp/r<name>``) until ``nodes`` nodes with CPUs are alive: up to 3
    tries (on a busy machine a node's agents may start after the 30 s its raylet waits for them)."""
    code = (f"import ray, sys; ray.init(address='{ADDR}', logging_level='ERROR', log_to_driver=False); "
            f"sys.exit(sum(x['Alive'] and x['Resources'].get('CPU', 0) > 0 for x in ray.nodes()) < {nodes})")
    for _ in range(3):
        subprocess.run([str(BIN / "ray"), "start", f"--temp-dir={tmp}/r{name}", "--disable-usage-stats", *opts],
                       capture_output=True, env=env)
        for _ in range(60):
            if subprocess.run([sys.executable, "-c", code], capture_output=True, env=env).returncode == 0:
                return
            time.sleep(2)
        subprocess.run(["pkill", "-9", "-f", f"{tmp}/r{name}"], capture_output=True)
        shutil.rmtree(tmp / f"r{name}", ignore_errors=True)
    sys.exit(f"the cluster did not reach {nodes} worker node(s)")


def _phase(workers: int, raw: Path, tmp: Path, runs: int, env: dict) -> dict:
    walls: dict[str, list[float]] = {"build_pool": [], "build_ray": [], "warm_pool": [], "warm_ray": []}
    where = {"pool": ["--workers", str(workers)], "ray": ["--executor", "ray", "--ray-address", ADDR]}
    for r in range(runs):
        for kind in (("pool", "ray") if r % 2 == 0 else ("ray", "pool")):
            out = tmp / f"out-{workers}-{kind}-{r}" / "sg"
            walls[f"build_{kind}"].append(_sg("build", "--raw", str(raw), "--out", str(out), "--version", "1.0.0",
                                              "--no-previews", *where[kind], env=env))
            cache = tmp / f"cache-{workers}-{kind}-{r}"
            walls[f"warm_{kind}"].append(_sg("clips", "warm", "--dataset", str(out), "--cache", str(cache),
                                             *where[kind], env=env))
            shutil.rmtree(cache)
            shutil.rmtree(out.parent)
    return walls


def _noop() -> None:
    return None


def _overhead(env: dict, calls: int = 200, few: int = 20) -> dict:
    """Seconds per no-op call on each executor: (wall of ``calls`` - wall of ``few``) / (calls - few), each on a
    fresh executor (after a warm-up round: Ray's worker processes started), so the fixed costs cancel out."""
    os.environ.update({k: v for k, v in env.items() if k.startswith("RAY_")})
    from streamgaze_hf.util.executors import Workers, map_ordered

    out = {}
    for name, w in (("pool", Workers(count=2)), ("ray", Workers(executor="ray", address=ADDR))):
        w.check()
        wall = {}
        map_ordered(w.open(jobs=few), _noop, [()] * few)  # warm: the workers started, the function shipped
        for n in (few, calls):
            t0 = time.perf_counter()
            map_ordered(w.open(jobs=n), _noop, [()] * n)
            wall[n] = time.perf_counter() - t0
        out[name] = (wall[calls] - wall[few]) / (calls - few)
    return out


def _summary(walls: dict, workers: int, n: int, video_s: float) -> dict:
    med = {k: statistics.median(v) for k, v in walls.items()}
    row = {"workers": workers, "runs": {k: [round(x, 2) for x in v] for k, v in walls.items()}}
    for k, m in med.items():
        row[k] = {"median_s": round(m, 2), "videos_per_hour": round(n / m * 3600, 1),
                  "video_s_per_core_s": round(video_s / (m * workers), 3)}
    row["build_ray_over_pool"] = round(med["build_ray"] / med["build_pool"], 3)
    row["warm_ray_over_pool"] = round(med["warm_ray"] / med["warm_pool"], 3)
    return row


def measure(a: argparse.Namespace) -> dict:
    from streamgaze_hf.demo.world import generate_world

    tmp = Path(tempfile.mkdtemp(prefix="sgperf-"))
    env = {**os.environ, "HOME": str(tmp / "home"), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(tmp / "tok"),
           "RAY_USAGE_STATS_ENABLED": "0", "RAY_raylet_start_wait_time_s": "240", "TQDM_DISABLE": "1",
           "HF_HUB_OFFLINE": "1", "STREAMGAZE_CLIP_CACHE": str(tmp / "clips")}
    env.pop("RAY_ADDRESS", None)
    (tmp / "home").mkdir()
    (tmp / "tok").write_text(os.urandom(16).hex())
    try:
        raw = tmp / "world"
        generate_world(raw, n_videos=a.videos, seed=0, duration=a.duration, progress=False)
        video_s = a.videos * a.duration
        _start_node(tmp, "0", 0, "--head", "--port=6379", "--num-cpus=0", "--include-dashboard=false", env=env)
        _start_node(tmp, "1", 1, f"--address={ADDR}", "--num-cpus=1", env=env)
        one = _summary(_phase(1, raw, tmp, a.runs, env), 1, a.videos, video_s) if a.runs else {}
        _start_node(tmp, "2", 2, f"--address={ADDR}", "--num-cpus=1", env=env)
        two = _summary(_phase(2, raw, tmp, a.runs, env), 2, a.videos, video_s) if a.runs else {}
        overhead = _overhead(env)
    finally:  # this cluster's processes only (`ray stop` would stop every Ray process of the machine)
        subprocess.run(["pkill", "-9", "-f", f"{tmp}/r"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    eff = {f"{job}_{kind}": round(one[f"{job}_{kind}"]["median_s"] / two[f"{job}_{kind}"]["median_s"] / 2, 3)
           for job in ("build", "warm") for kind in ("pool", "ray") if one}
    return {"videos": a.videos, "duration_s": a.duration, "runs": a.runs, "load_average": os.getloadavg(),
            "one_worker": one, "two_workers": two, "efficiency_1_to_2": eff,
            "per_task_overhead_ms": {k: round(v * 1000, 2) for k, v in overhead.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--videos", type=int, default=8)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--runs", type=int, default=3, help="runs of each configuration (0: only the per-task overhead)")
    p.add_argument("--json", default=None)
    p.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if not a.in_namespace:
        if os.geteuid() != 0 or not shutil.which("unshare"):
            sys.exit("perf/ray_scaling.py needs root and unshare (a private network namespace for the cluster)")
        return subprocess.call(["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable,
                                *sys.argv, "--in-namespace"])
    result = measure(a)
    text = json.dumps(result, indent=2)
    print(text)
    if a.json:
        Path(a.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
