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

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from .answer_key import AnswerKey, ItemKey, Rescored, load_answer_key, score_responses, scored_dataset
    from .assemble import assemble_submission, is_oracle
    from .build import build_submission, dumps_submission, redact_model_args, write_submission
    from .compare import compare_submissions, format_comparison
    from .coverage import (
        fmt_coverage,
        fmt_pct,
        partial_coverage_warning,
        pct_text,
        score_cell,
        scores_line,
        task_coverage,
    )
    from .fingerprint import responses_digest
    from .lmms_output import sample_records
    from .schema import MAX_SUBMISSION_BYTES, SCHEMA_VERSION, check_structure, submission_benchmark, valid_url
    from .strictjson import StrictJSONError, check_object, exact_int, loads_strict, obj, one_of, string
    from .validate import ValidationReport, load_submission, validate_submission

#: public name -> the module of the package that defines it
_FACE = {
    "AnswerKey": "answer_key",
    "ItemKey": "answer_key",
    "Rescored": "answer_key",
    "load_answer_key": "answer_key",
    "score_responses": "answer_key",
    "scored_dataset": "answer_key",
    "assemble_submission": "assemble",
    "is_oracle": "assemble",
    "build_submission": "build",
    "dumps_submission": "build",
    "redact_model_args": "build",
    "write_submission": "build",
    "compare_submissions": "compare",
    "format_comparison": "compare",
    "fmt_coverage": "coverage",
    "fmt_pct": "coverage",
    "pct_text": "coverage",
    "partial_coverage_warning": "coverage",
    "score_cell": "coverage",
    "scores_line": "coverage",
    "task_coverage": "coverage",
    "responses_digest": "fingerprint",
    "sample_records": "lmms_output",
    "MAX_SUBMISSION_BYTES": "schema",
    "SCHEMA_VERSION": "schema",
    "check_structure": "schema",
    "submission_benchmark": "schema",
    "valid_url": "schema",
    "StrictJSONError": "strictjson",
    "check_object": "strictjson",
    "exact_int": "strictjson",
    "loads_strict": "strictjson",
    "obj": "strictjson",
    "one_of": "strictjson",
    "string": "strictjson",
    "ValidationReport": "validate",
    "load_submission": "validate",
    "validate_submission": "validate",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
}
__all__ = [
    "AnswerKey", "ItemKey", "MAX_SUBMISSION_BYTES", "Rescored", "SCHEMA_VERSION", "StrictJSONError",
    "ValidationReport", "assemble_submission", "build_submission", "check_object", "check_structure",
    "compare_submissions", "dumps_submission", "exact_int", "fmt_coverage", "fmt_pct", "format_comparison",
    "is_oracle", "load_answer_key", "load_submission", "loads_strict", "obj", "one_of", "partial_coverage_warning",
    "pct_text", "redact_model_args", "responses_digest", "sample_records", "score_cell", "score_responses", "scored_dataset",
    "scores_line", "string", "submission_benchmark", "task_coverage", "valid_url", "validate_submission",
    "write_submission",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
