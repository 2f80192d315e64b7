"""One video from the consecutive parts of a recording (a Neon recording split into ``ps1``, ``ps2``, ...),
without re-encoding: the packets of part ``k`` are copied with their timestamps shifted so that its first
frame is shown at ``offsets[k]`` seconds. Written to a temporary name and moved into place when complete.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import av

from ..util.errors import VideoError
from ..util.fsutil import atomic_output
from .frame_reader import open_container


def join_parts(parts: Sequence[Path], offsets: Sequence[float], out: str | os.PathLike[str]) -> Path:
    """``parts`` (same codec and size) as one video at ``out``, part ``k`` starting at ``offsets[k]`` s."""
    out = Path(out)
    if len(parts) != len(offsets) or not parts:
        raise VideoError(f"{len(parts)} video parts for {len(offsets)} offsets", out)
    with atomic_output(out, ".mp4") as tmp:
        with av.open(str(tmp), "w", format="mp4") as dst:
            ostream = None
            for part, offset in zip(parts, offsets):
                with open_container(part) as src:
                    s = src.streams.video[0]
                    if ostream is None:
                        ostream = dst.add_stream_from_template(s)
                    tb: Fraction = s.time_base
                    packets = [p for p in src.demux(s) if p.dts is not None]
                    if not packets:
                        raise VideoError("video part has no frames", part)
                    first = min(p.pts for p in packets if p.pts is not None)
                    shift = int(round(offset / tb)) - first
                    for p in packets:
                        p.pts = None if p.pts is None else p.pts + shift
                        p.dts = p.dts + shift
                        p.stream = ostream
                        dst.mux(p)
    return out
