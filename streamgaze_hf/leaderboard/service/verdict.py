"""What one submission file is worth: everything that reads an untrusted file, run inside the bounded child
(:func:`~.bounded.run_bounded`), so that no file can stop the sync or the app.

:func:`file_verdict` reads the file under its limits (size, nesting depth, numbers: ``load_submission``),
checks it against the repository path it came under (its benchmark and model slug), refuses the oracle
baseline, chooses the maintainer-listed dataset it is scored against (:mod:`.pinning`), re-scores it from its
raw responses and builds its results row. The parent receives plain JSON: the row (numbers and strings that
have passed every check), the model name's collision key (:mod:`.names`), the Hub model it names and the
per-sample records it was scored from (its traces, :mod:`.traces`).
:func:`verdict` runs it in the child.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...registry import Benchmark, get_benchmark
from .bounded import run_bounded
from .untrusted import RESCORE_TIMEOUT_S

__all__ = ["Verdict", "file_verdict", "verdict"]


@dataclass(frozen=True)
class Verdict:
    """A submission file that passed every check of the bounded child, as the parent keeps it: its results row
    (the parsed, re-scored submission), the model name's collision key, the Hub model it names ("" for none) and
    its benchmark."""

    row: dict
    name_key: str
    model_id: str
    benchmark: Benchmark
    traces: list = field(default_factory=list)  # the per-sample records it was re-scored from (.traces)


def _check_path(sub: dict, bench: str, repo_path: str) -> None:
    from ...util.errors import StreamGazeError
    from .untrusted import model_slug, parse_repo_path

    parts = parse_repo_path(repo_path, ("submissions", "evaluations"))
    if bench != parts.benchmark:
        raise StreamGazeError(f"a {bench} submission under {parts.kind}/{parts.benchmark}/")
    if model_slug(sub["model"]["name"]) != parts.slug:
        raise StreamGazeError(f"the folder {parts.slug!r} is not the model name's slug "
                              f"{model_slug(sub['model']['name'])!r}")


def file_verdict(path: str, listed: Mapping[str, Sequence], repo_path: str = "") -> dict:
    """The verdict on the submission file at ``path`` (see the module docstring), in plain JSON for the parent:
    ``{"row", "name_key", "model_id", "benchmark"}``; StreamGazeError with the reason of a refusal. ``repo_path``:
    where it lies in the requests repository ("" for an upload). The file is read and parsed once."""
    from ...submission import is_oracle, load_submission, submission_benchmark, validate_submission
    from ...util.errors import StreamGazeError
    from ..sections import section_of
    from .model_checks import hub_model_id
    from .names import name_key
    from .pinning import scoring_target
    from .results import result_row
    from .traces import trace_rows

    sub = load_submission(path)
    bench = submission_benchmark(sub)
    if repo_path:
        _check_path(sub, bench.name, repo_path)
    if is_oracle(sub["run"]):
        raise StreamGazeError("the oracle baseline (it reads the answer key) is never ranked")
    target = scoring_target(bench.name, sub["dataset"], listed)
    report = validate_submission(path, target.root, submission=sub)
    section = section_of(bench, report.key.dataset.manifest)
    row = result_row(bench, report.submission, report.scores, section, submitter="", pr_number=0,
                     path=repo_path or "upload.json", dataset=target)
    key = name_key(row["model_name"])
    if not key:
        raise StreamGazeError("the model name has no letter or digit")
    return {"row": row, "name_key": key, "model_id": hub_model_id(row["model_url"]), "benchmark": bench.name,
            "traces": trace_rows(report.rescored.records)}


def verdict(path: str | os.PathLike[str], listed: Mapping[str, Sequence], repo_path: str = "", *,
            timeout_s: float = RESCORE_TIMEOUT_S) -> Verdict:
    """:func:`file_verdict` in the bounded child, as a :class:`Verdict`; StreamGazeError (path = ``path``) with
    the reason."""
    v = run_bounded(file_verdict, (str(path), dict(listed), repo_path), timeout_s=timeout_s, where=path)
    return Verdict(v["row"], v["name_key"], v["model_id"], get_benchmark(v["benchmark"]), v.get("traces", []))
