"""Fixation extraction (paper §3.2, appendix A.2): dispersion around the running centroid + duration.

A fixation is a run of samples whose every point lies within ``r_thresh`` of the run's centroid
(distances in frame-width units: dx and dy * height/width, so the radius is isotropic in pixels),
lasting at least ``min_duration`` seconds (last sample time - first sample time).

Interruptions: when the gaze leaves the radius (a flick, a micro-saccade) or the tracker drops out
(a blink: invalid samples) or leaves the frame, the fixation continues if the gaze is back within
the radius no more than ``max_interruption`` seconds later (the interruption lasts from one sample
period after the last in-radius sample to the returning sample); the interrupting samples are not
part of the centroid. Otherwise the fixation ends at its last in-radius sample. Only valid in-frame
samples start or extend a fixation: blinks and off-frame looks never form one.

The reference code measured distances from the first sample instead of the centroid, ran on invalid
placeholder samples, and used a 0.01 s gap tolerance that never fires (reference bug 17).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .track import GazeTrack

DEFAULT_R_THRESH = 0.08
DEFAULT_MIN_DURATION = 2.0
DEFAULT_MAX_INTERRUPTION = 0.2


@dataclass(frozen=True)
class Fixation:
    """A fixation: [start, end] in seconds, centroid (x, y) normalised top-left."""

    start: float
    end: float
    x: float
    y: float
    n_samples: int

    @property
    def duration(self) -> float:
        return self.end - self.start

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class FixationParams:
    r_thresh: float = DEFAULT_R_THRESH  # in frame-width units
    min_duration: float = DEFAULT_MIN_DURATION  # seconds
    max_interruption: float = DEFAULT_MAX_INTERRUPTION  # seconds

    def __post_init__(self) -> None:
        if not self.r_thresh > 0 or self.min_duration < 0 or self.max_interruption < 0:
            raise ValueError(f"bad fixation parameters {self}")


def extract_fixations(track: GazeTrack, params: FixationParams | None = None) -> list[Fixation]:
    """All fixations of a track, in time order (see the module docstring for the rule)."""
    p = params or FixationParams()
    n = len(track)
    if n == 0:
        return []
    t = track.t
    px = np.where(track.valid, track.x, np.nan)
    py = np.where(track.valid, track.y * track.aspect, np.nan)  # y in frame-width units
    usable = track.in_frame
    dt = float(np.median(np.diff(t))) if n > 1 else 0.0
    r2 = p.r_thresh * p.r_thresh
    out: list[Fixation] = []

    i = _next_usable(usable, 0)
    while i < n:
        members = [i]
        sx, sy = px[i], py[i]
        cx, cy = sx, sy
        slack_center = (cx, cy)  # centroid at the last full dispersion check
        slack = 0.0  # max member distance to slack_center at that check
        last = i
        j = i + 1
        while j < n:
            resume = j  # where to look for the gaze coming back if j interrupts the fixation
            if usable[j] and (px[j] - cx) ** 2 + (py[j] - cy) ** 2 <= r2 and t[j] - t[last] - dt <= p.max_interruption + 1e-9:
                # Tentatively add j; keep it only if every member stays within r of the new centroid.
                k = len(members) + 1
                ncx, ncy = (sx + px[j]) / k, (sy + py[j]) / k
                shift = float(np.hypot(ncx - slack_center[0], ncy - slack_center[1]))
                ok = True
                if slack + shift > p.r_thresh:
                    idx = np.asarray(members + [j])
                    d = np.max((px[idx] - ncx) ** 2 + (py[idx] - ncy) ** 2)
                    ok = d <= r2
                    if ok:
                        slack_center, slack = (ncx, ncy), float(np.sqrt(d))
                if ok:
                    members.append(j)
                    sx, sy, cx, cy = sx + px[j], sy + py[j], ncx, ncy
                    last = j
                    j += 1
                    continue
                resume = j + 1  # inside the radius but it would push another member out
            # j interrupts the fixation: is the gaze back inside the radius soon enough?
            back = _return_index(px, py, usable, t, resume, cx, cy, r2, t[last] + dt + p.max_interruption)
            if back is None:
                break
            j = back
        if t[last] - t[i] >= p.min_duration - 1e-9:
            out.append(Fixation(float(t[i]), float(t[last]), float(cx), float(cy / track.aspect), len(members)))
            i = _next_usable(usable, last + 1)
        else:
            i = _next_usable(usable, i + 1)
    return out


def _next_usable(usable: np.ndarray, start: int) -> int:
    nz = np.flatnonzero(usable[start:])
    return start + int(nz[0]) if len(nz) else len(usable)


def _return_index(px, py, usable, t, j, cx, cy, r2, deadline) -> int | None:
    """First index >= j back within the radius at or before ``deadline``, else None."""
    k = j
    n = len(t)
    while k < n and t[k] <= deadline + 1e-9:
        if usable[k] and (px[k] - cx) ** 2 + (py[k] - cy) ** 2 <= r2:
            return k
        k += 1
    return None
