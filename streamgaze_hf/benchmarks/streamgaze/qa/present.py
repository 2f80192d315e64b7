"""Present tasks (paper §4.2.2, appendix A.4.5-A.4.7): window [max(0, t - 60), t].

OI and OAR ask about the object under the gaze *at* the query time: t is a moment inside the
episode's longest fixation where the gaze has been steady for a while (the reference asked at the
episode start, so the clip ended before the fixation, bug 12). FAP asks at the end of an episode
about the next action, which starts after t.
"""

from __future__ import annotations

import random

from .common import cap_rows, mc_row, pick
from .context import VideoContext

ATTRIBUTE_QUESTIONS = {
    "color": "What color is the object the user is looking at?",
    "material": "What material is the object the user is looking at made of?",
    "shape": "What shape is the object the user is looking at?",
    "texture": "What is the surface pattern of the object the user is looking at?",
    "state": "What is the state of the object the user is looking at?",
    "size": "What size is the object the user is looking at?",
}
FAP_MIN_GAP_S, FAP_MAX_GAP_S = 1.0, 60.0


def _query_moments(ctx: VideoContext) -> list[tuple[int, float]]:
    """(episode index, query time) for every episode with a gazed object and a steady moment."""
    out = []
    for k, ep in enumerate(ctx.episodes):
        if not ep.gazed:
            continue
        longest = max(ep.fixations, key=lambda i: ctx.fixations[i].duration)
        if ctx.objects.per_fixation[longest].gazed != ep.gazed:
            continue
        t = ctx.stable_time_in(longest)
        if t is not None:
            out.append((k, t))
    return out


def generate_oi(ctx: VideoContext, rng: random.Random, cap: int, hard: bool) -> list[dict]:
    """Object identification. Easy: distractors are objects *not* in view at t. Hard: distractors
    are objects in view at t but outside the FOV."""
    task = "oi_hard" if hard else "oi_easy"
    rows = []
    all_objects = sorted({o for ep in ctx.episodes for o in ep.fov + ep.out})
    for k, t in _query_moments(ctx):
        ep = ctx.episodes[k]
        in_view = [o for o in all_objects if ctx.visible_at(o, t)]
        if hard:
            pool = [o for o in ep.out if o not in ep.fov and ctx.visible_at(o, t) is not False]
        else:
            pool = [o for o in all_objects if o not in ep.fov and o not in in_view]
        distractors = pick(rng, pool, 3)
        if distractors is None:
            continue
        question = "What object is the user looking at right now?"
        rows.append(mc_row(ctx, task, question, ep.gazed, distractors, t, rng,
                           {"object": ep.gazed, "episode_time": [ep.start, ep.end]}))
    return cap_rows(rows, cap, rng)


def generate_oar(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Object attribute recognition: an attribute of the gazed object; distractors are other values
    of the same attribute."""
    rows = []
    vocab = ctx.objects.attribute_vocabulary
    for k, t in _query_moments(ctx):
        ep = ctx.episodes[k]
        attrs = ctx.objects.attributes.get(ep.gazed, {})
        kinds = [a for a in ATTRIBUTE_QUESTIONS if a in attrs and len(set(vocab.get(a, [])) - {attrs[a]}) >= 3]
        if not kinds:
            continue
        kind = kinds[rng.randrange(len(kinds))]
        answer = attrs[kind]
        distractors = pick(rng, [v for v in vocab[kind] if v != answer], 3)
        rows.append(mc_row(ctx, "oar", ATTRIBUTE_QUESTIONS[kind], answer, distractors, t, rng,
                           {"object": ep.gazed, "attribute_type": kind}))
    return cap_rows(rows, cap, rng)


FAP_MIN_LABELS = 4  # a question's options are four distinct action labels of the video


def fap_unavailable(actions) -> str | None:
    """Why a recording's action timeline cannot give FAP questions (None when it can): the build report
    names every recording this skips the task for."""
    labels = {a.label for a in actions}
    if not labels:
        return "no action labels (add actions.csv beside the recording, or mark events while recording)"
    if len(labels) < FAP_MIN_LABELS:
        return f"{len(labels)} distinct action label(s); the task's options need {FAP_MIN_LABELS}"
    return None


def generate_fap(ctx: VideoContext, rng: random.Random, cap: int) -> list[dict]:
    """Future action prediction from the recent fixation pattern (up to 3 gazed objects). Without any object
    names (``--objects none``) every look counts and the question names no objects (the overlay shows the
    pattern): one question per coming action, at the first look it follows by 1 to 60 s."""
    rows = []
    if fap_unavailable(ctx.actions) is not None:
        return []
    labels = sorted({a.label for a in ctx.actions})
    named = any(ep.gazed for ep in ctx.episodes)  # no object names at all (build --objects none): every look counts
    seen_contexts = set()
    for k, ep in enumerate(ctx.episodes):
        if named and not ep.gazed:
            continue
        t = ep.end
        nxt = next((a for a in ctx.actions if a.start > t + 1e-9), None)
        if nxt is None or not (FAP_MIN_GAP_S <= nxt.start - t <= FAP_MAX_GAP_S):
            continue
        context: list[str] = []
        for e in ctx.episodes[:k + 1]:
            if e.gazed and (not context or context[-1] != e.gazed) and e.end >= t - 60:
                context.append(e.gazed)
        context = context[-3:]
        key = (tuple(context), nxt.label) if named else (nxt.start, nxt.label)  # unnamed: one per coming action
        if key in seen_contexts:
            continue
        seen_contexts.add(key)
        # Distractors: other actions of the video, not the one happening next or soon after.
        soon = {a.label for a in ctx.actions if t < a.start <= nxt.start + FAP_MAX_GAP_S}
        distractors = pick(rng, [lb for lb in labels if lb not in soon], 3)
        if distractors is None:
            continue
        pattern = f" ({' → '.join(context)})" if context else ""
        question = f"Based on the recent fixation pattern{pattern}, what will the user do next?"
        rows.append(mc_row(ctx, "fap", question, nxt.label, distractors, t, rng,
                           {"answer_action": nxt.label, "context_objects": context,
                            "action_time": [nxt.start, nxt.end]}))
    return cap_rows(rows, cap, rng)
