"""Previews: the small copies of a dataset's videos that the Hub's dataset viewer plays (dataset/viewer.py).

A preview is a low-rate, scaled copy (resample.py: the source frames on screen at ``k / fps``, stamped with
their source timestamps) made as small as a glance allows: the shorter side scaled to
:attr:`PreviewSpec.short_side` pixels (never enlarged; even sizes, aspect kept), ``fps`` frames a second,
H.264 at a high CRF with a keyframe every ``gop`` frames. x264 runs on one thread, so the same source gives
the same bytes on every machine (x264's output depends on its thread count).

Measured on the demo dataset (3 videos of 80-103 s at 320x240, 24 fps; docs/datasets.md): the three previews
of the overlay videos at the default spec are under 3 % of the bytes of ``videos/`` (originals and
overlays); the full benchmark's videos are larger (1280x960 and up), so the share should be smaller there (not measured).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from ..util.errors import StreamGazeError
from .frame_reader import probe_video
from .resample import write_resampled

PREVIEW_PRESET = "medium"  # smaller files than veryfast at the same CRF; previews are tiny, so it is cheap


@dataclass(frozen=True)
class PreviewSpec:
    """How previews are made: ``fps`` frames a second, the shorter side ``short_side`` pixels, x264 ``crf``,
    a keyframe every ``gop`` frames."""

    fps: float = 2.0
    short_side: int = 144
    crf: int = 32
    gop: int = 20

    def __post_init__(self):
        if not (math.isfinite(self.fps) and self.fps > 0):
            raise StreamGazeError(f"preview fps must be a positive number, got {self.fps}")
        if self.short_side < 16 or self.gop < 1 or not 0 <= self.crf <= 51:
            raise StreamGazeError(f"bad preview spec {self} (short side >= 16 px, gop >= 1, crf 0-51)")

    def as_dict(self) -> dict:
        """The spec as the manifest records it."""
        return {"fps": self.fps, "short_side": self.short_side, "crf": self.crf, "gop": self.gop,
                "codec": "h264", "preset": PREVIEW_PRESET}


DEFAULT_PREVIEW = PreviewSpec()


def preview_size(width: int, height: int, short_side: int) -> tuple[int, int]:
    """(w, h) scaled so the shorter side is ``short_side`` (never enlarged), even, aspect kept."""
    scale = min(1.0, short_side / min(width, height))
    return max(2, int(round(width * scale / 2)) * 2), max(2, int(round(height * scale / 2)) * 2)


def build_preview(src: str | os.PathLike[str], out: str | os.PathLike[str], spec: PreviewSpec = DEFAULT_PREVIEW,
                  progress: bool = False) -> Path:
    """Write the preview of ``src`` to ``out`` (atomic). Returns ``out``; :class:`VideoError` naming ``src``
    when it cannot be read."""
    info = probe_video(src)
    return write_resampled(src, out, spec.fps, preview_size(info.width, info.height, spec.short_side),
                           crf=spec.crf, preset=PREVIEW_PRESET, gop=spec.gop, threads=1, what="preview",
                           progress=progress)
