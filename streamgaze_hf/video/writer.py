"""H.264 (yuv420p, +faststart) writing with PyAV: the codec settings every project video uses.

Browsers and decord both play these files. Output is atomic: the file appears only when complete.
No B-frames by default, so decode order equals presentation order: a prefix of the packets is a
prefix of the frames, which lets window clips be cut by copying packets (video/clips.py) without
ever carrying a frame from after the window. Keyframes every second, plus any the caller forces
(``write(..., keyframe=True)``, e.g. at the start of every present-task window).

Every libx264 encoder of the project gets :func:`x264_params` (x264 held below AVX-512: see there).
"""

from __future__ import annotations

import contextlib
import functools
import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.frame import PictureType

from ..util.fsutil import atomic_output

DEFAULT_CRF = 18
DEFAULT_PRESET = "veryfast"
# x264's output depends on its thread count, and its own choice (threads=0) is 1.5 x the CPUs this process
# may use: the same overlay had other bytes on a 1-CPU and a 2-CPU machine. A fixed count keeps every build
# byte-identical on every machine (x264 is deterministic for a given count), and 4 frame threads keep a
# many-core machine busy enough for the one video a worker encodes.
DEFAULT_THREADS = 4

# x264's instruction-set levels (its ``asm`` names), best first, each with the /proc/cpuinfo flags it turns
# on (x264 common/cpu.c, x264_cpu_names: "AVX2" is AVX + FMA3 + LZCNT + BMI1 + BMI2 + AVX2, and so on down).
X264_LEVELS: tuple[tuple[str, frozenset[str]], ...] = tuple((name, frozenset(flags.split())) for name, flags in (
    ("AVX2", "sse2 pni ssse3 sse4_1 sse4_2 avx fma abm bmi1 bmi2 avx2"),
    ("AVX", "sse2 pni ssse3 sse4_1 sse4_2 avx"),
    ("SSE4.2", "sse2 pni ssse3 sse4_1 sse4_2"),
    ("SSSE3", "sse2 pni ssse3"),
    ("SSE2", "sse2"),
))


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux reports them (/proc/cpuinfo; only what the kernel lets programs
    use); empty where there is no such file."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def x264_asm(flags: frozenset[str]) -> str | None:
    """The x264 ``asm`` setting for a CPU with ``flags``: on a CPU with AVX-512 the best level below it
    (in practice ``"AVX2"``; ``"0"``, no assembly, if the flags name none of the levels),
    elsewhere ``None`` (x264 detects the CPU itself and never uses AVX-512).

    Why: x264's AVX-512 macroblock-tree propagation (``mbtree_propagate_list_internal_avx512``, run on the
    lookahead's frames by the presets that use ``mbtree``: ``veryfast`` and slower) handles 8 macroblocks
    at a time and does not mask the lanes past the end of a row; its AVX2, SSE and C versions stop at the
    row's end. When the width in macroblocks is not a multiple of 8, on the last row of a frame those lanes
    read motion vectors and costs from the alignment padding after x264's per-frame arrays (there is
    padding when the frame's macroblock count is not a multiple of 16), memory nothing writes. Whenever
    those bytes look like a motion vector into the frame, a garbage amount is added to a reference
    macroblock's propagate cost, which moves the frame's quantisers and so its bits: the file depends on
    what the heap held before. A fresh process (zeroed pages) writes one file, a long-lived one (a test
    worker after other tests) may write another. 320x240 (the demo world) and 854x480 are such sizes,
    320x256 and 640x480 are not. On the other rows the same lanes read the next row's first macroblocks:
    deterministic, but not what the other versions compute, so AVX-512 machines also wrote other bytes
    than AVX2 ones. Held to AVX2, an AVX-512 machine runs the same x264 code as an AVX2 machine.
    """
    if "avx512f" not in flags:
        return None
    return next((name for name, needs in X264_LEVELS if needs <= flags), "0")


@functools.cache
def _host_asm() -> str | None:
    return x264_asm(cpu_flags())


def x264_params(*extra: str) -> dict[str, str]:
    """The ``x264-params`` codec option of a libx264 encoder: :func:`x264_asm` for this CPU and the
    ``key=value`` pairs in ``extra``; ``{}`` when there is nothing to set."""
    asm = _host_asm()
    params = [*([f"asm={asm}"] if asm is not None else []), *extra]
    return {"x264-params": ":".join(params)} if params else {}


def set_colour(cc, colour: tuple[int, int, int, int]) -> None:
    """Declare ``colour`` (colorspace, color_primaries, color_trc, color_range) on an encoder's codec context."""
    cc.colorspace, cc.color_primaries, cc.color_trc, cc.color_range = (int(v) for v in colour)


class H264Writer:
    """Context manager: ``with H264Writer(out, w, h, fps) as w: w.write(bgr, pts)``.

    ``time_base`` and per-frame ``pts`` let a caller copy a source's timestamps exactly; without
    them frames are numbered at 1/fps. ``gop`` is the keyframe interval in frames (default: 1 s);
    ``tune`` an x264 tune (e.g. ``fastdecode``; default none); ``threads`` x264's threads (default
    :data:`DEFAULT_THREADS` on every machine, so the bytes do not depend on the machine); ``colour``: the
    colour description the stream declares (FFmpeg's colorspace, color_primaries, color_trc, color_range;
    default none: "unspecified", which readers decode as BT.601), given when the frames are another
    video's decoded YUV, so that readers convert them with the same matrix as that video's
    (:func:`~.packets.stream_colour`).
    """

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, fps: float | Fraction,
                 time_base: Fraction | None = None, crf: int = DEFAULT_CRF, preset: str = DEFAULT_PRESET,
                 gop: int | None = None, threads: int = DEFAULT_THREADS, bframes: int = 0, tune: str = "",
                 colour: tuple[int, int, int, int] | None = None):
        self.path = Path(path)
        self.width, self.height = int(width), int(height)
        if self.width % 2 or self.height % 2:
            raise ValueError(f"H.264 yuv420p needs even frame sizes, got {self.width}x{self.height}")
        self.rate = Fraction(fps).limit_denominator(100000)
        self.time_base = time_base or Fraction(1, 1) / self.rate
        self.crf, self.preset = crf, preset
        self.gop = gop or max(1, round(float(self.rate)))
        if threads < 1:
            raise ValueError(f"x264 threads must be a fixed count >= 1 (the bytes depend on it), got {threads}")
        self.threads = threads
        self.bframes = bframes
        self.tune = tune
        self.colour = colour
        self._n = 0

    def __enter__(self) -> H264Writer:
        self._atomic = atomic_output(self.path)
        tmp = self._atomic.__enter__()
        try:
            self._c = av.open(str(tmp), "w", format="mp4", options={"movflags": "+faststart"})
            s = self._c.add_stream("libx264", rate=self.rate)
            s.width, s.height, s.pix_fmt = self.width, self.height, "yuv420p"
            s.codec_context.time_base = self.time_base
            if self.colour is not None:
                set_colour(s.codec_context, self.colour)
            s.options = {"crf": str(self.crf), "preset": self.preset, "g": str(self.gop),
                         "threads": str(self.threads), "bf": str(self.bframes),
                         **({"tune": self.tune} if self.tune else {}), **x264_params()}
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
