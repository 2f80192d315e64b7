"""``streamgaze_llava_hf``: lmms-eval's ``llava_hf`` chat wrapper with its processor fixed (``lmms_tasks/wrappers.py``
says what and why). A module of its own: importing lmms-eval's LLaVA wrapper imports transformers' image processing
and torchvision, seconds of start-up that only a run of this wrapper needs."""

from __future__ import annotations

from lmms_eval.models.chat.llava_hf import LlavaHf

from lmms_tasks.wrappers import _ProcessorFix


class LlavaHfChat(LlavaHf):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._image_processor = _ProcessorFix(self._image_processor, self.max_frames_num)
