"""What a model is shown, the same way for every benchmark and harness.

* ``settings.py``: :class:`~.settings.RunSettings`, the run's settings (prompt mode, clip fps, protocol,
  proxy, prefetch), built from the environment only at the edges and recorded with every document;
* ``visuals.py``: window clips and salience images for a document (no frame after the window's end),
  gaze as known at a window's end;
* ``prefetch.py``: clips ready before the model asks: in the background during a run, or ahead of it
  (``streamgaze clips warm``);
* ``protocols.py``: the official harness's per-family frame sampling and generation (``--protocol``);
* ``prompts.py``: prompt modes and the default multiple-choice block;
* ``baselines.py``: the random and oracle baselines' answers.
"""

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from . import prefetch, prompts
    from .baselines import oracle_answer, random_answer, random_doc_answer
    from .frame_digest import doc_frames_digest, document_digests, frames_digest, item_name
    from .model_frames import (
        frames_request,
        internvl_tiles_budget,
        reads_no_video,
        unmatched_reason,
        with_checkpoint_size,
    )
    from .prefetch import PREFETCH_THREADS
    from .prompts import PROMPT_MODES, check_modes, mc_question_block
    from .protocols import Protocol, get_protocol
    from .ready_job import composite_reading, hook_reading
    from .recorded import (
        SHARED,
        document_settings,
        every_recorded_setting,
        record_settings,
        recorded_settings,
        row_settings,
        row_texts,
        run_record,
        settings_text,
        submission_fields,
        submission_settings,
    )
    from .schedule import background_summary
    from .settings import RunSettings, given, with_flags
    from .visuals import (
        clip_fixations,
        doc_clip_spec,
        doc_fps_cap,
        doc_media,
        doc_visuals,
        doc_window,
        gaze_tracks,
        make_ready_clips,
        salience_image,
        video_gaze_track,
        video_geometry,
        window_clip,
    )
    from .warm import warm_clips

#: public name -> the module of the package that defines it
_FACE = {
    "doc_frames_digest": "frame_digest",
    "document_digests": "frame_digest",
    "frames_digest": "frame_digest",
    "item_name": "frame_digest",
    "oracle_answer": "baselines",
    "random_answer": "baselines",
    "random_doc_answer": "baselines",
    "frames_request": "model_frames",
    "internvl_tiles_budget": "model_frames",
    "reads_no_video": "model_frames",
    "unmatched_reason": "model_frames",
    "with_checkpoint_size": "model_frames",
    "PREFETCH_THREADS": "prefetch",
    "PROMPT_MODES": "prompts",
    "check_modes": "prompts",
    "mc_question_block": "prompts",
    "Protocol": "protocols",
    "get_protocol": "protocols",
    "composite_reading": "ready_job",
    "hook_reading": "ready_job",
    "SHARED": "recorded",
    "document_settings": "recorded",
    "every_recorded_setting": "recorded",
    "record_settings": "recorded",
    "recorded_settings": "recorded",
    "row_settings": "recorded",
    "row_texts": "recorded",
    "run_record": "recorded",
    "settings_text": "recorded",
    "submission_fields": "recorded",
    "submission_settings": "recorded",
    "background_summary": "schedule",
    "RunSettings": "settings",
    "given": "settings",
    "with_flags": "settings",
    "clip_fixations": "visuals",
    "doc_clip_spec": "visuals",
    "doc_fps_cap": "visuals",
    "doc_media": "visuals",
    "doc_visuals": "visuals",
    "doc_window": "visuals",
    "gaze_tracks": "visuals",
    "make_ready_clips": "visuals",
    "salience_image": "visuals",
    "video_gaze_track": "visuals",
    "video_geometry": "visuals",
    "window_clip": "visuals",
    "warm_clips": "warm",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
    "prefetch": "prefetch",
    "prompts": "prompts",
}
__all__ = [
    "PREFETCH_THREADS", "PROMPT_MODES", "Protocol", "RunSettings", "SHARED", "background_summary", "check_modes",
    "clip_fixations", "composite_reading", "doc_clip_spec", "doc_fps_cap", "doc_frames_digest", "doc_media",
    "doc_visuals", "doc_window", "document_digests", "document_settings", "every_recorded_setting", "frames_digest",
    "frames_request", "gaze_tracks", "get_protocol", "given", "hook_reading", "internvl_tiles_budget", "item_name",
    "make_ready_clips", "mc_question_block", "oracle_answer", "prefetch", "prompts", "random_answer",
    "random_doc_answer", "reads_no_video", "record_settings", "recorded_settings", "row_settings", "row_texts",
    "run_record", "salience_image", "settings_text", "submission_fields", "submission_settings", "unmatched_reason",
    "video_gaze_track", "video_geometry", "warm_clips", "window_clip", "with_checkpoint_size", "with_flags",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
