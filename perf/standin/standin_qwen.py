"""A stand-in for lmms-eval's Qwen2.5-VL chat wrapper (perf/model_wait.py): per request it reads the document's
video with the wrapper's own reading code (lmms_eval/models/chat/qwen2_5_vl.py 0.7.3: the decord probe for
``nframes``, ``ChatMessages.to_hf_messages``, qwen_vl_utils' ``process_vision_info``), then sleeps
(:class:`standin_base.SleepingReader`)."""

from __future__ import annotations

from lmms_eval.protocol import ChatMessages
from standin_base import SleepingReader


class QwenReader(SleepingReader):
    is_simple = False

    def __init__(self, pretrained=None, max_num_frames: int = 32, min_pixels: int = 256 * 28 * 28,
                 max_pixels: int = 1605632, fps=None, **kwargs) -> None:
        super().__init__()
        self.max_num_frames, self.min_pixels, self.max_pixels, self.fps = int(max_num_frames), min_pixels, max_pixels, fps

    def read(self, request) -> None:
        import decord
        from qwen_vl_utils import process_vision_info

        _ctx, doc_to_messages, _gen, doc_id, task, split = request.args
        messages = ChatMessages(messages=doc_to_messages(self.task_dict[task][split][doc_id]))
        _images, videos, _audios = messages.extract_media()
        video_kwargs = {"max_pixels": self.max_pixels, "min_pixels": self.min_pixels}
        if self.fps is not None:
            video_kwargs["fps"] = self.fps
        else:
            n = min(self.max_num_frames, len(decord.VideoReader(videos[0])))
            video_kwargs["nframes"] = max(2, (n // 2) * 2)
        process_vision_info([messages.to_hf_messages(video_kwargs=video_kwargs)], return_video_kwargs=True,
                            return_video_metadata=True)
