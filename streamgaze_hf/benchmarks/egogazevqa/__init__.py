"""EgoGazeVQA ("In the Eye of MLLM", NeurIPS 2025 D&B; shared/seeds/egogazevqa_paper.txt) declared
to the benchmark registry.

1,757 five-option questions over 913 egocentric clips from Ego4D, Ego-Exo4D and EGTEA Gaze+, in
three categories (spatial, temporal, causal intent). Every question is bound to one *frame group*:
nine keyframes with the wearer's gaze at each. There is no time window: the model sees exactly the
group's frames, in order.

Modules: ``schema`` (QA row schema and validation), ``release`` (importer of the official CSV/JSON
release), ``build`` and ``generation`` (the raw build: narrations -> keyframe groups -> VLM questions
with the paper's construction prompts), ``prompts`` (plain, GazeT, GazeV, GazeS; default and reference
wording), ``visuals`` (GazeV circles, GazeS salience map, frames as a clip), ``evaluation`` (documents and scoring),
``paper`` (Table 3 reference rows), ``card`` (dataset-card texts).
"""

from __future__ import annotations

from .. import Benchmark, DatasetLayout, LeaderboardColumn, TaskDef, register

NAME = "egogazevqa"
#: release dataset names (file-name suffixes) -> our ``source`` values (those StreamGaze uses)
SOURCES: dict[str, str] = {"ego4d": "ego4d", "egoexo": "egoexo4d", "egtea": "egtea"}
CATEGORIES: tuple[str, ...] = ("spatial", "temporal", "causal")
GROUP_SIZE = 9
OPTION_COUNT = 5
FRAME_RULE = f"the question's group of {GROUP_SIZE} keyframes with gaze, in time order"

TASKS: tuple[TaskDef, ...] = (
    TaskDef("spatial", "Spatial intent", "spatial", FRAME_RULE, OPTION_COUNT, lmms_name="egogazevqa_spatial"),
    TaskDef("temporal", "Temporal intent", "temporal", FRAME_RULE, OPTION_COUNT, lmms_name="egogazevqa_temporal"),
    TaskDef("causal", "Causal intent", "causal", FRAME_RULE, OPTION_COUNT, lmms_name="egogazevqa_causal"),
)
#: lmms-eval task-name suffix -> gaze mode (paper Table 3 "Strategy": w/o, T, V, S)
GAZE_VARIANTS: dict[str, str] = {"": "none", "_gazet": "text", "_gazev": "visual", "_gazes": "salience"}
#: leaderboard columns, in the paper's Table 3 units (accuracy in %); values: evaluation.leaderboard_scores
LEADERBOARD_COLUMNS: tuple[LeaderboardColumn, ...] = (
    LeaderboardColumn("overall", "Avg.", True, "mean of the three category accuracies (%), as in the paper's Table 3", 1),
    *(LeaderboardColumn(t.id, t.name.split()[0], True, f"{t.name}: accuracy (%), our five-option parser", 1)
      for t in TASKS),
    LeaderboardColumn("exact_match", "Exact match", True,
                      "Avg. under the official exact-match scorer (%): a response counts only if it is exactly "
                      "the answer letter (the paper scored its rows this way: their Avg. is this number)", 1),
)
#: questions of the complete release (the paper's Table 3 benchmark)
PAPER_QUESTIONS = 1757

BENCHMARK = register(Benchmark(
    name=NAME,
    title="EgoGazeVQA",
    paper="In the Eye of MLLM: Benchmarking Egocentric Video Intent Understanding with Gaze-Guided Prompting "
          "(NeurIPS 2025 Datasets and Benchmarks, arXiv 2509.07447)",
    tasks=TASKS,
    categories=CATEGORIES,
    gaze_variants=GAZE_VARIANTS,
    metrics={"mc": ("accuracy",)},
    evaluation="streamgaze_hf.benchmarks.egogazevqa.evaluation",
    dataset=DatasetLayout(
        dataset_name=NAME, pretty_name="EgoGazeVQA",
        qa_features="streamgaze_hf.benchmarks.egogazevqa.schema:QA_FEATURES",
        validate_row="streamgaze_hf.benchmarks.egogazevqa.schema:validate_row",
        file_paths="streamgaze_hf.benchmarks.egogazevqa.schema:file_paths",
        qa_sort_keys=("source", "video_id", "window_start", "question_id"),
        tags=("egocentric", "gaze", "eye-tracking", "video-question-answering", "benchmark", "intent"),
        card_intro="streamgaze_hf.benchmarks.egogazevqa.card:intro",
        card_sections="streamgaze_hf.benchmarks.egogazevqa.card:sections",
        loading_example="spatial",
        license="other",
        license_note=("The questions, answers and keyframe groups are EgoGazeVQA's (\"In the Eye of MLLM\"), and "
            "the clips, keyframes and gaze come from Ego4D, Ego-Exo4D and EGTEA Gaze+: each keeps its own "
            "licence and terms of use (Ego4D and Ego-Exo4D need a signed licence agreement). This conversion "
            "relicenses none of them: check all of them before using or redistributing this dataset."),
    ),
    root_env="EGOGAZEVQA_ROOT",
    default_root="egogazevqa",
    importers={"release": "streamgaze_hf.benchmarks.egogazevqa.release:import_release",
               "raw": "streamgaze_hf.benchmarks.egogazevqa.build:build_egogazevqa"},
    paper_rows="streamgaze_hf.benchmarks.egogazevqa.paper:paper_rows",
    extra={"sources": SOURCES, "group_size": GROUP_SIZE, "reference_questions": PAPER_QUESTIONS},
    leaderboard_columns=LEADERBOARD_COLUMNS,
))
