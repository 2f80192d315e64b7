"""Metrics of multiple-choice and Yes/No (proactive) answers: fractions in [0, 1]; a ratio whose
denominator is empty is undefined (None) where the metric says so, else 0.0 (docs/evaluation.md)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["defined_ratio", "mc_metrics", "proactive_metrics", "effective_yes"]

def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def defined_ratio(num: float, den: float) -> float | None:
    """``num / den``, or None (undefined) when the denominator is empty."""
    return num / den if den else None


def mc_metrics(correct: Iterable[bool], unparsed: int = 0) -> dict:
    """Accuracy of multiple-choice questions (unparsed answers must already be in ``correct`` as
    False; ``unparsed`` only reports how many there were). Empty input → accuracy 0.0."""
    flags = [bool(c) for c in correct]
    n, k = len(flags), sum(flags)
    return {"accuracy": _ratio(k, n), "n": n, "n_correct": k, "n_unparsed": int(unparsed)}


def proactive_metrics(pairs: Iterable[tuple[bool | None, bool]]) -> dict:
    """Checkpoint metrics (paper Fig. 5) from (prediction, label) pairs, Yes = positive.

    An unparsed prediction (None) is wrong and counted as a miss of the label: a false negative for
    a Yes label, a false positive for a No label. accuracy = (tp + tn) / n (the paper's number);
    precision = tp / (tp + fp); recall = tp / (tp + fn); f1 = 2 tp / (2 tp + fp + fn) (= 2PR / (P + R)
    where both are defined); fpr = fp / (fp + tn); fnr = fn / (fn + tp).

    A ratio whose denominator is empty is undefined and reported as None, never as 0 or 1 (a model
    that never says Yes has no precision; a task without Yes labels has no recall and no FNR). The
    accuracy of no items at all is 0.0, as for multiple choice.
    """
    tp = fp = tn = fn = unparsed = 0
    for pred, label in pairs:
        label = bool(label)
        if pred is None:
            unparsed += 1
            pred = not label
        if pred and label:
            tp += 1
        elif pred:
            fp += 1
        elif label:
            fn += 1
        else:
            tn += 1
    n = tp + fp + tn + fn
    return {
        "accuracy": _ratio(tp + tn, n), "precision": defined_ratio(tp, tp + fp),
        "recall": defined_ratio(tp, tp + fn), "f1": defined_ratio(2 * tp, 2 * tp + fp + fn),
        "fpr": defined_ratio(fp, fp + tn), "fnr": defined_ratio(fn, fn + tp),
        "n": n, "n_unparsed": unparsed, "tp": tp, "fp": fp, "tn": tn, "fn": fn,
    }


def effective_yes(record: dict) -> bool:
    """A proactive (Yes/No checkpoint) record's prediction as :func:`proactive_metrics` counts it: an
    unparsed answer is a miss of its label (a false negative for Yes, a false positive for No)."""
    return (record["label"] != "Yes") if record["parsed"] is None else record["parsed"] == "Yes"
