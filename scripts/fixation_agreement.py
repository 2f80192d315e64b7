"""How the toolkit's fixations agree with pymovements' on the real recordings (docs/own-recordings.md, "pymovements").

Information, not a gate. Every real recording of shared/real_data/own_recordings that a reader places on a scene
clock is exported with ``export-bids`` (the library call), loaded into pymovements (gaze/pymovements_io.py) and run
through three comparisons, each on the recording's valid samples:

* eye-movement fixations: the toolkit's detector (gaze/fixations.py) at that scale (a 0.5° radius around the
  running centroid, 100 ms) against pymovements' I-VT and I-DT at their defaults (20 °/s on a Savitzky-Golay
  velocity over 40 ms; 1.0° dispersion; 100 ms);
* dwells (the benchmark's fixations): the toolkit's detector at its defaults (0.08 frame widths around the running
  centroid, 2 s) against I-DT with the same scale: dispersion 2 x 0.08 frame widths in degrees, 2000 ms.

Reported: the fraction of valid samples labelled alike (in a fixation, or not), the fixation counts, and for each
toolkit fixation that a pymovements fixation overlaps, the difference of their onsets (median and largest).

    python scripts/fixation_agreement.py [--real-data shared/real_data] > table.md
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from streamgaze_hf.dataset.bids_export import export_bids  # noqa: E402
from streamgaze_hf.gaze.bids import read_physio  # noqa: E402
from streamgaze_hf.gaze.fixations import DEFAULT_R_THRESH, FixationParams, extract_fixations  # noqa: E402
from streamgaze_hf.gaze.pymovements_io import fixations, physio_gaze, scene_hfov  # noqa: E402
from streamgaze_hf.gaze.track import GazeTrack  # noqa: E402

RECORDINGS = [
    ("neon", "neon_native/demo_recording_v2.5"), ("neon", "neon_native/multi_part_v2.5"),
    ("neon", "neon_native/demo_recording_v2.3"), ("neon", "neon_native/multi_part_v2.3"),
    ("pupil_cloud", "pupil_cloud_export/neon_2024-09-17_11-06-49-171c4f52"),
    ("pupil_core", "pupil_core/1920x1080_000"),
    ("tobii_g3", "tobii_g3/calibration_1"), ("tobii_g3", "tobii_g3/calibration_tobii_1"),
    ("tobii_g2", "tobii_g2/gzz7stc"),
]


def labels(t: np.ndarray, spans: list[tuple[float, float]]) -> np.ndarray:
    """True for the samples inside any [onset, offset]."""
    out = np.zeros(len(t), dtype=bool)
    for a, b in spans:
        out |= (t >= a - 1e-9) & (t <= b + 1e-9)
    return out


def onset_differences(ours: list[tuple[float, float]], theirs: list[tuple[float, float]]) -> list[float]:
    """|onset difference| (ms) of each of our fixations and the one of theirs that overlaps it most."""
    out = []
    for a, b in ours:
        overlap = [(min(b, d) - max(a, c), c) for c, d in theirs if min(b, d) > max(a, c)]
        if overlap:
            out.append(abs(max(overlap)[1] - a) * 1000.0)
    return out


def compare(track: GazeTrack, ours, theirs) -> str:
    ok = track.valid
    alike = float(np.mean(labels(track.t, ours)[ok] == labels(track.t, theirs)[ok])) if ok.any() else float("nan")
    d = onset_differences(ours, theirs)
    onset = f"{np.median(d):.0f} / {max(d):.0f}" if d else "-"
    return f"{100 * alike:.1f} % | {len(ours)} / {len(theirs)} | {onset}"  # three table cells


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real-data", default=str(REPO.parent / "shared" / "real_data"))
    a = ap.parse_args()
    own = Path(a.real_data) / "own_recordings"
    print("| recording | hfov | valid samples | vs I-VT: alike | count | onset Δ ms | vs I-DT: alike | count | onset Δ ms "
          "| dwell vs I-DT 2 s: alike | count | onset Δ ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, (source, rel) in enumerate(RECORDINGS):
            out = Path(tmp) / str(k)
            export_bids(own / rel, out, raw_source=source, progress=False)
            [side] = sorted(out.glob("sub-*/beh/*_physio.json"))
            physio = read_physio(side)
            scene = physio.sidecar["SceneVideo"]
            track = GazeTrack(physio.t, physio.x, physio.y, physio.valid, scene["Width"], scene["Height"],
                              scene["FrameRate"])
            hfov = scene_hfov(physio.sidecar)
            gaze = physio_gaze(side)
            eye = FixationParams(r_thresh=0.5 / hfov, min_duration=0.1)
            short = [(f.start, f.end) for f in extract_fixations(track, eye)]
            dwell = [(f.start, f.end) for f in extract_fixations(track)]
            ivt = fixations(gaze, "ivt")
            idt = fixations(gaze, "idt")
            idt_dwell = fixations(gaze, "idt", minimum_duration_ms=2000.0,
                                  dispersion_threshold=2 * DEFAULT_R_THRESH * hfov)
            print(f"| {source} {Path(rel).name} | {hfov:g}° | {int(track.valid.sum())} | {compare(track, short, ivt)} | "
                  f"{compare(track, short, idt)} | {compare(track, dwell, idt_dwell)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
