"""How the InternVL family samples and resizes: Hugging Face ``internvl_hf``, and InternVL2 / InternVL3 /
InternVL3.5 through their ``load_video`` (segment sampling, the dynamic tiles of ``dynamic_preprocess``; InternVL3's
frames of several tiles are composites, ``video/resize.py``). The lmms-eval glue's fix of ``load_video`` checks a
composite clip's arguments (``ready_job.composite_reading``, ``lmms_tasks/wrappers.py``). Rows: :data:`ROWS`."""

from __future__ import annotations

from fractions import Fraction

from .base import Reading, Wrapper, _checkpoint_size, _fraction, _plain_layout, _rate


def internvl_index(total: int, segments: int) -> list[int]:
    """InternVL's ``get_index`` without a bound (``internvl2.py`` / ``internvl3.py``): the middle of each of
    ``segments`` equal parts of ``[0, total - 1]`` (numpy's banker's rounding)."""
    import numpy as np

    seg = float(total - 1) / segments
    return [int(seg / 2 + np.round(seg * k)) for k in range(segments)]


# InternVL

def _internvl_simple_sample(p, total: int, fps: float) -> Reading:
    return Reading(tuple(internvl_index(total, int(p["num_frame"]))))


def _internvl_simple_layout(p, reading: Reading, total: int, fps: float) -> tuple[list[int], Fraction]:
    """The N picks and one filler last: on N + 1 frames the segment size is exactly 1, so ``get_index`` picks
    0..N-1 (on N frames it would repeat one and skip another)."""
    n = len(reading.picks)
    if len(set(reading.picks)) != n:
        raise ValueError("repeated picks (a clip shorter than num_frame)")
    return [*range(n), n - 1], _rate(Fraction(n, max(total, 1)) * _fraction(fps))


def internvl_tiles_budget(p) -> int:
    """The ``max_num`` lmms-eval's InternVL3 wrapper hands ``load_video`` for a video: its tile budget shared by
    ``num_frame`` frames."""
    total_max = int(p.get("total_max_num", 64))
    return max(1, min(int(p.get("max_num", 12)), total_max // int(p["num_frame"])))


def _internvl2_size(p, width, height, reading):
    return (448, 448)  # load_video(max_num=1): one 448 px tile per frame, no thumbnail


def internvl_grid(width: int, height: int, max_num: int, tile: int = 448) -> tuple[int, int]:
    """The (columns, rows) of tiles InternVL's ``dynamic_preprocess`` (``min_num`` 1) cuts a ``width`` x ``height``
    frame into with ``max_num`` tiles at most: its ``find_closest_aspect_ratio``, ties included (a tie goes to a
    later ratio of the same set, iterated as it iterates it, when the frame's area exceeds half the ratio's)."""
    ratios = {(i, j) for n in range(1, max_num + 1) for i in range(1, n + 1) for j in range(1, n + 1)
              if 1 <= i * j <= max_num}
    aspect, area = width / height, width * height
    best_diff, best = float("inf"), (1, 1)
    for ratio in set(sorted(ratios, key=lambda x: x[0] * x[1])):
        diff = abs(aspect - ratio[0] / ratio[1])
        if diff < best_diff:
            best_diff, best = diff, ratio
        elif diff == best_diff and area > 0.5 * tile * tile * ratio[0] * ratio[1]:
            best = ratio
    return best


def _internvl3_size(p, width, height, reading):
    """One tile: the 448 px tile. Several: the composite of the grid and the thumbnail (``video/resize.py``), which
    the glue's reader fix cuts into the tiles ``dynamic_preprocess`` makes of the source frame."""
    from ...video import INTERNVL_TILE, internvl_composite_size

    cols, rows = internvl_grid(width, height, internvl_tiles_budget(p), INTERNVL_TILE)
    if cols * rows == 1:
        return (INTERNVL_TILE, INTERNVL_TILE)
    return internvl_composite_size((cols, rows))


def _internvl_hf_sample(p, total: int, fps: float) -> Reading:
    import torch

    n = int(p["num_frames"])
    if n > total:
        raise ValueError(f"num_frames {n} > {total} frames")
    return Reading(tuple(torch.arange(total / n / 2, total, total / n).int().tolist()))


# API wrappers (base64 PNG frames at the source size)


_INTERNVL_NOTE = "its model code comes from the Hub (trust_remote_code): proven through its load_video"

#: the table's rows of this family
ROWS = (
    Wrapper("internvl_hf", "chat", {"num_frames": 32, "fps": None}, "torchcodec", _internvl_hf_sample,
            _checkpoint_size, "hf", _plain_layout, unsupported=("fps",), checkpoint_size=True),
    Wrapper("internvl2", "simple", {"num_frame": 32, "modality": "image"}, "decord", _internvl_simple_sample,
            _internvl2_size, "pil", _internvl_simple_layout, requires={"modality": "video"}, note=_INTERNVL_NOTE),
    *(Wrapper(name, "simple", {"num_frame": 32, "max_num": 12, "total_max_num": 64, "modality": "image"}, "decord",
              _internvl_simple_sample, _internvl3_size, "internvl", _internvl_simple_layout,
              requires={"modality": "video"}, note=_INTERNVL_NOTE)
      for name in ("internvl3", "internvl3_5")),
)
