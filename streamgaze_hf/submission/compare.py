"""``streamgaze compare A.json B.json``: per-task differences between two submissions on one dataset,
with paired bootstrap confidence intervals (both submissions re-scored from their raw responses and
resampled over the same questions; see :mod:`streamgaze_hf.scoring.bootstrap`).

Any benchmark whose tasks are scored by accuracy (StreamGaze, whose proactive tasks use per-checkpoint
accuracy; EgoGazeVQA; StreamEQA): the overall is the unweighted mean of the task accuracies, as those
benchmarks' papers average them. A benchmark with other metrics (VL4Gaze) is refused."""

from __future__ import annotations

import os

from ..registry import Benchmark
from ..scoring.bootstrap import DEFAULT_RESAMPLES, paired_difference, paired_overall_difference
from ..util.errors import StreamGazeError
from .schema import has_own_layout
from .validate import validate_submission

__all__ = ["compare_submissions", "format_comparison"]


def compare_submissions(path_a: str | os.PathLike[str], path_b: str | os.PathLike[str],
                        root: str | os.PathLike[str] | None = None, *, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = 0, level: float = 0.95) -> dict:
    """B − A per task (accuracy) and overall, each with a paired bootstrap interval at ``level``.

    Both files are validated and re-scored against the dataset at ``root`` first; they must share the
    gaze mode, prompt mode and protocol, or the difference would not be the model's.

    Args:
        path_a: submission A.
        path_b: submission B.
        root: the dataset both are re-scored against (None: their benchmark's ``$..._ROOT``, else its
            default directory).
        resamples: bootstrap resamples (at least 100).
        seed: the seed of the resampling (task ``i`` uses ``seed + i``).
        level: the confidence level of the intervals, in [0.5, 1).

    Returns:
        ``a`` and ``b`` (path, model name), ``tasks`` (task id -> ``a``, ``b``, ``difference``, ``ci_low``,
        ``ci_high``, ... as fractions; tasks with no questions left out), ``overall`` (the same for the
        unweighted mean), ``level``, ``resamples`` and ``seed``.

    Raises:
        StreamGazeError: ``resamples`` or ``level`` out of range, a submission that does not validate
            (:func:`~.validate.validate_submission`), submissions of two benchmarks or with different gaze
            mode, prompt mode or protocol, or a benchmark whose tasks are not all scored by accuracy.
    """
    if resamples < 100:
        raise StreamGazeError(f"--resamples must be at least 100, got {resamples}")
    if not 0.5 <= level < 1.0:
        raise StreamGazeError(f"--level must be in [0.5, 1), got {level}")
    from ..dataset import open_dataset

    cache: dict = {}
    if root is not None:
        root = open_dataset(root)  # once for both
    a = validate_submission(path_a, root, key_cache=cache)
    b = validate_submission(path_b, root, key_cache=cache)
    if a.benchmark != b.benchmark:
        raise StreamGazeError(f"a {a.benchmark} and a {b.benchmark} submission cannot be compared", b.path)
    task_ids = tuple(t for t in _accuracy_tasks(a.bench, a.scores, b.path) if a.rescored.records[t])  # 0 questions: skipped
    for field in ("gaze", "prompt_mode", "protocol"):
        va, vb = a.submission["settings"].get(field), b.submission["settings"].get(field)
        if va != vb:
            raise StreamGazeError(f"the submissions differ in {field} ({va} vs {vb}): their scores are not comparable",
                                  b.path)
    tasks = {}
    for i, task in enumerate(task_ids):
        tasks[task] = paired_difference(a.rescored.records[task], b.rescored.records[task],
                                        resamples=resamples, seed=seed + i, level=level)
    overall = paired_overall_difference({t: a.rescored.records[t] for t in task_ids},
                                        {t: b.rescored.records[t] for t in task_ids},
                                        resamples=resamples, seed=seed, level=level)
    if has_own_layout(a.scores):  # StreamGaze's layout: overall is a fraction
        overall.update(a=a.scores["overall"], b=b.scores["overall"])
    else:  # the other benchmarks' scores are in their papers' units (%): the fractions from the records
        overall.update({k: sum(t[k] for t in tasks.values()) / len(tasks) for k in ("a", "b")})
    return {"a": {"path": str(a.path), "model": a.submission["model"]["name"]},
            "b": {"path": str(b.path), "model": b.submission["model"]["name"]},
            "tasks": tasks, "overall": overall, "level": level, "resamples": resamples, "seed": seed}


def _accuracy_tasks(bench: Benchmark, scores: dict, path) -> tuple[str, ...]:
    """The task ids to compare: every task of a benchmark whose scores have the category layout (StreamGaze:
    accuracy, checkpoint accuracy for proactive tasks); another benchmark's when all are scored by accuracy."""
    if has_own_layout(scores):
        return bench.task_ids
    other = sorted({m for t in bench.task_ids for m in bench.metric_names(t)} - {"accuracy"})
    if other:
        raise StreamGazeError(f"compare needs tasks scored by accuracy; {bench.title}'s report {', '.join(other)}",
                              path)
    return bench.task_ids


def format_comparison(result: dict) -> str:
    pct = int(round(result["level"] * 100))
    lines = [f"A = {result['a']['model']} ({result['a']['path']})", f"B = {result['b']['model']} ({result['b']['path']})",
             f"{'task':<10} {'A':>7} {'B':>7} {'B-A':>7}   {pct}% CI (paired bootstrap, {result['resamples']} resamples)"]
    rows = [*result["tasks"].items(), ("overall", result["overall"])]
    for name, r in rows:
        sig = "" if r["ci_low"] <= 0.0 <= r["ci_high"] else "  *"
        lines.append(f"{name:<10} {100 * r['a']:7.1f} {100 * r['b']:7.1f} {100 * r['difference']:+7.1f}   "
                     f"[{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]{sig}")
    lines.append("* the interval excludes 0")
    return "\n".join(lines)
