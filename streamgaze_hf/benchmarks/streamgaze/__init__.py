"""StreamGaze declared to the benchmark registry.

Its parts live in this package: the task table and window rule (``tasks.py``), prompts
(``prompts.py``), evaluation documents and per-sample scoring (``evaluation.py``), the QA row schema and
validation (``schema.py``), QA generators and validation rules (``qa/``), the raw pipeline (``build.py``),
the release importer (``release*.py``), the official-results import (``official.py``) and the paper's
Table 2 (``paper.py``), its dataset-card texts (``card.py``), its streaming evaluation (``streaming/``), the SFT
export (``sft_export.py``), its leaderboard layout (``leaderboard.py``) and the object back-end over the official episode metadata (``episode_objects.py``).
"""

from __future__ import annotations

from ...registry import CommandDef, LmmsOptions, declare, register
from . import leaderboard
from .tasks import CATEGORIES, TASKS

#: how to get a StreamGaze dataset, for the error that names another benchmark's
BUILD_HINT = ("build one with `streamgaze build streamgaze --raw RAW --out ROOT --version X.Y.Z` or "
              "`streamgaze import streamgaze RELEASE --out ROOT --version X.Y.Z`")

BENCHMARK = register(declare(
    __name__,
    name="streamgaze",
    title="StreamGaze",
    paper="StreamGaze: gaze-guided temporal reasoning and proactive understanding in streaming videos",
    tasks=TASKS,
    categories=tuple(CATEGORIES),
    gaze_variants={"": "visual", "_nogaze": "none", "_textgaze": "text", "_salience": "salience"},
    # the proactive tasks are checkpointed (tasks.py): Yes/No at each checkpoint, with the alert metrics
    metrics={"mc": ("accuracy",), "checkpointed": ("accuracy", "precision", "recall", "f1", "fpr", "fnr")},
    dataset=dict(
        dataset_name="streamgaze", pretty_name="StreamGaze",
        qa_sort_keys=("video_id", "query_time", "question_id"),
        loading_example="oi_easy",
        tags=("egocentric", "gaze", "eye-tracking", "streaming-video", "video-question-answering", "benchmark"),
    ),
    root_env="STREAMGAZE_ROOT",
    default_root="streamgaze",
    importers=("release", "raw"),
    parts=("cli", "leaderboard"),  # its own build/import options; its section rule (the full release)
    streaming=f"{__name__}.streaming",
    parsed_answers="string",
    window_clips=True,
    review="fixations",
    record_fields=("question_id", "task", "checkpoint_index", "response", "gaze", "prompt_mode", "clip_fps"),
    leaderboard=dict(columns=leaderboard.COLUMNS, page_title=leaderboard.TITLE, notes=leaderboard.NOTES,
                     settings=leaderboard.SETTINGS, csv_name="leaderboard.csv"),
    # lmms-eval task files (lmms_tasks/generate.py): the header names the task table, the standard errors
    # are clustered by video, each category (past, present, proactive) has a group, the reasoning variants
    # of the paper's Table 4 (prompts of Figs. 19-21) run on the visual gaze setting, and the alerts' false
    # positive and false negative rates are better lower
    lmms=LmmsOptions(source="streamgaze_hf/benchmarks/streamgaze/tasks.py", cluster_key="video_id",
                     category_groups=True, reasoning={"_cot_text": "text", "_cot_gaze": "gaze", "_cot_visual": "visual"},
                     lower_is_better=("fpr", "fnr")),
    # its own commands (cli.py): the streaming evaluation, the fine-tuning export, the official results
    commands={
        "stream-eval": CommandDef("streaming evaluation: push each video's frames in time order, questions at their "
                                  "query times; score answers, alerts and their timing", f"{__name__}.cli:stream_eval"),
        "export-sft": CommandDef("fine-tuning samples (chat format, window clips; proactive with negative sampling) "
                                 "from a built dataset", f"{__name__}.cli:export_sft"),
        "import-official-results": CommandDef("re-score the official StreamGaze evaluator's *_output.json files into "
                                              "a submission", f"{__name__}.cli:import_official_results", "submit"),
    },
    recorded_settings=("prompt_mode", "clip_fps", "protocol", "proxy", "model_ready"),
    order=0,
    default=True,  # what a command means when it names no benchmark; datasets and submissions naming none
))
