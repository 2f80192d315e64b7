"""StreamEQA ("Towards Streaming Video Understanding for Embodied Scenarios", CVPR 2026 Findings,
arXiv 2512.04451; supplement in shared/seeds/streameqa_supplement.txt) declared to the benchmark
registry.

About 21K four-option questions over HD-EPIC egocentric kitchen videos in 42 sub-tasks. Each sub-task
(a three-letter *task code*, e.g. OPB) has an embodied level (perception, interaction, planning: one
release file and one dataset config each) and a time direction (backward, realtime, forward: what the
question is about relative to its query time ``t``). The model sees the window
``[max(0, t - CONTEXT_S), t]`` of the video, ``CONTEXT_S`` = 64 s (the official ``context_time``; a
documented setting of the importer, ``--context-s``). Questions whose window the official code counts
as ``MIN_WINDOW_S`` (1 s) or shorter (on whole seconds: ``int(t) - int(start) <= 1``) are skipped there;
here they are kept, flagged (``short_window``) and counted in the import report and the results (see
``release.py`` and ``report.py``).

Modules: ``schema`` (QA row schema and validation), ``release`` (importer of the official annotation
JSON files), ``prompts`` (our prompt and the supplement's Fig. 6 prompt), ``evaluation`` (documents,
window clips, scoring, per code / level / direction breakdowns), ``report`` (``streamgaze
report streameqa``), ``paper`` (Tables 5-7 reference rows), ``card`` (dataset-card texts).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...registry import LeaderboardColumn, LmmsOptions, TaskDef, declare, register

NAME = "streameqa"
LEVELS: tuple[str, ...] = ("perception", "interaction", "planning")
DIRECTIONS: tuple[str, ...] = ("backward", "realtime", "forward")
#: the official annotation file of each level (data/annotations/ in the official repository)
RELEASE_FILES: dict[str, str] = {"perception": "Perception.json", "interaction": "Interaction.json",
                                 "planning": "Planning_all.json"}
CONTEXT_S = 64.0  # the official context_time: the window is [max(0, t - 64), t]
MIN_WINDOW_S = 1.0  # the official code skips windows of this length or shorter
OPTION_COUNT = 4
SOURCE = "hd-epic"


@dataclass(frozen=True)
class SubTask:
    """One of the 42 sub-tasks: its code, full name (supplement Figs. 15-19), level and direction
    (the column group of its table, supplement Tables 5-7)."""

    code: str
    name: str
    level: str
    direction: str


def _table(level: str, groups: dict[str, list[tuple[str, str]]]) -> list[SubTask]:
    return [SubTask(code, name, level, direction) for direction, items in groups.items() for code, name in items]


#: In the column order of the supplement's Tables 5 (perception), 6 (interaction) and 7 (planning).
SUBTASKS: tuple[SubTask, ...] = tuple(
    _table("perception", {
        "backward": [("OPB", "Object Perception Backward"), ("ARB", "Attribute Recognition Backward"),
                     ("RRB", "Relationship Recognition Backward"), ("SUB", "Spatial Understanding Backward")],
        "realtime": [("OPR", "Object Perception Realtime"), ("ORQ", "Object Requirement"),
                     ("ARR", "Attribute Recognition Realtime"), ("RRR", "Relationship Recognition Realtime"),
                     ("SUR", "Spatial Understanding Realtime")],
        "forward": [("OPF", "Object Perception Forward"), ("ARF", "Attribute Recognition Forward"),
                    ("RRF", "Relationship Recognition Forward"), ("SUF", "Spatial Understanding Forward")],
    })
    + _table("interaction", {
        "backward": [("ASR", "Action Sequence Retrieval"), ("EMM", "Episodic Memory"), ("ART", "Action Retrieval"),
                     ("AIR", "Action Intention Retrieval"), ("BRC", "Backward Repetition Event Count")],
        "realtime": [("AR", "Action Recognition"), ("OER", "Object Events Recognition"),
                     ("ARC", "Actions Relationship"), ("AIU", "Action Intention Understanding"),
                     ("OMP", "Objects Manipulation")],
        "forward": [("NAP", "Next Action Prediction"), ("EPD", "Episodic Prediction"), ("ERD", "Event Reminding"),
                    ("AIP", "Action Intention Prediction"), ("ARP", "Action Result Prediction"),
                    ("FRC", "Forward Repetition Event Count")],
    })
    + _table("planning", {
        "backward": [("PRF", "Plan Reflection"), ("BPO", "Backward Procedure Optimization"),
                     ("BPR", "Backward Procedure Replacement")],
        "realtime": [("RPO", "Real-time Procedure Optimization"), ("RPR", "Real-time Procedure Replacement")],
        "forward": [("FPS", "Future Plan Summarization"), ("FAC", "Future Actions"), ("FPA", "Forward Plan Adjustment"),
                    ("RPD", "Risk Prediction"), ("SMG", "Steps Merging"), ("FPR", "Forward Procedure Replacement"),
                    ("MUS", "Move-up Steps"), ("FPO", "Forward Procedure Optimization")],
    })
)
SUBTASK_BY_CODE: dict[str, SubTask] = {s.code: s for s in SUBTASKS}


def subtasks(level: str | None = None, direction: str | None = None) -> tuple[SubTask, ...]:
    """The sub-tasks of a level and/or direction, in table order."""
    return tuple(s for s in SUBTASKS if (level is None or s.level == level)
                 and (direction is None or s.direction == direction))


WINDOW_RULE = f"[max(0, t - {CONTEXT_S:g}), t] of the HD-EPIC video (t = query time; 64 s context)"
TASKS: tuple[TaskDef, ...] = tuple(
    TaskDef(level, level.capitalize(), level, WINDOW_RULE, OPTION_COUNT, lmms_name=f"{NAME}_{level}")
    for level in LEVELS)
#: lmms-eval task-name suffix -> gaze mode. "" is the benchmark as published (no gaze). The gaze
#: variants are an EXTENSION beyond the original benchmark (HD-EPIC's Aria gaze projected into the
#: frames, see gaze/sources/aria_mps.py): "_ext_gazeoverlay" (the gaze drawn on the window's frames)
#: and "_ext_gazetext" (the window's gaze points listed in the prompt).
GAZE_VARIANTS: dict[str, str] = {"": "none", "_ext_gazeoverlay": "visual", "_ext_gazetext": "text"}
#: extra lmms-eval tasks/groups: per slice name, the document field and value it keeps; the
#: registry generator writes tasks ``<level task>_<slice><suffix>`` and a group ``streameqa_<slice><suffix>``
LMMS_SLICES: dict[str, tuple[str, str]] = {d: ("direction", d) for d in DIRECTIONS}

#: Leaderboard columns (key, label, higher is better): per level, per direction, then per task code
#: in table order. Values come from ``evaluation.leaderboard_scores(records)`` (accuracy in %).
LEADERBOARD_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    tuple((level, level.capitalize(), True) for level in LEVELS)
    + tuple((d, d.capitalize(), True) for d in DIRECTIONS)
    + tuple((s.code, s.code, True) for s in SUBTASKS))

BENCHMARK = register(declare(
    __name__,
    name=NAME,
    title="StreamEQA",
    paper="Towards Streaming Video Understanding for Embodied Scenarios (CVPR 2026 Findings, arXiv 2512.04451)",
    tasks=TASKS,
    categories=LEVELS,
    gaze_variants=GAZE_VARIANTS,
    metrics={"mc": ("accuracy",)},
    dataset=dict(
        dataset_name=NAME, pretty_name="StreamEQA",
        qa_sort_keys=("video_id", "query_time", "question_id"),
        tags=("egocentric", "embodied", "streaming", "video-question-answering", "benchmark", "hd-epic"),
        loading_example="perception",
        license="other",
        license_note=("The questions and answers are StreamEQA's (see its repository's terms); the videos and gaze "
            "are HD-EPIC's, under HD-EPIC's own licence and terms of use. This conversion relicenses neither: "
            "check both before using or redistributing this dataset."),
    ),
    root_env="STREAMEQA_ROOT",
    default_root="streameqa",
    importers=("release",),
    parts=("cli", "report"),  # its own import options; `streamgaze report streameqa RUN`
    leaderboard=dict(columns=tuple(LeaderboardColumn(key, label, hib, unit="fraction", legacy_unit="percent")
                                   for key, label, hib in LEADERBOARD_COLUMNS)
                     + (LeaderboardColumn("overall", "Overall", True, "mean of the three levels' accuracies, as the "
                                          "paper's rows here (the paper prints no overall)", unit="fraction",
                                          legacy_unit="percent"),)),
    extra={"context_s": CONTEXT_S, "min_window_s": MIN_WINDOW_S},
    lmms=LmmsOptions(slices=LMMS_SLICES),
    # the old command names (deprecated: each prints one line naming the new one)
    aliases={"import-streameqa": ("import", "streameqa"), "streameqa-report": ("report", "streameqa")},
    recorded_settings=("prompt_mode", "clip_fps", "protocol", "model_ready"),
    order=2,
))
