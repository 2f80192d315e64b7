"""VL4Gaze ("Unleashing Vision-Language Models for Gaze Following", arXiv 2512.20735;
shared/seeds/vl4gaze_paper.txt) declared to the benchmark registry.

Third-person gaze following as image VQA: a scene image and a question naming one person (the
*observer*) by a textual description. Four tasks, one config each:

* ``god`` gaze object description: a sentence about what the observer looks at ("The person is
  looking out of the frame." when the target is outside); BLEU, ROUGE-L, optional VLM judge;
* ``gdd`` gaze direction description: one of eight image directions; accuracy and angular error;
* ``gpl`` gaze point location: ``(x, y)`` in pixels, ``(-1, -1)`` when outside; L2 on normalised
  coordinates and in/out accuracy;
* ``aqr`` ambiguous question recognition: a gaze question whose description may match several people
  or nobody; the model must say it cannot identify the observer; F1 (ambiguous = positive).

Modules: ``geometry`` (directions, angles, the angle convention), ``annotation_files`` (GazeFollow and
VideoAttentionTarget readers), ``schema`` (QA row), ``prompts`` (question templates, the §3 pipeline
prompts), ``world`` (the synthetic gaze-following world), ``pipeline`` (§3 generation through the VLM
back-end), ``build`` (dataset from annotations + pipeline), ``evaluation`` (documents, scoring,
metrics, leaderboard hook), ``paper`` (main-table reference rows), ``card`` (dataset card texts).
"""

from __future__ import annotations

from ...registry import LeaderboardColumn, LmmsOptions, RunOption, TaskDef, declare, register

NAME = "vl4gaze"
#: where an image (and its gaze annotation) comes from
SOURCES: tuple[str, ...] = ("gazefollow", "videoattentiontarget", "synthetic")
IMAGE_RULE = "the scene image (one still image, no gaze drawn)"

TASKS: tuple[TaskDef, ...] = (
    TaskDef("god", "Gaze object description", "god", IMAGE_RULE, lmms_name="vl4gaze_god"),
    TaskDef("gdd", "Gaze direction description", "gdd", IMAGE_RULE, lmms_name="vl4gaze_gdd"),
    TaskDef("gpl", "Gaze point location", "gpl", IMAGE_RULE, lmms_name="vl4gaze_gpl"),
    TaskDef("aqr", "Ambiguous question recognition", "aqr", IMAGE_RULE, lmms_name="vl4gaze_aqr"),
)
CATEGORIES: tuple[str, ...] = tuple(t.id for t in TASKS)

#: lmms-eval metrics per task (values in the paper's units: BLEU 0-100, the rest 0-1, angles in degrees)
METRICS: dict[str, tuple[str, ...]] = {
    "god": ("bleu", "rouge_l", "judge"),
    "gdd": ("direction_acc", "angular_error"),
    "gpl": ("l2", "inout_acc"),
    "aqr": ("f1",),
}
LOWER_IS_BETTER: tuple[str, ...] = ("angular_error", "l2")

#: leaderboard column key -> the (task, metric) it shows; the paper's main table in its order (ROUGE-L
#: is not in that table: its rows leave it None).
COLUMN_METRICS: dict[str, tuple[str, str]] = {
    "god_bleu": ("god", "bleu"), "god_rouge_l": ("god", "rouge_l"), "god_judge": ("god", "judge"),
    "gdd_angle": ("gdd", "angular_error"), "gdd_acc": ("gdd", "direction_acc"),
    "gpl_l2": ("gpl", "l2"), "gpl_inout_acc": ("gpl", "inout_acc"), "aqr_f1": ("aqr", "f1"),
}
#: the leaderboard's columns (registry contract): ratios stored as fractions and shown in percent; BLEU (0-100),
#: the angular error (degrees) and the L2 distance in their own units
LEADERBOARD_COLUMNS: tuple[LeaderboardColumn, ...] = (
    LeaderboardColumn("god_bleu", "GOD BLEU", True, "gaze object description: BLEU (0-100)", 2, "bleu"),
    LeaderboardColumn("god_rouge_l", "GOD ROUGE-L", True, "gaze object description: ROUGE-L F (%)"),
    LeaderboardColumn("god_judge", "GOD VLM judge", True, "gaze object description: VLM-judge score (%); "
                      "empty when the run had no judge"),
    LeaderboardColumn("gdd_angle", "GDD angular error (deg)", False, "gaze direction description: mean "
                      "angular error in degrees, lower is better", 2, "deg"),
    LeaderboardColumn("gdd_acc", "GDD accuracy", True, "gaze direction description: 8-way accuracy (%)"),
    LeaderboardColumn("gpl_l2", "GPL L2", False, "gaze point location: L2 on normalised coordinates, "
                      "lower is better", 3, "l2"),
    LeaderboardColumn("gpl_inout_acc", "GPL in/out accuracy", True, "gaze point location: in/out-of-frame "
                      "accuracy (%)"),
    LeaderboardColumn("aqr_f1", "AQR F1", True, "ambiguous question recognition: F1 (%)"),
    LeaderboardColumn("overall", "Overall", True, "none: the four tasks report metrics in different units and "
                      "the paper gives no overall score, so rows are not ranked"),
)

BENCHMARK = register(declare(
    __name__,
    name=NAME,
    title="VL4Gaze",
    paper="VL4Gaze: Unleashing Vision-Language Models for Gaze Following (arXiv 2512.20735)",
    tasks=TASKS,
    categories=CATEGORIES,
    gaze_variants={"": "none"},  # the question names the person; no gaze is drawn or given
    metrics=METRICS,
    dataset=dict(
        dataset_name=NAME, pretty_name="VL4Gaze",
        qa_sort_keys=("source", "video_id", "question_id"),
        tags=("gaze-following", "gaze", "visual-question-answering", "benchmark", "image"),
        loading_example="god",
        license="other",
        media="image",
        license_note=("Questions built by the §3 pipeline from gaze-following annotations inherit the terms of "
            "those annotations and their images (GazeFollow, VideoAttentionTarget) and of the VLM that wrote "
            "the descriptions; a build from the synthetic world has no third-party content. Check the "
            "sources' terms before using or redistributing a dataset built from real annotations."),
        task_categories=("visual-question-answering", "image-text-to-text"),
    ),
    root_env="VL4GAZE_ROOT",
    default_root="vl4gaze",
    prompt_modes=("default", "reference"),
    importers=("raw",),  # from gaze-following annotations (GazeFollow, VideoAttentionTarget) through §3
    parts=("cli",),  # its own build options
    leaderboard=dict(columns=LEADERBOARD_COLUMNS),
    extra={"sources": SOURCES},
    lmms=LmmsOptions(lower_is_better=LOWER_IS_BETTER),
    # the optional VLM judge of GOD answers (an OpenAI-compatible endpoint, its model and key); without URL
    # and model the judge metric is NaN
    run_options=(RunOption("vl4gaze_judge_url", "VL4GAZE_JUDGE_URL", help="VL4Gaze's judge: endpoint URL"),
                 RunOption("vl4gaze_judge_model", "VL4GAZE_JUDGE_MODEL", help="VL4Gaze's judge: model name"),
                 RunOption("vl4gaze_judge_key", "VL4GAZE_JUDGE_KEY", secret=True, help="VL4Gaze's judge: API key")),
    # the old command names (deprecated: each prints one line naming the new one)
    aliases={"build-vl4gaze": ("build", "vl4gaze")},
    order=3,
))
