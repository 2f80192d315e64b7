"""The real EgoGazeVQA release (issue 23), imported through the `streamgaze` console script and checked
against the official code's own rules.

Real files: the nine question CSVs and the three narration JSONs of taiyi98/EgoGazeVQA (MIT, commit
5b4d128; tests/data/real/PROVENANCE.md), byte for byte (the JSONs gzip-compressed). The release
publishes no keyframe images; the test writes a blank stand-in for every keyframe file name the CSVs
list (the importer needs an image per keyframe; nothing about the images is compared).

Official rules re-implemented here (named after their source in that repository):

* **caculate.py / test_wo.py denominators**: each test script reads a category CSV with
  ``csv.DictReader`` and appends one result row per CSV row; ``calculate_accuracy`` divides by
  ``len(df)``. So a category's denominator is its CSV rows over the three datasets.
* **test_gaze.py narration lookup and GazeT text**: the keyframe's narration entry is the one whose
  ``timestamp_frame`` equals the number in the file name; its line is ``f"Frame {i+1}:
  Gaze({gaze_x}, {gaze_y})"`` of ``gaze_info.get("gaze_x", "N/A")``.
* **Untracked gaze**: the release's untracked marker in the Ego4D narrations is ``gaze_x = gaze_y = -1``
  with ``confidence 0.0`` (the official drawing helper ``spatial.py::visualize_gaze_for_group`` skips
  every point with ``confidence < 1.0``); EGTEA entries carry the BeGaze event type of EGTEA's
  ``gaze_io_sample.py``, whose ``untracked`` (code 0) entries sit at 0, 0. A point outside the frame is a
  position on whichever side it falls (issue 32: the 9 Ego4D keyframe uses of ``y = -0.02``, confidence 1.0,
  are valid and off the frame, like ``x = 1.1``).
* **EGTEA frame rate**: EGTEA Gaze+ videos are 24 fps (the EGTEA reader's ``DEFAULT_FPS``); the
  narration's frame number n is at n / 24 s. Ego4D / Ego-Exo4D entries give ``timestamp_sec``.
"""

from __future__ import annotations

import collections
import copy
import csv
import functools
import gzip
import json
import math
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.benchmarks.egogazevqa import CATEGORIES, PAPER_QUESTIONS, SOURCES
from streamgaze_hf.benchmarks.egogazevqa.prompts import gaze_lines, question_prompt
from streamgaze_hf.benchmarks.egogazevqa.release import import_release
from streamgaze_hf.benchmarks.egogazevqa.visuals import gazev_frame, salience_image
from streamgaze_hf.dataset.files import data_file, read_manifest
from streamgaze_hf.gaze.sources.egtea import DEFAULT_FPS as EGTEA_FPS

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import corpus

REAL = corpus("importers/egogazevqa", module=True)
DATASETS = tuple(SOURCES)  # ego4d, egoexo, egtea (the CSV and JSON name suffixes)
# a stand-in keyframe: the smallest PNG OpenCV and PIL both read (8x6, black)
_BLANK = None


def _blank_png() -> bytes:
    global _BLANK
    if _BLANK is None:
        import cv2

        _BLANK = cv2.imencode(".png", np.zeros((6, 8, 3), np.uint8))[1].tobytes()
    return _BLANK


# ---------------------------------------------------------------------------------------- official rules


@functools.lru_cache(maxsize=1)
def official_rows() -> dict[str, list[dict]]:
    """Per category, the rows the official test scripts score (csv.DictReader over each CSV, in the
    order the scripts loop: dataset by dataset), each with its dataset."""
    out: dict[str, list[dict]] = {c: [] for c in CATEGORIES}
    for cat in CATEGORIES:
        for ds in DATASETS:
            with open(REAL / "qa_pairs" / f"{cat}_{ds}.csv") as f:
                out[cat] += [{**row, "_dataset": ds} for row in csv.DictReader(f)]
    return out


@functools.lru_cache(maxsize=1)
def narrations() -> dict[str, dict]:
    return {ds: json.loads(gzip.decompress((REAL / "narrations" / f"{ds}.json.gz").read_bytes())) for ds in DATASETS}


def official_entry(narr: dict, ds: str, video_id: str, name: str) -> dict:
    """test_gaze.py's lookup: the narration entry whose timestamp_frame is the file name's number."""
    video = narr[ds][video_id]
    entries = video.get("narration_pass_1", video)["narrations"]
    frame = int(name.split(".")[0])
    return next(e for e in entries if e["timestamp_frame"] == frame)


def tracked(gaze: dict | None) -> bool:
    """The untracked markers of the release (module docstring)."""
    if not gaze:
        return False
    return ((gaze["gaze_x"], gaze["gaze_y"]) != (-1, -1) and gaze.get("confidence", 1.0) != 0.0
            and gaze.get("gaze_type") != "untracked")


def official_time(entry: dict, ds: str) -> float:
    return entry["timestamp_sec"] if "timestamp_sec" in entry else entry["timestamp_frame"] / EGTEA_FPS


# ---------------------------------------------------------------------------------------- the import


