"""Read what ``lmms-eval --log_samples --output_path D`` wrote for the StreamGaze tasks.

lmms-eval writes ``D/[<model_sanitized>/]<YYYYMMDD_HHMMSS>_results.json`` and, per task,
``..._samples_<task>.jsonl`` (one line per document; our per-sample record under the metric key
``accuracy``, or for tasks without an accuracy metric under their first metric's key). A directory may hold several runs: the newest results file is used, with the samples
files of the same timestamp prefix in the same directory. Samples of tasks that are not StreamGaze
tasks are ignored; a run may cover only some StreamGaze tasks.

Any registered benchmark's tasks are read the same way (``read_run(dir, benchmark)``): the run's
benchmark is the one whose lmms-eval task names its samples files carry (``--benchmark`` picks one
when a run holds several).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset.load import DEFAULT_BENCHMARK
from ..registry import benchmarks, get_benchmark
from ..util.errors import StreamGazeError

__all__ = ["LmmsRun", "read_run", "benchmark_task_names"]

_RESULTS = re.compile(r"^(?P<prefix>.+)_results\.json$")


def benchmark_task_names(benchmark: str) -> dict[str, tuple[str, str]]:
    """Every lmms-eval task name of a registered benchmark -> (task id, gaze mode)."""
    bench = get_benchmark(benchmark)
    return {bench.lmms_task_name(t) + suffix: (t, gaze) for t in bench.task_ids
            for suffix, gaze in bench.gaze_variants.items()}


@dataclass
class LmmsRun:
    """One lmms-eval run: its results file and the StreamGaze per-sample records by task name."""

    results_path: Path
    results: dict[str, Any]
    samples: dict[str, list[dict]]  # lmms-eval task name -> records (file order)
    sample_paths: dict[str, Path]
    benchmark: str = DEFAULT_BENCHMARK

    @property
    def config(self) -> dict[str, Any]:
        cfg = self.results.get("config")
        return cfg if isinstance(cfg, dict) else {}


def _newest_results(output_dir: Path) -> Path:
    found = [p for p in output_dir.rglob("*_results.json") if p.is_file() and _RESULTS.match(p.name)]
    if not found:
        raise StreamGazeError("no lmms-eval results here (no *_results.json): pass the --output_path of an "
                              "`lmms-eval ... --log_samples` run", output_dir)
    newest = max(p.name for p in found)
    tied = sorted(p for p in found if p.name == newest)
    if len(tied) > 1:
        where = ", ".join(str(p.parent) for p in tied)
        raise StreamGazeError(f"several runs share the newest timestamp {newest} ({where}); pass one of these "
                              "directories", output_dir)
    return tied[0]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"unreadable lmms-eval file: {exc}", path) from None


def _record_of(sample: Any, fields: tuple[str, ...]) -> dict | None:
    """The per-sample record of one samples line: under the metric key ``accuracy`` (StreamGaze,
    EgoGazeVQA, StreamEQA), else under the first metric key that holds one (a benchmark whose tasks
    report other metrics, e.g. VL4Gaze's ``bleu``, logs the same record under each)."""
    if not isinstance(sample, dict):
        return None
    for key in ("accuracy", *sample):
        rec = sample.get(key)
        if isinstance(rec, dict) and all(k in rec for k in fields):
            return rec
    return None


def _read_samples(path: Path, benchmark: str = DEFAULT_BENCHMARK) -> list[dict]:
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"unreadable samples file: {exc}", path) from None
    fields = get_benchmark(benchmark).record_fields
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StreamGazeError(f"line {lineno}: malformed JSON ({exc.msg})", path) from None
        rec = _record_of(sample, fields)
        if rec is None:
            raise StreamGazeError(f"line {lineno}: no {benchmark} record under 'accuracy' or the task's "
                                  f"first metric (needs {', '.join(fields)}); was this written by the "
                                  f"{benchmark} tasks?", path)
        if "checkpoint_index" not in fields:  # a benchmark without checkpoints: every item is one question
            rec = {"checkpoint_index": -1, **rec}
        records.append(rec)
    return records


def _run_benchmark(tasks: list[str], benchmark: str | None, results_path: Path) -> str:
    """The one benchmark whose tasks the samples files are of (``benchmark`` when given)."""
    found = [b.name for b in benchmarks() if any(t in benchmark_task_names(b.name) for t in tasks)]
    if benchmark is not None:
        return benchmark
    if len(found) > 1:
        raise StreamGazeError(f"the run has samples of several benchmarks ({', '.join(found)}): a submission is for "
                              "one benchmark; pass --benchmark", results_path)
    return found[0] if found else DEFAULT_BENCHMARK


def read_run(output_dir: str | os.PathLike[str], benchmark: str | None = None) -> LmmsRun:
    """The newest lmms-eval run under ``output_dir`` with its samples of one registered benchmark
    (``benchmark``, else the one its samples files are of; StreamGaze when they are of none)."""
    root = Path(output_dir)
    if not root.is_dir():
        raise StreamGazeError("not a directory (expected an lmms-eval --output_path)", root)
    results_path = _newest_results(root)
    results = _read_json(results_path)
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise StreamGazeError("not an lmms-eval results file (no 'results' object)", results_path)
    prefix = _RESULTS.match(results_path.name).group("prefix")
    files = {path.name[len(prefix) + len("_samples_"):-len(".jsonl")]: path
             for path in sorted(results_path.parent.glob(f"{prefix}_samples_*.jsonl"))}
    bench = _run_benchmark(list(files) or list(results["results"]), benchmark, results_path)
    names = benchmark_task_names(bench)
    samples: dict[str, list[dict]] = {}
    paths: dict[str, Path] = {}
    for task, path in files.items():
        if task in names:
            samples[task] = _read_samples(path, bench)
            paths[task] = path
    if not samples:
        title = get_benchmark(bench).title
        ours = [n for n in results["results"] if n in names]
        why = (f"the run has {title} results but no samples files: re-run lmms-eval with --log_samples"
               if ours else f"the run has no {title} tasks (lmms-eval --tasks {bench} ...)")
        raise StreamGazeError(why, results_path)
    return LmmsRun(results_path, results, samples, paths, bench)
