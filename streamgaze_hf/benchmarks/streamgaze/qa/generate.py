"""QA generation for all ten tasks of one video, validated before anything is returned."""

from __future__ import annotations

from collections.abc import Callable

from ....util.errors import StreamGazeError
from ..tasks import TASK_IDS
from .common import task_rng
from .context import VideoContext
from .past import generate_gsm, generate_nfi, generate_otp, generate_sr
from .present import fap_unavailable, generate_fap, generate_oar, generate_oi
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


#: the tasks whose questions are about object names (all but FAP, which asks for the next action's label)
NEEDS_OBJECT_NAMES = frozenset(TASK_IDS) - {"fap"}
#: why a task about object names has no question in a build without them, and what would give it some
NO_NAMES = ("no object names (objects: none); name them with --objects vlm --vlm-url URL --vlm-model NAME, or "
            "--objects metadata --metadata CSV")
#: why a recording gave a task no question, when its inputs had what the task needs (the generators' rules)
NONE_FOUND = {
    "nfi": "no object in view but never looked at once three objects had been looked at",
    "otp": "no look from one object to another with three other objects seen by then",
    "gsm": "no three looks in a row at three different objects",
    "sr": "no look with at least 3 other objects in view outside the field of view",
    "oi_easy": "no steady look at a named object with 3 other objects out of view at that moment",
    "oi_hard": "no steady look at a named object with 3 other objects in view outside the field of view",
    "oar": "no looked-at object with an attribute of at least 4 known values",
    "fap": "no action starting 1 to 60 s after a look",
    "gta": "no looked-at object whose alert checkpoints have both answers",
    "oaa": "no object that appears, is never looked at and whose alert checkpoints have both answers",
}


def empty_task_reasons(qa: dict[str, list[dict]], actions, objects: str) -> dict[str, str]:
    """Task -> why this recording gives it no question, for every task with none (the build report)."""
    out = {}
    for task_id in TASK_IDS:
        if qa.get(task_id):
            continue
        if objects == "none" and task_id in NEEDS_OBJECT_NAMES:
            out[task_id] = NO_NAMES
        elif task_id == "fap" and fap_unavailable(actions):
            out[task_id] = fap_unavailable(actions)
        else:
            out[task_id] = NONE_FOUND[task_id]
    return out


def generate_questions(ctx: VideoContext, seed: int = 0, cap: int = DEFAULT_CAP,
                       names: bool = True) -> dict[str, list[dict]]:
    """Every task's questions for one video (deterministic for a seed); all rows validated. Without object
    ``names`` (``build --objects none``) only the tasks that need none (FAP)."""
    out: dict[str, list[dict]] = {}
    for task_id, gen in GENERATORS.items():
        if not names and task_id in NEEDS_OBJECT_NAMES:
            out[task_id] = []
            continue
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
