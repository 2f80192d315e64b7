"""The results dataset: one row per accepted submission, per benchmark, plus each paper's reference rows.

Layout of the results repository (a Hugging Face dataset, ``load_dataset("ORG/RESULTS", "<benchmark>")``)::

    README.md                                   card: one config per benchmark and one per its paper rows
    data/<benchmark>/train-00000-of-00001.parquet          accepted submissions, re-scored
    data/<benchmark>_paper/train-00000-of-00001.parquet    the paper's rows, reported (never re-scored)
    site/index.html, leaderboard.md, <csv>, chart.png      the static site of these rows

Columns (:func:`schema`): the model (name, URL, params, frames); the settings that change numbers (gaze,
prompt mode, clip fps cap, protocol, proxy, visual form); the dataset (repo, revision, commit, version,
manifest sha256); the versions of the toolkit, lmms-eval and datasets that made the submission ("" when the
file does not say); ``overall``, ``score_<column>`` for each of the benchmark's declared leaderboard columns
(category means, tasks, ...) and ``task_<id>`` for each task's accuracy, fractions for every ratio in every
benchmark, with ``stderr_overall`` / ``stderr_<column>`` where the scores carry a standard error; the
coverage; the submitter (the Hub's author of the pull request, or the user signed in on the Space), the pull
request (number, address) and the commit of the requests dataset that holds the accepted file; the model name's
collision key and the run number of the same submitter's same model; the Hub model's id, commit, parameter
count and warnings; the flag (:mod:`.flags`); the leaderboard section; ``reported`` (True: copied from the
paper). Rows are sorted by pull request number, so the files are the same bytes for the same rows. Nothing
here names a benchmark: columns come from the registry.

Two files of the repository are the maintainers' (the sync reads them and never rewrites them):
``leaderboard.yaml`` (:data:`CONFIG`: ``maintainers``, exempt from the quota; ``space_accounts``, the accounts
whose pull requests come from the Space and name their submitter) and ``flags.json`` (:data:`FLAGS`, written by
``streamgaze leaderboard flag`` / ``unflag``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import __version__
from ...evaluation import every_recorded_setting, row_settings, row_texts
from ...registry import Benchmark, benchmarks, score_text
from ...submission import responses_digest
from ..rows import Row, benchmark_columns, efficiency_text
from ..sections import Section, group_sections, reference_section_of
from ..site import reference_row, render_sections
from .traces import traces_config, traces_glob

__all__ = ["schema", "result_row", "paper_result_rows", "results_files", "read_results", "results_sections",
           "leaderboard_rows", "data_path", "CARD", "SITE_DIR", "CONFIG", "FLAGS", "LeaderboardConfig", "parse_config",
           "with_flags"]

CARD = "README.md"
SITE_DIR = "site"
#: the maintainers' settings of the leaderboard (YAML; read by the sync, never written by it)
CONFIG = "leaderboard.yaml"
#: the flags of rows, by pull request number (JSON; written by ``leaderboard flag`` / ``unflag``)
FLAGS = "flags.json"
_STRING_FIELDS = ("model_name", "model_url", "model_params", "model_frames", "gaze")
_DATASET = ("dataset_repo", "dataset_revision", "dataset_commit", "dataset_version", "dataset_manifest_sha256")
_VERSIONS = ("toolkit_version", "lmms_eval_version", "datasets_version")
_TAIL = ("submitter", "submission_path", "submitted_at", "section", "section_title", "section_note", "source",
         "by_source", "efficiency")
#: provenance and trust (issues 37 and 44): strings, then integers. ``evaluated_by``: "leaderboard" for a row the
#: leaderboard's own Hub Job made (an evaluation request), "" for a submission; ``job_id`` / ``job_url``: that job;
#: ``responses_sha256``: the digest of the raw responses (submission/fingerprint.py: a repeat is refused);
#: ``traces_url``: the row's per-sample traces (traces.py; "" for a row accepted before traces were kept)
_TRUST = ("pr_url", "requests_commit", "created_at", "name_key", "model_id", "model_commit", "model_warnings",
          "flag_reason", "flag_discussion", "evaluated_by", "job_id", "job_url", "responses_sha256", "traces_url")
_TRUST_INTS = ("run", "model_params_hub")


def data_path(config: str) -> str:
    return f"data/{config}/train-00000-of-00001.parquet"


def schema(bench: Benchmark):
    """The columns of ``bench``'s results (and paper) config, in order."""
    import pyarrow as pa

    fields = [pa.field(n, pa.string()) for n in _STRING_FIELDS]
    fields += [pa.field(s.name, pa.float64() if s.number else pa.string()) for s in every_recorded_setting()]
    fields += [pa.field(n, pa.string()) for n in _DATASET + _VERSIONS]
    fields += [pa.field("overall", pa.float64())]
    fields += [pa.field(f"score_{c.key}", pa.float64()) for c in bench.leaderboard.score_columns()]
    fields += [pa.field(f"task_{t}", pa.float64()) for t in bench.task_ids]
    fields += [pa.field(f"stderr_{k}", pa.float64()) for k in _stderr_keys(bench)]
    fields += [pa.field("coverage", pa.float64()), pa.field("answered", pa.int64()), pa.field("expected", pa.int64()),
               pa.field("pr_number", pa.int64())]
    fields += [pa.field(n, pa.string()) for n in _TAIL] + [pa.field("reported", pa.bool_())]
    fields += [pa.field(n, pa.string()) for n in _TRUST] + [pa.field(n, pa.int64()) for n in _TRUST_INTS]
    return pa.schema(fields)


