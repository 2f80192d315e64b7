"""The ten StreamGaze tasks: the one table every other module reads (docs/streamgaze.md, paper §4.2).

Window rule (the benchmark's no-future-leakage contract, paper §4.1 / appendix B):
  past      -> [0, t]
  present   -> [max(0, t - 60), t]
  proactive -> [0, r] for each checkpoint r
with t the question's query time. No model input may contain a frame after the window end.
"""

from __future__ import annotations

from typing import Literal

from ...registry import TaskDef

Category = Literal["past", "present", "proactive"]
PRESENT_WINDOW_S = 60.0
PROACTIVE_OFFSETS_S = (-20.0, -10.0, 0.0, 10.0, 20.0)
PROACTIVE_MAX_SPAN_S = 300.0


_RULES = {"past": "[0, t]", "present": f"[max(0, t - {PRESENT_WINDOW_S:g}), t]",
          "proactive": "[0, r] per checkpoint r"}


def _task(task_id: str, name: str, category: Category, release_file: str) -> TaskDef:
    return TaskDef(task_id, name, category, _RULES[category], option_count=None,
                   checkpointed=category == "proactive", lmms_name=f"streamgaze_{task_id}", release_file=release_file)


TASKS: tuple[TaskDef, ...] = (
    _task("nfi", "Non-Fixated Object Identification", "past", "past_non_fixated_object_identification.json"),
    _task("otp", "Object Transition Prediction", "past", "past_object_transition_prediction.json"),
    _task("gsm", "Gaze Sequence Matching", "past", "past_gaze_sequence_matching.json"),
    _task("sr", "Scene Recall", "past", "past_scene_recall.json"),
    _task("oi_easy", "Object Identification (Easy)", "present", "present_object_identification_easy.json"),
    _task("oi_hard", "Object Identification (Hard)", "present", "present_object_identification_hard.json"),
    _task("oar", "Object Attribute Recognition", "present", "present_object_attribute_recognition.json"),
    _task("fap", "Future Action Prediction", "present", "present_future_action_prediction.json"),
    _task("gta", "Gaze-Triggered Alert", "proactive", "proactive_gaze_triggered_alert.json"),
    _task("oaa", "Object Appearance Alert", "proactive", "proactive_object_appearance_alert.json"),
)
TASK_IDS: tuple[str, ...] = tuple(t.id for t in TASKS)
CATEGORIES: tuple[Category, ...] = ("past", "present", "proactive")
_BY_ID = {t.id: t for t in TASKS}
_BY_FILE = {t.release_file: t for t in TASKS}


def get_task(task_id: str) -> TaskDef:
    try:
        return _BY_ID[task_id]
    except KeyError:
        raise KeyError(f"unknown task {task_id!r}; tasks are {', '.join(TASK_IDS)}") from None


def task_for_release_file(file_name: str) -> TaskDef | None:
    return _BY_FILE.get(file_name)


def tasks_in(category: Category) -> tuple[TaskDef, ...]:
    return tuple(t for t in TASKS if t.category == category)


def window(task_id: str, query_time: float) -> tuple[float, float]:
    """The window a model may see for a question asked at ``query_time`` (for proactive tasks, the
    query time is the checkpoint time r)."""
    t = float(query_time)
    if get_task(task_id).category == "present":
        return max(0.0, t - PRESENT_WINDOW_S), t
    return 0.0, t
