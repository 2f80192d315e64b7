"""The object back-end that names nothing (``build --objects none``): a build without a vision-language model.

Every fixation gets an empty object set, so the tasks whose questions are about object names (all but Future
Action Prediction, which asks about the next action label) have no questions and the build report lists them as
skipped, with the reason "no object names (objects: none)" and the back-ends that would name them. A first look at one's own recordings (gaze, fixations,
overlays, the action task) needs no server; naming objects later is a rebuild with ``--objects vlm``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..gaze import Fixation, FixationObjects, GazeTrack
from .base import VideoObjects


class NoObjectsBackend:
    name = "none"

    def describe(self, video_dir: Path, video_path: Path, track: GazeTrack,
                 fixations: Sequence[Fixation]) -> VideoObjects:
        return VideoObjects(per_fixation=[FixationObjects() for _ in fixations])
