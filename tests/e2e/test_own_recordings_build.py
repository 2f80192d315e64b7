"""From glasses to a benchmark: `streamgaze build streamgaze --source pupil_cloud` (the console script, another
process) over a real Pupil Cloud export (shared/real_data/own_recordings; a stand-in scene video at the
recording's 1600 x 1200 with its real frame timestamps) with the VLM object back-end against the loopback
OpenAI-compatible stub; a multi-part Neon recording's scene video joined on the track's clock; and a real Tobii
Pro Glasses 2 recording (gzz7stc) built with a stand-in scene video of its size (1920 x 1080 at 25 fps).
"""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.dataset.files import read_manifest
from streamgaze_hf.dataset.load import open_dataset
from streamgaze_hf.gaze.sources import neon, pupil_cloud, tobii_g2

from ..fixtures.cli_entry import streamgaze
from ..fixtures.real_corpus import shared_data
from ..fixtures.source_fixtures import write_timed_video
from ..fixtures.vlm_stub import PALETTE, VLMStub

pytestmark = pytest.mark.slow

CLOUD = shared_data("own_recordings/pupil_cloud_export", module=True) / "neon_2024-09-17_11-06-49-171c4f52"
NEON = shared_data("own_recordings/neon_native", module=True)
G2 = shared_data("own_recordings/tobii_g2", module=True) / "gzz7stc"


