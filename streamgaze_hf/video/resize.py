"""Resizing decoded RGB frames exactly as a model's reader or processor does it, so that the result can be
stored losslessly and the model's own resize then finds nothing left to do.

Each kernel is the library call a model wrapper makes, on the same input type (uint8 RGB), so its output is
bit-identical to the wrapper's (the equality tests of ``tests/e2e/test_model_frames_equal.py`` check it):

``qwen``  ``torchvision.transforms.functional.resize`` (v1) on a uint8 (T, C, H, W) tensor, bicubic with
          antialias (qwen_vl_utils' ``fetch_video``): computed in float and rounded back to uint8, so the
          values are whole numbers a uint8 frame holds exactly;
``hf``    ``torchvision.transforms.v2.functional.resize`` on a uint8 tensor, bicubic with antialias
          (Hugging Face's ``TorchvisionBackend.resize``: the video processors of LLaVA-OneVision, InternVL, ...);
``pil``   ``PIL.Image.resize`` with its default bicubic filter (InternVL's ``dynamic_preprocess``);
``internvl`` InternVL's ``dynamic_preprocess`` where a frame becomes several tiles and a thumbnail (lmms-eval's
          ``internvl3``): its two ``PIL.Image.resize`` calls, the frame to the tile grid and the frame to one
          tile, laid side by side in one **composite** frame (:func:`internvl_composite`); a one-tile size is
          ``pil``'s resize.

The first three leave a frame of the target size unchanged (they return it as it is), which is what makes a
pre-resized frame pass the model's resize untouched. A composite is not a frame the wrapper would leave alone:
the lmms-eval glue's reader fix cuts its tiles out in the wrapper's order (:func:`internvl_tiles`,
``lmms_tasks/wrappers.py``).
"""

from __future__ import annotations

import numpy as np

KERNELS = ("qwen", "hf", "pil", "internvl")

#: InternVL's tile: the ``input_size`` lmms-eval's InternVL wrappers hand ``load_video``
INTERNVL_TILE = 448


def resize_frames(frames: np.ndarray, size: tuple[int, int], kernel: str) -> np.ndarray:
    """``frames`` (N, H, W, 3) uint8 RGB resized to ``size`` = (width, height) with ``kernel``; (N, h, w, 3) uint8."""
    w, h = size
    if kernel == "internvl" and (w, h) != (INTERNVL_TILE, INTERNVL_TILE):  # a composite, whatever the source size
        return np.stack([internvl_composite(f, internvl_grid_of(size)) for f in frames])
    if frames.shape[1:3] == (h, w):
        return frames
    if kernel in ("pil", "internvl"):
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


# ---- InternVL's tiles in one frame ------------------------------------------------------------------

def internvl_composite_size(grid: tuple[int, int]) -> tuple[int, int]:
    """(width, height) of the composite frame of a ``grid`` of (columns, rows) tiles and the thumbnail: the grid
    at the left, the thumbnail at its right, top-aligned."""
    cols, rows = grid
    if cols < 1 or rows < 1 or cols * rows < 2:
        raise ValueError(f"an InternVL grid of {cols}x{rows} tiles has no thumbnail")
    return ((cols + 1) * INTERNVL_TILE, rows * INTERNVL_TILE)


def internvl_grid_of(size: tuple[int, int]) -> tuple[int, int]:
    """The (columns, rows) of the tile grid a composite frame of ``size`` = (width, height) holds."""
    w, h = size
    if w % INTERNVL_TILE or h % INTERNVL_TILE:
        raise ValueError(f"{w}x{h} is not an InternVL composite frame (multiples of {INTERNVL_TILE} px)")
    grid = (w // INTERNVL_TILE - 1, h // INTERNVL_TILE)
    internvl_composite_size(grid)  # raises for a size that holds no grid and thumbnail
    return grid


def internvl_composite(frame: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """``frame`` (H, W, 3) uint8 RGB as InternVL's ``dynamic_preprocess`` makes its tiles for ``grid`` (columns,
    rows), in one frame: ``frame.resize(grid * tile)`` and the thumbnail ``frame.resize((tile, tile))`` (PIL,
    default bicubic, as it calls them), the thumbnail's column zero below it."""
    from PIL import Image

    cols, rows = grid
    w, h = internvl_composite_size(grid)
    image = Image.fromarray(frame)
    out = np.zeros((h, w, 3), np.uint8)
    out[:, :cols * INTERNVL_TILE] = np.asarray(image.resize((cols * INTERNVL_TILE, rows * INTERNVL_TILE)))
    out[:INTERNVL_TILE, cols * INTERNVL_TILE:] = np.asarray(image.resize((INTERNVL_TILE, INTERNVL_TILE)))
    return out


def internvl_tiles(composite: np.ndarray) -> list[np.ndarray]:
    """The tiles of a composite frame in ``dynamic_preprocess``'s order: the grid's row by row, then the
    thumbnail; each (tile, tile, 3), contiguous."""
    h, w = composite.shape[:2]
    cols, rows = internvl_grid_of((w, h))
    t = INTERNVL_TILE
    tiles = [composite[r * t:(r + 1) * t, c * t:(c + 1) * t] for r in range(rows) for c in range(cols)]
    tiles.append(composite[:t, cols * t:])
    return [np.ascontiguousarray(x) for x in tiles]
