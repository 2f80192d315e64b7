"""StreamGaze's command line: its ``streamgaze build streamgaze`` and ``streamgaze import streamgaze``
sub-commands, and its own commands (``Benchmark.commands``: ``stream-eval``, ``export-sft``,
``import-official-results``).

The shared CLI (``streamgaze_hf/cli/data.py``) asks for them through the registry (the hooks of this ``cli``
part, ``Plugin.importer_options``): ``RAW`` and ``RELEASE`` are ``(help, configure)`` pairs,
``configure(parser)`` adds the options and returns the command's handler.
"""

from __future__ import annotations

import argparse
import sys

from ...cli.base import (
    Handler,
    add_dataset,
    dataset_reference,
    executor_args,
    proxy_args,
    raw_common,
    release_common,
    vlm_gpus_arg,
    vlm_key_arg,
    workers_of,
)
from ...gaze import SOURCES
from ...registry import provide
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
    executor_args(p, "recordings (also for the proxies and previews)")
    vlm_gpus_arg(p)
    proxy_args(p)

    def run(a: argparse.Namespace) -> int:
        from ...video import proxy_spec
        from .build import BuildOptions

        objects = a.objects or ("oracle" if a.source == "world" else "")
        if not objects:
            raise StreamGazeError(f"--source {a.source} needs an object back-end: --objects vlm --vlm-url URL "
                                  "--vlm-model NAME, --objects metadata --metadata CSV, or --objects none (no object "
                                  "names: only the tasks that need none); the oracle needs the demo world")
        opts = BuildOptions(seed=a.seed, source=a.source, objects=objects, metadata=a.metadata, vlm_url=a.vlm_url,
                            vlm_model=a.vlm_model, vlm_api_key_env=a.vlm_api_key_env, review=tuple(a.review), hfov_deg=a.hfov, fixations=a.fixations)
        from .build import NothingToBuild

        build = BENCHMARK.importer("raw")
        try:
            root = build(a.raw, a.out, a.version, workers=workers_of(a), force=a.force, changelog=a.changelog,
                         options=opts, proxy=proxy_spec(a.proxy_fps, a.proxy_size), previews=a.previews,
                         vlm_gpus=a.vlm_gpus)
        except NothingToBuild as exc:  # the report first: why each task has nothing, and what would give it some
            for line in skipped_report(exc.skipped, lambda task: True):
                print(line, file=sys.stderr)
            raise
        from ...dataset import open_dataset

        data = open_dataset(root, benchmark=BENCHMARK, check=False)  # just written and verified by the build
        for line in skipped_report(data.manifest["build"].get("skipped_tasks", {}),
                                   lambda task: data.is_empty_task(BENCHMARK.name, task)):
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
        from ...video import proxy_spec

        report = BENCHMARK.importer("release")(
            a.release_dir, a.out, a.version, strict=a.strict, force=a.force, reencode=a.reencode,
            proxy=proxy_spec(a.proxy_fps, a.proxy_size), previews=a.previews, workers=workers_of(a))
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
provide(__name__, RAW=RAW, RELEASE=RELEASE)


# ---- its own commands (Benchmark.commands) ----------------------------------------------------------

