"""What holding decoded frames before making them saves: a pass with each frame made as it leaves the decoder
against one that makes them in runs of up to N frames (``evaluation/ready.HOLD_BYTES``).

    python perf/unit_hold.py --video V.mp4 [--questions 200] [--holds 1,16] [--runs 3]
                             [--wrapper llava_hf/simple] [--work DIR] [--json OUT]

A decode unit (``video/one_pass.py``) hands out its wanted frames one by one; each is converted to RGB as the
wrapper's reader does it and resized with the wrapper's kernel (``ready.run_unit``). Made at once, the conversion
and the resize push the decoder's reference frames and tables out of the caches between two decodes; held back
and made in a run, each step keeps its own working set. In one process, for ``--runs`` rounds in alternating
order, each hold (decoded frames of the video) makes the ``--questions`` windows of perf/model_ready.py (half past
``[0, t]``, half present ``[t - 60, t]``) of ``--video`` in one pass on this thread (``ready.ready_clips``: decode,
convert, resize, write) into an empty cache, for the wrapper's model-ready frames (llava_hf: 384x384). Reported:
the CPU (user + system of this process) of each, the median and range, and each median against the first hold's
(the baseline, 1: a frame made as soon as it is decoded), with the decode floor of the video (every frame decoded
once, one thread) beside them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from perf.shared.scripts import load_script  # noqa: E402


def frame_bytes(video: Path) -> int:
    """Bytes of one decoded frame of ``video`` as ``ready.HOLD_BYTES`` counts them (``ready.frame_bytes``)."""
    import av

    from streamgaze_hf.evaluation.ready import frame_bytes as held_bytes

    with av.open(str(video)) as c:
        return held_bytes(next(c.decode(video=0)))


def one_pass(video: Path, windows, spec, cache: Path) -> tuple[float, dict]:
    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.video import clips

    shutil.rmtree(cache, ignore_errors=True)
    clips._clear_memos()
    t0 = time.process_time()
    _out, stats = ready.ready_clips(video, windows, None, spec, cache)
    cpu = time.process_time() - t0
    shutil.rmtree(cache, ignore_errors=True)
    return cpu, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", type=Path, required=True, help="the source video (e.g. perf/model_wait.py's)")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--holds", default="1,16", help="decoded frames held before they are made; the first is the "
                                                    "baseline (default 1,16)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--wrapper", default="llava_hf/simple", help="the model-ready frames' wrapper (model_ready.py)")
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    if not a.video.is_file():
        ap.error(f"--video {a.video}: no such file")
    try:
        holds = [int(x) for x in a.holds.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--holds {a.holds!r}: frame counts, e.g. 1,16")
    if not holds or min(holds) < 1 or a.runs < 1 or a.questions < 1:
        ap.error("--holds, --runs and --questions must be at least 1")

    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.evaluation.model_frames import frames_request, resolve_spec

    mr = load_script("model_ready")
    work = a.work or Path(tempfile.mkdtemp(prefix="unit-hold-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        spec = resolve_spec(frames_request(*a.wrapper.split("/"),
                                           mr.wrapper_args(a.wrapper, mr.checkpoint_dirs(work))))
        from streamgaze_hf.video.frame_reader import probe_video

        windows = [(max(0.0, s), e) for s, e in mr.background_windows(a.questions, min(600.0, probe_video(a.video).duration))]
        ready.preload()
        size = frame_bytes(a.video)
        floor = mr.decode_floor(a.video)
        print(f"floor: the whole video decoded once in {floor:.1f} s of CPU; a frame holds {size} bytes", flush=True)
        cpu: dict[int, list[float]] = {h: [] for h in holds}
        decoded = None
        for r in range(a.runs):
            for h in (holds if r % 2 == 0 else holds[::-1]):
                ready.HOLD_BYTES = h * size
                c, stats = one_pass(a.video, windows, spec, work / "cache")
                cpu[h].append(c)
                decoded = stats["decoded"]
                print(f"  round {r + 1}, hold {h}: {c:.2f} s", flush=True)
        base = statistics.median(cpu[holds[0]])
        report = {"video": str(a.video), "questions": a.questions, "wrapper": a.wrapper, "decoded": decoded,
                  "floor_cpu_s": round(floor, 2), "holds": {}}
        for h in holds:
            med = statistics.median(cpu[h])
            report["holds"][h] = {"cpu_s": round(med, 2), "min": round(min(cpu[h]), 2), "max": round(max(cpu[h]), 2),
                                  "vs_baseline": round(med / base, 3), "vs_floor": round(med / floor, 2)}
            print(f"hold {h:>3}: {med:.2f} s CPU (median of {a.runs}, {min(cpu[h]):.2f}-{max(cpu[h]):.2f}) = "
                  f"{med / base:.3f} x hold {holds[0]}, {med / floor:.2f} x the floor", flush=True)
        if a.json:
            a.json.write_text(json.dumps(report, indent=1))
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
