"""The egocentric camera: a frame-sized viewport moving over the scene canvases.

The path is a list of contiguous segments; each holds one scene and moves the viewport's top-left
corner from ``start`` to ``end`` (canvas pixels) between ``t0`` and ``t1``, linearly (slow drift
during a fixation) or with a smooth ease-in/ease-out (a head turn between fixations). A segment is in
force from its ``t0`` until the next segment's ``t0``; a hard scene cut is simply a segment of another
scene starting at the cut time. Video frames and gaze samples evaluate the same path, so the gaze
always lands where the objects are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class CameraSegment:
    t0: float
    t1: float
    scene: int
    start: tuple[float, float]
    end: tuple[float, float]
    ease: bool = False


@dataclass
class CameraPath:
    """Piecewise camera trajectory; see the module docstring."""

    segments: list[CameraSegment] = field(default_factory=list)

    def add(self, t0: float, t1: float, scene: int, start: tuple[float, float],
            end: tuple[float, float] | None = None, ease: bool = False) -> None:
        if self.segments and t0 < self.segments[-1].t0:
            raise ValueError("camera segments must be added in time order")
        self.segments.append(CameraSegment(t0, max(t0, t1), scene, start, start if end is None else end, ease))

    def at(self, times: np.ndarray | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Scene index, viewport x and y (canvas pixels, float) at each time."""
        times = np.atleast_1d(np.asarray(times, dtype=np.float64))
        t0 = np.array([s.t0 for s in self.segments])
        k = np.clip(np.searchsorted(t0, times, side="right") - 1, 0, len(self.segments) - 1)
        scene = np.array([s.scene for s in self.segments])[k]
        t1 = np.array([s.t1 for s in self.segments])[k]
        span = np.maximum(t1 - t0[k], 1e-9)
        u = np.clip((times - t0[k]) / span, 0.0, 1.0)
        ease = np.array([s.ease for s in self.segments])[k]
        u = np.where(ease, u * u * (3.0 - 2.0 * u), u)
        sx = np.array([s.start[0] for s in self.segments])[k]
        sy = np.array([s.start[1] for s in self.segments])[k]
        ex = np.array([s.end[0] for s in self.segments])[k]
        ey = np.array([s.end[1] for s in self.segments])[k]
        return scene, sx + (ex - sx) * u, sy + (ey - sy) * u
