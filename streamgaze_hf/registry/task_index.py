"""The one index of lmms-eval task and group names: name -> (benchmark, task id, gaze mode, variant).

Every place that maps a task name to what it is, or expands a group, asks this index
(``streamgaze_hf.registry.task_index()``): the run's checks and files (``harness/``), ``submit`` (which
samples files are of which task), the lmms-eval glue (which documents a ``process_docs<suffix>`` makes) and
the task-file generator. The names come from each benchmark's declaration (:meth:`Benchmark.lmms_tasks`,
:meth:`Benchmark.lmms_groups`), so the generated task files and the index cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .declarations import Benchmark
from .lmms import LmmsTask

__all__ = ["TaskIndex"]


class TaskIndex:
    """Every lmms-eval task and group name of the given benchmarks.

    Args:
        benches: the benchmarks to index (the registry's, in its order).
    """

    def __init__(self, benches: Iterable[Benchmark]) -> None:
        self.benchmarks: dict[str, Benchmark] = {b.name: b for b in benches}
        self.lmms_tasks: dict[str, LmmsTask] = {}
        self.groups: dict[str, tuple[str, ...]] = {}
        self._group_of: dict[str, str] = {}
        for bench in self.benchmarks.values():
            for task in bench.lmms_tasks():
                self.lmms_tasks[task.name] = task
            for name, members in bench.lmms_groups().items():
                self.groups[name] = members
                self._group_of[name] = bench.name

    @property
    def names(self) -> frozenset[str]:
        """Every task and group name."""
        return frozenset(self.lmms_tasks) | frozenset(self.groups)

    def lmms_task(self, name: str) -> LmmsTask | None:
        """The lmms-eval task of a name.

        Args:
            name: an lmms-eval task name.

        Returns:
            Its :class:`LmmsTask`, or None (a group, or a name this index does not define).
        """
        return self.lmms_tasks.get(name)

    def benchmark_name(self, name: str) -> str | None:
        """The benchmark a task or group name belongs to.

        Args:
            name: an lmms-eval task or group name.

        Returns:
            The benchmark's name, or None when this index does not define ``name``.
        """
        task = self.lmms_tasks.get(name)
        return task.benchmark if task is not None else self._group_of.get(name)

    def of_benchmark(self, benchmark: str | Benchmark) -> dict[str, LmmsTask]:
        """One benchmark's tasks.

        Args:
            benchmark: the benchmark, or its name.

        Returns:
            Task name -> :class:`LmmsTask`, in the index's order (empty for a benchmark not indexed).
        """
        name = benchmark if isinstance(benchmark, str) else benchmark.name
        return {n: t for n, t in self.lmms_tasks.items() if t.benchmark == name}

    def leaves(self, name: str) -> list[str]:
        """The task names a name stands for.

        Args:
            name: a task or group name (or any other name).

        Returns:
            A group's members expanded recursively, in order, each once; any other name itself, alone.
        """
        out: list[str] = []

        def walk(n: str, seen: frozenset[str]) -> None:
            if n in self.groups and n not in seen:
                for member in self.groups[n]:
                    walk(member, seen | {n})
            elif n not in out:
                out.append(n)

        walk(name, frozenset())
        return out

    def selection(self, names: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """What a ``--tasks`` selection evaluates, per benchmark.

        Args:
            names: task and group names (groups are expanded; names this index does not define are left out).

        Returns:
            Benchmark name -> [(task id, gaze mode)], in order, each pair once; a benchmark none of whose
            tasks is named is absent. Reasoning and slice variants count as their task and gaze mode.
        """
        out: dict[str, list[tuple[str, str]]] = {}
        for name in names:
            for leaf in self.leaves(name):
                task = self.lmms_tasks.get(leaf)
                if task is not None and (task.task_id, task.gaze) not in out.setdefault(task.benchmark, []):
                    out[task.benchmark].append((task.task_id, task.gaze))
        return {b: pairs for b, pairs in out.items() if pairs}

    def closest(self, name: str, n: int = 3) -> list[str]:
        """The names most like a name (for a "did you mean" line).

        Args:
            name: the name that is not in the index.
            n: at most this many.

        Returns:
            Task and group names, the closest first (``difflib`` ratio at least 0.6); empty when none is close.
        """
        import difflib

        return difflib.get_close_matches(name, sorted(self.names), n=n, cutoff=0.6)
