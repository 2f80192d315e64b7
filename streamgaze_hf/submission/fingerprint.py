"""What makes two submissions the same run: their raw responses.

:func:`responses_digest` is the sha256 of a submission's benchmark and raw responses (question id -> response,
per checkpoint for a proactive task), in a canonical JSON form: parsed answers, scores, settings, model fields
and the file's layout do not count. Two files with equal digests hold the same responses to the same questions,
whatever their model name or the dataset reference they were made with; the leaderboard keeps the first one
(``push-submission`` and ``leaderboard sync`` refuse the second, naming the row it repeats) and the static site
refuses a second file of the same responses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["responses_digest"]


def _raw(value: Any) -> Any:
    """An ``answers`` subtree with each ``{"response": ..., "parsed": ...}`` leaf replaced by its response."""
    if isinstance(value, Mapping):
        if "response" in value and set(value) <= {"response", "parsed"}:
            return value["response"]
        return {str(k): _raw(v) for k, v in value.items()}
    return value


def responses_digest(sub: Mapping[str, Any]) -> str:
    """The sha256 (hex) of ``sub``'s benchmark and raw responses (the module docstring)."""
    from .schema import submission_benchmark

    body = {"benchmark": submission_benchmark(sub).name, "answers": _raw(sub.get("answers") or {})}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
