"""`streamgaze ...`: thin command-line glue over the library.

Every bad input surfaces as one line ``streamgaze: error: <file>: <reason>`` and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .errors import StreamGazeError

Handler = Callable[[argparse.Namespace], "int | None"]
Configure = Callable[[argparse.ArgumentParser], Handler]
_COMMANDS: dict[str, tuple[str, Configure]] = {}


def command(name: str, help: str) -> Callable[[Configure], Configure]:
    """Register a sub-command: the decorated function adds its arguments and returns its handler."""

    def deco(configure: Configure) -> Configure:
        _COMMANDS[name] = (help, configure)
        return configure

    return deco


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
        from .demo.world import generate_world

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
        from .video.overlay import render_overlay_files

        render_overlay_files(a.video, a.gaze_csv, a.out, hfov_deg=a.hfov)
        print(a.out)
        return 0

    return run


@command("build", "build the versioned dataset from raw recordings (the paper's pipeline)")
def _build(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--raw", required=True, help="raw directory in the source's native layout (see README)")
    p.add_argument("--out", required=True, help="dataset root to write (e.g. ./streamgaze)")
    p.add_argument("--version", required=True, help="semantic version X.Y.Z of this build")
    p.add_argument("--source", default="world", choices=["world", "egtea", "egoexolearn", "holoassist", "ego4d"],
                   help="raw layout (default: world, the demo world's format)")
    p.add_argument("--objects", default=None, choices=["oracle", "metadata", "vlm"],
                   help="object back-end (default: oracle for the demo world, else required)")
    p.add_argument("--metadata", default="", help="metadata back-end: official episode metadata CSV (or dir)")
    p.add_argument("--vlm-url", default="", help="vlm back-end: OpenAI-compatible base URL")
    p.add_argument("--vlm-model", default="", help="vlm back-end: model name")
    p.add_argument("--review", nargs="+", default=[], metavar="CSV",
                   help="human-verification CSVs (streamgaze review export) applied before QA generation")
    p.add_argument("--hfov", type=float, default=None, help="horizontal field of view in degrees (default: "
                   "from the intrinsics when the source has them, else 90)")
    p.add_argument("--seed", type=int, default=0, help="QA generation seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="parallel worker processes over videos")
    p.add_argument("--force", action="store_true", help="overwrite an existing dataset of the same version")
    p.add_argument("--changelog", default="", help="text of this version's CHANGELOG entry")
    _proxy_args(p)

    def run(a: argparse.Namespace) -> int:
        from .dataset.build import BuildOptions, build_dataset
        from .video.proxy import proxy_spec

        objects = a.objects or ("oracle" if a.source == "world" else "")
        if not objects:
            raise StreamGazeError(f"--source {a.source} needs an object back-end: --objects metadata --metadata CSV "
                                  "or --objects vlm --vlm-url URL --vlm-model NAME (the oracle needs the demo world)")
        opts = BuildOptions(seed=a.seed, source=a.source, objects=objects, metadata=a.metadata, vlm_url=a.vlm_url,
                            vlm_model=a.vlm_model, review=tuple(a.review), hfov_deg=a.hfov)
        root = build_dataset(a.raw, a.out, a.version, workers=a.workers, force=a.force, changelog=a.changelog,
                             options=opts, proxy=proxy_spec(a.proxy_fps, a.proxy_size))
        print(root)
        return 0

    return run


def _proxy_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--proxy-fps", type=float, default=None,
                   help="also store a proxy of every video at this frame rate (default 2 when --proxy-size is given)")
    p.add_argument("--proxy-size", type=int, default=None,
                   help="the proxies' longer side in pixels (default 448 when --proxy-fps is given)")


@command("import-release", "convert the official StreamGaze release (qa/*.json, metadata/*.csv, videos) into our dataset")
def _import_release(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("release_dir", help="directory of the official release (qa/, metadata/, videos/)")
    p.add_argument("--out", required=True, help="dataset root to write")
    p.add_argument("--version", required=True, help="semantic version X.Y.Z of this dataset")
    p.add_argument("--strict", action="store_true", help="fail on the first bad row instead of skipping it")
    p.add_argument("--force", action="store_true", help="overwrite an existing dataset of the same version")
    p.add_argument("--reencode", action="store_true",
                   help="store the videos re-encoded with a keyframe at every window start (fast, exact clips)")
    _proxy_args(p)

    def run(a: argparse.Namespace) -> int:
        from .dataset.release import import_release
        from .video.proxy import proxy_spec

        report = import_release(a.release_dir, a.out, a.version, strict=a.strict, force=a.force,
                                reencode=a.reencode, proxy=proxy_spec(a.proxy_fps, a.proxy_size))
        print(report.format())
        return 0

    return run


@command("stats", "print per-task and per-source counts of a built dataset")
def _stats(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("root", help="dataset root")

    def run(a: argparse.Namespace) -> int:
        from .dataset.stats import compute_stats, format_stats

        print(format_stats(compute_stats(a.root)))
        return 0

    return run


@command("tasks-dir", "print the lmms-eval task directory (for lmms-eval --include_path)")
def _tasks_dir(p: argparse.ArgumentParser) -> Handler:
    def run(a: argparse.Namespace) -> int:
        from lmms_tasks import TASKS_DIR

        print(TASKS_DIR)
        return 0

    return run


@command("eval", "run lmms-eval on the StreamGaze tasks (fills in --include_path; args after -- go to lmms-eval)")
def _eval(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--root", default=None, help="dataset root (default: $STREAMGAZE_ROOT, else ./streamgaze)")
    p.add_argument("--prompt-mode", choices=["default", "reference"], default=None,
                   help="prompts and parsing: ours (default) or the official code's, to compare with the paper")
    p.add_argument("--clip-fps", type=float, default=None, help="frame-rate cap of the window clips")
    p.add_argument("--proxy", default=None, help="clip the dataset's proxy videos instead of the full-rate ones: "
                   "a proxy name (e.g. 2fps-448px) or auto ($STREAMGAZE_PROXY)")
    p.add_argument("lmms_eval_args", nargs=argparse.REMAINDER,
                   help="arguments for lmms-eval, e.g. -- --model streamgaze_random --tasks streamgaze")

    def run(a: argparse.Namespace) -> int:
        import os

        from .dataset.load import resolve_root

        os.environ["STREAMGAZE_ROOT"] = str(resolve_root(a.root))
        if a.prompt_mode:
            os.environ["STREAMGAZE_PROMPT_MODE"] = a.prompt_mode
        if a.clip_fps is not None:
            os.environ["STREAMGAZE_CLIP_FPS"] = str(a.clip_fps)
        if a.proxy is not None:
            os.environ["STREAMGAZE_PROXY"] = a.proxy
        return run_lmms_eval(a.lmms_eval_args)

    return run


def run_lmms_eval(args: list[str]) -> int:
    """Call lmms-eval's CLI in this process with our task directory on its include path."""
    from lmms_tasks import TASKS_DIR

    args = list(args[1:] if args[:1] == ["--"] else args)
    if "--include_path" not in args:
        args += ["--include_path", TASKS_DIR]
    from lmms_eval.cli.dispatch import main as lmms_main

    saved = sys.argv
    sys.argv = ["lmms-eval", *args]
    try:
        rc = lmms_main()
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    finally:
        sys.argv = saved
    return int(rc or 0)


