"""The submission file format (``schema_version`` 2) and its structural check.

A submission is one JSON object::

    {
      "schema_version": 2,
      "toolkit_version": "0.1.0",                       # streamgaze-toolkit that wrote it ...
      "toolkit_commit": "<git sha>[+dirty]" | "",       # ... and its commit (optional; "" = unknown)
      "benchmark": "streamgaze",                        # a registered benchmark (optional: see below)
      "dataset": {"version": "0.1.0", "manifest_sha256": "<64 hex>"},
      "settings": {"gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0,    # 0 = no cap
                   "protocol": "default"},                  # frame sampling/generation (protocols.py);
                                                            # "proxy": "2fps-448px" when the model got proxy clips;
                                                            # "model_ready": "<wrapper spec>" when the clips
                                                            # held the wrapper's frames (model_frames.py); each
                                                            # benchmark's own recorded settings; every field
                                                            # declared once: evaluation/recorded.py
      "model": {"name": "...", "url": "https://...", "params": "7B", "frames": "32"},
      "run": {"harness": "lmms-eval", "harness_version": "...", "model": "<lmms-eval model id>",
              "model_args": "<secrets redacted>", "date": "20250101_120000", "limit": null,
              "toolkit_version": "0.1.0", "toolkit_commit": "...",    # the toolkit that ran the tasks,
              "lmms_eval_version": "0.7.3", "datasets_version": "5.2.0",  # lmms-eval and datasets
                                                                       # installed there (from the samples; optional)
              "video_read_s": 12.3, "video_read_share": 0.02,        # the wrapper's time reading video: total,
              "video_read_median_ms": 9.5},                           # share of the run, median a question
                                                                       # (streamgaze eval measures it; optional)
                                                        # harness "official-evaluator": import-official-results
      "answers": {                                      # only what the run answered
        "<mc task id>": {"<question_id>": {"response": "<raw>", "parsed": "B" | null}},
        "<checkpointed task id>": {"<question_id>": {"<checkpoint index>": {"response": "<raw>",
                                                                             "parsed": "Yes" | "No" | null}}}
      },
      "scores": {                                       # recomputed by `validate`, never trusted
        "overall": f, "past": f, "present": f, "proactive": f,
        "coverage": {"answered": n, "expected": n, "fraction": f},
        "tasks": {"<task id>": {"accuracy": f, ..., "n": n, "n_missing": n, ...}}
      },
      "streaming": {                                    # optional: `stream-eval` runs (run.harness
        "fps": 0.0, "poll": "checkpoints",              #  "streamgaze-stream") only
        "alerts": {"gta" | "oaa": {"<question_id>": [alert stream times, s]}},
        "scores": {"gta" | "oaa": {...}},               # recomputed by `validate` (streaming/metrics.py, timing.py)
        "realtime": {                                   # optional: `stream-eval --realtime` (streaming/clock.py)
          "seconds_per_call": 3.0 | null, "stream_seconds": f, "looks": n, "call_seconds": [s, ...],
          "alerts": {"gta" | "oaa": {"<question_id>": [alert delivery times under the clock, s]}},
          "scores": {"rtf": f, "response_seconds": {...}, "streaming": {...}}   # recomputed by `validate`
        }
      }
    }

Scores are fractions in [0, 1]; a checkpoint ratio with an empty denominator (e.g. the precision of a
model that never says Yes) is ``null``: undefined, never 0 or 1. Every object is closed: an unknown
field is an error. ``lmms-eval`` reports its own git branch and commit from the directory it runs in,
which is not lmms-eval's: the toolkit's version and commit have their own fields.

**Benchmarks.** ``benchmark`` names the registered benchmark (``streamgaze_hf.registry``) whose
dataset the submission was made on; ``dataset.version`` and ``dataset.manifest_sha256`` are that
dataset's. The field is optional (it was added within schema_version 1): files written before it existed
have none and are the default benchmark's (StreamGaze's) submissions, read exactly as before. The layout above is StreamGaze's. Any
other benchmark's submission has the same top-level fields (no ``streaming``), with:

* ``settings.gaze`` / ``settings.prompt_mode``: one of that benchmark's gaze modes and prompt modes;
* ``answers``: its task ids (a task declared ``checkpointed`` is keyed by checkpoint as above), and
  ``parsed`` is whatever its ``score_doc`` parsed (a string, a number, a list of them, or null);
* ``scores`` (recomputed by ``validate``)::

      {"overall": x | null, "columns": {"<leaderboard column>": x | null},   # the benchmark's units
       "coverage": {...as above...},
       "tasks": {"<task id>": {<its task_metrics>, "n": n, "n_missing": n}},
       "breakdowns": {"<record field, e.g. source>": {"<value>": {<task_metrics>}}}}

  ``overall`` and ``columns`` are the benchmark's leaderboard values (the registry's
  ``LeaderboardLayout.columns`` and its evaluation module's ``leaderboard_scores`` hook): fractions for every
  accuracy or other ratio, in every benchmark; a column of another unit (VL4Gaze's degrees, L2, BLEU)
  as declared; ``tasks`` and ``breakdowns`` hold ``task_metrics`` (fractions).

**Versions.** ``schema_version`` 2 (this toolkit) stores every ratio as a fraction. Version 1 files are
still read: they are the same but for the columns declared with ``legacy_unit="percent"``
(EgoGazeVQA's and StreamEQA's accuracies, stored in percent), which :func:`upgrade` converts to fractions
when the file is read, so a version 1 file validates unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from ..evaluation import submission_fields
from ..registry import Benchmark, benchmarks, default_benchmark, get_benchmark
from .strictjson import (
    StrictJSONError,
    check_object,
    describe_type,
    is_int,
    is_number,
    loads_strict,
    nullable,
    number,
    obj,
    one_of,
    string,
)

__all__ = ["SCHEMA_VERSION", "READABLE_VERSIONS", "MAX_SUBMISSION_BYTES", "upgrade", "parse_submission", "check_structure", "valid_url",
           "submission_benchmark"]

SCHEMA_VERSION = 2
#: the versions this toolkit reads (1: percent columns, converted by :func:`upgrade`)
READABLE_VERSIONS = (1, 2)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_CHECKPOINT_KEY = re.compile(r"^(0|[1-9][0-9]{0,5})$")
_URL = re.compile(r"^https?://[^\s<>\"']+$", re.I)
MAX_NAME = 200
#: the largest submission file read (checked before reading; a full StreamGaze run with long responses is a
#: few MB): one limit for ``validate``, the leaderboard and the service on the Hub
MAX_SUBMISSION_BYTES = 32 * 1024 * 1024


def valid_url(url: str) -> bool:
    """An http(s) URL without whitespace or quotes (the only links the leaderboard renders)."""
    return bool(_URL.match(url))


def _sha256(v: Any) -> str | None:
    return None if isinstance(v, str) and _SHA256.match(v) else "a sha256 hex digest (64 lower-case hex digits)"


def _url(v: Any) -> str | None:
    if not isinstance(v, str):
        return "a string"
    return None if v == "" or (len(v) <= 2000 and valid_url(v)) else "empty or an http(s) URL"


def _share(v: Any) -> str | None:
    return None if is_number(v) and 0 <= v <= 1 else "a number from 0 to 1"


def _schema_version(v: Any) -> str | None:
    return None if is_int(v) else "an integer"


def _benchmark_names() -> tuple[str, ...]:
    return tuple(b.name for b in benchmarks())


def _benchmark(v: Any) -> str | None:
    names = _benchmark_names()
    return None if isinstance(v, str) and v in names else f"one of {', '.join(map(repr, names))}"


def submission_benchmark(data: dict) -> Benchmark:
    """The benchmark a (structurally checked) submission is for: its ``benchmark``, else (a file made before
    submissions named theirs) the default benchmark."""
    name = data.get("benchmark")
    return get_benchmark(str(name)) if name else default_benchmark()


def _json_value(v: Any) -> str | None:
    """A parsed answer of another benchmark: a string, number, boolean, null, or a list of them."""
    scalar = (str, int, float, bool, type(None))
    if isinstance(v, scalar) or (isinstance(v, list) and len(v) <= 1000 and all(isinstance(x, scalar) for x in v)):
        return None if not isinstance(v, str) or len(v) <= 100_000 else "a string of at most 100000 characters"
    return "a string, a number, null or a list of them"


TOP_FIELDS = {"schema_version": _schema_version, "toolkit_version": string(100), "toolkit_commit": string(100),
              "benchmark": _benchmark, "dataset": obj, "settings": obj, "model": obj, "run": obj, "answers": obj,
              "scores": obj, "streaming": obj}
TOP_OPTIONAL = frozenset({"toolkit_commit", "streaming", "benchmark"})
DATASET_FIELDS = {"version": string(100, nonempty=True), "manifest_sha256": _sha256, "repo": string(200),
                  "commit": string(40)}
# where a dataset read from the Hub came from (hf://datasets/<repo>@<commit>); absent for local directories
DATASET_OPTIONAL = frozenset({"repo", "commit"})
MODEL_FIELDS = {"name": string(MAX_NAME, nonempty=True), "url": _url, "params": string(50), "frames": string(50)}
RUN_FIELDS = {"harness": one_of("lmms-eval", "official-evaluator", "streamgaze-stream"), "harness_version": string(200), "model": string(200),
              "model_args": string(5000), "date": string(100), "limit": nullable(number(0)),
              "toolkit_version": string(100), "toolkit_commit": string(100), "lmms_eval_version": string(100),
              "datasets_version": string(100), "video_read_s": number(0), "video_read_share": _share,
              "video_read_median_ms": number(0)}
# video_read_*: how long the model wrapper spent reading video (streamgaze eval measures it:
# harness/video_time.py): the total, its share of the run, the median per question; absent where not measured
RUN_OPTIONAL = frozenset({"toolkit_version", "toolkit_commit", "lmms_eval_version", "datasets_version",
                          "video_read_s", "video_read_share", "video_read_median_ms"})
MC_ANSWER_FIELDS = {"response": string(100_000), "parsed": nullable(string(100_000))}
YES_NO_ANSWER_FIELDS = {"response": string(100_000), "parsed": nullable(one_of("Yes", "No"))}
STREAMING_FIELDS = {"fps": number(0), "poll": string(50, nonempty=True), "alerts": obj, "scores": obj,
                    "realtime": obj}
# `stream-eval --realtime`: what re-scores the real-time clock (its alert times, every call's model seconds)
REALTIME_FIELDS = {"seconds_per_call": nullable(number(0)), "stream_seconds": number(0), "looks": number(0),
                   "call_seconds": lambda v: None if isinstance(v, list) and len(v) <= 5_000_000 else "a list",
                   "alerts": obj, "scores": obj}


def settings_fields(bench: Benchmark) -> tuple[dict, frozenset[str]]:
    """The ``settings`` fields of a submission of ``bench`` (each checked as its declaration says:
    ``evaluation.recorded``) and those of them a file may leave out (every one but the gaze mode and the
    ``required`` ones: a setting added later is absent from older files, and an optional one is absent when it
    has its default "")."""
    declared = {s.name: s for s in submission_fields(bench)}
    fields = {"gaze": one_of(*bench.gaze_variants.values())}
    for s in declared.values():
        allowed = s.allowed(bench)
        fields[s.name] = number(0) if s.number else one_of(*allowed) if allowed else string(s.max_len)
    return fields, frozenset(n for n, s in declared.items() if not s.required)


def has_own_layout(scores: dict) -> bool:
    """Whether a submission's ``scores`` are in its benchmark's own layout (a ``score_answers`` hook:
    StreamGaze's overall and category means as fractions, tasks, sources) rather than the shared one
    (``columns`` in the benchmark's paper units, ``overall``, tasks, breakdowns)."""
    return "columns" not in scores


def parse_submission(text: str) -> dict:
    """Parse and structurally check a submission (an older version converted: :func:`upgrade`); raises
    :class:`StrictJSONError` with the reason."""
    data = loads_strict(text)
    check_structure(data)
    return upgrade(data)


def upgrade(data: dict) -> dict:
    """A structurally checked submission of an older ``schema_version`` in this version's units: the
    ``scores.columns`` (and ``scores.overall``) of columns declared ``legacy_unit="percent"`` divided by
    100. Anything that is not a number is left for ``validate`` to reject."""
    if data.get("schema_version") != 1 or not isinstance(data.get("scores"), dict):
        return data
    scores = data["scores"]
    if has_own_layout(scores):
        return data
    bench = submission_benchmark(data)
    board = bench.leaderboard
    legacy = {c.key for c in (board.overall_column(), *board.score_columns()) if c.legacy_unit == "percent"}
    columns = scores.get("columns")
    if isinstance(columns, dict):
        for key in legacy & set(columns):
            if is_number(columns[key]):
                columns[key] = columns[key] / 100.0
    if "overall" in legacy and is_number(scores.get("overall")):
        scores["overall"] = scores["overall"] / 100.0
    return data


def check_structure(data: Any) -> None:
    """Types and closed field sets of every part of a submission (not its ids or scores' values)."""
    if not isinstance(data, dict):
        raise StrictJSONError(f"a submission must be a JSON object, got {describe_type(data)}")
    if ("schema_version" in data and is_int(data["schema_version"])
            and data["schema_version"] not in READABLE_VERSIONS):
        raise StrictJSONError(f"schema_version {data['schema_version']} is not supported "
                              f"(this toolkit reads schema_version {' and '.join(map(str, READABLE_VERSIONS))})")
    check_object(data, "", TOP_FIELDS, optional=TOP_OPTIONAL)
    check_object(data["dataset"], "dataset", DATASET_FIELDS, optional=DATASET_OPTIONAL)
    bench = submission_benchmark(data)
    fields, optional = settings_fields(bench)
    check_object(data["settings"], "settings", fields, optional=optional)
    if "streaming" in data and not bench.streaming:
        offered = " and ".join(f"{b.title}'s" for b in benchmarks() if b.streaming)
        raise StrictJSONError(f"streaming: stream-eval submissions are {offered} only, not {bench.name}'s")
    check_object(data["model"], "model", MODEL_FIELDS)
    check_object(data["run"], "run", RUN_FIELDS, optional=RUN_OPTIONAL)
    check_answers(data["answers"], bench)
    if "streaming" in data:
        check_streaming(data["streaming"], bench)


def check_streaming(streaming: dict, bench: Benchmark) -> None:
    """``streaming``: settings, alert times per question of a checkpointed task (finite, >= 0), scores (an
    object whose values ``validate`` recomputes)."""
    check_object(streaming, "streaming", STREAMING_FIELDS, optional=frozenset({"realtime"}))
    _check_alerts(streaming["alerts"], "streaming.alerts", bench)
    if "realtime" in streaming:
        rt = check_object(streaming["realtime"], "streaming.realtime", REALTIME_FIELDS)
        if any(number(0)(t) for t in rt["call_seconds"]):
            raise StrictJSONError("streaming.realtime.call_seconds must be a list of model seconds (numbers >= 0)")
        _check_alerts(rt["alerts"], "streaming.realtime.alerts", bench)


def _check_alerts(alerts: dict, where_all: str, bench: Benchmark) -> None:
    """Alert times per question of a checkpointed task (finite, >= 0)."""
    checkpointed = bench.checkpointed_ids()
    check_object(alerts, where_all, {t: obj for t in checkpointed}, duplicate_name="task",
                 optional=frozenset(checkpointed))
    for task_id, by_question in alerts.items():
        dups = getattr(by_question, "duplicates", [])
        if dups:
            raise StrictJSONError(f"duplicate question id {dups[0]!r} in {where_all}.{task_id}")
        for qid, times in by_question.items():
            where = f"{where_all}.{task_id}[{qid!r}]"
            if not qid or len(qid) > 500:
                raise StrictJSONError(f"{where_all}.{task_id}: a question id must be a non-empty string of at "
                                      "most 500 characters")
            if not isinstance(times, list) or len(times) > 100_000 or any(number(0)(t) for t in times):
                raise StrictJSONError(f"{where} must be a list of alert times (numbers >= 0)")


def check_answers(answers: dict, bench: Benchmark) -> None:
    """``answers``: task id -> question id -> answer (a checkpointed task: checkpoint index -> answer)."""
    task_ids, checkpointed = bench.task_ids, set(bench.checkpointed_ids())
    mc_fields = MC_ANSWER_FIELDS if bench.parsed_answers == "string" else {**MC_ANSWER_FIELDS, "parsed": _json_value}
    check_object(answers, "answers", {t: obj for t in task_ids}, duplicate_name="task",
                 optional=frozenset(task_ids))
    for task_id, by_question in answers.items():
        where = f"answers.{task_id}"
        per_checkpoint = task_id in checkpointed
        dups = getattr(by_question, "duplicates", [])
        if dups:
            raise StrictJSONError(f"duplicate question id {dups[0]!r} in {where}")
        for qid, entry in by_question.items():
            if not qid or len(qid) > 500:
                raise StrictJSONError(f"{where}: a question id must be a non-empty string of at most 500 characters")
            if not per_checkpoint:
                check_object(entry, f"{where}[{qid!r}]", mc_fields)
                continue
            if not isinstance(entry, dict):
                raise StrictJSONError(f"{where}[{qid!r}] must be an object of checkpoint index -> answer, "
                                      f"got {describe_type(entry)}")
            cp_dups = getattr(entry, "duplicates", [])
            if cp_dups:
                raise StrictJSONError(f"duplicate checkpoint {cp_dups[0]!r} of question {qid!r} in {where}")
            for cp, answer in entry.items():
                if not _CHECKPOINT_KEY.match(cp):
                    raise StrictJSONError(f"{where}[{qid!r}]: checkpoint key {cp!r} is not a checkpoint index "
                                          "(0, 1, 2, ...)")
                check_object(answer, f"{where}[{qid!r}][{cp!r}]", YES_NO_ANSWER_FIELDS)
