"""Shared pieces of QA generation: per-task seeded RNGs, option assembly, row construction."""

from __future__ import annotations

import hashlib
import math
import random

from ....dataset import dump_metadata, letter
from ..tasks import get_task, window
from .context import VideoContext


def empty_qa_row() -> dict:
    """A QA row of ``schema.QA_FEATURES`` with every field empty ("" / [] / NaN)."""
    return {"question_id": "", "task": "", "category": "", "video_id": "", "source": "", "video_path": "",
            "overlay_path": "", "question": "", "options": [], "answer": "", "answer_text": "",
            "query_time": math.nan, "window_start": math.nan, "window_end": math.nan, "checkpoints": [],
            "fixations": [], "metadata": "{}"}


def task_rng(seed: int, video_id: str, task_id: str) -> random.Random:
    """An RNG per (seed, video, task): results never depend on processing order (reference bug 31)."""
    digest = hashlib.sha256(f"{seed}:{video_id}:{task_id}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def pick(rng: random.Random, pool, k: int) -> list[str] | None:
    """k distinct items from a pool (order of the pool is made canonical first); None if too few."""
    items = sorted(dict.fromkeys(pool))
    if len(items) < k:
        return None
    return rng.sample(items, k)


def fmt_time(t: float) -> str:
    t = int(t)
    return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}" if t >= 3600 else f"{t // 60:02d}:{t % 60:02d}"


def object_group(names) -> str:
    return "{" + ", ".join(names) + "}"


def question_id(task_id: str, video_id: str, *parts) -> str:
    h = hashlib.sha1("|".join([task_id, video_id, *map(str, parts)]).encode()).hexdigest()[:10]
    return f"{task_id}-{video_id}-{h}"


def base_row(ctx: VideoContext, task_id: str, question: str, query_time: float, extras: dict) -> dict:
    spec = get_task(task_id)
    row = empty_qa_row()
    row.update({
        "task": task_id, "category": spec.category, "video_id": ctx.video_id, "source": ctx.source,
        "video_path": f"videos/original/{ctx.video_id}.mp4", "overlay_path": f"videos/overlay/{ctx.video_id}.mp4",
        "question": question, "query_time": round(float(query_time), 3), "metadata": dump_metadata(extras),
    })
    return row


def mc_row(ctx: VideoContext, task_id: str, question: str, answer: str, distractors: list[str],
           query_time: float, rng: random.Random, extras: dict | None = None) -> dict:
    """A multiple-choice row: options shuffled with ``rng``, answer letter, window from the task rule."""
    options = [answer, *distractors]
    rng.shuffle(options)
    row = base_row(ctx, task_id, question, query_time, extras or {})
    ws, we = window(task_id, row["query_time"])
    row.update({
        "question_id": question_id(task_id, ctx.video_id, question, answer, row["query_time"]),
        "options": options, "answer": letter(options.index(answer)), "answer_text": answer,
        "window_start": ws, "window_end": we, "fixations": ctx.fixation_list(ws, we),
    })
    return row


def proactive_row(ctx: VideoContext, task_id: str, question: str, query_time: float,
                  checkpoints: list[tuple[float, bool]], extras: dict | None = None) -> dict:
    row = base_row(ctx, task_id, question, query_time, extras or {})
    cps = [{"time": round(float(t), 3), "label": "Yes" if y else "No"} for t, y in checkpoints]
    end = cps[-1]["time"]
    row.update({
        "question_id": question_id(task_id, ctx.video_id, question, row["query_time"]),
        "answer_text": "", "checkpoints": cps, "window_start": 0.0, "window_end": end,
        "fixations": ctx.fixation_list(0.0, end),
    })
    return row


def cap_rows(rows: list[dict], cap: int, rng: random.Random) -> list[dict]:
    """At most ``cap`` rows per video, spread over the video (a seeded sample, kept in time order)."""
    if len(rows) <= cap:
        return rows
    keep = sorted(rng.sample(range(len(rows)), cap))
    return [rows[i] for i in keep]
