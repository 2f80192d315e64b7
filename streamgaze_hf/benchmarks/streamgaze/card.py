"""StreamGaze's dataset card texts (the shared skeleton is ``streamgaze_hf/dataset/card.py``)."""

from __future__ import annotations

import os

from ... import __version__
from ...dataset import empty_note, variants_markdown
from .tasks import PRESENT_WINDOW_S, TASKS


def intro(stats: dict, version: str) -> str:
    """What StreamGaze is, then how to load it (the loading section comes before the shared notes)."""
    d = stats["durations"]
    text = (
        "StreamGaze is a benchmark of gaze-guided streaming video understanding on egocentric "
        f"video: {stats['questions']:,} questions in ten tasks over three temporal categories "
        f"(past, present, proactive), on {stats['videos']:,} videos ({d['total_hours']:.2f} hours). "
        f"This is dataset version {version}, written by streamgaze-toolkit {__version__}."
    )
    return text + "\n\n" + _loading_section(stats)


def sections(stats: dict, root: str | os.PathLike[str]) -> list[str]:
    """The time-window table and the evaluation variants of the dataset at ``root``."""
    return [_windows_section(), variants_markdown(root)]


def _loading_section(stats: dict) -> str:
    configs = ", ".join(f"`{t.id}`" for t in TASKS)
    return "\n".join(
        [
            "## Loading",
            "",
            "```python",
            "from datasets import load_dataset",
            "",
            "# from the directory that contains this `streamgaze/` directory",
            'ds = load_dataset("streamgaze", "oi_easy", split="test")',
            "# or from anywhere, with the path to this directory (recommended: a bare name that is not a",
            "# directory in the working directory becomes a Hub lookup, and offline a stale cache hit)",
            'ds = load_dataset("/path/to/streamgaze", "oi_easy", split="test")',
            "```",
            "",
            f"Configs: {configs} (one per task, all with the same columns), `videos` (one row per video), "
            "`gaze` (gaze samples: `t`, normalised top-left `x`, `y`, tracker `valid`, and `in_frame`: valid "
            "and inside the frame; off-frame samples keep their position outside [0, 1]) and `fixations` "
            "(fixations and scanpath episodes with in-view and out-of-view objects). "
            "Every config has a single `test` split.",
            "",
            *empty_note(stats),
            "`video_path` and `overlay_path` are paths relative to this directory (`videos/original/...` "
            "and `videos/overlay/...`, the gaze-overlay rendering shown to models); decode them with the "
            "video reader of your choice. With the toolkit installed, "
            '`streamgaze_hf.dataset.load.load_task("oi_easy", root)` does the above.',
        ]
    )


def _windows_section() -> str:
    rows = [
        ("past", "[0, t]", "everything up to the query time t"),
        ("present", f"[max(0, t - {PRESENT_WINDOW_S:g}), t]", f"the last {PRESENT_WINDOW_S:g} s before t"),
        (
            "proactive",
            "[0, r] for each checkpoint r",
            "the stream up to each checkpoint, asked once per checkpoint",
        ),
    ]
    lines = [
        "## Time windows",
        "",
        "A model never receives a frame after the window end (the benchmark's no-future-leakage rule). "
        "`window_start` / `window_end` in each row are the window of its query time.",
        "",
        "| Category | Tasks | Window | Meaning |",
        "| --- | --- | --- | --- |",
    ]
    for category, window, meaning in rows:
        tasks = ", ".join(f"`{t.id}`" for t in TASKS if t.category == category)
        lines.append(f"| {category} | {tasks} | `{window}` | {meaning} |")
    return "\n".join(lines)
