"""A stand-in for lmms-eval's LLaVA-OneVision Hugging Face wrapper, ``llava_hf`` (simple) (perf/model_wait.py):
per request it reads the document's video with that wrapper's own reading code (lmms_eval/models/simple/
llava_hf.py 0.7.3: ``doc_to_visual``, then ``Llava.load_video``: decord, ``np.linspace(0, T - 1, max_frames_num,
dtype=int)``, ``get_batch``), then sleeps ``$STREAMGAZE_STANDIN_SLEEP`` seconds (a model's time on a GPU: no
CPU) and answers "A". Its ``pretrained`` is a folder holding only the video-processor configuration of
llava-hf/llava-onevision-qwen2-7b-ov-hf (384x384, bicubic), which is what the toolkit reads to size the frames."""

from __future__ import annotations

import os
import time

from lmms_eval.api.model import lmms


class LlavaReader(lmms):
    is_simple = True

    def __init__(self, pretrained=None, max_frames_num: int = 32, **kwargs) -> None:
        super().__init__()
        self.max_frames_num = int(max_frames_num)
        self.sleep = float(os.environ["STREAMGAZE_STANDIN_SLEEP"])
        self._rank, self._world_size = 0, 1

    def load_video(self, video_path, max_frames_num):
        import numpy as np
        from decord import VideoReader, cpu

        vr = VideoReader(video_path if isinstance(video_path, str) else video_path[0], ctx=cpu(0))
        frame_idx = np.linspace(0, len(vr) - 1, max_frames_num, dtype=int).tolist()
        return vr.get_batch(frame_idx).asnumpy()

    def generate_until(self, requests):
        out = []
        for req in requests:
            _ctx, _gen, doc_to_visual, doc_id, task, split = req.args
            visuals = doc_to_visual(self.task_dict[task][split][doc_id])
            videos = [v for v in visuals if isinstance(v, str)]
            if videos:
                self.load_video(videos, self.max_frames_num)
            time.sleep(self.sleep)
            out.append("A")
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError
