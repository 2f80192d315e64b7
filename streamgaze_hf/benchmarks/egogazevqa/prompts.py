"""EgoGazeVQA prompts: the plain question and the paper's three gaze-prompting strategies.

Gaze modes (lmms-eval suffixes): ``none`` (plain, paper "w/o"), ``text`` (``_gazet``, GazeT: the
normalised gaze of each keyframe in the prompt), ``visual`` (``_gazev``, GazeV: the frames carry red
circles at the gaze points, see ``visuals.py``), ``salience`` (``_gazes``, GazeS: a salience map image
shown before the frames).

Prompt modes: ``default`` — the strategy's instruction (paper appendix E.2, lightly edited) followed by
the shared multiple-choice block (``streamgaze_hf.evaluation.prompts.mc_question_block``: "Question", lettered
"A. ..." options, "Answer with only the letter (A, B, C, D, or E) ..."); ``reference`` — the paper's
E.2 wording with the official options layout ("A: ..." lines) and "Choose the most appropriate
option. Only return the letter of the correct option."; for the plain variant, whose exact official
wording is not published in the paper, the note's paraphrase ("given the visual sequence and
question ... return the letter of the correct option").

Pure functions; nothing here reads files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ...dataset import LETTERS
from ...evaluation import check_modes, mc_question_block
from . import GAZE_VARIANTS

GAZE_MODES = tuple(GAZE_VARIANTS.values())

TEXT_INSTRUCTION = (
    "I provide you with a video and the normalized gaze coordinates for each corresponding frame. "
    "Follow these steps to answer the question:\n"
    "(1) Observe the position of the annotated gaze point in each frame. The x coordinate runs from left "
    "to right and the y coordinate from top to bottom, both from 0 to 1.\n"
    "(2) Analyze the video while considering the gaze point information, then answer the question."
)
VISUAL_INSTRUCTION = (
    "I provide you with a video that contains gaze information. In each frame, the gaze point is marked "
    "with a red circle: the red circles represent highly attended regions.\n"
    "Follow these steps to answer the question:\n"
    "(1) Focus on the objects marked by each red circle.\n"
    "(2) Observe the video in chronological order, following the sequence of gaze points."
)
SALIENCE_INSTRUCTION = (
    "I provide you with a picture, Frame 0, and a video, Frames 1-{n}. Frame 0 is the salience map of "
    "the gaze trajectory from the first-person perspective, with the gaze sequence going from dark "
    "spots to bright spots.\n"
    "Follow these steps to answer the question:\n"
    "(1) Remember the location and time order of the gaze areas in Frame 0.\n"
    "(2) Observe the video following that gaze sequence."
)
_REF_TEXT = (
    "I provide you with a video and the normalized gaze coordinates for each corresponding frame. You need "
    "to follow these steps to answer the questions:\n"
    "1. Observe the position of the annotated gaze points in each frame. The coordinate is from left to "
    "right for the x-axis and from top to bottom for the y-axis.\n"
    "2. Analyze the video while considering the gaze point information and then answer the questions.\n"
)
_REF_VISUAL = (
    "I provide you with a video that contains gaze information. For each frame, the gaze point will be "
    "marked on the image with a red circle spot. Choose the correct option based on the first-person "
    "perspective scene question.\n"
    "You must follow these steps to answer the question:\n"
    "1. Focus on the objects marked by each red circle spot.\n"
    "2. Observe the video chronological order according to the gaze sequence in step 1.\n"
)
_REF_SALIENCE = (
    "I provide you with a Picture Frame [0] and a video Frame [1-{n}]. Choose the correct option based on "
    "the first-person perspective scene question.\n"
    "You must follow these steps to answer the question:\n"
    "1. Frame [0] is the saliency heatmap of the gaze trajectory from the first-person perspective, with "
    "gaze sequence from dark spot to bright spot.\n"
    "2. Remember the location and time sequence of gaze areas in Frame [0].\n"
    "3. Observe the video according to the gaze sequence in step 2.\n"
)
_REF_PLAIN = "Given the visual sequence and the question, choose the correct option.\n"
_REF_CLOSE = "Choose the most appropriate option. Only return the letter of the correct option."


def _check(gaze: str, mode: str) -> None:
    check_modes(gaze, mode, GAZE_MODES, "EgoGazeVQA")


def gaze_lines(frames: Sequence[Mapping], release_gaze: Sequence | None = None) -> str:
    """GazeT lines, one per keyframe: "Frame 1: Gaze(0.412, 0.530)" (3 decimals, as the release
    rounds them); "Frame 3: Gaze unavailable" when the frame has no valid gaze (untracked or unknown).

    ``release_gaze`` (reference mode: the question's ``metadata["release_gaze"]``, the release's
    ``[gaze_x, gaze_y]`` per keyframe, as the importer keeps them): each frame's line is then the
    official ``test_gaze.py`` text ``f"Frame {i}: Gaze({gaze_x}, {gaze_y})"`` of those values, valid
    or not (``Gaze(-1, -1)`` for the release's untracked marker), for parity with the paper's runs."""
    lines = ["Gaze information for the relevant frames:"]
    for i, f in enumerate(frames, 1):
        raw = release_gaze[i - 1] if release_gaze is not None and i <= len(release_gaze) else None
        x, y = float(f["gaze_x"]), float(f["gaze_y"])
        if raw is not None:
            lines.append(f"Frame {i}: Gaze({raw[0]}, {raw[1]})")
        elif f["gaze_valid"] and math.isfinite(x) and math.isfinite(y):
            lines.append(f"Frame {i}: Gaze({x:.3f}, {y:.3f})")
        else:
            lines.append(f"Frame {i}: Gaze unavailable")
    return "\n".join(lines)


def preamble(gaze: str, frames: Sequence[Mapping]) -> str:
    """The default instruction of a gaze mode ("" for the plain variant)."""
    _check(gaze, "default")
    if gaze == "text":
        return f"{gaze_lines(frames)}\n\n{TEXT_INSTRUCTION}"
    if gaze == "visual":
        return VISUAL_INSTRUCTION
    if gaze == "salience":
        return SALIENCE_INSTRUCTION.format(n=len(frames))
    return ""


def question_prompt(question: str, options: Sequence[str], frames: Sequence[Mapping], gaze: str = "none",
                    mode: str = "default", release_gaze: Sequence | None = None) -> str:
    """The full prompt of one question in a gaze mode and prompt mode (see the module docstring);
    ``release_gaze``: the release's gaze values per keyframe, used by the reference GazeT text only."""
    _check(gaze, mode)
    if mode == "reference":
        head = {"none": _REF_PLAIN, "text": gaze_lines(frames, release_gaze) + "\n" + _REF_TEXT, "visual": _REF_VISUAL,
                "salience": _REF_SALIENCE.format(n=len(frames))}[gaze]
        opts = "\n".join(f"{LETTERS[i]}: {o}" for i, o in enumerate(options))
        return f"{head}Question:\n{question}\nOptions:\n{opts}\n{_REF_CLOSE}"
    pre = preamble(gaze, frames)
    body = mc_question_block(question, options)
    return f"{pre}\n\n{body}" if pre else body
