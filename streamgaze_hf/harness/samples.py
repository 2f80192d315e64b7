"""Per-sample records of an lmms-eval run (``--log_samples``) on one registered benchmark's tasks,
shared by the benchmarks' report commands (``report egogazevqa``, ``report streameqa``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..util.errors import StreamGazeError


def sample_records(run_dir: str | os.PathLike[str], benchmark: str, title: str) -> Iterator[tuple[Path, int, dict]]:
    """(file, line number, record) of every ``*_samples_<benchmark>_*.jsonl`` below ``run_dir`` (the
    record is the sample's ``accuracy`` entry, with ``gaze`` and ``question_id``); StreamGazeError when
    there is no such file or a line is not such a record."""
    run = Path(run_dir)
    files = sorted(run.rglob(f"*_samples_{benchmark}_*.jsonl"))
    if not files:
        raise StreamGazeError(f"no {title} samples (*_samples_{benchmark}_*.jsonl): run lmms-eval with "
                              f"--log_samples on the {benchmark} tasks", run)
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)["accuracy"]
                missing = [k for k in ("gaze", "question_id") if k not in rec]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise StreamGazeError(f"line {n}: not a {title} sample record ({exc})", path) from None
            if missing:
                raise StreamGazeError(f"line {n}: not a {title} sample record (no {', '.join(missing)})", path)
            yield path, n, rec
