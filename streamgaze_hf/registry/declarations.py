"""The declarations: what a benchmark says about itself, as data (docs/adding-a-benchmark.md).

:class:`TaskDef` (a row of its task table), :class:`DatasetLayout` (what the shared dataset code needs),
:class:`RunOption` and :class:`CommandDef` (settings and commands of its own) and :class:`Benchmark`, which
holds them with its :class:`~.lmms.LmmsOptions` and :class:`~.leaderboard_layout.LeaderboardLayout`;
:func:`declare` makes a :class:`Benchmark` whose references follow from its package's name
(``references.PACKAGE_FILES``). A declaration holds no code: its parts are imported on first use, and shared
code calls them through :meth:`Benchmark.plugin` (``plugin.Plugin``, the adapter).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..util.errors import StreamGazeError
from .leaderboard_layout import LeaderboardLayout, task_columns
from .lmms import LmmsNaming, LmmsOptions
from .plugin import Plugin
from .references import IMPORTER_KINDS, OPTIONAL_PARTS, package_ref

__all__ = ["TaskDef", "DatasetLayout", "RunOption", "CommandDef", "Benchmark", "declare"]


@dataclass(frozen=True)
class TaskDef:
    """One row of a benchmark's task table.

    ``visual_rule``: what the model is shown (a time window rule, a frame group, an image).
    ``option_count``: the number of options of every question, or None when it varies or when the task is
    answered Yes/No (``checkpointed``). ``checkpointed``: each question is asked at several checkpoints and
    answered Yes/No at each (one document and one record per checkpoint, keyed by ``checkpoint_index``; its
    metrics are the benchmark's ``metrics["checkpointed"]``). ``release_file``: the file of the benchmark's
    official release that holds the task's questions ("" when not one file).
    """

    id: str
    name: str
    category: str
    visual_rule: str
    option_count: int | None = None
    checkpointed: bool = False
    lmms_name: str = ""
    release_file: str = ""

    @property
    def kind(self) -> str:
        """The task's kind, the key of its metrics when the benchmark declares them per kind: ``"checkpointed"``
        or ``"mc"`` (one answer per question)."""
        return "checkpointed" if self.checkpointed else "mc"


@dataclass(frozen=True)
class DatasetLayout:
    """What the shared dataset writer, loader, statistics and card need to know about a benchmark.

    Every benchmark writes the same directory layout (card, CHANGELOG, manifest, ``data/<config>/``,
    files) and shares the ``videos``, ``gaze`` and ``fixations`` configs; the QA configs (one per
    task) follow ``qa_features``. ``validate_row(row, duration)`` returns a list of problems (empty =
    valid); ``file_paths(row)`` the dataset-relative files a QA row refers to (each must be written
    with the dataset). ``qa_sort_keys`` orders the QA rows deterministically. Card texts, filled into
    the one card skeleton of ``dataset/card.py``: ``card_intro(stats, version)`` (what the benchmark is,
    how to load it) and ``card_sections(stats, root)`` (Markdown sections after the video-files note).
    """

    dataset_name: str
    pretty_name: str
    qa_features: str  # "module:attribute" of a datasets.Features
    validate_row: str  # "module:function" (row, duration) -> list[str]
    file_paths: str  # "module:function" (row) -> list[str]
    qa_sort_keys: tuple[str, ...]
    tags: tuple[str, ...] = ()
    card_intro: str = ""  # "module:function" (declare() names card.py:intro)
    card_sections: str = ""  # "module:function" (declare() names card.py:sections)
    loading_example: str = ""  # the config name used in the card's loading example
    task_categories: tuple[str, ...] = ("video-text-to-text",)  # the card's Hugging Face task categories
    license: str = "cc-by-4.0"  # the card's licence id (Hugging Face: "other" when it is not one licence)
    license_note: str = ""  # the card's "## License" text ("" = the default text of dataset/card.py)
    media: str = "video"  # "image": the rows of the videos config are still images (no durations in the stats)


@dataclass(frozen=True)
class RunOption:
    """A run setting of one benchmark's own (``Benchmark.run_options``), read from the environment at the
    edges like the shared ones (``streamgaze_hf.evaluation.settings.RunSettings.option``).

    ``name``: the key the benchmark's code asks for; ``env``: the variable that sets it (a contract:
    users and scripts set it); ``default``: its value when unset; ``choices``: the values it may take
    (empty: any); ``secret``: never shown or recorded (a key); ``recorded_as``: the document and record
    field that carries it ("" = not recorded); ``help``: one line for the docs.
    """

    name: str
    env: str
    default: str = ""
    choices: tuple[str, ...] = ()
    secret: bool = False
    recorded_as: str = ""
    help: str = ""


@dataclass(frozen=True)
class CommandDef:
    """A ``streamgaze`` command of one benchmark's own (``Benchmark.commands``), listed with the shared ones.

    ``help``: its line in ``streamgaze --help``; ``configure``: ``"module:function"`` that adds the command's
    arguments to its parser and returns its handler (imported only when the command runs or its help is
    asked for); ``group``: the shared command group it is listed after (``data``, ``review``,
    ``evaluate``, ``submit``, ``cache``, ``hub``).
    """

    help: str
    configure: str
    group: str = "evaluate"


@dataclass(frozen=True, eq=False)
class Benchmark(LmmsNaming):
    """A benchmark's declaration (see the module docstring).

    ``gaze_variants``: lmms-eval task-name suffix -> gaze mode ("" is the benchmark's plain task);
    ``metrics``: metric names reported per task kind (:attr:`TaskDef.kind`: ``"mc"``, ``"checkpointed"``) or
    per task id; ``evaluation``: the module that meets ``hooks.EvaluationModule`` (shared code reaches it
    through :meth:`plugin`); ``dataset``: its :class:`DatasetLayout`; ``leaderboard``: its
    :class:`~.leaderboard_layout.LeaderboardLayout`; ``importers``: importer kind (``IMPORTER_KINDS``) ->
    "module:function"; ``parts``: the optional parts of its package (``references.OPTIONAL_PARTS``) -> module;
    ``streaming``: the module of its streaming evaluation (``streamgaze stream-eval``: runner, results,
    submissions and leaderboard table; "" = none); ``parsed_answers``: what a submission's ``parsed`` answer
    of a multiple-choice task is, ``"string"`` (a letter, or null) or ``"any"`` (any JSON value the evaluation
    module's ``score_doc`` parses to); ``window_clips``: its documents are shown as window clips of the shared
    clip cache (``streamgaze_hf.evaluation.visuals.doc_visuals``), which ``streamgaze clips warm`` and the
    lmms-eval prefetcher prepare ahead of the model; ``review``: what its human-verification pages review
    (``streamgaze review``): ``"fixations"`` (corrections) or ``"questions"`` (verdicts), "" for none;
    ``record_fields``: what each per-sample record of its lmms-eval samples files must carry for ``streamgaze
    submit`` (with ``checkpoint_index`` when the benchmark has checkpointed tasks); ``lmms``: how its
    lmms-eval tasks are named and rendered (:class:`~.lmms.LmmsOptions`, the naming methods of
    :class:`~.lmms.LmmsNaming`); ``run_options``: run settings of its own (:class:`RunOption`); ``recorded_settings``: the run settings
    that change its numbers, recorded everywhere a run is (``streamgaze_hf.evaluation.recorded``); ``commands``:
    ``streamgaze`` commands of its own (name -> :class:`CommandDef`); ``aliases``: old command names -> the
    arguments they now stand for (each prints a deprecation line); ``extra``: the benchmark's own data, which
    shared code never reads. A registered benchmark is one object: equal only to itself (and hashable, a
    dictionary key).
    """

    name: str
    title: str
    paper: str
    tasks: tuple[TaskDef, ...]
    categories: tuple[str, ...]
    gaze_variants: Mapping[str, str]
    metrics: Mapping[str, tuple[str, ...]]
    evaluation: str
    dataset: DatasetLayout
    leaderboard: LeaderboardLayout
    root_env: str
    default_root: str
    prompt_modes: tuple[str, ...] = ("default", "reference")
    importers: Mapping[str, str] = field(default_factory=dict)
    parts: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    streaming: str = ""
    parsed_answers: str = "any"
    window_clips: bool = False
    review: str = ""
    record_fields: tuple[str, ...] = ("question_id", "task", "response", "gaze", "prompt_mode")
    lmms: LmmsOptions = field(default_factory=LmmsOptions)
    run_options: tuple[RunOption, ...] = ()
    #: the run settings its documents, records, submissions and results rows carry, in this order: names of
    #: ``streamgaze_hf.evaluation.recorded.SHARED`` and its run options' ``recorded_as``
    recorded_settings: tuple[str, ...] = ("prompt_mode",)
    commands: Mapping[str, CommandDef] = field(default_factory=dict)
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: where it is listed (help, registry order, the site's sections): lower first, ties by name
    order: int = 100
    #: whether it is the benchmark a command means when it names none, and the benchmark of datasets and
    #: submissions made before files named theirs; exactly one registered benchmark declares it
    default: bool = False

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tasks)

    def task(self, task_id: str) -> TaskDef:
        """A row of the task table (for ids that come from code or files; :meth:`require_task` for user input).

        Args:
            task_id: the task's id (:attr:`TaskDef.id`).

        Returns:
            Its :class:`TaskDef`.

        Raises:
            KeyError: the benchmark has no such task (the message lists its task ids).
        """
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"unknown {self.name} task {task_id!r}; tasks are {', '.join(self.task_ids)}")

    def require_task(self, task_id: str) -> TaskDef:
        """:meth:`task`, with an unknown id reported as a :class:`StreamGazeError` (user input).

        Args:
            task_id: the task's id, as the user gave it.

        Returns:
            Its :class:`TaskDef`.

        Raises:
            StreamGazeError: the benchmark has no such task (the message lists its task ids).
        """
        try:
            return self.task(task_id)
        except KeyError as exc:
            raise StreamGazeError(str(exc.args[0])) from None

    def tasks_in(self, category: str) -> tuple[TaskDef, ...]:
        """The tasks of one category.

        Args:
            category: one of :attr:`categories`.

        Returns:
            Its tasks in table order (empty for a category the benchmark does not have).
        """
        return tuple(t for t in self.tasks if t.category == category)

    def checkpointed_ids(self) -> tuple[str, ...]:
        """The tasks answered per checkpoint (:attr:`TaskDef.checkpointed`).

        Returns:
            Their ids, in table order.
        """
        return tuple(t.id for t in self.tasks if t.checkpointed)

    def metric_set(self) -> tuple[str, ...]:
        """Every metric name the benchmark reports.

        Returns:
            The names of :attr:`metrics`, each once, in declaration order.
        """
        return tuple(dict.fromkeys(m for names in self.metrics.values() for m in names))

    def metric_names(self, task_id: str) -> tuple[str, ...]:
        """The task's metrics: ``metrics[task_id]`` when the benchmark declares per-task metrics, else those
        of its kind (:attr:`TaskDef.kind`).

        Args:
            task_id: the task's id.

        Returns:
            The metric names, in declaration order.

        Raises:
            KeyError: the task is unknown, or the benchmark declares no metrics for its kind.
        """
        if task_id in self.metrics:
            return self.metrics[task_id]
        return self.metrics[self.task(task_id).kind]

    def plugin(self) -> Plugin:
        """The benchmark's code through the contract: the evaluation module's functions and every hook of
        ``hooks.HOOKS``, its own or the default (``plugin.Plugin``).

        Returns:
            The adapter, made once per benchmark (its parts are imported on first use).
        """
        return Plugin.of(self)

    def importer(self, name: str = "release") -> Callable:
        """The importer of a kind, imported on first use (through :meth:`plugin`: ``Plugin.importer``).

        Args:
            name: the importer kind (``IMPORTER_KINDS``: ``release``, the official release files, or
                ``raw``, the raw recordings through the benchmark's pipeline).

        Returns:
            The importer function (``release.py:import_release`` or ``build.py:build_dataset`` as declared).

        Raises:
            KeyError: the benchmark declares no importer of that kind (the message lists those it has).
        """
        return self.plugin().importer(name)

    def streaming_module(self) -> ModuleType:
        """The benchmark's streaming evaluation (``streamgaze stream-eval``; through :meth:`plugin`:
        ``Plugin.streaming_module``).

        Returns:
            The module :attr:`streaming` names.

        Raises:
            StreamGazeError: the benchmark has no streaming evaluation.
        """
        return self.plugin().streaming_module()


def declare(package: str, *, dataset: Mapping[str, Any], leaderboard: Mapping[str, Any] | None = None,
            importers: Sequence[str] = ("release",), parts: Sequence[str] = (), **fields: Any) -> Benchmark:
    """A :class:`Benchmark` whose references follow from ``package`` (a benchmark package's ``__name__``) by
    ``references.PACKAGE_FILES``: ``evaluation.py``; one importer per kind in ``importers``
    (``release.py:import_release``, ``build.py:build_dataset``); one module per optional part in ``parts``
    (``cli.py``, ``report.py``, ``leaderboard.py``); the dataset layout's ``schema.py`` (``QA_FEATURES``,
    ``validate_row``, ``file_paths``) and ``card.py`` (``intro``, ``sections``); the leaderboard layout's
    ``paper.py:paper_rows``, with its page title ("<title> leaderboard"), CSV name
    (``leaderboard-<name>.csv``) and columns (one per task) when none are given. An explicit value wins.

    Args:
        package: the benchmark package's ``__name__``.
        dataset: the :class:`DatasetLayout` fields besides the derived references (an explicit one wins).
        leaderboard: the :class:`~.leaderboard_layout.LeaderboardLayout` fields (an explicit one wins).
        importers: the importer kinds the package has.
        parts: the optional parts the package has (``references.OPTIONAL_PARTS``: ``cli``, ``report``,
            ``leaderboard``).
        **fields: the other :class:`Benchmark` fields (``name``, ``title``, ``tasks``, ...).

    Returns:
        The declaration (not yet registered: pass it to ``register``).

    Raises:
        ValueError: an importer kind is not one of ``IMPORTER_KINDS``, or a part not one of ``OPTIONAL_PARTS``.
        TypeError: a required field is missing, or a field is unknown.
    """
    for what, given, known in (("importer kinds", importers, IMPORTER_KINDS), ("parts", parts, OPTIONAL_PARTS)):
        unknown = [k for k in given if k not in known]
        if unknown:
            raise ValueError(f"unknown {what} {unknown}; {what.split()[-1]} are {', '.join(known)}")
    refs = {job: package_ref(package, job)
            for job in ("qa_features", "validate_row", "file_paths", "card_intro", "card_sections")}
    board = {"paper_rows": package_ref(package, "paper_rows"), **(leaderboard or {})}
    board["page_title"] = board.get("page_title") or f"{fields.get('title', '')} leaderboard"
    board["csv_name"] = board.get("csv_name") or f"leaderboard-{fields.get('name', '')}.csv"
    board["columns"] = tuple(board.get("columns") or ()) or task_columns(fields.get("tasks", ()))
    fields.setdefault("evaluation", package_ref(package, "evaluation"))
    fields.setdefault("importers", {kind: package_ref(package, kind) for kind in importers})
    fields.setdefault("parts", {part: package_ref(package, part) for part in parts})
    return Benchmark(dataset=DatasetLayout(**{**refs, **dataset}), leaderboard=LeaderboardLayout(**board), **fields)
