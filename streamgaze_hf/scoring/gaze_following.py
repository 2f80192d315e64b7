"""Gaze-following answers (VL4Gaze): free-text directions, points and ambiguity flags read from a
response, and the direction and point metrics. The eight directions and the angle convention live in
gaze/direction.py."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..gaze import DIRECTION_ANGLES, direction_angle, direction_error, discretize
from .metrics import _ratio
from .parsers import _WORD, _clean, parse_yes_no, reasoning_answer

__all__ = ["parse_direction", "parse_point", "parse_ambiguity", "OUTSIDE", "direction_metrics", "point_metrics"]

_DIR_WORDS: dict[str, tuple[int, int]] = {  # word -> (horizontal -1 left / +1 right, vertical +1 up / -1 down)
    **{w: (-1, 0) for w in ("left", "leftward", "leftwards", "west", "westward")},
    **{w: (1, 0) for w in ("right", "rightward", "rightwards", "east", "eastward")},
    **{w: (0, 1) for w in ("up", "upward", "upwards", "upper", "top", "above", "north", "northward", "overhead",
                           "skyward", "high", "higher")},
    **{w: (0, -1) for w in ("down", "downward", "downwards", "lower", "bottom", "below", "beneath", "south",
                            "southward", "low")},
    "northeast": (1, 1), "northwest": (-1, 1), "southeast": (1, -1), "southwest": (-1, -1),
}
_NOT_DIRECTION_AFTER = {"right": {"now", "away", "here", "there", "answer", "one"}}
_NOT_DIRECTION_BEFORE = {"right": {"all", "that's", "thats", "is"}}
_GAZE_VERB = re.compile(r"^(?:look|gaz|fac|stare|star|glanc|direct|point|peer|watch|toward|eye)")
_NEGATORS = frozenset({"not", "never", "no", "isn't", "aren't", "doesn't", "nor"})
_DIR_SPAN = 4  # the other axis' word must be within this many words ("up and to the right")


def _direction_tokens(text: str) -> list[str]:
    text = re.sub(r"[-_/]", " ", _clean(reasoning_answer(text)).lower())
    return re.findall(r"[a-z]+(?:'[a-z]+)?", text)


def _axis_word(words: list[str], i: int) -> tuple[int, int] | None:
    w = words[i]
    vec = _DIR_WORDS.get(w)
    if vec is None:
        return None
    if any(n in _NEGATORS for n in words[max(0, i - 3):i]):  # "not left", "isn't looking to the left"
        return None
    if i + 1 < len(words) and words[i + 1] in _NOT_DIRECTION_AFTER.get(w, ()):
        return None
    if i > 0 and words[i - 1] in _NOT_DIRECTION_BEFORE.get(w, ()):
        return None
    return vec


def parse_direction(response: str) -> str | None:
    """One of the eight directions of ``gaze.direction.DIRECTIONS`` named in a free-text answer, or
    None. Reads synonyms ("above", "bottom", "downward", "west", "northeast"), combinations within a
    few words ("upper right", "top-left", "up and to the right", "left, slightly downward"), and
    possessives as image directions ("to her left" = left). The search starts after the first gaze
    verb ("looking", "gazing", "facing", "toward") when there is one, so "the man on the left is
    looking up" reads up; a negated word ("not left", "isn't looking to the left") is skipped."""
    words = _direction_tokens(response or "")
    start = next((i for i, w in enumerate(words) if _GAZE_VERB.match(w)), 0)
    hits = [(i, v) for i in range(start, len(words)) if (v := _axis_word(words, i)) is not None]
    if not hits and start:
        hits = [(i, v) for i in range(len(words)) if (v := _axis_word(words, i)) is not None]
    if not hits:
        return None
    i0, (h, v) = hits[0]
    if h == 0 or v == 0:  # look for the other axis close by
        near = [(abs(i - i0), vec) for i, vec in hits[1:] if abs(i - i0) <= _DIR_SPAN
                and ((h == 0 and vec[0] != 0) or (v == 0 and vec[1] != 0))]
        if near:
            other = min(near, key=lambda t: t[0])[1]
            h, v = (other[0], v) if h == 0 else (h, other[1])
    name = discretize(direction_angle(h, -v) or 0.0)
    return name if name in DIRECTION_ANGLES else None


#: the answer for a gaze point outside the image
OUTSIDE = (-1.0, -1.0)
_NUM = r"[-\u2212]?\d+(?:\.\d+)?|[-\u2212]?\.\d+"
_PAIR = re.compile(rf"[(\[]\s*({_NUM})\s*[,;]\s*({_NUM})\s*[)\]]")
_XY = re.compile(rf"\bx\s*[=:]\s*({_NUM})\s*[,;]?\s*(?:and\s+)?y\s*[=:]\s*({_NUM})", re.I)
_BARE_PAIR = re.compile(rf"(?<![\w.])({_NUM})\s*,\s*({_NUM})(?![\w.])")
_OUTSIDE_TEXT = re.compile(r"\b(?:outside|out\s+of\s+(?:the\s+)?(?:frame|image|picture|view)|"
                           r"not\s+(?:visible\s+)?in\s+the\s+(?:frame|image|picture)|off[\s-]?(?:screen|frame))\b", re.I)


