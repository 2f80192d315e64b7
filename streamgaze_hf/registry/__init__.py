"""The registry of benchmarks (docs/adding-a-benchmark.md).

Each benchmark *declares* what is specific to it: its task table (ids, categories, window or
frame-group rule, option count), its importers, its prompts and gaze modes, its metric set, its
dataset layout (the QA row schema and validation, card texts) and its paper reference rows. Shared
machinery (the gaze core, video, the parser, the dataset writer and card, lmms-eval task generation,
submissions) asks the registry for those data and never imports a benchmark package itself.

Declarations are light: heavy parts (evaluation documents, importers, prompts) are named by
``"module:attribute"`` strings and imported on first use, so looking a benchmark up costs nothing.
The declaration types, the evaluation module's protocol with its default hooks, the importer kinds and
``declare`` (references derived from the package name) are in ``contract.py``; this module is the registry.

    >>> from streamgaze_hf.registry import benchmarks, get_benchmark
    >>> [b.name for b in benchmarks()]
    ['streamgaze', 'egogazevqa', 'streameqa', 'vl4gaze']
    >>> get_benchmark("egogazevqa").task("spatial").option_count
    5

Leaderboard contract (submissions and the leaderboard site, ``streamgaze_hf/submission/``): every
benchmark gets its own section of the one site, with its own columns, ranking and reference rows.

* ``Benchmark.leaderboard_columns``: the score columns of its table, in order, each a
  :class:`LeaderboardColumn` ``(key, label, higher_is_better=True, title="", digits=3, unit="fraction")`` or the plain
  tuple ``(key, label, higher_is_better)``. A column keyed ``"overall"`` sets the label and direction
  of the Overall column (rows are ranked by it; ``higher_is_better=False`` ranks the smallest first);
  it is not repeated as a score column. Default (empty): one accuracy column per task id (label: the
  task name), higher is better, and Overall = their unweighted mean.
* The evaluation module's optional hook ``leaderboard_scores(records)`` (called through
  ``Benchmark.evaluation_api()``, which supplies the default): ``records`` maps each task
  id to the per-sample records its ``score_doc`` made (one per item; an unanswered item is
  ``score_doc(doc, "")`` with ``missing=True``); it returns ``{"columns": {column key: value or None},
  "overall": value or None}``. Default (no hook): the accuracy of ``task_metrics`` per task and their
  mean, as fractions. Values are in the units of the benchmark's reference rows (the paper's).
* Optional ``BREAKDOWN_KEYS`` (record fields such as ``source``) and ``breakdown(records, key)`` in the
  evaluation module: validate reports ``task_metrics`` per value of each.
* ``streamgaze submit`` reads the per-sample records lmms-eval logs under the metric key ``accuracy``;
  each must carry ``question_id``, ``task``, ``response``, ``gaze`` and ``prompt_mode`` (and
  ``checkpoint_index`` for a proactive task); where it has ``parsed`` / ``correct``, they must equal
  what ``score_doc`` gives on re-scoring.
* ``paper_rows`` returns reference rows: ``streamgaze_hf.leaderboard.rows.Row`` objects or dicts
  ``{name, group, source ("paper" | "human"), gaze, prompt_mode, dataset, tasks {column key: value
  or None}, overall}`` (optional ``frames``, ``params``). They are shown in a section of their own,
  never re-scored; a human row is never ranked. ``extra["reference_questions"]``: the question count
  of the paper's full benchmark; a submission on a dataset of exactly that many questions is ranked
  in the reference section.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from .contract import (
    IMPORTER_KINDS,
    Benchmark,
    DatasetLayout,
    Evaluation,
    EvaluationModule,
    LeaderboardColumn,
    TaskDef,
    declare,
    leaderboard_column,
    resolve,
)

__all__ = ["TaskDef", "DatasetLayout", "LeaderboardColumn", "Benchmark", "Evaluation", "EvaluationModule",
           "IMPORTER_KINDS", "declare", "leaderboard_column", "register", "get_benchmark", "benchmarks",
           "benchmark_of_doc", "resolve"]


_REGISTRY: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark to the registry (its name must be new). Returns it, so a declaration module
    can write ``BENCHMARK = register(Benchmark(...))``."""
    if benchmark.name in _REGISTRY and _REGISTRY[benchmark.name] is not benchmark:
        raise ValueError(f"benchmark {benchmark.name!r} is already registered")
    _REGISTRY[benchmark.name] = benchmark
    return benchmark


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark ``name`` (KeyError listing the known ones otherwise)."""
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(b.name for b in benchmarks())
        raise KeyError(f"unknown benchmark {name!r}; benchmarks are {known}") from None


def benchmarks() -> tuple[Benchmark, ...]:
    """Every registered benchmark: the built-in ones in their fixed order (StreamGaze first), then
    any others in registration order."""
    _load_builtin()
    builtin = [_REGISTRY[m.rsplit(".", 1)[1]] for m in _BUILTIN]
    return tuple(builtin + [b for b in _REGISTRY.values() if b not in builtin])


def benchmark_of_doc(doc: Mapping) -> Benchmark:
    """The benchmark an evaluation document belongs to (StreamGaze documents carry no name)."""
    return get_benchmark(str(doc.get("benchmark") or "streamgaze"))


_BUILTIN = ("streamgaze_hf.benchmarks.streamgaze", "streamgaze_hf.benchmarks.egogazevqa",
            "streamgaze_hf.benchmarks.streameqa", "streamgaze_hf.benchmarks.vl4gaze")


def _load_builtin() -> None:
    for module in _BUILTIN:
        importlib.import_module(module)
