"""The leaderboard layout: how the one site shows a benchmark (its section, columns, notes, CSV, reference rows),
and the one rule for a score shown to people (:func:`score_text`) or written to a file (:func:`to_fraction`).

Leaderboard contract (submissions, ``streamgaze_hf/submission/``, and the leaderboard site,
``streamgaze_hf/leaderboard/``): every benchmark gets its own section of the one site, with its own columns,
ranking and reference rows, declared in its :class:`LeaderboardLayout` (``Benchmark.leaderboard``).

* ``columns``: the score columns of its table, in order, each a :class:`LeaderboardColumn`
  ``(key, label, higher_is_better=True, title="", digits=3, unit="fraction")`` or the plain tuple
  ``(key, label, higher_is_better)``. A column keyed ``"overall"`` sets the label and direction of the Overall
  column (rows are ranked by it; ``higher_is_better=False`` ranks the smallest first); it is not repeated as a
  score column. Default (``declare`` with none): one accuracy column per task id (label: the task name),
  higher is better, and Overall = their unweighted mean.
* The evaluation module's optional hook ``leaderboard_scores(records)`` (called through
  ``Benchmark.plugin()``, which supplies the default): ``records`` maps each task id to the per-sample records
  its ``score_doc`` made (one per item; an unanswered item is ``score_doc(doc, "")`` with ``missing=True``); it
  returns ``{"columns": {column key: value or None}, "overall": value or None}``. Default (no hook): the
  accuracy of ``task_metrics`` per task and their mean, as fractions. Values are in the units of the
  benchmark's reference rows (the paper's).
* Optional ``BREAKDOWN_KEYS`` (record fields such as ``source``) and ``breakdown(records, key)`` in the
  evaluation module: validate reports ``task_metrics`` per value of each.
* ``streamgaze submit`` reads the per-sample records lmms-eval logs under the metric key ``accuracy``; each
  must carry the benchmark's ``record_fields`` (``question_id``, ``task``, ``response``, ``gaze``,
  ``prompt_mode``, and ``checkpoint_index`` where it has checkpointed tasks); where it has ``parsed`` /
  ``correct``, they must equal what ``score_doc`` gives on re-scoring.
* ``paper_rows`` names the function returning the reference rows: ``streamgaze_hf.leaderboard.rows.Row``
  objects or dicts ``{name, group, source ("paper" | "human"), gaze, prompt_mode, dataset, tasks {column key:
  value or None}, overall}`` (optional ``frames``, ``params``). They are shown in a section of their own,
  never re-scored; a human row is never ranked. ``reference_questions``: the question count of the paper's
  full benchmark; a submission on a dataset of exactly that many questions is ranked in the reference section.
* The ``leaderboard`` part of its package (``hooks.HOOKS``: ``dataset_section(manifest)``,
  ``reference_section()``) replaces the shared section rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .references import resolve

__all__ = ["LeaderboardColumn", "LeaderboardLayout", "PERCENT_UNITS", "leaderboard_column", "score_text",
           "task_columns", "to_fraction"]

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
    #: the unit this column had in ``schema_version`` 1 submission files when it differs (``"percent"``);
    #: such files are converted when read (submission/schema.py)
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


def task_columns(tasks: Iterable) -> tuple[LeaderboardColumn, ...]:
    """The columns of a benchmark that declares none: one accuracy column per task, higher is better.

    Args:
        tasks: its task table (``TaskDef``s).

    Returns:
        One column per task (key: its id; label: its name).
    """
    return tuple(LeaderboardColumn(t.id, t.name, True, f"{t.name} ({t.category}): accuracy") for t in tasks)


@dataclass(frozen=True)
class LeaderboardLayout:
    """How the leaderboard shows one benchmark (see the module docstring); ``declare`` fills the defaults.

    ``columns``: its score columns (:class:`LeaderboardColumn`s; tuples and mappings are converted), an
    ``"overall"`` one among them setting the Overall's label and direction; ``page_title``: the page's title
    when the site shows this benchmark alone; ``notes``: the notes under its tables (empty: the shared ones);
    ``settings``: the settings shown under each model name (keys of ``leaderboard/rows.py``
    ``SETTINGS_COLUMNS``); ``csv_name``: its CSV file's name; ``paper_rows``: ``"module:function"`` returning
    its reference rows ("" = none); ``reference_questions``: the question count of the paper's full benchmark
    (a submission on a dataset of exactly that many questions is ranked with the paper's rows; None = never).
    """

    columns: tuple[LeaderboardColumn, ...] = ()
    page_title: str = ""
    notes: tuple[str, ...] = ()
    settings: tuple[str, ...] = ("gaze", "prompt_mode", "frames", "params")
    csv_name: str = ""
    paper_rows: str = ""
    reference_questions: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(leaderboard_column(c) for c in self.columns))

    def score_columns(self) -> tuple[LeaderboardColumn, ...]:
        """The leaderboard's score columns, without Overall.

        Returns:
            The declared :attr:`columns` but ``"overall"``.
        """
        return tuple(c for c in self.columns if c.key != "overall")

    def overall_column(self) -> LeaderboardColumn:
        """The Overall column (label, direction) rows are ranked by.

        Returns:
            A declared ``"overall"`` column, else the unweighted mean of the score columns, higher is better,
            in the first score column's unit and digits.
        """
        for col in self.columns:
            if col.key == "overall":
                return col
        first = next(iter(self.score_columns()), LeaderboardColumn("", ""))
        return LeaderboardColumn("overall", "Overall", True, "unweighted mean of the task scores", first.digits,
                                 first.unit)

    def reference_rows(self) -> list:
        """The paper's reference rows (:attr:`paper_rows`, see the module docstring).

        Returns:
            The rows (``leaderboard.rows.Row`` objects or dicts); empty when the benchmark declares none.
        """
        return list(resolve(self.paper_rows)()) if self.paper_rows else []
