"""GazeFollow and VideoAttentionTarget readers on small fixtures in both formats."""

from __future__ import annotations

import pytest

from streamgaze_hf.benchmarks.vl4gaze.annotation_files import read_gazefollow, read_videoattentiontarget
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.vl4gaze_fixture import TRAIN
from ..fixtures.vl4gaze_fixture import blank_image as _image

TEST = "".join(  # one person, three annotators (test files have no inout column)
    f"test2/00000000/00000003.jpg,9,10,10,50,80,0.4,0.3,{gx},{gy},70,40,90,60,m\n"
    for gx, gy in ((0.5, 0.5), (0.6, 0.5), (0.7, 0.8))
)


@pytest.fixture()
def gazefollow(tmp_path):
    for rel in ("train/00000000/00000001.jpg", "train/00000000/00000002.jpg", "test2/00000000/00000003.jpg"):
        _image(tmp_path / rel, 200, 100)
    (tmp_path / "train_annotations_release.txt").write_text(TRAIN)
    (tmp_path / "test_annotations_release.txt").write_text(TEST)
    return tmp_path


def test_gazefollow_train_rows(gazefollow):
    rep = read_gazefollow(gazefollow / "train_annotations_release.txt", gazefollow)
    assert rep.skipped_unannotated == 1  # inout -1
    a, b = rep.annotations
    assert (a.image, a.person, a.width, a.height) == ("train/00000000/00000001.jpg", "p0", 200, 100)
    assert a.eye == (0.25, 0.2) and a.gaze == (0.75, 0.6) and a.inside
    assert a.head_box == pytest.approx((0.2, 0.2, 0.3, 0.4))  # pixels / (200, 100)
    assert (a.file.endswith("train_annotations_release.txt"), a.line) == (True, 1)
    assert b.person == "p1" and b.gaze is None and not b.inside


def test_gazefollow_test_rows_group_annotators(gazefollow):
    rep = read_gazefollow(gazefollow / "test_annotations_release.txt", gazefollow)
    (a,) = rep.annotations
    assert a.gaze == pytest.approx((0.6, 0.6))  # mean of the three annotators
    assert len(a.gaze_points) == 3 and a.line == 1


@pytest.mark.parametrize("row,message", [
    ("train/00000000/00000001.jpg,1,10,10,50,80,0.25,0.2,0.75,0.6,40,20,60,40\n", "line 2: 14 columns"),
    ("train/00000000/00000001.jpg,1,10,10,50,80,abc,0.2,0.75,0.6,40,20,60,40,1,a\n", "line 2: eye_x is not a number: 'abc'"),
    ("train/00000000/00000001.jpg,1,10,10,50,80,1.5,0.2,0.75,0.6,40,20,60,40,1,a\n", "line 2: eye_x 1.5 is outside [0, 1]"),
    ("train/00000000/00000001.jpg,1,10,10,50,80,0.2,0.2,0.75,0.6,60,20,40,40,1,a\n", "line 2: head box (60.0, 20.0, 40.0, 40.0) is empty"),
    ("train/00000000/00000001.jpg,1,10,10,50,80,0.2,0.2,0.75,0.6,40,20,60,40,2,a\n", "line 2: inout '2'"),
    ("train/00000000/00000009.jpg,1,10,10,50,80,0.2,0.2,0.75,0.6,40,20,60,40,1,a\n", "cannot read the image"),
])
def test_gazefollow_bad_rows_name_file_and_line(gazefollow, row, message):
    path = gazefollow / "bad.txt"
    path.write_text(TRAIN.splitlines(keepends=True)[0] + row)
    with pytest.raises(StreamGazeError) as err:
        read_gazefollow(path, gazefollow)
    assert message in str(err.value)
    assert "bad.txt" in str(err.value) or "00000009.jpg" in str(err.value)


@pytest.fixture()
def vat(tmp_path):
    for f in ("00001.jpg", "00002.jpg", "00003.jpg"):
        _image(tmp_path / "images" / "Show A" / "1000_1100" / f, 400, 200)
    ann = tmp_path / "annotations" / "test" / "Show A" / "1000_1100"
    ann.mkdir(parents=True)
    (ann / "s00.txt").write_text("00001.jpg,100,20,140,60,300,150\n00002.jpg,100,20,140,60,-1,-1\n"
                                 "00003.jpg,102,22,142,62,0,0\n")
    return tmp_path


def test_videoattentiontarget_rows(vat):
    rep = read_videoattentiontarget(vat / "annotations" / "test", vat / "images")
    a, b, c = rep.annotations
    assert (a.source, a.image, a.person, a.width, a.height) == ("videoattentiontarget", "Show A/1000_1100/00001.jpg",
                                                                  "s00", 400, 200)
    assert a.head_box == pytest.approx((0.25, 0.1, 0.35, 0.3))
    assert a.eye == pytest.approx((0.3, 0.2))  # the head box centre
    assert a.gaze == pytest.approx((0.75, 0.75))  # pixels / (400, 200)
    assert b.gaze is None  # -1, -1 = outside
    assert c.gaze == (0.0, 0.0) and c.line == 3
    every_other = read_videoattentiontarget(vat / "annotations" / "test", vat / "images", frame_step=2)
    assert [x.line for x in every_other.annotations] == [1, 3]


@pytest.mark.parametrize("row,message", [
    ("00003.jpg,100,20,140,60,300\n", "line 2: 6 columns"),
    ("00003.jpg,100,20,140,60,500,150\n", "line 2: gaze (500.0, 150.0) is neither in the 400x200 frame"),
    ("00003.jpg,100,20,140,60,-5,3\n", "line 2: gaze (-5.0, 3.0)"),
    ("00003.jpg,100,20,140,x,10,10\n", "line 2: ymax is not a number: 'x'"),
])
def test_videoattentiontarget_bad_rows(vat, row, message):
    path = vat / "annotations" / "test" / "Show A" / "1000_1100" / "s00.txt"
    path.write_text("00001.jpg,100,20,140,60,300,150\n" + row)
    with pytest.raises(StreamGazeError) as err:
        read_videoattentiontarget(vat / "annotations" / "test", vat / "images")
    assert message in str(err.value) and "s00.txt" in str(err.value)
