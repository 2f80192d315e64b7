"""Scanpath episodes (paper §3.3): consecutive fixations on the same target merged into episodes.

Two consecutive fixations are merged when the gap between them is shorter than ``merge_gap``
(2 s, as the reference pipeline) *and* they look at the same thing: the same gazed object when both
are known, otherwise centroids within ``merge_radius`` (frame-width units). The reference meant a
spatial test too, but compared normalised centres with a 50-pixel threshold, so its merging was
purely temporal (reference bug 21) and collapsed whole transitions into one episode.

Each episode carries its FOV objects (the representative gazed object first) and its out-of-FOV
objects (objects seen outside the FOV and never inside it during the episode).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .fixations import DEFAULT_R_THRESH, Fixation

DEFAULT_MERGE_GAP = 2.0


@dataclass(frozen=True)
class FixationObjects:
    """What one fixation saw: the gazed object, other objects inside the FOV, objects outside it."""

    gazed: str | None = None
    fov: tuple[str, ...] = ()
    out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Episode:
    start: float
    end: float
    x: float  # duration-weighted centroid, normalised
    y: float
    fixations: tuple[int, ...]  # indices into the fixation list
    gazed: str | None  # representative gazed object
    fov: tuple[str, ...]  # FOV objects, representative first
    out: tuple[str, ...]  # out-of-FOV objects

    @property
    def duration(self) -> float:
        return self.end - self.start

    def to_dict(self) -> dict:
        d = asdict(self)
        d["fixations"] = list(self.fixations)
        d["fov"], d["out"] = list(self.fov), list(self.out)
        return d


def _same_target(a: Fixation, oa: FixationObjects, b: Fixation, ob: FixationObjects,
                 merge_radius: float, aspect: float) -> bool:
    if oa.gazed is not None and ob.gazed is not None:
        return oa.gazed == ob.gazed
    return math.hypot(a.x - b.x, (a.y - b.y) * aspect) <= merge_radius


def build_scanpath(fixations: Sequence[Fixation], objects: Sequence[FixationObjects] | None = None,
                   merge_gap: float = DEFAULT_MERGE_GAP, merge_radius: float = DEFAULT_R_THRESH,
                   aspect: float = 1.0) -> list[Episode]:
    """Merge time-ordered fixations into episodes. ``aspect`` = frame height / width."""
    if objects is None:
        objects = [FixationObjects()] * len(fixations)
    if len(objects) != len(fixations):
        raise ValueError("one FixationObjects per fixation is required")
    groups: list[list[int]] = []
    for i, f in enumerate(fixations):
        if groups:
            j = groups[-1][-1]
            prev = fixations[j]
            if f.start < prev.end:
                raise ValueError("fixations must be in time order and not overlap")
            if f.start - prev.end < merge_gap and _same_target(prev, objects[j], f, objects[i], merge_radius, aspect):
                groups[-1].append(i)
                continue
        groups.append([i])
    return [_episode(g, fixations, objects) for g in groups]


def _episode(idx: list[int], fixations: Sequence[Fixation], objects: Sequence[FixationObjects]) -> Episode:
    fs = [fixations[i] for i in idx]
    weights = [max(f.duration, 1e-6) for f in fs]
    total = sum(weights)
    x = sum(f.x * w for f, w in zip(fs, weights)) / total
    y = sum(f.y * w for f, w in zip(fs, weights)) / total
    # Representative gazed object: the longest-gazed one, ties to the earliest.
    time_on: dict[str, float] = {}
    for i, w in zip(idx, weights):
        g = objects[i].gazed
        if g is not None:
            time_on[g] = time_on.get(g, 0.0) + w
    gazed = max(time_on, key=lambda k: time_on[k]) if time_on else None
    fov: dict[str, None] = {gazed: None} if gazed else {}
    for i in idx:
        o = objects[i]
        for name in ((o.gazed,) if o.gazed else ()) + tuple(o.fov):
            fov.setdefault(name, None)
    out: dict[str, None] = {}
    for i in idx:
        for name in objects[i].out:
            if name not in fov:
                out.setdefault(name, None)
    return Episode(fs[0].start, fs[-1].end, x, y, tuple(idx), gazed, tuple(fov), tuple(out))
