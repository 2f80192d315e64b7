"""What the clip cache holds and what it costs: the full-rate clip against the source, and the model-ready store.

    python perf/store.py [--video camera_1920x1080.mp4] [--wrappers ...] [--runs 5] [--real DIR] [--json OUT]

In one run (issue 42):

``full-rate``  ``--frames full`` against the source's truth: every window of a camera-layout source (10 s GOPs, 3
               B-frames, BT.709; made as perf/frames_to_model.py makes it unless ``--video`` gives one) cut as the
               full-rate clip (a smart cut re-encodes its partial GOPs at the project's crf), its frames read by
               decord against decord's frames of the source at the same indices: the maximum absolute error and
               the PSNR over the window, and over the re-encoded frames alone;
``store``      per wrapper, one 60 s window's model-ready clip in both storage forms (``raw``: uncompressed; the
               ``compact`` form: lossless H.264): bytes, and the wrapper's read of each (CPU, median of ``--runs``),
               checked equal; the same on real camera frames (``--real``: the Aria RGB frames of
               ../shared/real_data beside the checkout, 1408x1408), whose noise compresses far less than a synthetic scene;
``benchmark``  bytes per document of each wrapper's raw store at 1080p, times the full StreamGaze benchmark's 23,821
               documents (8,521 questions; a proactive question is one document per checkpoint), against 50 GB.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from perf.shared.scripts import load_script  # noqa: E402

DOCUMENTS = 23_821
QUESTIONS = 8_521
LIMIT_GB = 50.0
WINDOWS = [(3.3, 17.1), (0.0, 12.7), (11.2, 19.9), (21.7, 43.2), (0.0, 47.9), (33.3, 58.6)]
WRAPPERS = ("llava_hf/simple", "qwen2_5_vl/chat", "qwen3_vl/chat", "llava_onevision/simple", "internvl3/simple",
            "openai/simple", "openai/chat")


def psnr_of(sq_sum: float, count: int) -> float:
    """PSNR (8-bit) of a squared-error sum over ``count`` samples."""
    mse = sq_sum / max(count, 1)
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


#: frames compared at a time (a 1080p RGB frame is 6.2 MB; a whole 48 s window at once would need tens of GB)
CHUNK = 48


def full_rate_truth(video: Path, cache: Path) -> list[dict]:
    import decord

    from streamgaze_hf.video.clips import prepare_clip, read_sidecar

    source = decord.VideoReader(str(video), num_threads=1)
    out = []
    for start, end in WINDOWS:
        clip = prepare_clip(video, start, end, None, cache)
        side = read_sidecar(clip)
        got = decord.VideoReader(str(clip), num_threads=1)
        idx = side["source_indices"]
        copied = side["segments"]["copied"] if side.get("segments") else None
        encoded = [k for k, s in enumerate(idx) if not (copied and copied[0] <= s < copied[1])
                   ] if side["mode"] != "copy" else []
        re_encoded = set(encoded)
        max_abs = max_re = 0
        sq = sq_re = 0.0
        n = n_re = 0
        for lo in range(0, len(idx), CHUNK):
            ks = list(range(lo, min(lo + CHUNK, len(idx))))
            mine = got.get_batch(ks).asnumpy().astype(np.int16)
            truth = source.get_batch([idx[k] for k in ks]).asnumpy().astype(np.int16)
            diff = mine - truth
            del mine, truth
            max_abs = max(max_abs, int(np.abs(diff).max()))
            sq += float(np.square(diff, dtype=np.float64).sum())
            n += diff.size
            sel = [j for j, k in enumerate(ks) if k in re_encoded]
            if sel:
                d = diff[sel]
                max_re = max(max_re, int(np.abs(d).max()))
                sq_re += float(np.square(d, dtype=np.float64).sum())
                n_re += d.size
        row = {"window": [start, end], "mode": side["mode"], "frames": len(idx), "re_encoded": len(encoded),
               "max_abs": max_abs, "psnr": psnr_of(sq, n)}
        if encoded:
            row.update(max_abs_re_encoded=max_re, psnr_re_encoded=psnr_of(sq_re, n_re))
        out.append(row)
        print(f"full-rate [{start}, {end}] ({side['mode']}, {len(encoded)} of {len(idx)} frames re-encoded): max abs "
              f"{row['max_abs']}, PSNR {row['psnr']:.1f} dB over the window"
              + (f", {row['psnr_re_encoded']:.1f} dB over the re-encoded frames" if encoded else ""), flush=True)
    return out


def store(video: Path, key: str, start: float, end: float, work: Path, runs: int) -> dict:
    from streamgaze_hf.evaluation.model_frames import frames_request, resolve_spec
    from streamgaze_hf.evaluation.ready import ready_clip, ready_sidecar
    from streamgaze_hf.util.errors import StreamGazeError

    mr = load_script("model_ready")
    ckpt = mr.checkpoint_dirs(work)
    args = mr.wrapper_args(key, ckpt)
    spec = resolve_spec(frames_request(*key.split("/"), args))
    read = mr.wrapper_reader(key, args)
    row: dict = {}
    frames = {}
    for form in ("raw", "compact"):
        clip = ready_clip(video, start, end, None, spec, work / f"cache-{form}", store=form)
        try:
            ready_sidecar(clip)
        except StreamGazeError:  # the wrapper cannot read this window (too few frames): the full-rate clip
            return {}
        cpus = []
        for _ in range(runs):
            c0 = time.process_time()
            frames[form] = read(str(clip))
            cpus.append(time.process_time() - c0)
        row[form] = {"bytes": clip.stat().st_size, "read_ms": 1e3 * statistics.median(cpus), "suffix": clip.suffix}
    if not np.array_equal(frames["raw"], frames["compact"]):
        raise AssertionError(f"{key}: the compact form reads back other frames than the raw one")
    row["ratio"] = row["raw"]["bytes"] / row["compact"]["bytes"]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", type=Path, default=None, help="a 1080p camera-layout video of at least 60 s")
    ap.add_argument("--wrappers", default=",".join(WRAPPERS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--real", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared/real_data/aria_mps/raw_formats/videos/gen2_general.mp4",
                    help="a real camera video (default: 8 Aria RGB frames of ../shared/real_data; skipped if absent)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    import logging

    logging.getLogger("qwen_vl_utils.vision_process").setLevel(logging.ERROR)
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="store-") as tmp:
        work = Path(tmp)
        video = a.video
        if video is None:
            video = work / "camera.mp4"
            load_script("frames_to_model").write_camera(video, 1920, 1080, 24.0, 60 * 24, bt709=True)
        report["full_rate"] = full_rate_truth(video, work / "cache-full")
        wrappers = [k for k in a.wrappers.split(",") if k]
        report["store"] = {k: store(video, k, 0.0, 59.9, work, a.runs) for k in wrappers}
        if a.real.is_file():
            report["store_real"] = {k: r for k in wrappers if (r := store(a.real, k, 0.0, 10.0, work, a.runs))}
        print("\n| wrapper | frames | raw MB a document | compact MB | x smaller | read raw ms CPU | read compact ms CPU"
              " | real frames: x smaller | full benchmark, raw GB | compact GB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for key, r in report["store"].items():
            real = report.get("store_real", {}).get(key)
            raw_gb = r["raw"]["bytes"] * DOCUMENTS / 1e9
            compact_gb = r["compact"]["bytes"] * DOCUMENTS / 1e9
            r.update(benchmark_raw_gb=raw_gb, benchmark_compact_gb=compact_gb, over_limit=raw_gb > LIMIT_GB)
            real_ratio = f"{real['ratio']:.1f}" if real else "–"
            print(f"| {key} | 1080p, 60 s | {r['raw']['bytes'] / 1e6:.1f} | {r['compact']['bytes'] / 1e6:.1f} | "
                  f"{r['ratio']:.1f} | {r['raw']['read_ms']:.1f} | {r['compact']['read_ms']:.1f} | {real_ratio} | "
                  f"{raw_gb:,.0f} | {compact_gb:,.0f} |")
    if a.json:
        a.json.write_text(json.dumps(report, indent=1, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
