"""What a new user tripped over on a fresh clone with the real recordings (issue 55, "a new user's walk", items 4
to 7, 10 and 11), each through the installed ``streamgaze`` script on the real files of shared/real_data
(own_recordings/PROVENANCE.md).

* Pupil Core: the frame size is the recording's ``world.intrinsics`` (msgpack, Pupil Capture's
  ``file_methods.save_object``: ``{"version": 1, "(W, H)": {"resolution": [W, H], ...}}``), 1920 x 1080 here, in
  the read and in the BIDS sidecar, with no "assumed" warning.
* ``--source bids`` on any folder of a BIDS dataset that holds one recording (a subject's, a datatype's).
* ``leaderboard serve``: no Gradio 6 warning that the theme moved to ``launch()``, and the theme still served.
* The pymovements snippet of docs/own-recordings.md without pymovements' "no components could be inferred".
* A Pupil Cloud export with only gaze.csv and blinks.csv is recognised: the error names ``--source pupil_cloud``.
* A scene video shorter than its world_timestamps.csv: one warning with both durations.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from ..fixtures.cli_entry import REPO, error_lines, one_error_line, script, streamgaze
from ..fixtures.real_corpus import shared_data

OWN = shared_data("own_recordings", module=True)
CORE_REC = OWN / "pupil_core" / "1920x1080_000"
CLOUD_NEON = OWN / "pupil_cloud_export" / "neon_2024-09-17_11-06-49-171c4f52"
CLOUD_INVISIBLE = OWN / "pupil_cloud_export" / "invisible_trampoline_02"


def _sidecar(bids: Path) -> dict:
    (found,) = bids.glob("sub-*/*/*_physio.json")
    return json.loads(found.read_text())


@pytest.fixture(scope="module")
def core_bids(tmp_path_factory) -> Path:
    """The real Pupil Core recording exported as BIDS by the installed script (no scene video: none is public)."""
    out = tmp_path_factory.mktemp("core") / "bids"
    proc = streamgaze("export-bids", CORE_REC, "--source", "pupil_core", "--out", out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "assumed the scene camera's frame size" not in proc.stderr, proc.stderr[-2000:]
    return out


def test_pupil_core_frame_size_is_world_intrinsics(core_bids, tmp_path):
    import msgpack

    from streamgaze_hf.gaze import read_track

    intrinsics = msgpack.unpackb((CORE_REC / "world.intrinsics").read_bytes(), strict_map_key=False)
    assert intrinsics["(1920, 1080)"]["resolution"] == [1920, 1080]
    track = read_track(CORE_REC, "pupil_core")
    assert (track.width, track.height) == (1920, 1080)
    scene = _sidecar(core_bids)["SceneVideo"]
    assert (scene["Width"], scene["Height"]) == (1920, 1080)
    # without world.intrinsics the nominal 1280 x 720 stays, and is said to be assumed
    rec = tmp_path / "core"
    shutil.copytree(CORE_REC, rec, ignore=shutil.ignore_patterns("world.intrinsics"))
    proc = streamgaze("export-bids", rec, "--source", "pupil_core", "--out", tmp_path / "bids")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "assumed the scene camera's frame size 1280x720" in proc.stderr
    assert (_sidecar(tmp_path / "bids")["SceneVideo"]["Width"], _sidecar(tmp_path / "bids")["SceneVideo"]["Height"]) \
        == (1280, 720)


def test_bids_source_reads_the_folder_holding_the_physio_file(core_bids, tmp_path):
    (datatype,) = core_bids.glob("sub-*/beh")
    outs = []
    for k, folder in enumerate((core_bids, datatype.parent, datatype)):
        out = tmp_path / f"gaze{k}.csv"
        proc = streamgaze("gaze", folder, "--source", "bids", "--out", out)
        assert proc.returncode == 0, (folder, proc.stderr[-2000:])
        outs.append(out.read_text())
    assert outs[0] == outs[1] == outs[2] and len(outs[0].splitlines()) == 1 + 1483
    # a folder of the dataset that holds no recording still says so
    (core_bids / "stimuli").mkdir(exist_ok=True)
    line = one_error_line(streamgaze("gaze", core_bids / "stimuli", "--source", "bids", "--out", tmp_path / "x.csv"))
    assert "0 eye-tracking recordings here" in line


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_leaderboard_serve_gives_no_gradio_theme_warning(tmp_path):
    pytest.importorskip("gradio")
    port = _free_port()
    env = {"GRADIO_ANALYTICS_ENABLED": "False", "GRADIO_TEMP_DIR": str(tmp_path / "gradio")}
    import os

    app = subprocess.Popen([script(), "leaderboard", "serve", "--port", str(port)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env={**os.environ, **env}, cwd=str(tmp_path))
    try:
        css = ""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and app.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/theme.css", timeout=5) as r:
                    css = r.read().decode()
                break
            except OSError:
                time.sleep(0.5)
    finally:
        app.terminate()
        said, _ = app.communicate(timeout=30)
    assert f"streamgaze leaderboard serve: http://127.0.0.1:{port}" in said, said[-2000:]
    assert "moved from the Blocks constructor" not in said and "Warning" not in said, said[-2000:]
    # the toolkit's theme is the one served: Source Sans Pro's 600 from the whole Bold file (app.theme)
    faces = re.findall(r"src: url\('[^']*/(SourceSansPro-\w+)\.woff2'\)[^}]*font-weight: (\d+)", css)
    assert ("SourceSansPro-Bold", "600") in faces and ("SourceSansPro-Bold", "700") in faces, css[:2000]


def test_docs_pymovements_snippet_runs_without_pymovements_warning(core_bids, tmp_path):
    pytest.importorskip("pymovements")
    doc = (REPO / "docs" / "own-recordings.md").read_text()
    section = doc[doc.index("## pymovements"):]
    snippet = section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]
    (physio,) = core_bids.glob("sub-*/beh/*_physio.json")
    documented = re.search(r'physio_gaze\("([^"]+)"\)', snippet).group(1)
    code = snippet.replace(documented, str(physio))
    code = re.sub(r"^(fixations\(.*?\))", r"print(len(\1))", code, flags=re.M)
    proc = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "no components could be inferred" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr[-2000:]
    counts = [int(n) for n in proc.stdout.split()]
    assert len(counts) == 2 and all(n > 0 for n in counts), proc.stdout


def test_a_cloud_export_with_only_gaze_and_blinks_is_named(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(CLOUD_INVISIBLE, raw / "trampoline")
    assert sorted(p.name for p in (raw / "trampoline").iterdir()) == ["blinks.csv", "gaze.csv"]
    for where, hint in ((raw, "this holds Pupil Cloud export recordings: give --source pupil_cloud"),
                        (raw / "trampoline", "this is itself one Pupil Cloud export recording: give --source "
                                             "pupil_cloud and its parent folder as --raw")):
        proc = streamgaze("build", "--raw", where, "--out", tmp_path / "out", "--version", "0.1.0")
        line = one_error_line(proc)
        assert line.endswith(hint), line
    # with the hint followed, the reader names what the export lacks
    proc = streamgaze("gaze", raw / "trampoline", "--source", "pupil_cloud", "--out", tmp_path / "g.csv")
    assert "world_timestamps.csv not found" in one_error_line(proc)


def test_a_scene_video_shorter_than_its_timestamps_gets_one_warning(tmp_path):
    from streamgaze_hf.video import probe_video

    from ..fixtures.source_fixtures import write_timed_video

    with open(CLOUD_NEON / "world_timestamps.csv", newline="") as fh:
        world = np.array([int(r["timestamp [ns]"]) for r in csv.DictReader(fh)], dtype=np.int64)
    span = float(world[-1] - world[0]) / 1e9 + float(np.median(np.diff(world))) / 1e9  # SceneClock.duration
    rec = tmp_path / "raw" / "rec1"
    shutil.copytree(CLOUD_NEON, rec)
    short = int(np.searchsorted((world - world[0]) / 1e9, span - 0.7))  # 0.7 s of frames fewer, as the user's
    write_timed_video(rec / "scene.mp4", (world[:short] - world[0]) / 1e9, 160, 120)
    video_s = probe_video(rec / "scene.mp4").duration
    assert 0.6 < span - video_s < 0.8
    proc = streamgaze("export-bids", rec, "--source", "pupil_cloud", "--out", tmp_path / "bids", "--no-videos")
    assert proc.returncode == 0, proc.stderr[-2000:]
    warned = [ln for ln in proc.stderr.splitlines() if "warning" in ln.lower()]
    assert warned == [f"streamgaze: warning: {rec / 'gaze.csv'}: the scene video scene.mp4 lasts {video_s:.3f} s but "
                      f"the recording's {len(world)} frame timestamps span {span:.3f} s (shorter by "
                      f"{span - video_s:.3f} s): gaze past the end of the shorter has no frame"], proc.stderr[-2000:]
    assert not error_lines(proc.stderr)
    # the full-length video: no warning
    write_timed_video(rec / "scene.mp4", (world - world[0]) / 1e9, 160, 120)
    proc = streamgaze("gaze", rec, "--source", "pupil_cloud", "--out", tmp_path / "g.csv")
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr[-2000:]
