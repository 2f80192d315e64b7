"""EgoGazeVQA's `build` options (``RAW``/``RELEASE``: hooks of the ``cli`` part, ``Plugin.importer_options``)."""

from __future__ import annotations

import argparse

from ...cli.base import Handler, executor_args, raw_common, vlm_gpus_arg, vlm_key_arg, workers_of
from ...gaze import SOURCES
from ...registry import provide
from . import BENCHMARK


def _raw(p: argparse.ArgumentParser) -> Handler:
    raw_common(p, "./egogazevqa")
    p.add_argument("--source", default="world", choices=SOURCES,
                   help="raw layout (default: world, the demo world's format)")
    p.add_argument("--vlm-url", default="", help="OpenAI-compatible base URL of the QA-generating VLM")
    p.add_argument("--vlm-model", default="", help="its model name")
    vlm_key_arg(p)
    p.add_argument("--review", nargs="+", default=[], metavar="CSV",
                   help="question-verification CSVs (streamgaze review export) applied to the questions")
    p.add_argument("--groups-per-video", type=int, default=None,
                   help="keyframe groups kept per video (default: 3, EGTEA 1, as in the paper)")
    executor_args(p, "recordings (also for the previews)")
    vlm_gpus_arg(p)

    def run(a: argparse.Namespace) -> int:
        from .build import EgoBuildOptions

        opts = EgoBuildOptions(source=a.source, vlm_url=a.vlm_url, vlm_model=a.vlm_model,
                               vlm_api_key_env=a.vlm_api_key_env, groups_per_video=a.groups_per_video, review=tuple(a.review))
        build = BENCHMARK.importer("raw")
        print(build(a.raw, a.out, a.version, options=opts, force=a.force, changelog=a.changelog,
                    previews=a.previews, workers=workers_of(a), vlm_gpus=a.vlm_gpus))
        return 0

    return run


RAW = ("narrations -> 9-keyframe groups -> QA by a VLM (docs/egogazevqa.md)", _raw)
RELEASE = ("the official EgoGazeVQA release ({spatial,temporal,causal}_*.csv, narrations/*.json, keyframes or "
           "clips)", None)
provide(__name__, RAW=RAW, RELEASE=RELEASE)
