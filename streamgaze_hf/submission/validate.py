"""``streamgaze validate``: re-score a submission from its raw responses and check everything it claims.

Rejected (one :class:`StreamGazeError` naming the file and the reason): unreadable or malformed JSON,
duplicate keys, NaN/Infinity, wrong field types, unknown fields, another dataset version or
manifest hash, unknown question ids or checkpoints, a parsed answer or a reported score that
differs from the recomputed one. Missing questions are not a rejection: they count as wrong, are
listed, and the coverage is reported.

A submission names its benchmark (``benchmark``; none = the default benchmark, StreamGaze): the dataset must be that
benchmark's, and its raw responses are re-scored by that benchmark's scorer into its metric set.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset import DatasetHandle, manifest_digest
from ..evaluation import settings_text
from ..registry import Benchmark
from ..util.errors import StreamGazeError
from .answer_key import AnswerKey, ItemKey, Rescored, load_answer_key, score_responses, scored_dataset
from .build import is_oracle
from .coverage import (
    fmt_coverage,
    fmt_pct,
    fmt_ratio,
    partial_coverage_warning,
    pct_text,
    score_cell,
    task_coverage,
)
from .schema import MAX_SUBMISSION_BYTES, has_own_layout, parse_submission, submission_benchmark
from .strictjson import StrictJSONError, check_object, is_int, is_number

__all__ = ["ValidationReport", "load_submission", "validate_submission", "SCORE_TOLERANCE"]

#: largest accepted difference between a reported and a recomputed score (fractions)
SCORE_TOLERANCE = 1e-9
_MAX_LISTED = 50


def load_submission(path: str | os.PathLike[str]) -> dict:
    """Read and structurally check a submission file (strict JSON, closed schema)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_SUBMISSION_BYTES:
            raise StreamGazeError(f"{size:,} bytes: a submission may have at most {MAX_SUBMISSION_BYTES:,} bytes "
                                  "(checked before it is read)", path)
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise StreamGazeError("no such submission file", path) from None
    except UnicodeDecodeError:
        raise StreamGazeError("not UTF-8 text (a submission is a JSON file)", path) from None
    except OSError as exc:
        raise StreamGazeError(f"unreadable: {exc.strerror or exc}", path) from None
    try:
        return parse_submission(text)
    except StrictJSONError as exc:
        raise StreamGazeError(str(exc), path) from None