def parse_point(response: str, width: float | None = None, height: float | None = None
                ) -> tuple[float, float] | None:
    """The gaze point a free-text answer gives, normalised to [0, 1] (origin top-left), ``OUTSIDE``
    (-1, -1) for "outside the frame", or None when none can be read.

    Reads "(0.42, 0.63)", "[x, y]", "x=0.42, y=0.63", a bare "0.42, 0.63" (the last pair in the text
    wins: the final answer follows any reasoning). Both values within [0, 1] are normalised; otherwise
    they are pixels of the ``width`` x ``height`` image (None if the size is unknown, or if the point
lies more than 10 % beyond the image: not pixels of this image). Negative values
    ("[-1,-1]", "(-1, -1)") or an answer saying "outside the frame" with no pair mean outside. A point
    a little beyond the image edge is clipped to it.
    """
    text = reasoning_answer(response or "")
    pairs = _PAIR.findall(text) or _XY.findall(text) or _BARE_PAIR.findall(text)
    if not pairs:
        return OUTSIDE if _OUTSIDE_TEXT.search(text) else None
    x, y = (float(v.replace("\u2212", "-")) for v in pairs[-1])
    if x < 0 or y < 0:
        return OUTSIDE
    if x > 1 or y > 1:
        if not width or not height:
            return None
        x, y = x / float(width), y / float(height)
        if x > 1.1 or y > 1.1:  # not pixels of this image
            return None
    return min(x, 1.0), min(y, 1.0)


_CANNOT_IDENTIFY = re.compile(
    r"\b(?:can\s*not|can't|can\u2019t|unable\s+to|not\s+able\s+to|impossible\s+to|could\s+not|couldn't)\s+"
    r"(?:uniquely\s+|clearly\s+)?(?:identify|determine\s+(?:which|who)|tell\s+(?:which|who)|find|locate|"
    r"distinguish)"
    r"|\bnot\s+unique\b|\b(?<!un)ambiguous\b|\bambiguity\b"
    r"|\b(?:multiple|several|two|more\s+than\s+one)\s+(?:people|persons|individuals|men|women|boys|girls|"
    r"children|players|figures)\s+(?:match|fit|could|who|that|in)"
    r"|\bno\s+(?:such\s+)?(?:person|one|individual|man|woman)\s+(?:matches|matching|fits|fitting|like|in)"
    r"|\bnobody\b|\bthere\s+is\s+no\s+(?:such\s+)?(?:person|one|man|woman)\b"
    r"|\bdoes(?:\s+not|n't)\s+(?:exist|appear|match\s+anyone)", re.I)
_NOT_AMBIGUOUS = re.compile(r"\b(?:not|isn't|is\s+not)\s+ambiguous\b", re.I)


def parse_ambiguity(response: str) -> bool | None:
    """Whether an answer declares the question's person description ambiguous (VL4Gaze AQR).

    True: the model says it cannot identify the observer ("I cannot identify the observer", "the
    description is not unique", "ambiguous", "multiple people match", "no such person", "nobody"), or
    answers a bare "No" (= cannot identify). False: any other answer with content (the model answered
    the gaze question), "not ambiguous", or a bare "Yes". None: an empty answer."""
    text = reasoning_answer(response or "").strip()
    if not text:
        return None
    if _CANNOT_IDENTIFY.search(_NOT_AMBIGUOUS.sub(" ", text)):
        return True
    words = _WORD.findall(text.lower())
    if len(words) <= 3:
        yn = parse_yes_no(text)
        if yn is not None:
            return not yn
    return False


def direction_metrics(pairs: Iterable[tuple[str | None, str]]) -> dict:
    """GDD metrics from (predicted direction or None, true direction) pairs: ``direction_acc``
    (fraction correct) and ``angular_error`` (mean degrees between the directions' angles, see
    gaze/direction.py). An unread answer is wrong and counts as the largest error, 180 degrees."""
    n = correct = unparsed = 0
    total = 0.0
    for pred, truth in pairs:
        n += 1
        if pred is None:
            unparsed += 1
            total += 180.0
            continue
        correct += pred == truth
        total += direction_error(pred, truth)
    return {"direction_acc": _ratio(correct, n), "angular_error": total / n if n else None, "n": n,
            "n_unparsed": unparsed}


def _farthest_corner(x: float, y: float) -> float:
    return max(((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 for cx in (0.0, 1.0) for cy in (0.0, 1.0))


def point_metrics(pairs: Iterable[tuple[tuple[float, float] | None, tuple[float, float] | None]]) -> dict:
    """GPL metrics from (predicted point, true point) pairs, normalised coordinates, ``OUTSIDE`` or
    None (true: None also = outside). ``inout_acc``: the prediction says inside/outside as the truth
    does (unread = wrong). ``l2``: mean Euclidean distance over the in-frame truths; a prediction that
    gives no in-frame point there (outside, unread) counts as the farthest point of the image from the
    truth. ``l2_answered``: the mean over in-frame truths with an in-frame prediction only."""
    n = inout_ok = unparsed = n_in = 0
    l2_sum = answered_sum = 0.0
    n_answered = 0
    for pred, truth in pairs:
        n += 1
        truth_in = truth is not None and truth != OUTSIDE
        if pred is None:
            unparsed += 1
        pred_in = pred is not None and pred != OUTSIDE
        inout_ok += pred is not None and pred_in == truth_in
        if truth_in:
            assert truth is not None
            n_in += 1
            if pred_in:
                assert pred is not None
                d = ((pred[0] - truth[0]) ** 2 + (pred[1] - truth[1]) ** 2) ** 0.5
                answered_sum += d
                n_answered += 1
            else:
                d = _farthest_corner(*truth)
            l2_sum += d
    return {"l2": l2_sum / n_in if n_in else None, "inout_acc": _ratio(inout_ok, n),
            "l2_answered": answered_sum / n_answered if n_answered else None, "n": n, "n_inside": n_in,
            "n_unparsed": unparsed}
