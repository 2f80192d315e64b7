"""Answer rules of the pipeline-check baselines, shared by the lmms-eval models
(``lmms_tasks/models.py``: ``streamgaze_random``, ``streamgaze_oracle``) and the streaming polling
adapter (``streamgaze stream-eval --model random|oracle``), so both protocols give the same answers.

The oracle answers from the answer key: it checks the plumbing end to end and is never ranked.
"""

from __future__ import annotations

import hashlib
import random

from ..registry import benchmark_of_doc

__all__ = ["random_answer", "random_doc_answer", "oracle_answer"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _item_rng(seed: int, question_id: str, checkpoint: int | str) -> random.Random:
    key = f"{int(seed)}:{question_id}:{checkpoint}"
    return random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:16], 16))


def random_doc_answer(seed: int, doc: dict) -> str:
    """The random baseline's answer to an evaluation document of any registered benchmark: the
    benchmark's own rule when its evaluation module offers ``baseline_random_answer(rng, doc)`` (VL4Gaze:
    a random direction, point, description or yes/no), else :func:`random_answer` over its options."""
    bench = benchmark_of_doc(doc)
    own = bench.plugin().baseline_random_answer(_item_rng(seed, doc["question_id"], doc["checkpoint_index"]), doc)
    if own is not None:
        return own
    return random_answer(seed, doc["question_id"], doc["checkpoint_index"], bench.task(doc["task"]).checkpointed,
                         len(doc["options"]))


def random_answer(seed: int, question_id: str, checkpoint: int | str, yes_no: bool, n_options: int) -> str:
    """A uniform random option letter (multiple choice) or Yes/No (``yes_no``: a checkpointed task's checkpoints),
    seeded per (seed, question, checkpoint): the same item always gets the same answer, whatever the order."""
    rng = _item_rng(seed, question_id, checkpoint)
    if yes_no:
        return rng.choice(["Yes", "No"])
    return _LETTERS[rng.randrange(n_options)]


def oracle_answer(doc: dict) -> str:
    """The key's answer of an evaluation document of any registered benchmark (letter, or the
    checkpoint's Yes/No label)."""
    return benchmark_of_doc(doc).plugin().doc_target(doc)
