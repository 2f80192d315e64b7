"""Sequential gaze salience map (EgoGazeVQA appendix B, Algorithm 1), used by the `_salience` variant.

For each gaze point g_i in temporal order (pixels): add w * exp(-d^2 / 2 sigma^2) on a sparse disk
of radius r sampled every ``step`` pixels, plus a recency impulse w * Weight(i) at the point, with
Weight = linspace(10, 100, N) (later points brighter); Gaussian blur with kernel 6 sigma + 1;
min-max normalise to 0-255. Constants are EgoGazeVQA's (r = 60, step 10, sigma = 20, w = 20).
"""

from __future__ import annotations

import cv2
import numpy as np

from .track import GazeTrack


def salience_map(points_px: np.ndarray, width: int, height: int, radius: int = 60, step: int = 10,
                 sigma: float = 20.0, weight: float = 20.0,
                 recency: tuple[float, float] = (10.0, 100.0)) -> np.ndarray:
    """uint8 (height, width) salience map of pixel points given in temporal order."""
    pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    s = np.zeros((height, width), np.float64)
    if len(pts):
        xs = np.clip(np.rint(pts[:, 0]).astype(np.int64), 0, width - 1)
        ys = np.clip(np.rint(pts[:, 1]).astype(np.int64), 0, height - 1)
        offs = np.arange(-radius, radius + 1, step)
        dx, dy = np.meshgrid(offs, offs)
        keep = dx * dx + dy * dy <= radius * radius
        dx, dy = dx[keep], dy[keep]
        disk = weight * np.exp(-(dx * dx + dy * dy) / (2.0 * sigma * sigma))
        gx = np.clip(xs[:, None] + dx[None, :], 0, width - 1)
        gy = np.clip(ys[:, None] + dy[None, :], 0, height - 1)
        np.add.at(s, (gy.ravel(), gx.ravel()), np.broadcast_to(disk, gx.shape).ravel())
        np.add.at(s, (ys, xs), weight * np.linspace(recency[0], recency[1], len(pts)))
        k = int(6 * sigma + 1)
        s = cv2.GaussianBlur(s, (k, k), 0)
    lo, hi = float(s.min()), float(s.max())
    if hi <= lo:
        return np.zeros((height, width), np.uint8)
    return np.round((s - lo) / (hi - lo) * 255.0).astype(np.uint8)


def track_salience_map(track: GazeTrack, start: float, end: float, **kwargs) -> np.ndarray:
    """Salience map of the valid in-frame samples with start <= t <= end (never later samples)."""
    part = track.between(start, end)
    ok = part.in_frame
    px, py = part.pixels()
    return salience_map(np.stack([px[ok], py[ok]], axis=1), track.width, track.height, **kwargs)


def salience_heatmap(salience: np.ndarray) -> np.ndarray:
    """BGR colour rendering (warm = attended), as the paper's salience prompt describes."""
    return cv2.applyColorMap(salience, cv2.COLORMAP_JET)
