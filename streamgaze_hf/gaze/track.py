"""The one gaze representation every source reader produces and every consumer reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..util.errors import GazeFormatError


@dataclass(frozen=True, eq=False)
class GazeTrack:
    """A gaze stream aligned with one video.

    ``t``: sample times in seconds on the video's clock, strictly increasing.
    ``x``, ``y``: gaze position normalised to the frame, origin top-left, x to the right, y down;
    values outside [0, 1] are valid samples that fall outside the frame; NaN where unknown.
    ``valid``: the tracker's validity flag (False during blinks / tracking loss).
    ``width``, ``height``, ``fps``: the video the track belongs to.
    ``hfov_deg``: the camera's horizontal field of view when known (from intrinsics), else None.
    """

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    width: int
    height: int
    fps: float
    hfov_deg: float | None = None

    def __post_init__(self) -> None:
        t = np.asarray(self.t, dtype=np.float64)
        x = np.asarray(self.x, dtype=np.float64)
        y = np.asarray(self.y, dtype=np.float64)
        valid = np.asarray(self.valid, dtype=bool)
        if not (t.ndim == x.ndim == y.ndim == valid.ndim == 1) or not (len(t) == len(x) == len(y) == len(valid)):
            raise GazeFormatError("t, x, y and valid must be 1-D arrays of the same length")
        if not np.all(np.isfinite(t)):
            raise GazeFormatError(f"timestamp is not a finite number at sample {int(np.argmin(np.isfinite(t)))}")
        if len(t) > 1:
            d = np.diff(t)
            if np.any(d <= 0):
                i = int(np.argmax(d <= 0)) + 1
                raise GazeFormatError(
                    f"timestamps must be strictly increasing: sample {i} has t={t[i]:.6f} after t={t[i - 1]:.6f}"
                )
        if self.width <= 0 or self.height <= 0 or not self.fps > 0:
            raise GazeFormatError(f"bad video geometry {self.width}x{self.height} @ {self.fps} fps")
        # A sample without coordinates cannot be valid.
        valid = valid & np.isfinite(x) & np.isfinite(y)
        for name, arr in (("t", t), ("x", x), ("y", y), ("valid", valid)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    def __len__(self) -> int:
        return len(self.t)

    @property
    def in_frame(self) -> np.ndarray:
        """Valid samples whose point lies inside the frame."""
        with np.errstate(invalid="ignore"):
            return self.valid & (self.x >= 0) & (self.x <= 1) & (self.y >= 0) & (self.y <= 1)

    @property
    def aspect(self) -> float:
        """height / width: multiply a y difference by this to measure it in frame-width units."""
        return self.height / self.width

    def pixels(self) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (float) of every sample."""
        return self.x * self.width, self.y * self.height

    def index_at(self, times: np.ndarray | float, max_age: float | None = None) -> np.ndarray:
        """Index of the latest sample at or before each time (-1 if none, or if older than ``max_age``).

        Never looks at a sample after the requested time: overlays and prompts built from it cannot
        leak the future.
        """
        times = np.atleast_1d(np.asarray(times, dtype=np.float64))
        idx = np.searchsorted(self.t, times + 1e-9, side="right") - 1
        if max_age is not None:
            ok = idx >= 0
            age = np.full(len(times), np.inf)
            age[ok] = times[ok] - self.t[idx[ok]]
            idx = np.where(age <= max_age + 1e-9, idx, -1)
        return idx

    def between(self, start: float, end: float) -> GazeTrack:
        """The samples with start <= t <= end."""
        lo = int(np.searchsorted(self.t, start - 1e-9, side="left"))
        hi = int(np.searchsorted(self.t, end + 1e-9, side="right"))
        return GazeTrack(self.t[lo:hi], self.x[lo:hi], self.y[lo:hi], self.valid[lo:hi],
                         self.width, self.height, self.fps, self.hfov_deg)