def _release(base, narr: dict | None = None, files: tuple[str, ...] | None = None):
    """The release under ``base``: qa_pairs/ a *symlink* to the committed CSVs (``files``: copies of
    only these), the narrations decompressed (or ``narr``), a blank stand-in image per keyframe file
    name of the questions."""
    release = base / "release"
    release.mkdir(parents=True)
    if files is None:
        (release / "qa_pairs").symlink_to(REAL / "qa_pairs", target_is_directory=True)
    else:
        (release / "qa_pairs").mkdir()
        for name in files:
            shutil.copy(REAL / "qa_pairs" / name, release / "qa_pairs" / name)
    (release / "narrations").mkdir()
    for ds in DATASETS:
        data = gzip.decompress((REAL / "narrations" / f"{ds}.json.gz").read_bytes())
        if narr is not None:
            data = json.dumps(narr[ds]).encode()
        (release / "narrations" / f"{ds}.json").write_bytes(data)
    blank = _blank_png()
    for cat, rows in official_rows().items():
        for row in rows:
            if files is not None and f"{cat}_{row['_dataset']}.csv" not in files:
                continue
            folder = release / "frames" / row["_dataset"] / row["video_id"]
            folder.mkdir(parents=True, exist_ok=True)
            for name in row["group_id"].split("\n"):
                (folder / name).write_bytes(blank)
    return release


