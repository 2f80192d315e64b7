"""Baseline models for verifying the pipeline: ``streamgaze_random`` and ``streamgaze_oracle``.

Both are lmms-eval "simple" models reading each request's document from ``self.task_dict``.
The oracle answers from the answer key: it checks the plumbing end to end and must never be
submitted to the leaderboard.

They behave as lmms-eval models in a distributed run (``accelerate launch`` or ``torchrun``): rank and
world size come from the launcher's environment, and the device is the CPU (they compute nothing on an
accelerator, so a CPU-only machine runs them multi-process too).
"""

from __future__ import annotations

import os

from lmms_eval.api.model import lmms

from streamgaze_hf.evaluation import oracle_answer, random_doc_answer


def _as_bool(v) -> bool:
    return v if isinstance(v, bool) else str(v).strip().lower() in {"1", "true", "yes", "on"}


class _DocModel(lmms):
    is_simple = True

    def __init__(self, check_visuals=False, device=None, **kwargs) -> None:
        super().__init__()
        import torch

        self.check_visuals = _as_bool(check_visuals)
        self._device = torch.device("cpu")
        self._rank = int(os.environ.get("RANK", 0))
        self._world_size = int(os.environ.get("WORLD_SIZE", 1))

    @property
    def device(self):
        return self._device

    def answer(self, doc: dict) -> str:
        raise NotImplementedError

    def generate_until(self, requests):
        out = []
        for req in requests:
            _ctx, _gen, doc_to_visual, doc_id, task, split = req.args
            doc = self.task_dict[task][split][doc_id]
            if self.check_visuals:
                for visual in doc_to_visual(doc):  # a file path (video) or a PIL image
                    if isinstance(visual, str) and not os.path.isfile(visual):
                        raise FileNotFoundError(visual)
                    if not isinstance(visual, str) and min(getattr(visual, "size", (0, 0))) <= 0:
                        raise ValueError(f"empty image visual for {doc['question_id']}")
            out.append(self.answer(doc))
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError("the toolkit's baselines only generate")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("the toolkit's baselines only generate")


class RandomBaseline(_DocModel):
    """Uniform random option letter / Yes-No (or the benchmark's own random answer), seeded per
    (seed, question, checkpoint)."""

    def __init__(self, seed=0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seed = int(seed)

    def answer(self, doc: dict) -> str:
        return random_doc_answer(self.seed, doc)


class OracleBaseline(_DocModel):
    """Answers from the answer key (pipeline verification only; never for the leaderboard)."""

    def answer(self, doc: dict) -> str:
        return oracle_answer(doc)