@dataclass
class ValidationReport:
    """A valid submission with its recomputed scores."""

    path: Path
    submission: dict
    rescored: Rescored
    key: AnswerKey
    streaming: dict | None = None  # recomputed time-aware alert scores (stream-eval submissions)

    @property
    def scores(self) -> dict:
        return self.rescored.scores

    @property
    def missing(self) -> list[tuple[str, str, int]]:
        return self.rescored.missing

    @property
    def is_oracle(self) -> bool:
        return is_oracle(self.submission["run"])

    @property
    def bench(self) -> Benchmark:
        """The submission's benchmark (the answer key's)."""
        return self.key.bench

    @property
    def benchmark(self) -> str:
        return self.key.bench.name

    def format(self, all_missing: bool = False) -> str:
        """The human-readable report: settings, per-task table with each task's coverage, category
        means with theirs, overall coverage, missing items; a partial run is said first and loudly."""
        if not has_own_layout(self.scores):  # the shared scores layout (submission/schema.py "Benchmarks")
            return self._format_benchmark(all_missing)
        # the category layout of a benchmark's own score_answers hook (StreamGaze's)
        bench = self.bench
        sub, s = self.submission, self.scores
        st = sub["settings"]
        toolkit = sub["run"].get("toolkit_version")
        ran = f", scored by streamgaze-toolkit {toolkit}" if toolkit else ""
        lines = [f"{self.path}: valid",
                 f"  model: {sub['model']['name']} ({run_label(sub['run'])}{ran})",
                 f"  dataset: version {sub['dataset']['version']}, manifest sha256 "
                 f"{sub['dataset']['manifest_sha256'][:16]}...",
                 f"  settings: {settings_text(bench, st)}"]
        warning = partial_coverage_warning(s, sub["run"].get("limit"))
        if warning:
            lines.append(f"  WARNING: {warning}")
        lines += ["", f"{'task':<9} {'category':<10} {'acc. %':>8} {'± se':>6}  {'coverage':<22} details"]
        for spec in bench.tasks:
            t = s["tasks"][spec.id]
            answered, n = task_coverage(t)
            extra = f"unparsed {t['n_unparsed']}"
            if n == 0:
                extra = "no questions in the dataset: skipped (not in the means)"
            elif answered == 0:
                extra = "no answers: every item counts as wrong"
            elif spec.checkpointed:  # its metrics besides accuracy (the benchmark's declared kind)
                extra = (", ".join(f"{m} {pct_text(t[m])}" for m in bench.metric_names(spec.id) if m != "accuracy")
                         + f"; {extra}")
            se = t["stderr"]["accuracy"]
            lines.append(f"{spec.id:<9} {spec.category:<10} {fmt_pct(t['accuracy'] if n else None):>8} {fmt_pct(se):>6}  "
                         f"{fmt_coverage(answered, n):<22} {extra}")
        lines.append("")
        for cat in (*bench.categories, "overall"):
            tasks = [t for t in bench.tasks if cat in ("overall", t.category)]
            answered = sum(task_coverage(s["tasks"][t.id])[0] for t in tasks)
            n = sum(task_coverage(s["tasks"][t.id])[1] for t in tasks)
            lines.append(f"{cat:<20} {fmt_pct(s[cat]):>8}  {fmt_coverage(answered, n)}")
        lines.append(f"coverage: {fmt_coverage(s['coverage']['answered'], s['coverage']['expected'])} of the "
                     "items answered; missing answers count as wrong; n/a = undefined (empty denominator); "
                     "± se = bootstrap standard error over questions; scores in percent")
        lines.append("by source: " + ", ".join(f"{src} {pct_text(v['overall'])} ({v['n_tasks']} tasks)"
                                             for src, v in s["sources"].items()))
        lines += self._format_tail(all_missing)
        return "\n".join(lines)

    def _format_benchmark(self, all_missing: bool) -> str:
        """:meth:`format` for a benchmark other than StreamGaze: its leaderboard values, each task's
        metrics and coverage, and the breakdowns (e.g. per source, scenario, activity)."""
        bench = self.bench
        sub, s = self.submission, self.scores
        st = sub["settings"]
        lines = [f"{self.path}: valid",
                 f"  benchmark: {bench.title} ({bench.name})",
                 f"  model: {sub['model']['name']} ({run_label(sub['run'])})",
                 f"  dataset: version {sub['dataset']['version']}, manifest sha256 "
                 f"{sub['dataset']['manifest_sha256'][:16]}...",
                 f"  settings: {settings_text(bench, st)}"]
        warning = partial_coverage_warning(s, sub["run"].get("limit"))
        if warning:
            lines.append(f"  WARNING: {warning}")
        overall = bench.leaderboard.overall_column()
        lines.append("")
        for col in (overall, *bench.leaderboard.score_columns()):
            value = s["overall"] if col.key == "overall" else s["columns"].get(col.key)
            better = "higher" if col.higher_is_better else "lower"
            lines.append(f"{col.label:<20} {score_cell(col, value):>9}  ({better} is better)")
        lines.append("")
        for task_id, t in s["tasks"].items():
            answered, n = task_coverage(t)
            shown = ", ".join(f"{k} {_metric_text(k, v)}" for k, v in t.items()
                              if k not in ("n", "n_missing"))
            lines.append(f"{task_id:<12} {shown}; coverage {fmt_coverage(answered, n)}")
        for key, groups in s.get("breakdowns", {}).items():
            lines.append(f"by {key}: " + ", ".join(
                f"{value or '(unknown)'} {pct_text(m.get('accuracy')) if 'accuracy' in m else m} (n={m.get('n')})"
                for value, m in groups.items()))
        lines.append(f"coverage: {fmt_coverage(s['coverage']['answered'], s['coverage']['expected'])} of the "
                     "items answered; missing answers count as wrong")
        lines += self._format_tail(all_missing)
        return "\n".join(lines)

    def _format_tail(self, all_missing: bool) -> list[str]:
        lines: list[str] = []
        if not self.missing:
            lines.append("missing: none")
        else:
            shown = self.missing if all_missing else self.missing[:_MAX_LISTED]
            lines.append(f"missing ({len(self.missing)}):")
            lines += [f"  {task} {qid}" + (f" checkpoint {cp}" if cp >= 0 else "") for task, qid, cp in shown]
            if len(shown) < len(self.missing):
                lines.append(f"  ... and {len(self.missing) - len(shown)} more (--all-missing lists them all)")
        if self.streaming is not None:
            lines += ["", self.bench.streaming_module().format_streaming(self.streaming)]
        if self.is_oracle:
            lines.append("note: the oracle baseline reads the answer key: valid for testing, never ranked")
        return lines