def _stderr_keys(bench: Benchmark) -> list[str]:
    return ["overall", *(c.key for c in bench.leaderboard.score_columns())]


def _task_stderr(task: Mapping) -> float | None:
    se = task.get("stderr") if isinstance(task, Mapping) else None
    se = se.get("accuracy") if isinstance(se, Mapping) else se
    return float(se) if isinstance(se, (int, float)) and not isinstance(se, bool) else None


def _stderrs(bench: Benchmark, scores: Mapping, values: Mapping) -> dict[str, float | None]:
    """The standard error of each score column the scores carry one for: a task's own (its bootstrap error);
    a column that is exactly the unweighted mean of tasks with errors (a category mean, the overall) gets
    sqrt(sum se^2) / k (the tasks are disjoint sets of questions); None otherwise."""
    tasks = scores.get("tasks", {}) if isinstance(scores.get("tasks"), Mapping) else {}
    se = {t: _task_stderr(tasks.get(t, {})) for t in bench.task_ids}
    acc = {t: tasks.get(t, {}).get("accuracy") if isinstance(tasks.get(t), Mapping) else None for t in bench.task_ids}
    groups = {"overall": [t for t in bench.task_ids if acc[t] is not None]}
    groups.update({cat: [t.id for t in bench.tasks if t.category == cat and acc[t.id] is not None]
                   for cat in bench.categories})
    out: dict[str, float | None] = {}
    for key in _stderr_keys(bench):
        value = values["overall"] if key == "overall" else values["columns"].get(key)
        if key in se:
            out[key] = se[key]
            continue
        members = groups.get(key, [])
        exact = (value is not None and members and all(se[t] is not None for t in members)
                 and abs(sum(acc[t] for t in members) / len(members) - value) < 1e-9)
        out[key] = (sum(se[t] ** 2 for t in members) ** 0.5 / len(members)) if exact else None
    return out


def _versions(sub: Mapping) -> dict[str, str]:
    run = sub.get("run", {})
    # submissions name lmms-eval and datasets in ``run`` only (schema.RUN_FIELDS; the top level is closed)
    lmms = run.get("lmms_eval_version") or (run.get("harness_version", "") if run.get("harness") == "lmms-eval" else "")
    return {"toolkit_version": str(run.get("toolkit_version") or sub.get("toolkit_version") or ""),
            "lmms_eval_version": str(lmms), "datasets_version": str(run.get("datasets_version") or "")}


