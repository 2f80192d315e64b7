"""A benchmark's summary of its task scores: the overall and per-category means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..registry import Benchmark

__all__ = ["summarize"]


def summarize(task_scores: Mapping[str, float], benchmark: Benchmark, skip: Sequence[str] = ()) -> dict:
    """Overall = unweighted mean of the benchmark's task scores, plus the mean of each of its
    categories (StreamGaze: past / present / proactive).

    Requires exactly the benchmark's task ids; raises ValueError naming the missing (or unknown) ones.
    ``skip``: tasks left out of every mean (a task with no questions in the dataset); a category whose
    tasks are all skipped has the mean None.
    """
    ids = benchmark.task_ids
    missing = [t for t in ids if t not in task_scores]
    unknown = sorted(set(task_scores) - set(ids))
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"missing tasks: {', '.join(missing)}")
        if unknown:
            parts.append(f"unknown tasks: {', '.join(unknown)}")
        raise ValueError(f"summarize needs the {len(ids)} {benchmark.title} task scores ({'; '.join(parts)})")
    scores = {t: float(task_scores[t]) for t in ids if t not in skip}
    out = {"overall": sum(scores.values()) / len(scores) if scores else None}
    for cat in benchmark.categories:
        in_cat = [t.id for t in benchmark.tasks_in(cat) if t.id in scores]
        out[cat] = sum(scores[t] for t in in_cat) / len(in_cat) if in_cat else None
    return out