def _cloud_recording(raw, name: str, with_events: bool):
    rec = raw / name
    shutil.copytree(CLOUD, rec)
    if not with_events:
        (rec / "events.csv").unlink()
    with open(CLOUD / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    layouts = [tiles(1600, 1200, k) for k in range(3)]
    # the real gaze holds its four 2-s fixations near (0.55, 0.35) at 6.6-11.2 s, 15.4-19.5 s and 20.0-23.7 s:
    # a different object (tile colour) lies there in each of the three layouts
    write_timed_video(rec / "2024-09-17_11-06-49.mp4", (world - world[0]) / 1e9, 1600, 1200,
                      frame_at=lambda t: layouts[0 if t < 13.0 else 1 if t < 19.8 else 2])
    return rec


def tiles(width: int, height: int, shift: int) -> np.ndarray:
    """A 4 x 4 grid of flat squares in the VLM stub's colours (cup, plate, bowl), rotated by ``shift``."""
    colours = [bgr for bgr, _ in PALETTE.values()]
    img = np.full((height, width, 3), 110, np.uint8)
    tw, th = width // 4, height // 4
    for row in range(4):
        for col in range(4):
            c = colours[(row + col + shift) % len(colours)]
            img[row * th + 12:(row + 1) * th - 12, col * tw + 12:(col + 1) * tw - 12] = c
    return img


def test_pupil_cloud_export_builds_a_benchmark_and_reports_the_skipped_task(tmp_path):
    raw = tmp_path / "raw"
    _cloud_recording(raw, "lab-session-1", with_events=False)
    out = tmp_path / "bench"
    with VLMStub() as stub:
        proc = streamgaze("build", "streamgaze", "--raw", raw, "--source", "pupil_cloud", "--objects", "vlm",
                          "--vlm-url", stub.url, "--vlm-model", "stub-vlm", "--out", out, "--version", "0.1.0",
                          tmp=tmp_path, timeout=900)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert stub.calls > 0
    assert proc.stdout.strip().splitlines()[-1] == str(out)
    # the report names every task without questions with the recording's reason (fap: no action labels)
    assert "no questions for fap: lab-session-1: no action labels (add actions.csv" in proc.stderr
    manifest = read_manifest(out)
    assert manifest["build"]["source"] == "pupil_cloud"
    empty = sorted(t for t, n in open_dataset(out).question_counts().items() if n == 0)
    assert "fap" in empty and sorted(manifest["build"]["skipped_tasks"]) == empty
    assert all(f"no questions for {t}: lab-session-1: " in proc.stderr for t in empty)
    # the gaze config is the reader's track of the real export
    track = pupil_cloud.read_track(raw / "lab-session-1" / "gaze.csv")
    gaze = pq.read_table(out / "data" / "gaze" / "test-00000-of-00001.parquet").to_pydict()
    assert gaze["t"] == track.t.tolist() and gaze["valid"] == track.valid.tolist()
    assert len(gaze["t"]) == 6644 and gaze["valid"].count(False) == 148
    videos = pq.read_table(out / "data" / "videos" / "test-00000-of-00001.parquet").to_pylist()
    assert (videos[0]["width"], videos[0]["height"], videos[0]["n_frames"]) == (1600, 1200, 1032)
    assert (out / "videos" / "overlay" / "lab-session-1.mp4").is_file()


def test_multi_part_neon_scene_video_is_joined_on_the_tracks_clock(tmp_path, monkeypatch):
    """multi_part_v2.5: stand-in part videos at the real frame timestamps of each part; the recording's video
    is the three parts joined (packets copied), its frames exactly the scene clock's."""
    from streamgaze_hf.video.frame_reader import probe_video

    monkeypatch.setenv("STREAMGAZE_SCENE_CACHE", str(tmp_path / "scene-cache"))
    rec = tmp_path / "raw" / "multi"
    shutil.copytree(NEON / "multi_part_v2.5", rec)
    for k in (1, 2, 3):
        ts = np.fromfile(rec / f"Neon Scene Camera v1 ps{k}.time", dtype="<i8")
        write_timed_video(rec / f"Neon Scene Camera v1 ps{k}.mp4", (ts - ts[0]) / 1e9, 400, 300, seed=k)
    (rec / "actions.csv").write_text("start,end,label\n0.5,3.0,look around\n")
    r = neon.load_recording(tmp_path / "raw", "multi")
    clock = neon.scene_clock(rec)
    info = probe_video(r.video_path)
    assert info.n_frames == clock.n_frames == 928
    assert np.abs(info.frame_times - clock.frame_times).max() < 2e-6  # microsecond timestamps of the stand-ins
    assert r.track.t[-1] < info.duration and (r.track.width, r.track.height) == (400, 300)
    assert [(a.start, a.end, a.label) for a in r.actions] == [(0.5, 3.0, "look around")]
    assert r.device_fixations and all(0 <= f.start <= f.end <= info.duration for f in r.device_fixations)
    assert json.loads(json.dumps([f.start for f in r.device_fixations]))  # plain floats


def test_tobii_g2_recording_builds_with_a_stand_in_scene_video(tmp_path):
    """gzz7stc with a 28 s stand-in fullstream.mp4 (700 frames at 25 fps, 1920 x 1080) and five action labels:
    ``build --objects none`` gives the action task; the gaze config is the reader's track on the video's clock
    (the 26 samples before vts 0 dropped), the video row the stand-in's."""
    raw = tmp_path / "raw"
    shutil.copytree(G2, raw / "gzz7stc")
    write_timed_video(raw / "gzz7stc" / "segments" / "1" / "fullstream.mp4", np.arange(700) / 25.0, 1920, 1080)
    (raw / "gzz7stc" / "actions.csv").write_text(
        "start,end,label\n1.0,5.0,look at the screen\n5.0,10.0,reach for the cup\n10.0,15.0,drink\n"
        "15.0,20.0,put the cup down\n20.0,27.0,write a note\n")
    out = tmp_path / "bench"
    proc = streamgaze("build", "streamgaze", "--raw", raw, "--source", "tobii_g2", "--objects", "none", "--out", out,
                      "--version", "0.1.0", "--no-previews", tmp=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == str(out)
    assert read_manifest(out)["build"]["source"] == "tobii_g2"
    assert open_dataset(out).question_counts()["fap"] >= 1
    track = tobii_g2.read_track(raw / "gzz7stc")
    gaze = pq.read_table(out / "data" / "gaze" / "test-00000-of-00001.parquet").to_pydict()
    assert gaze["t"] == track.t.tolist() and gaze["valid"] == track.valid.tolist()
    assert len(gaze["t"]) == 1398 and gaze["valid"].count(True) == 1306
    videos = pq.read_table(out / "data" / "videos" / "test-00000-of-00001.parquet").to_pylist()
    assert (videos[0]["width"], videos[0]["height"], videos[0]["n_frames"]) == (1920, 1080, 700)