def result_row(bench: Benchmark, sub: Mapping, scores: Mapping, section: Sequence[str], *, submitter: str,
               pr_number: int, path: str, dataset=None) -> dict:
    """The results row of an accepted submission (``scores``: recomputed; ``section``: key, title, note;
    ``dataset``: what it was scored against, with ``repo``, ``revision`` and ``commit``, else the file's)."""
    values = bench.plugin().leaderboard_values(scores)
    st, model, ds = sub["settings"], sub["model"], sub["dataset"]
    row = {"model_name": model["name"], "model_url": model["url"], "model_params": model["params"],
           "model_frames": model["frames"], "gaze": st["gaze"], **row_settings(bench, st),
           "dataset_repo": getattr(dataset, "repo", "") or ds.get("repo", ""),
           "dataset_revision": getattr(dataset, "revision", "") or ds.get("commit", ""),
           "dataset_commit": getattr(dataset, "commit", "") or ds.get("commit", ""),
           "dataset_version": ds["version"], "dataset_manifest_sha256": ds["manifest_sha256"], **_versions(sub),
           "overall": values["overall"]}
    row.update({f"score_{c.key}": values["columns"].get(c.key) for c in bench.leaderboard.score_columns()})
    tasks = scores.get("tasks", {})
    row.update({f"task_{t}": tasks.get(t, {}).get("accuracy") for t in bench.task_ids})
    row.update({f"stderr_{k}": v for k, v in _stderrs(bench, scores, values).items()})
    cov = scores["coverage"]
    row.update(coverage=float(cov["fraction"]), answered=int(cov["answered"]), expected=int(cov["expected"]),
               pr_number=int(pr_number), submitter=submitter, submission_path=path,
               submitted_at=path.rsplit("/", 1)[-1].removesuffix(".json"), section=section[0],
               section_title=section[1], section_note=section[2], source="submission", reported=False,
               by_source=" · ".join(f"{s} {score_text(v)}" for s, v in values.get("by_source", {}).items()),
               efficiency=efficiency_text(sub.get("run", {})))
    row.update(dict.fromkeys(_TRUST, ""))
    row.update(dict.fromkeys(_TRUST_INTS))
    row["responses_sha256"] = responses_digest(sub)
    return row


def paper_result_rows(bench: Benchmark) -> list[dict]:
    """``bench``'s paper rows as results rows, marked ``reported`` (copied from the paper, never re-scored)."""
    key, title, note = reference_section_of(bench)
    out = []
    for ref in bench.leaderboard.reference_rows():
        r = reference_row(ref, key)
        row = dict.fromkeys(schema(bench).names, None)
        settings = tuple(s.name for s in every_recorded_setting() if not s.number)
        row.update({n: "" for n in (*_STRING_FIELDS, *settings, *_DATASET, *_VERSIONS, *_TAIL, *_TRUST)})
        row.update(model_name=r.name, model_params=r.params, model_frames=r.frames, gaze=r.gaze,
                   prompt_mode=r.prompt_mode, dataset_version=r.dataset, overall=r.overall, section=key,
                   section_title=title, section_note=note, source=r.source, reported=True)
        row.update({f"score_{c.key}": r.tasks.get(c.key) for c in bench.leaderboard.score_columns()})
        row.update({f"task_{t}": r.tasks.get(t) for t in bench.task_ids})
        out.append(row)
    return out


