"""Overlay render time vs. a plain decode + re-encode of the same video (acceptance: ratio <= 1.3).

    python benchmarks/overlay.py [--video V.mp4 --gaze GAZE.csv] [--runs 5] [--max-ratio 1.3]

Without ``--video`` it generates the 2-minute 640x480 demo video (``generate_world``, seed 0, 24 fps).

Three pipelines are timed, interleaved (the order rotates every run) and with the probe cache cleared
before each, so all of them pay for probing the file:

``overlay``   ``render_overlay_files`` (reads the gaze CSV, draws, encodes);
``baseline``  the plain decode + re-encode the acceptance ratio is defined against: every frame decoded
              (threaded) to a yuv420p array -- the pixel format the overlay works in -- and encoded from
              that array with the :class:`H264Writer` settings, the same time base and per-frame pts;
``passthru``  a stricter floor for information: the decoded frames handed straight to the encoder
              (no array at all), i.e. the cheapest possible transcode.

Prints the wall-clock medians and ``overlay / baseline`` (exit 1 when it exceeds ``--max-ratio``), plus
``overlay / passthru`` and the CPU-time (user + system, all threads) medians, which other load on the
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
from streamgaze_hf.video.overlay import _PIX_FMT, render_overlay_files
from streamgaze_hf.video.reader import open_container, probe_video
from streamgaze_hf.video.writer import H264Writer


def reencode(video: Path, out: Path, via_array: bool = True) -> int:
    """Decode every frame to yuv420p and encode it again with the overlay's writer settings; no drawing.

    ``via_array``: go through a yuv420p numpy array per frame (decode to an array, encode from it);
    otherwise pass the decoded frames straight to the encoder.
    """
    info = probe_video(video)
    rate = Fraction(info.fps).limit_denominator(100000)
    n = 0
    with open_container(video) as c, H264Writer(out, info.width, info.height, rate,
                                                  time_base=info.time_base) as w:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for frame in c.decode(s):
            if frame.format.name != _PIX_FMT:
                frame = frame.reformat(format=_PIX_FMT)
            if via_array:
                frame = av.VideoFrame.from_ndarray(frame.to_ndarray(), format=_PIX_FMT)
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
        names = ("baseline", "overlay", "passthru")
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        for r in range(runs):
            # Rotate the order so that no pipeline always runs first (or last) on the machine.
            for what in names[r % 3:] + names[:r % 3]:
                reader._probe.cache_clear()
                out = work / f"{what}.mp4"
                t0, c0 = time.perf_counter(), cpu_seconds()
                if what == "overlay":
                    render_overlay_files(video, gaze, out, progress=not a.no_progress)
                else:
                    reencode(video, out, via_array=what == "baseline")
                dt, dc = time.perf_counter() - t0, cpu_seconds() - c0
                wall[what].append(dt)
                cpu[what].append(dc)
                print(f"run {r + 1}/{runs} {what:8s} wall {dt:7.2f} s  cpu {dc:7.2f} s", flush=True)
                out.unlink()
        mw = {k: statistics.median(v) for k, v in wall.items()}
        mc = {k: statistics.median(v) for k, v in cpu.items()}
        for k in names:
            print(f"median {k:8s}: wall {mw[k]:7.2f} s  cpu {mc[k]:7.2f} s")
        print(f"overlay / passthru: wall {mw['overlay'] / mw['passthru']:.3f}  "
              f"cpu {mc['overlay'] / mc['passthru']:.3f} (information)")
        print(f"overlay / baseline: cpu {mc['overlay'] / mc['baseline']:.3f} (information)")
        ratio = mw["overlay"] / mw["baseline"]
        print(f"ratio overlay / baseline (wall): {ratio:.3f} (limit {a.max_ratio})")
        return 0 if ratio <= a.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
