"""The object back-end interface: what the QA generators need to know about objects in a video.

A back-end turns fixations into object sets (paper §3.3: the gazed object, other objects inside the
FOV, objects outside it) and, where it can, exact knowledge the generators use to label questions
at exact times (which objects are visible when, which objects were fixated when). The demo world's
oracle knows everything; annotation- and VLM-based back-ends (raw-source issue) know only the object
sets per fixation, and the generators fall back to those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..gaze import Fixation, FixationObjects, GazeTrack

Interval = tuple[float, float]


@dataclass
class VideoObjects:
    """Object knowledge about one video."""

    per_fixation: list[FixationObjects]
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)  # object -> {color: red, ...}
    attribute_vocabulary: dict[str, list[str]] = field(default_factory=dict)  # color -> [red, blue, ...]
    visible: dict[str, list[Interval]] | None = None  # exact intervals when clearly in view, when known
    glimpsed: dict[str, list[Interval]] | None = None  # intervals when any part is in view, when known
    fixated: dict[str, list[Interval]] | None = None  # exact fixation intervals per object, when known
    gaze_on: dict[str, list[Interval]] | None = None  # exact intervals when the gaze point is on the object


class ObjectBackend(Protocol):
    name: str

    def describe(self, video_dir: Path, video_path: Path, track: GazeTrack,
                 fixations: Sequence[Fixation]) -> VideoObjects:
        """Object sets for each fixation (same order) plus whatever exact knowledge is available."""
        ...
