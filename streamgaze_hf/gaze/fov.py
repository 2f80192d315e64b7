"""Field of view: the FOV radius in pixels (paper appendix A.3), the FOV crop and the out-of-FOV mask.

tau_fov = r_deg * W / HFOV, with HFOV from the intrinsics when known (2 atan(W / 2 fx)), else 90 deg,
and r_deg = 15 (the upper perifoveal bound). The reference release drew its overlay ring with other
radii (100 px / 0.156 W, reference bug 20); we use one radius for crops, masks and overlays.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

DEFAULT_HFOV_DEG = 90.0
DEFAULT_FOV_DEG = 15.0
RED_BGR = (0, 0, 255)


def hfov_from_intrinsics(fx: float, width: int) -> float:
    """Horizontal field of view in degrees from the focal length in pixels."""
    if fx <= 0 or width <= 0:
        raise ValueError(f"bad intrinsics fx={fx}, width={width}")
    return math.degrees(2.0 * math.atan(width / (2.0 * fx)))


def fov_radius_px(width: int, hfov_deg: float | None = None, r_deg: float = DEFAULT_FOV_DEG) -> int:
    """tau_fov in pixels (rounded): ``r_deg * width / hfov_deg``."""
    hfov = DEFAULT_HFOV_DEG if hfov_deg is None else float(hfov_deg)
    if not 0 < hfov < 180:
        raise ValueError(f"horizontal field of view must be in (0, 180) degrees, got {hfov}")
    return int(round(r_deg * width / hfov))


def fov_crop(frame: np.ndarray, center_px: tuple[float, float], radius: int,
             dot_radius: int | None = None) -> np.ndarray:
    """The circular FOV patch, centred on the gaze even at the frame border (padded with black),
    pixels outside the circle black, with a small red dot at the gaze point. Shape (2r+1, 2r+1, 3)."""
    r = int(radius)
    cx, cy = int(round(center_px[0])), int(round(center_px[1]))
    size = 2 * r + 1
    out = np.zeros((size, size) + frame.shape[2:], dtype=frame.dtype)
    h, w = frame.shape[:2]
    x0, y0 = cx - r, cy - r
    sx0, sy0 = max(0, x0), max(0, y0)
    sx1, sy1 = min(w, x0 + size), min(h, y0 + size)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = frame[sy0:sy1, sx0:sx1]
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, (r, r), r, 255, -1)
    out[mask == 0] = 0
    cv2.circle(out, (r, r), dot_radius or max(2, r // 20), RED_BGR, -1)
    return out


def mask_fov(frame: np.ndarray, center_px: tuple[float, float], radius: int) -> np.ndarray:
    """A copy of the frame with the FOV disk filled black (the out-of-FOV view)."""
    out = frame.copy()
    cv2.circle(out, (int(round(center_px[0])), int(round(center_px[1]))), int(radius), (0, 0, 0), -1)
    return out
