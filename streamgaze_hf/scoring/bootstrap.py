"""Standard errors and paired comparisons of scores by a seeded bootstrap over questions.

A proactive question contributes several checkpoint records and they are not independent, so the unit
of resampling is the question (``question_id``), for every metric: accuracy and, for proactive tasks,
precision, recall, F1, FPR and FNR. Each resample draws as many questions as the task has, with
replacement, from a ``numpy.random.Generator`` seeded by the caller, so a result is reproducible.

Scores are fractions in [0, 1]. A metric whose denominator is empty in a resample (no predicted Yes for
precision, say) is undefined there and left out of that metric's spread; a metric undefined on the data
itself has no standard error (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import effective_yes

DEFAULT_RESAMPLES = 1000
#: per-record counts, summed per question: correct, n, tp, fp, tn, fn
_COLS = ("correct", "n", "tp", "fp", "tn", "fn")
METRICS_MC = ("accuracy",)
METRICS_PROACTIVE = ("accuracy", "precision", "recall", "f1", "fpr", "fnr")


def _question_counts(records: Sequence[dict]) -> np.ndarray:
    """(questions x 6) array of summed counts, questions in first-seen order."""
    index: dict[str, int] = {}
    rows: list[list[float]] = []
    for rec in records:
        i = index.setdefault(str(rec["question_id"]), len(rows))
        if i == len(rows):
            rows.append([0.0] * len(_COLS))
        row = rows[i]
        row[0] += 1.0 if rec["correct"] else 0.0
        row[1] += 1.0
        if rec.get("checkpoint_index", -1) >= 0:
            pred, label = effective_yes(rec), rec["label"] == "Yes"
            row[2 + (0 if pred and label else 1 if pred else 3 if label else 2)] += 1.0
    return np.asarray(rows, dtype=float).reshape(-1, len(_COLS))


def _metrics_from_counts(c: np.ndarray) -> dict[str, np.ndarray]:
    """Metric arrays from count arrays (last axis = _COLS); nan where a denominator is 0."""
    correct, n, tp, fp, tn, fn = (c[..., k] for k in range(len(_COLS)))

    def ratio(a, b):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)

    return {"accuracy": ratio(correct, n), "precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn),
            "f1": ratio(2 * tp, 2 * tp + fp + fn), "fpr": ratio(fp, fp + tn), "fnr": ratio(fn, fn + tp)}


def _resample_weights(n_questions: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples x questions) multiplicities of a bootstrap draw of the questions."""
    if n_questions == 0:
        return np.zeros((resamples, 0))
    return rng.multinomial(n_questions, np.full(n_questions, 1.0 / n_questions), size=resamples).astype(float)


def _se(values: np.ndarray) -> float | None:
    values = values[~np.isnan(values)]
    return float(np.std(values, ddof=1)) if len(values) > 1 else None


def bootstrap_standard_errors(records: Sequence[dict], *, resamples: int = DEFAULT_RESAMPLES,
                              seed: int = 0) -> dict[str, float | None]:
    """Bootstrap standard error of every metric of one task's records (resampling questions)."""
    counts = _question_counts(records)
    proactive = any(r.get("checkpoint_index", -1) >= 0 for r in records)
    names = METRICS_PROACTIVE if proactive else METRICS_MC
    observed = _metrics_from_counts(counts.sum(axis=0))
    boot = _metrics_from_counts(_resample_weights(len(counts), resamples, np.random.default_rng(seed)) @ counts)
    return {m: (None if np.isnan(observed[m]) else _se(boot[m])) for m in names}


def _aligned_counts(records_a: Sequence[dict], records_b: Sequence[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Per-question counts of two runs, rows in the same question order."""
    qa = list(dict.fromkeys(str(r["question_id"]) for r in records_a))
    order = {q: i for i, q in enumerate(dict.fromkeys(str(r["question_id"]) for r in records_b))}
    if set(qa) != set(order):
        raise ValueError("the two runs do not cover the same questions")
    return _question_counts(records_a), _question_counts(records_b)[[order[q] for q in qa]]


def paired_difference(records_a: Sequence[dict], records_b: Sequence[dict], *, metric: str = "accuracy",
                      resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95) -> dict:
    """B − A on one task's metric with a paired bootstrap confidence interval: both runs are scored on
    the same resampled questions. The two record lists must cover the same questions."""
    ca, cb = _aligned_counts(records_a, records_b)
    w = _resample_weights(len(ca), resamples, np.random.default_rng(seed))
    diff = _metrics_from_counts(w @ cb)[metric] - _metrics_from_counts(w @ ca)[metric]
    a, b = (float(_metrics_from_counts(c.sum(axis=0))[metric]) for c in (ca, cb))
    diff = diff[~np.isnan(diff)]
    tail = (1.0 - level) / 2.0
    lo, hi = (np.quantile(diff, [tail, 1.0 - tail]).tolist() if len(diff) else (float("nan"), float("nan")))
    return {"a": a, "b": b, "difference": b - a, "ci_low": float(lo), "ci_high": float(hi), "level": level,
            "resamples": resamples, "seed": seed, "n_questions": len(ca)}


def paired_overall_difference(tasks_a: dict[str, Sequence[dict]], tasks_b: dict[str, Sequence[dict]], *,
                              resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95) -> dict:
    """B − A on the overall score (unweighted mean of the task accuracies), each task's questions
    resampled independently (task i uses seed + i), both runs on the same draws."""
    diffs, a_scores, b_scores = [], [], []
    for i, task in enumerate(sorted(tasks_a)):
        ca, cb = _aligned_counts(tasks_a[task], tasks_b[task])
        w = _resample_weights(len(ca), resamples, np.random.default_rng(seed + i))
        a_scores.append(_metrics_from_counts(w @ ca)["accuracy"])
        b_scores.append(_metrics_from_counts(w @ cb)["accuracy"])
        diffs.append(float(_metrics_from_counts(cb.sum(axis=0))["accuracy"]
                           - _metrics_from_counts(ca.sum(axis=0))["accuracy"]))
    boot = np.nanmean(np.stack(b_scores), axis=0) - np.nanmean(np.stack(a_scores), axis=0)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(boot, [tail, 1.0 - tail]).tolist()
    return {"difference": float(np.mean(diffs)), "ci_low": float(lo), "ci_high": float(hi), "level": level,
            "resamples": resamples, "seed": seed}
