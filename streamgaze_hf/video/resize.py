"""Resizing decoded RGB frames exactly as a model's reader or processor does it, so that the result can be
stored losslessly and the model's own resize then finds nothing left to do.

Each kernel is the library call a model wrapper makes, on the same input type (uint8 RGB), so its output is
bit-identical to the wrapper's (the equality tests of ``tests/e2e/test_model_frames_equal.py`` check it):

``qwen``  ``torchvision.transforms.functional.resize`` (v1) on a uint8 (T, C, H, W) tensor, bicubic with
          antialias (qwen_vl_utils' ``fetch_video``): computed in float and rounded back to uint8, so the
          values are whole numbers a uint8 frame holds exactly;
``hf``    ``torchvision.transforms.v2.functional.resize`` on a uint8 tensor, bicubic with antialias
          (Hugging Face's ``TorchvisionBackend.resize``: the video processors of LLaVA-OneVision, InternVL, ...);
``pil``   ``PIL.Image.resize`` with its default bicubic filter (InternVL's ``dynamic_preprocess``).

All three leave a frame of the target size unchanged (they return it as it is), which is what makes a
pre-resized frame pass the model's resize untouched.
"""

from __future__ import annotations

import numpy as np

KERNELS = ("qwen", "hf", "pil")


def resize_frames(frames: np.ndarray, size: tuple[int, int], kernel: str) -> np.ndarray:
    """``frames`` (N, H, W, 3) uint8 RGB resized to ``size`` = (width, height) with ``kernel``; (N, h, w, 3) uint8."""
    w, h = size
    if frames.shape[1:3] == (h, w):
        return frames
    if kernel == "pil":
        from PIL import Image

        return np.stack([np.asarray(Image.fromarray(f).resize((w, h))) for f in frames])
    if kernel not in KERNELS:
        raise ValueError(f"unknown resize kernel {kernel!r}; expected one of {', '.join(KERNELS)}")
    import torch

    video = torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2)
    if kernel == "qwen":
        from torchvision.transforms import InterpolationMode
        from torchvision.transforms import functional as F

        out = F.resize(video, [h, w], interpolation=InterpolationMode.BICUBIC, antialias=True)
    else:
        from torchvision.transforms.v2 import InterpolationMode
        from torchvision.transforms.v2 import functional as F2

        out = F2.resize(video, [h, w], interpolation=InterpolationMode.BICUBIC, antialias=True)
    if out.dtype != torch.uint8:  # both return uint8 for uint8 input; guard against a library change
        raise ValueError(f"resize kernel {kernel!r} returned {out.dtype}, not uint8")
    return out.permute(0, 2, 3, 1).contiguous().numpy()
