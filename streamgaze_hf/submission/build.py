"""``streamgaze submit``: turn an lmms-eval output directory into a submission file.

The submission carries every raw response with its parsed answer and the scores recomputed from
them against the dataset at ``--dataset`` (see :mod:`.schema`). Before writing, the run is checked
against that dataset: every question id must exist in it, lmms-eval's own per-sample verdicts must
agree with the re-scoring, and lmms-eval's reported accuracy of every fully covered task must equal
the recomputed one; otherwise the run was made on another build (or toolkit) and is refused.

A run of any registered benchmark's tasks is submitted the same way: the benchmark is the one the
samples files are of (or ``benchmark=``), the dataset must be that benchmark's, and the submission
names it (``benchmark``) with the dataset version.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..evaluation import recorded_settings
from ..registry import Benchmark, benchmarks
from ..util.errors import StreamGazeError
from ..util.fsutil import write_text_atomic
from ..util.provenance import TOOLKIT, redact_model_args, run_provenance
from .answer_key import AnswerKey, ItemKey, Rescored, load_answer_key, score_responses
from .assemble import ORACLE_MODELS, _assemble, assemble_submission, is_oracle
from .lmms_output import LmmsRun, read_run

if TYPE_CHECKING:
    from ..dataset import DatasetHandle

__all__ = ["ORACLE_MODELS", "build_submission", "assemble_submission", "dumps_submission", "write_submission",
           "redact_model_args", "is_oracle"]

_TOLERANCE = 1e-6  # lmms-eval percent vs recomputed percent


def harness_version(results: Mapping[str, Any]) -> str:
    """lmms-eval's version: the installed package. lmms-eval's own ``lmms_eval_version`` is a git
    ``branch@commit`` of whatever checkout surrounds the package (outside ``streamgaze eval``, the
    toolkit's own clone): kept in brackets unless it is the release string ``streamgaze eval`` sets
    (:mod:`streamgaze_hf.harness.process`)."""
    from importlib import metadata

    from ..util.provenance import release_version_string

    reported = str(results.get("lmms_eval_version") or "unknown")
    try:
        installed = metadata.version("lmms-eval")
    except metadata.PackageNotFoundError:
        return reported
    if reported in ("", installed, release_version_string(installed)):
        return installed
    return f"{installed} (run reported {reported})"


def _collect(run: LmmsRun) -> tuple[str, dict[str, object]]:
    """The run's gaze mode and its recorded settings (name -> value: each of its benchmark's
    ``recorded.recorded_settings``, a record that does not carry one has that setting's default): one of each,
    and every record agreeing with its task."""
    settings = recorded_settings(run.bench)
    gaze_of = {name: run.tasks[name].gaze for name in run.samples}
    seen: dict[str, dict[object, str]] = {s.name: {} for s in settings}
    for name, recs in run.samples.items():
        task_id, gaze = run.tasks[name].task_id, run.tasks[name].gaze
        for rec in recs:
            if rec["task"] != task_id or rec["gaze"] != gaze:
                raise StreamGazeError(f"record of question {rec['question_id']!r} is for task {rec['task']} / gaze "
                                      f"{rec['gaze']}, not {task_id} / {gaze}", run.sample_paths[name])
            for s in settings:
                seen[s.name].setdefault(s.value(rec.get(s.name)), name)
    for what, values in (("gaze modes", {g: n for n, g in gaze_of.items()}),
                         *((s.plural, seen[s.name]) for s in settings)):
        if len(values) > 1:
            shown = ", ".join(f"{v} ({n})" for v, n in sorted(values.items(), key=lambda kv: str(kv[0])))
            raise StreamGazeError(f"mixed {what} in one run: {shown}; a submission has one setting: run "
                                  "lmms-eval once per setting, into separate output directories", run.results_path)
    return next(iter(gaze_of.values())), {s.name: next(iter(seen[s.name])) for s in settings}


def run_toolkit(run: LmmsRun) -> dict[str, str]:
    """``toolkit_version`` / ``toolkit_commit`` / ``lmms_eval_version`` / ``datasets_version`` of what scored
    the run's samples (as its records name them; runs made before the records carried them give {})."""
    out: dict[str, str] = {}
    for field in run_provenance():
        values = sorted({str(rec[field]) for recs in run.samples.values() for rec in recs if field in rec})
        if values:
            out[field] = ", ".join(values)[:100]
    return out


def video_read(results: Mapping[str, Any]) -> dict[str, float]:
    """How long the wrapper spent reading video, as ``streamgaze eval`` wrote it into the results file
    (``video_read`` in the results file's ``TOOLKIT`` block: harness/video_time.py): ``video_read_s``, ``video_read_share``,
    ``video_read_median_ms``; {} where the run has no such figures."""
    figures = ((results.get(TOOLKIT) or {}).get("video_read") or {}) if isinstance(results, Mapping) else {}
    out = {}
    for name in ("video_read_s", "video_read_share", "video_read_median_ms"):
        value = figures.get(name) if isinstance(figures, Mapping) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            out[name] = float(value)
    return out


def _responses(run: LmmsRun, key: AnswerKey) -> dict[ItemKey, str]:
    responses: dict[ItemKey, str] = {}
    for name, recs in run.samples.items():
        task_id = run.tasks[name].task_id
        for rec in recs:
            item = (str(rec["question_id"]), int(rec["checkpoint_index"]))
            problem = key.problem(task_id, *item)
            if problem:
                raise StreamGazeError(f"{problem}: was this run made on the dataset at {key.root}?",
                                      run.sample_paths[name])
            if item in responses:
                raise StreamGazeError(f"question {item[0]!r} (checkpoint {item[1]}) appears twice: several runs "
                                      "appended to the same samples file?", run.sample_paths[name])
            response = rec["response"]
            responses[item] = response if isinstance(response, str) else str(response or "")
    return responses


def _cross_check(run: LmmsRun, rescored: Rescored, key: AnswerKey) -> None:
    """lmms-eval's own per-sample verdicts and reported accuracies must equal the re-scoring."""
    for name, recs in run.samples.items():
        task_id = run.tasks[name].task_id
        ours = {(r["question_id"], r["checkpoint_index"]): r for r in rescored.records[task_id]}
        for rec in recs:
            mine = ours[(str(rec["question_id"]), int(rec["checkpoint_index"]))]
            if not _same(rec.get("parsed"), mine.get("parsed")) or bool(rec.get("correct")) != bool(mine.get("correct")):
                raise StreamGazeError(
                    f"question {rec['question_id']!r}: lmms-eval scored parsed={rec.get('parsed')!r} "
                    f"correct={rec.get('correct')} but re-scoring against {key.root} (version {key.version}) gives "
                    f"parsed={mine['parsed']!r} correct={mine['correct']}: was the run made on another build of "
                    "the dataset or with another toolkit version?", run.sample_paths[name])
        task = rescored.scores["tasks"][task_id]
        reported = run.results["results"].get(name, {}).get("accuracy,none")
        if task["n_missing"] == 0 and isinstance(reported, (int, float)) and "accuracy" in task:
            if abs(100.0 * task["accuracy"] - float(reported)) > _TOLERANCE:
                raise StreamGazeError(
                    f"lmms-eval reported accuracy {reported} for {name} but re-scoring its samples gives "
                    f"{100.0 * task['accuracy']}", run.results_path)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (a parsed answer read back from a samples file against a fresh one)."""
    return json.loads(json.dumps(a)) == json.loads(json.dumps(b))


def build_submission(output_dir: str | os.PathLike[str], root: DatasetHandle | str | os.PathLike[str] | None = None, *,
                     model_name: str, model_url: str = "", params: str = "", frames: str = "",
                     allow_oracle: bool = False, benchmark: Benchmark | None = None) -> dict:
    """The submission for the newest lmms-eval run under ``output_dir`` on the dataset at ``root``
    (by default the run's benchmark's ``$..._ROOT``, else its default directory).

    Refuses the answer-key oracle baseline unless ``allow_oracle`` (tests only): a submission of it
    validates but is never ranked. A ``streamgaze stream-eval`` output directory is turned into a
    submission by the streaming evaluation of its benchmark (``Benchmark.streaming_module()``).

    Args:
        output_dir: lmms-eval's ``--output_path`` of a ``--log_samples`` run (or a ``stream-eval`` output).
        root: the dataset the run is scored against: open, or a directory or Hub reference, opened once here
            (None: the run's benchmark's ``$..._ROOT``, else its default directory).
        model_name: the model's name on the leaderboard.
        model_url: a link for the model ("" = none).
        params: the model's parameter count as shown ("" = unknown).
        frames: the frames the model was shown, as shown ("" = unknown).
        allow_oracle: accept the answer-key oracle baseline (tests only).
        benchmark: the benchmark whose samples to read (None: the one the samples files are of).

    Returns:
        The submission object (:mod:`.schema`, ``schema_version`` 2): settings, model, run provenance, the
        raw responses with parsed answers, and the scores recomputed against the dataset.

    Raises:
        StreamGazeError: naming the file: no dataset at ``root`` (or one of another benchmark), no usable
            run under ``output_dir`` (:func:`~.lmms_output.read_run`), the oracle baseline, mixed settings
            in one run, a question id the dataset does not have or answered twice, or lmms-eval's own
            verdicts or accuracies that differ from the re-scoring (a run on another build or toolkit).
    """
    from ..dataset import open_dataset

    if root is not None:
        root = open_dataset(root)  # a damaged dataset is reported before the run is read
    for bench in benchmarks():
        streaming = bench.streaming_module() if bench.streaming and benchmark in (None, bench) else None
        if streaming is not None and streaming.is_stream_run(output_dir):
            return streaming.build_stream_submission(output_dir, root, model_name=model_name, model_url=model_url,
                                                     params=params, frames=frames, allow_oracle=allow_oracle)
    run = read_run(output_dir, benchmark)
    cfg = run.config
    run_model = str(cfg.get("model") or run.results.get("model_name") or "unknown")
    if is_oracle({"model": run_model, "model_backend": cfg.get("model_backend")}) and not allow_oracle:
        raise StreamGazeError(f"this run is the {run_model} baseline, which reads the answer key; it cannot be "
                              "submitted", run.results_path)
    gaze, settings = _collect(run)
    prompt_mode, clip_fps = settings["prompt_mode"], float(settings.get("clip_fps", 0.0))
    key = load_answer_key(root, gaze, run.bench)
    responses = _responses(run, key)
    limit = cfg.get("limit")
    run_info = {"harness": "lmms-eval", "harness_version": harness_version(run.results),
                "model": run_model, "model_args": redact_model_args(cfg.get("model_args")),
                "date": str(run.results.get("date") or ""),
                "limit": float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None,
                **run_toolkit(run), **video_read(run.results)}
    rescored = score_responses(key, responses, prompt_mode, clip_fps)
    _cross_check(run, rescored, key)
    return _assemble(key, rescored, settings,
                     model={"name": model_name, "url": model_url, "params": params, "frames": frames}, run=run_info)


def dumps_submission(sub: Mapping[str, Any]) -> str:
    """The submission as JSON text (UTF-8, stable field order, no NaN)."""
    return json.dumps(sub, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def write_submission(sub: Mapping[str, Any], out: str | os.PathLike[str]) -> None:
    """Write a submission as JSON (:func:`dumps_submission`), atomically (nothing half-written at ``out``).

    Args:
        sub: the submission object (:func:`build_submission`, :func:`assemble_submission`).
        out: the file to write (its parent directories are created).

    Raises:
        StreamGazeError: ``out`` is a directory.
        ValueError: the submission holds a NaN or infinite number (not JSON).
        OSError: the file cannot be written.
    """
    if os.path.isdir(out):
        raise StreamGazeError("is a directory: --out is the submission file to write (e.g. submission.json)", out)
    write_text_atomic(out, dumps_submission(sub))
