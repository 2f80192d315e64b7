"""How the LLaVA family samples and resizes: Hugging Face ``llava_hf``, the toolkit's ``streamgaze_llava_hf`` and
LLaVA-NeXT's ``llava_onevision`` (:data:`ROWS`). The frames are read by decord, sampled evenly and resized by the
checkpoint's video processor (its size, ``model_frames.with_checkpoint_size``)."""

from __future__ import annotations

from .base import Reading, Wrapper, _checkpoint_size, _plain_layout, _source, linspace_int


def _llava_simple_sample(p, total: int, fps: float) -> Reading:
    return Reading(tuple(linspace_int(total - 1, int(p["max_frames_num"]))))


def _streamgaze_llava_sample(p, total: int, fps: float) -> Reading:
    import numpy as np

    count = max(1, int(p["max_frames_num"]))
    return Reading(tuple(np.unique(np.linspace(0, total - 1, count).round().astype(int)).tolist()))


#: the table's rows of this family
ROWS = (
    Wrapper("llava_hf", "simple", {"max_frames_num": 32}, "decord", _llava_simple_sample, _checkpoint_size,
            "hf", _plain_layout, checkpoint_size=True),
    Wrapper("streamgaze_llava_hf", "chat", {"max_frames_num": 32}, "decord", _streamgaze_llava_sample,
            _checkpoint_size, "hf", _plain_layout, checkpoint_size=True),
    Wrapper("llava_onevision", "simple", {"max_frames_num": 32, "video_decode_backend": "decord"}, "decord",
            _llava_simple_sample, _source, "", _plain_layout, requires={"video_decode_backend": "decord"},
            note="LLaVA-NeXT's processor is not installed here: the frames keep the source size"),
)
