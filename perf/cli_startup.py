"""How fast the command line answers (issue 35 item 6: ``streamgaze --help`` under 1 s on the 2-core machine).

    python perf/cli_startup.py [--runs 7] [--target 1.0]

Timed, interleaved, each in a fresh process (wall seconds; ``--runs`` runs, median and min-max reported):

``baseline``        ``python -c pass``: the interpreter's own start-up, the floor of any command
``--help``          ``streamgaze --help`` (the installed console script)
``--version``       ``streamgaze --version`` (also resolves the toolkit's git commit)
``eval --help``     ``streamgaze eval --help`` (configures one command: the registry and its benchmarks)
``build --help``    ``streamgaze build streamgaze --help`` (a benchmark's own options; imports NumPy)
``import package``  ``python -c "import streamgaze_hf.cli"``

Also printed: the modules of ``-X importtime`` of ``streamgaze --help`` that take the most cumulative time.
Exit 1 when the ``--help`` median is above ``--target`` seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CASES = {
    "baseline": [sys.executable, "-c", "pass"],
    "--help": [str(BIN / "streamgaze"), "--help"],
    "--version": [str(BIN / "streamgaze"), "--version"],
    "eval --help": [str(BIN / "streamgaze"), "eval", "--help"],
    "build --help": [str(BIN / "streamgaze"), "build", "streamgaze", "--help"],
    "import package": [sys.executable, "-c", "import streamgaze_hf.cli"],
}


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return time.perf_counter() - t0


def slowest_imports(n: int = 8) -> list[tuple[float, str]]:
    """(cumulative seconds, module) of the slowest imports of ``streamgaze --help``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "streamgaze_hf", "--help"], capture_output=True,
                          text=True, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            _, cumulative, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
            rows.append((int(cumulative) / 1e6, name.strip()))
    return sorted(rows, reverse=True)[:n]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--target", type=float, default=1.0, help="seconds `streamgaze --help` may take (median)")
    a = ap.parse_args(argv)
    for cmd in CASES.values():  # warm the file cache: the first run of each reads the files from disk
        _time(cmd)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(a.runs):
        for name, cmd in CASES.items():
            times[name].append(_time(cmd))
    base = statistics.median(times["baseline"])
    print(f"{'case':<16} {'median s':>9} {'min-max s':>13} {'x baseline':>11}   ({a.runs} runs, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f})")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<16} {med:>9.3f} {min(values):>6.3f}-{max(values):<6.3f} {med / base:>11.1f}")
    print("slowest imports of `streamgaze --help` (cumulative s):")
    for seconds, module in slowest_imports():
        print(f"  {seconds:7.3f}  {module}")
    help_s = statistics.median(times["--help"])
    ok = help_s <= a.target
    print(f"streamgaze --help: {help_s:.3f} s (target {a.target:g} s): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
