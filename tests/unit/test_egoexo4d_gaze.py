"""The Ego-Exo4D 2-D gaze reader (``general_eye_gaze_2d.csv``): exact values, time base, validity,
row-by-row errors, keysteps and the Ego4D narrations (issue 13, deliverable 3)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from streamgaze_hf.gaze.sources import ego4d, egoexo4d_2d
from streamgaze_hf.gaze.sources.registry import SOURCES, layout, read_track
from streamgaze_hf.util.errors import GazeFormatError, StreamGazeError

from ..fixtures.source_fixtures import egoexo4d_keystep


def _csv(tmp_path, text, name="general_eye_gaze_2d.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_registered_as_its_own_reader():
    assert "egoexo4d_2d" in SOURCES and "general_eye_gaze_2d.csv" in layout("egoexo4d_2d")


def test_exact_values_time_base_and_validity(tmp_path):
    path = _csv(tmp_path, "frame_num,tracking_timestamp_us,x,y\n"
                          "0,1763475767,704.0,352.0\n"
                          "1,1763575767,,\n"  # no gaze: invalid
                          "3,1763775767,1500.0,-14.08\n"  # a gap (frame 2 missing); off the frame
                          "4,1763875767,0,1408\n")
    track = read_track(path, "egoexo4d_2d")  # no take layout around it: the Aria RGB geometry
    assert (track.width, track.height, track.fps) == (1408, 1408, 30.0)
    np.testing.assert_allclose(track.t, [0.0, 0.1, 0.3, 0.4])
    np.testing.assert_allclose(track.x[[0, 2, 3]], [0.5, 1500 / 1408, 0.0])
    np.testing.assert_allclose(track.y[[0, 2, 3]], [0.25, -0.01, 1.0])
    assert math.isnan(track.x[1]) and track.valid.tolist() == [True, False, True, True]
    assert track.in_frame.tolist() == [True, False, False, True]


def test_row_order_without_frame_num(tmp_path):
    t, x, y, valid = egoexo4d_2d.read_gaze_2d_csv(_csv(tmp_path, "x,y\n140.8,281.6\n281.6,140.8\n"))
    assert t.tolist() == [0.0, 0.1] and x.tolist() == pytest.approx([0.1, 0.2]) and valid.all()


@pytest.mark.parametrize("text,needle", [
    ("frame_num,x\n0,1\n", "missing column(s) y"),
    ("frame_num,x,y\n0,1,2\n1,abc,2\n", "line 3: x is not a number: 'abc'"),
    ("frame_num,x,y\n0,1,2\n1,inf,2\n", "line 3: x is not a finite number"),
    ("frame_num,x,y\n0,1,2\n1,2\n", "line 3: expected 3 fields, got 2"),
    ("frame_num,x,y\n0,1,2\n0,1,2\n", "line 3: frame_num 0 does not increase"),
    ("frame_num,x,y\n-1,1,2\n", "line 2: frame_num -1 is negative"),
    ("frame_num,x,y\n0.5,1,2\n", "line 2: frame_num is not an integer: '0.5'"),
    ("frame_num,tracking_timestamp_us,x,y\n0,10,1,2\n1,10,1,2\n", "line 3: tracking_timestamp_us 10 does not increase"),
    ("frame_num,x,y\n", "no gaze samples"),
])
def test_bad_rows_name_file_and_line(tmp_path, text, needle):
    path = _csv(tmp_path, text)
    with pytest.raises(GazeFormatError) as e:
        egoexo4d_2d.read_gaze_2d_csv(path)
    assert str(path) in str(e.value) and needle in str(e.value)


def test_keysteps_give_actions_and_scenario(tmp_path):
    (tmp_path / "annotations").mkdir()
    (tmp_path / "annotations" / "keystep_train.json").write_text(egoexo4d_keystep(
        [("u1", "take_a", "Cooking", [(4.0, 6.5, "crack the egg"), (0.5, 3.0, "take the pan")])]))
    (tmp_path / "annotations" / "keystep_val.json").write_text(egoexo4d_keystep(
        [("u2", "take_a", "Bike Repair", [(1.0, 2.0, "ignored: take_a is in the train file")])]))
    actions, scenario = egoexo4d_2d.read_keysteps(tmp_path / "annotations", "take_a")
    assert [(a.start, a.end, a.label) for a in actions] == [(0.5, 3.0, "take the pan"), (4.0, 6.5, "crack the egg")]
    assert scenario == "Cooking"
    assert egoexo4d_2d.read_keysteps(tmp_path / "annotations", "take_b") == ([], "")
    assert egoexo4d_2d.read_keysteps(tmp_path / "none", "take_a") == ([], "")


def test_take_without_video_is_named(tmp_path):
    _csv(tmp_path, "x,y\n1,2\n", "unused.csv")
    gaze = tmp_path / "takes" / "t1" / "eye_gaze" / "general_eye_gaze_2d.csv"
    gaze.parent.mkdir(parents=True)
    gaze.write_text("x,y\n1,2\n")
    with pytest.raises(StreamGazeError, match="Aria RGB video of take 't1' not found"):
        egoexo4d_2d.discover(tmp_path)


def test_ego4d_narrations_become_point_actions(tmp_path):
    (tmp_path / "narration.json").write_text(json.dumps({
        "uid1": {"narration_pass_1": {"narrations": [
            {"timestamp_sec": 3.5, "timestamp_frame": 105, "narration_text": "#C C picks a knife"},
            {"timestamp_sec": 1.25, "timestamp_frame": 37, "narration_text": "#O man X opens the door"}]}},
        "uid2": {"narration_pass_1": {"narrations": []},
                 "narration_pass_2": {"narrations": [{"timestamp_sec": 2.0, "narration_text": "#C C sits"}]}}}))
    got = ego4d.read_narrations(tmp_path / "narration.json", "uid1")
    assert [(a.start, a.end, a.label) for a in got] == [(1.25, 1.25, "man X opens the door"),
                                                       (3.5, 3.5, "C picks a knife")]
    assert [a.label for a in ego4d.read_narrations(tmp_path / "narration.json", "uid2")] == ["C sits"]
    assert ego4d.read_narrations(tmp_path / "missing.json", "uid1") == []
    (tmp_path / "bad.json").write_text('{"uid1": {"narration_pass_1": {"narrations": [{"narration_text": "x"}]}}}')
    with pytest.raises(StreamGazeError, match="not an Ego4D narration file"):
        ego4d.read_narrations(tmp_path / "bad.json", "uid1")
