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

from ...registry import LeaderboardColumn, RunOption, TaskDef, declare, register

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
    LeaderboardColumn("overall", "Avg.", True, "mean of the three category accuracies, as in the paper's Table 3", unit="fraction", legacy_unit="percent"),
    *(LeaderboardColumn(t.id, t.name.split()[0], True, f"{t.name}: accuracy, our five-option parser", unit="fraction", legacy_unit="percent")
      for t in TASKS),
    LeaderboardColumn("exact_match", "Exact match", True,
                      "Avg. under the official exact-match scorer: a response counts only if it is exactly "
                      "the answer letter (the paper scored its rows this way: their Avg. is this number)", unit="fraction", legacy_unit="percent"),
)
#: questions of the complete release (the paper's Table 3 benchmark)
PAPER_QUESTIONS = 1757

BENCHMARK = register(declare(
    __name__,
    name=NAME,
    title="EgoGazeVQA",
    review="questions",
    paper="In the Eye of MLLM: Benchmarking Egocentric Video Intent Understanding with Gaze-Guided Prompting "
          "(NeurIPS 2025 Datasets and Benchmarks, arXiv 2509.07447)",
    tasks=TASKS,
    categories=CATEGORIES,
    gaze_variants=GAZE_VARIANTS,
    metrics={"mc": ("accuracy",)},
    dataset=dict(
        dataset_name=NAME, pretty_name="EgoGazeVQA",
        qa_sort_keys=("source", "video_id", "window_start", "question_id"),
        tags=("egocentric", "gaze", "eye-tracking", "video-question-answering", "benchmark", "intent"),
        loading_example="spatial",
        license="other",
        license_note=("The questions, answers and keyframe groups are EgoGazeVQA's (\"In the Eye of MLLM\"), and "
            "the clips, keyframes and gaze come from Ego4D, Ego-Exo4D and EGTEA Gaze+: each keeps its own "
            "licence and terms of use (Ego4D and Ego-Exo4D need a signed licence agreement). This conversion "
            "relicenses none of them: check all of them before using or redistributing this dataset."),
    ),
    root_env="EGOGAZEVQA_ROOT",
    default_root="egogazevqa",
    importers=("release", "raw"),
    parts=("cli", "report"),  # its own build/import options; `streamgaze report egogazevqa RUN`
    extra={"sources": SOURCES, "group_size": GROUP_SIZE},
    # the form the keyframes are shown in (visuals.py): as images (the paper's), or as one short clip
    run_options=(RunOption("egogazevqa_visuals", "EGOGAZEVQA_VISUALS", "images", ("images", "clip"),
                           recorded_as="visual_form",
                           help="EgoGazeVQA's visual form: images (default) or clip"),),
    # the old command names (deprecated: each prints one line naming the new one)
    aliases={"import-egogazevqa": ("import", "egogazevqa"), "egogazevqa-report": ("report", "egogazevqa")},
    recorded_settings=("prompt_mode", "visual_form"),
    order=1,
    leaderboard=dict(columns=LEADERBOARD_COLUMNS, reference_questions=PAPER_QUESTIONS),
))
