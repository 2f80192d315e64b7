"""Submissions are untrusted input: the limits they meet before anything reads them, and where they live.

* **Size**: at most :data:`MAX_SUBMISSION_BYTES`, checked from the Hub's file listing before the file is
  downloaded and from the byte count before it is decoded (``submission.validate.load_submission``).
* **Depth**: nesting at most ``strictjson.MAX_DEPTH`` levels, checked by a linear scan before parsing.
* **Time**: re-scoring runs in a child process stopped after a bound (:mod:`.bounded`).
* **Paths**: a submission file's repository path is ``submissions/<benchmark>/<model-slug>/<timestamp>.json``,
  built by :func:`submission_path` from a slug (``[a-z0-9-]``) and checked by :func:`parse_submission_path`;
  an evaluation request's is ``requests/...`` and the responses of a run the leaderboard made
  ``evaluations/...`` in the same form (:func:`repo_path`, :func:`parse_repo_path`); nothing from inside a
  submission is ever used as a file path.
* **Text**: every string shown in a pull-request comment goes through :func:`comment_text` (Markdown and HTML
  escaped, one line, bounded), and in the maintainer's terminal through :func:`terminal_text`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone

from ...registry import Benchmark, benchmarks, get_benchmark
from ...submission import MAX_SUBMISSION_BYTES
from ...util.errors import StreamGazeError
from ..cells import md_escape

__all__ = ["MAX_SUBMISSION_BYTES", "RESCORE_TIMEOUT_S", "check_size", "model_slug", "submission_path",
           "parse_submission_path", "comment_text", "terminal_text", "SubmissionPath", "repo_path", "parse_repo_path",
           "KINDS", "row_benchmark"]

#: the default bound on re-scoring one submission (a full-size StreamGaze submission takes a few seconds)
RESCORE_TIMEOUT_S = 120.0
#: the kinds of file of the requests dataset, by their top folder: submissions (pull requests of responses),
#: evaluation requests (pull requests asking the leaderboard to run a model) and the responses of those runs
KINDS = ("submissions", "requests", "evaluations")
_PATH = re.compile(r"^(submissions|requests|evaluations)/([a-z0-9_]{1,40})/([a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?)/"
                   r"(\d{8}T\d{6}Z)\.json$")
_MAX_COMMENT_TEXT = 300


def check_size(size: int, where: str = "") -> None:
    """Refuse a submission of more than :data:`MAX_SUBMISSION_BYTES` (before it is read)."""
    if size > MAX_SUBMISSION_BYTES:
        raise StreamGazeError(f"{size:,} bytes: a submission may have at most {MAX_SUBMISSION_BYTES:,} bytes "
                              "(checked before it is read)", where or None)


def model_slug(name: str) -> str:
    """A model name as a path part: lower-case letters, digits and single hyphens, at most 80 characters."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80].strip("-")
    return slug or "model"


class SubmissionPath(tuple):
    """(benchmark, model slug, timestamp, kind) of a valid path of the requests dataset (kind: one of
    :data:`KINDS`)."""

    @property
    def benchmark(self) -> str:
        return self[0]

    @property
    def slug(self) -> str:
        return self[1]

    @property
    def timestamp(self) -> str:
        return self[2]

    @property
    def kind(self) -> str:
        return self[3]


def repo_path(kind: str, benchmark: str, model_name: str, when: datetime | None = None) -> str:
    """``<kind>/<benchmark>/<model-slug>/<UTC timestamp>.json`` (``kind``: one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    stamp = (when or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{kind}/{benchmark}/{model_slug(model_name)}/{stamp}.json"


def submission_path(benchmark: str, model_name: str, when: datetime | None = None) -> str:
    """``submissions/<benchmark>/<model-slug>/<UTC timestamp>.json``."""
    return repo_path("submissions", benchmark, model_name, when)


def parse_repo_path(path: str, kinds: tuple[str, ...] = KINDS) -> SubmissionPath | None:
    """The parts of a repository path of one of ``kinds`` (the file form of a registered benchmark), else None."""
    m = _PATH.match(path)
    if not m or m.group(1) not in kinds or m.group(2) not in {b.name for b in benchmarks()}:
        return None
    return SubmissionPath((*m.groups()[1:], m.group(1)))


def row_benchmark(row: Mapping) -> Benchmark:
    """The benchmark of a results row: the one place it is read off the file it was scored from (its
    ``submission_path``, ``<kind>/<benchmark>/...``)."""
    return get_benchmark(str(row["submission_path"]).split("/")[1])


def parse_submission_path(path: str) -> SubmissionPath | None:
    """The parts of a repository path of the submission-file form of a registered benchmark, else None."""
    return parse_repo_path(path, ("submissions",))


def comment_text(text: object) -> str:
    """A user string for a pull-request comment: one line, at most 300 characters, Markdown and HTML
    special characters escaped (rendered as literal text)."""
    flat = " ".join(str(text).split())
    if len(flat) > _MAX_COMMENT_TEXT:
        flat = flat[:_MAX_COMMENT_TEXT - 1] + "…"
    return md_escape(flat).replace("@", "&#64;")


def terminal_text(text: object, limit: int = _MAX_COMMENT_TEXT) -> str:
    """A user string for the maintainer's terminal: one line, bounded, no control characters (no escape
    sequence a submission could send to a terminal)."""
    flat = "".join(c if c.isprintable() else "?" for c in " ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
