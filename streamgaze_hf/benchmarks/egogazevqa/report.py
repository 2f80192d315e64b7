"""``streamgaze report egogazevqa RUN_DIR``: accuracy of an lmms-eval run on the EgoGazeVQA tasks per
gaze mode, broken down per category, source, scenario and activity (paper Table 3 and Fig. 1 axes).

Reads the per-sample records lmms-eval writes with ``--log_samples`` (``*_samples_egogazevqa_*.jsonl``
below RUN_DIR); every record carries its question's category, source, scenario and activity. Both
scores are given: ours (the shared parser) and the official exact-match rule.
"""

from __future__ import annotations

import os

from ...registry import provide
from ...util.errors import StreamGazeError
from . import BENCHMARK

HEADINGS = {"task": "category", "source": "source", "scenario": "scenario", "activity": "activity"}

#: the one-line help of ``streamgaze report egogazevqa``
HELP = ("accuracy of an lmms-eval EgoGazeVQA run per gaze mode, category, source, scenario and activity (ours and "
        "the official exact match)")
provide(__name__, HELP=HELP)


def read_run(run_dir: str | os.PathLike[str]) -> dict[str, list[dict]]:
    """Per gaze mode, the records of one run (StreamGazeError when there are none, or when a question
    appears twice in a mode: several runs in one directory)."""
    from ...submission import sample_records  # on use: `report --help` reads HELP only

    by_mode: dict[str, list[dict]] = {}
    seen: set[tuple[str, str]] = set()
    for path, n, rec in sample_records(run_dir, BENCHMARK):
        key = (rec["gaze"], rec["question_id"])
        if key in seen:
            raise StreamGazeError(f"line {n}: question {key[1]} ({key[0]}) seen twice: several runs below "
                                  "RUN_DIR; point at one run's directory", path)
        seen.add(key)
        by_mode.setdefault(rec["gaze"], []).append(rec)
    return by_mode


def run_breakdown(run_dir: str | os.PathLike[str]) -> dict:
    """{gaze mode: {"all": metrics, "exact_match": fraction, <key>: {value: metrics}}}."""
    from .evaluation import BREAKDOWN_KEYS, breakdown, task_metrics

    out = {}
    for mode, recs in sorted(read_run(run_dir).items()):
        entry = {"all": task_metrics(recs),
                 "exact_match": sum(r["exact_match"] for r in recs) / len(recs)}
        for key in BREAKDOWN_KEYS:
            entry[key] = breakdown(recs, key)
        out[mode] = entry
    return out


def format_breakdown(result: dict) -> str:
    from .evaluation import BREAKDOWN_KEYS

    lines = []
    for mode, entry in result.items():
        a = entry["all"]
        lines.append(f"gaze {mode}: accuracy {100 * a['accuracy']:.1f} % of {a['n']} (unparsed {a['n_unparsed']}); "
                     f"official exact match {100 * entry['exact_match']:.1f} %")
        for key in BREAKDOWN_KEYS:
            lines.append(f"  per {HEADINGS[key]}:")
            for value, m in entry[key].items():
                lines.append(f"    {value or '(unknown)':<20} {100 * m['accuracy']:6.1f} %  n={m['n']}")
    return "\n".join(lines)