@command("submit", "turn an lmms-eval output directory into a leaderboard submission (re-scored JSON)")
def _submit(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("output_dir", help="the --output_path of an `lmms-eval ... --log_samples` run (newest run used)")
    p.add_argument("--dataset", default=None, help="dataset root the run was made on (default: $STREAMGAZE_ROOT, "
                   "else ./streamgaze)")
    p.add_argument("--model-name", required=True, help="model name shown on the leaderboard")
    p.add_argument("--model-url", default="", help="http(s) link for the model (paper, repository, card)")
    p.add_argument("--params", default="", help="model size, e.g. 7B")
    p.add_argument("--frames", default="", help="frames given to the model, e.g. 32, 1fps, adaptive")
    p.add_argument("--out", required=True, help="submission file to write (e.g. submission.json)")
    p.add_argument("--allow-oracle", action="store_true",
                   help="tests only: accept the answer-key oracle baseline (it is never ranked)")

    def run(a: argparse.Namespace) -> int:
        from .submission.build import build_submission, write_submission

        sub = build_submission(a.output_dir, a.dataset, model_name=a.model_name, model_url=a.model_url,
                               params=a.params, frames=a.frames, allow_oracle=a.allow_oracle)
        write_submission(sub, a.out)
        s = sub["scores"]
        print(f"{a.out}: overall {s['overall']:.3f} (past {s['past']:.3f}, present {s['present']:.3f}, "
              f"proactive {s['proactive']:.3f}); coverage {100 * s['coverage']['fraction']:.1f}%")
        return 0

    return run


@command("validate", "re-score a submission from its raw responses and check it against the dataset")
def _validate(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("submission", help="submission JSON file (from `streamgaze submit`)")
    p.add_argument("--dataset", default=None, help="dataset root (default: $STREAMGAZE_ROOT, else ./streamgaze)")
    p.add_argument("--all-missing", action="store_true", help="list every missing question (default: first 50)")

    def run(a: argparse.Namespace) -> int:
        from .submission.validate import validate_submission

        print(validate_submission(a.submission, a.dataset).format(all_missing=a.all_missing))
        return 0

    return run


@command("leaderboard", "render the leaderboard site (index.html, leaderboard.md/.csv, chart.png) from submissions")
def _leaderboard(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("submissions", nargs="+", help="submission JSON files (each is validated and re-scored)")
    p.add_argument("--dataset", default=None, help="dataset root (default: $STREAMGAZE_ROOT, else ./streamgaze)")
    p.add_argument("--out", required=True, help="output directory (replaced if it holds a previous leaderboard)")
    p.add_argument("--no-paper-rows", action="store_true", help="leave out the paper's Table 2 rows")

    def run(a: argparse.Namespace) -> int:
        from .submission.leaderboard import write_leaderboard

        out = write_leaderboard(a.submissions, a.dataset, a.out, include_paper=not a.no_paper_rows)
        print(out / "index.html")
        return 0

    return run


@command("gaze", "export the normalised gaze track of one raw recording as CSV (t, x, y, valid, in_frame)")
def _gaze(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("path", help="the recording's gaze file in its native format (HoloAssist: its Export_py directory)")
    p.add_argument("--source", required=True,
                   help="raw format: world, egtea, egoexolearn, holoassist or ego4d")
    p.add_argument("--video", default=None,
                   help="the recording's video (size and rate; default: looked up in the source's native layout)")
    p.add_argument("--out", required=True, help="CSV to write (x, y normalised, origin top-left)")

    def run(a: argparse.Namespace) -> int:
        from .gaze.io import write_gaze_csv
        from .gaze.sources.registry import read_track

        track = read_track(a.path, a.source, a.video)
        write_gaze_csv(track, a.out, with_in_frame=True)
        print(a.out)
        return 0

    return run


@command("review", "human verification (paper A.5): export annotator pages, import their CSVs (Table 5 ratios)")
def _review(p: argparse.ArgumentParser) -> Handler:
    sub = p.add_subparsers(dest="review_command", required=True, metavar="{export,import}")
    ex = sub.add_parser("export", help="write one self-contained HTML review page per video (+ index.html, videos/)",
                        description="Write DIR/<video_id>.html per video, DIR/index.html and copies of the overlay "
                                    "videos under DIR/videos/ (zip DIR and send it to the annotators).")
    ex.add_argument("root", help="dataset root")
    ex.add_argument("--out", required=True, help="output directory")
    ex.add_argument("--link", action="store_true",
                    help="link the dataset's overlay videos (relative paths) instead of copying them")
    ex.add_argument("--video", action="append", default=None, metavar="VIDEO_ID",
                    help="only this video (repeatable; default: all)")
    im = sub.add_parser("import", help="validate review CSVs and print the inclusion / modified ratios",
                        description="Validate the CSVs exported by the review pages and print paper Table 5's "
                                    "ratios. The corrections are applied at build time: "
                                    "`streamgaze build ... --review CSV...`.")
    im.add_argument("csv", nargs="+", help="review CSV files (one per annotator and video, or merged)")
    im.add_argument("--out", default=None, help="also write the statistics as JSON here")
    im.add_argument("--dataset", default=None,
                    help="dataset root: take each video's source from it and check that the videos exist")

    def run(a: argparse.Namespace) -> int:
        if a.review_command == "export":
            from .review import export_review

            paths = export_review(a.root, a.out, link=a.link, video_ids=a.video)
            print(f"{paths[0]} ({len(paths) - 1} video page(s))")
            return 0
        import json

        from .fsutil import write_text_atomic
        from .review import format_stats, load_corrections, verification_stats

        corrections = load_corrections(a.csv)
        sources = None
        if a.dataset:
            import pyarrow.parquet as pq

            from .dataset.load import data_file, resolve_root

            root = resolve_root(a.dataset)
            videos = pq.read_table(data_file(root, "videos"), columns=["video_id", "source"]).to_pylist()
            sources = {v["video_id"]: v["source"] for v in videos}
            unknown = [v for v in corrections.video_ids if v not in sources]
            if unknown:
                raise StreamGazeError(f"review CSVs name video(s) not in the dataset: {', '.join(unknown)}", root)
        stats = verification_stats(corrections, sources)
        print(format_stats(stats))
        if a.out:
            write_text_atomic(a.out, json.dumps(stats, indent=2, sort_keys=True) + "\n")
        return 0

    return run


@command("clips", "the evaluation's clip cache: warm it ahead of a run, report its size, bound it")
def _clips(p: argparse.ArgumentParser) -> Handler:
    sub = p.add_subparsers(dest="clips_command", required=True, metavar="{warm,stats,prune}")
    cache_help = "clip cache directory (default: $STREAMGAZE_CLIP_CACHE, else ~/.cache/streamgaze/clips)"
    w = sub.add_parser("warm", help="prepare every clip an evaluation will ask for (resumable)",
                       description="Prepare the clips (and salience images) of the given tasks and variants "
                                   "in the clip cache, with the evaluation settings of the environment "
                                   "($STREAMGAZE_CLIP_FPS, $STREAMGAZE_PROXY). Clips already cached are skipped.")
    w.add_argument("root", help="dataset root")
    w.add_argument("--tasks", nargs="+", default=None,
                   help="task ids, lmms-eval task names or categories (default: all ten)")
    w.add_argument("--variants", nargs="+", default=None,
                   help="default, nogaze, textgaze, salience (default: default, the paper's main setting)")
    w.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    w.add_argument("--cache", default=None, help=cache_help)
    w.add_argument("--clip-fps", type=float, default=None, help="frame-rate cap of the clips ($STREAMGAZE_CLIP_FPS)")
    w.add_argument("--proxy", default=None, help="clips of the proxy videos: a proxy name or auto ($STREAMGAZE_PROXY)")
    st = sub.add_parser("stats", help="report the cache's size (clips, salience images, leftovers)")
    st.add_argument("--cache", default=None, help=cache_help)
    st.add_argument("--json", action="store_true", help="print JSON instead of text")
    pr = sub.add_parser("prune", help="remove least recently used entries (and stale leftovers)",
                        description="Remove entries last used longer ago than --older-than, then the least "
                                    "recently used ones until the cache holds at most --max-bytes.")
    pr.add_argument("--cache", default=None, help=cache_help)
    pr.add_argument("--max-bytes", default=None, help="size bound, e.g. 20G, 500M or a number of bytes")
    pr.add_argument("--older-than", default=None, help="age bound, e.g. 7d, 12h, 30m or a number of seconds")
    pr.add_argument("--dry-run", action="store_true", help="only report what would be removed")

    def run(a: argparse.Namespace) -> int:
        import json
        import os

        if a.cache:
            os.environ["STREAMGAZE_CLIP_CACHE"] = str(a.cache)
        from .video.cache_admin import cache_stats, format_stats, parse_age, parse_size, prune_cache
        from .video.clips import clip_cache_dir

        if a.clips_command == "warm":
            from .prefetch import warm_clips

            if a.clip_fps is not None:
                os.environ["STREAMGAZE_CLIP_FPS"] = str(a.clip_fps)
            if a.proxy is not None:
                os.environ["STREAMGAZE_PROXY"] = a.proxy
            r = warm_clips(a.root, a.tasks, a.variants, workers=a.workers)
            print(f"{r['clips']} clips for {r['documents']} documents ({', '.join(r['tasks'])}; "
                  f"{', '.join(r['variants'])}): {r['built']} built, {r['cached']} already cached, "
                  f"{r['seconds']:.1f} s; cache {clip_cache_dir()}")
            return 0
        if a.clips_command == "stats":
            stats = cache_stats(clip_cache_dir())
            print(json.dumps(stats, indent=2) if a.json else format_stats(stats))
            return 0
        if a.max_bytes is None and a.older_than is None:
            raise StreamGazeError("clips prune needs --max-bytes B or --older-than D")
        r = prune_cache(clip_cache_dir(), max_bytes=None if a.max_bytes is None else parse_size(a.max_bytes),
                        older_than=None if a.older_than is None else parse_age(a.older_than), dry_run=a.dry_run)
        verb = "would remove" if a.dry_run else "removed"
        print(f"{verb} {r['removed_entries']} entries, {r['removed_tmp']} temporary files and "
              f"{r['removed_orphans']} orphaned halves ({r['freed_bytes']:,} bytes); {r['kept_entries']} entries "
              f"kept, {r['bytes_after']:,} bytes")
        return 0

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="streamgaze", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, configure) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_handler=configure(p))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._handler(args) or 0)
    except StreamGazeError as exc:
        print(f"streamgaze: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("streamgaze: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
