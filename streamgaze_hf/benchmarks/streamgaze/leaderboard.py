"""StreamGaze's leaderboard layout (its part of the registry's leaderboard contract): its columns (overall,
one mean per category, one column per task), the page's title and notes, its settings, and its sections.

Sections: one per dataset, rows ranked only against rows on the same dataset. The **full release**
section holds the paper's Table 2 rows (the official release: 8,521 questions), joined by submissions
re-scored against a dataset imported from the complete release; any other dataset version (builds from
raw data, subsets of the release) has a section of its own: the hooks ``dataset_section`` and
``reference_section`` of this part (the declaration's ``parts``), which the shared leaderboard code calls through
``Benchmark.plugin()``. Light: imported by the declaration, so nothing heavy here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...registry import LeaderboardColumn, hook
from .tasks import CATEGORIES, TASKS

__all__ = ["COLUMNS", "TASK_LABELS", "TITLE", "NOTES", "SETTINGS", "FULL_RELEASE", "PAPER_QUESTIONS", "FULL_TITLE",
           "FULL_NOTE", "dataset_section", "reference_section"]

TASK_LABELS = {"nfi": "NFI", "otp": "OTP", "gsm": "GSM", "sr": "SR", "oi_easy": "OI-E", "oi_hard": "OI-H",
               "oar": "OAR", "fap": "FAP", "gta": "GTA", "oaa": "OAA"}
#: the table's score columns: Overall, the category means, the ten tasks (fractions)
COLUMNS: tuple[LeaderboardColumn, ...] = (
    LeaderboardColumn("overall", "Overall", True, "unweighted mean of the ten task scores"),
    *(LeaderboardColumn(cat, cat.capitalize(), True, f"mean of the {cat} tasks' scores") for cat in CATEGORIES),
    *(LeaderboardColumn(t.id, TASK_LABELS[t.id], True,
                        f"{t.name} ({t.category})" + ("; checkpoint accuracy" if t.checkpointed else ""))
      for t in TASKS),
)
SETTINGS = ("gaze", "prompt_mode", "clip_fps", "protocol", "frames", "params", "by_source")
TITLE = "StreamGaze leaderboard"
NOTES = (
    "Scores are percentages (one decimal; leaderboard.csv holds the fractions); proactive tasks (GTA, OAA) "
    "report checkpoint accuracy. "
    "Overall is the unweighted mean of the ten task scores.",
    "Submission rows are re-scored from their raw responses against the dataset named in their table's title; "
    "missing answers count as wrong (see Coverage). Self-reported scores are never used.",
    "Rows marked 'reported in the paper' are copied from the StreamGaze paper's Table 2 (full benchmark, "
    "official prompts and parser = prompt mode 'reference'); they are not re-scored. AssistGaze has no "
    "proactive scores; its overall is over eight tasks, as in the paper.",
    "Gaze, Prompt, Clip fps cap, Frames and Params are the settings that change a number: compare rows "
    "only where they match.",
    "Each dataset has its own table and ranking: scores on a demo-scale or partial dataset are never ranked "
    "against the full benchmark's.",
)

#: the section key of the full benchmark (the paper's rows)
FULL_RELEASE = "full-release"
#: questions of the complete official release (the paper's benchmark)
PAPER_QUESTIONS = 8521
FULL_TITLE = f"Full benchmark: the official release ({PAPER_QUESTIONS:,} questions)"
FULL_NOTE = ("The paper's Table 2 (reported, not re-scored; official prompts and parser = prompt mode "
             "'reference') and submissions re-scored on the complete official release.")
_RELEASE_ROAD = "official-release"  # release.py ROAD, not imported to keep this module light


def _questions(manifest: Mapping[str, Any]) -> int:
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    per_task = counts.get("questions") if isinstance(counts.get("questions"), dict) else {}
    return int(sum(v for v in per_task.values() if isinstance(v, int)))


@hook
def reference_section() -> tuple[str, str, str]:
    """(key, title, note) of the paper's rows' section."""
    return FULL_RELEASE, FULL_TITLE, FULL_NOTE


@hook
def dataset_section(manifest: Mapping[str, Any]) -> tuple[str, str, str]:
    """(key, title, note) of the section for submissions on the dataset with this manifest."""
    version = str(manifest.get("version", "?"))
    build = manifest.get("build") if isinstance(manifest.get("build"), dict) else {}
    road = str(build.get("road") or "")
    n_q = _questions(manifest)
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    videos = counts.get("videos")
    if road == _RELEASE_ROAD and n_q == PAPER_QUESTIONS:
        return FULL_RELEASE, FULL_TITLE, FULL_NOTE + f" Submissions here are on dataset version {version}."
    what = "imported from part of the official release" if road == _RELEASE_ROAD else "built by the toolkit"
    size = f"{n_q:,} questions" + (f", {videos:,} videos" if isinstance(videos, int) else "")
    title = f"Dataset {version} ({size})"
    note = (f"Dataset version {version}, {what}. Its scores are ranked only against each other, never "
            f"against the full benchmark's ({PAPER_QUESTIONS:,} questions).")
    return f"dataset-{version}", title, note
