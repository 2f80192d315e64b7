"""StreamEQA prompts.

Prompt modes:

* ``default``: the shared multiple-choice block (``streamgaze_hf.evaluation.prompts.mc_question_block``:
  "Question: ...", "Options:", "A. ..." lines, "Answer with only the letter (A, B, C, or D) ...");
  scored with the shared parser.
* ``reference``: the supplement's inference prompt (Fig. 6) word for word, the options as "A. text"
  lines; scored with the official rule (``evaluation.official_normalise``).

Gaze modes: ``none`` (the published benchmark), and the EXTENSION variants (not in the paper):
``visual`` (the frames carry the projected Aria gaze point; a one-line note says so) and ``text``
(the window's gaze points, one per second of the window up to the query time, normalised, in the
prompt before the question).

Pure functions; nothing here reads files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...dataset import LETTERS
from ...evaluation import check_modes, mc_question_block
from . import GAZE_VARIANTS

GAZE_MODES = tuple(GAZE_VARIANTS.values())

#: Supplement Fig. 6 ("Prompt of StreamEQA Inference"), verbatim.
REFERENCE_PROMPT = (
    "You are an advanced video question-answering AI assistant. You have been provided with some frames from "
    "the video and a multiple-choice question related to the video. Your task is to carefully analyze the "
    "video and provide the best answer to question, choosing from the four options provided. Do not Respond "
    "any other words except for the letter (A, B, C, or D).\n\n"
    "Question: {}\n\n"
    "Options:\n\n"
    "{}"
)
VISUAL_NOTE = ("The video shows the camera wearer's eye gaze: the gaze point is marked with a circle in each "
               "frame.")
TEXT_NOTE = ("The camera wearer's eye gaze during the video, one point per second (normalised x from left to "
             "right, y from top to bottom, both 0 to 1; time in seconds from the start of the clip):")


def _check(gaze: str, mode: str) -> None:
    check_modes(gaze, mode, GAZE_MODES, "StreamEQA")


def gaze_lines(points: Sequence[tuple[float, float, float]], window_start: float) -> str:
    """The text-gaze block: "t=12.0s: (0.412, 0.530)" per (time, x, y) point; times relative to the
    window start; "(no gaze in this window)" when empty."""
    lines = [TEXT_NOTE]
    good = [(t, x, y) for t, x, y in points if math.isfinite(x) and math.isfinite(y)]
    lines += [f"t={t - window_start:.1f}s: ({x:.3f}, {y:.3f})" for t, x, y in good] or ["(no gaze in this window)"]
    return "\n".join(lines)


def question_prompt(question: str, options: Sequence[str], gaze: str = "none", mode: str = "default",
                    gaze_points: Sequence[tuple[float, float, float]] = (), window_start: float = 0.0) -> str:
    """The full prompt of one question in a gaze mode and prompt mode (see the module docstring)."""
    _check(gaze, mode)
    if mode == "reference":
        opts = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(options))
        body = REFERENCE_PROMPT.format(question, opts)
    else:
        body = mc_question_block(question, options)
    if gaze == "visual":
        return f"{VISUAL_NOTE}\n\n{body}"
    if gaze == "text":
        return f"{gaze_lines(gaze_points, window_start)}\n\n{body}"
    return body
