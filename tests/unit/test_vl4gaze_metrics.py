"""VL4Gaze geometry, parsers and metrics on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from streamgaze_hf import scoring
from streamgaze_hf.gaze.direction import (
    DIRECTIONS,
    angular_difference,
    direction_angle,
    direction_error,
    direction_of,
    discretize,
)

# ---------------------------------------------------------------------------------------------- geometry


def test_angle_convention_right_zero_up_ninety_y_down():
    assert direction_angle(1, 0) == 0.0
    assert direction_angle(0, -1) == 90.0  # image y down: a negative dy is up
    assert direction_angle(-1, 0) == 180.0
    assert direction_angle(0, 1) == 270.0
    assert direction_angle(1, -1) == pytest.approx(45.0)
    assert direction_angle(0, 0) is None


@pytest.mark.parametrize("angle,expected", [
    (0, "right"), (22.4, "right"), (22.5, "upper right"), (67.4, "upper right"), (67.5, "up"), (135, "upper left"),
    (180, "left"), (202.5, "lower left"), (270, "down"), (292.5, "lower right"), (337.4, "lower right"),
    (337.5, "right"), (-10, "right"), (370, "right"),
])
def test_discretize_sector_boundaries(angle, expected):
    assert discretize(angle) == expected


def test_direction_of_uses_pixels_not_normalised_coordinates():
    # eye (0.5, 0.5), target (0.6, 0.4): normalised this is exactly 45 degrees (upper right), but on a
    # 1000 x 100 image the vector is (100, -10) px: 5.7 degrees, i.e. right.
    assert direction_of((0.5, 0.5), (0.6, 0.4)) == "upper right"
    assert direction_of((0.5, 0.5), (0.6, 0.4), 1000, 100) == "right"
    # 320 x 240: eye at (100, 120) px, target (40, 200) px -> (-60, +80): angle 233.13 -> lower left
    assert direction_of((100 / 320, 0.5), (40 / 320, 200 / 240), 320, 240) == "lower left"
    assert direction_of((0.3, 0.3), (0.3, 0.3)) is None


def test_angular_error_between_directions():
    assert direction_error("right", "right") == 0
    assert direction_error("right", "upper right") == 45
    assert direction_error("upper left", "lower right") == 180
    assert direction_error("lower right", "right") == 45  # wraps around 0
    assert direction_error("up", "left") == 90
    assert angular_difference(350, 10) == 20
    assert len(DIRECTIONS) == 8


# ---------------------------------------------------------------------------------------------- parsers


@pytest.mark.parametrize("text,expected", [
    ("left", "left"),
    ("She is looking to her left.", "left"),  # possessives are image directions
    ("He is looking toward his right side.", "right"),
    ("upper right", "upper right"),
    ("The person is looking at the upper-right corner of the room.", "upper right"),
    ("top-left", "upper left"),
    ("She is looking towards the below.", "down"),  # the paper's example answer
    ("looking up and to the right", "upper right"),
    ("Left, slightly downward.", "lower left"),
    ("He gazes downwards to the left", "lower left"),
    ("The man on the left is looking up.", "up"),  # the position before the gaze verb is not the answer
    ("northeast", "upper right"),
    ("Bottom right.", "lower right"),
    ("She is not looking left; she looks right.", "right"),
    ("<answer>lower left</answer>", "lower left"),
    ("He is looking straight ahead.", None),
    ("", None),
])
def test_parse_direction(text, expected):
    assert scoring.parse_direction(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("(0.42, 0.63)", (0.42, 0.63)),
    ("[0.42,0.63]", (0.42, 0.63)),
    ("[x, y] = [0.25, 0.75]", (0.25, 0.75)),
    ("(160, 120)", (0.5, 0.5)),  # pixels of a 320 x 240 image
    ("The gaze point is at x=80, y=60.", (0.25, 0.25)),
    ("[-1,-1]", scoring.OUTSIDE),
    ("(-1, -1)", scoring.OUTSIDE),
    ("The target is outside the frame.", scoring.OUTSIDE),
    ("0.5, 0.25", (0.5, 0.25)),
    ("First I find the head at (100, 50); the gaze point is (32, 24).", (0.1, 0.1)),  # the last pair
    ("(325, 120)", (1.0, 0.5)),  # a little beyond the edge: clipped
    ("(565, 478)", None),  # far beyond a 320 x 240 image: not its pixels
    ("I don't know", None),
])
def test_parse_point(text, expected):
    got = scoring.parse_point(text, 320, 240)
    if expected is None or expected == scoring.OUTSIDE:
        assert got == expected
    else:
        assert got == pytest.approx(expected)


def test_parse_point_needs_the_image_size_for_pixels():
    assert scoring.parse_point("(160, 120)") is None
    assert scoring.parse_point("(0.5, 0.5)") == (0.5, 0.5)


@pytest.mark.parametrize("text,expected", [
    ("I cannot identify the observer.", True),
    ("The description is not unique.", True),
    ("I can't tell which person you mean.", True),
    ("There are two men in red shirts, so the question is ambiguous.", True),
    ("No one matches this description.", True),
    ("Nobody in the image fits.", True),
    ("No.", True),
    ("Yes", False),
    ("He is looking at the red cup.", False),
    ("The description is not ambiguous: she looks at the lamp.", False),
    ("", None),
])
def test_parse_ambiguity(text, expected):
    assert scoring.parse_ambiguity(text) is expected


# ---------------------------------------------------------------------------------------------- metrics


def test_direction_metrics_hand_computed():
    pairs = [("right", "right"), ("upper right", "right"), (None, "down"), ("left", "right")]
    m = scoring.direction_metrics(pairs)
    assert m["direction_acc"] == 0.25
    assert m["angular_error"] == (0 + 45 + 180 + 180) / 4  # unread = 180
    assert m["n_unparsed"] == 1


def test_point_metrics_hand_computed():
    pairs = [
        ((0.5, 0.5), (0.5, 0.8)),  # inside/inside: L2 0.3
        ((0.1, 0.1), (0.4, 0.5)),  # inside/inside: L2 0.5
        (scoring.OUTSIDE, (0.2, 0.2)),  # said outside: in/out wrong; L2 = farthest corner (1,1): 0.8*sqrt 2
        (scoring.OUTSIDE, None),  # correct outside
        ((0.3, 0.3), None),  # said inside, truth outside: wrong, no L2
        (None, None),  # unread: wrong
    ]
    m = scoring.point_metrics(pairs)
    assert m["inout_acc"] == pytest.approx(3 / 6)
    assert m["l2"] == pytest.approx((0.3 + 0.5 + 0.8 * math.sqrt(2)) / 3)
    assert m["l2_answered"] == pytest.approx(0.4)
    assert (m["n_inside"], m["n_unparsed"]) == (3, 1)


def test_aqr_f1_counts_ambiguous_as_positive():
    pairs = [(True, True), (True, False), (False, True), (False, False), (None, True)]
    m = scoring.proactive_metrics(pairs)
    # tp 1, fp 1, fn 2 (one unread), tn 1: F1 = 2 / (2 + 1 + 2)
    assert m["f1"] == pytest.approx(2 / 5)


def test_bleu_and_rouge_l_through_the_libraries():
    assert scoring.corpus_bleu(["he is looking at the red cup ."], ["he is looking at the red cup ."]) == pytest.approx(100)
    assert scoring.corpus_bleu(["a b"], ["c d e f"]) == 0.0
    # LCS("the cat sat", "the cat sat on the mat") = 3: P = 1, R = 0.5, F = 2/3
    assert scoring.rouge_l("the cat sat", "the cat sat on the mat") == pytest.approx(2 / 3)
    assert scoring.rouge_l("", "the cat") == 0.0
    assert 0 < scoring.sentence_bleu("he looks at the red cup", "he is looking at the red cup") < 100
