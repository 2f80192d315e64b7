"""The one reader of dataset files: parquet shards and JSON files.

Every command reads a dataset's files through these functions, so an unreadable, truncated or
schema-mismatched file is always the same :class:`~streamgaze_hf.util.errors.StreamGazeError` naming the
file and the cause (the CLI prints it as one line and exits 2), never a ``pyarrow`` or ``datasets``
traceback.

* :func:`read_parquet` — a parquet file as an arrow table (optionally some columns, row filters),
  checked against the expected ``datasets.Features``;
* :func:`parquet_rows` — a parquet file's row count from its footer (cheap), schema checked too;
* :func:`schema_problem` — how a file's schema differs from the expected features (``None`` if not);
* :func:`read_json` — a JSON file, parsed.

``dataset/load.py`` builds on them: ``check_dataset_files(root)`` opens every config's file (footer and
schema, no data) when a dataset root is resolved, before any other work.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features

from ..util.errors import StreamGazeError

#: what a reader may raise on a damaged file (pyarrow raises OSError subclasses and ArrowException)
_READ_ERRORS = (OSError, pa.ArrowException, ValueError)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def schema_problem(schema: pa.Schema, features: Features, columns: list[str] | None = None) -> str | None:
    """How ``schema`` (a file's arrow schema) differs from ``features`` (only ``columns`` when
    given): the first missing column, unexpected column or type difference; ``None`` when it fits."""
    expected = features.arrow_schema
    names = columns if columns is not None else expected.names
    for name in names:
        if name not in expected.names:
            return f"column {name!r} is not part of the schema"
        if name not in schema.names:
            return f"schema mismatch: column {name!r} is missing"
        found, want = schema.field(name).type, expected.field(name).type
        if not found.equals(want):
            return f"schema mismatch: column {name!r} has type {found}, expected {want}"
    if columns is None:
        extra = [n for n in schema.names if n not in expected.names]
        if extra:
            return f"schema mismatch: unexpected column {extra[0]!r}"
    return None


def _open(path: Path, what: str, features: Features | None, columns: list[str] | None) -> pq.ParquetFile:
    if not path.is_file():
        raise StreamGazeError(f"missing {what}: not a complete dataset", path)
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except _READ_ERRORS as exc:
        raise StreamGazeError(f"unreadable {what} (truncated or not parquet): {_reason(exc)}", path) from None
    if features is not None:
        problem = schema_problem(schema, features, columns)
        if problem:
            raise StreamGazeError(f"{what}: {problem}", path)
    return pf


def parquet_rows(path: str | os.PathLike[str], what: str = "parquet file", features: Features | None = None) -> int:
    """Rows of a parquet file, from its footer (no data read); the schema is checked when
    ``features`` is given."""
    return _open(Path(path), what, features, None).metadata.num_rows


def read_parquet(path: str | os.PathLike[str], what: str = "parquet file", features: Features | None = None,
                 columns: list[str] | None = None, filters: list | None = None) -> pa.Table:
    """A parquet file as an arrow table (``columns`` only, rows matching ``filters``), checked against
    ``features`` when given; StreamGazeError naming the file when it is missing, unreadable,
    truncated or of another schema."""
    path = Path(path)
    pf = _open(path, what, features, columns)
    try:
        if filters is None:
            table = pf.read(columns=columns)
        else:
            table = pq.read_table(path, columns=columns, filters=filters)
    except _READ_ERRORS as exc:
        raise StreamGazeError(f"unreadable {what} (damaged data): {_reason(exc)}", path) from None
    return table


def read_json(path: str | os.PathLike[str], what: str = "JSON file") -> Any:
    """A JSON file, parsed; StreamGazeError naming the file when it is missing, unreadable or not JSON."""
    path = Path(path)
    if not path.is_file():
        raise StreamGazeError(f"missing {what}", path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"unreadable {what}: {_reason(exc)}", path) from None
    except json.JSONDecodeError as exc:
        raise StreamGazeError(f"{what} is not valid JSON (truncated?): {exc}", path) from None
