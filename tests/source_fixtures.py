"""Tiny raw directories in every native source layout (gaze/sources/*), plus malformed variants.

``write_raw(source, root)`` writes two short recordings (15 s, 320x240 videos of a slowly panning
textured scene) in the source's own layout, with gaze that holds a few steady fixations (2.5-4 s on
distinct spots, separated by saccades, with a blink and, for EGTEA, an untracked gap and an
off-frame excursion) and an action timeline where the source has one. It returns a :class:`RawFixture`
with the planned fixations and the expected actions, so tests (and full builds through
``streamgaze build --source S``) know what the pipeline should find.

``corrupt(source, raw, video_id, kind)`` breaks one file of a written raw directory in place and
returns a :class:`Corruption`: the broken file and a substring the error must contain (e.g.
``line 40``). ``MALFORMED[source]`` lists the kinds.

Lower-level writers (``begaze_text``, ``write_holoassist_export``, ...) serve the exact-value tests.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from streamgaze_hf.video.writer import H264Writer

WIDTH, HEIGHT = 320, 240
DURATION = 15.0
JITTER = 0.003
MIN_SEPARATION = 0.28  # frame-width units between consecutive fixation targets
TARGETS = [(0.22, 0.28), (0.5, 0.25), (0.78, 0.3), (0.25, 0.55), (0.55, 0.55), (0.8, 0.6),
           (0.2, 0.78), (0.5, 0.8), (0.78, 0.8)]
ACTIONS = [("take", "bowl"), ("cut", "tomato"), ("open", "fridge"), ("put", "pan"), ("wash", "cutting_board"),
           ("pour", "oil"), ("close", "drawer"), ("stir", "pot")]

EGTEA_SESSIONS = ("OP01-R01-PastaSalad", "P16-R03-BaconAndEggs")  # v1 and v2 BeGaze layouts
EGOEXO_UIDS = ("0b1c2d3e-1111-4aaa-8bbb-000000000001", "0b1c2d3e-2222-4aaa-8bbb-000000000002")
HOLO_SESSIONS = ("R007-7July-DSLR", "Z071-Aug-04-GoPro")
EGO4D_UIDS = ("5c9a8b1e-0000-4d2f-9a51-7c1f00000001", "5c9a8b1e-0000-4d2f-9a51-7c1f00000002")


@dataclass(frozen=True)
class PlannedFixation:
    start: float
    end: float
    x: float
    y: float


@dataclass
class RawFixture:
    source: str
    raw: Path
    ids: list[str]
    fixations: dict[str, list[PlannedFixation]] = field(default_factory=dict)
    actions: dict[str, list[tuple[float, float, str]]] = field(default_factory=dict)  # (start, end, label) sorted


@dataclass(frozen=True)
class Corruption:
    path: Path  # the file that was broken (every error must name it)
    needle: str  # a further substring the error message must contain ("" if none)


# ----------------------------------------------------------------------------------------- gaze plans

def plan_fixations(duration: float = DURATION, seed: int = 0, aspect: float = HEIGHT / WIDTH) -> list[PlannedFixation]:
    """Steady fixations of 2.5-4 s on distinct spots, separated by 0.2-0.45 s saccades."""
    rng = np.random.default_rng(seed)
    out: list[PlannedFixation] = []
    t = float(rng.uniform(0.2, 0.5))
    prev = None
    while t + 2.5 <= duration - 0.3:
        length = min(float(rng.uniform(2.5, 4.0)), duration - 0.3 - t)
        choices = [p for p in TARGETS if prev is None
                   or math.hypot(p[0] - prev[0], (p[1] - prev[1]) * aspect) >= MIN_SEPARATION]
        x, y = choices[int(rng.integers(len(choices)))]
        out.append(PlannedFixation(round(t, 3), round(t + length, 3), x, y))
        prev = (x, y)
        t += length + float(rng.uniform(0.2, 0.45))
    return out


@dataclass
class GazeSamples:
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    event: list[str]  # Fixation / Saccade / Blink


def sample_gaze(plan: Sequence[PlannedFixation], t: np.ndarray, seed: int = 0, blink_gap: int = 1,
                excursion_gap: int | None = None) -> GazeSamples:
    """Gaze at times ``t``: jittered targets during fixations, straight saccades between them; a blink
    (invalid, 0.12 s) in the middle of gap ``blink_gap``; optionally an off-frame look (x = 1.06) in
    gap ``excursion_gap``."""
    rng = np.random.default_rng(seed + 1000)
    n = len(t)
    x, y = np.empty(n), np.empty(n)
    valid = np.ones(n, bool)
    event = ["Saccade"] * n
    for i, ti in enumerate(t):
        k = next((j for j, f in enumerate(plan) if ti <= f.end), len(plan))
        if k < len(plan) and ti >= plan[k].start:
            f = plan[k]
            x[i], y[i] = f.x + rng.normal(0, JITTER), f.y + rng.normal(0, JITTER / (HEIGHT / WIDTH))
            event[i] = "Fixation"
            continue
        # a saccade between fixations; before the first one the gaze comes in from the centre, after
        # the last one it moves away towards the opposite side (no fixation forms there)
        last = plan[-1]
        ax, ay, g0 = (plan[k - 1].x, plan[k - 1].y, plan[k - 1].end) if k > 0 else (0.5, 0.45, 0.0)
        bx, by, g1 = (plan[k].x, plan[k].y, plan[k].start) if k < len(plan) else \
            (1.0 - last.x, 1.0 - last.y, float(t[-1]) + 1e-3)
        w = 0.0 if g1 <= g0 else min(1.0, max(0.0, (ti - g0) / (g1 - g0)))
        x[i], y[i] = ax + (bx - ax) * w, ay + (by - ay) * w
        mid = (g0 + g1) / 2
        if k == blink_gap and abs(ti - mid) <= 0.06:
            valid[i], event[i] = False, "Blink"
        if excursion_gap is not None and k == excursion_gap and abs(ti - mid) <= 0.05:
            x[i] = 1.06
    return GazeSamples(x, y, valid, event)


def action_timeline(plan: Sequence[PlannedFixation], seed: int = 0) -> list[tuple[float, float, str, str]]:
    """(start, end, verb, noun): one action per fixation, starting shortly after it begins."""
    rng = np.random.default_rng(seed + 2000)
    out = []
    for f in plan:
        verb, noun = ACTIONS[int(rng.integers(len(ACTIONS)))]
        out.append((round(f.start + 0.3, 3), round(f.end + 0.1, 3), verb, noun))
    return out


# ----------------------------------------------------------------------------------------- video

def write_scene_video(path: Path, duration: float = DURATION, fps: float = 24.0, width: int = WIDTH,
                      height: int = HEIGHT, seed: int = 0) -> int:
    """A slowly panning view over a textured canvas of coloured shapes; returns the frame count."""
    rng = np.random.default_rng(seed + 3000)
    cw, ch = width * 2, height * 2
    canvas = (rng.integers(90, 140, (ch // 8, cw // 8, 3))).astype(np.uint8)
    canvas = cv2.resize(canvas, (cw, ch), interpolation=cv2.INTER_LINEAR)
    for _ in range(40):
        color = tuple(int(c) for c in rng.integers(30, 255, 3))
        cx, cy = int(rng.integers(0, cw)), int(rng.integers(0, ch))
        if rng.uniform() < 0.5:
            cv2.circle(canvas, (cx, cy), int(rng.integers(8, 30)), color, -1)
        else:
            cv2.rectangle(canvas, (cx, cy), (cx + int(rng.integers(10, 50)), cy + int(rng.integers(10, 40))), color, -1)
    n = int(round(duration * float(Fraction(fps).limit_denominator(100000))))
    with H264Writer(path, width, height, fps, threads=1) as w:
        for i in range(n):
            s = i / n
            ox = int(round((cw - width) * (0.5 + 0.45 * math.sin(2 * math.pi * s))))
            oy = int(round((ch - height) * (0.5 + 0.4 * math.sin(math.pi * s))))
            w.write(canvas[oy:oy + height, ox:ox + width].copy())
    return n


# ----------------------------------------------------------------------------------------- EGTEA

BEGAZE_V1_COLUMNS = "Time\tType\tTrial\tL POR X [px]\tL POR Y [px]\tFrame\tL Event Info"
BEGAZE_V2_COLUMNS = "\t".join(
    ["RecordingTime [ms]", "Time of Day [h:m:s:ms]", "Trial", "Stimulus", "Participant",
     "Point of Regard Binocular X [px]", "Point of Regard Binocular Y [px]"]
    + [f"Aux {k}" for k in range(17)] + ["Video Time [h:m:s:frame]", "Category Binocular"])


def begaze_header(version: int, n_samples: int, session: str) -> list[str]:
    """The 33 ``##`` lines of a BeGaze export; ``Number of Samples`` on line 10 (v1) or 11 (v2)."""
    lines = ["## [BeGaze]", f"## Converted from:\tC:\\data\\{session}.idf", "## Date:\t19.03.2015 12:00:00",
             "## Version:\tBeGaze 3.4.52", "## IDF Version:\t9", "## Sample Rate:\t30", "## Separator Type:\tMsg",
             "## Trial Count:\t1", "## Uses Plane File:\tFalse"]
    if version == 2:
        lines.append("## Export Version:\t2")
    lines.append(f"## Number of Samples:\t{n_samples}")
    lines += ["## Reversed:\tnone", "## [Run]", f"## Subject:\t{session.split('-')[0]}", "## Description:\t"]
    while len(lines) < 33:
        lines.append(f"## Calibration Point {len(lines)}:\t(640;480)")
    return lines


