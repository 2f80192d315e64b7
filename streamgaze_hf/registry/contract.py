"""The contract between the registry and a benchmark (docs/adding-a-benchmark.md), in one file:

* the declarations: :class:`TaskDef`, :class:`DatasetLayout`, :class:`LeaderboardColumn` and
  :class:`Benchmark` (its fields are explained in its docstring and in the registry's,
  ``streamgaze_hf/registry/__init__.py``);
* :class:`EvaluationModule`: the functions a benchmark's evaluation module defines, and
  :class:`Evaluation`, that module seen through the contract, with a default for every optional hook
  (:data:`HOOKS`). Shared code calls ``benchmark.evaluation_api().<hook>(...)`` and never probes a
  module for what it has;
* the importer kinds (:data:`IMPORTER_KINDS`: ``release``, the official release files; ``raw``, the
  raw recordings through a pipeline);
* :func:`declare`: a :class:`Benchmark` whose module references (``"module:attribute"`` strings) follow
  from its package name, the same file for the same job in every benchmark package (:data:`PACKAGE_FILES`).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from ..util.errors import StreamGazeError

__all__ = ["TaskDef", "DatasetLayout", "LeaderboardColumn", "LmmsOptions", "LmmsTask", "RunOption", "CommandDef",
           "Benchmark",
           "EvaluationModule", "Evaluation",
           "IMPORTER_KINDS", "PACKAGE_FILES", "REQUIRED", "HOOKS", "declare", "leaderboard_column", "resolve",
           "score_text", "to_fraction", "PERCENT_UNITS"]

#: importer kinds: ``release`` converts a benchmark's official release files, ``raw`` builds the dataset
#: from raw recordings (or annotations) through the benchmark's pipeline
IMPORTER_KINDS: tuple[str, ...] = ("release", "raw")
#: the file and function of each job inside a benchmark package ``<package>.<file>:<attribute>``
PACKAGE_FILES: Mapping[str, str] = {
    "evaluation": "evaluation",
    "paper_rows": "paper:paper_rows",
    "release": "release:import_release",
    "raw": "build:build_dataset",
    "qa_features": "schema:QA_FEATURES",
    "validate_row": "schema:validate_row",
    "file_paths": "schema:file_paths",
    "card_intro": "card:intro",
    "card_sections": "card:sections",
    "cli": "cli",
    "report": "report",
    "leaderboard": "leaderboard",
}
_EVALUATIONS: dict[str, Evaluation] = {}


def resolve(ref: str) -> Any:
    """The object a declaration names, imported on first use.

    Args:
        ref: ``"package.module:attribute"``, or ``"package.module"`` for the module itself.

    Returns:
        The attribute (or the module).

    Raises:
        ImportError: the module cannot be imported (``ModuleNotFoundError`` when there is none).
        AttributeError: the module has no such attribute.
    """
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


@dataclass(frozen=True)
class TaskDef:
    """One row of a benchmark's task table.

    ``visual_rule``: what the model is shown (StreamGaze: the time window rule; EgoGazeVQA: the
    frame group). ``option_count``: the number of options of every question, or None when it varies
    (StreamGaze: at least 4) or when the task is answered Yes/No (``proactive``). ``release_file``: the
    file of the benchmark's official release that holds the task's questions ("" when not one file).
    """

    id: str
    name: str
    category: str
    visual_rule: str
    option_count: int | None = None
    proactive: bool = False
    lmms_name: str = ""
    release_file: str = ""


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
class LeaderboardColumn:
    """One score column of a benchmark's leaderboard table (see the module docstring).

    ``unit``: what the stored value is. ``"fraction"`` (in [0, 1]) and ``"percent"`` (in [0, 100]) are
    shown to people as a percent with one decimal (as papers and lmms-eval print scores); any other unit
    (degrees, a distance, BLEU) is shown as stored with ``digits`` decimals. Machine-readable outputs
    (JSON, the leaderboard CSV) hold fractions for both percent units (:meth:`fraction`).
    """

    key: str
    label: str
    higher_is_better: bool = True
    title: str = ""
    digits: int = 3
    unit: str = "fraction"
    #: the unit this column had in ``schema_version`` 1 submission files when it differs (``"percent"``:
    #: EgoGazeVQA's and StreamEQA's accuracies); such files are converted when read (submission/schema.py)
    legacy_unit: str = ""

    @property
    def is_percent(self) -> bool:
        return self.unit in PERCENT_UNITS

    def text(self, value: float | None, blank: str = "") -> str:
        """``value`` as people read it (:func:`score_text` in this column's unit and digits).

        Args:
            value: a stored score of this column, or None (undefined).
            blank: what an undefined value shows.

        Returns:
            The text (a percent with one decimal, without the sign, for both percent units).
        """
        return score_text(value, self.unit, self.digits, blank)

    def fraction(self, value: float | None) -> float | None:
        """``value`` for a machine-readable file (:func:`to_fraction` in this column's unit).

        Args:
            value: a stored score of this column, or None.

        Returns:
            A fraction for both percent units, else the value as stored; None stays None.
        """
        return to_fraction(value, self.unit)


#: units shown as a percent with one decimal
PERCENT_UNITS = ("fraction", "percent")


def to_fraction(value: float | None, unit: str) -> float | None:
    """A stored score for a machine-readable file.

    Args:
        value: the score as stored, or None.
        unit: its unit (:attr:`LeaderboardColumn.unit`).

    Returns:
        ``value / 100`` for ``unit="percent"``, else ``value`` as stored (a fraction stays one); None stays None.
    """
    return None if value is None else (value / 100.0 if unit == "percent" else value)


def score_text(value: float | None, unit: str = "fraction", digits: int = 3, blank: str = "") -> str:
    """The one rule for a score shown to people: a fraction (``unit="fraction"``) or a percentage
    (``"percent"``) as a percent with one decimal, without the sign (tables say "%" in their header or
    note); any other unit as stored with ``digits`` decimals; ``blank`` when undefined.

    Args:
        value: the score as stored, or None (undefined).
        unit: its unit (:attr:`LeaderboardColumn.unit`).
        digits: the decimals of a unit that is not a percent unit.
        blank: what an undefined value shows.

    Returns:
        The text, e.g. ``"62.5"`` for the fraction 0.625.
    """
    if value is None:
        return blank
    if unit == "fraction":
        return f"{100.0 * value:.1f}"
    if unit == "percent":
        return f"{value:.1f}"
    return f"{value:.{digits}f}"


def leaderboard_column(spec: LeaderboardColumn | tuple | Mapping) -> LeaderboardColumn:
    """A column declaration as a :class:`LeaderboardColumn`.

    Args:
        spec: a :class:`LeaderboardColumn` (returned as is), a tuple of its fields in order
            (``(key, label, higher_is_better)``, ...) or a mapping of them by name.

    Returns:
        The column.

    Raises:
        TypeError: the tuple or mapping does not fit the fields of :class:`LeaderboardColumn`.
    """
    if isinstance(spec, LeaderboardColumn):
        return spec
    if isinstance(spec, Mapping):
        return LeaderboardColumn(**spec)
    return LeaderboardColumn(*spec)


#: metrics where a lower value is better in every benchmark (proactive alerts' false positive / negative rates)
LOWER_IS_BETTER: tuple[str, ...] = ("fpr", "fnr")


@dataclass(frozen=True)
class LmmsOptions:
    """How a benchmark's lmms-eval tasks are named and rendered beyond its tasks and gaze variants
    (``lmms_tasks/generate.py``; the task index, :meth:`Benchmark.lmms_tasks`).

    ``slices``: slice name -> (document field, value): besides each plain task, a task
    ``<task><_slice><gaze suffix>`` keeping the documents whose field has that value, and a group per slice
    (StreamEQA's time directions). ``reasoning``: task-name suffix -> reasoning mode, each a variant of the
    plain gaze mode (StreamGaze's paper Table 4); the evaluation module's ``load_docs`` takes
    ``reasoning=``. ``category_groups``: one group per category over the plain tasks. ``cluster_key``: the
    document field lmms-eval clusters standard errors by. ``lower_is_better``: metrics (besides
    :data:`LOWER_IS_BETTER`) where lower is better. ``source``: what the generated files' header names as
    their source ("" = the registry).
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
class Benchmark:
    """A benchmark's declaration (see the module docstring).

    ``gaze_variants``: lmms-eval task-name suffix -> gaze mode ("" is the benchmark's plain task);
    ``metrics``: metric names reported per task kind ("mc", "proactive") or per task id; ``evaluation``: the
    module that meets :class:`EvaluationModule` (shared code reaches it through :meth:`evaluation_api`);
    ``importers``: importer kind (:data:`IMPORTER_KINDS`) -> "module:function";
    ``paper_rows``: "module:function" returning the paper's reference rows;
    ``leaderboard_columns``: the leaderboard's score columns (module docstring; empty = one accuracy
    column per task); ``streaming``: the module of its streaming evaluation (``streamgaze stream-eval``:
    runner, results, submissions and leaderboard table; "" = none); ``parsed_answers``: what a
    submission's ``parsed`` answer of a multiple-choice task is, ``"string"`` (a letter, or null) or
    ``"any"`` (any JSON value the evaluation module's ``score_doc`` parses to); ``window_clips``: its
    documents are shown as window clips of the shared clip cache (``streamgaze_hf.evaluation.visuals.doc_visuals``),
    which ``streamgaze clips warm`` and the lmms-eval prefetcher prepare ahead of the model; ``review``:
    what its human-verification pages review (``streamgaze review``): ``"fixations"`` (corrections) or
    ``"questions"`` (verdicts), "" for none; ``record_fields``: what each per-sample record of its
    lmms-eval samples files must carry for ``streamgaze submit`` (with ``checkpoint_index`` when the
    benchmark has checkpointed tasks). A registered benchmark is one object: equal only to itself (and hashable,
    a dictionary key). ``lmms``: how its lmms-eval tasks are named and rendered
    (:class:`LmmsOptions`); ``reference_questions``: the question count of the paper's full benchmark (a
    submission on a dataset of exactly that many questions is ranked with the paper's rows; None = never);
    ``run_options``: run settings of its own (:class:`RunOption`); ``commands``: ``streamgaze`` commands of
    its own (name -> :class:`CommandDef`); ``aliases``: old command names -> the arguments they now stand for
    (each prints a deprecation line); ``extra``: the benchmark's own data, which shared code never reads.
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
    root_env: str
    default_root: str
    prompt_modes: tuple[str, ...] = ("default", "reference")
    importers: Mapping[str, str] = field(default_factory=dict)
    paper_rows: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    leaderboard_columns: tuple = ()
    streaming: str = ""
    parsed_answers: str = "any"
    window_clips: bool = False
    review: str = ""
    record_fields: tuple[str, ...] = ("question_id", "task", "response", "gaze", "prompt_mode")
    #: the leaderboard layout besides its columns: the page's title when the site shows this benchmark alone
    #: ("" = "<title> leaderboard"), the notes under its tables, the settings shown under each model name
    #: (keys of the shared settings columns, leaderboard/rows.py), and its CSV file's name
    leaderboard_title: str = ""
    leaderboard_notes: tuple[str, ...] = ()
    leaderboard_settings: tuple[str, ...] = ("gaze", "prompt_mode", "frames", "params")
    leaderboard_csv: str = ""
    lmms: LmmsOptions = field(default_factory=LmmsOptions)
    run_options: tuple[RunOption, ...] = ()
    commands: Mapping[str, CommandDef] = field(default_factory=dict)
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reference_questions: int | None = None
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
            category: one of :attr:`categories` (StreamGaze: ``past``, ``present``, ``proactive``).

        Returns:
            Its tasks in table order (empty for a category the benchmark does not have).
        """
        return tuple(t for t in self.tasks if t.category == category)

    def lmms_task_name(self, task_id: str, gaze: str | None = None) -> str:
        """The lmms-eval task name of a task in a gaze mode.

        Args:
            task_id: the task's id.
            gaze: a gaze mode (a value of :attr:`gaze_variants`); None: the base name, without a suffix.

        Returns:
            ``<base><suffix>``: the base is the task's ``lmms_name`` or ``<benchmark>_<task id>``; the suffix is
            the gaze mode's key in :attr:`gaze_variants` (the first one where two keys map to the mode).

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
            (``<name><suffix>``, the paper's "Avg."), and with ``lmms.category_groups`` one per category over
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
            metric: a metric name (e.g. ``"fpr"``).

        Returns:
            True for the metrics of :data:`LOWER_IS_BETTER` and of ``lmms.lower_is_better``, else False.
        """
        return metric in LOWER_IS_BETTER or metric in self.lmms.lower_is_better

    def metric_set(self) -> tuple[str, ...]:
        """Every metric name the benchmark reports.

        Returns:
            The names of :attr:`metrics`, each once, in declaration order.
        """
        return tuple(dict.fromkeys(m for names in self.metrics.values() for m in names))

    def metric_names(self, task_id: str) -> tuple[str, ...]:
        """The task's metrics: ``metrics[task_id]`` when the benchmark declares per-task metrics
        (VL4Gaze), else those of its kind (``"mc"`` or ``"proactive"``).

        Args:
            task_id: the task's id.

        Returns:
            The metric names, in declaration order.

        Raises:
            KeyError: the task is unknown, or the benchmark declares no metrics for its kind.
        """
        if task_id in self.metrics:
            return self.metrics[task_id]
        return self.metrics["proactive" if self.task(task_id).proactive else "mc"]

    def evaluation_module(self):
        """The evaluation module itself (its benchmark-specific functions too).

        Returns:
            The module :attr:`evaluation` names, imported on first use.
        """
        return resolve(self.evaluation)

    def evaluation_api(self) -> Evaluation:
        """The evaluation module through the contract: its required functions and every optional hook,
        the module's own or the default (:class:`Evaluation`).

        Returns:
            The :class:`Evaluation`, built once per benchmark (again if the module object changed).

        Raises:
            TypeError: the module lacks a required function, or declares ``BREAKDOWN_KEYS`` without
                ``breakdown``.
            ImportError: the module cannot be imported.
        """
        ev = _EVALUATIONS.get(self.name)
        if ev is None or ev.module is not self.evaluation_module():
            ev = _EVALUATIONS[self.name] = Evaluation(self, self.evaluation_module())
        return ev

    def importer(self, name: str = "release") -> Callable:
        """The importer of a kind, imported on first use.

        Args:
            name: the importer kind (:data:`IMPORTER_KINDS`: ``release``, the official release files, or
                ``raw``, the raw recordings through the benchmark's pipeline).

        Returns:
            The importer function (``release.py:import_release`` or ``build.py:build_dataset`` as declared).

        Raises:
            KeyError: the benchmark declares no importer of that kind (the message lists those it has).
        """
        try:
            return resolve(self.importers[name])
        except KeyError:
            raise KeyError(f"{self.name} has no importer {name!r}; importers: {', '.join(self.importers)}") from None

    def streaming_module(self) -> ModuleType:
        """The benchmark's streaming evaluation (``streamgaze stream-eval``).

        Returns:
            The module :attr:`streaming` names.

        Raises:
            StreamGazeError: the benchmark has no streaming evaluation.
        """
        if not self.streaming:
            raise StreamGazeError(f"{self.title} has no streaming evaluation (stream-eval)")
        return resolve(self.streaming)

    def optional_module(self, job: str) -> ModuleType | None:
        """The module of an optional job of the benchmark's package (:data:`PACKAGE_FILES`: ``cli``,
        ``report``).

        Args:
            job: a key of :data:`PACKAGE_FILES` (the file is looked for beside the evaluation module).

        Returns:
            The module, or None when the package has no such file.

        Raises:
            KeyError: ``job`` is not a key of :data:`PACKAGE_FILES`.
        """
        module = f"{self.evaluation.partition(':')[0].rsplit('.', 1)[0]}.{PACKAGE_FILES[job]}"
        return resolve(module) if importlib.util.find_spec(module) is not None else None

    def cli_options(self, kind: str) -> tuple[str, Callable | None] | None:
        """The benchmark's own ``build``/``import`` sub-command for an importer kind, from its package's
        ``cli.py`` (:data:`PACKAGE_FILES`): ``(help, configure)`` where ``configure(parser)`` adds the
        options and returns the handler (None: the common options), or None when it declares none.

        Args:
            kind: the importer kind, ``raw`` (``streamgaze build``: the package's ``RAW``) or ``release``
                (``streamgaze import``: its ``RELEASE``).

        Returns:
            ``(help, configure)``, or None when the package has no ``cli.py`` or it declares none for ``kind``.

        Raises:
            KeyError: ``kind`` is neither ``raw`` nor ``release`` (only when the package has a ``cli.py``).
        """
        module = self.optional_module("cli")
        return None if module is None else getattr(module, {"raw": "RAW", "release": "RELEASE"}[kind], None)

    def reference_rows(self) -> list:
        """The paper's reference rows of the leaderboard (:attr:`paper_rows`, see the registry's docstring).

        Returns:
            The rows (``leaderboard.rows.Row`` objects or dicts); empty when the benchmark declares none.
        """
        return list(resolve(self.paper_rows)()) if self.paper_rows else []

    def score_columns(self) -> tuple[LeaderboardColumn, ...]:
        """The leaderboard's score columns, without Overall.

        Returns:
            The declared :attr:`leaderboard_columns` but ``"overall"``; when none are declared, one accuracy
            column per task (label: the task's name), higher is better.
        """
        cols = [leaderboard_column(c) for c in self.leaderboard_columns]
        if not cols:
            return tuple(LeaderboardColumn(t.id, t.name, True, f"{t.name} ({t.category}): accuracy") for t in self.tasks)
        return tuple(c for c in cols if c.key != "overall")

    @property
    def page_title(self) -> str:
        """The leaderboard page's title when it shows this benchmark alone."""
        return self.leaderboard_title or f"{self.title} leaderboard"

    @property
    def csv_name(self) -> str:
        """The file name of its leaderboard table as CSV."""
        return self.leaderboard_csv or f"leaderboard-{self.name}.csv"

    def overall_column(self) -> LeaderboardColumn:
        """The Overall column (label, direction) rows are ranked by.

        Returns:
            A declared ``"overall"`` column, else the unweighted mean of the score columns, higher is better,
            in the first score column's unit and digits.
        """
        for c in self.leaderboard_columns:
            col = leaderboard_column(c)
            if col.key == "overall":
                return col
        first = next(iter(self.score_columns()), LeaderboardColumn("", ""))
        return LeaderboardColumn("overall", "Overall", True, "unweighted mean of the task scores", first.digits,
                                 first.unit)


# ---- the evaluation module --------------------------------------------------------------------------

#: the functions every evaluation module defines
REQUIRED: tuple[str, ...] = ("load_docs", "doc_visuals", "doc_prompt", "doc_target", "score_doc", "task_metrics")
#: the optional hooks (defaults in :class:`Evaluation`); ``BREAKDOWN_KEYS`` is the optional attribute
#: that goes with ``breakdown``
HOOKS: tuple[str, ...] = ("leaderboard_scores", "metric_value", "breakdown", "baseline_random_answer",
                          "score_answers", "leaderboard_values", "metric_records")


@runtime_checkable
class EvaluationModule(Protocol):
    """What a benchmark's evaluation module defines (module-level functions).

    * ``load_docs(task_id, gaze, root=None, *, rows=None, settings=None)``: the task's evaluation documents
      (each carries ``benchmark``, ``task`` and ``question_id``), derived
      from ``rows`` (the task config's rows) when given, else from the config read at ``root``, for the run
      ``settings`` (``streamgaze_hf.evaluation.settings.RunSettings``; None: ``given``), which each document records;
    * ``doc_visuals(doc)``: what the model is shown (clip paths from the shared clip cache, images);
    * ``doc_prompt(doc)``, ``doc_target(doc)``: the prompt text and the reference answer;
    * ``score_doc(doc, response)``: the per-sample record (parsed answer, ``correct``, settings);
    * ``task_metrics(records)``: one task's metrics, fractions in [0, 1], None where undefined.

    Optional hooks (:data:`HOOKS`), with the defaults of :class:`Evaluation`: ``leaderboard_scores(records)``,
    ``metric_value(records, name)``, ``BREAKDOWN_KEYS`` + ``breakdown(records, key)``,
    ``baseline_random_answer(rng, doc)``, ``metric_records(record)``, ``leaderboard_values(scores)``,
    ``score_answers(key, responses, prompt_mode, clip_fps)``.
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
            One document per question (per checkpoint of a proactive question), each with ``benchmark``,
            ``task`` and ``question_id``.

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


class Evaluation:
    """A benchmark's evaluation module through the contract: the :data:`REQUIRED` functions, and each
    optional hook of :data:`HOOKS` — the module's own where it defines one, else the default below.
    A module without a required function is refused (``TypeError`` naming the benchmark and the
    functions) when the benchmark's evaluation is first asked for."""

    def __init__(self, benchmark: Benchmark, module: ModuleType) -> None:
        missing = [name for name in REQUIRED if not callable(getattr(module, name, None))]
        if missing:
            raise TypeError(f"the evaluation module {module.__name__} of {benchmark.name} lacks "
                            f"{', '.join(missing)} (streamgaze_hf/registry/contract.py: EvaluationModule)")
        self.benchmark = benchmark
        self.module = module
        self._hooks: dict[str, Callable] = {name: getattr(module, name) for name in HOOKS
                                            if callable(getattr(module, name, None))}
        #: record fields ``validate`` breaks the task metrics down by (with the module's ``breakdown``)
        self.breakdown_keys: tuple[str, ...] = tuple(getattr(module, "BREAKDOWN_KEYS", ()))
        if self.breakdown_keys and "breakdown" not in self._hooks:
            raise TypeError(f"the evaluation module {module.__name__} of {benchmark.name} declares "
                            "BREAKDOWN_KEYS but no breakdown(records, key)")

    def has_hook(self, name: str) -> bool:
        """Whether the module defines an optional hook itself.

        Args:
            name: a hook of :data:`HOOKS`.

        Returns:
            True when the module defines it (a callable of that name), False when the default runs.
        """
        return name in self._hooks

    # -- required
    def load_docs(self, task_id: str, *args: Any, **kwargs: Any) -> list[dict]:
        """The module's ``load_docs`` (:meth:`EvaluationModule.load_docs`).

        Args:
            task_id: the task's id.
            *args: ``gaze``, ``root``, as the module takes them.
            **kwargs: ``rows``, ``settings`` and the module's own keywords (StreamGaze: ``reasoning``).

        Returns:
            The task's evaluation documents.
        """
        return self.module.load_docs(task_id, *args, **kwargs)

    def doc_visuals(self, doc: Mapping, *args: Any, **kwargs: Any) -> list:
        """The module's ``doc_visuals`` (:meth:`EvaluationModule.doc_visuals`).

        Args:
            doc: an evaluation document.
            *args: the module's own further arguments (e.g. ``cache_dir``).
            **kwargs: the same, by name.

        Returns:
            What the model is shown (clip paths, images).
        """
        return self.module.doc_visuals(doc, *args, **kwargs)

    def doc_prompt(self, doc: Mapping) -> str:
        """The module's ``doc_prompt``.

        Args:
            doc: an evaluation document.

        Returns:
            The prompt text.
        """
        return self.module.doc_prompt(doc)

    def doc_target(self, doc: Mapping) -> str:
        """The module's ``doc_target``.

        Args:
            doc: an evaluation document.

        Returns:
            The reference answer.
        """
        return self.module.doc_target(doc)

    def score_doc(self, doc: Mapping, response: str) -> dict:
        """The module's ``score_doc``.

        Args:
            doc: an evaluation document.
            response: the model's raw response ("" for an unanswered item).

        Returns:
            The per-sample record.
        """
        return self.module.score_doc(doc, response)

    def task_metrics(self, records: list[dict]) -> dict:
        """The module's ``task_metrics``.

        Args:
            records: one task's per-sample records.

        Returns:
            Metric name -> a fraction in [0, 1], or None where undefined.
        """
        return self.module.task_metrics(records)

    # -- hooks
    def leaderboard_scores(self, records: Mapping[str, list[dict]]) -> dict:
        """``{"columns": {key: value or None}, "overall": value or None}`` of the records (task id ->
        records). Default: each task's ``task_metrics`` accuracy (None: no records) and their
        unweighted mean, fractions.

        Args:
            records: task id -> the per-sample records ``score_doc`` made (one per item; an unanswered item
                scored with ``missing=True``).

        Returns:
            ``{"columns": {column key: value or None}, "overall": value or None}``, in the units of the
            benchmark's reference rows.
        """
        if "leaderboard_scores" in self._hooks:
            return self._hooks["leaderboard_scores"](records)
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
        if "metric_value" in self._hooks:
            return float(self._hooks["metric_value"](records, name))
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
        if "metric_records" in self._hooks:
            return self._hooks["metric_records"](record)
        return {m: record for m in self.benchmark.metric_names(str(record["task"]))}

    def breakdowns(self, records: Iterable[Mapping]) -> dict[str, dict]:
        """The task metrics broken down by the module's ``BREAKDOWN_KEYS`` (``validate`` reports them).

        Args:
            records: per-sample records.

        Returns:
            ``{key: breakdown(records, key)}`` for each of the keys but ``task``; empty when the module
            declares none (the default).
        """
        records = list(records)
        return {k: self._hooks["breakdown"](records, k) for k in self.breakdown_keys if k != "task"}

    def baseline_random_answer(self, rng: Any, doc: Mapping) -> str | None:
        """The random baseline's answer by the benchmark's own rule, or None (default): the shared rule,
        a uniform option letter or Yes/No (``streamgaze_hf.evaluation.baselines.random_answer``).

        Args:
            rng: the generator the baseline draws from (a ``random.Random`` seeded per item).
            doc: an evaluation document.

        Returns:
            The answer, or None to use the shared rule.
        """
        if "baseline_random_answer" in self._hooks:
            return self._hooks["baseline_random_answer"](rng, doc)
        return None

    def leaderboard_values(self, scores: Mapping) -> dict:
        """A validated submission's ``scores`` as leaderboard values: ``{"overall": x, "columns": {column key:
        x}, "by_source": {source: overall}}``. Default: the shared layout's ``overall`` and ``columns`` (no
        per-source overall); a benchmark with its own layout (``score_answers``) defines the hook.

        Args:
            scores: the ``scores`` object of a validated submission.

        Returns:
            ``{"overall": x, "columns": {column key: x}, "by_source": {source: overall}}``.
        """
        if "leaderboard_values" in self._hooks:
            return self._hooks["leaderboard_values"](scores)
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
        if "score_answers" in self._hooks:
            return self._hooks["score_answers"](key, responses, prompt_mode, clip_fps)
        return None


# ---- declaring a benchmark ---------------------------------------------------------------------------

def package_ref(package: str, job: str) -> str:
    """The ``"module:attribute"`` of a job in a benchmark package.

    Args:
        package: the benchmark package's ``__name__``.
        job: a key of :data:`PACKAGE_FILES`.

    Returns:
        ``"<package>.<file>:<attribute>"`` (a module reference for the jobs that name a module).

    Raises:
        KeyError: ``job`` is not a key of :data:`PACKAGE_FILES`.
    """
    return f"{package}.{PACKAGE_FILES[job]}"


def declare(package: str, *, dataset: Mapping[str, Any], importers: Sequence[str] = ("release",),
            **fields: Any) -> Benchmark:
    """A :class:`Benchmark` whose module references follow from ``package`` (a benchmark package's
    ``__name__``) by :data:`PACKAGE_FILES`: ``evaluation.py``, ``paper.py:paper_rows``, one importer per
    kind in ``importers`` (``release.py:import_release``, ``build.py:build_dataset``), the dataset
    layout's ``schema.py`` (``QA_FEATURES``, ``validate_row``, ``file_paths``) and ``card.py`` (``intro``,
    ``sections``). ``dataset``: the other :class:`DatasetLayout` fields;
    ``fields``: the other :class:`Benchmark` fields (an explicit reference there wins).

    Args:
        package: the benchmark package's ``__name__``.
        dataset: the :class:`DatasetLayout` fields besides the derived references (an explicit one wins).
        importers: the importer kinds the package has.
        **fields: the :class:`Benchmark` fields (``name``, ``title``, ``tasks``, ...).

    Returns:
        The declaration (not yet registered: pass it to ``register``).

    Raises:
        ValueError: an importer kind is not one of :data:`IMPORTER_KINDS`.
        TypeError: a required field is missing, or a field is unknown.
    """
    unknown = [k for k in importers if k not in IMPORTER_KINDS]
    if unknown:
        raise ValueError(f"unknown importer kinds {unknown}; kinds are {', '.join(IMPORTER_KINDS)}")
    refs = {job: package_ref(package, job)
            for job in ("qa_features", "validate_row", "file_paths", "card_intro", "card_sections")}
    fields.setdefault("evaluation", package_ref(package, "evaluation"))
    fields.setdefault("paper_rows", package_ref(package, "paper_rows"))
    fields.setdefault("importers", {kind: package_ref(package, kind) for kind in importers})
    return Benchmark(dataset=DatasetLayout(**{**refs, **dataset}), **fields)
