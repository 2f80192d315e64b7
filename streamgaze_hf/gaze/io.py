"""Our neutral gaze file: ``gaze.csv`` with columns ``t, x, y, valid`` (extra columns ignored).

t in seconds; x, y normalised, origin top-left (empty when unknown); valid 0/1.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from ..util.errors import GazeFormatError
from ..util.fsutil import atomic_output
from .track import GazeTrack

GAZE_COLUMNS = ("t", "x", "y", "valid")
_TRUE = {"1", "true", "True", "TRUE", "yes"}
_FALSE = {"0", "false", "False", "FALSE", "no"}


def read_gaze_csv(path: str | os.PathLike[str], width: int, height: int, fps: float,
                  hfov_deg: float | None = None) -> GazeTrack:
    """Read a ``gaze.csv``; every format problem raises :class:`GazeFormatError` naming the file and row."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None:
                raise GazeFormatError("empty file; expected a header t,x,y,valid", path)
            header = [h.strip() for h in header]
            missing = [c for c in GAZE_COLUMNS if c not in header]
            if missing:
                raise GazeFormatError(
                    f"missing column(s) {', '.join(missing)}; expected t,x,y,valid, got {','.join(header)}", path)
            col = {c: header.index(c) for c in GAZE_COLUMNS}
            t, x, y, v = [], [], [], []
            for lineno, row in enumerate(reader, start=2):
                if not row or all(not c.strip() for c in row):
                    continue
                try:
                    t.append(float(row[col["t"]]))
                    x.append(_num(row[col["x"]]))
                    y.append(_num(row[col["y"]]))
                    flag = row[col["valid"]].strip()
                except IndexError:
                    raise GazeFormatError(f"line {lineno}: expected {len(header)} fields, got {len(row)}", path) from None
                except ValueError as exc:
                    raise GazeFormatError(f"line {lineno}: not a number ({exc})", path) from None
                if flag in _TRUE:
                    v.append(True)
                elif flag in _FALSE:
                    v.append(False)
                else:
                    raise GazeFormatError(f"line {lineno}: valid must be 0 or 1, got {flag!r}", path)
    except UnicodeDecodeError:
        raise GazeFormatError("not a text CSV file", path) from None
    try:
        return GazeTrack(np.array(t), np.array(x), np.array(y), np.array(v, dtype=bool),
                         width, height, fps, hfov_deg)
    except GazeFormatError as exc:
        raise GazeFormatError(exc.reason, path) from None


def _num(s: str) -> float:
    s = s.strip()
    return math.nan if s in ("", "nan", "NaN") else float(s)


def write_gaze_csv(track: GazeTrack, path: str | os.PathLike[str], with_in_frame: bool = False) -> None:
    """Write a track as ``gaze.csv`` (deterministic text; atomic).

    Args:
        track: the gaze track (normalised coordinates).
        path: the file to write (its parent directories are created).
        with_in_frame: add an ``in_frame`` column (1 when the sample lies inside the frame).

    Raises:
        OSError: the file cannot be written (nothing is left at ``path`` then).
    """
    cols = list(GAZE_COLUMNS) + (["in_frame"] if with_in_frame else [])
    lines = [",".join(cols)]
    inf = track.in_frame
    for i in range(len(track)):
        xs = "" if not math.isfinite(track.x[i]) else f"{track.x[i]:.6f}"
        ys = "" if not math.isfinite(track.y[i]) else f"{track.y[i]:.6f}"
        row = [f"{track.t[i]:.6f}", xs, ys, "1" if track.valid[i] else "0"]
        if with_in_frame:
            row.append("1" if inf[i] else "0")
        lines.append(",".join(row))
    with atomic_output(path) as tmp:
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
