"""What writing model-ready clips costs: PyAV's mov muxer against the clip laid out here and written in place.

    python perf/clip_write.py [--clips 60] [--frames 32] [--size 384] [--runs 5] [--json OUT]

A pass writes every frame a unit made into the clips that hold them (``video/frame_store.ClipPlacement``), in the
order the units run, not clip by clip. In one process, for ``--runs`` rounds and in alternating order:

``pyav``      each clip written whole, frame by frame through PyAV's ``rawvideo`` encoder and ``mov`` muxer (how
              clips were written before): ``av.VideoFrame.from_ndarray``, ``encode``, ``mux``;
``in place``  the same frames placed into each clip's partial file in unit order (frame ``k`` of every clip, then
              ``k + 1``), then each clip finished (head and index): ``ClipPlacement.put`` and ``finish``.

Both write the same bytes (checked on the first round). Reported: the CPU (user + system) of each, median of the
runs with the range, and the ratio of the medians. Files go to a temporary directory, removed between rounds so
that both write into recycled page-cache pages (a fresh machine pays more for both: docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamgaze_hf.video.frame_store import ClipPlacement  # noqa: E402
from streamgaze_hf.video.lossless import RawLayout, _write_rgb_clip_pyav  # noqa: E402

RATE = Fraction(768, 1441)


def frames_of(n_clips: int, n_frames: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (n_clips, n_frames, size, size, 3), dtype=np.uint8)


def write_pyav(frames: np.ndarray, root: Path) -> list[Path]:
    out = []
    for c, clip in enumerate(frames):
        path = root / f"{c}.mov"
        _write_rgb_clip_pyav(path, list(clip), RATE)
        out.append(path)
    return out


def write_in_place(frames: np.ndarray, root: Path) -> list[Path]:
    n_clips, n_frames, h, w = frames.shape[:4]
    layout = RawLayout(n_frames, h, w, RATE)
    store = ClipPlacement(root / "pass", {str(c): (tuple(f"{c}:{k}" for k in range(n_frames)), layout)
                                          for c in range(n_clips)})
    for k in range(n_frames):  # a unit: frame k of every clip
        store.put(k, {f"{c}:{k}": frames[c, k] for c in range(n_clips)})
    return [store.finish(str(c)) for c in range(n_clips)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=60)
    ap.add_argument("--frames", type=int, default=32)
    ap.add_argument("--size", type=int, default=384, help="square frames of this side (even)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    if a.size % 2 or a.size < 2 or a.clips < 1 or a.frames < 1 or a.runs < 1:
        ap.error("--size must be even and positive; --clips, --frames and --runs positive")
    frames = frames_of(a.clips, a.frames, a.size)
    times: dict[str, list[float]] = {"pyav": [], "in place": []}
    with tempfile.TemporaryDirectory(prefix="clip-write-") as tmp:
        for r in range(a.runs):
            for name in (("pyav", "in place") if r % 2 == 0 else ("in place", "pyav")):
                root = Path(tmp) / name.replace(" ", "_")
                root.mkdir()
                t0 = time.process_time()
                paths = (write_pyav if name == "pyav" else write_in_place)(frames, root)
                times[name].append(time.process_time() - t0)
                if r == 0:
                    (Path(tmp) / f"first-{name.replace(' ', '_')}").write_bytes(paths[-1].read_bytes())
                shutil.rmtree(root)
            if r == 0 and (Path(tmp) / "first-pyav").read_bytes() != (Path(tmp) / "first-in_place").read_bytes():
                raise SystemExit("the two writers wrote different bytes")
    gb = frames.nbytes / 1e9
    report = {"clips": a.clips, "frames": a.frames, "size": a.size, "gb": round(gb, 3), "runs": a.runs}
    for name, ts in times.items():
        med = statistics.median(ts)
        report[name] = {"cpu_s": round(med, 3), "min": round(min(ts), 3), "max": round(max(ts), 3)}
        print(f"{name:9s} {med:6.2f} s CPU [{min(ts):.2f}-{max(ts):.2f}] for {gb:.2f} GB ({a.clips} clips of "
              f"{a.frames} frames, {a.size}x{a.size})")
    ratio = report["pyav"]["cpu_s"] / max(report["in place"]["cpu_s"], 1e-9)
    report["pyav_over_in_place"] = round(ratio, 2)
    print(f"in place costs {1 / ratio:.2f}x PyAV's writes")
    if a.json:
        a.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
