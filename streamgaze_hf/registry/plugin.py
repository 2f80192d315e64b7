"""The adapter: a benchmark package's code as shared code calls it (``Benchmark.plugin()``).

:class:`Plugin` is the one place that looks into a benchmark's modules: it imports each part on first use
(the evaluation module, and the optional parts the benchmark declares), refuses a part without a required
function (``hooks.REQUIRED``) and gives every hook of ``hooks.HOOKS`` (the one the module registered with
``hooks.hook``/``hooks.provide``, else the default). It also resolves the benchmark's other declared references
(importers, the streaming module, the dataset layout's schema and card functions, its own commands), so shared
code never calls ``resolve`` nor probes a benchmark's module for what it defines
(``tests/unit/test_package_layout.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

from ..util.errors import StreamGazeError
from .hooks import HOOKS, REQUIRED, registered
from .references import DeclaredReferences, resolve

__all__ = ["Plugin"]

_PLUGINS: dict[str, Plugin] = {}


class Plugin(DeclaredReferences):
    """A benchmark's code through the contract: the required functions of its evaluation module, and each hook
    of :data:`~.hooks.HOOKS` (the part's own where it defines one, else the default). Nothing is imported until
    a part is first used; a part without a required function is refused then (``TypeError`` naming the
    benchmark and the functions).

    Args:
        benchmark: the declaration (a ``Benchmark``) whose code this is.
    """

    def __init__(self, benchmark: Any) -> None:
        self.benchmark = benchmark
        self._modules: dict[str, ModuleType | None] = {}
        self._own: dict[str, Any] = {}

    @classmethod
    def of(cls, benchmark: Any) -> Plugin:
        """The adapter of a benchmark, made once per benchmark object.

        Args:
            benchmark: a ``Benchmark``.

        Returns:
            Its :class:`Plugin`.
        """
        plugin = _PLUGINS.get(benchmark.name)
        if plugin is None or plugin.benchmark is not benchmark:
            plugin = _PLUGINS[benchmark.name] = cls(benchmark)
        return plugin

    # -- the parts
    def _module(self, part: str) -> ModuleType | None:
        """The module of a part, checked on first use; None when the benchmark declares no such part."""
        if part not in self._modules:
            ref = self.benchmark.evaluation if part == "evaluation" else self.benchmark.parts.get(part, "")
            module = resolve(ref) if ref else None
            if module is not None:
                self._own.update(self._check(part, module))
            self._modules[part] = module
        return self._modules[part]

    def _check(self, part: str, module: ModuleType) -> dict[str, Any]:
        """The hooks ``module`` registered (``hooks.hook``, ``hooks.provide``), after checking that it defines the
        part's required functions, registers only hooks of its part and defines no hook's name unregistered."""
        missing = [name for name in REQUIRED.get(part, ()) if not callable(getattr(module, name, None))]
        if missing:
            raise TypeError(f"the {part} module {module.__name__} of {self.benchmark.name} lacks "
                            f"{', '.join(missing)} (streamgaze_hf/registry/hooks.py: REQUIRED)")
        own = registered(module)
        elsewhere = [f"{name} (a hook of the {HOOKS[name]} part)" for name in own if HOOKS[name] != part]
        unmarked = [name for name, where in HOOKS.items() if where == part and name not in own
                    and name in vars(module) and not isinstance(vars(module)[name], ModuleType)]
        if elsewhere or unmarked:
            raise TypeError(f"the {part} module {module.__name__} of {self.benchmark.name} "
                            + (f"registers {', '.join(elsewhere)}" if elsewhere else
                               f"defines {', '.join(unmarked)} without registering it: @hook over a function, "
                               "provide(__name__, NAME=value) for a value (streamgaze_hf/registry/hooks.py)"))
        if "BREAKDOWN_KEYS" in own and "breakdown" not in own:
            raise TypeError(f"the evaluation module {module.__name__} of {self.benchmark.name} declares "
                            "BREAKDOWN_KEYS but no breakdown(records, key)")
        return own

    def _hook(self, name: str) -> Any:
        """The part's own hook ``name``, or None (the default runs)."""
        self._module(HOOKS[name])
        return self._own.get(name)

    def _part(self, part: str) -> ModuleType:
        module = self._module(part)
        if module is None:
            raise StreamGazeError(f"{self.benchmark.title} has no {part} part")
        return module

    @property
    def evaluation_module(self) -> ModuleType:
        """The evaluation module itself (its benchmark-specific functions too), imported and checked."""
        return self._part("evaluation")

    def has_hook(self, name: str) -> bool:
        """Whether the benchmark defines an optional hook itself.

        Args:
            name: a hook of :data:`~.hooks.HOOKS`.

        Returns:
            True when its part defines it, False when the default runs (or the part is not declared).

        Raises:
            KeyError: ``name`` is not a hook.
        """
        return self._hook(name) is not None

    # -- the evaluation module's required functions
    def load_docs(self, task_id: str, *args: Any, **kwargs: Any) -> list[dict]:
        """The module's ``load_docs`` (:meth:`~.hooks.EvaluationModule.load_docs`).

        Args:
            task_id: the task's id.
            *args: ``gaze``, ``root``, as the module takes them.
            **kwargs: ``rows``, ``settings`` and the module's own keywords (e.g. ``reasoning``).

        Returns:
            The task's evaluation documents.
        """
        return self.evaluation_module.load_docs(task_id, *args, **kwargs)

    def task_docs(self, task: Any, dataset: Any, *, rows: Any = None, settings: Any = None) -> list[dict]:
        """The documents of one lmms-eval task, in its gaze and reasoning mode, of its slice only (glue, head start).

        Args:
            task: the lmms-eval task (``lmms.LmmsTask``).
            dataset, rows, settings: as :meth:`load_docs` takes them.

        Returns:
            The documents, in the dataset's order."""
        kwargs = {"reasoning": task.reasoning} if task.reasoning else {}
        docs = self.load_docs(task.task_id, task.gaze, dataset, rows=rows, settings=settings, **kwargs)
        field_name, value = task.slice or ("", None)
        return [d for d in docs if d.get(field_name) == value] if task.slice else docs

    def doc_visuals(self, doc: Mapping, *args: Any, **kwargs: Any) -> list:
        """The module's ``doc_visuals`` (:meth:`~.hooks.EvaluationModule.doc_visuals`).

        Args:
            doc: an evaluation document.
            *args: the module's own further arguments (e.g. ``cache_dir``).
            **kwargs: the same, by name.

        Returns:
            What the model is shown (clip paths, images).
        """
        return self.evaluation_module.doc_visuals(doc, *args, **kwargs)

    def doc_prompt(self, doc: Mapping) -> str:
        """The module's ``doc_prompt``.

        Args:
            doc: an evaluation document.

        Returns:
            The prompt text.
        """
        return self.evaluation_module.doc_prompt(doc)

    def doc_target(self, doc: Mapping) -> str:
        """The module's ``doc_target``.

        Args:
            doc: an evaluation document.

        Returns:
            The reference answer.
        """
        return self.evaluation_module.doc_target(doc)

    def score_doc(self, doc: Mapping, response: str) -> dict:
        """The module's ``score_doc``.

        Args:
            doc: an evaluation document.
            response: the model's raw response ("" for an unanswered item).

        Returns:
            The per-sample record.
        """
        return self.evaluation_module.score_doc(doc, response)

    def task_metrics(self, records: list[dict]) -> dict:
        """The module's ``task_metrics``.

        Args:
            records: one task's per-sample records.

        Returns:
            Metric name -> a fraction in [0, 1], or None where undefined.
        """
        return self.evaluation_module.task_metrics(records)

    # -- the evaluation module's hooks
    def leaderboard_scores(self, records: Mapping[str, list[dict]]) -> dict:
        """The leaderboard values of the records (task id -> records). Default: each task's ``task_metrics``
        accuracy (None: no records) and their unweighted mean, fractions.

        Args:
            records: task id -> the per-sample records ``score_doc`` made (one per item; an unanswered item
                scored with ``missing=True``).

        Returns:
            ``{"columns": {column key: value or None}, "overall": value or None}``, in the units of the
            benchmark's reference rows.
        """
        if (own := self._hook("leaderboard_scores")) is not None:
            return own(records)
        cols = {t: (self.task_metrics(records[t])["accuracy"] if records.get(t) else None)
                for t in self.benchmark.task_ids}
        defined = [v for v in cols.values() if v is not None]
        return {"columns": cols, "overall": sum(defined) / len(defined) if defined else None}

    def metric_value(self, records: Iterable[dict], name: str) -> float:
        """One metric of a task's records as lmms-eval's table shows it. Default: the ``task_metrics``
        fraction in percent. Undefined (no records, a ratio with an empty denominator, a metric the
        task does not report) is NaN, never a made-up 0 or 100: the one rule of every task file.

        Args:
            records: one task's per-sample records.
            name: the metric's name.

        Returns:
            The value (percent for the default), or NaN where undefined.
        """
        records = list(records)
        if not records:
            return math.nan
        if (own := self._hook("metric_value")) is not None:
            return float(own(records, name))
        value = self.task_metrics(records).get(name)
        return math.nan if value is None else 100.0 * float(value)

    def metric_records(self, record: Mapping) -> dict[str, Mapping]:
        """The items a harness aggregates per metric for one per-sample record (lmms-eval's
        ``process_results``). Default: the same record under each of its task's metrics.

        Args:
            record: one per-sample record (of ``score_doc``; it names its ``task``).

        Returns:
            Metric name -> the item lmms-eval aggregates for it.
        """
        if (own := self._hook("metric_records")) is not None:
            return own(record)
        return {m: record for m in self.benchmark.metric_names(str(record["task"]))}

    @property
    def breakdown_keys(self) -> tuple[str, ...]:
        """The record fields ``validate`` breaks the task metrics down by (``BREAKDOWN_KEYS``; default none)."""
        return tuple(self._hook("BREAKDOWN_KEYS") or ())

    def breakdowns(self, records: Iterable[Mapping]) -> dict[str, dict]:
        """The task metrics broken down by the module's ``BREAKDOWN_KEYS`` (``validate`` reports them).

        Args:
            records: per-sample records.

        Returns:
            ``{key: breakdown(records, key)}`` for each of the keys but ``task``; empty when the module
            declares none (the default).
        """
        records = list(records)
        return {k: self._hook("breakdown")(records, k) for k in self.breakdown_keys if k != "task"}

    def baseline_random_answer(self, rng: Any, doc: Mapping) -> str | None:
        """The random baseline's answer by the benchmark's own rule, or None (default): the shared rule,
        a uniform option letter or Yes/No (``streamgaze_hf.evaluation.baselines.random_answer``).

        Args:
            rng: the generator the baseline draws from (a ``random.Random`` seeded per item).
            doc: an evaluation document.

        Returns:
            The answer, or None to use the shared rule.
        """
        own = self._hook("baseline_random_answer")
        return own(rng, doc) if own is not None else None

    def leaderboard_values(self, scores: Mapping) -> dict:
        """A validated submission's ``scores`` as leaderboard values. Default: the shared layout's ``overall``
        and ``columns`` (no per-source overall); a benchmark with its own layout (``score_answers``) defines it.

        Args:
            scores: the ``scores`` object of a validated submission.

        Returns:
            ``{"overall": x, "columns": {column key: x}, "by_source": {source: overall}}``.
        """
        if (own := self._hook("leaderboard_values")) is not None:
            return own(scores)
        return {"overall": scores.get("overall"), "columns": dict(scores.get("columns") or {}), "by_source": {}}

    def score_answers(self, key: Any, responses: Mapping, prompt_mode: str, clip_fps: float) -> Any:
        """A whole answer key scored into the benchmark's own submission scores layout (a
        ``streamgaze_hf.submission.answer_key.Rescored``), or None (default): the shared layout of
        ``streamgaze_hf.submission.answer_key.score_responses`` (columns, coverage, tasks, breakdowns).

        Args:
            key: the dataset's answer key (``streamgaze_hf.submission.answer_key.AnswerKey``).
            responses: the raw responses by item (``(question_id, checkpoint_index)`` -> response).
            prompt_mode: the run's prompt mode.
            clip_fps: the frame rate the run's clips were cut at.

        Returns:
            The ``Rescored`` scores, or None when the module defines no hook.
        """
        own = self._hook("score_answers")
        return own(key, responses, prompt_mode, clip_fps) if own is not None else None

    # -- the leaderboard part
    def dataset_section(self, manifest: Mapping[str, Any]) -> tuple[str, str, str] | None:
        """The section of the benchmark's submissions on a dataset, by its own rule.

        Args:
            manifest: the dataset's manifest.

        Returns:
            ``(key, title, note)``, or None (default): the shared rule (``leaderboard/sections.py``).
        """
        own = self._hook("dataset_section")
        return own(manifest) if own is not None else None

    def reference_section(self) -> tuple[str, str, str] | None:
        """The section of the benchmark's reference rows, by its own rule.

        Returns:
            ``(key, title, note)``, or None (default): the shared rule (``leaderboard/sections.py``).
        """
        own = self._hook("reference_section")
        return own() if own is not None else None

    # -- the report part
    def report_help(self) -> str | None:
        """The one-line help of the benchmark's own report (``streamgaze report NAME RUN``).

        Returns:
            Its ``HELP`` (default: "<title>: breakdown of an lmms-eval run"), or None when the benchmark declares
            no report.
        """
        if self._module("report") is None:
            return None
        return self._hook("HELP") or f"{self.benchmark.title}: breakdown of an lmms-eval run"

    def run_breakdown(self, run_dir: str) -> dict:
        """The report's numbers of one lmms-eval run.

        Args:
            run_dir: the run's ``--output_path``.

        Returns:
            The report's ``run_breakdown(run_dir)``.

        Raises:
            StreamGazeError: the benchmark declares no report.
        """
        return self._part("report").run_breakdown(run_dir)

    def format_breakdown(self, result: dict) -> str:
        """The report's text of :meth:`run_breakdown`'s numbers.

        Args:
            result: what :meth:`run_breakdown` gave.

        Returns:
            The report's ``format_breakdown(result)``.

        Raises:
            StreamGazeError: the benchmark declares no report.
        """
        return self._part("report").format_breakdown(result)

    # -- the cli part
    def importer_options(self, kind: str) -> tuple[str, Callable | None] | None:
        """The benchmark's own ``build``/``import`` sub-command for an importer kind: ``(help, configure)`` where
        ``configure(parser)`` adds the options and returns the handler (None: the common options).

        Args:
            kind: the importer kind, ``raw`` (``streamgaze build``: the ``RAW`` hook) or ``release``
                (``streamgaze import``: ``RELEASE``).

        Returns:
            ``(help, configure)``, or None (default): the common options with the toolkit's help.

        Raises:
            KeyError: ``kind`` is neither ``raw`` nor ``release``.
        """
        return self._hook({"raw": "RAW", "release": "RELEASE"}[kind])
