"""Everything the QA generators read about one video, and the exact-time queries they label with.

All queries take an explicit time so generators can only use what happened up to a question's
query time (reference bugs 12-13 used the whole video).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ....gaze import Action, Episode, Fixation, GazeTrack
from ....objects.base import Interval, VideoObjects


def _in_intervals(intervals: list[Interval], t: float) -> bool:
    return any(s - 1e-9 <= t <= e + 1e-9 for s, e in intervals)


@dataclass
class VideoContext:
    video_id: str
    source: str
    duration: float
    fps: float
    track: GazeTrack
    fixations: list[Fixation]  # scene-consistent fixations, in time order
    objects: VideoObjects  # objects.per_fixation aligned with fixations
    episodes: list[Episode]
    actions: list[Action] = field(default_factory=list)
    r_thresh: float = 0.08

    # ---- object knowledge up to a time -------------------------------------------------------
    def episodes_until(self, t: float) -> list[Episode]:
        """Episodes that ended at or before t."""
        return [e for e in self.episodes if e.end <= t + 1e-9]

    def seen_until(self, t: float) -> list[str]:
        """Objects seen (inside or outside the FOV) in episodes ended by t, first-seen order."""
        seen: dict[str, None] = {}
        for e in self.episodes_until(t):
            for name in e.fov + e.out:
                seen.setdefault(name, None)
        return list(seen)

    def fixated_before(self, name: str, t: float) -> bool:
        """Was the object fixated (gazed at, or inside the FOV of a fixation) at any time <= t?"""
        if self.objects.fixated is not None:
            if any(s <= t + 1e-9 for s, _ in self.objects.fixated.get(name, [])):
                return True
        for f, o in zip(self.fixations, self.objects.per_fixation):
            if f.start <= t + 1e-9 and (name == o.gazed or name in o.fov):
                return True
        return False

    def visible_at(self, name: str, t: float) -> bool | None:
        """Is the object in view at time t? None when the back-end cannot tell, or when the object
        is only partly in view (neither answer would be fair)."""
        if self.objects.visible is not None:
            if _in_intervals(self.objects.visible.get(name, []), t):
                return True
            if self.objects.glimpsed is not None and _in_intervals(self.objects.glimpsed.get(name, []), t):
                return None
            return False
        for f, o in zip(self.fixations, self.objects.per_fixation):
            if f.start - 1e-9 <= t <= f.end + 1e-9:
                return name == o.gazed or name in o.fov or name in o.out
        return None

    def seen_during(self, name: str, start: float, end: float) -> bool:
        """Was any part of the object in view at some time in [start, end]? (exact back-ends;
        otherwise: listed by a fixation overlapping the interval)."""
        intervals = self.objects.glimpsed if self.objects.glimpsed is not None else self.objects.visible
        if intervals is not None:
            return any(s <= end and e >= start for s, e in intervals.get(name, []))
        return any(f.start <= end and f.end >= start and (name == o.gazed or name in o.fov or name in o.out)
                   for f, o in zip(self.fixations, self.objects.per_fixation))

    def first_visible(self, name: str) -> float | None:
        if self.objects.visible is not None:
            iv = self.objects.visible.get(name)
            return min(s for s, _ in iv) if iv else None
        for f, o in zip(self.fixations, self.objects.per_fixation):
            if name == o.gazed or name in o.fov or name in o.out:
                return f.start
        return None

    # ---- gaze at an exact time ---------------------------------------------------------------
    def fixation_at(self, t: float) -> int | None:
        for i, f in enumerate(self.fixations):
            if f.start - 1e-9 <= t <= f.end + 1e-9:
                return i
        return None

    def gaze_on_fixation(self, i: int, t: float) -> bool:
        """Is the latest gaze sample at t valid, in frame and inside fixation i's radius?"""
        f = self.fixations[i]
        k = int(self.track.index_at(t, max_age=2.0 / max(self.fps, 1.0))[0])
        if k < 0 or not self.track.in_frame[k]:
            return False
        dx = self.track.x[k] - f.x
        dy = (self.track.y[k] - f.y) * self.track.aspect
        return float(np.hypot(dx, dy)) <= self.r_thresh

    def gazing_at(self, name: str, t: float) -> bool | None:
        """Is the user gazing at the object at exactly time t (GTA's checkpoint label)?

        Yes: t lies in a fixation on the object and the gaze sample at t is on that fixation.
        With exact gaze knowledge (oracle) the gaze point must also be on the object, and a moment
        when the gaze merely passes over it outside any fixation is ambiguous (None: dropped).
        """
        i = self.fixation_at(t)
        in_fix = i is not None and self.objects.per_fixation[i].gazed == name and self.gaze_on_fixation(i, t)
        if self.objects.gaze_on is None:
            return in_fix
        on = _in_intervals(self.objects.gaze_on.get(name, []), t)
        if not on:
            return False
        return True if in_fix else None

    def stable_time_in(self, i: int, settle: float = 0.2) -> float | None:
        """A gaze-sample time near the middle of fixation i at which the gaze has been on the
        fixation for at least ``settle`` seconds (no flick or blink just before)."""
        f = self.fixations[i]
        lo = int(np.searchsorted(self.track.t, f.start + settle))
        hi = int(np.searchsorted(self.track.t, f.end, side="right"))
        if hi <= lo:
            return None
        mid = (f.start + f.end) / 2
        order = sorted(range(lo, hi), key=lambda k: (abs(self.track.t[k] - mid), k))
        for k in order:
            t = float(self.track.t[k])
            ks = range(int(np.searchsorted(self.track.t, t - settle)), k + 1)
            if all(self.gaze_on_fixation(i, float(self.track.t[j])) for j in ks):
                return t
        return None

    # ---- fixation list for text prompts ------------------------------------------------------
    def fixation_list(self, start: float, end: float) -> list[dict]:
        """Fixations overlapping [start, end], clipped to it; a fixation still running at ``end``
        gets the centroid of its samples up to ``end`` only (no future samples)."""
        out = []
        for f in self.fixations:
            if f.end < start or f.start > end:
                continue
            s, e, x, y = max(f.start, start), min(f.end, end), f.x, f.y
            if f.end > end or f.start < start:
                part = self.track.between(s, e)
                ok = part.in_frame
                if ok.any():
                    x, y = float(np.mean(part.x[ok])), float(np.mean(part.y[ok]))
            out.append({"start": round(s, 3), "end": round(e, 3), "x": round(x, 4), "y": round(y, 4)})
        return out
