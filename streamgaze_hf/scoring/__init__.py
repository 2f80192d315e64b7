"""Answer parsing and scoring shared by the lmms-eval plugin, submissions and the leaderboard
(docs/evaluation.md), one module per job:

* :mod:`.parsers`: our multiple-choice and Yes/No parsers and the official (reference) parsers;
* :mod:`.metrics`: accuracy and the proactive checkpoint metrics (fractions in [0, 1]);
* :mod:`.summary`: StreamGaze's overall and per-category means;
* :mod:`.gaze_following`: VL4Gaze's direction, point and ambiguity answers and their metrics;
* :mod:`.text_similarity`: BLEU and ROUGE-L.

Every public name is re-exported here: ``from streamgaze_hf import scoring; scoring.parse_choice(...)``.
Pure functions only: no I/O, no lmms-eval.
"""

from __future__ import annotations

from .gaze_following import (
    OUTSIDE,
    direction_metrics,
    parse_ambiguity,
    parse_direction,
    parse_point,
    point_metrics,
)
from .metrics import defined_ratio, effective_yes, mc_metrics, proactive_metrics
from .parsers import (
    exact_match_correct,
    parse_choice,
    parse_yes_no,
    reasoning_answer,
    reference_mc_correct,
    reference_parse_choice,
    reference_yes_no_correct,
)
from .summary import summarize
from .text_similarity import corpus_bleu, rouge_l, sentence_bleu

__all__ = [
    "parse_choice", "parse_yes_no", "reasoning_answer",
    "reference_parse_choice", "reference_mc_correct", "reference_yes_no_correct", "exact_match_correct",
    "mc_metrics", "proactive_metrics", "effective_yes", "summarize", "defined_ratio",
    "parse_direction", "parse_point", "parse_ambiguity", "OUTSIDE", "direction_metrics", "point_metrics",
    "corpus_bleu", "sentence_bleu", "rouge_l",
]
