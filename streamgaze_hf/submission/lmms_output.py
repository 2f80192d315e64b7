"""Read what ``lmms-eval --log_samples --output_path D`` wrote for the StreamGaze tasks.

lmms-eval writes ``D/[<model_sanitized>/]<YYYYMMDD_HHMMSS>_results.json`` and, per task,
``..._samples_<task>.jsonl`` (one line per document; our per-sample record under the metric key
``accuracy``). A directory may hold several runs: the newest results file is used, with the samples
files of the same timestamp prefix in the same directory. Samples of tasks that are not StreamGaze
tasks are ignored; a run may cover only some StreamGaze tasks.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StreamGazeError
from ..evaluation import GAZE_VARIANTS
from ..tasks import TASKS

__all__ = ["LmmsRun", "read_run", "lmms_task_names"]

_RESULTS = re.compile(r"^(?P<prefix>.+)_results\.json$")
_RECORD_FIELDS = ("question_id", "task", "checkpoint_index", "response", "gaze", "prompt_mode", "clip_fps")


def lmms_task_names() -> dict[str, tuple[str, str]]:
    """Every StreamGaze lmms-eval task name -> (task id, gaze mode)."""
    return {f"{t.lmms_name}{suffix}": (t.id, gaze) for t in TASKS for suffix, gaze in GAZE_VARIANTS.items()}


@dataclass
class LmmsRun:
    """One lmms-eval run: its results file and the StreamGaze per-sample records by task name."""

    results_path: Path
    results: dict[str, Any]
    samples: dict[str, list[dict]]  # lmms-eval task name -> records (file order)
    sample_paths: dict[str, Path]

    @property
    def config(self) -> dict[str, Any]:
        cfg = self.results.get("config")
        return cfg if isinstance(cfg, dict) else {}


def _newest_results(output_dir: Path) -> Path:
    found = [p for p in output_dir.rglob("*_results.json") if p.is_file() and _RESULTS.match(p.name)]
    if not found:
        raise StreamGazeError("no lmms-eval results here (no *_results.json): pass the --output_path of an "
                              "`lmms-eval ... --log_samples` run", output_dir)
    newest = max(p.name for p in found)
    tied = sorted(p for p in found if p.name == newest)
    if len(tied) > 1:
        where = ", ".join(str(p.parent) for p in tied)
        raise StreamGazeError(f"several runs share the newest timestamp {newest} ({where}); pass one of these "
                              "directories", output_dir)
    return tied[0]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"unreadable lmms-eval file: {exc}", path) from None


def _read_samples(path: Path) -> list[dict]:
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"unreadable samples file: {exc}", path) from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StreamGazeError(f"line {lineno}: malformed JSON ({exc.msg})", path) from None
        rec = sample.get("accuracy") if isinstance(sample, dict) else None
        if not isinstance(rec, dict) or any(k not in rec for k in _RECORD_FIELDS):
            raise StreamGazeError(f"line {lineno}: no StreamGaze record under 'accuracy' (needs "
                                  f"{', '.join(_RECORD_FIELDS)}); was this written by the streamgaze tasks?", path)
        records.append(rec)
    return records


def read_run(output_dir: str | os.PathLike[str]) -> LmmsRun:
    """The newest lmms-eval run under ``output_dir`` with its StreamGaze samples."""
    root = Path(output_dir)
    if not root.is_dir():
        raise StreamGazeError("not a directory (expected an lmms-eval --output_path)", root)
    results_path = _newest_results(root)
    results = _read_json(results_path)
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise StreamGazeError("not an lmms-eval results file (no 'results' object)", results_path)
    prefix = _RESULTS.match(results_path.name).group("prefix")
    names = lmms_task_names()
    samples: dict[str, list[dict]] = {}
    paths: dict[str, Path] = {}
    for path in sorted(results_path.parent.glob(f"{prefix}_samples_*.jsonl")):
        task = path.name[len(prefix) + len("_samples_"):-len(".jsonl")]
        if task in names:
            samples[task] = _read_samples(path)
            paths[task] = path
    if not samples:
        ours = [n for n in results["results"] if n in names]
        why = ("the run has StreamGaze results but no samples files: re-run lmms-eval with --log_samples"
               if ours else "the run has no StreamGaze tasks (lmms-eval --tasks streamgaze ...)")
        raise StreamGazeError(why, results_path)
    return LmmsRun(results_path, results, samples, paths)
