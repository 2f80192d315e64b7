"""A stand-in for lmms-eval's LLaVA-OneVision Hugging Face wrapper, ``llava_hf`` (simple) (perf/model_wait.py):
per request it reads the document's video with that wrapper's own reading code (lmms_eval/models/simple/
llava_hf.py 0.7.3: ``doc_to_visual``, then ``Llava.load_video``: decord, ``np.linspace(0, T - 1, max_frames_num,
dtype=int)``, ``get_batch``), then sleeps (:class:`standin_base.SleepingReader`). Its ``pretrained`` is a folder
holding only the video-processor configuration of llava-hf/llava-onevision-qwen2-7b-ov-hf (384x384, bicubic),
which is what the toolkit reads to size the frames."""

from __future__ import annotations

from standin_base import SleepingReader


class LlavaReader(SleepingReader):
    is_simple = True

    def __init__(self, pretrained=None, max_frames_num: int = 32, **kwargs) -> None:
        super().__init__()
        self.max_frames_num = int(max_frames_num)

    def load_video(self, video_path, max_frames_num):
        import numpy as np
        from decord import VideoReader, cpu

        vr = VideoReader(video_path if isinstance(video_path, str) else video_path[0], ctx=cpu(0))
        frame_idx = np.linspace(0, len(vr) - 1, max_frames_num, dtype=int).tolist()
        return vr.get_batch(frame_idx).asnumpy()

    def read(self, request) -> None:
        _ctx, _gen, doc_to_visual, doc_id, task, split = request.args
        videos = [v for v in doc_to_visual(self.task_dict[task][split][doc_id]) if isinstance(v, str)]
        if videos:
            self.load_video(videos, self.max_frames_num)
