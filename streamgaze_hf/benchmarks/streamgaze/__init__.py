"""StreamGaze declared to the benchmark registry, by reference to its existing modules.

The task table stays ``streamgaze_hf/tasks.py`` (the window rule lives there), prompts
``streamgaze_hf/prompts.py``, evaluation documents ``streamgaze_hf/evaluation.py``, the release
importer ``streamgaze_hf/dataset/release.py``, the raw pipeline ``streamgaze_hf/dataset/build.py``
and the paper's Table 2 ``streamgaze_hf/submission/paper.py``. Moving them under this package is a
later, mechanical step; every existing import path keeps working.
"""

from __future__ import annotations

from ...tasks import CATEGORIES, PRESENT_WINDOW_S, TASKS
from .. import Benchmark, DatasetLayout, TaskDef, register

_RULES = {"past": "[0, t]", "present": f"[max(0, t - {PRESENT_WINDOW_S:g}), t]",
          "proactive": "[0, r] per checkpoint r"}


def validate_row(row: dict, duration: float | None) -> list[str]:
    """The StreamGaze QA rule set (``qa/validate.py``), as the writer applies it to every row."""
    from ...qa.validate import validate_qa_row

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
    evaluation="streamgaze_hf.evaluation",
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
    importers={"release": "streamgaze_hf.dataset.release:import_release",
               "build": "streamgaze_hf.dataset.build:build_dataset"},
    paper_rows="streamgaze_hf.submission.paper:paper_rows",
))
