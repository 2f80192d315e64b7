"""Small builders shared by the tests (synthetic tracks with known fixations)."""

from __future__ import annotations

import numpy as np

from streamgaze_hf.gaze.track import GazeTrack


def piecewise_track(segments, rate: float = 30.0, width: int = 640, height: int = 480, fps: float = 30.0,
                    jitter: float = 0.0, seed: int = 0) -> GazeTrack:
    """segments: list of (n_samples, x, y, valid); consecutive samples at 1/rate."""
    rng = np.random.default_rng(seed)
    xs, ys, vs = [], [], []
    for n, x, y, v in segments:
        xs.extend([x] * n)
        ys.extend([y] * n)
        vs.extend([v] * n)
    x = np.array(xs, float) + rng.normal(0, jitter, len(xs))
    y = np.array(ys, float) + rng.normal(0, jitter, len(ys))
    t = np.arange(len(xs)) / rate
    return GazeTrack(t, x, y, np.array(vs, bool), width, height, fps)