def begaze_text(version: int, rows: Sequence[tuple[float, float, float, int, str]], session: str = "S") -> str:
    """A BeGaze export of ``rows`` = (time s, x px, y px, frame, event); data start on line 35."""
    lines = begaze_header(version, len(rows), session)
    lines.append(BEGAZE_V1_COLUMNS if version == 1 else BEGAZE_V2_COLUMNS)
    for t, px, py, frame, event in rows:
        lines.append(begaze_row(version, t, px, py, frame, event, session))
    return "\n".join(lines) + "\n"


def begaze_row(version: int, t: float, px: float, py: float, frame: int, event: str, session: str = "S") -> str:
    if version == 1:
        return f"{int(round(t * 1e6)) + 1000000}\tSMP\t1\t{px:.2f}\t{py:.2f}\t{frame}\t{event}"
    sec, ff = divmod(frame, 24)
    code = f"{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}:{ff:02d}"
    day = f"12:{int(t) // 60 % 60:02d}:{int(t) % 60:02d}:{int(t * 1000) % 1000:03d}"
    aux = [f"{3.1 + 0.01 * k:.2f}" for k in range(17)]
    return "\t".join([f"{t * 1000:.1f}", day, "Trial001", f"{session}.avi", session.split("-")[0],
                      f"{px:.2f}", f"{py:.2f}", *aux, code, event])


