"""Evaluation commands: lmms-eval over our tasks (``eval``; the runner is streamgaze_hf/harness/run.py),
a benchmark's report of a run, the streaming evaluation and the fine-tuning export."""

from __future__ import annotations

import argparse
import sys

from ..util.errors import StreamGazeError
from .base import Handler, benchmark_names, benchmark_of_root, command


@command("tasks-dir", "print the lmms-eval task directory (for lmms-eval --include_path)")
def _tasks_dir(p: argparse.ArgumentParser) -> Handler:
    def run(a: argparse.Namespace) -> int:
        from lmms_tasks import task_folder

        print(task_folder())
        return 0

    return run


@command("eval", "run lmms-eval on a benchmark's tasks (fills in --include_path; args after -- go to lmms-eval)")
def _eval(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--dataset", "--root", dest="root", default=None,
                   help="dataset root; its manifest says which benchmark it is (default: the benchmark's "
                        "$..._ROOT, else its default directory)")
    p.add_argument("--benchmark", default=None, choices=benchmark_names(),
                   help="whose tasks to run, the same as BENCH (default: the dataset's, else the default "
                        "benchmark's)")
    p.add_argument("--prompt-mode", choices=["default", "reference"], default=None,
                   help="prompts and parsing: ours (default) or the official code's, to compare with the paper")
    p.add_argument("--clip-fps", type=float, default=None, help="frame-rate cap of the window clips")
    p.add_argument("--protocol", default=None, metavar="NAME",
                   help="frame sampling and generation of a model family's official wrapper: default, "
                        "paper_qwen2_5_vl, paper_api, paper_internvl (docs/evaluation.md)")
    p.add_argument("--proxy", default=None, help="clip the dataset's proxy videos instead of the full-rate ones: "
                   "a proxy name (e.g. 2fps-448px) or auto ($STREAMGAZE_PROXY)")
    p.add_argument("--frames", default=None, choices=["model", "full"],
                   help="model (default): each clip holds the frames the --model wrapper would sample, at its "
                        "processor's size, where the toolkit knows the wrapper; full: full-rate window clips "
                        "($STREAMGAZE_FRAMES; docs/performance.md)")
    p.add_argument("lmms_eval_args", nargs=argparse.REMAINDER, metavar="[BENCH] [-- ARGS]",
                   help="optionally a registered benchmark's name, then -- and the arguments for lmms-eval, "
                        "e.g. streamgaze -- --model streamgaze_random --tasks streamgaze")
    p.unrecognized_hint = ("lmms-eval's arguments go after --: streamgaze eval [BENCH] [--dataset ROOT] -- --model "
                           "MODEL --tasks TASKS")

    def run(a: argparse.Namespace) -> int:
        import dataclasses
        import os

        from ..util.preflight import positive, require_declared, require_module

        args = list(a.lmms_eval_args)
        if args[:1] and args[0] in benchmark_names():
            bench_name = args.pop(0)
            cut = args.index("--") if "--" in args else len(args)
            if cut:  # eval's own options after BENCH (`eval BENCH --dataset ROOT -- ...`)
                given = a.benchmark
                p.parse_args(args[:cut], namespace=a)
                a.benchmark = a.benchmark if given is None else given
                args = args[cut:]
            if a.benchmark and a.benchmark != bench_name:
                raise StreamGazeError(f"two benchmarks: {bench_name} and --benchmark {a.benchmark}; give one")
            a.benchmark = bench_name
        elif args[:1] and args[0] != "--" and not args[0].startswith("-"):
            raise StreamGazeError(f"unknown benchmark {args[0]!r}; benchmarks are {', '.join(benchmark_names())} "
                                  "(lmms-eval's arguments go after --)")
        require_module("lmms_eval", "streamgaze eval")
        require_declared("eval", "streamgaze eval")
        positive(a.clip_fps, "--clip-fps")
        args = args[1:] if args[:1] == ["--"] else args
        bench = _checked_benchmark(a, args)  # the model and the task names, before any dataset is read
        from ..dataset.load import (
            resolve_root,  # (imports `datasets`: after the checks, which answer at once)
        )
        from ..evaluation.protocols import get_protocol
        from ..evaluation.settings import with_flags
        from ..evaluation.visuals import run_settings

        root = resolve_root(a.root, env=bench.root_env, default=bench.default_root)  # a Hub tag: its commit
        os.environ[bench.root_env] = str(root)
        protocol = get_protocol(a.protocol) if a.protocol else None
        if protocol is not None and protocol.generation and "--gen_kwargs" not in args:
            args += ["--gen_kwargs", protocol.gen_kwargs()]
        from ..harness import video_time
        from ..harness.backends import choose_backends
        from ..harness.model import frames_choice, run_model

        backends = choose_backends()  # the readers the wrappers get (before lmms-eval and qwen_vl_utils load)
        model = run_model(args)
        chosen = with_flags(prompt_mode=a.prompt_mode, clip_fps=a.clip_fps, proxy=a.proxy,
                            protocol=protocol.name if protocol else None, frames=a.frames)
        # the wrapper the frames are made for (model_frames.py): "" = not one the toolkit knows, full-rate clips
        chosen = dataclasses.replace(chosen, model=frames_choice(model) if chosen.frames == "model" else "")
        settings = run_settings(root, chosen)  # validates the settings (the proxy too) before lmms-eval starts
        settings["decode_backends"] = backends
        os.environ.update(chosen.to_env())  # lmms-eval's task glue, here and in its child processes, reads them
        from ..dataset.load import task_is_empty
        from ..harness.checks import plan_tasks, run_checked
        from ..harness.run import annotate_results, prepare_files, redact_files, run_lmms_eval
        from ..registry import task_index

        args = plan_tasks(args, task_index(), task_is_empty(os.environ[bench.root_env]),
                          lambda note: print(f"streamgaze: note: {note}", file=sys.stderr))
        prepare_files(root, bench, args)
        rc = run_checked(args, video_time.measured(run_lmms_eval),
                         lambda paths: annotate_results(paths, {**settings, "video_read": video_time.summary()}),
                         redact_files)
        read = video_time.summary()
        print(video_time.format_summary(read), file=sys.stderr)
        if model is not None and chosen.frames == "model" and not settings.get("model_ready") and read["video_read_s"]:
            print(f"streamgaze: note: the toolkit does not know how lmms-eval's {model.requested} ({model.kind}) "
                  "wrapper samples video, so it got full-rate clips; reading them cost a median of "
                  f"{read['video_read_median_ms']:.0f} ms per question (docs/performance.md: Frames to the model)",
                  file=sys.stderr)
        return rc

    return run


