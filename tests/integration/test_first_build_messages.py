"""A first build of one's own recordings explains itself (issue 43.5), through the installed ``streamgaze`` script:

* ``build --objects none`` on recordings without action labels names every task's reason and what would make it
  possible, before any video is decoded, then one error line (nothing written);
* a missing ``--source`` on a recognisable vendor layout (a real Neon recording) answers with the ``--source`` to
  use, for ``build`` (the folder of recordings, or one recording given as ``--raw``) and for ``gaze``;
* a reader that must assume the frame size, rate or time origin because no scene video is given (a real Tobii Pro
  Glasses 3 recording) says so in one warning line with the values and offers ``--video``.
"""

from __future__ import annotations

import pytest

from streamgaze_hf.demo.world import generate_world

from ..fixtures.cli_entry import error_lines, one_error_line, streamgaze
from ..fixtures.real_corpus import shared_data

NAMED = ("nfi", "otp", "gsm", "sr", "oi_easy", "oi_hard", "oar", "gta", "oaa")
NO_NAMES = ("no object names (objects: none); name them with --objects vlm --vlm-url URL --vlm-model NAME, or "
            "--objects metadata --metadata CSV")


@pytest.fixture(scope="module")
def world_without_labels(tmp_path_factory):
    """One 20 s demo recording with its action timeline removed."""
    out = tmp_path_factory.mktemp("world")
    rec = generate_world(out, n_videos=1, seed=1, duration=20.0, width=160, height=120, fps=8.0, progress=False)[0]
    (rec / "actions.json").unlink()
    return rec


def test_objects_none_without_labels_names_each_tasks_reason_before_any_work(world_without_labels, tmp_path):
    out = tmp_path / "ds"
    proc = streamgaze("build", "streamgaze", "--raw", world_without_labels.parent, "--objects", "none", "--out", out,
                      "--version", "0.1.0", tmp=tmp_path)
    vid = world_without_labels.name
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith(("usage:", "build"))]
    assert lines[:-1] == [f"no questions for {t}: {vid}: {NO_NAMES}" if t != "fap" else
                          f"no questions for fap: {vid}: no action labels (add actions.csv beside the recording, or "
                          "mark events while recording)"
                          for t in ("nfi", "otp", "gsm", "sr", "oi_easy", "oi_hard", "oar", "fap", "gta", "oaa")]
    assert error_lines(proc.stderr) == [lines[-1]] == [
        "streamgaze build streamgaze: error: nothing to build: --objects none gives questions only to fap, which needs "
        "at least 4 distinct action labels per recording, and no recording has them (every task's reason is listed "
        "above)"]
    assert "%|" not in proc.stderr  # stopped before the per-recording work (its progress bar)
    assert not out.exists() and not (tmp_path / ".ds.work").exists()


def test_a_missing_source_on_a_neon_folder_names_the_source_to_use(tmp_path):
    neon = shared_data("own_recordings/neon_native")
    proc = streamgaze("build", "streamgaze", "--raw", neon, "--out", tmp_path / "ds", "--version", "0.1.0",
                      tmp=tmp_path)
    line = one_error_line(proc)
    assert line.startswith(f"streamgaze build streamgaze: error: {neon}: no recordings found (expected ")
    assert line.endswith("; this holds Pupil Labs Neon recordings: give --source neon")
    one = neon / "demo_recording_v2.5"
    proc = streamgaze("build", "streamgaze", "--raw", one, "--out", tmp_path / "ds", "--version", "0.1.0", tmp=tmp_path)
    assert one_error_line(proc).endswith("; this is itself one Pupil Labs Neon recording: give --source neon and its "
                                         "parent folder as --raw")
    proc = streamgaze("gaze", one, "--out", tmp_path / "gaze.csv", tmp=tmp_path)
    assert one_error_line(proc).endswith("; this is a Pupil Labs Neon recording: give --source neon")
    assert not (tmp_path / "gaze.csv").exists() and not (tmp_path / "ds").exists()


def test_a_reader_without_the_scene_video_says_what_it_assumed(tmp_path):
    g3 = shared_data("own_recordings/tobii_g3") / "calibration_1"
    out = tmp_path / "gaze.csv"
    proc = streamgaze("gaze", g3, "--source", "tobii_g3", "--out", out, tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"streamgaze: warning: {g3 / 'gazedata.gz'}: no scene video: assumed the G3's nominal scene camera, 1920x1080 "
        "at 25 fps, and t = 0 at the recording's start; give --video SCENE.mp4 to use the video's own"]
    assert out.is_file()
