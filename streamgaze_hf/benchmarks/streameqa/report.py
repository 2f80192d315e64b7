"""``streamgaze report streameqa RUN_DIR``: accuracy of an lmms-eval run on the StreamEQA tasks per
task code, level and direction, in the supplement's table layout (Tables 5-7: per level, the codes
grouped Backward | Realtime | Forward, then Avg.), per gaze mode.

Reads the per-sample records lmms-eval writes with ``--log_samples`` (``*_samples_streameqa_*.jsonl``
below RUN_DIR). A question met twice in one gaze mode (the level tasks and the direction groups run
together) is counted once; two different answers to it mean several runs below RUN_DIR (an error).
Also reported: the official rule's accuracy, the number of windows of 1 s or less (which the
official code skips) and the accuracy without them (the official subset).
"""

from __future__ import annotations

import os

from ...registry import provide
from ...util.errors import StreamGazeError
from . import BENCHMARK, DIRECTIONS, LEVELS, subtasks

#: the one-line help of ``streamgaze report streameqa``
HELP = ("accuracy of an lmms-eval StreamEQA run per task code, level and direction (the supplement's Tables 5-7 "
        "layout)")
provide(__name__, HELP=HELP)


def read_run(run_dir: str | os.PathLike[str]) -> dict[str, list[dict]]:
    """Per gaze mode, the records of one run (each question once)."""
    from ...submission import sample_records  # on use: `report --help` reads HELP only

    by_mode: dict[str, dict[str, dict]] = {}
    for path, n, rec in sample_records(run_dir, BENCHMARK):
        mode, qid = rec["gaze"], rec["question_id"]
        seen = by_mode.setdefault(mode, {})
        if qid in seen and seen[qid]["response"] != rec["response"]:
            raise StreamGazeError(f"line {n}: question {qid} ({mode}) answered twice differently: several "
                                  "runs below RUN_DIR; point at one run's directory", path)
        seen.setdefault(qid, rec)
    return {mode: list(recs.values()) for mode, recs in by_mode.items()}


def run_breakdown(run_dir: str | os.PathLike[str]) -> dict:
    """{gaze mode: ``evaluation.table_breakdown`` of its records}."""
    from .evaluation import table_breakdown

    return {mode: table_breakdown(recs) for mode, recs in sorted(read_run(run_dir).items())}


def _pct(v) -> str:
    return "  -  " if v is None else f"{100 * v:5.1f}"


def format_level(b: dict, level: str) -> list[str]:
    """One level's table: a direction header line, a code header line, then the accuracies (%) and
    question counts; Avg. = over the level's questions (micro), Mean = mean of its codes."""
    groups = [(d, [s.code for s in subtasks(level, d)]) for d in DIRECTIONS]
    head1 = " | ".join(f"{d.capitalize():<{6 * len(codes) - 1}}" for d, codes in groups)
    head2 = " | ".join(" ".join(f"{c:>5}" for c in codes) for _d, codes in groups)
    accs = " | ".join(" ".join(_pct(b["codes"][c]) for c in codes) for _d, codes in groups)
    ns = " | ".join(" ".join(f"{b['n'][c]:>5}" for c in codes) for _d, codes in groups)
    lv = b["levels"][level]
    return [f"  {level.capitalize()} (supplement Table {({'perception': 5, 'interaction': 6, 'planning': 7})[level]})",
            f"    {'':<5} {head1} |  Avg.  Mean",
            f"    {'':<5} {head2} |",
            f"    {'acc':<5} {accs} | {_pct(lv['micro'])} {_pct(lv['macro'])}",
            f"    {'n':<5} {ns} | {lv['n']:>5}"]


def format_breakdown(result: dict) -> str:
    lines = []
    for mode, b in result.items():
        o = b["overall"]
        context = ", ".join(f"{c:g} s" for c in b["context_s"]) or "unknown"
        lines.append(f"gaze {mode}: accuracy {_pct(o['micro']).strip()} % of {o['n']} questions "
                     f"(mean of the codes {_pct(o['macro']).strip()} %); official rule "
                     f"{_pct(b['official']).strip()} %; window context {context}")
        for level in LEVELS:
            lines += format_level(b, level)
        lines.append("  per direction (all levels): " + "; ".join(
            f"{d} {_pct(b['directions'][d]['micro']).strip()} % (n={b['directions'][d]['n']})" for d in DIRECTIONS))
        lines.append("  per level and direction: " + "; ".join(
            f"{lv}/{d} {_pct(b['levels'][lv][d]['micro']).strip()}" for lv in LEVELS for d in DIRECTIONS))
        s, w = b["short_window"], b["without_short"]
        lines.append(f"  windows of 1 s or less: {s['n']} (accuracy {_pct(s['accuracy']).strip()} %; the official "
                     f"code skips them); without them: {_pct(w['micro']).strip()} % of {w['n']}")
    return "\n".join(lines)
