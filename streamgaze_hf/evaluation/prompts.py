"""Prompt pieces shared by every benchmark: the prompt modes and our default multiple-choice block.

Each benchmark's own texts (gaze instructions, question templates, the official strings of its
``reference`` mode) live in ``benchmarks/<name>/prompts.py`` and build on these. Pure and
deterministic; nothing here imports lmms-eval.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PROMPT_MODES", "check_modes", "letters_phrase", "mc_question_block"]

# default: our prompts; reference: the benchmark's official strings, to compare with its paper.
PROMPT_MODES = ("default", "reference")


def check_modes(gaze: str, mode: str, gaze_modes: Sequence[str], benchmark: str = "") -> None:
    """The one check of a prompt builder's arguments: ``gaze`` one of the benchmark's ``gaze_modes`` (its
    declared gaze variants), ``mode`` one of :data:`PROMPT_MODES`; ValueError naming the choices."""
    if gaze not in gaze_modes:
        what = f"{benchmark} gaze mode" if benchmark else "gaze mode"
        raise ValueError(f"unknown {what} {gaze!r}; expected one of {', '.join(gaze_modes)}")
    if mode not in PROMPT_MODES:
        raise ValueError(f"unknown prompt mode {mode!r}; expected one of {', '.join(PROMPT_MODES)}")


def letters_phrase(n: int) -> str:
    letters = [chr(65 + i) for i in range(n)]
    if n <= 2:
        return " or ".join(letters)
    return ", ".join(letters[:-1]) + ", or " + letters[-1]


def mc_question_block(question: str, options: Sequence[str]) -> str:
    """Our default multiple-choice body (shared by every benchmark): "Question: ...", "Options:", one
    "A. text" line per option and "Answer with only the letter (A, B, ...) of the correct option."."""
    if len(options) > 26:
        raise ValueError(f"at most 26 options can be lettered, got {len(options)}")
    lines = [f"Question: {question}", "Options:"]
    lines += [f"{chr(65 + i)}. {opt}" for i, opt in enumerate(options)]
    lines.append(f"Answer with only the letter ({letters_phrase(len(options))}) of the correct option.")
    return "\n".join(lines)
