"""Gaze of the official release: fixation centres from ``metadata/*.csv`` attached to videos and rows.

The release has no gaze samples. Where its metadata tables carry the fixation centres ``center_x``,
``center_y`` (release_metadata), they give:

* the ``fixations`` config's x/y (normalised: see :func:`normalise_centres`);
* each question's ``fixations`` list (what the ``_textgaze`` prompt lists and the ``_salience`` map is
  drawn from): :func:`window_fixations`;
* a gaze-overlay video when the release has none for a video: :func:`fixation_track` turns the
  fixations into per-frame gaze (the centre during each fixation, nothing between them).

**Normalised or pixels.** The official fixation tables write centres normalised to [0, 1] (gaze
outside the frame can be slightly outside). A user's table may hold pixels. Per video: when every
centre coordinate lies within [-1, 2] they are taken as normalised; when any is larger (in absolute
value) they are pixels and divided by the video's width and height (a note in the import report).
A pixel table whose every fixation sits within two pixels of the top-left corner cannot be told
apart, which does not happen with real gaze.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

from ...gaze import GazeTrack
from ...video import VideoInfo

PIXEL_THRESHOLD = 2.0


def metadata_aliases(paths: dict[str, str]) -> dict[str, str]:
    """Names a metadata table may use for each video (video id → its referenced path): the id itself
    and, when they name one video only, the path's directories (``R001`` of
    ``R001/Export_py/Video_pitchshift.mp4``) and its file stem."""
    counts: Counter = Counter()
    names: dict[str, set[str]] = {}
    for vid, path in paths.items():
        parts = [p for p in path.split("/") if p]
        stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
        names[vid] = set(parts[:-1]) | {stem}
        counts.update(names[vid])
    out = {alias: vid for vid, aliases in names.items() for alias in aliases if counts[alias] == 1}
    out.update({vid: vid for vid in paths})
    return out


def has_centre(row: dict) -> bool:
    return math.isfinite(row["x"]) and math.isfinite(row["y"])


def looks_like_pixels(rows: list[dict]) -> bool:
    """Whether a video's centres are pixels (any coordinate beyond ``PIXEL_THRESHOLD`` in absolute value)."""
    return any(abs(r["x"]) > PIXEL_THRESHOLD or abs(r["y"]) > PIXEL_THRESHOLD for r in rows if has_centre(r))


def normalise_centres(rows: list[dict], width: int, height: int) -> tuple[list[dict], bool]:
    """The rows of one video with normalised centres, and whether they were pixels."""
    if not looks_like_pixels(rows):
        return rows, False
    out = [dict(r, x=r["x"] / width, y=r["y"] / height) if has_centre(r) else r for r in rows]
    return out, True


def window_fixations(rows: list[dict], start: float, end: float) -> list[dict]:
    """The QA row's ``fixations`` for window [start, end]: fixations with a centre that end inside the
    window (their start clipped to it), in time order. A fixation still running at ``end`` is left out:
    its centre is the mean of gaze after ``end`` too (no future leakage)."""
    out = []
    for r in sorted((r for r in rows if has_centre(r)), key=lambda r: (r["start"], r["end"])):
        if r["end"] < start or r["end"] > end + 1e-9:
            continue
        out.append({"start": round(max(r["start"], start), 3), "end": round(r["end"], 3),
                    "x": round(float(r["x"]), 4), "y": round(float(r["y"]), 4)})
    return out


def fixation_track(rows: list[dict], info: VideoInfo) -> GazeTrack:
    """Per-frame gaze from fixations: the centre on frames inside a fixation [start, end], invalid elsewhere
    (later fixations win where they overlap)."""
    t = np.asarray(info.frame_times, dtype=np.float64)
    x = np.full(len(t), np.nan)
    y = np.full(len(t), np.nan)
    for r in sorted((r for r in rows if has_centre(r)), key=lambda r: r["start"]):
        inside = (t >= r["start"] - 1e-9) & (t <= r["end"] + 1e-9)
        x[inside], y[inside] = r["x"], r["y"]
    return GazeTrack(t, x, y, np.isfinite(x), info.width, info.height, info.fps)


def group_by_video(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[r["video_id"]].append(r)
    return out
