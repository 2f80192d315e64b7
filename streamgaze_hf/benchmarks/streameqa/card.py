"""Dataset-card texts of a StreamEQA dataset (the shared card in ``dataset/card.py`` adds the YAML
front matter, the statistics tables, the file/version notes and the licence)."""

from __future__ import annotations

import os

from . import BENCHMARK, CONTEXT_S, DIRECTIONS, LEVELS, MIN_WINDOW_S, OPTION_COUNT, SUBTASKS


def intro(stats: dict, version: str) -> str:
    from ... import __version__

    return (
        "StreamEQA (\"Towards Streaming Video Understanding for Embodied Scenarios\", CVPR 2026 Findings) is a "
        f"streaming embodied video question-answering benchmark: {stats['questions']:,} {OPTION_COUNT}-option "
        f"questions in {len(SUBTASKS)} sub-tasks over {stats['videos']:,} HD-EPIC egocentric kitchen videos, "
        f"grouped by embodied level ({', '.join(LEVELS)}) and by time direction ({', '.join(DIRECTIONS)}). "
        f"This is dataset version {version}, written by streamgaze-toolkit {__version__}."
    )


def sections(stats: dict, root: str | os.PathLike[str]) -> list[str]:
    from ...dataset import empty_note, loading_section

    return [
        "\n".join([
            *loading_section(BENCHMARK.dataset),
            "",
            "Configs: `perception`, `interaction`, `planning` (one per embodied level, all with the same "
            "columns; `task_code`, `task_name` and `direction` give the sub-task), `videos` (one row per "
            "HD-EPIC video) and `gaze` (the Aria eye gaze projected into the frames, when imported; an "
            "extension, not part of the published benchmark). Every config has a single `test` split.",
            "",
            *empty_note(stats),
        ]),
        "\n".join([
            "## What a model is shown", "",
            f"The window `[max(0, t - {CONTEXT_S:g}), t]` of the video (`window_start`, `window_end`; t = "
            "`query_time`, the release's `realtime`), never a frame after the query time. Questions whose "
            f"window the official code counts as {MIN_WINDOW_S:g} s or shorter (whole seconds: "
            "`int(t) - int(start) <= 1`; `short_window`) are skipped there; they are kept here, and the "
            "evaluation reports them separately.",
        ]),
    ]
