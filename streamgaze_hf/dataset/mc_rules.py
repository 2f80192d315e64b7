"""The multiple-choice row rules every benchmark's rows pass before they are written.

Option count, distinct non-empty options, the answer letter among them, ``answer_text`` agreeing with
it, and no checkpoints. Returns a list of problems (empty = valid), so importers can report and skip
while generators can assert. Each benchmark adds its own rules on top (StreamGaze:
``benchmarks/streamgaze/qa/validate.py``; EgoGazeVQA and StreamEQA: their ``schema.py``).
"""

from __future__ import annotations

from .schema import LETTERS


def normalise_option(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def validate_mc_options(row: dict, min_options: int) -> list[str]:
    problems = []
    options = list(row.get("options") or [])
    if len(options) < min_options:
        problems.append(f"{len(options)} options, need at least {min_options}")
    if len(options) > len(LETTERS):
        problems.append(f"{len(options)} options, more than {len(LETTERS)} letters")
    norm = [normalise_option(o) for o in options]
    if any(not n for n in norm):
        problems.append("empty option text")
    if len(set(norm)) != len(norm):
        dup = sorted({o for o in norm if norm.count(o) > 1})
        problems.append(f"duplicate options: {', '.join(dup)}")
    ans = row.get("answer", "")
    if not (len(ans) == 1 and ans in LETTERS[:len(options)]):
        problems.append(f"answer {ans!r} is not among the option letters A-{LETTERS[max(len(options), 1) - 1]}")
    elif row.get("answer_text") and normalise_option(row["answer_text"]) != norm[LETTERS.index(ans)]:
        problems.append(f"answer_text {row['answer_text']!r} differs from option {ans}")
    if row.get("checkpoints"):
        problems.append("multiple-choice question with checkpoints")
    return problems
