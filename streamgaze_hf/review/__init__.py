"""Human verification of scanpaths and object sets (paper §3.3 "Human verification", appendix A.5,
Figure 22, Table 5): the round trip

1. ``streamgaze review export ROOT --out DIR`` (:func:`export_review`): one self-contained HTML page
   per video for annotators (fixation clip on the gaze-overlay video, the gazed object, the objects
   inside and outside the FOV with include / exclude, corrections of the gazed identity and caption,
   "Export CSV");
2. ``streamgaze review import CSV... [--out stats.json]`` (:func:`load_corrections`,
   :func:`verification_stats`): validates the returned CSVs and prints the inclusion / modified
   ratios (Table 5);
3. ``streamgaze build ... --review CSV...``: the build applies the corrections with
   :func:`apply_corrections` to each video's per-fixation objects before the scanpath and QA are
   generated, so excluded objects never reach a question.

The CSV format is documented in :mod:`streamgaze_hf.review.corrections`.

Datasets of question-set benchmarks (EgoGazeVQA) get question-verification pages instead (the same
round trip, per question: keep / drop on the paper's six criteria): :mod:`.qa_review`.
"""

from __future__ import annotations

from .corrections import (
    CSV_COLUMNS,
    Corrections,
    ReviewRow,
    ReviewWarning,
    apply_corrections,
    corrections_to_csv,
    load_corrections,
    parse_corrections,
)
from .export import export_review
from .stats import fleiss_kappa, format_stats, verification_stats

__all__ = [
    "CSV_COLUMNS", "Corrections", "ReviewRow", "ReviewWarning", "apply_corrections", "corrections_to_csv",
    "export_review", "fleiss_kappa", "format_stats", "load_corrections", "parse_corrections",
    "verification_stats",
]
