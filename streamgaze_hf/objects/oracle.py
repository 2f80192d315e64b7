"""The demo world's "oracle" object back-end: object sets straight from the world's ground truth.

Reads ``objects.json`` (per-frame visible boxes, the object under the gaze, attributes, ground-truth
fixations) and answers what the paper's VLM + human verification would (§3.3):
- gazed object of a fixation: the object under the gaze in most of its frames;
- FOV objects: other objects whose box centre lies within the FOV radius of the fixation centroid in
  at least half of its frames;
- out-of-FOV objects: objects in view in at least half of its frames and not in the FOV.
An object is "in view" in a frame when at least half of its box is inside the frame, "glimpsed" when
any part is; questions never claim an object is absent while it is glimpsed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..gaze import Fixation, FixationObjects, GazeTrack, fov_radius_px
from ..util.errors import StreamGazeError
from .base import Interval, VideoObjects

IN_VIEW_FRACTION = 0.5
MAJORITY = 0.5


class OracleBackend:
    name = "oracle"

    def describe(self, video_dir: Path, video_path: Path, track: GazeTrack,
                 fixations: Sequence[Fixation]) -> VideoObjects:
        gt = load_ground_truth(Path(video_dir) / "objects.json")
        names = {o["id"]: o["name"] for o in gt["objects"]}
        frames = gt["frames"]
        ft = np.asarray(frames["t"], dtype=np.float64)
        in_view = _in_view_sets(frames["visible"])
        any_part = [{b[0] for b in boxes} for boxes in frames["visible"]]
        radius = fov_radius_px(track.width, track.hfov_deg)
        per_fix = []
        for f in fixations:
            lo, hi = np.searchsorted(ft, f.start - 1e-9), np.searchsorted(ft, f.end + 1e-9, side="right")
            idx = range(int(lo), int(hi))
            n = max(1, len(idx))
            gazed_counts = Counter(frames["gazed"][i] for i in idx if frames["gazed"][i] >= 0)
            gazed = None
            if gazed_counts:
                gid, cnt = gazed_counts.most_common(1)[0]
                if cnt / n >= MAJORITY:
                    gazed = names[gid]
            cx, cy = f.x * track.width, f.y * track.height
            fov_counts: Counter = Counter()
            view_counts: Counter = Counter()
            for i in idx:
                for oid, x0, y0, x1, y1 in frames["visible"][i]:
                    if oid not in in_view[i]:
                        continue
                    view_counts[oid] += 1
                    bx, by = (x0 + x1) / 2 * track.width, (y0 + y1) / 2 * track.height
                    if np.hypot(bx - cx, by - cy) <= radius:
                        fov_counts[oid] += 1
            fov = tuple(names[o] for o in sorted(fov_counts) if fov_counts[o] / n >= MAJORITY and names[o] != gazed)
            out = tuple(names[o] for o in sorted(view_counts)
                        if view_counts[o] / n >= MAJORITY and names[o] != gazed and names[o] not in fov)
            per_fix.append(FixationObjects(gazed, fov, out))
        attributes = {o["name"]: dict(o["attributes"]) for o in gt["objects"]}
        vocab: dict[str, set] = {}
        for attrs in attributes.values():
            for k, v in attrs.items():
                vocab.setdefault(k, set()).add(v)
        return VideoObjects(
            per_fixation=per_fix,
            attributes=attributes,
            attribute_vocabulary={k: sorted(v) for k, v in vocab.items()},
            visible=_visible_intervals(ft, in_view, names, 1.0 / float(gt["fps"])),
            glimpsed=_visible_intervals(ft, any_part, names, 1.0 / float(gt["fps"])),
            fixated=_fixated_intervals(gt["fixations"]),
            gaze_on=_gaze_on_intervals(track, ft, frames["visible"], names),
        )


def load_ground_truth(path: Path) -> dict:
    if not path.is_file():
        raise StreamGazeError("ground-truth objects.json not found (the oracle back-end needs the demo world)", path)
    try:
        gt = json.loads(path.read_text(encoding="utf-8"))
        for key in ("objects", "frames", "fixations", "fps"):
            gt[key]  # noqa: B018
    except (ValueError, KeyError) as exc:
        raise StreamGazeError(f"not a demo-world objects.json ({exc.__class__.__name__}: {exc})", path) from None
    return gt


def _in_view_sets(visible: list) -> list[set[int]]:
    """Per frame, the ids of objects with at least half of their (largest seen) box in the frame."""
    full: dict[int, float] = {}
    for boxes in visible:
        for oid, x0, y0, x1, y1 in boxes:
            full[oid] = max(full.get(oid, 0.0), (x1 - x0) * (y1 - y0))
    return [{oid for oid, x0, y0, x1, y1 in boxes if (x1 - x0) * (y1 - y0) >= IN_VIEW_FRACTION * full[oid]}
            for boxes in visible]


def _visible_intervals(ft: np.ndarray, in_view: list[set[int]], names: dict[int, str],
                       period: float) -> dict[str, list[Interval]]:
    """Times each object is on screen: runs of frames, each frame shown until the next one."""
    out: dict[str, list[Interval]] = {}
    start: dict[int, float] = {}
    prev: set[int] = set()
    for i, ids in enumerate(list(in_view) + [set()]):
        t = float(ft[i]) if i < len(ft) else float(ft[-1]) + period
        for oid in ids - prev:
            start[oid] = t
        for oid in prev - ids:
            out.setdefault(names[oid], []).append((start.pop(oid), t - 1e-6))
        prev = ids
    return out


def _fixated_intervals(fixations: list[dict]) -> dict[str, list[Interval]]:
    out: dict[str, list[Interval]] = {}
    for f in fixations:
        if f.get("object"):
            out.setdefault(f["object"], []).append((float(f["start"]), float(f["end"])))
    return out


def _gaze_on_intervals(track: GazeTrack, ft: np.ndarray, visible: list, names: dict[int, str]
                       ) -> dict[str, list[Interval]]:
    """When the gaze point is on each object: every sample holds until the next one, and is on the
    object whose box (in the frame on screen at the sample time) contains it."""
    out: dict[str, list[Interval]] = {}
    inf = track.in_frame
    frame_of = np.searchsorted(ft, track.t + 1e-6, side="right") - 1
    ends = np.append(track.t[1:], track.t[-1] + 1.0 / track.fps) if len(track) else track.t
    for k in range(len(track)):
        if not inf[k] or frame_of[k] < 0:
            continue
        x, y = track.x[k], track.y[k]
        for oid, x0, y0, x1, y1 in visible[frame_of[k]]:
            if x0 <= x <= x1 and y0 <= y <= y1:
                iv = out.setdefault(names[oid], [])
                if iv and abs(iv[-1][1] - track.t[k]) < 1e-9:
                    iv[-1] = (iv[-1][0], float(ends[k]))
                else:
                    iv.append((float(track.t[k]), float(ends[k])))
                break
    return {n: [(s, e - 1e-6) for s, e in iv] for n, iv in out.items()}

