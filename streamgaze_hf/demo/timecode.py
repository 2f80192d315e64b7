"""A frame index burnt into the demo world's pictures, so any decoded frame can be identified.

Each corner carries a strip of 24 black/white blocks: the 16-bit frame index and an 8-bit check.
The blocks survive H.264 coding and PNG/JPEG round trips; a corner overdrawn by the gaze overlay
fails its check and the other corners decide. This lets tests check exactly which frames a model
was shown (the no-future-leakage invariant) without trusting any timestamp.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

INDEX_BITS, CHECK_BITS = 16, 8
BITS = INDEX_BITS + CHECK_BITS


def _block(width: int) -> int:
    return max(2, width // 80)


def _check(index: int) -> int:
    return ((index ^ (index >> 8)) * 37 + 11) & 0xFF


def _corners(h: int, w: int, b: int):
    """(row0, col0, direction) of the four strips; bit k sits k blocks from the strip's corner end."""
    return [(0, 0, 1), (0, w - b, -1), (h - b, 0, 1), (h - b, w - b, -1)]


def burn_frame_code(img: np.ndarray, index: int) -> np.ndarray:
    """Write ``index`` (0 <= index < 2**16) into the four corners of a BGR image, in place."""
    if not 0 <= index < 1 << INDEX_BITS:
        raise ValueError(f"frame index {index} does not fit in {INDEX_BITS} bits")
    h, w = img.shape[:2]
    b = _block(w)
    word = index | (_check(index) << INDEX_BITS)
    for r0, c0, step in _corners(h, w, b):
        for bit in range(BITS):
            c = c0 + step * bit * b
            img[r0:r0 + b, c:c + b] = 255 if (word >> bit) & 1 else 0
    return img


def read_frame_code(img: np.ndarray) -> int | None:
    """The frame index burnt by :func:`burn_frame_code`, by majority of the corners whose check
    matches; None when no corner reads consistently."""
    h, w = img.shape[:2]
    b = _block(w)
    gray = img.mean(axis=2) if img.ndim == 3 else img
    m = b // 4
    votes: Counter = Counter()
    for r0, c0, step in _corners(h, w, b):
        word = 0
        for bit in range(BITS):
            c = c0 + step * bit * b
            cell = gray[r0 + m:r0 + b - m, c + m:c + b - m]
            if float(cell.mean()) > 127:
                word |= 1 << bit
        index = word & ((1 << INDEX_BITS) - 1)
        if word >> INDEX_BITS == _check(index):
            votes[index] += 1
    return votes.most_common(1)[0][0] if votes else None
