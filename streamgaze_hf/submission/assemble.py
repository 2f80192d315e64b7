"""A submission assembled from raw responses: each answer with its parsed value and the scores
recomputed against the answer key, checked against the schema (shared by ``submit`` of an lmms-eval
run, :mod:`.build`, and of a ``stream-eval`` run, a benchmark's streaming module: StreamGaze's
``benchmarks/streamgaze/streaming/stream_run.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .. import __version__
from ..evaluation import submission_settings
from ..hub.reference import dataset_origin
from ..util.errors import StreamGazeError
from ..util.provenance import toolkit_commit
from .answer_key import AnswerKey, ItemKey, Rescored, score_responses
from .schema import SCHEMA_VERSION, check_structure
from .strictjson import StrictJSONError

__all__ = ["ORACLE_MODELS", "ORACLE_CLASS", "is_oracle", "assemble_submission"]

#: lmms-eval model ids that read the answer key: never on the leaderboard
ORACLE_MODELS = frozenset({"streamgaze_oracle"})
#: the class of the answer-key oracle (lmms_tasks/models.py), under whatever model id it is registered
ORACLE_CLASS = "OracleBaseline"


def is_oracle(run: Mapping[str, Any]) -> bool:
    """The oracle rule, the one place it is written: whether a run is the answer-key oracle (never ranked).

    ``run``: a submission's ``run`` block, or a run record of the same shape (``model``: the lmms-eval model id;
    ``model_backend``: the backend class lmms-eval names in its results' config, where known). It is the oracle
    when its model id is an oracle id, or when its model id or backend class names the oracle's class (the
    oracle registered under another id)."""
    model = str(run.get("model") or "")
    return model in ORACLE_MODELS or any(ORACLE_CLASS in str(run.get(f) or "") for f in ("model", "model_backend"))


def assemble_submission(key: AnswerKey, responses: Mapping[ItemKey, str], *, prompt_mode: str, clip_fps: float,
                        model: Mapping[str, str], run: Mapping[str, Any], protocol: str = "default") -> dict:
    """A complete submission from raw responses (item -> raw response): the answers with their
    parsed values and the scores recomputed against ``key``.

    ``model`` = {name, url, params, frames}; ``run`` = {harness, harness_version, model, model_args,
    date, limit}. Raises :class:`StreamGazeError` when the result would not pass ``validate``'s
    structural check (e.g. an empty model name or a non-http URL).
    """
    rescored = score_responses(key, responses, prompt_mode, clip_fps)
    return _assemble(key, rescored, {"prompt_mode": prompt_mode, "clip_fps": clip_fps, "protocol": protocol},
                     model=model, run=run)


def _assemble(key: AnswerKey, rescored: Rescored, settings: Mapping[str, Any], *, model: Mapping[str, str],
              run: Mapping[str, Any]) -> dict:
    """The submission (``settings``: the run's recorded settings, name -> value: ``recorded.submission_settings``
    writes them)."""
    answers: dict[str, dict] = {}
    checkpointed = set(key.bench.checkpointed_ids())
    for task_id in key.docs:
        per_checkpoint = task_id in checkpointed
        by_q: dict[str, Any] = {}
        for rec in rescored.records[task_id]:
            if rec.get("missing"):
                continue
            entry = {"response": rec["response"], "parsed": rec["parsed"]}
            if per_checkpoint:
                by_q.setdefault(rec["question_id"], {})[str(rec["checkpoint_index"])] = entry
            else:
                by_q[rec["question_id"]] = entry
        if by_q:
            answers[task_id] = by_q
    sub = {
        "schema_version": SCHEMA_VERSION,
        "toolkit_version": __version__,
        "toolkit_commit": toolkit_commit(),
        "benchmark": key.benchmark,
        "dataset": {"version": key.version, "manifest_sha256": key.manifest_sha256, **dataset_origin(key.root)},
        "settings": submission_settings(key.bench, key.gaze, settings),
        "model": {f: str(model.get(f) or "") for f in ("name", "url", "params", "frames")},
        "run": dict(run),
        "answers": answers,
        "scores": rescored.scores,
    }
    try:
        check_structure(json.loads(json.dumps(sub)))
    except StrictJSONError as exc:
        raise StreamGazeError(f"cannot build a valid submission: {exc}") from None
    return sub
