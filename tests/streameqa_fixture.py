"""A small StreamEQA release in the official layout, with invented values (never the real data).

``release/data/annotations/{Perception,Interaction,Planning_all}.json`` (flat items ``id, video, realtime,
question, options, gt, task``) and the HD-EPIC videos ``release/videos/{Pxx}/{video_id}.mp4``: two videos
(128x96 at 2 fps, keyframe every 5 frames; frame i carries its index burnt in, ``demo.timecode``):
``P01-20240202-110250`` (80 s) and ``P02-20240203-120000`` (30 s). With ``gaze=True`` also the Aria MPS
gaze of both videos under ``gaze/<video_id>/`` (the synthetic calibrations of ``source_fixtures``).

Per level, ``n_per_code`` good questions per task code (realtime values cycling through
:data:`REALTIMES`, half of them with "A."-prefixed options, ``gt`` cycling 0-3), plus the special items
below. The expected counts are in :func:`expected`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from streamgaze_hf.benchmarks.streameqa import LEVELS, RELEASE_FILES, subtasks
from streamgaze_hf.demo.timecode import burn_frame_code
from streamgaze_hf.video.writer import H264Writer

W, H, FPS, GOP = 128, 96, 2, 5
V1, V2 = "P01-20240202-110250", "P02-20240203-120000"
DURATIONS = {V1: 80.0, V2: 30.0}
#: (realtime as written, seconds, window) of the good questions on V1, in turn
REALTIMES = [(75, 75.0, (11.0, 75.0)), ("00:01:10", 70.0, (6.0, 70.0)), (40.5, 40.5, (0.0, 40.5)),
             ("0:30", 30.0, (0.0, 30.0)), ("12.5", 12.5, (0.0, 12.5)), ("00:01:04.5", 64.5, (0.5, 64.5))]
#: special good perception items: (id, video, realtime, task, window, short) — three windows the official
#: code skips (its whole-second test int(t) - int(start) <= 1: t < 2 s), one just past that, one past the
#: end of V2 (clamped); one task given by its full name as the supplement spells it
SPECIAL = [("short-a", V1, 0.5, "OPR", (0.0, 0.5), True), ("short-b", V1, "00:00:01", "OPR", (0.0, 1.0), True),
           ("short-c", V1, 1.5, "OPR", (0.0, 1.5), True),
           ("two", V1, 2, "SpaTial Understanding Realtime", (0.0, 2.0), False),
           ("late", V2, 40, "OPR", (0.0, 30.0), False)]
#: bad perception items: (reason kind, item); their entry index follows the good items
BAD = [
    ("bad_options", {"options": ["x", "y", "z"]}),
    ("bad_options", {"options": ["A. x", "y", "C. z", "w"]}),
    ("bad_answer", {"gt": 4}),
    ("bad_realtime", {"realtime": "soon"}),
    ("unknown_task", {"task": "XYZ"}),
    ("wrong_level", {"task": "ASR"}),
    ("missing_video", {"video": "P09-20240101-000000"}),
    ("malformed_item", {"gt": None}),  # the key is removed below
    ("empty_question", {"question": "  "}),
]


def frame(i: int) -> np.ndarray:
    img = np.full((H, W, 3), (40 + (i * 7) % 150, 90, 160 - (i * 3) % 100), np.uint8)
    return burn_frame_code(img, i)


def write_video(path: Path, duration: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with H264Writer(path, W, H, FPS, gop=GOP) as w:
        for i in range(int(duration * FPS)):
            w.write(frame(i))
    return path


def _options(tag: str, prefixed: bool) -> list[str]:
    texts = [f"{tag}: the {noun}" for noun in ("pan", "knife", "bowl", "tap")]
    return [f"{'ABCD'[k]}. {t}" for k, t in enumerate(texts)] if prefixed else texts


def _item(qid, video, realtime, code, j, prefixed) -> dict:
    return {"id": qid, "video": video, "realtime": realtime, "question": f"What about {code} number {j}?",
            "options": _options(f"{code}-{j}", prefixed), "gt": j % 4, "task": code}


def level_items(level: str, n_per_code: int) -> list[dict]:
    items, j = [], 0
    for sub in subtasks(level):
        for _ in range(n_per_code):
            realtime = REALTIMES[j % len(REALTIMES)][0]
            items.append(_item(f"{sub.code}-{j}", V1, realtime, sub.code, j, prefixed=j % 2 == 0))
            j += 1
    if level == "perception":
        for qid, video, realtime, task, _w, _s in SPECIAL:
            items.append(_item(qid, video, realtime, task, j, prefixed=False))
            j += 1
        dup = _item(items[0]["id"], V1, 50, "OPB", j, prefixed=False)  # same id as the first item
        items.append(dup)
        j += 1
        for _kind, change in BAD:
            bad = _item(f"bad-{j}", V1, 20, "OPB", j, prefixed=False)
            bad.update(change)
            if "gt" in change and change["gt"] is None:
                del bad["gt"]
            items.append(bad)
            j += 1
        items.append("not an item")
    return items


def write_release(root: Path, n_per_code: int = 1, gaze: bool = False) -> Path:
    root = Path(root)
    ann = root / "data" / "annotations"
    ann.mkdir(parents=True, exist_ok=True)
    for level in LEVELS:
        (ann / RELEASE_FILES[level]).write_text(json.dumps(level_items(level, n_per_code), indent=1),
                                                encoding="utf-8")
    for vid, dur in DURATIONS.items():
        write_video(root / "videos" / vid.split("-")[0] / f"{vid}.mp4", dur)
    if gaze:
        write_gaze(root / "gaze")
    return root


def write_gaze(gaze_dir: Path) -> None:
    """Aria MPS gaze of both videos: a slow circle around the frame centre at 10 Hz, through the two
    synthetic calibrations of ``source_fixtures``."""
    from .source_fixtures import ARIA_T0_US, aria_calibrations, aria_yaw_pitch

    for vid, calib in zip(DURATIONS, aria_calibrations()):
        lines = ["tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,depth_m"]
        for k in range(int(DURATIONS[vid] * 10)):
            t = k / 10
            x, y = gaze_xy(t)
            yaw, pitch, depth = aria_yaw_pitch(calib, x, y)
            lines.append(f"{ARIA_T0_US + k * 100_000},{yaw:.9f},{pitch:.9f},{depth:.6f}")
        folder = gaze_dir / vid
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "general_eye_gaze.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / "calibration.json").write_text(json.dumps(calib), encoding="utf-8")


def gaze_xy(t: float) -> tuple[float, float]:
    return 0.5 + 0.2 * math.cos(t / 10), 0.5 + 0.2 * math.sin(t / 10)


def expected(n_per_code: int = 1) -> dict:
    """Counts the import of :func:`write_release` must report."""
    per_level = {lv: len(subtasks(lv)) * n_per_code for lv in LEVELS}
    per_level["perception"] += len(SPECIAL) + 1  # + the duplicate id
    prefixed = sum((j % 2 == 0) for lv in LEVELS for j in range(len(subtasks(lv)) * n_per_code))
    skipped: dict[str, int] = {}
    for kind, _ in BAD:
        skipped[kind] = skipped.get(kind, 0) + 1
    skipped["malformed_item"] += 1  # the string item
    return {"imported": per_level, "skipped": skipped,
            "notes": {"short_window": 3, "time_beyond_video": 1, "options_prefixed": prefixed, "duplicate_id": 1}}