def _check_dataset(sub: dict, dataset: DatasetHandle) -> None:
    root, version = dataset.path, dataset.version
    if sub["dataset"]["version"] != version:
        raise StreamGazeError(f"submission is for dataset version {sub['dataset']['version']}, but the dataset at "
                              f"{root} is version {version}")
    digest = manifest_digest(root)
    if sub["dataset"]["manifest_sha256"] != digest:
        raise StreamGazeError(f"submission's manifest sha256 {sub['dataset']['manifest_sha256'][:16]}... differs "
                              f"from the dataset at {root} ({digest[:16]}...): same version {version}, another build")


def _responses(sub: dict, key: AnswerKey) -> dict[ItemKey, tuple[str, Any, str]]:
    """item -> (raw response, submitted parsed value, location); unknown ids rejected."""
    out: dict[ItemKey, tuple[str, Any, str]] = {}
    checkpointed = set(key.bench.checkpointed_ids())
    for task_id, by_q in sub["answers"].items():
        per_checkpoint = task_id in checkpointed
        unknown = []
        for qid, entry in by_q.items():
            cps = [(int(cp), a) for cp, a in entry.items()] if per_checkpoint else [(-1, entry)]
            for cp, answer in cps:
                where = f"answers.{task_id}[{qid!r}]" + (f"[{str(cp)!r}]" if per_checkpoint else "")
                problem = key.problem(task_id, qid, cp)
                if problem:
                    unknown.append(f"{where}: {problem}")
                    continue
                out[(qid, cp)] = (answer["response"], answer["parsed"], where)
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise StreamGazeError(unknown[0] + more)
    return out


def _compare(reported: Any, expected: Any, where: str) -> None:
    if expected is None:  # a statistic of nothing (e.g. the latency of no alert)
        if reported is not None:
            raise StreamGazeError(f"reported score {where} = {reported} differs from the recomputed null")
        return
    if isinstance(expected, dict):
        try:  # the same object rule as every other part of the submission (strictjson)
            check_object(reported, where, dict.fromkeys(expected, lambda _v: None))
        except StrictJSONError as exc:
            raise StreamGazeError(str(exc)) from None
        for k, v in expected.items():
            _compare(reported[k], v, f"{where}.{k}")
        return
    if expected is None or reported is None:
        if expected is None and reported is None:
            return
        shown = "undefined (null)" if expected is None else repr(expected)
        raise StreamGazeError(f"reported score {where} = {'null' if reported is None else reported} differs from "
                              f"the recomputed {shown} (a ratio with an empty denominator is null)")
    if not is_number(reported) or (is_int(expected) and not is_int(reported)):
        kind = "an integer" if is_int(expected) else "a number"
        raise StreamGazeError(f"{where} must be {kind}, got {reported!r}")
    if abs(float(reported) - float(expected)) > SCORE_TOLERANCE:
        raise StreamGazeError(f"reported score {where} = {reported} differs from the recomputed {expected!r} "
                              "(scores are recomputed from the raw responses, never taken from the submission)")