def stream_eval(p: argparse.ArgumentParser) -> Handler:
    """``streamgaze stream-eval``: its arguments; returns its handler (docs/streaming.md)."""
    add_dataset(p)
    p.add_argument("--out", required=True, help="output directory (resumed when it holds the same run)")
    p.add_argument("--model", default="random", help="random, oracle, openai, lmms:<name> (an lmms-eval model wrapper, "
                   "e.g. lmms:qwen2_5_vl), or package.module:factory (a StreamingModel, or a ClipModel run through "
                   "the polling adapter)")
    p.add_argument("--model-args", default="", help="k=v,... e.g. seed=1 or base_url=URL,model=NAME,max_frames=8 "
                   "(lmms:<name>: lmms-eval's --model_args)")
    p.add_argument("--gen-kwargs", default="", help="lmms:<name> only: lmms-eval's --gen_kwargs (k=v,...) over the "
                   "task's generation settings")
    p.add_argument("--fps", type=float, default=0.0, help="frames per second pushed to the model (0 = every frame)")
    p.add_argument("--poll", default="checkpoints", help="clip models: poll proactive questions at their "
                   "'checkpoints' (the paper's protocol) or every N seconds")
    p.add_argument("--gaze", default="visual", choices=["visual", "none", "text", "salience"],
                   help="gaze input (visual: the overlay video; text/salience: gaze samples pushed with the frames)")
    p.add_argument("--prompt-mode", default="default", choices=["default", "reference"])
    p.add_argument("--tasks", nargs="+", default=None, metavar="TASK", help="task ids (default: all ten)")
    p.add_argument("--realtime", action="store_true", help="time each model call and also score the alerts under "
                   "the real-time clock: a call longer than the poll interval delays the model's next look")
    p.add_argument("--seconds-per-call", default=None, metavar="S", help="--realtime with a declared S seconds per "
                   "call instead of the measured time (reproducible)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N questions of each task "
                   "(a quick run)")

    def run(a: argparse.Namespace) -> int:
        from ...submission import pct_text
        from .streaming.report import format_realtime, format_streaming
        from .streaming.runner import stream_eval as run_stream_eval

        metrics = run_stream_eval(dataset_reference(a), a.out, a.model, a.model_args, gaze=a.gaze,
                                  prompt_mode=a.prompt_mode, fps=a.fps, poll=a.poll,
                                  tasks=tuple(a.tasks) if a.tasks else None, realtime=a.realtime,
                                  seconds_per_call=a.seconds_per_call, gen_kwargs=a.gen_kwargs, limit=a.limit)
        c = metrics["checkpoint"]
        print(f"{a.out}: checkpoint protocol overall {pct_text(c['overall'])} (past {pct_text(c['past'])}, present "
              f"{pct_text(c['present'])}, proactive {pct_text(c['proactive'])}); coverage "
              f"{100 * c['coverage']['fraction']:.1f}%")
        print(format_streaming(metrics["streaming"]))
        if "realtime" in metrics:
            print(format_realtime(metrics["realtime"]))
        return 0

    return run


def export_sft(p: argparse.ArgumentParser) -> Handler:
    """``streamgaze export-sft``: its arguments; returns its handler (docs/streamgaze.md)."""
    add_dataset(p)
    p.add_argument("--out", required=True, help="output directory (samples.jsonl, clips/, manifest.json)")
    p.add_argument("--format", default="llava", choices=["llava", "qwen"], help="chat format (default llava)")
    p.add_argument("--gaze", default="visual", choices=["visual", "none", "text", "salience"],
                   help="gaze input of the prompts and clips (visual: overlay clips)")
    p.add_argument("--allow-eval-data", action="store_true",
                   help="export a dataset whose card marks it as an evaluation set (contaminates that benchmark)")

    def run(a: argparse.Namespace) -> int:
        from .sft_export import export_sft as run_export_sft

        m = run_export_sft(dataset_reference(a), a.out, a.format, gaze=a.gaze, allow_eval_data=a.allow_eval_data)
        print(f"{a.out}: {m['samples']['n']} samples ({m['proactive']['alert_turns']} proactive with "
              f"{m['proactive']['silent_turns']} silent turns), {m['clips']} clips")
        return 0

    return run


def import_official_results(p: argparse.ArgumentParser) -> Handler:
    """``streamgaze import-official-results``: its arguments; returns its handler (docs/leaderboard.md)."""
    p.add_argument("results_dir", help="folder of the official run's <task>_output.json files (results_viz/)")
    p.add_argument("--dataset", default=None, help="dataset imported from the same release with `import streamgaze` "
                   "(default: $STREAMGAZE_ROOT, else ./streamgaze)")
    p.add_argument("--model-name", required=True, help="model name shown on the leaderboard")
    p.add_argument("--model-url", default="", help="http(s) link for the model")
    p.add_argument("--params", default="", help="model size, e.g. 7B")
    p.add_argument("--frames", default="", help="frames given to the model, e.g. 16")
    p.add_argument("--gaze", default="visual", choices=["visual", "none", "text", "salience"],
                   help="gaze setting of the run (default visual: the official scripts always pass the gaze "
                        "instruction and the overlay videos)")
    p.add_argument("--out", required=True, help="submission file to write (e.g. submission.json)")

    def run(a: argparse.Namespace) -> int:
        from ...submission import write_submission
        from .official import import_official_results as run_import

        result = run_import(a.results_dir, a.dataset, model_name=a.model_name, model_url=a.model_url,
                            params=a.params, frames=a.frames, gaze=a.gaze)
        write_submission(result.submission, a.out)
        print(result.format())
        print(a.out)
        return 0

    return run
