"""Small fixes of lmms-eval 0.7.3 model wrappers that break on StreamGaze documents
(docs/evaluation.md "Evaluate your model"). Each subclasses the wrapper and changes only what is broken; and two
fixes of the readers every wrapper of a run shares, installed by the glue (``lmms_tasks/utils.py``) whenever
lmms-eval runs our tasks (:func:`install_reader_fixes`):

``qwen_vl_utils`` reading a model-ready clip (issue 42) — a wrapper that reads video through ``fetch_video``
(Qwen3-VL, Qwen3.5, LLaVA-OneVision-1.5's chat class, the OpenAI-style and vLLM chat wrappers: the family of
``streamgaze_hf/evaluation/wrappers/qwen.py``) gets, for a model-ready clip made for it
(``streamgaze_hf/evaluation/ready_job.py``: ``hook_reading``), the clip's frames whole and the metadata of the
full-rate window: its frame rate, the sampled indices, its frame count. Qwen3-VL writes the
time of each frame pair into its prompt (``<t seconds>``, from those indices and that rate), which a shorter clip
cannot reproduce by itself. The indices are computed again by qwen_vl_utils' own ``smart_nframes`` from the
element the wrapper built; a clip made for other arguments raises (never another frame silently).

InternVL3's ``load_video`` reading a model-ready clip of composite frames (issue 42) — where lmms-eval's
``internvl3``/``internvl3_5`` make several tiles and a thumbnail of each frame, a model-ready clip holds both of
``dynamic_preprocess``'s resizes side by side in one composite frame (``streamgaze_hf/video/resize.py``): the
module's ``load_video`` reads such a clip with its own sampler (``get_index``) and its own transform, and cuts each
composite into the tiles in ``dynamic_preprocess``'s order instead of resizing the frame. A clip made for other
arguments (frame count, tile budget, tile size, a bound) raises; every other file is read by the original.

``lmms_eval.protocol`` encoding frames as base64 (lmms-eval's OpenAI-style chat path) — its per-message cache keys a
``PIL.Image`` by ``id()``: the images of a video's frames are made one after another in a loop and freed, so a
later frame can get an earlier, freed frame's id and be sent as that frame's encoding
(docs/performance.md, "An upstream report"). Frames are encoded without that cache; file paths keep it.

``streamgaze_llava_hf`` (its class in ``lmms_tasks/llava_hf_chat.py``, imported only when a run names it) —
lmms-eval's ``llava_hf`` chat wrapper hands the processor ``images=[]`` for a
document without images (every variant but ``_salience``), which the LLaVA-OneVision image processor
of transformers 5 rejects (``IndexError`` in ``preprocess``), and it hands video *paths* to a processor
that decodes them only with ``torchcodec`` (which needs system FFmpeg libraries); its ``--force_simple``
form picks one modality per document and so cannot show the salience map together with the clip. This
wrapper is the chat wrapper with empty media lists passed as ``None`` and each video decoded by decord
into ``max_frames_num`` uniformly spaced frames (first and last frame of the clip included), as
lmms-eval's simple ``llava_hf`` samples them.
"""

from __future__ import annotations

import os
import sys

import numpy as np


def uniform_frames(path: str, count: int) -> np.ndarray:
    """``count`` frames of the video at ``path`` spread uniformly from its first to its last frame
    (every frame when it has fewer), as an array (T, H, W, 3) in RGB."""
    from decord import VideoReader, cpu

    reader = VideoReader(path, ctx=cpu(0))
    idx = np.unique(np.linspace(0, len(reader) - 1, max(1, int(count))).round().astype(int))
    return reader.get_batch(idx.tolist()).asnumpy()


class _ProcessorFix:
    """Calls the wrapped processor with empty media lists as ``None`` and video paths decoded."""

    def __init__(self, processor, frames: int) -> None:
        self._processor = processor
        self._frames = frames

    def __call__(self, *args, images=None, videos=None, **kwargs):
        if videos:
            videos = [uniform_frames(v, self._frames) if isinstance(v, str) else v for v in videos]
        return self._processor(*args, images=images or None, videos=videos or None, **kwargs)

    def __getattr__(self, name):
        return getattr(self._processor, name)


#: the modules whose readers :func:`install_reader_fixes` fixes, and how
READER_FIXES = {"qwen_vl_utils.vision_process": "_fix_qwen_vl_utils", "lmms_eval.models.simple.internvl3":
                "_fix_internvl3", "lmms_eval.protocol": "_fix_protocol"}