def _parquet(bench: Benchmark, rows: Iterable[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(list(rows), schema=schema(bench))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def _card(names: Sequence[str], with_rows: Sequence[str], with_traces: Sequence[str] = ()) -> str:
    configs = []
    for name in names:
        for config in ((name,) if name in with_rows else ()) + (f"{name}_paper",):
            configs += [f"- config_name: {config}", "  data_files:", "  - split: train", f"    path: {data_path(config)}"]
        if name in with_traces:
            configs += [f"- config_name: {traces_config(name)}", "  data_files:", "  - split: train",
                        f"    path: {traces_glob(name)}"]
    lines = ["---", "license: cc-by-4.0", "pretty_name: Gaze benchmarks leaderboard results",
             "tags:", "- leaderboard", "- gaze", "- egocentric", "configs:", *configs, "---", "",
             "# Leaderboard results", "",
             "One row per accepted submission, re-scored from its raw responses by streamgaze-toolkit against the "
             "dataset revision it pins; one config per benchmark with accepted submissions "
             f"({', '.join(f'`{n}`' for n in with_rows) or 'none yet'}), and one `<benchmark>_paper` config per "
             "benchmark with the paper's reference rows (`reported: true`: copied from the paper, never "
             "re-scored).", "",
             "```python", "from datasets import load_dataset",
             f'rows = load_dataset("ORG/RESULTS", "{(list(with_rows) or [names[0] + "_paper"])[0]}", split="train")',
             "```", "",
             "Scores (`overall`, `score_<column>`, `task_<task>`) are fractions in [0, 1] for every ratio; "
             "a column of another unit (degrees, L2, BLEU) keeps its unit. `coverage` is answered / expected "
             "items (missing answers count as wrong). Settings that change numbers: `gaze`, "
             + ", ".join(f"`{s.name}`" + (f" (0 = {s.unset})" if s.number and s.unset else "")
                         for s in every_recorded_setting())
             + ", `model_frames`. Efficiency (where the run "
             "measured it): `efficiency`, the time the model wrapper spent reading video. Provenance: "
             "`dataset_repo`, `dataset_revision`, `dataset_commit`, `dataset_version`, `dataset_manifest_sha256`, "
             "`toolkit_version`, `lmms_eval_version`, `datasets_version`, `submitter` (the pull request's author on the Hub, "
             "or the user signed in on the Space), `pr_number`, `pr_url`, `requests_commit` (the commit that added the "
             "re-scored file), `submission_path` (in the requests dataset), `run` (the same submitter's same model "
             "again), `model_id`, `model_commit`, `model_params_hub`, `model_warnings` (the Hub model checks), "
             "`flag_reason` and `flag_discussion` (a maintainer's flag; flagged rows are kept), `stderr_<column>` "
             "(standard errors where the scores carry them), `traces_url` (the row's traces).", "",
             "Traces: every accepted row's per-sample responses, parsed answers and scores, one file per row under "
             "`traces/<benchmark>/` (`traces_url`), and all of a benchmark's as the `<benchmark>_traces` config "
             "(`pr_number` names the row). Scoring the responses again against the dataset revision the row names "
             "gives the row's numbers.", "",
             "The static leaderboard of these rows is under `site/`. Written by `streamgaze leaderboard sync`.", ""]
    return "\n".join(lines)


def leaderboard_rows(bench: Benchmark, rows: Iterable[Mapping]) -> list[Row]:
    """Results rows as leaderboard rows (one table's lines)."""
    out = []
    for r in rows:
        out.append(Row(name=r["model_name"], source="submission" if not r["reported"] else r["source"],
                       tasks={c.key: r.get(f"score_{c.key}") for c in bench.leaderboard.score_columns()},
                       overall=r["overall"],
                       dataset=r["dataset_version"], gaze=r["gaze"], prompt_mode=r["prompt_mode"],
                       settings={} if r["reported"] else row_texts(bench, r), by_source=r.get("by_source") or "", frames=r["model_frames"],
                       params=r["model_params"], coverage=r["coverage"], url=r["model_url"],
                       file=r["submission_path"], section=r["section"], submitter=r.get("submitter") or "",
                       pr_number=r.get("pr_number"), pr_url=r.get("pr_url") or "", run=r.get("run"),
                       flag=r.get("flag_reason") or "", flag_url=r.get("flag_discussion") or "",
                       warnings=r.get("model_warnings") or "", efficiency=r.get("efficiency") or "",
                       evaluated=r.get("evaluated_by") == "leaderboard", job_url=r.get("job_url") or "",
                       traces_url=r.get("traces_url") or "",
                       stderr={k[len("stderr_"):]: v for k, v in r.items() if k.startswith("stderr_") and v is not None}))
    return out


def results_sections(rows_by_bench: Mapping[str, Sequence[Mapping]], paper: Mapping[str, Sequence[Mapping]] | None = None
                     ) -> list[Section]:
    """The leaderboard sections of results rows (and paper rows: default, each benchmark's own), every
    registered benchmark in registry order, one section per dataset, each ranked on its own."""
    sections: list[Section] = []
    for bench in benchmarks():
        refs = list((paper or {}).get(bench.name, paper_result_rows(bench) if paper is None else []))
        rows = [*rows_by_bench.get(bench.name, []), *refs]
        if not rows:
            continue
        titles = {}
        for r in rows:
            titles.setdefault(r["section"], (r["section_title"], r["section_note"]))
        sections += group_sections(leaderboard_rows(bench, rows), titles, benchmark=bench.name,
                                   columns=benchmark_columns(bench),
                                   higher_is_better=bench.leaderboard.overall_column().higher_is_better)
    return sections


def _sorted(rows: Iterable[Mapping]) -> list[dict]:
    return sorted((dict(r) for r in rows), key=lambda r: (r["pr_number"], r["submission_path"]))


def results_files(rows_by_bench: Mapping[str, Sequence[Mapping]]) -> dict[str, bytes]:
    """Every file of the results repository (path -> bytes) for these accepted rows: deterministic."""
    names = [b.name for b in benchmarks()]
    with_rows = [n for n in names if rows_by_bench.get(n)]  # a config of no rows would not load
    with_traces = [n for n in with_rows if any(r.get("traces_url") for r in rows_by_bench[n])]
    files: dict[str, bytes] = {CARD: _card(names, with_rows, with_traces).encode("utf-8")}
    for bench in benchmarks():
        if bench.name in with_rows:
            files[data_path(bench.name)] = _parquet(bench, _sorted(rows_by_bench[bench.name]))
        files[data_path(f"{bench.name}_paper")] = _parquet(bench, paper_result_rows(bench))
    n = sum(len(v) for v in rows_by_bench.values())
    meta = (f"{n} accepted submission(s), each re-scored from its raw responses against the dataset revision it "
            f"pins by streamgaze-toolkit {__version__}. One table per dataset, each sorted by overall.")
    sections = results_sections({k: _sorted(v) for k, v in rows_by_bench.items()})
    for name, data in render_sections(sections, meta).items():
        files[f"{SITE_DIR}/{name}"] = data
    return files


@dataclass(frozen=True)
class LeaderboardConfig:
    """The maintainers' settings (:data:`CONFIG`): who is exempt from the quota, which accounts open the pull
    requests of the Space (their description names the signed-in submitter), and the GPU-hours the leaderboard's
    own evaluations may use in all (``gpu_hours_budget``; None: not set, so ``sync --evaluate jobs`` starts none)."""

    maintainers: frozenset[str] = frozenset()
    space_accounts: frozenset[str] = frozenset()
    gpu_hours_budget: float | None = None


def parse_config(text: str | None) -> LeaderboardConfig:
    """:data:`CONFIG`'s text (None: the file is absent) -> :class:`LeaderboardConfig`; StreamGazeError naming the
    file and the problem."""
    import yaml

    from ...util.errors import StreamGazeError

    if text is None:
        return LeaderboardConfig()
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise StreamGazeError(f"not YAML: {str(exc).splitlines()[0]}", CONFIG) from None
    if not isinstance(data, dict) or set(data) - {"maintainers", "space_accounts", "gpu_hours_budget"}:
        raise StreamGazeError("a mapping with the keys maintainers and space_accounts (lists of Hub user names) and "
                              "gpu_hours_budget (a number)", CONFIG)
    out: dict = {}
    for key in ("maintainers", "space_accounts"):
        names = data.get(key) or []
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise StreamGazeError(f"{key} must be a list of Hub user names", CONFIG)
        out[key] = frozenset(names)
    budget = data.get("gpu_hours_budget")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 <= budget < 1e9:
            raise StreamGazeError(f"gpu_hours_budget must be a number of GPU-hours >= 0, not {budget!r}", CONFIG)
        out["gpu_hours_budget"] = float(budget)
    return LeaderboardConfig(**out)


def with_flags(rows_by_bench: Mapping[str, Sequence[Mapping]], flags: Mapping[str, Mapping]) -> dict[str, list[dict]]:
    """The rows with their flag columns set from ``flags`` (pull request number -> reason, discussion):
    a row's flag is whatever :data:`FLAGS` says now (an unflagged row has empty flag columns)."""
    out: dict[str, list[dict]] = {}
    for bench, rows in rows_by_bench.items():
        for r in rows:
            flag = flags.get(str(r["pr_number"])) or {}
            out.setdefault(bench, []).append({**r, "flag_reason": flag.get("reason", ""),
                                              "flag_discussion": flag.get("discussion", "")})
    return out


def read_results(files: Mapping[str, Path]) -> dict[str, list[dict]]:
    """Accepted rows per benchmark from the results configs' parquet files (``files``: repository path ->
    local file; a benchmark without its file has no rows)."""
    import pyarrow.parquet as pq

    out: dict[str, list[dict]] = {}
    for bench in benchmarks():
        local = files.get(data_path(bench.name))
        if local is not None:
            out[bench.name] = pq.read_table(local).to_pylist()
    return out


def local_results(root: str | Path) -> dict[str, list[dict]]:
    """Accepted rows per benchmark of a results directory (a clone or download of the repository)."""
    root = Path(root)
    return read_results({data_path(b.name): root / data_path(b.name) for b in benchmarks()
                         if (root / data_path(b.name)).is_file()})

