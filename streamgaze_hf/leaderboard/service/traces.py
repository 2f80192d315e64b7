"""The traces of accepted rows: every per-sample response, its parsed answer and its score, in the results
dataset, so anyone can check a number.

One parquet file per accepted row, ``traces/<benchmark>/pr-<NNNNNN>.parquet`` (:func:`traces_path`), written by
the sync in the same results commit as the row and never rewritten (a pull request number is one row). The card
declares one config per benchmark over its files, ``<benchmark>_traces``, so
``load_dataset("ORG/RESULTS", "streamgaze_traces", split="train")`` loads every row's traces (``pr_number``
tells the rows apart) and ``load_dataset("ORG/RESULTS", data_files="traces/streamgaze/pr-000003.parquet")`` one
row's. A row's ``traces_url`` (:func:`traces_url`: the file on the Hub) is linked from the row on every page and
is the ``source.url`` of the model's ``.eval_results`` entry.

Columns (:data:`SCHEMA`): ``pr_number``; ``task``, ``question_id``, ``checkpoint_index`` (-1: a question without
checkpoints), the item; ``response``, the model's raw response ("" when it gave none); ``parsed``, the parsed
answer as JSON (``null``: unparsed); ``correct`` (null where the task scores otherwise, e.g. a BLEU score);
``missing`` (no response: scored as wrong); ``record``, the whole per-sample record of the benchmark's
``score_doc`` as JSON (every per-sample score: ``bleu``, ``rouge_l``, ...); ``frames_sha256``, for a row the
leaderboard evaluated itself with a frame spec, the digest of the document's model-ready frames
(``evaluation/frame_digest.py``: re-deriving them from the dataset revision and the row's settings gives the same
digest), else "". They are the records the sync
re-scored the row from, in the order of the answer key: scoring the responses again against the dataset
revision the row names gives the row's numbers.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence

__all__ = ["TRACES_DIR", "SCHEMA_FIELDS", "traces_path", "traces_url", "trace_rows", "traces_parquet",
           "traces_config", "traces_glob", "frames_path", "with_frames"]

TRACES_DIR = "traces"
#: the columns of a traces file, in order (name, arrow type name)
SCHEMA_FIELDS = (("pr_number", "int64"), ("task", "string"), ("question_id", "string"), ("checkpoint_index", "int64"),
                 ("response", "string"), ("parsed", "string"), ("correct", "bool_"), ("missing", "bool_"),
                 ("record", "string"), ("frames_sha256", "string"))
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def traces_path(benchmark: str, pr_number: int) -> str:
    """Where one accepted row's traces lie in the results repository."""
    return f"{TRACES_DIR}/{benchmark}/pr-{int(pr_number):06d}.parquet"


def traces_glob(benchmark: str) -> str:
    return f"{TRACES_DIR}/{benchmark}/*.parquet"


def traces_config(benchmark: str) -> str:
    """The results dataset's config of a benchmark's traces."""
    return f"{benchmark}_traces"


def traces_url(results: str, benchmark: str, pr_number: int) -> str:
    """The address of one row's traces file on the Hub (the endpoint this process talks to)."""
    from huggingface_hub import constants

    return f"{constants.ENDPOINT.rstrip('/')}/datasets/{results}/resolve/main/{traces_path(benchmark, pr_number)}"


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def trace_rows(records: Mapping[str, Sequence[Mapping]]) -> list[dict]:
    """The traces of one re-scored submission (task id -> its per-sample records, the answer key's order), as
    plain JSON (``pr_number`` is set when the row is written, ``frames_sha256`` by :func:`with_frames`)."""
    out = []
    for task, recs in records.items():
        for rec in recs:
            correct = rec.get("correct")
            out.append({"task": str(rec.get("task", task)), "question_id": str(rec["question_id"]),
                        "checkpoint_index": int(rec.get("checkpoint_index", -1)),
                        "response": str(rec.get("response") or ""), "parsed": _json(rec.get("parsed")),
                        "correct": None if correct is None else bool(correct), "missing": bool(rec.get("missing")),
                        "record": _json(rec), "frames_sha256": ""})
    return out


def frames_path(responses_path: str) -> str:
    """Where the leaderboard's job puts the frame digests of its run, beside its responses
    (``evaluations/.../<timestamp>.json`` -> ``<timestamp>.frames.json``)."""
    return responses_path.removesuffix(".json") + ".frames.json"


def with_frames(rows: list[dict], data: bytes) -> list[dict]:
    """``rows`` with each document's frame digest from a job's frames file (``evaluation/frame_digest.py``:
    ``<task>/<question id>/<checkpoint index>`` -> sha256); entries that are not a digest are left out."""
    from ...evaluation import item_name

    digests = json.loads(data.decode("utf-8"))
    if not isinstance(digests, dict):
        return rows
    for r in rows:
        digest = digests.get(item_name(r["task"], r["question_id"], r["checkpoint_index"]))
        r["frames_sha256"] = digest if isinstance(digest, str) and _HEX64.match(digest) else ""
    return rows


def traces_parquet(pr_number: int, rows: Sequence[Mapping]) -> bytes:
    """One row's traces file (deterministic bytes for the same rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([pa.field(name, getattr(pa, kind)()) for name, kind in SCHEMA_FIELDS])
    table = pa.Table.from_pylist([{**r, "pr_number": int(pr_number)} for r in rows], schema=schema)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()