def write_egtea_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    raw = Path(root)
    fx = RawFixture("egtea", raw, list(EGTEA_SESSIONS))
    label_rows = []
    clip = 0
    for k, session in enumerate(EGTEA_SESSIONS):
        write_scene_video(raw / "videos" / f"{session}.mp4", duration, 24.0, seed=seed + k)
        plan = plan_fixations(duration, seed + k)
        ts = np.arange(int(duration * 30)) / 30.0
        g = sample_gaze(plan, ts, seed + k, blink_gap=1, excursion_gap=2)
        rows = []
        for i, t in enumerate(ts):
            gap = len(plan) > 3 and plan[2].end + 0.05 < t < plan[2].end + 0.18  # tracker lost: no rows
            if gap:
                continue
            px, py = (0.0, 0.0) if g.event[i] == "Blink" else (g.x[i] * 1280, g.y[i] * 960)
            rows.append((t, px, py, int(math.floor(t * 24 + 1e-9)), g.event[i]))
        path = raw / "gaze_data" / f"{session}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(begaze_text(1 if k == 0 else 2, rows, session), encoding="utf-8")
        fx.fixations[session] = plan
        acts = action_timeline(plan, seed + k)
        fx.actions[session] = [(s, e, f"{v.capitalize()} {n}") for s, e, v, n in acts]
        for s, e, v, n in acts:
            clip += 1
            ms0, ms1 = int(round(s * 1000)), int(round(e * 1000))
            label_rows.append(f"{clip}; {session}-{ms0}-{ms1}-F{int(s * 24):06d}-F{int(e * 24):06d}; {session}; "
                              f"{ms0}; {ms1}; {v.capitalize()} {n}; {v.capitalize()}; {n}")
    label_rows.append(f"{clip + 1}; OP02-R05-Cheeseburger-1000-2500-F000024-F000060; OP02-R05-Cheeseburger; "
                      "1000; 2500; Take bread; Take; bread")
    header = ("# Clip ID (Unique, used only internally); Clip Prefix (Unique); Video Session; Starting Time (ms); "
              "Ending Time (ms); Action Label; Verb Label; Noun Label(s)")
    ann = raw / "raw_annotations" / "action_labels.csv"
    ann.parent.mkdir(parents=True, exist_ok=True)
    ann.write_text("\n".join([header, *label_rows]) + "\n", encoding="utf-8")
    return fx


# ----------------------------------------------------------------------------------------- EgoExoLearn

EGOEXO_CSV_COLUMNS = ["video_uid", "annotation_id", "subset", "view", "scene", "start_sec", "end_sec",
                      "narration_en", "narration_en_hand_prompt", "narration_en_no_hand_prompt"]


def write_egoexolearn_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """uid 0 has a per-video JSON (and decoy CSV rows), uid 1 only CSV rows (plus exo-view decoys)."""
    raw = Path(root)
    fx = RawFixture("egoexolearn", raw, list(EGOEXO_UIDS))
    csv_rows = []
    for k, uid in enumerate(EGOEXO_UIDS):
        n = write_scene_video(raw / "videos" / f"{uid}.mp4", duration, 30.0, seed=seed + 10 + k)
        plan = plan_fixations(duration, seed + 10 + k)
        g = sample_gaze(plan, np.arange(n) / 30.0, seed + 10 + k)
        arr = np.stack([g.x, g.y, g.valid.astype(np.float64)], axis=1)
        arr[~g.valid, :2] = np.nan if k == 0 else 0.0
        path = raw / "gazes_30fps_npy" / f"{uid}.npy"
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, arr)
        fx.fixations[uid] = plan
        acts = action_timeline(plan, seed + 10 + k)
        fx.actions[uid] = [(s, e, f"{v} the {n.replace('_', ' ')}") for s, e, v, n in acts]
        if k == 0:
            items = [{"start": s, "end": e, "textAttribute_en": label} for s, e, label in fx.actions[uid]]
            (raw / "annotations").mkdir(parents=True, exist_ok=True)
            (raw / "annotations" / f"{uid}.json").write_text(json.dumps(items, indent=1), encoding="utf-8")
            csv_rows.append([uid, "a0", "train", "ego", "kitchen", "1.0", "2.0", "decoy", "decoy", "decoy"])
        else:
            for j, (s, e, label) in enumerate(fx.actions[uid]):
                csv_rows.append([uid, f"a{j}", "val", "ego", "lab", f"{s}", f"{e}", f"C {label} with hand.",
                                 f"C {label} with the left hand.", label])
                csv_rows.append([uid, f"x{j}", "val", "exo", "lab", f"{s}", f"{e}", "exo", "exo", "exo view"])
    csv_rows.append(["ffffffff-0000-0000-0000-000000000000", "z", "test", "ego", "lab", "0.5", "1.5",
                     "other", "other", "other video"])
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(EGOEXO_CSV_COLUMNS)
    writer.writerows(csv_rows)
    (raw / "annotations").mkdir(parents=True, exist_ok=True)
    (raw / "annotations" / "fine_annotation_trainvaltest_en.csv").write_text(buf.getvalue(), encoding="utf-8")
    return fx


# ----------------------------------------------------------------------------------------- HoloAssist

HOLO_FPS = 24.46
HOLO_INTRINSICS = (500.0, 500.0, 320.0, 240.0, 640, 480)  # fx, fy, cx, cy, W, H (the video is half size)
HOLO_START_TICK = 133_215_000_000_000_000
A_CV = np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0]], dtype=np.float64)  # HoloLens local -> OpenCV axes


def camera_axes(yaw: float, pitch: float) -> np.ndarray:
    """Columns: forward, left, up in world (z up): the rotation of a camera-to-world pose."""
    f = np.array([math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), math.sin(pitch)])
    left = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    up = np.cross(f, left)
    return np.stack([f, left, up], axis=1)


