"""H.264 (yuv420p, +faststart) writing with PyAV: the codec settings every project video uses.

Browsers and decord both play these files. Output is atomic: the file appears only when complete.
No B-frames by default, so decode order equals presentation order: a prefix of the packets is a
prefix of the frames, which lets window clips be cut by copying packets (video/clips.py) without
ever carrying a frame from after the window. Keyframes every second, plus any the caller forces
(``write(..., keyframe=True)``, e.g. at the start of every present-task window).
"""

from __future__ import annotations

import contextlib
import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.frame import PictureType

from ..fsutil import atomic_output

DEFAULT_CRF = 18
DEFAULT_PRESET = "veryfast"


class H264Writer:
    """Context manager: ``with H264Writer(out, w, h, fps) as w: w.write(bgr, pts)``.

    ``time_base`` and per-frame ``pts`` let a caller copy a source's timestamps exactly; without
    them frames are numbered at 1/fps. ``gop`` is the keyframe interval in frames (default: 1 s);
    ``tune`` an x264 tune (e.g. ``fastdecode``; default none).
    """

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, fps: float | Fraction,
                 time_base: Fraction | None = None, crf: int = DEFAULT_CRF, preset: str = DEFAULT_PRESET,
                 gop: int | None = None, threads: int = 0, bframes: int = 0, tune: str = ""):
        self.path = Path(path)
        self.width, self.height = int(width), int(height)
        if self.width % 2 or self.height % 2:
            raise ValueError(f"H.264 yuv420p needs even frame sizes, got {self.width}x{self.height}")
        self.rate = Fraction(fps).limit_denominator(100000)
        self.time_base = time_base or Fraction(1, 1) / self.rate
        self.crf, self.preset = crf, preset
        self.gop = gop or max(1, round(float(self.rate)))
        self.threads = threads
        self.bframes = bframes
        self.tune = tune
        self._n = 0

    def __enter__(self) -> H264Writer:
        self._atomic = atomic_output(self.path)
        tmp = self._atomic.__enter__()
        try:
            self._c = av.open(str(tmp), "w", format="mp4", options={"movflags": "+faststart"})
            s = self._c.add_stream("libx264", rate=self.rate)
            s.width, s.height, s.pix_fmt = self.width, self.height, "yuv420p"
            s.codec_context.time_base = self.time_base
            s.options = {"crf": str(self.crf), "preset": self.preset, "g": str(self.gop),
                         "threads": str(self.threads), "bf": str(self.bframes),
                         **({"tune": self.tune} if self.tune else {})}
            self._s = s
        except BaseException as exc:
            self._atomic.__exit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    def write(self, bgr: np.ndarray, pts: int | None = None, keyframe: bool = False) -> None:
        self.write_frame(av.VideoFrame.from_ndarray(np.ascontiguousarray(bgr), format="bgr24"), pts, keyframe)

    def write_frame(self, frame: av.VideoFrame, pts: int | None = None, keyframe: bool = False) -> None:
        """Encode an ``av.VideoFrame`` (any pixel format the encoder accepts, e.g. yuv420p)."""
        frame.pts = int(self._n / (self.rate * self.time_base)) if pts is None else int(pts)
        frame.time_base = self.time_base
        frame.pict_type = PictureType.I if keyframe else PictureType.NONE
        for packet in self._s.encode(frame):
            self._c.mux(packet)
        self._n += 1

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                for packet in self._s.encode():
                    self._c.mux(packet)
            self._c.close()
        except BaseException as err:  # a failed flush or close leaves no file either
            with contextlib.suppress(Exception):
                self._c.close()
            self._atomic.__exit__(type(err), err, err.__traceback__)
            raise
        self._atomic.__exit__(exc_type, exc, tb)