@pytest.mark.slow  # the whole real release: 1,757 questions, 7,304 keyframes written and imported (~7 s)
def test_the_real_release_imports_as_the_official_code_reads_it(tmp_path):
    """One import (through the console script, qa_pairs/ a symlink) shared by the checks below."""
    release = _release(tmp_path)
    out = tmp_path / "out" / "egogazevqa"
    proc = streamgaze("import", "egogazevqa", release, "--out", out, "--version", "1.0.0", tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {cat: pq.read_table(data_file(out, cat)).to_pylist() for cat in CATEGORIES}
    imported = (out, rows, proc.stdout)
    check_every_official_row_is_imported(imported)
    check_same_text_distinct_and_exact_repeats_flagged(imported)
    check_keyframe_gaze_and_times(imported)
    check_gaze_config(imported)
    check_untracked_keyframes_in_gazev_gazes_gazet(imported)


def check_every_official_row_is_imported(imported):
    out, rows, stdout = imported
    official = official_rows()
    assert {c: len(rows[c]) for c in CATEGORIES} == {c: len(official[c]) for c in CATEGORIES}
    assert sum(len(r) for r in rows.values()) == PAPER_QUESTIONS
    assert read_manifest(out)["build"]["report"]["imported"] == {c: len(official[c]) for c in CATEGORIES}
    for cat in CATEGORIES:  # one imported question per official row, same text, options and answer
        ours = collections.Counter((r["video_id"], r["question"], "\n".join(f"{'ABCDE'[i]}: {o}" for i, o in
                                                                            enumerate(r["options"])), r["answer"])
                                   for r in rows[cat])
        theirs = collections.Counter((r["video_id"], r["Question"], r["Answer Options"], r["Correct Answer"])
                                     for r in official[cat])
        assert ours == theirs
    ids = [r["question_id"] for cat in CATEGORIES for r in rows[cat]]
    assert len(set(ids)) == len(ids)
    assert "Skipped: 0" in stdout


def check_same_text_distinct_and_exact_repeats_flagged(imported):
    out, rows, _ = imported
    for cat in CATEGORIES:
        official = official_rows()[cat]
        full = collections.Counter(tuple(r[k] for k in ("_dataset", "video_id", "group_id", "Question",
                                                        "Answer Options", "Correct Answer")) for r in official)
        repeats = sum(n - 1 for n in full.values())
        flagged = [r for r in rows[cat] if "duplicate_of" in json.loads(r["metadata"])]
        assert len(flagged) == repeats
        by_id = {r["question_id"]: r for r in rows[cat]}
        for r in flagged:
            first = by_id[json.loads(r["metadata"])["duplicate_of"]]
            assert (first["question"], first["options"], first["answer"]) == (r["question"], r["options"], r["answer"])
        # same video, keyframes and question text, other options or answer: distinct, not flagged
        same_text = collections.defaultdict(set)
        for r in official:
            same_text[(r["_dataset"], r["video_id"], r["group_id"], r["Question"])].add(
                (r["Answer Options"], r["Correct Answer"]))
        distinct = {k for k, v in same_text.items() if len(v) > 1}
        ours = collections.defaultdict(set)
        for r in rows[cat]:
            meta = json.loads(r["metadata"])
            if "duplicate_of" not in meta:
                ours[(r["video_id"], "\n".join(meta["group_id"]), r["question"])].add(r["question_id"])
        for key in distinct:
            assert len(ours[key[1:]]) == len(same_text[key])
    n_flagged = sum(1 for c in CATEGORIES for r in rows[c] if "duplicate_of" in json.loads(r["metadata"]))
    assert read_manifest(out)["build"]["report"]["notes"]["duplicate_row"] == n_flagged


def check_keyframe_gaze_and_times(imported):
    _, rows, _ = imported
    narr = narrations()
    n_invalid = n_egtea = n_off_negative = 0
    for cat in CATEGORIES:
        for r in rows[cat]:
            ds = next(k for k, v in SOURCES.items() if v == r["source"])
            meta = json.loads(r["metadata"])
            for f, name in zip(r["frames"], meta["group_id"]):
                entry = official_entry(narr, ds, r["video_id"], name)
                gaze = entry.get("gaze_info")
                assert f["gaze_valid"] is tracked(gaze), (r["question_id"], name, gaze)
                if f["gaze_valid"]:
                    assert (f["gaze_x"], f["gaze_y"]) == (gaze["gaze_x"], gaze["gaze_y"])
                    n_off_negative += min(f["gaze_x"], f["gaze_y"]) < 0
                else:
                    n_invalid += 1
                    assert math.isnan(f["gaze_x"]) and math.isnan(f["gaze_y"])
                assert f["frame"] == entry["timestamp_frame"]
                assert f["time"] == official_time(entry, ds)
                n_egtea += ds == "egtea"
            times = [f["time"] for f in r["frames"]]
            assert (r["window_start"], r["window_end"]) == (min(times), max(times))
    assert n_invalid > 0 and n_egtea > 0  # the release has both (Ego4D -1 markers, EGTEA untracked entries)
    # the 9 Ego4D keyframe uses of points just off the frame (y = -0.02, confidence 1.0): valid, off the frame
    assert n_off_negative == 9


def check_gaze_config(imported):
    out, rows, _ = imported
    narr = narrations()
    gaze = pq.read_table(data_file(out, "gaze")).to_pylist()
    used = {(r["source"], r["video_id"]) for cat in CATEGORIES for r in rows[cat]}
    expected = []
    for src, vid in sorted(used, key=lambda k: k[1]):
        ds = next(k for k, v in SOURCES.items() if v == src)
        video = narr[ds][vid]
        for e in video.get("narration_pass_1", video)["narrations"]:
            expected.append((vid, tracked(e.get("gaze_info"))))
    assert collections.Counter((g["video_id"], g["valid"]) for g in gaze) == collections.Counter(expected)
    assert all(math.isnan(g["x"]) and not g["in_frame"] for g in gaze if not g["valid"])


def check_untracked_keyframes_in_gazev_gazes_gazet(imported):
    _, rows, _ = imported
    narr = narrations()
    row = next(r for r in rows["spatial"] if not all(f["gaze_valid"] for f in r["frames"]))
    frames = row["frames"]
    meta = json.loads(row["metadata"])
    blank = np.zeros((120, 160, 3), np.uint8)
    for f in frames:  # GazeV: a circle only on a tracked keyframe (inside the frame)
        drawn = not np.array_equal(gazev_frame(blank, f), blank)
        assert drawn is (f["gaze_valid"] and 0 <= f["gaze_x"] <= 1 and 0 <= f["gaze_y"] <= 1)
    # GazeS: the untracked keyframes leave no trace (same map as the tracked keyframes alone)
    tracked_only = [f for f in frames if f["gaze_valid"]]
    assert np.array_equal(salience_image(frames, 160, 120), salience_image(tracked_only, 160, 120))
    # GazeT default: the frame says its gaze is unavailable
    lines = gaze_lines(frames).splitlines()[1:]
    for i, f in enumerate(frames):
        assert ("unavailable" in lines[i]) is (not f["gaze_valid"])
    # GazeT reference: test_gaze.py's text of the release's values, byte for byte
    ds = next(k for k, v in SOURCES.items() if v == row["source"])
    official = "Gaze information for the relevant frames:\n"
    for i, name in enumerate(meta["group_id"]):
        g = official_entry(narr, ds, row["video_id"], name)["gaze_info"]
        official += f"Frame {i+1}: Gaze({g.get('gaze_x', 'N/A')}, {g.get('gaze_y', 'N/A')})\n"
    ref = question_prompt(row["question"], row["options"], frames, gaze="text", mode="reference",
                          release_gaze=meta["release_gaze"])
    assert ref.startswith(official) and "Gaze(-1, -1)" in ref


def test_a_time_that_cannot_be_known_is_counted_with_its_reason(tmp_path):
    """Derived from the real files: the Ego4D narrations without ``timestamp_sec`` (and no clip to
    read a frame rate from) leave the Ego4D keyframes' times unknown; every such question is counted."""
    narr = copy.deepcopy(narrations())
    for video in narr["ego4d"].values():
        for e in video.get("narration_pass_1", video)["narrations"]:
            e.pop("timestamp_sec")
    release = _release(tmp_path, narr, files=("causal_ego4d.csv",))
    report = import_release(release, tmp_path / "out" / "egogazevqa", "1.0.0", progress=False)
    n_rows = sum(1 for r in official_rows()["causal"] if r["_dataset"] == "ego4d")
    assert report.total_imported == n_rows
    assert report.notes["time_unknown"] == n_rows
    (example,) = report.examples["time_unknown"][:1]
    assert "frame rate of ego4d clips is unknown without the clip" in example.detail
