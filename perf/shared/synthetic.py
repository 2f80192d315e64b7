"""Synthetic StreamGaze submissions of a known score, made without lmms-eval (the leaderboard tests, and the
honest pull requests of perf/leaderboard_sync.py)."""

from __future__ import annotations

from pathlib import Path

from streamgaze_hf.benchmarks.streamgaze.evaluation import doc_target
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.submission import assemble_submission, write_submission


def synthetic_submission(key, out: Path, name: str, right: float, *, frames: str = "", params: str = "",
                         drop: float = 0.0, salt: int = 0) -> Path:
    """A submission whose model answers the first ``right`` fraction of each task's items correctly and
    the rest wrongly, leaving out the last ``drop`` fraction (for leaderboard tests without lmms-eval). ``salt``:
    which wrong letters it gives (the same scores, other raw responses: a run of its own, not a repeat)."""
    import random

    responses, pick = {}, random.Random(salt)
    for task_id in TASK_IDS:
        items = list(key.docs[task_id].items())
        n_keep = len(items) - int(round(drop * len(items)))
        for i, (item, doc) in enumerate(items[:n_keep]):
            target = doc_target(doc)
            if i < right * len(items):
                responses[item] = target
            elif doc["checkpoint_index"] >= 0:
                responses[item] = "No" if target == "Yes" else "Yes"
            elif salt:
                responses[item] = pick.choice([c for c in "ABCD" if c != target])
            else:
                responses[item] = "B" if target == "A" else "A"
    sub = assemble_submission(key, responses, prompt_mode="default", clip_fps=0.0,
                              model={"name": name, "url": "", "params": params, "frames": frames},
                              run={"harness": "lmms-eval", "harness_version": "test", "model": "synthetic",
                                   "model_args": "", "date": "", "limit": None})
    write_submission(sub, out)
    return out
