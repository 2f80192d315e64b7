"""A release shaped like the official pipeline's output, with the rows the official evaluator scores
differently from a naive importer (invented values; tiny solid-colour videos, 10 fps, 64x48).

Videos: ``lab_07.mp4`` (EgoExoLearn, 20 s, folder layout) and two HoloAssist sessions sharing the
basename ``Video_pitchshift.mp4``: ``R014-desk`` (16 s) and ``R022-bench`` (24 s), in tarballs
(``holoassist="tar"``) or extracted folders (``"folder"``). ``overlays=False`` leaves out every
``*_viz`` container (an original-only release); ``gaze=False`` leaves out ``metadata/``.

``metadata/egoexolearn.csv`` is an episode table with normalised ``center_x``/``center_y``;
``metadata/holoassist.csv`` a fixation table (``start_time_seconds`` ...) with centres in pixels.
"""

from __future__ import annotations

import copy
import csv
import json
import tarfile
from pathlib import Path

import numpy as np

from streamgaze_hf.video.writer import H264Writer

FPS, W, H = 10, 64, 48
HOLO = "Export_py/Video_pitchshift.mp4"
LAB = "lab_07.mp4"
R014 = f"R014-desk/{HOLO}"
R022 = f"R022-bench/{HOLO}"
R022_ABS = f"/mnt/holo/full/R022-bench/{HOLO}"
DURATION = {"lab_07": 20.0, "R014-desk": 16.0, "R022-bench": 24.0}
SHADE = {"lab_07": 60, "R014-desk": 120, "R022-bench": 180}


def tiny_video(path: Path, seconds: float, shade: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = np.full((H, W, 3), shade, np.uint8)
    with H264Writer(path, W, H, FPS) as writer:
        for _ in range(int(round(seconds * FPS))):
            writer.write(frame)
    return path


def _mc(video: str, question: str, options: list[str], answer, time_stamp: str | None, key: str = "video_path",
        category: str = "HOLOASSIST", **extra) -> dict:
    q = {"question": question, "options": [f"{chr(65 + i)}. {o}" for i, o in enumerate(options)],
         "answer": answer, **extra}
    if time_stamp is not None:
        q["time_stamp"] = time_stamp
    return {"response_time": "[00:00 - 00:10]", "questions": [q], "video_categories": category, key: video}


def _pro(video: str, question: str, time_stamp: str | None, checkpoints: list[tuple[str, object]]) -> dict:
    q = {"question": question, "test_info": [{"realtime": r, "type": t} for r, t in checkpoints],
         "target_object": question.split("<")[-1].split(">")[0]}
    if time_stamp is not None:
        q["time_stamp"] = time_stamp
    return {"response_time": "[00:00 - 00:30]", "questions": [q], "video_categories": "HOLOASSIST",
            "video_path": video}


NEXT = "What object does the user gaze at next after looking at the {%s}?"
TRANSITION = "Which transition best matches the user's gaze pattern?"
SEQS = ["{mug,kettle}>{tap}>{sponge}", "{tap}>{mug,kettle}>{sponge}", "{sponge}>{tap}>{mug,kettle}",
        "{kettle}>{sponge}>{tap}"]
NFI = "Among {drill, clamp, ruler, tape}, which did the user never gaze at?"


def qa_files() -> dict[str, list[dict]]:
    """The ten task files (see the test module for what each row exercises)."""
    nfi = _mc(R014, NFI, ["drill", "clamp", "ruler", "tape"], "C", "00:11")
    return {
        "past_object_transition_prediction.json": [
            _mc(LAB, TRANSITION, SEQS, "A", "00:12", category="EGTEA"),  # GSM text in the OTP file
            _mc(R014, NEXT % "drill", ["screwdriver", "clamp", "ruler", "tape"], "b", "00:09"),
        ],
        "past_gaze_sequence_matching.json": [  # paired the way the official router pairs them
            _mc(R022_ABS, NEXT % "saw, bench", ["hammer", "level", "brush", "pliers"], "C.", "00:15"),
            _mc(LAB, NEXT % "beaker", ["pipette", "flask", "scale", "gloves"], "(d)", "00:07", category="EGTEA"),
            _mc(LAB, TRANSITION, SEQS[::-1], "B", "00:18", category="EGTEA"),
        ],
        "past_scene_recall.json": [
            _mc(LAB, "When the user was gazing at the {beaker}, which background object was NOT visible?",
                ["tray", "scale", "burner", "rack"], "A", None, category="EGTEA"),  # no time_stamp
            _mc(R022, "When the user was gazing at the {saw}, which background object was NOT visible?",
                ["vise", "level", "brush", "pliers"], "B", "00:30"),  # past the 24 s video
        ],
        "past_non_fixated_object_identification.json": [
            nfi, copy.deepcopy(nfi),  # an exact duplicate
            _mc("missing_cam.mp4", NFI, ["drill", "clamp", "ruler", "tape"], "A", "00:04"),
        ],
        "present_object_identification_easy.json": [
            _mc(LAB, "What is this?", ["beaker", "flask", "tray", "pipette"], "c", "00:05", key="video",
                category="EGOEXO"),
            _mc(R022, "What is this?", ["saw", "vise", "brush", "level"], "D", "00:20"),
        ],
        "present_object_identification_hard.json": [
            _mc(R014, "What is this?", ["drill", "clamp", "ruler", "tape"], "E", "00:06"),
            _mc(R014, "What is this?", [], "A", "00:07"),
            _mc(R022, "What is this?", ["hammer", "level", "saw", "brush"], "level", "00:12"),
        ],
        "present_object_attribute_recognition.json": [
            _mc(LAB, "What color is this object?", ["red", "blue", "green", "amber", "clear"], "E", "00:14",
                category="EGOEXO"),
        ],
        "present_future_action_prediction.json": [
            _mc(R014, "Based on the recent fixation pattern (drill → clamp), what action will the user do next?",
                ["The user will tighten the clamp.", "The user will sand the board.",
                 "The user will measure the plank.", "The user will sweep the floor."], "A", "00:13"),
        ],
        "proactive_gaze_triggered_alert.json": [
            _pro(LAB, "Monitor my gaze and alert me when I gaze on the <flask>.", "00:02",
                 [("00:04", 0), ("00:08", None), ("00:12", 1), ("00:16", 2)]),
            _pro(R014, "Monitor my gaze and alert me when I gaze on the <clamp>.", None,
                 [("00:03", 0), ("00:13", 1)]),
            _pro(R022, "Monitor my gaze and alert me when I gaze on the <vise>.", "00:01",
                 [("00:05", None), ("00:10", None)]),
        ],
        "proactive_object_appearance_alert.json": [
            _pro(R014, "Watch the scene and alert me when the <ruler> first appears.", "00:01",
                 [("00:06", 0), ("00:11", 0), ("00:16", 1), ("00:21", 0), ("00:26", 0)]),
        ],
    }


def _write_metadata(meta: Path) -> None:
    meta.mkdir(parents=True)
    with (meta / "egoexolearn.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["video_name", "episode_start_time", "episode_end_time", "duration", "representative_object",
                    "other_objects_in_cropped_area", "other_objects_outside_fov", "center_x", "center_y"])
        w.writerow(["lab_07", 1.0, 3.5, 2.5, "{'object_identity': 'beaker'}", "[]", "[]", 0.25, 0.40])
        w.writerow(["lab_07", 4.0, 6.0, 2.0, "{'object_identity': 'flask'}", "[]", "[]", 0.75, 0.5])
        w.writerow(["lab_07", 9.0, 13.0, 4.0, "{'object_identity': 'tray'}", "[]", "[]", 0.5, 0.25])
        w.writerow(["lab_07", 14.0, 15.0, 1.0, "{'object_identity': 'rack'}", "[]", "[]", "", ""])
    with (meta / "holoassist.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["segment_id", "start_time_seconds", "end_time_seconds", "duration_seconds", "center_x",
                    "center_y", "video_name"])
        w.writerow(["segment_0", 2.0, 4.0, 2.0, 16, 36, "R014-desk"])
        w.writerow(["segment_1", 5.0, 8.5, 3.5, 48, 12, "R014-desk"])
        w.writerow(["segment_0", 1.0, 2.0, 1.0, 10, 10, "R099-gone"])


