"""The demo world as raw input of the EgoGazeVQA build, and a VLM that answers from its ground truth.

``write_narrated_world(root)`` writes two 30 s demo-world videos whose ``actions.json`` holds the
world's own actions plus one point narration per true fixation on an object ("C looks at the <object>"
at the fixation's middle), so each video has enough narrations for a group of nine keyframes.
``write_world_as_egoexo4d(world_dir, raw)`` re-packs one of them as an Ego-Exo4D take (Aria RGB video,
10 Hz ``general_eye_gaze_2d.csv`` in 1408 px, keystep JSON), ``write_world_as_ego4d`` as an Ego4D video
and ``write_world_as_egtea`` as an EGTEA Gaze+ session (BeGaze export, ``action_labels.csv``).

``expected_keyframes`` re-implements the documented keyframe rule from the raw files, independently of
the build. ``ground_truth_responder`` is a VLMStub responder: it reads the burnt-in frame index of every
image it receives, looks the group up, and writes a question whose correct option is the object the
world says the wearer gazed at in one of the keyframes (spatial: the last, temporal: the first, causal:
the fifth), at a position that depends on the frames.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import numpy as np

from streamgaze_hf.demo.timecode import read_frame_code
from streamgaze_hf.demo.world import generate_world
from streamgaze_hf.gaze.io import read_gaze_csv
from streamgaze_hf.video.reader import probe_video

ASKED_FRAME = {"spatial": 8, "temporal": 0, "causal": 4}  # which keyframe each category asks about
CATEGORY_MARK = {"spatial": "spatial localization", "temporal": "Contextual Temporal Reasoning",
                 "causal": "Gaze-Informed Causal Reasoning"}
LETTERS = "ABCDE"


def write_narrated_world(root: Path, n_videos: int = 2, duration: float = 30.0) -> list[Path]:
    dirs = generate_world(root, n_videos=n_videos, seed=0, duration=duration, progress=False)
    for d in dirs:
        truth = json.loads((d / "objects.json").read_text(encoding="utf-8"))
        acts = json.loads((d / "actions.json").read_text(encoding="utf-8"))
        for f in truth["fixations"]:
            if f["object"]:
                mid = round((f["start"] + f["end"]) / 2, 3)
                acts.append({"start": mid, "end": mid, "label": f"C looks at the {f['object']}"})
        acts.sort(key=lambda a: (a["start"], a["label"]))
        (d / "actions.json").write_text(json.dumps(acts, indent=1), encoding="utf-8")
    return dirs


def gazed_name(truth: dict, frame: int) -> str:
    oid = truth["frames"]["gazed"][frame]
    return "nothing in particular" if oid < 0 else truth["objects"][oid]["name"]


def expected_keyframes(video: Path, actions: list[tuple[float, float, str]], t: np.ndarray, x: np.ndarray,
                       y: np.ndarray, valid: np.ndarray, max_age: float = 0.2) -> list[tuple[int, float, float, str]]:
    """(frame, gaze x, gaze y, caption) per keyframe by the documented rule."""
    info = probe_video(video)
    times = info.frame_times
    out, used = [], set()
    for _start, end, label in sorted(actions, key=lambda a: (a[1], a[0], a[2])):
        frame = min(max(int(math.ceil(end * info.fps - 1e-6)), 0), info.n_frames - 1)
        ft = float(times[frame])
        k = int(np.searchsorted(t, ft + 1e-9, side="right")) - 1
        if k < 0 or ft - t[k] > max_age + 1e-9 or not valid[k] or frame in used:
            continue
        used.add(frame)
        out.append((frame, float(x[k]), float(y[k]), label))
    return sorted(out)


def world_keyframes(d: Path) -> list[tuple[int, float, float, str]]:
    info = probe_video(d / "video.mp4")
    track = read_gaze_csv(d / "gaze.csv", info.width, info.height, info.fps)
    acts = [(a["start"], a["end"], a["label"]) for a in json.loads((d / "actions.json").read_text())]
    return expected_keyframes(d / "video.mp4", acts, track.t, track.x, track.y, track.valid)


def ground_truth_responder(truths: dict[tuple[int, ...], dict], garbage_first: bool = True):
    """A VLMStub responder (see the module docstring); ``truths`` maps a group's frame indices to the
    world's objects.json of its video. The very first request gets prose instead of JSON (a re-ask)."""
    state = {"n": 0}

    def respond(req) -> str:
        state["n"] += 1
        if garbage_first and state["n"] == 1:
            return "Sure! Here is a question about the frames."
        frames = tuple(read_frame_code(img) for img in req.images)
        truth = truths[frames]
        cat = next(c for c, mark in CATEGORY_MARK.items() if mark in req.prompt)
        correct = gazed_name(truth, frames[ASKED_FRAME[cat]])
        pool = sorted({o["name"] for o in truth["objects"]} - {correct})
        pos = (sum(frames) + list(CATEGORY_MARK).index(cat)) % 5
        options = [f"The {n}." for n in pool[pos:pos + 4] or pool[:4]]
        options.insert(pos, f"The {correct}.")
        question = {"spatial": "Which object is under my gaze in the last keyframe?",
                    "temporal": "What was I looking at when the clip began?",
                    "causal": "Which object held my attention in the middle of the task?"}[cat]
        return "```json\n" + json.dumps({"question": question, "options": [f"{LETTERS[i]}: {o}" for i, o in
                                                                            enumerate(options)],
                                         "answer": LETTERS[pos]}) + "\n```"

    return respond


