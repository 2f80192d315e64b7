"""StreamGaze's prompt texts, used by the lmms-eval plugin and streaming mode (docs/evaluation.md);
the prompt modes and the multiple-choice block are the shared ``streamgaze_hf/evaluation/prompts.py``.

Gaze settings (task-name suffixes): ``visual`` (default: overlay video, paper Fig. 9b), ``none``
(``_nogaze``: original video, no gaze wording), ``text`` (``_textgaze``: fixation list in the prompt,
Fig. 9a), ``salience`` (``_salience``: a salience heat-map image, Fig. 9c; the image itself is added
by the caller).

Prompt modes: ``default`` (our prompts: the Fig. 9 instruction, the question, lettered options and
a letter-only instruction; proactive prompts ask what the checkpoint label means) and ``reference``
(the official code's strings, reference §2.4, to compare with the paper's numbers).

All functions are pure and deterministic; nothing here imports lmms-eval.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from ...evaluation import PROMPT_MODES, check_modes, mc_question_block
from . import BENCHMARK

__all__ = [
    "GAZE_INSTRUCTION", "TEXT_GAZE_INSTRUCTION", "SALIENCE_INSTRUCTION", "REFERENCE_GAZE_PREFIX",
    "GAZE_MODES", "PROMPT_MODES", "format_fixations", "gaze_preamble", "mc_prompt",
    "target_object", "checkpoint_prompt", "REASONING_MODES", "reasoning_instruction", "mc_reasoning_prompt",
    "checkpoint_reasoning_prompt",
]

GAZE_MODES = tuple(BENCHMARK.gaze_variants.values())  # the declared variants: visual, none, text, salience

# Paper Fig. 9b (visual-based gaze prompting); our overlay draws the green dot and red FOV circle.
GAZE_INSTRUCTION = (
    "I provide you with a video that contains gaze information. In each frame, the user's gaze center "
    "is indicated by a green dot and the red circle represents the focused gaze area.\n"
    "\n"
    "Follow these steps to answer the question:\n"
    "(1) Focus on the objects located inside or near the red circle area.\n"
    "(2) Observe how the green dot moves across frames in chronological order."
)

# Paper Fig. 9a (text-based gaze prompting), worded as printed ("... for more." included);
# ``{fixations}`` is replaced by ``format_fixations`` lines.
TEXT_GAZE_INSTRUCTION = (
    "I provide you with gaze fixation information extracted from the video. Each fixation represents "
    "a location where the user maintained attention for more.\n"
    "\n"
    "{fixations}\n"
    "\n"
    "Each fixation entry normally contains the fixation number, its time range, and its average gaze "
    "coordinates. Follow these steps:\n"
    "(1) Observe the chronological sequence of fixations.\n"
    "(2) Identify which objects or regions the user focused on based on the coordinates.\n"
    "(3) Use this fixation pattern to understand the user's attention and intent."
)
NO_FIXATIONS = "(no fixation in the shown interval)"

# Paper Fig. 9c (salience-based gaze prompting). Our salience image is a JET-coloured heat map:
# warm colours (red/yellow) = attended, cool colours (blue/green) = little or no attention.
SALIENCE_INSTRUCTION = (
    "I provide you with a video along with a salience map that summarizes the user's gaze behavior "
    "during the shown time interval. Warmer colors (red/yellow) indicate regions the user looked at "
    "frequently or for longer durations, while cooler colors (blue/green) represent areas with little "
    "or no attention. The intensity of the color encodes how strongly the user attended that region.\n"
    "\n"
    "Follow these steps:\n"
    "(1) Pay more attention to high-intensity regions (bright red/yellow).\n"
    "(2) Consider how these salient areas relate to objects or actions in the video.\n"
    "(3) Use the salience distribution to infer what the user was likely attending to."
)

# Reference §2.4: what ``--use_gaze_instruction`` prepends in the official code (trailing blank line).
REFERENCE_GAZE_PREFIX = (
    "In this video, the green dot represents the gaze point (where the person is looking), and the red "
    "circle represents the field of view (FOV) area.\n\n"
)

_REFERENCE_PROACTIVE = (
    "You are monitoring a video stream. Based on what you have seen so far in the video, answer the "
    "following question.\n<video>\n\nQuestion: {question}\n\nIf you have already seen the requested "
    "object/event, answer \"Yes\".\nIf you have not seen it yet, answer \"No\".\n\nAnswer only with "
    "\"Yes\" or \"No\".\nDo not include any additional text or explanation in your response.\n"
)

_CHECKPOINT_QUESTIONS = {
    "gta": "Is the user gazing at the {target} right now (at the end of the video)?",
    "oaa": "Is the {target} visible right now (at the end of the video)?",
}
YES_NO_INSTRUCTION = "Answer Yes or No."


def _check(gaze: str, mode: str) -> None:
    check_modes(gaze, mode, GAZE_MODES)


def _half_up(v: float) -> int:
    return int(math.floor(v + 0.5))


def format_fixations(fixations: Sequence[Mapping], width: int, height: int) -> str:
    """Fig. 9a lines, one per fixation: "Fixation 1 (23.9s-26.0s): Gaze(303, 165)".

    ``fixations`` are {start, end, x, y} with x, y normalised (origin top-left); coordinates are
    given in pixels of a ``width`` x ``height`` frame, rounded half up; times to 0.1 s. Empty → "".
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"frame size must be positive, got {width}x{height}")
    lines = []
    for i, f in enumerate(fixations, 1):
        x, y = _half_up(float(f["x"]) * width), _half_up(float(f["y"]) * height)
        lines.append(f"Fixation {i} ({float(f['start']):.1f}s-{float(f['end']):.1f}s): Gaze({x}, {y})")
    return "\n".join(lines)


