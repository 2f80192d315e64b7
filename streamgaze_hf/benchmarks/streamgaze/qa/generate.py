"""QA generation for all ten tasks of one video, validated before anything is returned."""

from __future__ import annotations

from collections.abc import Callable

from ....util.errors import StreamGazeError
from ..tasks import TASK_IDS
from .common import task_rng
from .context import VideoContext
from .past import generate_gsm, generate_nfi, generate_otp, generate_sr
from .present import generate_fap, generate_oar, generate_oi
from .proactive import generate_gta, generate_oaa
from .validate import validate_qa_row

DEFAULT_CAP = 8  # questions per task per video

GENERATORS: dict[str, Callable] = {
    "nfi": generate_nfi,
    "otp": generate_otp,
    "gsm": generate_gsm,
    "sr": generate_sr,
    "oi_easy": lambda ctx, rng, cap: generate_oi(ctx, rng, cap, hard=False),
    "oi_hard": lambda ctx, rng, cap: generate_oi(ctx, rng, cap, hard=True),
    "oar": generate_oar,
    "fap": generate_fap,
    "gta": generate_gta,
    "oaa": generate_oaa,
}
assert tuple(GENERATORS) == TASK_IDS


def generate_questions(ctx: VideoContext, seed: int = 0, cap: int = DEFAULT_CAP) -> dict[str, list[dict]]:
    """Every task's questions for one video (deterministic for a seed); all rows validated."""
    out: dict[str, list[dict]] = {}
    for task_id, gen in GENERATORS.items():
        rows = gen(ctx, task_rng(seed, ctx.video_id, task_id), cap)
        for row in rows:
            problems = validate_qa_row(row, ctx.duration)
            if problems:
                raise StreamGazeError(f"generated {task_id} question {row['question_id']} is invalid: "
                                      + "; ".join(problems))
        ids = [r["question_id"] for r in rows]
        if len(set(ids)) != len(ids):
            raise StreamGazeError(f"duplicate {task_id} question ids for video {ctx.video_id}")
        out[task_id] = rows
    return out
