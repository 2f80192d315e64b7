"""The clip cache: warm it ahead of a run, report its size, bound it."""

from __future__ import annotations

import argparse

from ..util.errors import StreamGazeError
from .base import Handler, add_dataset, command, dataset_reference, executor_args, workers_of


@command("clips", "the evaluation's clip cache: warm it ahead of a run, report its size, bound it")
def _clips(p: argparse.ArgumentParser) -> Handler:
    sub = p.add_subparsers(dest="clips_command", required=True, metavar="{warm,stats,prune}")
    cache_help = "clip cache directory (default: $STREAMGAZE_CLIP_CACHE, else ~/.cache/streamgaze/clips)"
    w = sub.add_parser("warm", help="prepare every clip an evaluation will ask for (resumable)",
                       description="Prepare the clips (and salience images) of the given tasks and variants "
                                   "in the clip cache, with the evaluation settings of the environment "
                                   "($STREAMGAZE_CLIP_FPS, $STREAMGAZE_PROXY). With the run's --model (and "
                                   "--model_args), the model-ready clips that wrapper will read. Clips already "
                                   "cached are skipped.")
    add_dataset(w)
    w.add_argument("--tasks", nargs="+", default=None,
                   help="task ids, lmms-eval task names or categories (default: all of the dataset's benchmark)")
    w.add_argument("--variants", nargs="+", default=None,
                   help="the gaze variants: default (the plain tasks), a task-name suffix without its underscore "
                        "(e.g. nogaze, textgaze, salience) or a gaze mode (default: default)")
    executor_args(w, "videos")
    w.add_argument("--cache", default=None, help=cache_help)
    w.add_argument("--clip-fps", type=float, default=None, help="frame-rate cap of the clips ($STREAMGAZE_CLIP_FPS)")
    w.add_argument("--proxy", default=None, help="clips of the proxy videos: a proxy name or auto ($STREAMGAZE_PROXY)")
    w.add_argument("--model", default=None, help="the lmms-eval --model of the run: its clips are model-ready (the "
                   "frames that wrapper samples, at its processor's size) where the toolkit knows the wrapper")
    w.add_argument("--model_args", "--model-args", dest="model_args", default=None,
                   help="the lmms-eval --model_args of the run (frame count, fps, pixels, checkpoint)")
    w.add_argument("--force_simple", "--force-simple", dest="force_simple", action="store_true",
                   help="the run passes lmms-eval --force_simple (the wrapper's simple class)")
    w.add_argument("--frames", default=None, choices=["model", "full"],
                   help="model (default, with --model): model-ready clips; full: full-rate clips ($STREAMGAZE_FRAMES)")
    w.add_argument("--store", default=None, choices=["raw", "compact"],
                   help="how model-ready clips are stored: raw (default: uncompressed, fastest to read) or compact "
                        "(lossless H.264, several times smaller) ($STREAMGAZE_READY_STORE)")
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

        from ..video import cache_stats, clip_cache_dir, format_stats, parse_age, parse_size, prune_cache

        cache = clip_cache_dir(a.cache)
        if a.clips_command == "warm":
            from ..evaluation import warm_clips
            from ..harness.plan import run_settings_for

            lmms_args = [*(["--model", a.model] if a.model else []),
                         *(["--model_args", a.model_args] if a.model_args else []),
                         *(["--force_simple"] if a.force_simple else [])]
            if a.model:
                from ..harness.backends import choose_backends

                choose_backends()  # the same readers `streamgaze eval` gives the wrapper
            settings, _wrapper = run_settings_for(lmms_args, clip_fps=a.clip_fps, proxy=a.proxy, frames=a.frames)
            r = warm_clips(dataset_reference(a), a.tasks, a.variants, workers=workers_of(a), settings=settings,
                           cache_dir=cache, store=a.store)
            passes = r.get("passes") or {}
            print(f"{r['clips']} clips for {r['documents']} documents ({', '.join(r['tasks'])}; "
                  f"{', '.join(r['variants'])}): {r['built']} built, {r['cached']} already cached, "
                  f"{r['seconds']:.1f} s; cache {cache}" + (
                      f"; {passes['passes']} passes over their videos decoded {passes['decoded']} frames"
                      if passes.get("passes") else "") + (
                      "; the model reads no video: nothing to prepare" if not settings.reads_video else ""))
            return 0
        if a.clips_command == "stats":
            stats = cache_stats(cache)
            print(json.dumps(stats, indent=2) if a.json else format_stats(stats))
            return 0
        if a.max_bytes is None and a.older_than is None:
            raise StreamGazeError("clips prune needs --max-bytes B or --older-than D")
        r = prune_cache(cache, max_bytes=None if a.max_bytes is None else parse_size(a.max_bytes),
                        older_than=None if a.older_than is None else parse_age(a.older_than), dry_run=a.dry_run)
        verb = "would remove" if a.dry_run else "removed"
        print(f"{verb} {r['removed_entries']} entries, {r['removed_tmp']} temporary files and "
              f"{r['removed_orphans']} orphaned halves ({r['freed_bytes']:,} bytes); {r['kept_entries']} entries "
              f"kept, {r['bytes_after']:,} bytes")
        return 0

    return run