def gaze_preamble(gaze: str = "visual", fixations: Sequence[Mapping] = (),
                  frame_size: tuple[int, int] | None = None) -> str:
    """The Fig. 9 instruction of a gaze setting ("" for ``none``). ``text`` needs ``frame_size``
    (width, height) to give the fixations in pixels."""
    _check(gaze, "default")
    if gaze == "visual":
        return GAZE_INSTRUCTION
    if gaze == "salience":
        return SALIENCE_INSTRUCTION
    if gaze == "text":
        if frame_size is None:
            raise ValueError("the text gaze setting needs frame_size=(width, height) to format fixations")
        lines = format_fixations(fixations, int(frame_size[0]), int(frame_size[1]))
        return TEXT_GAZE_INSTRUCTION.format(fixations=lines or NO_FIXATIONS)
    return ""


def _reference_prefix(gaze: str, fixations: Sequence[Mapping], frame_size) -> str:
    """The reference code knows only the visual setting (``--use_gaze_instruction``); for ``text``
    and ``salience`` the Fig. 9 instruction takes the prefix's place, with the same blank line."""
    if gaze == "visual":
        return REFERENCE_GAZE_PREFIX
    if gaze == "none":
        return ""
    return gaze_preamble(gaze, fixations, frame_size) + "\n\n"


def mc_prompt(question: str, options: Sequence[str], gaze: str = "visual", mode: str = "default",
              fixations: Sequence[Mapping] = (), frame_size: tuple[int, int] | None = None) -> str:
    """The multiple-choice prompt of one question (``options``: texts without "A. " labels).

    default: the gaze preamble (none for ``none``), a blank line, "Question: ...", "Options:", one
    "A. text" line per option (any count), and "Answer with only the letter (A, B, C, or D) of the
    correct option." reference: the official construction (reference §2.4), byte for byte.
    """
    _check(gaze, mode)
    if len(options) > 26:
        raise ValueError(f"at most 26 options can be lettered, got {len(options)}")
    if mode == "reference":
        return _reference_mc(question, options, _reference_prefix(gaze, fixations, frame_size))
    preamble = gaze_preamble(gaze, fixations, frame_size)
    body = mc_question_block(question, options)
    return f"{preamble}\n\n{body}" if preamble else body


def _reference_mc(question: str, options: Sequence[str], prefix: str) -> str:
    opts = list(options)
    if opts and not opts[0].startswith("A."):
        opts = [f"{chr(65 + i)}. {opt}" for i, opt in enumerate(opts)]
    if len(opts) == 4:
        return (prefix + f"\nQuestion: {question}\nOptions:\n{opts[0]}\n{opts[1]}\n{opts[2]}\n{opts[3]}"
                "\nAnswer the question with only the letter (A, B, C, or D) of the correct option."
                + "\n\nThe best option is:")
    if len(opts) == 2:
        return prefix + f"Question: {question}\nOptions:\n{opts[0]}\n{opts[1]}\n\nThe best option is:"
    if opts:
        return prefix + f"Question: {question}\nOptions:\n" + "\n".join(opts) + "\n\nThe best option is:"
    return (prefix + f"\nQuestion: {question}\nAnalyze the video and provide the answer to the question.\n"
            + "\n\nAnswer:")


