"""StreamEQA's `import` options (``RAW``/``RELEASE``: hooks of the ``cli`` part, ``Plugin.importer_options``)."""

from __future__ import annotations

import argparse

from ...cli.base import Handler, release_common, workers_of
from ...registry import provide
from . import BENCHMARK, CONTEXT_S


def _release(p: argparse.ArgumentParser) -> Handler:
    release_common(p, "directory holding the StreamEQA annotation files (e.g. the repository's data/annotations/)",
                    "./streameqa")
    p.add_argument("--videos", default=None, help="HD-EPIC videos as {VIDEOS}/{Pxx}/{video_id}.mp4 "
                   "(default SRC/videos)")
    p.add_argument("--context-s", type=float, default=None,
                   help="seconds of video before the query time the model sees (default 64, the official "
                        "context_time; 0 = the whole prefix)")
    p.add_argument("--gaze-dir", default=None, help="Aria MPS eye gaze per video ({GAZE_DIR}/{video_id}/"
                   "general_eye_gaze.csv + calibration.json): enables the gaze extension variants")

    def run(a: argparse.Namespace) -> int:

        report = BENCHMARK.importer("release")(
            a.release_dir, a.out, a.version, videos_dir=a.videos, gaze_dir=a.gaze_dir,
            context_s=CONTEXT_S if a.context_s is None else a.context_s, strict=a.strict, force=a.force,
            previews=a.previews, workers=workers_of(a))
        print(report.format())
        return 0

    return run


RELEASE = ("the official StreamEQA annotations (Perception.json, Interaction.json, Planning_all.json) and the "
           "HD-EPIC videos", _release)
provide(__name__, RELEASE=RELEASE)
