"""The settings a run records: each declared once, here, and everything that carries one derived from it.

A *recorded setting* is a run setting that changes a number, so every evaluation document, every per-sample
record, every submission's ``settings``, every results row and every leaderboard row names its value. Each is a
:class:`RecordedSetting`: its field name, type, allowed values, default (the value of a run that did not set
it, and of records written before the setting existed), how a person reads it, and whether a submission always
carries it. The shared ones are :data:`SHARED`; a benchmark's own come from its run options
(``registry.RunOption`` with ``recorded_as``: EgoGazeVQA's visual form). Which benchmark records which is
declared with the benchmark (``Benchmark.recorded_settings``); the gaze mode is part of a task's identity
(its lmms-eval task name), not of this list.

From this one declaration come:

* the documents' fields: :func:`document_settings` in each ``load_docs``;
* the per-sample record: :func:`record_settings` (every ``score_doc`` spreads it, no dict literal);
* the submission: ``submission.build`` collects each of :func:`recorded_settings` from the records (one value
  per run), :func:`submission_settings` writes them, ``submission.schema.settings_fields`` checks them;
* the results dataset's columns and rows (``leaderboard/service/results.py``: :func:`every_recorded_setting`)
  and the leaderboard's settings columns (``leaderboard/rows.py``), shown as :meth:`RecordedSetting.text` says.

Nothing here names a benchmark or one of a benchmark's own values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..registry import Benchmark, benchmarks
from ..util.provenance import run_provenance
from .protocols import PROTOCOLS
from .settings import RunSettings, given

__all__ = ["RecordedSetting", "SHARED", "recorded_settings", "recorded_names", "document_settings",
           "record_settings", "submission_fields", "submission_settings", "every_recorded_setting", "run_record",
           "row_settings", "row_texts", "settings_text"]


@dataclass(frozen=True)
class RecordedSetting:
    """One recorded setting (module docstring).

    ``name``: the field in documents, records, a submission's ``settings`` and results rows; ``label`` and
    ``help``: its leaderboard column's label and tooltip; ``number``: a number (a float), else a string;
    ``default``: the value when the run did not set it or a record does not carry it; ``choices``: the values it
    may take (empty: any string of at most ``max_len`` characters, or any number >= 0), or a function of the
    benchmark giving them; ``always``: a submission always carries it (else only when not the default "");
    ``required``: a submission file must carry it (an ``always`` one added later is absent from older files, read
    as its default);
    ``unset``: how a person reads the default ("" = the value itself); ``described`` and ``unit``: its phrase and
    the unit after a set value in ``validate``'s settings line; ``plural``: its values named in an error
    (default: ``described`` + "s").
    """

    name: str
    label: str
    help: str
    described: str
    number: bool = False
    default: Any = ""
    choices: tuple[str, ...] | Callable[[Benchmark], tuple[str, ...]] = ()
    max_len: int = 100
    always: bool = False
    required: bool = False
    unset: str = ""
    unit: str = ""
    plural: str = ""
    #: shown by its first word on the page (the whole value in its tooltip and the CSV): a long value
    brief: bool = False

    def __post_init__(self) -> None:
        if not self.plural:
            object.__setattr__(self, "plural", f"{self.described}s")

    def allowed(self, bench: Benchmark) -> tuple[str, ...]:
        """The values ``bench``'s runs may record (empty: any)."""
        return self.choices(bench) if callable(self.choices) else self.choices

    def value(self, raw: Any) -> Any:
        """A record's or document's value (None or absent: the default), as a submission carries it."""
        if self.number:
            return float(raw or 0.0)
        return str(raw) if raw not in (None, "") else self.default

    def text(self, value: Any) -> str:
        """The value as a person reads it (a leaderboard cell, ``validate``'s line)."""
        value = self.value(value)
        if value == self.default and self.unset:
            return self.unset
        return f"{value:g}" if self.number else str(value)


def _prompt_modes(bench: Benchmark) -> tuple[str, ...]:
    return bench.prompt_modes


#: the settings every benchmark may record, in the order documents and records carry them
SHARED: Mapping[str, RecordedSetting] = {s.name: s for s in (
    RecordedSetting("prompt_mode", "Prompt", "prompt/parser: default (ours) or reference (the official code's)",
                    "prompt mode", default="default", choices=_prompt_modes, always=True, required=True),
    RecordedSetting("clip_fps", "Clip fps cap", "frame-rate cap of the window clips", "clip fps cap",
                    plural="clip fps caps", number=True, default=0.0, always=True, required=True, unset="none",
                    unit=" fps"),
    RecordedSetting("protocol", "Protocol",
                    "frame sampling and generation: default (ours) or a paper_* family protocol", "protocol",
                    default="default", choices=tuple(PROTOCOLS), always=True),
    RecordedSetting("proxy", "Clips",
                    "the proxy videos the window clips were cut from (full-rate: the dataset's videos)", "clips",
                    unset="full-rate", plural="proxies"),
    RecordedSetting("model_ready", "Model frames",
                    "the lmms-eval wrapper whose frames the clips held (model-ready), else full-rate clips",
                    "frames", max_len=500, unset="full-rate clips", plural="model-ready frames", brief=True),
)}