_TARGET_PATTERNS = (
    re.compile(r"when\s+I\s+(?:gaze|look)\s+(?:on|at)\s+(?:the\s+)?(?P<t>.+?)\s*[.!?]?\s*$", re.I),
    re.compile(r"when\s+(?:the\s+)?(?P<t>.+?)\s+(?:first\s+)?appears\s*[.!?]?\s*$", re.I),
)


def _metadata(row: Mapping) -> Mapping:
    meta = row.get("metadata") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if meta.strip() else {}
        except json.JSONDecodeError as e:
            raise ValueError(f"question {row.get('question_id', '?')!r}: metadata is not JSON ({e})") from None
    if not isinstance(meta, Mapping):
        raise ValueError(f"question {row.get('question_id', '?')!r}: metadata is not a JSON object")
    return meta


def target_object(row: Mapping) -> str:
    """The proactive target: ``metadata["target_object"]`` if present, else read from the question
    ("... alert me when I gaze on the <plate>.", "... alert me when the <plate> first appears.",
    "Alert me when I look at the plate.", "Alert me when the plate appears."), angle brackets stripped."""
    meta = _metadata(row)
    target = meta.get("target_object")
    if isinstance(target, str) and target.strip():
        return target.strip().strip("<>").strip()
    question = str(row.get("question") or "").strip()
    for pat in _TARGET_PATTERNS:
        m = pat.search(question)
        if m:
            t = m.group("t").strip().strip("<>").strip()
            if t:
                return t
    raise ValueError(f"question {row.get('question_id', '?')!r}: no target object in metadata or in "
                     f"the question {question!r}")


def checkpoint_prompt(task_id: str, row: Mapping, gaze: str = "visual", mode: str = "default",
                      fixations: Sequence[Mapping] = (), frame_size: tuple[int, int] | None = None) -> str:
    """The prompt of one proactive checkpoint (the clip [0, r] is handled by the caller; pass only
    fixations up to r, see ``fixations_until``).

    default: the gaze preamble, then the question the label answers (gta: "Is the user gazing at the
    X right now (at the end of the video)?", oaa: "Is the X visible right now (at the end of the
    video)?") and "Answer Yes or No.". reference: the official proactive prompt (reference §2.4)
    around the row's question, literal ``<video>`` token included.
    """
    _check(gaze, mode)
    if task_id not in _CHECKPOINT_QUESTIONS:
        raise ValueError(f"checkpoint prompts exist for gta and oaa only, not {task_id!r}")
    if mode == "reference":
        prefix = _reference_prefix(gaze, fixations, frame_size)
        return prefix + _REFERENCE_PROACTIVE.format(question=row["question"])
    preamble = gaze_preamble(gaze, fixations, frame_size)
    body = f"Question: {_CHECKPOINT_QUESTIONS[task_id].format(target=target_object(row))}\n{YES_NO_INSTRUCTION}"
    return f"{preamble}\n\n{body}" if preamble else body


# ---- reasoning variants (paper Table 4, prompts of Figs. 19-21) --------------------------------------

