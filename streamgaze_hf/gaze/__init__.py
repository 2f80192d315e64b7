"""Gaze: one video's samples (GazeTrack), the readers of every source, fixations, scene checks, scanpaths,
salience, the gaze drawn into videos and on frames, BIDS eye tracking. docs/architecture.md "The tree" names each
module's job."""

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from .bids import (
        BIDS_VERSION,
        DATATYPE,
        TASK,
        Events,
        SceneVideo,
        entity_label,
        write_json,
        write_recording,
    )
    from .direction import (
        DIRECTION_ANGLES,
        DIRECTIONS,
        direction_angle,
        direction_error,
        direction_of,
        discretize,
    )
    from .fixations import Fixation, FixationParams, extract_fixations
    from .fov import DEFAULT_HFOV_DEG, fov_crop, fov_radius_px, mask_fov
    from .io import write_gaze_csv
    from .marks import draw_gaze_circle, scaled_radius
    from .overlay import reencode_video, reencode_with_overlay, render_overlay, render_overlay_files
    from .salience import salience_heatmap, salience_map, track_salience_map
    from .scanpath import DEFAULT_MERGE_GAP, Episode, FixationObjects, build_scanpath
    from .scene import DEFAULT_TAU_SCENE, scene_scores
    from .sources import aria_mps
    from .sources.base import Action, Recording, finite_float
    from .sources.egtea import DEFAULT_FPS
    from .sources.registry import (
        DIRECTORY_SOURCES,
        SOURCES,
        RecordingRef,
        find_recordings,
        load,
        load_recording,
        read_track,
        source_module,
    )
    from .sources.wearable import AssumedVideoWarning
    from .track import GazeTrack

#: public name -> the module of the package that defines it
_FACE = {
    "BIDS_VERSION": "bids",
    "DATATYPE": "bids",
    "Events": "bids",
    "SceneVideo": "bids",
    "TASK": "bids",
    "entity_label": "bids",
    "write_json": "bids",
    "write_recording": "bids",
    "DIRECTIONS": "direction",
    "DIRECTION_ANGLES": "direction",
    "direction_angle": "direction",
    "direction_error": "direction",
    "direction_of": "direction",
    "discretize": "direction",
    "Fixation": "fixations",
    "FixationParams": "fixations",
    "extract_fixations": "fixations",
    "DEFAULT_HFOV_DEG": "fov",
    "fov_crop": "fov",
    "fov_radius_px": "fov",
    "mask_fov": "fov",
    "write_gaze_csv": "io",
    "draw_gaze_circle": "marks",
    "scaled_radius": "marks",
    "reencode_video": "overlay",
    "reencode_with_overlay": "overlay",
    "render_overlay": "overlay",
    "render_overlay_files": "overlay",
    "salience_heatmap": "salience",
    "salience_map": "salience",
    "track_salience_map": "salience",
    "DEFAULT_MERGE_GAP": "scanpath",
    "Episode": "scanpath",
    "FixationObjects": "scanpath",
    "build_scanpath": "scanpath",
    "DEFAULT_TAU_SCENE": "scene",
    "scene_scores": "scene",
    "Action": "sources.base",
    "Recording": "sources.base",
    "finite_float": "sources.base",
    "DEFAULT_FPS": "sources.egtea",
    "DIRECTORY_SOURCES": "sources.registry",
    "RecordingRef": "sources.registry",
    "SOURCES": "sources.registry",
    "find_recordings": "sources.registry",
    "load": "sources.registry",
    "load_recording": "sources.registry",
    "read_track": "sources.registry",
    "source_module": "sources.registry",
    "AssumedVideoWarning": "sources.wearable",
    "GazeTrack": "track",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
    "aria_mps": "sources.aria_mps",
}
__all__ = [
    "Action", "AssumedVideoWarning", "BIDS_VERSION", "DATATYPE", "DEFAULT_FPS", "DEFAULT_HFOV_DEG",
    "DEFAULT_MERGE_GAP", "DEFAULT_TAU_SCENE", "DIRECTIONS", "DIRECTION_ANGLES", "DIRECTORY_SOURCES", "Episode",
    "Events", "Fixation", "FixationObjects", "FixationParams", "GazeTrack", "Recording", "RecordingRef", "SOURCES",
    "SceneVideo", "TASK", "aria_mps", "build_scanpath", "direction_angle", "direction_error", "direction_of",
    "discretize", "draw_gaze_circle", "entity_label", "extract_fixations", "find_recordings", "finite_float",
    "fov_crop", "fov_radius_px", "load", "load_recording", "mask_fov", "read_track", "reencode_video",
    "reencode_with_overlay", "render_overlay", "render_overlay_files", "salience_heatmap", "salience_map",
    "scaled_radius", "scene_scores", "source_module", "track_salience_map", "write_gaze_csv", "write_json",
    "write_recording",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
