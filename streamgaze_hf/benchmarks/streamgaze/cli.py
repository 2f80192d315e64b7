"""StreamGaze's command-line options: its ``streamgaze build streamgaze`` and ``streamgaze import
streamgaze`` sub-commands.

The shared CLI (``streamgaze_hf/cli/data.py``) asks the registry for them (``Benchmark.cli_options``): ``RAW``
and ``RELEASE`` are ``(help, configure)`` pairs, ``configure(parser)`` adds the options and returns the
command's handler.
"""

from __future__ import annotations

import argparse
import sys

from ...cli.base import Handler, proxy_args, raw_common, release_common, vlm_key_arg
from ...gaze.sources.registry import SOURCES
from ...util.errors import StreamGazeError
from . import BENCHMARK


def _raw(p: argparse.ArgumentParser) -> Handler:
    raw_common(p, "./streamgaze")
    p.add_argument("--source", default="world", choices=SOURCES,
                   help="raw layout (default: world, the demo world's format)")
    p.add_argument("--objects", default=None, choices=["oracle", "metadata", "vlm", "none"],
                   help="object back-end (default: oracle for the demo world, else required): metadata (the "
                        "official episode CSV), vlm (an OpenAI-compatible endpoint names them), none (no object "
                        "names, no server: the tasks that need none are built, the others reported as skipped)")
    p.add_argument("--metadata", default="", help="metadata back-end: official episode metadata CSV (or dir)")
    p.add_argument("--vlm-url", default="", help="vlm back-end: OpenAI-compatible base URL")
    p.add_argument("--vlm-model", default="", help="vlm back-end: model name")
    vlm_key_arg(p)
    p.add_argument("--review", nargs="+", default=[], metavar="CSV",
                   help="human-verification CSVs (streamgaze review export) applied before QA generation")
    p.add_argument("--fixations", default="detector", choices=["detector", "device"],
                   help="fixations the pipeline starts from: detector (the paper's dispersion rule, default) or "
                        "device (the glasses' own: Pupil Cloud fixations.csv, Neon's fixation stream; those "
                        "lasting at least 2 s)")
    p.add_argument("--hfov", type=float, default=None, help="horizontal field of view in degrees (default: "
                   "from the intrinsics when the source has them, else 90)")
    p.add_argument("--seed", type=int, default=0, help="QA generation seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="parallel worker processes over videos")
    proxy_args(p)

    def run(a: argparse.Namespace) -> int:
        from ...video.proxy import proxy_spec
        from .build import BuildOptions

        objects = a.objects or ("oracle" if a.source == "world" else "")
        if not objects:
            raise StreamGazeError(f"--source {a.source} needs an object back-end: --objects vlm --vlm-url URL "
                                  "--vlm-model NAME, --objects metadata --metadata CSV, or --objects none (no object "
                                  "names: only the tasks that need none); the oracle needs the demo world")
        opts = BuildOptions(seed=a.seed, source=a.source, objects=objects, metadata=a.metadata, vlm_url=a.vlm_url,
                            vlm_model=a.vlm_model, vlm_api_key_env=a.vlm_api_key_env, review=tuple(a.review), hfov_deg=a.hfov, fixations=a.fixations)
        build = BENCHMARK.importer("raw")
        root = build(a.raw, a.out, a.version, workers=a.workers, force=a.force, changelog=a.changelog,
                     options=opts, proxy=proxy_spec(a.proxy_fps, a.proxy_size), previews=a.previews)
        from ...dataset.load import read_manifest, task_is_empty

        empty = task_is_empty(root)
        for line in skipped_report(read_manifest(root)["build"].get("skipped_tasks", {}),
                                   lambda task: empty(BENCHMARK.name, task)):
            print(line, file=sys.stderr)  # stdout stays the dataset's path
        print(root)
        return 0

    return run


def _release(p: argparse.ArgumentParser) -> Handler:
    release_common(p, "directory of the official release (qa/, metadata/, videos/)", "./streamgaze")
    p.add_argument("--reencode", action="store_true",
                   help="store the videos re-encoded with a keyframe at every window start (fast, exact clips)")
    proxy_args(p)

    def run(a: argparse.Namespace) -> int:
        from ...video.proxy import proxy_spec

        report = BENCHMARK.importer("release")(
            a.release_dir, a.out, a.version, strict=a.strict, force=a.force, reencode=a.reencode,
            proxy=proxy_spec(a.proxy_fps, a.proxy_size), previews=a.previews)
        print(report.format())
        return 0

    return run


def skipped_report(skipped: dict[str, dict[str, str]], empty) -> list[str]:
    """The build report's lines, never silent: every task with no question in the dataset (``empty(task)``), and
    every task some recordings gave none, each with each recording's reason (``skipped``: task -> {video: why})."""
    from .tasks import TASK_IDS

    out = []
    for task in TASK_IDS:
        why = skipped.get(task) or {}
        if not why:
            continue
        head = f"no questions for {task}" if empty(task) else f"skipped: {task} for {len(why)} recording(s)"
        if len(why) == 1:
            [(vid, reason)] = why.items()
            out.append(f"{head}: {vid}: {reason}")
        else:
            out.append(f"{head} ({len(why)} recordings):" if empty(task) else f"{head}:")
            out += [f"  {vid}: {reason}" for vid, reason in sorted(why.items())]
    return out


RAW = ("the paper's pipeline: raw recordings -> fixations -> objects -> QA (docs/streamgaze.md)", _raw)
RELEASE = ("the official StreamGaze release (qa/*.json, metadata/*.csv, videos)", _release)
