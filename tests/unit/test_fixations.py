import numpy as np
import pytest

from streamgaze_hf.gaze.fixations import FixationParams, extract_fixations
from streamgaze_hf.gaze.io import read_gaze_csv, write_gaze_csv
from streamgaze_hf.gaze.track import GazeTrack
from streamgaze_hf.util.errors import GazeFormatError

from ..fixtures.helpers import piecewise_track

A, B = (0.3, 0.4), (0.7, 0.6)


def test_two_fixations_exact_bounds():
    # 90 samples at A (0-2.967 s), 2 saccade samples, 120 samples at B.
    tr = piecewise_track([(90, *A, True), (1, 0.45, 0.5, True), (1, 0.6, 0.55, True), (120, *B, True)])
    fx = extract_fixations(tr)
    assert [(round(f.start, 4), round(f.end, 4)) for f in fx] == [(0.0, round(89 / 30, 4)), (round(92 / 30, 4), round(211 / 30, 4))]
    assert fx[0].x == pytest.approx(A[0]) and fx[0].y == pytest.approx(A[1])
    assert fx[1].n_samples == 120


def test_short_fixation_dropped_and_min_duration_configurable():
    tr = piecewise_track([(45, *A, True), (3, 0.9, 0.1, True), (90, *B, True)])
    assert len(extract_fixations(tr)) == 1
    assert len(extract_fixations(tr, FixationParams(min_duration=1.0))) == 2


@pytest.mark.parametrize("n_flick", [1, 2, 4, 5])
def test_flick_shorter_than_200ms_does_not_split(n_flick):
    tr = piecewise_track([(60, *A, True), (n_flick, *B, True), (60, *A, True)])
    fx = extract_fixations(tr)
    assert len(fx) == 1
    assert fx[0].start == 0 and fx[0].end == pytest.approx((120 + n_flick - 1) / 30)
    assert fx[0].n_samples == 120  # flick samples are not part of the centroid
    assert fx[0].x == pytest.approx(A[0])


def test_excursion_longer_than_200ms_splits():
    tr = piecewise_track([(75, *A, True), (8, *B, True), (75, *A, True)])  # 267 ms away
    fx = extract_fixations(tr)
    assert len(fx) == 2
    assert fx[0].end == pytest.approx(74 / 30) and fx[1].start == pytest.approx(83 / 30)


def test_short_blink_tolerated_long_blink_splits():
    short = piecewise_track([(70, *A, True), (4, np.nan, np.nan, False), (70, *A, True)])
    assert len(extract_fixations(short)) == 1
    long = piecewise_track([(70, *A, True), (15, np.nan, np.nan, False), (70, *A, True)])
    assert len(extract_fixations(long)) == 2


def test_invalid_samples_never_form_fixations():
    # Placeholder coordinates flagged invalid (as EGTEA's untracked frames at (0, 0)).
    tr = piecewise_track([(150, 0.0, 0.0, False), (20, *A, True)])
    assert extract_fixations(tr) == []
    # NaN coordinates are invalid even if flagged valid.
    nan = GazeTrack(np.arange(100) / 30, np.full(100, np.nan), np.full(100, np.nan), np.ones(100, bool), 640, 480, 30)
    assert not nan.valid.any() and extract_fixations(nan) == []


def test_out_of_frame_samples_never_form_fixations():
    tr = piecewise_track([(150, 1.4, 0.5, True), (150, 0.5, -0.3, True)])
    assert tr.valid.all() and not tr.in_frame.any()
    assert extract_fixations(tr) == []


def test_dispersion_is_measured_around_the_centroid_not_the_first_sample():
    # Slow linear drift of 0.14 frame widths: every sample is within 0.07 of the centroid
    # (r = 0.08), but the last one is 0.14 from the first.
    n = 120
    t = np.arange(n) / 30
    x = np.linspace(0.40, 0.54, n)
    tr = GazeTrack(t, x, np.full(n, 0.5), np.ones(n, bool), 640, 480, 30)
    fx = extract_fixations(tr)
    assert len(fx) == 1 and fx[0].n_samples == n
    assert fx[0].x == pytest.approx(0.47)


def test_radius_is_isotropic_in_pixels():
    # 640x480: a vertical step of 0.1 (of the height) is 0.075 frame widths, inside r = 0.08;
    # the same step horizontally (0.1 frame widths) is not.
    tr = piecewise_track([(60, 0.5, 0.45, True), (60, 0.5, 0.55, True)])
    assert len(extract_fixations(tr)) == 1
    tr2 = piecewise_track([(70, 0.45, 0.5, True), (70, 0.55, 0.5, True)])
    assert len(extract_fixations(tr2)) == 2


def test_time_gap_without_samples_ends_fixation():
    t = np.concatenate([np.arange(90) / 30, 4.0 + np.arange(90) / 30])
    tr = GazeTrack(t, np.full(180, 0.5), np.full(180, 0.5), np.ones(180, bool), 640, 480, 30)
    fx = extract_fixations(tr)
    assert [round(f.start, 3) for f in fx] == [0.0, 4.0]


def test_non_monotonic_timestamps_rejected(tmp_path):
    with pytest.raises(GazeFormatError, match="strictly increasing"):
        GazeTrack(np.array([0.0, 0.1, 0.05]), np.zeros(3), np.zeros(3), np.ones(3, bool), 640, 480, 30)
    p = tmp_path / "gaze.csv"
    p.write_text("t,x,y,valid\n0.0,0.5,0.5,1\n0.2,0.5,0.5,1\n0.1,0.5,0.5,1\n")
    with pytest.raises(GazeFormatError) as err:
        read_gaze_csv(p, 640, 480, 30)
    assert str(p) in str(err.value) and "sample 2" in str(err.value)


def test_gaze_csv_round_trip_and_bad_columns(tmp_path):
    tr = piecewise_track([(3, 0.25, 0.5, True), (2, np.nan, np.nan, False), (2, 1.5, 0.2, True)])
    p = tmp_path / "gaze.csv"
    write_gaze_csv(tr, p)
    back = read_gaze_csv(p, 640, 480, 30)
    assert np.array_equal(back.valid, tr.valid)
    assert np.allclose(back.t, tr.t) and np.allclose(back.x[tr.valid], tr.x[tr.valid])
    assert p.read_text().splitlines()[4] == "0.100000,,,0"
    bad = tmp_path / "bad.csv"
    bad.write_text("time,gx,gy\n0,0.1,0.1\n")
    with pytest.raises(GazeFormatError, match="missing column"):
        read_gaze_csv(bad, 640, 480, 30)
    flag = tmp_path / "flag.csv"
    flag.write_text("t,x,y,valid\n0,0.1,0.1,maybe\n")
    with pytest.raises(GazeFormatError, match="line 2"):
        read_gaze_csv(flag, 640, 480, 30)


def test_saccade_landing_sample_does_not_cap_the_fixation():
    # A saccade's last sample lands 0.075 from the fixation (inside r = 0.08 of the young centroid);
    # the fixation then drifts slowly away from it. The landing sample must be dropped, not split
    # the 5 s fixation once it falls outside the radius.
    n = 150
    x = np.concatenate([[0.2, 0.575], np.linspace(0.5, 0.48, n)])
    t = np.arange(len(x)) / 30
    tr = GazeTrack(t, x, np.full(len(x), 0.5), np.ones(len(x), bool), 640, 480, 30)
    fx = extract_fixations(tr)
    assert len(fx) == 1
    assert fx[0].start == pytest.approx(2 / 30) and fx[0].end == pytest.approx((n + 1) / 30)
    assert fx[0].n_samples == n