def _checked_benchmark(a: argparse.Namespace, args: list[str]):
    """The benchmark ``eval`` runs (BENCH or ``--benchmark``, else the dataset's, else the one every requested task
    belongs to, else the default benchmark), after lmms-eval's ``--model`` and the ``--tasks`` names are checked
    (harness/checks.py): a typo or a task of another benchmark ends here, in about a second."""
    from ..harness.checks import (
        benchmarks_of_tasks,
        check_model,
        check_task_names,
        tasks_arg,
        tasks_elsewhere,
    )
    from ..harness.run import lmms_model_names
    from ..registry import default_benchmark, get_benchmark, task_index

    check_model(args, lmms_model_names)
    names = (tasks_arg(args) or (0, []))[1]
    index = task_index()
    check_task_names(names, index)
    from ..dataset.load import missing_root, resolve_root  # (imports `datasets`: after the checks of names)

    name, why = a.benchmark, "the benchmark given"
    if name is None and a.root:
        name, why = benchmark_of_root(resolve_root(a.root)), f"the benchmark of --dataset {a.root}"
    owners = benchmarks_of_tasks(names, index)
    if name is None and len(owners) == 1:
        name = next(iter(owners))
    bench = get_benchmark(name) if name else default_benchmark()
    if name is None:
        why = "the default: give BENCH or --dataset"

    def looked_for(other: str) -> str | None:
        b = get_benchmark(other)
        return missing_root(b.root_env, b.default_root)

    tasks_elsewhere(names, index, bench.name, why, looked_for)
    return bench


@command("report", "a benchmark's own breakdown of an lmms-eval run (`report BENCH --help` says what each shows)")
def _report(p: argparse.ArgumentParser) -> Handler:
    from ..registry import benchmarks
    from .base import hidden_parser

    sub = p.add_subparsers(dest="benchmark", required=True, metavar="BENCH")
    for b in benchmarks():
        plugin = b.plugin()
        help_text = plugin.report_help()  # None: the benchmark declares no report part
        if help_text is None:
            hidden_parser(sub, b.name, f"{b.name} has no report of its own; `streamgaze submit RUN ...` scores "
                                       "its runs")
            continue
        child = sub.add_parser(b.name, help=help_text, description=help_text)
        child.add_argument("run_dir", metavar="RUN", help="the --output_path of one `lmms-eval ... --log_samples` run")
        child.add_argument("--json", default=None, help="also write the numbers as JSON here")
        child.set_defaults(_handler=lambda a, plugin=plugin: _print_report(a, plugin))

    def run(a: argparse.Namespace) -> int:  # never reached: each benchmark's parser has its handler
        raise StreamGazeError("report: which benchmark?")

    return run


def _print_report(a: argparse.Namespace, plugin) -> int:
    """The benchmark's report (``plugin``: its ``Plugin``): ``run_breakdown(RUN)`` printed with its
    ``format_breakdown``, and written as JSON with ``--json``."""
    import json

    from ..util.fsutil import write_text_atomic

    result = plugin.run_breakdown(a.run_dir)
    print(plugin.format_breakdown(result))
    if a.json:
        write_text_atomic(a.json, json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 0