def pose_matrix(rotation: np.ndarray, position: Sequence[float]) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = position
    return m


def ray_through_pixel(pose: np.ndarray, K: np.ndarray, u: float, v: float, origin: np.ndarray,
                      eye_distance: float = 0.5) -> np.ndarray:
    """The unit gaze direction from ``origin`` whose point at ``eye_distance`` projects to (u, v)."""
    r_cv = np.linalg.solve(K, np.array([u, v, 1.0]))
    r_world = pose[:3, :3] @ (A_CV.T @ r_cv)
    c = pose[:3, 3]
    d = c - origin  # solve |c + s r - o| = eye_distance for s > 0
    a, b, cc = r_world @ r_world, 2 * r_world @ d, d @ d - eye_distance ** 2
    s = (-b + math.sqrt(b * b - 4 * a * cc)) / (2 * a)
    p = c + s * r_world
    return (p - origin) / np.linalg.norm(p - origin)


def holo_frame_ticks(start: int, fps: float, n: int) -> np.ndarray:
    rate = Fraction(fps).limit_denominator()
    return np.array([start + (i * rate.denominator * 10_000_000) // rate.numerator for i in range(n)], np.int64)


def write_holoassist_export(export: Path, *, intrinsics: Sequence[float], start_tick: int, end_tick: int,
                            pose_ticks: Sequence[int], poses: Sequence[np.ndarray], eye_ticks: Sequence[int],
                            origins: Sequence[Sequence[float]], dirs: Sequence[Sequence[float]],
                            valid: Sequence[bool], video: tuple[float, float, int, int, int] | None = None) -> None:
    """The text files of an ``Export_py`` directory (and, with ``video=(duration, fps, w, h, seed)``, the video)."""
    (export / "Video").mkdir(parents=True, exist_ok=True)
    (export / "Eyes").mkdir(parents=True, exist_ok=True)
    fx, fy, cx, cy, w, h = intrinsics
    (export / "Video" / "Intrinsics.txt").write_text(
        "\t".join(f"{v:g}" for v in (fx, 0, cx, 0, fy, cy, 0, 0, 1, w, h)) + "\n", encoding="utf-8")
    (export / "Video" / "VideoMp4Timing.txt").write_text(f"{start_tick}\n{end_tick}\n", encoding="utf-8")
    lines = [f"{(tk - start_tick) / 1e7:.6f}\t{tk}\t" + "\t".join(f"{v:.9f}" for v in np.asarray(p).ravel())
             for tk, p in zip(pose_ticks, poses)]
    (export / "Video" / "Pose_sync.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = [f"{(tk - start_tick) / 1e7:.6f}\t{tk}\t" + "\t".join(f"{v:.9f}" for v in (*o, *d)) + f"\t{int(ok)}"
             for tk, o, d, ok in zip(eye_ticks, origins, dirs, valid)]
    (export / "Eyes" / "Eyes_sync.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if video is not None:
        duration, fps, vw, vh, seed = video
        write_scene_video(export / "Video_pitchshift.mp4", duration, fps, int(vw), int(vh), seed=int(seed))


def write_holoassist_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """Two sessions: a walking, turning camera; eye rays aimed so that the gaze lands on the plan."""
    raw = Path(root)
    fx = RawFixture("holoassist", raw, list(HOLO_SESSIONS))
    fxp, fyp, cxp, cyp, W, H = HOLO_INTRINSICS
    K = np.array([[fxp, 0, cxp], [0, fyp, cyp], [0, 0, 1]])
    annotations = []
    for k, session in enumerate(HOLO_SESSIONS):
        rng = np.random.default_rng(seed + 20 + k)
        n = int(round(duration * float(Fraction(HOLO_FPS).limit_denominator(100000))))
        ticks = holo_frame_ticks(HOLO_START_TICK + k * 10**11, HOLO_FPS, n)
        times = (ticks - ticks[0]) / 1e7
        plan = plan_fixations(duration, seed + 20 + k)
        g = sample_gaze(plan, times, seed + 20 + k)
        poses, origins, dirs = [], [], []
        for i, t in enumerate(times):
            rot = camera_axes(0.25 * math.sin(0.3 * t + k), -0.35 + 0.05 * math.sin(0.5 * t))
            pose = pose_matrix(rot, (0.4 * math.sin(0.2 * t), 0.03 * t, 1.6 + 0.02 * math.sin(t)))
            origin = pose[:3, 3] + rot @ np.array([-0.06, 0.0, 0.04])  # eyes behind and above the camera
            poses.append(pose)
            origins.append(origin)
            dirs.append(ray_through_pixel(pose, K, g.x[i] * W, g.y[i] * H, origin))
        jitter = rng.integers(-20000, 20000, size=(2, n))  # +-2 ms: nearest-tick matching still finds frame i
        export = raw / session / "Export_py"
        write_holoassist_export(export, intrinsics=HOLO_INTRINSICS, start_tick=int(ticks[0]),
                                end_tick=int(ticks[-1]) + 408_000, pose_ticks=ticks + jitter[0], poses=poses,
                                eye_ticks=ticks + jitter[1], origins=origins, dirs=dirs, valid=g.valid,
                                video=(duration, HOLO_FPS, WIDTH, HEIGHT, seed + 20 + k))
        fx.fixations[session] = plan
        acts = action_timeline(plan, seed + 20 + k)
        events = [{"id": j, "label": "Fine grained action", "start": s, "end": e,
                   "attributes": {"Verb": v, "Noun": nn, "Action Correctness": "Correct Action"}}
                  for j, (s, e, v, nn) in enumerate(acts)]
        events.append({"id": 90, "label": "Coarse grained action", "start": 0.0, "end": duration,
                       "attributes": {"Action sentence": "make breakfast"}})
        events.append({"id": 91, "label": "Conversation", "start": 1.0, "end": 2.0,
                       "attributes": {"Conversation Purpose": "instructor-start-conversation_correct the wrong action"}})
        events.append({"id": 92, "label": "Fine grained action", "start": duration - 0.2, "end": duration - 0.1,
                       "attributes": {"Verb": "none", "Noun": "none"}})
        fx.actions[session] = [(s, e, f"{v} {nn.replace('_', ' ')}") for s, e, v, nn in acts]
        annotations.append({"video_name": session, "events": events})
    annotations.append({"video_name": "other-session", "events": [
        {"id": 0, "label": "Fine grained action", "start": 0.0, "end": 1.0, "attributes": {"Verb": "grab", "Noun": "none"}}]})
    (raw / "data-annnotation-trainval-v1_1.json").write_text(json.dumps(annotations), encoding="utf-8")
    return fx


# ----------------------------------------------------------------------------------------- Ego4D

EGO4D_COLUMNS = (["component_idx", "component_timestamp_s", "canonical_timestamp_s", "world_index", "confidence",
                  "norm_pos_x", "norm_pos_y", "base_data", "gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z"]
                 + [f"eye_center{e}_3d_{a}" for e in (0, 1) for a in "xyz"]
                 + [f"gaze_normal{e}_{a}" for e in (0, 1) for a in "xyz"])
EGO4D_RATE = 200.0


def ego4d_row(t: float, x: float, y: float, conf: float, fps: float = 30.0) -> list[str]:
    """One CSV row; ``x, y`` top-left normalised (written bottom-left); NaN coordinates written empty."""
    xs = "" if math.isnan(x) else f"{x:.6f}"
    ys = "" if math.isnan(y) else f"{1.0 - y:.6f}"
    row = ["0", f"{t:.6f}", f"{t:.6f}", str(int(t * fps)), f"{conf:.3f}", xs, ys]
    return row + [""] * (len(EGO4D_COLUMNS) - len(row))


def ego4d_text(rows: Sequence[Sequence[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(EGO4D_COLUMNS)
    w.writerows(rows)
    return buf.getvalue()


def write_ego4d_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    raw = Path(root)
    fx = RawFixture("ego4d", raw, list(EGO4D_UIDS))
    for k, uid in enumerate(EGO4D_UIDS):
        write_scene_video(raw / "videos" / f"{uid}.mp4", duration, 30.0, seed=seed + 30 + k)
        plan = plan_fixations(duration, seed + 30 + k)
        ts = np.arange(int(duration * EGO4D_RATE)) / EGO4D_RATE
        g = sample_gaze(plan, ts, seed + 30 + k)
        rng = np.random.default_rng(seed + 30 + k)
        conf = np.where(g.valid, rng.uniform(0.8, 1.0, len(ts)), rng.uniform(0.0, 0.3, len(ts)))
        rows = [ego4d_row(t, x if ok or i % 2 else math.nan, y if ok or i % 2 else math.nan, c)
                for i, (t, x, y, ok, c) in enumerate(zip(ts, g.x, g.y, g.valid, conf))]
        path = raw / "gaze" / f"{uid}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ego4d_text(rows), encoding="utf-8")
        fx.fixations[uid] = plan
    return fx


# ----------------------------------------------------------------------------------------- Ego-Exo4D (2-D gaze)

EGOEXO4D_TAKES = ("georgiatech_cooking_01_2", "upenn_0711_Cooking_3_4")
EGOEXO4D_COLUMNS = ["frame_num", "tracking_timestamp_us", "x", "y"]
EGOEXO4D_RATE = 10.0
ARIA_PX = 1408.0
EGOEXO4D_T0_US = 1_763_475_767


def egoexo4d_gaze_text(rows: Sequence[tuple[int, float, float]], t0_us: int = EGOEXO4D_T0_US) -> str:
    """A ``general_eye_gaze_2d.csv`` of ``rows`` = (frame_num, x, y) with x, y top-left normalised
    (written as 1408x1408 Aria pixels; NaN written empty)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(EGOEXO4D_COLUMNS)
    for k, x, y in rows:
        xs = "" if math.isnan(x) else f"{x * ARIA_PX:.3f}"
        ys = "" if math.isnan(y) else f"{y * ARIA_PX:.3f}"
        w.writerow([k, t0_us + int(round(k * 1e6 / EGOEXO4D_RATE)), xs, ys])
    return buf.getvalue()


def egoexo4d_keystep(entries: Sequence[tuple[str, str, str, Sequence[tuple[float, float, str]]]]) -> str:
    """An Ego-Exo4D keystep JSON: (take_uid, take_name, scenario, [(start, end, description)])."""
    ann = {uid: {"take_uid": uid, "take_name": name, "scenario": scenario,
                 "segments": [{"start_time": s, "end_time": e, "step_id": j, "step_unique_id": 800 + j,
                               "step_name": d.split(" the ")[0], "step_description": d, "is_essential": True}
                              for j, (s, e, d) in enumerate(segs)]}
           for uid, name, scenario, segs in entries}
    return json.dumps({"annotations": ann, "taxonomy": {}, "vocabulary": {}}, indent=1)


def write_egoexo4d_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """Two takes (Aria RGB video under frame_aligned_videos/, the second only in downscaled/448/), 10 Hz
    2-D gaze with a blink written as empty x, y; keysteps for the first take only (train file, plus a
    decoy take in the val file)."""
    raw = Path(root)
    fx = RawFixture("egoexo4d_2d", raw, list(EGOEXO4D_TAKES))
    keysteps = []
    for k, take in enumerate(EGOEXO4D_TAKES):
        folder = raw / "takes" / take / "frame_aligned_videos"
        if k == 1:
            folder = folder / "downscaled" / "448"
        write_scene_video(folder / "aria01_214-1.mp4", duration, 30.0, seed=seed + 40 + k)
        plan = plan_fixations(duration, seed + 40 + k)
        ks = np.arange(int(duration * EGOEXO4D_RATE))
        g = sample_gaze(plan, ks / EGOEXO4D_RATE, seed + 40 + k)
        rows = [(int(i), x if ok else math.nan, y if ok else math.nan) for i, x, y, ok in zip(ks, g.x, g.y, g.valid)]
        path = raw / "takes" / take / "eye_gaze" / "general_eye_gaze_2d.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(egoexo4d_gaze_text(rows), encoding="utf-8")
        fx.fixations[take] = plan
        if k == 0:
            acts = [(s, e, f"{v} the {n.replace('_', ' ')}") for s, e, v, n in action_timeline(plan, seed + 40 + k)]
            fx.actions[take] = acts
            keysteps.append((f"77cd56fc-0000-4c7f-814b-81545484dd2{k}", take, "Cooking", acts))
    (raw / "annotations").mkdir(parents=True, exist_ok=True)
    (raw / "annotations" / "keystep_train.json").write_text(egoexo4d_keystep(keysteps), encoding="utf-8")
    decoy = [("77cd56fc-ffff-4c7f-814b-81545484dd2f", "other_take_1", "Bike Repair", [(1.0, 2.0, "loosen the bolt")])]
    (raw / "annotations" / "keystep_val.json").write_text(egoexo4d_keystep(decoy), encoding="utf-8")
    return fx


# ----------------------------------------------------------------------------------------- world

def write_world_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """Two demo-world videos (our own format), with their ground-truth fixations and actions."""
    from streamgaze_hf.demo.world import generate_world

    dirs = generate_world(root, n_videos=2, seed=seed, duration=max(duration, 15.0), progress=False)
    fx = RawFixture("world", Path(root), [d.name for d in dirs])
    for d in dirs:
        truth = json.loads((d / "objects.json").read_text(encoding="utf-8"))
        fx.fixations[d.name] = [PlannedFixation(f["start"], f["end"], f["x"], f["y"]) for f in truth["fixations"]]
        acts = json.loads((d / "actions.json").read_text(encoding="utf-8"))
        fx.actions[d.name] = sorted((a["start"], a["end"], a["label"]) for a in acts)
    return fx


# ----------------------------------------------------------------------------------------- Aria MPS (HD-EPIC)

ARIA_IDS = ("P01-20240202-110250", "P02-20240203-120000")
ARIA_RATE = 30.0  # gaze samples per second
ARIA_T0_US = 1_000_000_000  # device time of the first video frame (us)


def aria_calibrations() -> list[dict]:
    """Two synthetic calibrations: a pinhole camera 1 cm right of / 2 cm below the CPF, rotated 10 degrees
    about its y axis, upright video; and a zero-distortion fisheye624 with the CPF as camera, the video the
    camera image turned 90 degrees clockwise."""
    c, s = math.cos(math.radians(10)), math.sin(math.radians(10))
    cam1 = [[c, 0, s, 0.01], [0, 1, 0, 0.02], [-s, 0, c, 0.0], [0, 0, 0, 1]]
    eye = np.eye(4).tolist()
    return [
        {"camera": {"model": "linear", "width": 640, "height": 480, "params": [500.0, 500.0, 320.0, 240.0],
                    "T_device_camera": cam1},
         "T_device_cpf": eye, "first_frame_time_us": ARIA_T0_US, "rotation_cw_deg": 0},
        {"camera": {"model": "fisheye624", "width": 704, "height": 704,
                    "params": [300.0, 352.0, 352.0] + [0.0] * 12, "T_device_camera": eye},
         "T_device_cpf": eye, "first_frame_time_us": ARIA_T0_US, "rotation_cw_deg": 90},
    ]


def aria_yaw_pitch(calib: dict, x: float, y: float, depth: float = 1.5) -> tuple[float, float, float]:
    """(yaw, pitch, depth) in CPF of the point at ``depth`` (camera z) seen at normalised video (x, y): the
    inverse of the reader's projection for the two calibrations above."""
    cam = calib["camera"]
    if calib["rotation_cw_deg"] == 90:
        x, y = y, 1 - x
    u, v = x * cam["width"], y * cam["height"]
    p = cam["params"]
    if cam["model"] == "linear":
        a, b = (u - p[2]) / p[0], (v - p[3]) / p[1]
    else:
        du, dv = (u - p[1]) / p[0], (v - p[2]) / p[0]
        th = math.hypot(du, dv)
        a, b = (du, dv) if th == 0 else (math.tan(th) * du / th, math.tan(th) * dv / th)
    p_cam = np.array([a * depth, b * depth, depth, 1.0])
    p_cpf = np.linalg.inv(np.asarray(calib["T_device_cpf"])) @ np.asarray(cam["T_device_camera"]) @ p_cam
    return math.atan(p_cpf[0] / p_cpf[2]), math.atan(p_cpf[1] / p_cpf[2]), float(np.linalg.norm(p_cpf[:3]))


ARIA_COLUMNS = ("tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,depth_m,yaw_low_rads_cpf,pitch_low_rads_cpf,"
                "yaw_high_rads_cpf,pitch_high_rads_cpf")


def write_aria_raw(root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """Two HD-EPIC-style recordings (``<raw>/<Pxx>/<id>.mp4``) with Aria MPS gaze and calibration."""
    raw = Path(root)
    fx = RawFixture("aria_mps", raw, list(ARIA_IDS))
    for k, (vid, calib) in enumerate(zip(ARIA_IDS, aria_calibrations())):
        write_scene_video(raw / vid.split("-")[0] / f"{vid}.mp4", duration, 30.0, seed=seed + 40 + k)
        plan = plan_fixations(duration, seed + 40 + k)
        ts = np.arange(int(duration * ARIA_RATE)) / ARIA_RATE
        g = sample_gaze(plan, ts, seed + 40 + k)
        lines = [ARIA_COLUMNS]
        for t, x, y, ok in zip(ts, g.x, g.y, g.valid):
            yaw, pitch, depth = aria_yaw_pitch(calib, x, y) if ok else (math.nan, math.nan, math.nan)
            cells = ["" if not math.isfinite(v) else f"{v:.9f}" for v in (yaw, pitch, depth)]
            lines.append(",".join([str(ARIA_T0_US + int(round(t * 1e6))), *cells, "", "", "", ""]))
        folder = raw / "eye_gaze" / vid
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "general_eye_gaze.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / "calibration.json").write_text(json.dumps(calib), encoding="utf-8")
        fx.fixations[vid] = plan
    return fx


WRITERS: dict[str, Callable[..., RawFixture]] = {
    "world": write_world_raw, "egtea": write_egtea_raw, "egoexolearn": write_egoexolearn_raw,
    "holoassist": write_holoassist_raw, "ego4d": write_ego4d_raw, "egoexo4d_2d": write_egoexo4d_raw,
    "aria_mps": write_aria_raw,
}


def write_raw(source: str, root: Path, duration: float = DURATION, seed: int = 0) -> RawFixture:
    """Two recordings of ``source`` in its native layout under ``root``."""
    return WRITERS[source](Path(root), duration=duration, seed=seed)


# ----------------------------------------------------------------------------------------- malformed variants

def _replace_line(path: Path, index: int, text: str | None) -> int:
    """Replace (or with None delete) line ``index`` (0-based, negative from the end); returns its 1-based number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = index % len(lines)
    if text is None:
        del lines[i]
    else:
        lines[i] = text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return i + 1


def _egtea(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / "gaze_data" / f"{vid}.txt"
    version = 1 if "\tSMP\t" in gaze.read_text(encoding="utf-8") else 2
    if kind == "missing_gaze":
        gaze.unlink()
        return Corruption(gaze, "not found")
    if kind == "wrong_fields":
        n = _replace_line(gaze, 60, "1234567\tSMP\t1\t640.00\t480.00")
        return Corruption(gaze, f"line {n}")
    if kind == "bad_number":
        row = begaze_row(version, 2.0, 640.0, 480.0, 48, "Fixation", vid).replace("640.00", "64O.00")
        n = _replace_line(gaze, 61, row)
        return Corruption(gaze, f"line {n}")
    if kind == "no_samples":
        gaze.write_text("\n".join(begaze_header(version, 0, vid)) + "\n", encoding="utf-8")
        return Corruption(gaze, "no gaze samples")
    if kind == "bad_actions":
        ann = raw / "raw_annotations" / "action_labels.csv"
        n = _replace_line(ann, 1, f"1; {vid}-x; {vid}; 12a00; 13000; Take bowl; Take; bowl")
        return Corruption(ann, f"line {n}")
    raise KeyError(kind)


def _egoexolearn(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / "gazes_30fps_npy" / f"{vid}.npy"
    if kind == "wrong_shape":
        np.save(gaze, np.zeros((10, 2)))
        return Corruption(gaze, "(10, 2)")
    if kind == "not_npy":
        gaze.write_text("x,y,valid\n0.5,0.5,1\n", encoding="utf-8")
        return Corruption(gaze, "npy")
    if kind == "bad_valid":
        arr = np.load(gaze)
        arr[7, 2] = 2.0
        np.save(gaze, arr)
        return Corruption(gaze, "row 7")
    if kind == "bad_annotation_csv":
        ann = raw / "annotations" / "fine_annotation_trainvaltest_en.csv"
        (raw / "annotations" / f"{vid}.json").unlink(missing_ok=True)
        n = _replace_line(ann, 1, f"{vid},a0,val,ego,lab,abc,2.0,x,x,x")
        return Corruption(ann, f"line {n}")
    raise KeyError(kind)


def _holoassist(raw: Path, vid: str, kind: str) -> Corruption:
    export = raw / vid / "Export_py"
    eyes, pose = export / "Eyes" / "Eyes_sync.txt", export / "Video" / "Pose_sync.txt"
    if kind == "wrong_fields":
        n = _replace_line(eyes, 5, "0.2\t133215000002000000\t0\t0\t0\t1\t0")
        return Corruption(eyes, f"line {n}")
    if kind == "bad_number":
        lines = pose.read_text(encoding="utf-8").splitlines()
        fields = lines[3].split("\t")
        fields[5] = "0.1.2"
        n = _replace_line(pose, 3, "\t".join(fields))
        return Corruption(pose, f"line {n}")
    if kind == "decreasing_ticks":
        lines = eyes.read_text(encoding="utf-8").splitlines()
        lines[8], lines[9] = lines[9], lines[8]
        eyes.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return Corruption(eyes, "line 10")
    if kind == "missing_intrinsics":
        intr = export / "Video" / "Intrinsics.txt"
        intr.unlink()
        return Corruption(intr, "not found")
    if kind == "bad_timing":
        timing = export / "Video" / "VideoMp4Timing.txt"
        timing.write_text("133215000000000000\n", encoding="utf-8")
        return Corruption(timing, "two lines")
    raise KeyError(kind)


def _ego4d(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / "gaze" / f"{vid}.csv"
    if kind == "missing_column":
        text = gaze.read_text(encoding="utf-8").replace("norm_pos_y", "norm_pos_yy", 1)
        gaze.write_text(text, encoding="utf-8")
        return Corruption(gaze, "norm_pos_y")
    if kind == "bad_number":
        n = _replace_line(gaze, 50, ",".join(ego4d_row(0.2455, 0.5, 0.5, 0.9)).replace("0.500000", "half", 1))
        return Corruption(gaze, f"line {n}")
    if kind == "backwards_time":
        n = _replace_line(gaze, 80, ",".join(ego4d_row(0.01, 0.5, 0.5, 0.9)))
        return Corruption(gaze, f"line {n}")
    if kind == "wrong_fields":
        n = _replace_line(gaze, 30, "0,0.1,0.1")
        return Corruption(gaze, f"line {n}")
    raise KeyError(kind)


def _egoexo4d(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / "takes" / vid / "eye_gaze" / "general_eye_gaze_2d.csv"
    if kind == "missing_column":
        text = gaze.read_text(encoding="utf-8").replace(",x,y", ",x,yy", 1)
        gaze.write_text(text, encoding="utf-8")
        return Corruption(gaze, "missing column(s) y")
    if kind == "bad_number":
        n = _replace_line(gaze, 30, "28,1763478567000,12O.5,300.0")
        return Corruption(gaze, f"line {n}: x is not a number")
    if kind == "backwards_frame":
        n = _replace_line(gaze, 40, "5,1763478867000,120.5,300.0")
        return Corruption(gaze, f"line {n}: frame_num 5 does not increase")
    if kind == "bad_timestamp":
        n = _replace_line(gaze, 12, "11,soon,120.5,300.0")
        return Corruption(gaze, f"line {n}: tracking_timestamp_us is not an integer")
    if kind == "wrong_fields":
        n = _replace_line(gaze, 20, "18,1763477567000,120.5")
        return Corruption(gaze, f"line {n}: expected 4 fields, got 3")
    if kind == "no_video":
        video = raw / "takes" / vid / "frame_aligned_videos" / "aria01_214-1.mp4"
        video.unlink()
        return Corruption(raw / "takes" / vid, "Aria RGB video")
    if kind == "bad_keystep":
        path = raw / "annotations" / "keystep_train.json"
        path.write_text('{"annotations": {"u": {"take_name": "' + vid + '", "segments": [{"start_time": 3}]}}}',
                        encoding="utf-8")
        return Corruption(path, "keystep")
    raise KeyError(kind)


def _world(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / vid / "gaze.csv"
    if kind == "missing_gaze":
        gaze.unlink()
        return Corruption(raw / vid, "gaze.csv")
    if kind == "bad_number":
        n = _replace_line(gaze, 20, "0.5,abc,0.5,1")
        return Corruption(gaze, f"line {n}")
    raise KeyError(kind)


def _aria(raw: Path, vid: str, kind: str) -> Corruption:
    gaze = raw / "eye_gaze" / vid / "general_eye_gaze.csv"
    if kind == "missing_gaze":
        gaze.unlink()
        return Corruption(gaze, "not found")
    if kind == "bad_number":
        n = _replace_line(gaze, 40, f"{ARIA_T0_US + 1_300_000},0.1,left,1.0,,,,")
        return Corruption(gaze, f"line {n}")
    if kind == "bad_calibration":
        calib = gaze.parent / "calibration.json"
        calib.write_text('{"camera": {"model": "kb3"}}', encoding="utf-8")
        return Corruption(calib, "calibration")
    if kind == "backwards_time":
        n = _replace_line(gaze, 80, f"{ARIA_T0_US + 10},0.1,0.1,1.0,,,,")
        return Corruption(gaze, f"line {n}")
    raise KeyError(kind)


MALFORMED: dict[str, tuple[str, ...]] = {
    "world": ("missing_gaze", "bad_number"),
    "egtea": ("missing_gaze", "wrong_fields", "bad_number", "no_samples", "bad_actions"),
    "egoexolearn": ("wrong_shape", "not_npy", "bad_valid", "bad_annotation_csv"),
    "holoassist": ("wrong_fields", "bad_number", "decreasing_ticks", "missing_intrinsics", "bad_timing"),
    "ego4d": ("missing_column", "bad_number", "backwards_time", "wrong_fields"),
    "egoexo4d_2d": ("missing_column", "bad_number", "backwards_frame", "bad_timestamp", "wrong_fields", "no_video",
                    "bad_keystep"),
    "aria_mps": ("missing_gaze", "bad_number", "bad_calibration", "backwards_time"),
}
_CORRUPTERS: dict[str, Callable[[Path, str, str], Corruption]] = {
    "world": _world, "egtea": _egtea, "egoexolearn": _egoexolearn, "holoassist": _holoassist, "ego4d": _ego4d,
    "egoexo4d_2d": _egoexo4d, "aria_mps": _aria,
}


def corrupt(source: str, raw: Path, video_id: str, kind: str) -> Corruption:
    """Break one file of recording ``video_id`` in a written raw directory (see ``MALFORMED``)."""
    if kind not in MALFORMED[source]:
        raise KeyError(f"unknown corruption {kind!r} for {source}; known: {MALFORMED[source]}")
    return _CORRUPTERS[source](Path(raw), video_id, kind)
