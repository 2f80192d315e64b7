"""Evaluation commands: lmms-eval over our tasks (``eval``; the runner is streamgaze_hf/harness/run.py),
a benchmark's report of a run, the streaming evaluation and the fine-tuning export."""

from __future__ import annotations

import argparse

from ..util.errors import StreamGazeError
from .base import Handler, benchmark_names, command


@command("tasks-dir", "print the lmms-eval task directory (for lmms-eval --include_path)")
def _tasks_dir(p: argparse.ArgumentParser) -> Handler:
    def run(a: argparse.Namespace) -> int:
        from ..harness.task_files import task_folder

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
        from ..util.preflight import positive, require_declared, require_module

        args = _benchmark_and_args(p, a)
        require_module("lmms_eval", "streamgaze eval")
        require_declared("eval", "streamgaze eval")
        positive(a.clip_fps, "--clip-fps")
        from ..harness.plan import plan_evaluation
        from ..harness.run import run_evaluation

        plan = plan_evaluation(a.root, args, benchmark=a.benchmark, prompt_mode=a.prompt_mode, clip_fps=a.clip_fps,
                               protocol=a.protocol, proxy=a.proxy, frames=a.frames)
        return run_evaluation(plan)

    return run


def _benchmark_and_args(p: argparse.ArgumentParser, a: argparse.Namespace) -> list[str]:
    """lmms-eval's arguments of ``eval [BENCH] [OPTIONS] -- ARGS``; BENCH (checked against ``--benchmark``) and
    eval's own options after it are parsed into ``a``."""
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
    return args[1:] if args[:1] == ["--"] else args


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
