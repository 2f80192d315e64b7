"""Reading one hour of a lab's own recording into a GazeTrack (acceptance: under 3 s on one core).

    python perf/own_recordings.py [--runs 5] [--hours 1] [--target 3.0] [--cloud]

Synthesises, in a temporary directory, one hour of 200 Hz gaze (Neon's rate: 720,000 samples) in the native
Neon recording layout the ``neon`` reader reads through the vendor's loader: ``gaze ps1.raw`` (float32 x, y
pixels) + ``gaze ps1.time`` (int64 ns), ``worn ps1.raw`` (bytes 0/255), ``blinks ps1.raw/.time`` (one blink
every 4 s), ``event.txt/.time``, ``info.json``, ``gaze.dtype``/``worn.dtype`` and the scene camera's frame
timestamps (30 fps: 108,000 frames in ``Neon Scene Camera v1 ps1.time``, with the device's jitter). No
video: the track takes Neon's 1600 x 1200 frame and the timestamps' rate.

Timed, interleaved, on one core (the process pinned to one CPU; ``--runs`` runs, median reported), after one
untimed warm-up read (its time, which includes importing the vendor's loader, is printed):

``neon``      ``gaze.sources.neon.read_track`` (the loader's memo cleared before each run);
``baseline``  the floor it is compared with in the same run: reading the same files into NumPy arrays
              (``np.fromfile`` of gaze, time, worn and scene timestamps), nothing else;
``cloud``     with ``--cloud``: the same hour as a Pupil Cloud export (``gaze.csv`` + ``world_timestamps.csv``),
              ``gaze.sources.pupil_cloud.read_track`` (for information; no target).

Printed: per reader the median and min-max seconds and the ratio to the baseline; exit 1 when the neon
median is above ``--target`` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from streamgaze_hf.gaze.sources import neon, pupil_cloud

RATE, SCENE_FPS = 200.0, 30.0
START_NS = 1_760_000_000_000_000_000


def synthesise_neon(directory: Path, hours: float, seed: int = 0) -> int:
    """One recording of ``hours`` of 200 Hz gaze in Neon's native layout; returns the sample count."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    n = int(hours * 3600 * RATE)
    ts = START_NS + 500_000_000 + np.arange(n, dtype=np.int64) * 5_000_000 + rng.integers(-20_000, 20_000, n)
    xy = np.empty(n, dtype=[("x", "<f4"), ("y", "<f4")])
    walk = np.cumsum(rng.normal(0, 2.0, (n, 2)), axis=0)
    xy["x"] = (800 + 500 * np.sin(walk[:, 0] / 400)).astype(np.float32)
    xy["y"] = (600 + 400 * np.sin(walk[:, 1] / 400)).astype(np.float32)
    worn = np.full(n, 255, np.uint8)
    worn[rng.integers(0, n, n // 100)] = 0
    xy.tofile(directory / "gaze ps1.raw")
    ts.tofile(directory / "gaze ps1.time")
    worn.tofile(directory / "worn ps1.raw")
    (directory / "gaze.dtype").write_text('[\n("x", "float32"),\n("y", "float32"),\n]')
    (directory / "worn.dtype").write_text('[\n("worn", "uint8"),\n]')
    blink_start = ts[::800][1:]
    blinks = np.empty(len(blink_start), dtype=[("start_timestamp_ns", "<i8"), ("end_timestamp_ns", "<i8")])
    blinks["start_timestamp_ns"], blinks["end_timestamp_ns"] = blink_start, blink_start + 150_000_000
    blinks.tofile(directory / "blinks ps1.raw")
    blink_start.tofile(directory / "blinks ps1.time")
    (directory / "blinks.dtype").write_text('[\n("start_timestamp_ns", "int64"),\n("end_timestamp_ns", "int64"),\n]')
    frames = int(hours * 3600 * SCENE_FPS) + 30
    scene = START_NS + np.arange(frames, dtype=np.int64) * 33_333_333 + rng.integers(-100_000, 100_000, frames)
    scene.tofile(directory / "Neon Scene Camera v1 ps1.time")
    (directory / "event.txt").write_text("recording.begin\nrecording.end\n")
    np.array([START_NS, scene[-1]], dtype=np.int64).tofile(directory / "event.time")
    (directory / "info.json").write_text(json.dumps({"data_format_version": "2.5", "app_version": "2.9.31",
                                                     "start_time": START_NS, "gaze_offset": [0.0, 0.0]}))
    return n


def synthesise_cloud(neon_dir: Path, directory: Path) -> None:
    """The same samples as a Pupil Cloud export (gaze.csv, world_timestamps.csv)."""
    directory.mkdir(parents=True, exist_ok=True)
    ts = np.fromfile(neon_dir / "gaze ps1.time", dtype="<i8")
    xy = np.fromfile(neon_dir / "gaze ps1.raw", dtype=[("x", "<f4"), ("y", "<f4")])
    worn = np.fromfile(neon_dir / "worn ps1.raw", dtype=np.uint8)
    with (directory / "gaze.csv").open("w") as fh:
        fh.write("section id,recording id,timestamp [ns],gaze x [px],gaze y [px],worn,fixation id,blink id\n")
        for t, x, y, w in zip(ts.tolist(), xy["x"].tolist(), xy["y"].tolist(), (worn != 0).tolist()):
            fh.write(f"s,r,{t},{x:.3f},{y:.3f},{1.0 if w else 0.0},,\n")
    scene = np.fromfile(neon_dir / "Neon Scene Camera v1 ps1.time", dtype="<i8")
    (directory / "world_timestamps.csv").write_text("section id,recording id,timestamp [ns]\n"
                                                    + "".join(f"s,r,{t}\n" for t in scene.tolist()))


def baseline(directory: Path) -> int:
    gaze = np.fromfile(directory / "gaze ps1.raw", dtype=[("x", "<f4"), ("y", "<f4")])
    ts = np.fromfile(directory / "gaze ps1.time", dtype="<i8")
    worn = np.fromfile(directory / "worn ps1.raw", dtype=np.uint8)
    scene = np.fromfile(directory / "Neon Scene Camera v1 ps1.time", dtype="<i8")
    return len(gaze) + len(ts) + len(worn) + len(scene)


def read_neon(directory: Path) -> int:
    neon._streams.cache_clear()
    return len(neon.read_track(directory))


def read_cloud(directory: Path) -> int:
    return len(pupil_cloud.read_track(directory / "gaze.csv"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--target", type=float, default=3.0, help="seconds the neon read must stay under (median)")
    ap.add_argument("--cloud", action="store_true", help="also time the same hour as a Pupil Cloud CSV export")
    a = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    with tempfile.TemporaryDirectory(prefix="perf-own-") as tmp:
        rec = Path(tmp) / "neon"
        n = synthesise_neon(rec, a.hours)
        jobs = {"baseline": lambda: baseline(rec), "neon": lambda: read_neon(rec)}
        if a.cloud:
            synthesise_cloud(rec, Path(tmp) / "cloud")
            jobs["cloud"] = lambda: read_cloud(Path(tmp) / "cloud")
        t0 = time.perf_counter()
        read_neon(rec)  # the first read also imports the vendor's loader (pandas, ...): reported, not timed
        first = time.perf_counter() - t0
        times: dict[str, list[float]] = {k: [] for k in jobs}
        samples = 0
        for run in range(max(a.runs, 1)):
            order = list(jobs)[run % len(jobs):] + list(jobs)[:run % len(jobs)]
            for name in order:
                t0 = time.perf_counter()
                got = jobs[name]()
                times[name].append(time.perf_counter() - t0)
                if name == "neon":
                    samples = got
        print(f"{a.hours:g} h of {RATE:g} Hz gaze: {n} samples, {samples} in the track; one core; {a.runs} runs")
        print(f"  first read in the process (imports pupil_labs.neon_recording): {first:.3f} s")
        base = statistics.median(times["baseline"])
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"  {name:<9} median {med:6.3f} s  (min {min(ts):.3f}, max {max(ts):.3f})  {med / base:7.1f}x baseline")
        med = statistics.median(times["neon"])
        ok = med < a.target
        print(f"neon read: {med:.3f} s {'<' if ok else '>='} target {a.target:g} s")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
