"""lmms-eval naming: how a benchmark's lmms-eval tasks and groups are named, from its declaration.

:class:`LmmsOptions` is what a benchmark declares beyond its tasks and gaze variants; :class:`LmmsTask` is one
lmms-eval task (an entry of the task index, ``task_index.py``); :class:`LmmsNaming` gives a ``Benchmark`` its
naming methods (``lmms_task_name``, ``lmms_tasks``, ``lmms_groups``, ``lower_is_better``), so the generated
task files (``lmms_tasks/generate.py``) and the index read one rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["LmmsOptions", "LmmsTask", "LmmsNaming"]


@dataclass(frozen=True)
class LmmsOptions:
    """How a benchmark's lmms-eval tasks are named and rendered beyond its tasks and gaze variants
    (``lmms_tasks/generate.py``; the task index, :meth:`LmmsNaming.lmms_tasks`).

    ``slices``: slice name -> (document field, value): besides each plain task, a task
    ``<task><_slice><gaze suffix>`` keeping the documents whose field has that value, and a group per slice.
    ``reasoning``: task-name suffix -> reasoning mode, each a variant of the plain gaze mode; the evaluation
    module's ``load_docs`` takes ``reasoning=``. ``category_groups``: one group per category over the plain
    tasks. ``cluster_key``: the document field lmms-eval clusters standard errors by. ``lower_is_better``: the
    metrics where a lower value is better (every other metric: higher). ``source``: what the generated files'
    header names as their source ("" = the registry).
    """

    slices: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    reasoning: Mapping[str, str] = field(default_factory=dict)
    category_groups: bool = False
    cluster_key: str = ""
    lower_is_better: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class LmmsTask:
    """One lmms-eval task of a benchmark (an entry of the task index): its name and what its documents are.

    ``suffix``: the variant part of the name after the task's base name ("" = the plain task); ``gaze``: the
    gaze mode of its documents; ``reasoning``: the reasoning mode ("" = none); ``slice``: (document field,
    value) the task keeps, or None."""

    name: str
    benchmark: str
    task_id: str
    gaze: str
    suffix: str = ""
    reasoning: str = ""
    slice: tuple[str, str] | None = None


class LmmsNaming:
    """The lmms-eval names of a benchmark, from its declared ``name``, ``tasks``, ``categories``,
    ``gaze_variants`` and ``lmms`` (:class:`LmmsOptions`): the naming methods of ``Benchmark``."""

    def lmms_task_name(self, task_id: str, gaze: str | None = None) -> str:
        """The lmms-eval task name of a task in a gaze mode.

        Args:
            task_id: the task's id.
            gaze: a gaze mode (a value of ``gaze_variants``); None: the base name, without a suffix.

        Returns:
            ``<base><suffix>``: the base is the task's ``lmms_name`` or ``<benchmark>_<task id>``; the suffix is
            the gaze mode's key in ``gaze_variants`` (the first one where two keys map to the mode).

        Raises:
            KeyError: no such task, or no such gaze mode (the message lists the modes).
        """
        base = self.task(task_id).lmms_name or f"{self.name}_{task_id}"
        if gaze is None:
            return base
        for suffix, mode in self.gaze_variants.items():
            if mode == gaze:
                return base + suffix
        raise KeyError(f"unknown {self.name} gaze mode {gaze!r}; modes are {', '.join(self.gaze_variants.values())}")

    def gaze_group(self, gaze: str) -> str:
        """The lmms-eval group over the task table in a gaze mode: the id a result of the whole benchmark in that
        mode goes by (a leaderboard row, a Hub ``eval.yaml`` task, a model's ``.eval_results`` entry).

        Args:
            gaze: a gaze mode (a value of ``gaze_variants``).

        Returns:
            ``<name><suffix>`` (e.g. ``streamgaze_nogaze``), the suffix the mode's first key in ``gaze_variants``.

        Raises:
            KeyError: no such gaze mode (the message lists the modes).
        """
        suffix = next((s for s, mode in self.gaze_variants.items() if mode == gaze), None)
        if suffix is None:
            raise KeyError(f"unknown {self.name} gaze mode {gaze!r}; modes are {', '.join(self.gaze_variants.values())}")
        return f"{self.name}{suffix}"

    def lmms_tasks(self) -> tuple[LmmsTask, ...]:
        """Every lmms-eval task of the benchmark (the entries of the task index).

        Returns:
            The tasks in the generated files' order: per gaze variant (and per slice of each,
            :attr:`LmmsOptions.slices`), then per reasoning variant in the plain gaze mode
            (:attr:`LmmsOptions.reasoning`), each over the task table.
        """
        variants: list[tuple[str, str, str, tuple[str, str] | None]] = []
        for suffix, gaze in self.gaze_variants.items():
            variants.append((suffix, gaze, "", None))
            variants += [(f"_{name}{suffix}", gaze, "", tuple(where)) for name, where in self.lmms.slices.items()]
        variants += [(suffix, self.plain_gaze, mode, None) for suffix, mode in self.lmms.reasoning.items()]
        return tuple(LmmsTask(self.lmms_task_name(t.id) + suffix, self.name, t.id, gaze, suffix, reasoning, where)
                     for suffix, gaze, reasoning, where in variants for t in self.tasks)

    @property
    def plain_gaze(self) -> str:
        """The gaze mode of its plain tasks (the task-name suffix ""; else its first gaze variant's)."""
        return self.gaze_variants.get("", next(iter(self.gaze_variants.values())))

    def lmms_groups(self) -> dict[str, tuple[str, ...]]:
        """The benchmark's lmms-eval groups.

        Returns:
            Group name -> member task names: one group per variant suffix over the task table
            (``<name><suffix>``, a paper's "Avg."), and with ``lmms.category_groups`` one per category over
            the plain tasks (``<name>_<category>``).
        """
        groups: dict[str, list[str]] = {}
        for task in self.lmms_tasks():
            groups.setdefault(f"{self.name}{task.suffix}", []).append(task.name)
        if self.lmms.category_groups:
            for cat in self.categories:
                groups[f"{self.name}_{cat}"] = [self.lmms_task_name(t.id) for t in self.tasks_in(cat)]
        return {name: tuple(members) for name, members in groups.items()}

    def lower_is_better(self, metric: str) -> bool:
        """Whether a lower value of a metric is better.

        Args:
            metric: a metric name (e.g. an error rate).

        Returns:
            True for the metrics the benchmark declares in ``lmms.lower_is_better``, else False.
        """
        return metric in self.lmms.lower_is_better
