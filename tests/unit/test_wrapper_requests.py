"""``harness/wrapper_requests.py``: which lmms-eval wrappers the streaming path drives (``stream-eval --model
lmms:<name>``), and why it refuses the others."""

from __future__ import annotations

from streamgaze_hf.harness.model import WrapperChoice
from streamgaze_hf.harness.wrapper_requests import refusal


def test_the_streaming_path_drives_the_wrappers_the_model_ready_frames_cover():
    def why(model, kind, **args):
        return refusal(WrapperChoice(model, model, kind, args))

    assert why("qwen2_5_vl", "chat") is None and why("qwen2_5_vl", "simple") is None
    assert why("llava_hf", "simple") is None and why("internvl_hf", "chat") is None
    assert "llava_hf/chat with these model args is not covered" in why("llava_hf", "chat")
    assert "not covered" in why("internvl_hf", "chat", fps=2)  # a sampler mode the table does not know
    assert why("streamgaze_random", "simple").startswith("streamgaze_random/simple reads no video")
    assert "with pass_video_url it sends the clip as a file:// URL" in why("openai", "chat", pass_video_url="true")