def write_world_as_egoexo4d(world_dir: Path, raw: Path, take: str = "fair_cooking_05_2") -> Path:
    """One demo-world video as an Ego-Exo4D take; returns the gaze CSV written."""
    video = raw / "takes" / take / "frame_aligned_videos" / "aria01_214-1.mp4"
    video.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(world_dir / "video.mp4", video)
    info = probe_video(video)
    track = read_gaze_csv(world_dir / "gaze.csv", info.width, info.height, info.fps)
    gaze = raw / "takes" / take / "eye_gaze" / "general_eye_gaze_2d.csv"
    gaze.parent.mkdir(parents=True, exist_ok=True)
    with gaze.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["frame_num", "tracking_timestamp_us", "x", "y"])
        k = 0
        while k / 10.0 <= track.t[-1] + 1e-9:
            i = int(np.searchsorted(track.t, k / 10.0 + 1e-9, side="right")) - 1
            ok = bool(track.valid[i])
            w.writerow([k, 1_000_000 + 100_000 * k, f"{track.x[i] * 1408:.2f}" if ok else "",
                        f"{track.y[i] * 1408:.2f}" if ok else ""])
            k += 1
    acts = json.loads((world_dir / "actions.json").read_text(encoding="utf-8"))
    segs = [{"start_time": a["start"], "end_time": a["end"], "step_id": j, "step_name": a["label"],
             "step_description": a["label"], "is_essential": True, "step_unique_id": 900 + j}
            for j, a in enumerate(acts)]
    ann = {"annotations": {"uid-1": {"take_uid": "uid-1", "take_name": take, "scenario": "Cooking",
                                     "segments": segs}}, "taxonomy": {}, "vocabulary": {}}
    (raw / "annotations").mkdir(parents=True, exist_ok=True)
    (raw / "annotations" / "keystep_train.json").write_text(json.dumps(ann), encoding="utf-8")
    return gaze


