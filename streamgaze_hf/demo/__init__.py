"""The synthetic egocentric demo world behind the embedded demo and the end-to-end tests.

``generate_world(out, ...)`` writes per-video ``video.mp4``, ``gaze.csv``, ``actions.json`` and
``objects.json`` (ground truth); see :mod:`streamgaze_hf.demo.world`.
"""

from .world import generate_world, video_ids

__all__ = ["generate_world", "video_ids"]
