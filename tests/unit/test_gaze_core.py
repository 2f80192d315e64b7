import math

import cv2
import numpy as np
import pytest

from streamgaze_hf.gaze.fixations import Fixation
from streamgaze_hf.gaze.fov import fov_crop, fov_radius_px, hfov_from_intrinsics, mask_fov
from streamgaze_hf.gaze.salience import salience_map, track_salience_map
from streamgaze_hf.gaze.scanpath import FixationObjects, build_scanpath
from streamgaze_hf.gaze.scene import hs_histogram, scene_scores
from streamgaze_hf.video.writer import H264Writer

from ..fixtures.helpers import piecewise_track


def test_fov_radius_from_paper_formula():
    assert fov_radius_px(640) == round(15 * 640 / 90)  # 107 px, HFOV 90 deg by default
    assert fov_radius_px(896, hfov_deg=64.69) == round(15 * 896 / 64.69)
    # HoloAssist-like intrinsics: fx = 700 px at 896 px width
    assert hfov_from_intrinsics(700, 896) == pytest.approx(math.degrees(2 * math.atan(896 / 1400)))
    with pytest.raises(ValueError):
        fov_radius_px(640, hfov_deg=0)


def test_fov_crop_is_centred_even_at_the_border_and_has_a_red_dot():
    frame = np.full((120, 160, 3), 200, np.uint8)
    crop = fov_crop(frame, (5, 5), 20)
    assert crop.shape == (41, 41, 3)
    assert tuple(crop[20, 20]) == (0, 0, 255)  # red dot at the centre (BGR)
    assert tuple(crop[0, 0]) == (0, 0, 0)  # outside the circle / outside the frame
    assert tuple(crop[20, 30]) == (200, 200, 200)  # inside circle, inside frame
    assert tuple(crop[20, 5]) == (0, 0, 0)  # inside circle but left of the frame: padding


def test_mask_fov_blacks_out_the_disk_only():
    frame = np.full((120, 160, 3), 200, np.uint8)
    m = mask_fov(frame, (80, 60), 30)
    assert tuple(m[60, 80]) == (0, 0, 0) and tuple(m[60, 109]) == (0, 0, 0)
    assert tuple(m[60, 112]) == (200, 200, 200)
    assert frame[60, 80, 0] == 200  # original untouched


def fx(start, end, x, y):
    return Fixation(start, end, x, y, 10)


def test_scanpath_merges_same_target_within_gap_only():
    fixes = [fx(0, 3, 0.2, 0.2), fx(3.5, 5, 0.21, 0.2), fx(5.3, 8, 0.8, 0.8), fx(11, 14, 0.8, 0.8)]
    eps = build_scanpath(fixes)
    # 0+1 merge (same place, gap 0.5 s); 2 differs in place; 3 is 3 s after 2
    assert [e.fixations for e in eps] == [(0, 1), (2,), (3,)]
    assert eps[0].start == 0 and eps[0].end == 5
    assert eps[0].x == pytest.approx((0.2 * 3 + 0.21 * 1.5) / 4.5)


def test_scanpath_objects_by_identity():
    fixes = [fx(0, 2, 0.2, 0.2), fx(2.5, 6, 0.6, 0.6), fx(6.5, 8, 0.3, 0.3)]
    objs = [FixationObjects("mug", ("spoon",), ("pot", "knife")),
            FixationObjects("mug", ("bowl",), ("knife", "spoon", "jar")),
            FixationObjects("pot", (), ("mug",))]
    eps = build_scanpath(fixes, objs)
    assert [e.fixations for e in eps] == [(0, 1), (2,)]  # same gazed object merges despite distance
    assert eps[0].gazed == "mug"
    assert eps[0].fov == ("mug", "spoon", "bowl")
    assert eps[0].out == ("pot", "knife", "jar")  # spoon was inside the FOV: not out-of-FOV
    assert eps[1].fov == ("pot",) and eps[1].out == ("mug",)


def test_salience_map_recency_and_range():
    pts = np.array([[40.0, 40.0], [120.0, 80.0]])
    s = salience_map(pts, 160, 120)
    assert s.dtype == np.uint8 and s.shape == (120, 160)
    assert s.max() == 255 and s.min() == 0
    assert s[80, 120] > s[40, 40]  # the later point is brighter
    assert salience_map(np.zeros((0, 2)), 160, 120).max() == 0


def test_track_salience_uses_only_the_window():
    tr = piecewise_track([(30, 0.25, 0.25, True), (30, 0.75, 0.75, True)], width=160, height=120)
    s = track_salience_map(tr, 0.0, 0.9)  # first second only
    assert s[30, 40] == 255 and s[90, 120] < 20


def _solid(bgr, w=80, h=60):
    return np.full((h, w, 3), bgr, np.uint8)


def test_hs_histogram_normalised():
    h = hs_histogram(_solid((30, 80, 160)))
    assert h.shape == (50, 60) and h.sum() == pytest.approx(1.0)


def test_scene_check_rejects_fixation_spanning_a_cut(tmp_path):
    video = tmp_path / "cut.mp4"
    rng = np.random.default_rng(0)
    texture = rng.integers(0, 40, (60, 80, 1)).astype(np.uint8)
    with H264Writer(video, 80, 60, 10) as w:
        for i in range(80):  # 8 s, cut at 4 s: brown table -> blue counter
            base = _solid((40, 90, 150)) if i < 40 else _solid((160, 110, 60))
            w.write(cv2.add(base, np.repeat(texture, 3, axis=2)))
    fixes = [fx(0.5, 3.5, 0.5, 0.5), fx(2.5, 5.5, 0.5, 0.5), fx(4.5, 7.5, 0.5, 0.5)]
    scores = scene_scores(video, fixes)
    assert scores[0] > 0.95 and scores[2] > 0.95 and scores[1] < 0.5
