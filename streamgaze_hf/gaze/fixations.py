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
        c = _Cluster(px, py, i)
        j = i + 1
        while j < n:
            resume = j  # where to look for the gaze coming back if j interrupts the fixation
            last = c.members[-1]
            if usable[j] and c.dist2(j) <= r2 and t[j] - t[last] - dt <= p.max_interruption + 1e-9:
                if c.try_add(j, p.r_thresh, t, p.max_interruption):
                    j += 1
                    continue
                resume = j + 1  # inside the radius but it would push other members out
            # j interrupts the fixation: is the gaze back inside the radius soon enough?
            back = _return_index(px, py, usable, t, resume, c.cx, c.cy, r2, t[last] + dt + p.max_interruption)
            if back is None:
                break
            j = back
        first, last = c.members[0], c.members[-1]
        if t[last] - t[first] >= p.min_duration - 1e-9:
            out.append(Fixation(float(t[first]), float(t[last]), float(c.cx), float(c.cy / track.aspect),
                                len(c.members)))
            i = _next_usable(usable, last + 1)
        else:
            i = _next_usable(usable, i + 1)
    return out


class _Cluster:
    """The samples of a growing fixation and their running centroid (y in frame-width units)."""

    def __init__(self, px: np.ndarray, py: np.ndarray, i: int):
        self.px, self.py = px, py
        self.members = [i]
        self.sx, self.sy = float(px[i]), float(py[i])
        self.cx, self.cy = self.sx, self.sy
        self.slack_center = (self.cx, self.cy)  # centroid at the last full dispersion check
        self.slack = 0.0  # max member distance to slack_center at that check

    def dist2(self, j: int) -> float:
        return (self.px[j] - self.cx) ** 2 + (self.py[j] - self.cy) ** 2

    def try_add(self, j: int, r: float, t: np.ndarray, lead_window: float) -> bool:
        """Add j if every member stays within r of the new centroid. Members that fall out are
        dropped instead when they are all at the very start of the cluster (within ``lead_window``
        of its first sample): a saccade's landing sample must not cap the fixation that follows."""
        members = self.members + [j]
        sx, sy = self.sx + self.px[j], self.sy + self.py[j]
        cx, cy = sx / len(members), sy / len(members)
        if self.slack + float(np.hypot(cx - self.slack_center[0], cy - self.slack_center[1])) <= r:
            self._set(members, sx, sy, cx, cy)
            return True
        while True:
            idx = np.asarray(members)
            d2 = (self.px[idx] - cx) ** 2 + (self.py[idx] - cy) ** 2
            bad = np.flatnonzero(d2 > r * r)
            if bad.size == 0:
                self._set(members, sx, sy, cx, cy)
                self.slack_center, self.slack = (cx, cy), float(np.sqrt(d2.max()))
                return True
            k = int(bad[-1]) + 1  # drop members[:k] only if they are exactly the violators ...
            if (bad.size != k or k >= len(members) - 1
                    or t[members[k - 1]] - t[members[0]] > lead_window + 1e-9):  # ... and lead in
                return False
            drop = np.asarray(members[:k])
            sx, sy = sx - float(self.px[drop].sum()), sy - float(self.py[drop].sum())
            members = members[k:]
            cx, cy = sx / len(members), sy / len(members)

    def _set(self, members: list[int], sx: float, sy: float, cx: float, cy: float) -> None:
        self.members, self.sx, self.sy, self.cx, self.cy = members, sx, sy, cx, cy


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