#: reasoning settings (task-name suffixes ``_cot_<mode>``): text = chain of thought (Fig. 19), gaze = first
#: estimate the gaze (Fig. 20), visual = gaze plus grounded objects (Fig. 21)
REASONING_MODES = ("text", "gaze", "visual")
_REASONING_HEAD = "You are an expert at gaze-conditioned streaming video reasoning."
# The rules as printed in the paper; "{choice}" is "(A/B/C/D)" there and the actual letters in default mode.
_REASONING_RULES = {
    "text": (
        "Only use visual evidence up to the given timestamp.",
        "Do your step-by-step reasoning ONLY inside <think>...</think>.",
        "Give exactly ONE final choice {choice} or yes/no with its short text inside <answer>...</answer>.",
    ),
    "gaze": (
        "Only use visual evidence up to the given timestamp (no future leakage).",
        "Do your step-by-step reasoning ONLY inside <think>...</think>.",
        "Return exactly three tags in order: <gaze>...</gaze> <think>...</think> <answer>...</answer>.",
        "In <gaze>, estimate the most recent gaze center and FOV radius from the green dot and red circle in "
        "the frames up to the timestamp.",
        "If the green dot/Red circle is not visible, output \"unknown\" in <gaze> but still reason and answer "
        "using other available evidence.",
        "In <answer>, give exactly ONE final choice {choice} or Yes/No with a short text.",
    ),
    "visual": (
        "Only use visual evidence up to the given timestamp (no future leakage).",
        "Produce your reasoning ONLY inside <think>...</think> and never reveal reasoning outside the tag.",
        "Return exactly FOUR tags in this order: <gaze>...</gaze> <objects>...</objects> <think>...</think> "
        "<answer>...</answer>.",
        "In <gaze>, estimate the most recent gaze center and FOV radius from the green dot and red circle, or "
        "output \"unknown\" if not visible.",
        "In <objects>, ground the most relevant objects inside or closest to the gaze/FOV region; for each "
        "object provide: object_name, bbox_x1, bbox_y1, bbox_x2, bbox_y2 normalized to [0,1], or output "
        "\"none\" if no relevant object appears.",
        "In <think>, use the gaze and grounded objects to perform step-by-step reasoning and explain exclusion "
        "of irrelevant options.",
        "In <answer>, provide exactly ONE final label {choice_label} or Yes/No) with a short justification.",
    ),
}


def reasoning_instruction(reasoning: str, mode: str = "default", n_options: int = 4) -> str:
    """The Fig. 19-21 instruction (head and numbered rules), without the question.

    reference: the paper's wording exactly ("(A/B/C/D)"). default: the same with the option letters of
    the question ("(A/B/C/D/E/F/G/H)" for eight options)."""
    if reasoning not in REASONING_MODES:
        raise ValueError(f"unknown reasoning mode {reasoning!r}; expected one of {', '.join(REASONING_MODES)}")
    if mode not in PROMPT_MODES:
        raise ValueError(f"unknown prompt mode {mode!r}; expected one of {', '.join(PROMPT_MODES)}")
    letters = "A/B/C/D" if mode == "reference" or n_options < 2 else "/".join(chr(65 + i) for i in range(n_options))
    rules = [r.format(choice=f"({letters})", choice_label=f"({letters}") for r in _REASONING_RULES[reasoning]]
    return _REASONING_HEAD + "\n\nRules:\n" + "\n".join(f"{i}) {r}" for i, r in enumerate(rules, 1))


def mc_reasoning_prompt(reasoning: str, question: str, options: Sequence[str], gaze: str = "visual",
                        mode: str = "default", fixations: Sequence[Mapping] = (),
                        frame_size: tuple[int, int] | None = None) -> str:
    """A multiple-choice prompt of a reasoning variant: the gaze preamble (reference: the official
    prefix), the Fig. 19-21 instruction, then "Question: ..." and the lettered options in place of the
    figures' ``{Question}`` (no letter-only instruction: the answer goes into ``<answer>``)."""
    _check(gaze, mode)
    block = "\n".join([f"Question: {question}", "Options:", *(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))])
    return _reasoning_join(reasoning, block, gaze, mode, fixations, frame_size, len(options))


def checkpoint_reasoning_prompt(reasoning: str, task_id: str, row: Mapping, gaze: str = "visual",
                                mode: str = "default", fixations: Sequence[Mapping] = (),
                                frame_size: tuple[int, int] | None = None) -> str:
    """A proactive checkpoint prompt of a reasoning variant: the question the checkpoint label answers
    (default) or the row's own question (reference) in place of ``{Question}``."""
    _check(gaze, mode)
    if task_id not in _CHECKPOINT_QUESTIONS:
        raise ValueError(f"checkpoint prompts exist for gta and oaa only, not {task_id!r}")
    if mode == "reference":
        block = f"Question: {row['question']}"
    else:
        block = f"Question: {_CHECKPOINT_QUESTIONS[task_id].format(target=target_object(row))}"
    return _reasoning_join(reasoning, block, gaze, mode, fixations, frame_size, 0)


def _reasoning_join(reasoning, block, gaze, mode, fixations, frame_size, n_options) -> str:
    body = f"{reasoning_instruction(reasoning, mode, n_options)}\n\n{block}"
    if mode == "reference":
        return _reference_prefix(gaze, fixations, frame_size) + body
    preamble = gaze_preamble(gaze, fixations, frame_size)
    return f"{preamble}\n\n{body}" if preamble else body
