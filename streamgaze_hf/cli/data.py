"""Data commands: the demo world, overlays, gaze tracks, building and importing a benchmark's dataset,
its statistics and its check.

``build BENCH`` and ``import BENCH`` have one sub-command per registered benchmark with an importer of
that kind (``raw``, ``release``: ``streamgaze_hf.registry.IMPORTER_KINDS``); a benchmark's own options are
in the ``cli`` part of its package (``RAW``, ``RELEASE``: ``Plugin.importer_options``), a benchmark without
any gets the common ones.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..util.errors import StreamGazeError
from .base import (
    Handler,
    add_dataset,
    command,
    dataset_reference,
    hidden_parser,
    raw_common,
    release_common,
    video_assumptions,
    workers_of,
)


@command("world", "generate the synthetic egocentric demo world (raw format: video.mp4, gaze.csv, actions.json, objects.json)")
def _world(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--out", required=True, help="output directory (one sub-directory per video)")
    p.add_argument("--videos", type=int, default=3, help="number of videos (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--duration", type=float, default=None, help="seconds per video (default: 60-120 s, drawn per video)")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--fps", type=float, default=24.0)

    def run(a: argparse.Namespace) -> int:
        from ..demo.world import generate_world

        paths = generate_world(a.out, n_videos=a.videos, seed=a.seed, duration=a.duration,
                               width=a.width, height=a.height, fps=a.fps)
        for path in paths:
            print(path)
        return 0

    return run


@command("overlay", "render the gaze-overlay video (green gaze dot, red FOV circle) of one video")
def _overlay(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("video", help="source video")
    p.add_argument("gaze_csv", help="gaze.csv (t, x, y, valid; normalised, top-left)")
    p.add_argument("--out", required=True, help="output .mp4 (H.264, yuv420p)")
    p.add_argument("--hfov", type=float, default=None, help="horizontal field of view in degrees (default 90)")

    def run(a: argparse.Namespace) -> int:
        from ..gaze import render_overlay_files
        from ..util.preflight import existing_file, in_range, output_file

        existing_file(a.video, "video")
        existing_file(a.gaze_csv, "gaze CSV")
        in_range(a.hfov, "--hfov (degrees)", 0.0, 180.0, include_hi=False)
        output_file(a.out)
        render_overlay_files(a.video, a.gaze_csv, a.out, hfov_deg=a.hfov)
        print(a.out)
        return 0

    return run


@command("gaze", "export the normalised gaze track of one raw recording as CSV (t, x, y, valid, in_frame)")
def _gaze(p: argparse.ArgumentParser) -> Handler:
    from ..gaze import DIRECTORY_SOURCES, SOURCES

    p.add_argument("path", help="the recording's gaze file in its native format, or its recording directory "
                   f"({', '.join(DIRECTORY_SOURCES)})")
    p.add_argument("--source", default="world", choices=SOURCES, metavar="SOURCE",
                   help=f"raw layout: {', '.join(SOURCES)} (default: world, as in build)")
    p.add_argument("--video", default=None,
                   help="the recording's video (size and rate; default: looked up in the source's native layout)")
    p.add_argument("--out", required=True, help="CSV to write (x, y normalised, origin top-left)")

    def run(a: argparse.Namespace) -> int:
        from ..gaze import read_track, write_gaze_csv
        from ..util.preflight import output_file

        output_file(a.out)
        with video_assumptions():
            track = read_track(a.path, a.source, a.video)
        write_gaze_csv(track, a.out, with_in_frame=True)
        print(a.out)
        return 0

    return run


# ---- build BENCH: the raw pipelines --------------------------------------------------------------------

def _build_generic(name: str) -> Callable[[argparse.ArgumentParser], Handler]:
    """``build NAME`` of a registered benchmark whose raw build has no options of its own here."""

    def configure(p: argparse.ArgumentParser) -> Handler:
        raw_common(p, f"./{name}")

        def run(a: argparse.Namespace) -> int:
            from ..registry import get_benchmark

            build = get_benchmark(name).importer("raw")
            print(build(a.raw, a.out, a.version, force=a.force, changelog=a.changelog, previews=a.previews))
            return 0

        return run

    return configure




def _per_benchmark(p: argparse.ArgumentParser, kind: str, generic, missing) -> Handler:
    """One sub-command per registered benchmark with an importer of ``kind``, with the benchmark's own
    options (``Plugin.importer_options(kind)``: the ``cli`` part of its package) or ``generic(name)``'s; the others
    answer ``missing(benchmark)`` (one error line) and stay out of the help."""
    from ..registry import benchmarks

    sub = p.add_subparsers(dest="benchmark", required=True, metavar="BENCH")
    for b in benchmarks():
        if kind not in b.importers:
            hidden_parser(sub, b.name, missing(b))
            continue
        help_text, configure = b.plugin().importer_options(kind) or (f"{b.title} ({kind} importer)", None)
        configure = configure or generic(b.name)
        child = sub.add_parser(b.name, help=help_text, description=f"{b.title}: {help_text}")
        child.set_defaults(_handler=configure(child))

    def run(a: argparse.Namespace) -> int:  # never reached: each benchmark's parser has its handler
        raise StreamGazeError(f"{p.prog}: which benchmark?")

    return run


@command("build", "build a benchmark's versioned dataset from raw recordings or annotations (its pipeline)")
def _build(p: argparse.ArgumentParser) -> Handler:
    return _per_benchmark(p, "raw", _build_generic,
                          lambda b: f"{b.name} has no raw build; import its release: `streamgaze import {b.name} "
                                    "SRC --out DIR --version X.Y.Z`")


# ---- import BENCH: the official releases --------------------------------------------------------------

def _import_generic(name: str) -> Callable[[argparse.ArgumentParser], Handler]:
    """``import NAME SRC`` of a registered benchmark whose importer has no options of its own here."""

    def configure(p: argparse.ArgumentParser) -> Handler:
        release_common(p, f"directory of the official {name} release", f"./{name}")

        def run(a: argparse.Namespace) -> int:
            import inspect

            from ..registry import get_benchmark
            from ..util.executors import Workers

            importer = get_benchmark(name).importer("release")
            workers, where = workers_of(a), {}
            if "workers" in inspect.signature(importer).parameters:
                where["workers"] = workers
            elif workers != Workers():
                raise StreamGazeError(f"{name}'s importer runs its work in this process: it takes no --workers, "
                                      "--executor or --ray-address")
            report = importer(a.release_dir, a.out, a.version, strict=a.strict, force=a.force, previews=a.previews,
                              **where)
            print(report.format())
            return 0

        return run

    return configure




@command("import", "convert a benchmark's official release into our dataset")
def _import(p: argparse.ArgumentParser) -> Handler:
    return _per_benchmark(p, "release", _import_generic,
                          lambda b: f"{b.name} has no official release to import: it has only a raw build "
                                    f"(`streamgaze build {b.name} ...`)" if "raw" in b.importers
                          else f"{b.name} has no importer")


# ---- reading a built dataset ---------------------------------------------------------------------------

@command("stats", "print per-task and per-source counts of a built dataset")
def _stats(p: argparse.ArgumentParser) -> Handler:
    add_dataset(p)

    def run(a: argparse.Namespace) -> int:
        from ..dataset import compute_stats, format_stats

        print(format_stats(compute_stats(dataset_reference(a))))
        return 0

    return run


@command("doctor", "without a dataset: the environment (toolkit, Python, the installed and locked versions of "
         "lmms-eval, datasets, huggingface-hub, transformers, torch, av, decord, filelock; every package that "
         "differs from uv.lock; the declared ranges), exit 1 when anything differs. With a dataset: check every "
         "file against its manifest (sha256, size), every parquet file and that every video decodes; one line "
         "per problem, exit 2 when there is any")
def _doctor(p: argparse.ArgumentParser) -> Handler:
    add_dataset(p, help="dataset root (none: check the environment)")
    p.add_argument("--no-decode", action="store_true", help="skip decoding the videos (hashes and parquet only)")

    def run(a: argparse.Namespace) -> int:
        if not (a.root or a.dataset):
            from ..util.environment import environment_report

            lines, problems = environment_report()
            print("\n".join(lines))
            return 1 if problems else 0
        from ..dataset import dataset_problems

        root = dataset_reference(a)
        problems = dataset_problems(root, decode=not a.no_decode)
        for problem in problems:
            print(f"{root}/{problem}")
        print(f"{root}: {len(problems)} problem(s)" if problems else f"{root}: ok", file=sys.stderr)
        return 2 if problems else 0

    return run