def write_world_as_ego4d(world_dir: Path, raw: Path, uid: str = "5c9a8b1e-0000-4d2f-9a51-7c1f0000cafe") -> None:
    """One demo-world video in Ego4D's layout: the video, the Pupil Labs gaze CSV (bottom-left origin,
    confidence 0.95 / 0.1 for valid / invalid samples) and ``narration.json`` with one narration per
    action at its end (``#C`` tagged)."""
    from .source_fixtures import ego4d_row, ego4d_text

    (raw / "videos").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(world_dir / "video.mp4", raw / "videos" / f"{uid}.mp4")
    info = probe_video(raw / "videos" / f"{uid}.mp4")
    track = read_gaze_csv(world_dir / "gaze.csv", info.width, info.height, info.fps)
    rows = [ego4d_row(t, x, y, 0.95 if ok else 0.1)
            for t, x, y, ok in zip(track.t, track.x, track.y, track.valid)]
    (raw / "gaze").mkdir(parents=True, exist_ok=True)
    (raw / "gaze" / f"{uid}.csv").write_text(ego4d_text(rows), encoding="utf-8")
    acts = json.loads((world_dir / "actions.json").read_text(encoding="utf-8"))
    narrations = [{"timestamp_sec": a["end"], "timestamp_frame": int(a["end"] * 30), "narration_text": "#C " + a["label"],
                   "annotation_uid": f"n{j}"} for j, a in enumerate(acts)]
    (raw / "narration.json").write_text(json.dumps({uid: {"narration_pass_1": {"narrations": narrations}}}),
                                        encoding="utf-8")


def write_world_as_egtea(world_dir: Path, raw: Path, session: str, version: int,
                         extra: tuple[tuple[float, float, str], ...] = ()) -> list[tuple[float, float, float, int, str]]:
    """One demo-world video as an EGTEA Gaze+ session: ``videos/<session>.mp4``, a BeGaze export of
    layout ``version`` (1 or 2) of every world gaze sample (30 Hz) in 1280x960 pixels, its video frame
    ``floor(t * 24)``, event ``Fixation`` (``Blink`` at 0, 0 for an invalid sample), and the session's
    rows appended to ``raw_annotations/action_labels.csv`` (created with its header): the world's
    actions plus ``extra`` (start, end, label), EGTEA style ("C looks at the teapot" -> "Looks at the
    teapot"), times in ms. Returns the gaze rows (t, px, py, frame, event) exactly as written."""
    from .source_fixtures import begaze_text

    video = raw / "videos" / f"{session}.mp4"
    video.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(world_dir / "video.mp4", video)
    info = probe_video(video)
    track = read_gaze_csv(world_dir / "gaze.csv", info.width, info.height, info.fps)
    rows = []
    for t, x, y, ok in zip(track.t, track.x, track.y, track.valid):
        px, py = (round(float(x) * 1280, 2), round(float(y) * 960, 2)) if ok else (0.0, 0.0)
        rows.append((float(t), px, py, int(math.floor(t * 24 + 1e-9)), "Fixation" if ok else "Blink"))
    gaze = raw / "gaze_data" / f"{session}.txt"
    gaze.parent.mkdir(parents=True, exist_ok=True)
    gaze.write_text(begaze_text(version, rows, session), encoding="utf-8")
    acts = json.loads((world_dir / "actions.json").read_text(encoding="utf-8"))
    labels = [*((a["start"], a["end"], a["label"]) for a in acts), *extra]
    ann = raw / "raw_annotations" / "action_labels.csv"
    ann.parent.mkdir(parents=True, exist_ok=True)
    lines = ann.read_text(encoding="utf-8").splitlines() if ann.is_file() else [
        "# Clip ID (Unique, used only internally); Clip Prefix (Unique); Video Session; Starting Time (ms); "
        "Ending Time (ms); Action Label; Verb Label; Noun Label(s)"]
    for start, end, label in labels:
        text = label.removeprefix("C ")
        text = text[:1].upper() + text[1:]
        verb, _, noun = text.partition(" ")
        ms0, ms1 = int(round(start * 1000)), int(round(end * 1000))
        lines.append(f"{len(lines)}; {session}-{ms0}-{ms1}-F{int(start * 24):06d}-F{int(end * 24):06d}; {session}; "
                     f"{ms0}; {ms1}; {text}; {verb}; {noun}")
    ann.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rows
