"""Past tasks (paper §4.2.1, appendix A.4.1-A.4.4): window [0, t], answers from what happened by t.

Query times are episode *ends*, so the whole episode a question is about lies inside the window, and
answers and distractors are drawn only from episodes that ended by the query time (the reference drew
them from the whole video, bugs 12-13).
"""

from __future__ import annotations

import random

from .common import cap_rows, fmt_time, mc_row, object_group, pick
from .context import VideoContext

GROUP_SIZE = 2  # objects shown per scanpath group


def _group(ep) -> tuple[str, ...]:
    return tuple(ep.fov[:GROUP_SIZE])


def generate_nfi(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Non-fixated object identification: which object was visible but never fixated by t?"""
    rows = []
    gazed: dict[str, None] = {}
    for k, ep in enumerate(ctx.episodes):
        if ep.gazed:
            gazed.setdefault(ep.gazed, None)
        if len(gazed) < 3:
            continue
        t = ep.end
        never = [o for o in ctx.seen_until(t) if not ctx.fixated_before(o, t)]
        if not never:
            continue
        answer = sorted(never)[rng.randrange(len(never))]
        distractors = pick(rng, gazed, 3)
        question = "Which of these objects was in view but never looked at by the user so far?"
        rows.append(mc_row(ctx, "nfi", question, answer, distractors, t, rng,
                           {"answer_object": answer, "episode": k}))
    return cap_rows(rows, cap, rng)


def generate_otp(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Object transition: after looking at group i, which object did the user look at next?"""
    rows = []
    eps = ctx.episodes
    successor: dict[str, set[str]] = {}
    for k in range(len(eps) - 1):
        a, b = eps[k], eps[k + 1]
        if not a.gazed or not b.gazed or b.gazed in a.fov:
            continue
        successor.setdefault(a.gazed, set()).add(b.gazed)
        if len(successor[a.gazed]) > 1:
            continue  # the same group was followed by different objects before t: ambiguous
        t = b.end
        group = _group(a)
        pool = [o for o in ctx.seen_until(t) if o not in a.fov and o != b.gazed]
        distractors = pick(rng, pool, 3)
        if distractors is None:
            continue
        question = f"After looking at the {object_group(group)}, which object did the user look at next?"
        rows.append(mc_row(ctx, "otp", question, b.gazed, distractors, t, rng,
                           {"object_group": list(group), "answer_object": b.gazed,
                            "group_time": [a.start, a.end], "answer_time": [b.start, b.end]}))
    return cap_rows(rows, cap, rng)


def _seq(groups) -> str:
    return " → ".join(object_group(g) for g in groups)


def generate_gsm(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Gaze sequence matching: which sequence matches the user's three most recent gaze targets?"""
    rows = []
    eps = [e for e in ctx.episodes if e.gazed]
    for k in range(2, len(eps)):
        trio = [_group(e) for e in eps[k - 2:k + 1]]
        if len(set(trio)) < 3:
            continue
        t = eps[k].end
        pool_groups = sorted({_group(e) for e in eps[:k + 1]})
        correct = _seq(trio)
        negatives: list[str] = []
        perms = [[trio[i] for i in p] for p in ((1, 0, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1))]
        shuffled = perms[rng.randrange(len(perms))]
        negatives.append(_seq(shuffled))
        for _ in range(50):
            if len(negatives) == 3:
                break
            cand = rng.sample(pool_groups, 3) if len(pool_groups) >= 3 else None
            if cand is None:
                break
            overlap = sum(c == g for c, g in zip(cand, trio))
            s = _seq(cand)
            if overlap <= 1 and s != correct and s not in negatives:
                negatives.append(s)
        if len(negatives) < 3:
            continue
        question = "Which sequence matches the order of the user's three most recent gaze targets?"
        rows.append(mc_row(ctx, "gsm", question, correct, negatives, t, rng,
                           {"correct_sequence": [list(g) for g in trio],
                            "sequence_time": [eps[k - 2].start, t]}))
    return cap_rows(rows, cap, rng)


def generate_sr(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Scene recall: while the user looked at X, which background object was NOT visible?"""
    rows = []
    eps = ctx.episodes
    for k, ep in enumerate(eps):
        if not ep.gazed or len(ep.out) < 3:
            continue
        last = min(k + 2, len(eps) - 1)
        t = eps[last].end
        during = set(ep.fov) | set(ep.out)
        pool = [o for o in ctx.seen_until(t) if o not in during and not ctx.seen_during(o, ep.start, ep.end)]
        if not pool:
            continue
        answer = sorted(pool)[rng.randrange(len(pool))]
        distractors = pick(rng, ep.out, 3)
        same = [e for e in eps[:last + 1] if e.gazed == ep.gazed]
        when = f" (around {fmt_time(ep.start)})" if len(same) > 1 else ""
        question = f"While the user was looking at the {ep.gazed}{when}, which of these objects was NOT visible?"
        rows.append(mc_row(ctx, "sr", question, answer, distractors, t, rng,
                           {"gazed_object": ep.gazed, "episode_time": [ep.start, ep.end],
                            "background_objects": list(ep.out), "answer_object": answer}))
    return cap_rows(rows, cap, rng)
