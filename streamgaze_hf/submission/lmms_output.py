"""Read what ``lmms-eval --log_samples --output_path D`` wrote for a registered benchmark's tasks.

lmms-eval writes ``D/[<model_sanitized>/]<YYYYMMDD_HHMMSS>_results.json`` and, per task,
``..._samples_<task>.jsonl`` (one line per document; our per-sample record under the metric key
``accuracy``, or for tasks without an accuracy metric under their first metric's key). A directory may
hold several runs: :func:`read_run` uses the newest results file, with the samples files of the same
timestamp prefix in the same directory; samples of other tasks are ignored, and a run may cover only some
of the benchmark's tasks. The run's benchmark is the one whose lmms-eval task names (the registry's task
index) its samples files carry (``benchmark=`` picks one when a run holds several).

:func:`sample_records` reads every samples file of one benchmark below a directory, whatever its run (a
benchmark's own report of a run); both read each line with the same rule.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..registry import Benchmark, LmmsTask, benchmarks, default_benchmark, task_index
from ..util.errors import StreamGazeError

__all__ = ["LmmsRun", "read_run", "read_samples", "sample_records"]

_RESULTS = re.compile(r"^(?P<prefix>.+)_results\.json$")
_SAMPLES = re.compile(r"_samples_(?P<task>.+)\.jsonl$")


@dataclass
class LmmsRun:
    """One lmms-eval run: its results file and its benchmark's per-sample records by task name."""

    results_path: Path
    results: dict[str, Any]
    samples: dict[str, list[dict]]  # lmms-eval task name -> records (file order)
    sample_paths: dict[str, Path]
    bench: Benchmark
    #: lmms-eval task name -> what the task is (task id, gaze mode, ...), for the run's samples
    tasks: dict[str, LmmsTask]

    @property
    def benchmark(self) -> str:
        return self.bench.name

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


def _sample_lines(path: Path, bench: Benchmark) -> Iterator[tuple[int, dict]]:
    """(line number, per-sample record) of every line of one samples file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"unreadable samples file: {exc}", path) from None
    fields = bench.record_fields
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StreamGazeError(f"line {lineno}: malformed JSON ({exc.msg})", path) from None
        rec = _record_of(sample, fields)
        if rec is None:
            raise StreamGazeError(f"line {lineno}: no {bench.name} record under 'accuracy' or the task's "
                                  f"first metric (needs {', '.join(fields)}); was this written by the "
                                  f"{bench.name} tasks?", path)
        if "checkpoint_index" not in fields:  # a benchmark without checkpoints: every item is one question
            rec = {"checkpoint_index": -1, **rec}
        yield lineno, rec


def read_samples(path: str | os.PathLike[str], bench: Benchmark) -> list[dict]:
    """The per-sample records of one lmms-eval samples file of ``bench``'s tasks, in file order.

    Raises:
        StreamGazeError: the file cannot be read, or a line is not such a record (naming the file and line).
    """
    return [rec for _, rec in _sample_lines(Path(path), bench)]


def sample_records(run_dir: str | os.PathLike[str], bench: Benchmark) -> Iterator[tuple[Path, int, dict]]:
    """(file, line number, record) of every samples file of ``bench``'s tasks below ``run_dir``, whatever
    run wrote it (files in name order).

    Raises:
        StreamGazeError: there is no such file, or a line is not such a record.
    """
    run = Path(run_dir)
    names = task_index().of_benchmark(bench)
    files = sorted(p for p in run.rglob("*_samples_*.jsonl")
                   if (m := _SAMPLES.search(p.name)) and m.group("task") in names)
    if not files:
        raise StreamGazeError(f"no {bench.title} samples (*_samples_{bench.name}_*.jsonl): run lmms-eval with "
                              f"--log_samples on the {bench.name} tasks", run)
    for path in files:
        for lineno, rec in _sample_lines(path, bench):
            yield path, lineno, rec


def _run_benchmark(tasks: list[str], benchmark: Benchmark | None, results_path: Path) -> Benchmark:
    """The one benchmark whose tasks the samples files are of (``benchmark`` when given)."""
    if benchmark is not None:
        return benchmark
    index = task_index()
    found = [b for b in benchmarks() if any(index.benchmark_name(t) == b.name for t in tasks)]
    if len(found) > 1:
        raise StreamGazeError(f"the run has samples of several benchmarks ({', '.join(b.name for b in found)}): a "
                              "submission is for one benchmark; pass --benchmark", results_path)
    return found[0] if found else default_benchmark()


def read_run(output_dir: str | os.PathLike[str], benchmark: Benchmark | None = None) -> LmmsRun:
    """The newest lmms-eval run under ``output_dir`` with its samples of one registered benchmark.

    Args:
        output_dir: lmms-eval's ``--output_path`` of a ``--log_samples`` run.
        benchmark: whose tasks to read; None: the one its samples files are of (the default benchmark when
            they are of none).

    Returns:
        The run: its results, and the samples of the benchmark's tasks by task name.

    Raises:
        StreamGazeError: no results, several runs at the newest timestamp, samples of several benchmarks
            (without ``benchmark``), no samples of the benchmark, or an unreadable file.
    """
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
    # the plain tasks per gaze mode: a slice task repeats its task's documents, a reasoning variant is
    # another prompt (neither is a submission's task)
    names = {n: t for n, t in task_index().of_benchmark(bench).items() if t.slice is None and not t.reasoning}
    samples: dict[str, list[dict]] = {}
    paths: dict[str, Path] = {}
    for task, path in files.items():
        if task in names:
            samples[task] = read_samples(path, bench)
            paths[task] = path
    if not samples:
        ours = [n for n in results["results"] if n in names]
        why = (f"the run has {bench.title} results but no samples files: re-run lmms-eval with --log_samples"
               if ours else f"the run has no {bench.title} tasks (lmms-eval --tasks {bench.name} ...)")
        raise StreamGazeError(why, results_path)
    return LmmsRun(results_path, results, samples, paths, bench, {n: names[n] for n in samples})