def validate_submission(path: str | os.PathLike[str], root: DatasetHandle | str | os.PathLike[str] | None = None, *,
                        key_cache: dict[str, AnswerKey] | None = None,
                        submission: dict | None = None) -> ValidationReport:
    """Validate and re-score the submission at ``path`` against the dataset at ``root``.

    ``root``: the dataset of the submission's benchmark (default: that benchmark's ``$..._ROOT``, else
    its default directory). ``key_cache`` ((benchmark, gaze mode) -> answer key, filled as keys are
    loaded) avoids reloading the answer key when validating many files against one dataset.

    Args:
        path: the submission file.
        root: the dataset to re-score against: open, or a directory or Hub reference (None: the default above).
        key_cache: answer keys by ``(benchmark name, gaze mode)``, read and filled (None: none kept).
        submission: the file at ``path`` as :func:`load_submission` read it already (None: read it here), so a
            caller that looked at it first reads the untrusted file once.

    Returns:
        The :class:`ValidationReport`: the submission, its recomputed scores (and time-aware scores of a
        ``stream-eval`` submission) and the answer key.

    Raises:
        StreamGazeError: with the reason of the first rejection, naming the submission: a file that is not a
            valid submission (schema), one made on another dataset build, an unknown or duplicate item, a
            parsed answer or score that differs from the recomputed one. No dataset at ``root``, or one of
            another benchmark, is reported naming the dataset.
    """
    path = Path(path)
    sub = load_submission(path) if submission is None else submission
    bench = submission_benchmark(sub)
    cache = {} if key_cache is None else key_cache
    data = scored_dataset(root, bench)
    try:
        _check_dataset(sub, data)
        gaze = sub["settings"]["gaze"]
        key = cache.get((bench.name, gaze))
        if key is None or key.root != data.path:
            key = cache[(bench.name, gaze)] = load_answer_key(data, gaze, bench)
        items = _responses(sub, key)
        st = sub["settings"]
        rescored = score_responses(key, {i: r for i, (r, _, _) in items.items()}, st["prompt_mode"], st["clip_fps"])
        parsed = {(r["question_id"], r["checkpoint_index"]): r["parsed"] for t in key.docs for r in rescored.records[t]}
        for item, (_, claimed, where) in items.items():
            if json.loads(json.dumps(claimed)) != json.loads(json.dumps(parsed[item])):
                raise StreamGazeError(f"{where}: parsed answer {claimed!r} differs from the re-parsed "
                                      f"{parsed[item]!r} of its raw response")
        _compare(sub["scores"], rescored.scores, "scores")
        streaming = _check_streaming(sub, key)
    except StreamGazeError as exc:
        if exc.path is None or exc.path != str(path):
            raise StreamGazeError(exc.reason if exc.path is None else str(exc), path) from None
        raise
    return ValidationReport(path, sub, rescored, key, streaming)


def _check_streaming(sub: dict, key: AnswerKey) -> dict | None:
    """Recompute the time-aware scores of a stream-eval submission from its alert times."""
    if "streaming" not in sub:
        return None
    streaming, module = sub["streaming"], key.bench.streaming_module()
    realtime = streaming.get("realtime")
    for where, alerts in (("streaming", streaming["alerts"]), ("streaming.realtime", (realtime or {}).get("alerts", {}))):
        for task_id, by_q in alerts.items():
            for qid in by_q:
                problem = key.problem(task_id, qid, 0)
                if problem:
                    raise StreamGazeError(f"{where}.alerts.{task_id}[{qid!r}]: {problem}")
    expected = module.recompute_streaming(key, streaming["alerts"], streaming["poll"])
    _compare(streaming["scores"], expected, "streaming.scores")
    if realtime is not None:
        _compare(realtime["scores"], module.recompute_realtime(key, realtime, streaming["poll"]),
                 "streaming.realtime.scores")
    return expected


def run_label(run: dict) -> str:
    """Who produced a submission's responses: the harness recorded in its ``run`` (lmms-eval and its
    version, the toolkit's streaming evaluation, or the official evaluator) and the model id."""
    harness, version, model = run.get("harness", ""), run.get("harness_version", ""), run.get("model", "")
    if harness == "streamgaze-stream":
        return f"streaming model {model}, `streamgaze stream-eval` of streamgaze-toolkit {version}"
    if harness == "official-evaluator":
        return f"official evaluator, model {model}"
    return f"{harness} model {model}, {harness} {version}".rstrip(", ")


def _metric_text(key: str, value) -> str:
    """One per-task metric of another benchmark: its accuracy (a fraction) in percent; a metric of
    another kind (an angle, a distance, BLEU) as stored."""
    if key == "accuracy" and isinstance(value, float):
        return pct_text(value)
    return fmt_ratio(value) if isinstance(value, float) else str(value)
