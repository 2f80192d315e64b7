"""StreamGaze declared to the benchmark registry.

Its parts live in this package: the task table and window rule (``tasks.py``), prompts
(``prompts.py``), evaluation documents and per-sample scoring (``evaluation.py``), QA generators and
validation (``qa/``), the raw pipeline (``build.py``), the release importer (``release*.py``), the
official-results import (``official.py``) and the paper's Table 2 (``paper.py``).
"""

from __future__ import annotations

from .. import Benchmark, DatasetLayout, TaskDef, register
from .tasks import CATEGORIES, PRESENT_WINDOW_S, TASKS

_RULES = {"past": "[0, t]", "present": f"[max(0, t - {PRESENT_WINDOW_S:g}), t]",
          "proactive": "[0, r] per checkpoint r"}


def validate_row(row: dict, duration: float | None) -> list[str]:
    """The StreamGaze QA rule set (``qa/validate.py``), as the writer applies it to every row."""
    from .qa.validate import validate_qa_row

    return validate_qa_row(row, duration=duration, min_options=2)


def file_paths(row: dict) -> list[str]:
    return [p for p in (row.get("video_path"), row.get("overlay_path")) if p]


BENCHMARK = register(Benchmark(
    name="streamgaze",
    title="StreamGaze",
    paper="StreamGaze: gaze-guided temporal reasoning and proactive understanding in streaming videos",
    tasks=tuple(TaskDef(t.id, t.name, t.category, _RULES[t.category],
                        option_count=None, proactive=t.is_proactive, lmms_name=t.lmms_name) for t in TASKS),
    categories=tuple(CATEGORIES),
    gaze_variants={"": "visual", "_nogaze": "none", "_textgaze": "text", "_salience": "salience"},
    metrics={"mc": ("accuracy",), "proactive": ("accuracy", "precision", "recall", "f1", "fpr", "fnr")},
    evaluation="streamgaze_hf.benchmarks.streamgaze.evaluation",
    dataset=DatasetLayout(
        dataset_name="streamgaze", pretty_name="StreamGaze",
        qa_features="streamgaze_hf.dataset.schema:QA_FEATURES",
        validate_row="streamgaze_hf.benchmarks.streamgaze:validate_row",
        file_paths="streamgaze_hf.benchmarks.streamgaze:file_paths",
        qa_sort_keys=("video_id", "query_time", "question_id"),
        loading_example="oi_easy",
    ),
    root_env="STREAMGAZE_ROOT",
    default_root="streamgaze",
    importers={"release": "streamgaze_hf.benchmarks.streamgaze.release:import_release",
               "build": "streamgaze_hf.benchmarks.streamgaze.build:build_dataset"},
    paper_rows="streamgaze_hf.benchmarks.streamgaze.paper:paper_rows",
))
