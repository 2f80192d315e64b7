"""Dataset-card texts of an EgoGazeVQA dataset (the shared card in ``dataset/card.py`` adds the YAML
front matter, the statistics tables, the file/version notes and the licence)."""

from __future__ import annotations

import os

from . import BENCHMARK, GROUP_SIZE, OPTION_COUNT, TASKS


def intro(stats: dict, version: str) -> str:
    from ... import __version__

    return (
        "EgoGazeVQA (\"In the Eye of MLLM\", NeurIPS 2025 Datasets and Benchmarks) is a benchmark of "
        f"gaze-guided egocentric video question answering: {stats['questions']:,} {OPTION_COUNT}-option "
        f"questions in three categories ({', '.join(t.id for t in TASKS)}) over {stats['videos']:,} clips "
        f"from Ego4D, Ego-Exo4D and EGTEA Gaze+, each bound to {GROUP_SIZE} keyframes with the wearer's "
        f"gaze. This is dataset version {version}, written by streamgaze-toolkit {__version__}."
    )


def sections(stats: dict, root: str | os.PathLike[str]) -> list[str]:
    from ...dataset import empty_note, loading_section

    configs = ", ".join(f"`{t.id}`" for t in TASKS)
    return [
        "\n".join([
            *loading_section(BENCHMARK.dataset),
            "",
            f"Configs: {configs} (one per category, all with the same columns), `videos` (one row per "
            "clip) and `gaze` (every narration sample with its gaze: `t`, normalised top-left `x`, `y`, "
            "`valid`). Every config has a single `test` split.",
            "",
            *empty_note(stats),
            f"Each question's `frames` lists its {GROUP_SIZE} keyframes in time order: `path` (an image "
            "relative to this directory, under `frames/<source>/<video_id>/`), `frame`, `time` (seconds; "
            "NaN when the release does not give it) and the gaze at that frame (`gaze_x`, `gaze_y` "
            "normalised, origin top-left; `gaze_valid`). `source`, `scenario` and `activity` are given "
            "where known (\"\" otherwise).",
        ]),
        "\n".join([
            "## What a model is shown", "",
            f"No time window: exactly the question's {GROUP_SIZE} keyframes, in order. The gaze-prompting "
            "strategies of the paper (its Table 3) are evaluation variants, not stored data: GazeT "
            "(the per-frame gaze coordinates in the prompt), GazeV (a red circle drawn at the gaze point "
            "of each frame) and GazeS (a sequential salience map of the group's gaze shown first).",
        ]),
    ]
