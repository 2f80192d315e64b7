"""Overlay render time vs. a plain decode + re-encode of the same video (acceptance: ratio <= 1.3).

    python benchmarks/overlay.py [--video V.mp4 --gaze GAZE.csv] [--runs 3] [--max-ratio 1.3]

Without ``--video`` it generates the 2-minute 640x480 demo video (``generate_world``, seed 0, 24 fps).
The baseline is the overlay's pipeline without the drawing: the same demuxing/probing, decoding
(threaded) to the same pixel format (yuv420p), and encoding through the same :class:`H264Writer`
settings with the same time base and per-frame pts. The runs are interleaved (baseline, overlay,
baseline, ...) and the probe cache is cleared before each, so both pay for probing the file. Prints
both wall-clock medians and their ratio (the acceptance number; exit 1 when it exceeds ``--max-ratio``)
and, for information, the CPU-time medians (user + system over all threads), which other load on the
machine disturbs less.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import av

from streamgaze_hf.video import reader
from streamgaze_hf.video.overlay import _PIX_FMT, _FrameWriter, render_overlay_files
from streamgaze_hf.video.reader import open_container, probe_video


def reencode(video: Path, out: Path) -> int:
    """Decode every frame to yuv420p and encode it again with the overlay's writer; no drawing."""
    info = probe_video(video)
    rate = Fraction(info.fps).limit_denominator(100000)
    n = 0
    with open_container(video) as c, _FrameWriter(out, info.width, info.height, rate,
                                                  time_base=info.time_base) as w:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for frame in c.decode(s):
            if frame.format.name != _PIX_FMT:
                frame = frame.reformat(format=_PIX_FMT)
            w.write_frame(frame, info.frame_pts[n] - info.start_pts)
            n += 1
    return n


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads included."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def demo_video(workdir: Path) -> tuple[Path, Path]:
    from streamgaze_hf.demo.world import generate_world

    print("generating the 120 s 640x480 demo video ...", file=sys.stderr, flush=True)
    (vdir,) = generate_world(workdir / "world", n_videos=1, seed=0, duration=120, width=640, height=480,
                             fps=24.0)
    return Path(vdir) / "video.mp4", Path(vdir) / "gaze.csv"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", type=Path, help="source video (default: the 2-minute demo video)")
    ap.add_argument("--gaze", type=Path, help="its gaze.csv (required with --video)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5, at least 3)")
    ap.add_argument("--max-ratio", type=float, default=1.3, help="fail above this ratio (default 1.3)")
    ap.add_argument("--no-progress", action="store_true", help="time the overlay without its tqdm bar")
    a = ap.parse_args(argv)
    if (a.video is None) != (a.gaze is None):
        ap.error("--video and --gaze go together")
    runs = max(3, a.runs)

    with tempfile.TemporaryDirectory(prefix="sg-bench-") as tmp:
        work = Path(tmp)
        video, gaze = (a.video, a.gaze) if a.video else demo_video(work)
        info = probe_video(video)
        print(f"video: {video} ({info.width}x{info.height}, {info.n_frames} frames, {info.fps:.3f} fps, "
              f"{info.codec}); {av.__version__=}", flush=True)
        wall: dict[str, list[float]] = {"baseline": [], "overlay": []}
        cpu: dict[str, list[float]] = {"baseline": [], "overlay": []}
        for r in range(runs):
            # Alternate which goes first so neither always runs on a warmer (or hotter) machine.
            order = ("baseline", "overlay") if r % 2 == 0 else ("overlay", "baseline")
            for what in order:
                reader._probe.cache_clear()
                out = work / f"{what}.mp4"
                t0, c0 = time.perf_counter(), cpu_seconds()
                if what == "baseline":
                    reencode(video, out)
                else:
                    render_overlay_files(video, gaze, out, progress=not a.no_progress)
                dt, dc = time.perf_counter() - t0, cpu_seconds() - c0
                wall[what].append(dt)
                cpu[what].append(dc)
                print(f"run {r + 1}/{runs} {what:8s} wall {dt:7.2f} s  cpu {dc:7.2f} s", flush=True)
                out.unlink()
        mb, mo = statistics.median(wall["baseline"]), statistics.median(wall["overlay"])
        cb, co = statistics.median(cpu["baseline"]), statistics.median(cpu["overlay"])
        ratio = mo / mb
        print(f"decode+re-encode median: wall {mb:.2f} s  cpu {cb:.2f} s")
        print(f"overlay render   median: wall {mo:.2f} s  cpu {co:.2f} s")
        print(f"cpu-time ratio overlay / re-encode: {co / cb:.3f} (information)")
        print(f"ratio overlay / re-encode: {ratio:.3f} (limit {a.max_ratio})")
        return 0 if ratio <= a.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
