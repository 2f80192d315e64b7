"""What a benchmark package's code provides: the functions each part must define (:data:`REQUIRED`), the one
list of every optional hook (:data:`HOOKS`) and the evaluation module's protocol (:class:`EvaluationModule`).

A *part* is one module of a benchmark package with a job (``references.PACKAGE_FILES``): the evaluation module
(required), and the optional ``cli``, ``report`` and ``leaderboard`` parts, which a package declares
(``declare(..., parts=...)``). A *hook* is a name a part may define; the toolkit supplies a default for each
one a part does not define. Shared code reaches every part through ``Benchmark.plugin()`` (``plugin.Plugin``,
the adapter): nothing else looks into a benchmark's modules for what they define.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["REQUIRED", "HOOKS", "EvaluationModule"]

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