def _write_videos(videos: Path, holoassist: str, overlays: bool, cache: Path) -> None:
    kinds = ["original", "viz"] if overlays else ["original"]
    for kind in kinds:
        bump = 0 if kind == "original" else 7
        src = {vid: tiny_video(cache / kind / f"{vid}.mp4", DURATION[vid], SHADE[vid] + bump)
               if not (cache / kind / f"{vid}.mp4").is_file() else cache / kind / f"{vid}.mp4"
               for vid in DURATION}
        folder = videos / f"videos_egoexolearn_{kind}"
        folder.mkdir(parents=True)
        (folder / LAB).write_bytes(src["lab_07"].read_bytes())
        members = {f"holoassist/{R014}": src["R014-desk"], f"holoassist/{R022}": src["R022-bench"]}
        if holoassist == "tar":
            with tarfile.open(videos / f"videos_holoassist_{kind}.tar.gz", "w:gz") as tf:
                for arcname, path in members.items():
                    tf.add(path, arcname=arcname)
        else:
            for arcname, path in members.items():
                dest = videos / f"videos_holoassist_{kind}" / arcname
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(path.read_bytes())


def make_fidelity_release(root: Path, cache: Path, *, holoassist: str = "tar", overlays: bool = True,
                          gaze: bool = True) -> Path:
    """Write the release under ``root`` (videos generated once into ``cache``) and return ``root``."""
    (root / "qa").mkdir(parents=True)
    for name, entries in qa_files().items():
        (root / "qa" / name).write_text(json.dumps(entries, indent=2, ensure_ascii=False), encoding="utf-8")
    if gaze:
        _write_metadata(root / "metadata")
    _write_videos(root / "videos", holoassist, overlays, cache)
    return root
