"""The validation every StreamGaze question passes before it is written (generated or imported).

Returns a list of problems (empty = valid), so importers can report and skip while generators
can assert. One rule set for both roads into the dataset; the multiple-choice rules are the shared
``dataset/mc_rules.py``.
"""

from __future__ import annotations

import math

from ....dataset import validate_mc_options
from ..tasks import PROACTIVE_MAX_SPAN_S, get_task, window

YES, NO = "Yes", "No"
_TOL = 1e-6


def validate_qa_row(row: dict, duration: float | None = None, min_options: int = 4,
                    time_tolerance: float = _TOL) -> list[str]:
    """Problems with one QA row. ``duration``: the video's duration in seconds when known."""
    problems: list[str] = []
    try:
        spec = get_task(row.get("task", ""))
    except KeyError as exc:
        return [str(exc)]
    q = row.get("query_time")
    if q is None or not math.isfinite(q) or q < 0:
        return [f"query time {q!r} is not a non-negative number"]
    if duration is not None and q > duration + time_tolerance:
        problems.append(f"query time {q:.3f}s is beyond the video ({duration:.3f}s)")
    ws, we = row.get("window_start"), row.get("window_end")
    if not (isinstance(ws, float | int) and isinstance(we, float | int)) or not we > ws:
        problems.append(f"empty or missing window [{ws}, {we}]")
    if not (row.get("question") or "").strip():
        problems.append("empty question")
    if spec.checkpointed:
        problems += _validate_proactive(row, q, duration, time_tolerance)
    else:
        problems += validate_mc_options(row, min_options)
        if not problems and (abs(ws - window(spec.id, q)[0]) > _TOL or abs(we - window(spec.id, q)[1]) > _TOL):
            problems.append(f"window [{ws}, {we}] does not follow the {spec.category} rule for t={q}")
    if duration is not None and isinstance(we, float | int) and we > duration + time_tolerance:
        problems.append(f"window end {we:.3f}s is beyond the video ({duration:.3f}s)")
    for f in row.get("fixations") or []:
        if isinstance(we, float | int) and f["end"] > we + _TOL:
            problems.append(f"fixation list leaks past the window end ({f['end']:.3f}s > {we:.3f}s)")
            break
    return problems


def _validate_proactive(row: dict, q: float, duration: float | None, tol: float) -> list[str]:
    problems = []
    if row.get("answer") or row.get("options"):
        problems.append("proactive question with options or an answer letter")
    cps = list(row.get("checkpoints") or [])
    if not cps:
        return problems + ["proactive question without checkpoints"]
    times = [c["time"] for c in cps]
    # equal times are allowed: imported checkpoints past the video end are all clamped to it
    if any(b < a for a, b in zip(times, times[1:])):
        problems.append("checkpoint times decrease")
    for c in cps:
        if c["label"] not in (YES, NO):
            problems.append(f"checkpoint label {c['label']!r} is not Yes/No")
        if not (q - tol <= c["time"] <= q + PROACTIVE_MAX_SPAN_S + tol):
            problems.append(f"checkpoint {c['time']:.3f}s outside [query time, query time + {PROACTIVE_MAX_SPAN_S:.0f}s]")
        if duration is not None and c["time"] > duration + tol:
            problems.append(f"checkpoint {c['time']:.3f}s is beyond the video ({duration:.3f}s)")
    if row.get("window_start") != 0 or abs(row.get("window_end", -1) - max(times)) > _TOL:
        problems.append("proactive window must be [0, last checkpoint]")
    return problems
