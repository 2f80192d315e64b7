"""Real StreamGaze release files through `streamgaze import-release` (issue 23).

Real files (tests/data/real/PROVENANCE.md): one entry of the release's
``present_object_identification_easy.json`` and the official pipeline's per-video fixation table
``OP03-R01-PastaSalad_fixation_filtered.csv`` (36 lines), both as re-published byte for byte in the
``demo_data/`` of phamtrongthang123/gazeqwen (Apache-2.0, a StreamGaze consumer). The EGTEA video is
not public: a stand-in clip of the same length range (300 s) takes its place; nothing about its
pixels is compared.

Official rules re-implemented (daeunni/StreamGaze ``src/benchmark/StreamingBenchGaze_StreamGaze.py``):
``parse_timestamp`` ("MM:SS" -> int minutes * 60 + int seconds) and the present-task window
``[max(t - 60, 0), t]``; its prompt labels the options "A." to "D." (ours keeps the texts without the
label). The fixation table: one fixation per CSV row (``csv.DictReader``), times in
``start_time_seconds`` / ``end_time_seconds``, centres ``center_x`` / ``center_y`` normalised.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pyarrow.parquet as pq

from streamgaze_hf.dataset.files import data_file
from streamgaze_hf.video.writer import H264Writer

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import corpus

REAL = corpus("importers/streamgaze", module=True) / "gazeqwen-demo_data"
TABLE = "OP03-R01-PastaSalad_fixation_filtered.csv"


def parse_timestamp(timestamp_str: str) -> float:
    """The official evaluator's rule (module docstring)."""
    parts = timestamp_str.split(":")
    if len(parts) == 2:
        return int(parts[0]) * 60 + int(parts[1])
    if len(parts) == 3:
        return int(parts[0]) * 3600 + int(parts[1]) * 60 + int(parts[2])
    return float(timestamp_str)


def test_real_entry_and_fixation_table_import_as_the_official_code_reads_them(tmp_path):
    release = tmp_path / "release"
    (release / "qa").mkdir(parents=True)
    (release / "metadata").mkdir()
    (release / "qa" / "present_object_identification_easy.json").write_bytes((REAL / "sample_qa.json").read_bytes())
    (release / "metadata" / TABLE).write_bytes((REAL / TABLE).read_bytes())
    video = release / "videos" / "videos_egtea_original" / "OP03-R01-PastaSalad.mp4"
    video.parent.mkdir(parents=True)
    with H264Writer(video, 32, 24, 1) as w:  # stand-in: 300 s at 1 fps
        for i in range(300):
            w.write(np.full((24, 32, 3), i % 250, np.uint8))
    root = tmp_path / "out" / "streamgaze"
    proc = streamgaze("import", "streamgaze", release, "--out", root, "--version", "1.0.0", tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Skipped: 0" in proc.stdout

    (entry,) = json.loads((REAL / "sample_qa.json").read_text())
    (q,) = entry["questions"]
    (row,) = pq.read_table(data_file(root, "oi_easy")).to_pylist()
    t = parse_timestamp(q["time_stamp"])
    assert (row["question"], row["answer"]) == (q["question"], q["answer"])
    assert [f"{chr(65 + i)}. {o}" for i, o in enumerate(row["options"])] == q["options"]
    assert (row["query_time"], row["window_start"], row["window_end"]) == (t, max(t - 60, 0), t)
    assert row["video_id"] == entry["video_path"].removesuffix(".mp4")

    with open(REAL / TABLE, newline="") as f:
        table = list(csv.DictReader(f))
    fix = pq.read_table(data_file(root, "fixations")).to_pylist()
    assert len(fix) == len(table)
    for ours, theirs in zip(fix, table):
        assert ours["video_id"] == "OP03-R01-PastaSalad"
        assert (ours["start"], ours["end"]) == (float(theirs["start_time_seconds"]), float(theirs["end_time_seconds"]))
        assert (ours["x"], ours["y"]) == (float(theirs["center_x"]), float(theirs["center_y"]))
    # the text-gaze fixations: the table's fixations that end inside the window (our no-future-leakage
    # rule, streamgaze release_gaze.window_fixations: one still running at t is left out)
    ended = [r for r in table if t - 60 <= float(r["end_time_seconds"]) <= t]
    assert [(f["end"], f["x"]) for f in row["fixations"]] == [
        (round(float(r["end_time_seconds"]), 3), round(float(r["center_x"]), 4)) for r in ended]
