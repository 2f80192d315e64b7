"""The registry of benchmarks (docs/adding-a-benchmark.md).

Each benchmark *declares* what is specific to it: its task table (ids, categories, window or
frame-group rule, option count), its importers, its prompts and gaze modes, its metric set, its
dataset layout (the QA row schema and validation, card texts) and its paper reference rows. Shared
machinery (the gaze core, video, the parser, the dataset writer and card, lmms-eval task generation,
submissions) asks the registry for those data and never imports a benchmark package itself.

Benchmarks are found through the entry points of the group ``streamgaze.benchmarks`` (the built-in
ones are this distribution's own; a package installed with pip adds one: ``name = "package.module"``, the
module that registers it). Declarations are light: heavy parts (evaluation documents, importers, prompts)
are named by ``"module:attribute"`` strings and imported on first use, so looking a benchmark up costs
little.

This module is the registry and the public face of the contract: import every name from here. Its modules,
one job each:

* ``declarations.py``: :class:`TaskDef`, :class:`DatasetLayout`, :class:`RunOption`, :class:`CommandDef`,
  :class:`Benchmark` and :func:`declare` (references derived from the package name);
* ``references.py``: :func:`resolve` (a ``"module:attribute"`` imported on first use), the file convention
  (:data:`PACKAGE_FILES`, :func:`package_ref`), :data:`IMPORTER_KINDS` and :data:`OPTIONAL_PARTS`;
* ``hooks.py``: what a package's code provides: :data:`REQUIRED` per part, the one list of optional hooks
  (:data:`HOOKS`), their explicit registration (:func:`hook`, :func:`provide`; an unknown name raises
  :class:`UnknownHook`) and :class:`EvaluationModule`;
* ``plugin.py``: :class:`Plugin`, the adapter through which shared code calls a benchmark's code
  (``Benchmark.plugin()``), with the default of every hook, and its declared references (importers, streaming,
  schema and card functions, commands);
* ``leaderboard_layout.py``: :class:`LeaderboardLayout` (``Benchmark.leaderboard``; the leaderboard contract is
  its docstring), :class:`LeaderboardColumn` and the score display (:func:`score_text`, :func:`to_fraction`);
* ``lmms.py``: lmms-eval naming (:class:`LmmsOptions`, :class:`LmmsTask`, the naming methods of a Benchmark);
* ``task_index.py``: :class:`TaskIndex`, the one index of lmms-eval task and group names.

    >>> from streamgaze_hf.registry import benchmarks, get_benchmark
    >>> [b.name for b in benchmarks()]
    ['streamgaze', 'egogazevqa', 'streameqa', 'vl4gaze']
    >>> get_benchmark("egogazevqa").task("spatial").option_count
    5
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points

from ..util.errors import StreamGazeError
from .declarations import Benchmark, CommandDef, DatasetLayout, RunOption, TaskDef, declare
from .hooks import HOOKS, REQUIRED, EvaluationModule, UnknownHook, hook, provide, registered
from .leaderboard_layout import (
    PERCENT_UNITS,
    LeaderboardColumn,
    LeaderboardLayout,
    leaderboard_column,
    score_text,
    task_columns,
    to_fraction,
)
from .lmms import LmmsNaming, LmmsOptions, LmmsTask
from .plugin import Plugin
from .references import IMPORTER_KINDS, OPTIONAL_PARTS, PACKAGE_FILES, package_ref, resolve
from .task_index import TaskIndex

__all__ = [
    # declarations.py
    "TaskDef", "DatasetLayout", "RunOption", "CommandDef", "Benchmark", "declare",
    # references.py
    "IMPORTER_KINDS", "OPTIONAL_PARTS", "PACKAGE_FILES", "package_ref", "resolve",
    # hooks.py, plugin.py
    "REQUIRED", "HOOKS", "EvaluationModule", "UnknownHook", "hook", "provide", "registered", "Plugin",
    # leaderboard_layout.py
    "LeaderboardLayout", "LeaderboardColumn", "PERCENT_UNITS", "leaderboard_column", "score_text", "task_columns",
    "to_fraction",
    # lmms.py, task_index.py
    "LmmsOptions", "LmmsTask", "LmmsNaming", "TaskIndex",
    # the registry (this module)
    "ENTRY_POINT_GROUP", "register", "get_benchmark", "benchmarks", "run_options", "benchmark_of_doc",
    "default_benchmark", "task_index",
]

#: the entry-point group a distribution declares its benchmarks in (``name = "package.module"``)
ENTRY_POINT_GROUP = "streamgaze.benchmarks"
#: where the built-in benchmark packages live (found by listing it when this distribution's own entry
#: points are not installed, e.g. a source tree on ``PYTHONPATH``)
BUILTIN_PACKAGE = "streamgaze_hf.benchmarks"

_REGISTRY: dict[str, Benchmark] = {}
_STATE = {"discovered": False, "index": None, "index_of": ()}


def register(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark to the registry (its name must be new).

    Args:
        benchmark: the declaration (usually ``declare(__name__, ...)`` in the benchmark package's
            ``__init__.py``).

    Returns:
        The same benchmark, so a declaration module can write ``BENCHMARK = register(declare(...))``.

    Raises:
        ValueError: another benchmark of that name is already registered.
    """
    if benchmark.name in _REGISTRY and _REGISTRY[benchmark.name] is not benchmark:
        raise ValueError(f"benchmark {benchmark.name!r} is already registered")
    _REGISTRY[benchmark.name] = benchmark
    return benchmark


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark ``name`` (discovering the entry points first, once per process).

    Args:
        name: the benchmark's name (``Benchmark.name``, e.g. ``"egogazevqa"``).

    Returns:
        Its declaration.

    Raises:
        KeyError: no benchmark of that name (the message lists the registered ones).
        StreamGazeError: a benchmark entry point failed to import, or registered no benchmark of its name.
    """
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(b.name for b in benchmarks())
        raise KeyError(f"unknown benchmark {name!r}; benchmarks are {known}") from None


def benchmarks() -> tuple[Benchmark, ...]:
    """Every registered benchmark (discovering the entry points first, once per process).

    Returns:
        The benchmarks by their declared ``order`` (the built-in ones declare 0 to 3; the
        default is 100), then by name.

    Raises:
        StreamGazeError: a benchmark entry point failed to import, or registered no benchmark of its name.
    """
    _discover()
    return tuple(sorted(_REGISTRY.values(), key=lambda b: (b.order, b.name)))


def benchmark_of_doc(doc: Mapping) -> Benchmark:
    """The benchmark an evaluation document belongs to (every document names it: ``doc["benchmark"]``).

    Args:
        doc: an evaluation document (made by a benchmark's ``load_docs``) or a per-sample record.

    Returns:
        The registered benchmark it names.

    Raises:
        KeyError: the document has no ``benchmark`` field, or names no registered benchmark.
    """
    return get_benchmark(str(doc["benchmark"]))


def default_benchmark() -> Benchmark:
    """The benchmark a command means when it names none, and the benchmark of a dataset or submission file
    that names none (made before files named their benchmark): the one registered benchmark that declares
    ``default``.

    Returns:
        That benchmark (in this distribution, a built-in one).

    Raises:
        StreamGazeError: no registered benchmark (or more than one) declares ``default``.
    """
    claims = [b for b in benchmarks() if b.default]
    if len(claims) != 1:
        raise StreamGazeError("no single default benchmark: "
                              f"{', '.join(b.name for b in claims) or 'no registered benchmark'} declares default=True")
    return claims[0]


def run_options() -> dict[str, RunOption]:
    """Every registered benchmark's own run settings (``Benchmark.run_options``).

    Returns:
        Option name -> its :class:`RunOption`, over the benchmarks in registry order.

    Raises:
        StreamGazeError: two benchmarks declare the same option name or variable.
    """
    out: dict[str, RunOption] = {}
    envs: dict[str, str] = {}
    for bench in benchmarks():
        for option in bench.run_options:
            if option.name in out or option.env in envs:
                raise StreamGazeError(f"run option {option.name!r} (${option.env}) of {bench.name} is declared twice")
            out[option.name], envs[option.env] = option, bench.name
    return out


def task_index() -> TaskIndex:
    """The one index of every registered benchmark's lmms-eval task and group names.

    Returns:
        The :class:`TaskIndex` of :func:`benchmarks`, built once and again after a benchmark is registered.

    Raises:
        StreamGazeError: a benchmark entry point failed to import, or registered no benchmark of its name.
    """
    _discover()
    if _STATE["index"] is None or _STATE["index_of"] != tuple(_REGISTRY):
        _STATE["index"], _STATE["index_of"] = TaskIndex(benchmarks()), tuple(_REGISTRY)
    return _STATE["index"]


def _entry_points() -> list[EntryPoint]:
    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (ep.name, ep.value))


def _discover() -> None:
    """Import every benchmark package named by an entry point (once per process)."""
    if _STATE["discovered"]:
        return
    _STATE["discovered"] = True
    eps = _entry_points()
    modules = [(ep.name, ep.value, ep.dist.name if ep.dist else "?") for ep in eps]
    if not any(value.startswith(BUILTIN_PACKAGE + ".") for _, value, _ in modules):  # not installed: a source tree
        import pkgutil

        package = importlib.import_module(BUILTIN_PACKAGE)
        modules += [(m.name, f"{BUILTIN_PACKAGE}.{m.name}", "streamgaze_hf (source tree)")
                    for m in pkgutil.iter_modules(package.__path__) if m.ispkg]
    for name, value, dist in modules:
        try:
            importlib.import_module(value.partition(":")[0])
        except Exception as exc:
            _STATE["discovered"] = False
            raise StreamGazeError(f"benchmark {name!r} of {dist} ({ENTRY_POINT_GROUP} entry point {value}) "
                                  f"failed to load: {type(exc).__name__}: {exc}") from exc
        if name not in _REGISTRY:
            _STATE["discovered"] = False
            raise StreamGazeError(f"benchmark entry point {name!r} of {dist} ({value}) registered no benchmark "
                                  f"named {name!r}")