def _option_setting(bench: Benchmark, name: str) -> RecordedSetting | None:
    for option in bench.run_options:
        if option.recorded_as == name and not option.secret:
            return RecordedSetting(name, option.recorded_as.replace("_", " ").capitalize(), option.help or name,
                                   option.recorded_as.replace("_", " "), default=option.default,
                                   choices=option.choices)
    return None


def recorded_settings(bench: Benchmark) -> tuple[RecordedSetting, ...]:
    """What ``bench``'s runs record (``Benchmark.recorded_settings``), in its declared order.

    Raises:
        ValueError: a declared name that is neither shared nor one of the benchmark's options' ``recorded_as``.
    """
    out = []
    for name in bench.recorded_settings:
        setting = SHARED.get(name) or _option_setting(bench, name)
        if setting is None:
            raise ValueError(f"benchmark {bench.name} records {name!r}, which is neither a shared setting "
                             f"({', '.join(SHARED)}) nor one of its run options' recorded_as")
        out.append(setting)
    return tuple(out)


def recorded_names(bench: Benchmark) -> tuple[str, ...]:
    """The field names of :func:`recorded_settings` (what ``RunSettings.record`` is asked for)."""
    return tuple(s.name for s in recorded_settings(bench))


def document_settings(bench: Benchmark, settings: RunSettings | None, root=None) -> dict[str, Any]:
    """The recorded settings every document of ``bench`` carries: the run ``settings``' values
    (``RunSettings.record``; None: ``settings.given``) of :func:`recorded_names`; ``root``: the dataset (for a
    proxy)."""
    return given(settings).record(recorded_names(bench), root)


def run_record(settings: RunSettings | None = None, dataset=None) -> dict[str, Any]:
    """What a run records about itself in its results files: every shared setting (``settings``, validated; the
    proxy only with ``dataset``, :meth:`RunSettings.proxy_for`), the dataset's benchmark's own recorded ones, and
    what ran it (toolkit, lmms-eval, datasets: ``run_provenance``).

    Args:
        settings: the run's settings (None: ``settings.given``).
        dataset: the evaluated dataset (a ``DatasetHandle``), or None.
    """
    s = given(settings)
    names = [n for n in SHARED if dataset is not None or n != "proxy"]
    if dataset is not None:
        names += [n for n in recorded_names(dataset.benchmark) if n not in names]
    return {**s.record(names, None if dataset is None else dataset.path), **run_provenance()}


def record_settings(bench: Benchmark, doc: Mapping[str, Any]) -> dict[str, Any]:
    """The recorded settings a per-sample record copies from its document (every ``score_doc``)."""
    return {s.name: doc.get(s.name, s.default) for s in recorded_settings(bench)}


def submission_fields(bench: Benchmark) -> tuple[RecordedSetting, ...]:
    """The settings a submission of ``bench`` may carry, each once: the shared ones every submission carries, then
    ``bench``'s recorded ones (:func:`recorded_settings`), in that order."""
    out = {s.name: s for s in SHARED.values() if s.always}
    for s in recorded_settings(bench):
        out.setdefault(s.name, s)
    return tuple(out.values())


def every_recorded_setting() -> tuple[RecordedSetting, ...]:
    """Every setting some registered benchmark records, shared ones first in :data:`SHARED`'s order, then the
    benchmarks' own in registry order (the results dataset's and the leaderboard's settings columns)."""
    recorded = {s.name: s for bench in benchmarks() for s in recorded_settings(bench)}
    shared = [s for n, s in SHARED.items() if s.always or n in recorded]
    return (*shared, *(s for n, s in recorded.items() if n not in SHARED))


def submission_settings(bench: Benchmark, gaze: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A submission's ``settings``: the gaze mode, then every shared setting a submission always carries and each
    of ``bench``'s recorded ones, by :data:`SHARED`'s order then the benchmark's: one a submission always carries
    (its default when ``values`` has none), an optional one when ``values`` names it and it is not "" (``values``:
    name -> value, as the run's records carry them)."""
    out: dict[str, Any] = {"gaze": gaze}
    for s in submission_fields(bench):
        if not (s.always or s.name in values):
            continue
        value = s.value(values.get(s.name))
        if s.always or value != "":
            out[s.name] = value
    return out


def row_settings(bench: Benchmark, settings: Mapping[str, Any]) -> dict[str, Any]:
    """A results row's settings columns (every one of :func:`every_recorded_setting`) from a submission's
    ``settings``: the value where ``bench`` records the setting or a submission always carries it, else ""."""
    own = {s.name for s in recorded_settings(bench)}
    return {s.name: s.value(settings.get(s.name)) if s.always or s.name in own else ""
            for s in every_recorded_setting()}


def row_texts(bench: Benchmark, settings: Mapping[str, Any]) -> dict[str, str]:
    """A leaderboard row's settings as people read them (:meth:`RecordedSetting.text`), for every setting ``bench``
    records or a submission always carries (``settings``: a submission's or a results row's)."""
    return {s.name: s.text(settings.get(s.name)) for s in submission_fields(bench)}


def settings_text(bench: Benchmark, settings: Mapping[str, Any]) -> str:
    """A submission's settings as one line: ``gaze visual, prompt mode default, clip fps cap none, ...``."""
    parts = [f"gaze {settings.get('gaze', '')}"]
    for s in submission_fields(bench):
        value = s.text(settings.get(s.name))
        parts.append(f"{s.described} {value}{s.unit if value != s.unset or not s.unset else ''}")
    return ", ".join(parts)
