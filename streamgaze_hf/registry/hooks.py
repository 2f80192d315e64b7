"""What a benchmark package's code provides: the functions each part must define (:data:`REQUIRED`), the one
list of every optional hook (:data:`HOOKS`) and the evaluation module's protocol (:class:`EvaluationModule`).

A *part* is one module of a benchmark package with a job (``references.PACKAGE_FILES``): the evaluation module
(required), and the optional ``cli``, ``report`` and ``leaderboard`` parts, which a package declares
(``declare(..., parts=...)``). A *hook* is a name a part may define; the toolkit supplies a default for each
one a part does not register. A part registers its hooks explicitly: :func:`hook` over a function,
:func:`provide` for a value (an UPPER_CASE hook), and a name that is not a hook is refused there, when the module is
imported. Shared code reaches every part through ``Benchmark.plugin()`` (``plugin.Plugin``, the adapter), which
reads only what a part registered (:func:`registered`): nothing else looks into a benchmark's modules.

    >>> from streamgaze_hf.registry import hook
    >>> @hook
    ... def leaderboard_value(scores): ...
    Traceback (most recent call last):
    ...
    streamgaze_hf.registry.hooks.UnknownHook: unknown hook 'leaderboard_value' in ...; did you mean leaderboard_values or leaderboard_scores?; ...
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..util.spelling import did_you_mean

__all__ = ["REQUIRED", "HOOKS", "EvaluationModule", "UnknownHook", "hook", "provide", "registered"]

_F = TypeVar("_F", bound=Callable[..., Any])
#: the one name a part's module holds its registered hooks under (hook name -> the function or value)
_TABLE = "__streamgaze_hooks__"

#: part -> the functions its module must define (a module lacking one is refused when first used)
REQUIRED: Mapping[str, tuple[str, ...]] = {
    "evaluation": ("load_docs", "doc_visuals", "doc_prompt", "doc_target", "score_doc", "task_metrics"),
    "report": ("run_breakdown", "format_breakdown"),
}

#: every optional hook, name -> the part whose module may define it; an UPPER_CASE hook is a value, any other a
#: function. The adapter (``plugin.Plugin``) gives each its default:
#:
#: * ``evaluation``: ``leaderboard_scores(records)`` (default: accuracy per task, their mean),
#:   ``metric_value(records, name)`` (default: the ``task_metrics`` fraction in percent),
#:   ``BREAKDOWN_KEYS`` + ``breakdown(records, key)`` (default: none), ``baseline_random_answer(rng, doc)``
#:   (default: the shared rule), ``score_answers(key, responses, prompt_mode, clip_fps)`` (default: the shared
#:   scores layout), ``leaderboard_values(scores)`` (default: the shared layout's), ``metric_records(record)``
#:   (default: the record under each of its task's metrics);
#: * ``leaderboard``: ``dataset_section(manifest)``, ``reference_section()`` (default: the shared section rule);
#: * ``report``: ``HELP``, its one-line help (default: "<title>: breakdown of an lmms-eval run");
#: * ``cli``: ``RAW``, ``RELEASE``: ``(help, configure)`` of its ``build``/``import`` sub-command (default: the
#:   common options).
HOOKS: Mapping[str, str] = {
    "leaderboard_scores": "evaluation",
    "metric_value": "evaluation",
    "BREAKDOWN_KEYS": "evaluation",
    "breakdown": "evaluation",
    "baseline_random_answer": "evaluation",
    "score_answers": "evaluation",
    "leaderboard_values": "evaluation",
    "metric_records": "evaluation",
    "dataset_section": "leaderboard",
    "reference_section": "leaderboard",
    "HELP": "report",
    "RAW": "cli",
    "RELEASE": "cli",
}


class UnknownHook(TypeError):
    """A part registered a name that is not a hook of :data:`HOOKS` (a misspelling, or a value hook given as a
    function and the reverse); the message names it, its module and the hooks there are."""


def provide(module: str, **values: Any) -> None:
    """Register hooks of a part's module: ``provide(__name__, HELP="...")`` for a value hook, and what
    :func:`hook` does for a function.

    Args:
        module: the part's module name (``__name__``; the module being imported).
        **values: hook name (a key of :data:`HOOKS`) -> its function or value.

    Raises:
        UnknownHook: a name is not a hook (the message names it and the hooks there are, with "did you mean"),
            a function hook is given a value that is not callable, or a value hook a function.
    """
    table = vars(sys.modules[module]).setdefault(_TABLE, {})
    for name, value in values.items():
        if name not in HOOKS:
            raise UnknownHook(f"unknown hook {name!r} in {module}{did_you_mean(name, HOOKS)}; the hooks are "
                              f"{', '.join(HOOKS)} (streamgaze_hf/registry/hooks.py: HOOKS)")
        if name.isupper() == callable(value):
            kind = "a value" if name.isupper() else "a function"
            raise UnknownHook(f"the hook {name!r} of {module} is {kind}, not {type(value).__name__}")
        table[name] = value


def hook(func: _F) -> _F:
    """Register a function of a part's module as the hook of its name (``@hook`` over
    ``def leaderboard_values(scores): ...``).

    Args:
        func: the function; its ``__name__`` is the hook's name (a key of :data:`HOOKS`).

    Returns:
        The same function.

    Raises:
        UnknownHook: its name is not a hook (the message names it and the hooks there are, with "did you mean").
    """
    provide(func.__module__, **{func.__name__: func})
    return func


def registered(module: ModuleType) -> dict[str, Any]:
    """The hooks a part's module registered (:func:`hook`, :func:`provide`), for the adapter.

    Args:
        module: the part's module, imported.

    Returns:
        Hook name -> the function or value (empty when it registered none).
    """
    return dict(vars(module).get(_TABLE, {}))


@runtime_checkable
class EvaluationModule(Protocol):
    """What a benchmark's evaluation module defines (module-level functions).

    * ``load_docs(task_id, gaze, root=None, *, rows=None, settings=None)``: the task's evaluation documents
      (each carries ``benchmark``, ``task`` and ``question_id``), derived from ``rows`` (the task config's rows)
      when given, else from the config read at ``root``, for the run ``settings``
      (``streamgaze_hf.evaluation.settings.RunSettings``; None: ``given``), which each document records;
    * ``doc_visuals(doc)``: what the model is shown (clip paths from the shared clip cache, images);
    * ``doc_prompt(doc)``, ``doc_target(doc)``: the prompt text and the reference answer;
    * ``score_doc(doc, response)``: the per-sample record (parsed answer, ``correct``, settings);
    * ``task_metrics(records)``: one task's metrics, fractions in [0, 1], None where undefined.

    Its optional hooks are those of :data:`HOOKS` whose part is ``evaluation``.
    """

    def load_docs(self, task_id: str, gaze: str = ..., root: Any = None, *, rows: Any = None,
                  settings: Any = None) -> list[dict]:
        """The evaluation documents of one task in one gaze mode.

        Args:
            task_id: the task's id.
            gaze: the gaze mode (a value of ``Benchmark.gaze_variants``).
            root: the dataset (a directory or ``hf://`` reference; None: the benchmark's default root).
            rows: the task config's rows when the caller has read them (lmms-eval's ``process_docs``), else
                read from ``root``.
            settings: the run's settings (``streamgaze_hf.evaluation.settings.RunSettings``; None: ``given``),
                which each document records.

        Returns:
            One document per question (per checkpoint of a checkpointed task's question), each with
            ``benchmark``, ``task`` and ``question_id``.

        Raises:
            StreamGazeError: an unknown task or gaze mode, or a dataset that cannot be read.
        """
        ...

    def doc_visuals(self, doc: Mapping) -> list:
        """What the model is shown for a document.

        Args:
            doc: an evaluation document of :meth:`load_docs`.

        Returns:
            Clip paths from the shared clip cache, or images.
        """
        ...

    def doc_prompt(self, doc: Mapping) -> str:
        """The prompt text of a document.

        Args:
            doc: an evaluation document.

        Returns:
            The text the model is given with :meth:`doc_visuals`.
        """
        ...

    def doc_target(self, doc: Mapping) -> str:
        """The reference answer of a document.

        Args:
            doc: an evaluation document.

        Returns:
            The answer (an option letter, Yes/No, or the benchmark's own form).
        """
        ...

    def score_doc(self, doc: Mapping, response: str) -> dict:
        """One model response scored.

        Args:
            doc: an evaluation document.
            response: the model's raw response ("" for an unanswered item).

        Returns:
            The per-sample record: the parsed answer, ``correct``, the document's identity and settings.
        """
        ...

    def task_metrics(self, records: list[dict]) -> dict:
        """One task's metrics.

        Args:
            records: the task's per-sample records (of :meth:`score_doc`).

        Returns:
            Metric name -> a fraction in [0, 1], or None where undefined.
        """
        ...
