"""Proxy videos: cheap-to-decode, low-rate, scaled, all-keyframe copies of a video (opt-in).

A proxy keeps the source frames on screen at the times ``k / fps`` (``k = 0, 1, ...``; the last
frame whose time is at or before ``k / fps``, each frame at most once), scaled so that its longer side
is at most ``max_side`` pixels (never enlarged; even sizes, aspect kept), every frame encoded as a
keyframe (H.264 intra, :class:`~.writer.H264Writer` with ``gop=1``, crf 20, x264's ``fastdecode`` tune) and stamped with its *source*
timestamp (the source's time base, ``pts - start_pts``). Hence:

* a proxy's frame times are exact source frame times, and its first frame is the source's first, so a
  window ``[start, end]`` means the same on the proxy as on the source, and the ordinary window clip
  (video/clips.py) of a proxy never holds a frame after ``end``;
* any window start is a keyframe: every proxy clip is a packet copy (milliseconds), and a model
  wrapper sampling 32 frames decodes 32 small intra frames.

Proxies are built once per video when a dataset is built or imported (``--proxy-fps``,
``--proxy-size``) and stored at ``videos/proxy/<spec>/<original|overlay>/<file>`` where ``<spec>`` is
:attr:`ProxySpec.name`, e.g. ``2fps-448px``. An evaluation uses them with ``STREAMGAZE_PROXY``
(see ``evaluation.py``); full-rate clips stay the default.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..util.errors import StreamGazeError
from .frame_reader import probe_video
from .resample import frames_at_rate, write_resampled

PROXY_DIR = "videos/proxy"
DEFAULT_PROXY_FPS = 2.0
DEFAULT_PROXY_SIZE = 448
PROXY_PRESET = "veryfast"
PROXY_CRF = 20
# x264 tuned for decoding speed (no CABAC, no deblocking): what the proxies are for
PROXY_TUNE = "fastdecode"
_NAME = re.compile(r"^(\d+(?:\.\d+)?)fps-(\d+)px$")


@dataclass(frozen=True)
class ProxySpec:
    fps: float
    max_side: int

    def __post_init__(self):
        if not (math.isfinite(self.fps) and self.fps > 0):
            raise StreamGazeError(f"proxy fps must be a positive number, got {self.fps}")
        if self.max_side < 16:
            raise StreamGazeError(f"proxy size must be at least 16 pixels, got {self.max_side}")

    @property
    def name(self) -> str:
        """Directory name of this proxy kind, e.g. ``2fps-448px``."""
        return f"{self.fps:g}fps-{self.max_side}px"

    @classmethod
    def parse(cls, name: str) -> ProxySpec:
        m = _NAME.match(name.strip())
        if not m:
            raise StreamGazeError(f"not a proxy name: {name!r} (expected e.g. 2fps-448px)")
        return cls(float(m[1]), int(m[2]))

    def as_dict(self) -> dict:
        return {"name": self.name, "fps": self.fps, "max_side": self.max_side}


def proxy_spec(fps: float | None, size: int | None) -> ProxySpec | None:
    """The spec the build/import options ask for: None when neither is given, else defaults filled in."""
    if fps is None and size is None:
        return None
    return ProxySpec(float(DEFAULT_PROXY_FPS if fps is None else fps), int(DEFAULT_PROXY_SIZE if size is None else size))


def proxy_rel_path(rel: str, spec: ProxySpec | str) -> str:
    """``videos/original/x.mp4`` -> ``videos/proxy/<spec>/original/x.mp4`` (dataset-relative, POSIX)."""
    name = spec if isinstance(spec, str) else spec.name
    parts = PurePosixPath(rel).parts
    tail = parts[1:] if parts[:1] == ("videos",) else parts
    return str(PurePosixPath(PROXY_DIR, name, *tail))


#: the frames a proxy at ``fps`` keeps (resample.py: the same rule for previews)
proxy_frames = frames_at_rate


def proxy_size(width: int, height: int, max_side: int) -> tuple[int, int]:
    """(w, h) scaled so the longer side is at most ``max_side`` (never enlarged), even, aspect kept."""
    scale = min(1.0, max_side / max(width, height))
    w = max(2, int(round(width * scale / 2)) * 2)
    h = max(2, int(round(height * scale / 2)) * 2)
    return w, h


def build_proxy(src: str | os.PathLike[str], out: str | os.PathLike[str], spec: ProxySpec,
                progress: bool = False) -> Path:
    """Write the proxy of ``src`` to ``out`` (atomic; see the module docstring). Returns ``out``."""
    info = probe_video(src)
    return write_resampled(src, out, spec.fps, proxy_size(info.width, info.height, spec.max_side), crf=PROXY_CRF,
                           preset=PROXY_PRESET, gop=1, tune=PROXY_TUNE, all_keyframes=True, what="proxy",
                           progress=progress)
