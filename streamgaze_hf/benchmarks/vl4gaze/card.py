"""Dataset-card texts of a VL4Gaze dataset (the shared card in ``dataset/card.py`` adds the YAML front
matter, the statistics tables, the file/version notes and the licence)."""

from __future__ import annotations

import os

from . import BENCHMARK, TASKS


def intro(stats: dict, version: str) -> str:
    from ... import __version__

    return (
        "VL4Gaze (arXiv 2512.20735) frames third-person gaze following as visual question answering: "
        f"{stats['questions']:,} questions over {stats['videos']:,} images, in four tasks "
        f"({', '.join(f'{t.id}: {t.name.lower()}' for t in TASKS)}), generated from gaze-following annotations "
        f"by the paper's §3 pipeline. This is dataset version {version}, written by streamgaze-toolkit {__version__}."
    )


def sections(stats: dict, root: str | os.PathLike[str]) -> list[str]:
    from ...dataset import empty_note, loading_section

    configs = ", ".join(f"`{t.id}`" for t in TASKS)
    return [
        "\n".join([
            *loading_section(BENCHMARK.dataset),
            "",
            f"Configs: {configs} (one per task, all with the same columns) and `videos` (here one row per "
            "image: `video_id` is the image id, `duration` 0). Every config has a single `test` split.",
            "",
            *empty_note(stats),
            "Each question names one observer by a description (`observer_description`) and gives the image "
            "(`image_path`, relative to this directory), the observer's head box, eye point and gaze point "
            "(normalised to [0, 1], origin top-left, y down; -1, -1 and `inside` false when the target is out "
            "of the frame), the eight-way `direction` of the gaze (right = 0°, up = 90°, in pixels), and the "
            "reference `answer` (GPL: pixel coordinates `(x, y)` or `(-1, -1)`). AQR questions have `ambiguous` "
            "true when the description fits several people or nobody (answer: \"I cannot identify the observer.\").",
        ]),
    ]