def install_reader_fixes() -> list[str]:
    """Install the reader fixes (module docstring): now in a module imported already, else as soon as something
    imports it (``streamgaze_hf/util/imports.when_imported``: a run whose wrapper never reads through InternVL3's
    or qwen_vl_utils' code does not pay for importing them). Returns the modules fixed now."""
    from streamgaze_hf.util.imports import when_imported

    fix = globals()
    before = [name for name in READER_FIXES if name in sys.modules]
    for name, how in READER_FIXES.items():
        when_imported(name, fix[how])
    return before


def _fix_qwen_vl_utils(vp) -> None:
    if not getattr(vp, "_streamgaze_fixed", False):
        for name, fn in list(vp.VIDEO_READER_BACKENDS.items()):
            vp.VIDEO_READER_BACKENDS[name] = _model_ready_reader(fn, name, vp)
        vp._streamgaze_fixed = True


def _fix_internvl3(internvl3) -> None:
    if not getattr(internvl3, "_streamgaze_fixed", False):
        internvl3.load_video = _composite_load_video(internvl3.load_video, internvl3)
        internvl3._streamgaze_fixed = True


def _fix_protocol(protocol) -> None:
    chat_messages = protocol.ChatMessages
    if getattr(chat_messages, "_streamgaze_fixed", False):
        return
    original = chat_messages.encode_image

    def encode_image(self, image, cache=None, image_format="PNG", quality=None):
        return original(self, image, cache if isinstance(image, str) else None, image_format, quality)

    chat_messages.encode_image = encode_image
    chat_messages._streamgaze_fixed = True


def _model_ready_reader(original, backend: str, vp):
    """qwen_vl_utils' reader ``original`` (``backend``), which for a model-ready clip returns its frames with the
    full-rate window's metadata."""
    import functools

    @functools.wraps(original)
    def read(ele):
        from streamgaze_hf.evaluation import hook_reading

        path = ele.get("video")
        recorded = hook_reading(path) if isinstance(path, str) else None
        if recorded is None:
            return original(ele)
        import torch

        from streamgaze_hf.video import read_frames

        total, fps, seen = recorded
        start, end, count = vp.calculate_video_frame_range(ele, total, fps)
        n = vp.smart_nframes(ele, total_frames=count, video_fps=fps)
        idx = torch.linspace(start, end, n).round().long().tolist()
        if tuple(idx) != seen:
            raise ValueError(f"{path}: this model-ready clip holds frames {list(seen)[:6]}... of the window, the "
                             f"wrapper asks for {idx[:6]}... (another frame count or rate): run with --frames full, "
                             "or make the clips for these model arguments")
        frames = read_frames(path, list(range(len(seen))), "torchcodec" if backend == "torchcodec" else "decord")
        video = torch.from_numpy(frames).permute(0, 3, 1, 2)
        metadata = {"fps": fps, "frames_indices": idx, "total_num_frames": count, "video_backend": backend}
        return video, metadata, n / max(count, 1e-6) * fps

    return read


def _composite_load_video(original, module):
    """InternVL3's ``load_video`` (``original``, of ``module``), which for a model-ready clip of composite frames
    cuts each sampled frame into its tiles instead of resizing it (module docstring)."""
    import functools

    @functools.wraps(original)
    def load_video(video_path, bound=None, input_size=448, max_num=1, num_segments=32):
        from streamgaze_hf.evaluation import composite_reading

        args = composite_reading(video_path) if isinstance(video_path, (str, os.PathLike)) else None
        if args is None:
            return original(video_path, bound, input_size, max_num, num_segments)
        import torch
        from PIL import Image

        from streamgaze_hf.evaluation import internvl_tiles_budget
        from streamgaze_hf.video import INTERNVL_TILE, internvl_tiles

        asked = (bound, input_size, max_num, num_segments)
        planned = (None, INTERNVL_TILE, internvl_tiles_budget(args), int(args["num_frame"]))
        if asked != planned:
            raise ValueError(f"{video_path}: this model-ready clip holds InternVL tiles for (bound, input_size, "
                             f"max_num, num_segments) = {planned}, the wrapper asks for {asked}: run with --frames "
                             "full, or make the clips for these model arguments")
        vr = module.VideoReader(str(video_path), ctx=module.cpu(0), num_threads=1)
        transform = module.build_transform(input_size=input_size)
        pixel_values, patches = [], []
        for index in module.get_index(bound, float(vr.get_avg_fps()), len(vr) - 1, first_idx=0,
                                      num_segments=num_segments):
            tiles = internvl_tiles(vr[index].asnumpy())
            values = torch.stack([transform(Image.fromarray(tile)) for tile in tiles])
            patches.append(values.shape[0])
            pixel_values.append(values)
        return torch.cat(pixel_values), patches

    return load_video
