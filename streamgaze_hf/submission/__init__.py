"""Leaderboard submissions (docs/leaderboard.md): what a run becomes, and how it is checked.

* :func:`build_submission` (``streamgaze submit``, ``build.py``; assembled by ``assemble.py``): lmms-eval
  output directory -> submission JSON with every raw response, its parsed answer and the scores recomputed
  with the shared scoring code;
* :func:`validate_submission` (``streamgaze validate``, ``validate.py``): strict parsing (``strictjson.py``)
  and re-scoring against the answer key (``answer_key.py``); never trusts a reported score;
* ``compare.py`` (``streamgaze compare``), ``coverage.py`` (how much of a dataset a run covers).

The format is documented in :mod:`streamgaze_hf.submission.schema`. What is shown of submissions (the
static site, the Hub service) is :mod:`streamgaze_hf.leaderboard`.
"""

from __future__ import annotations

from .answer_key import AnswerKey, load_answer_key, score_responses
from .build import (
    assemble_submission,
    build_submission,
    dumps_submission,
    redact_model_args,
    write_submission,
)
from .schema import SCHEMA_VERSION
from .validate import ValidationReport, load_submission, validate_submission

__all__ = [
    "SCHEMA_VERSION", "AnswerKey", "ValidationReport", "assemble_submission", "build_submission",
    "dumps_submission", "load_answer_key", "load_submission", "redact_model_args", "score_responses",
    "validate_submission", "write_submission",
]

