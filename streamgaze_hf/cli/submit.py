"""Submission commands: a run into a leaderboard submission, the official evaluator's results re-scored,
a submission validated, two compared, the leaderboard site rendered."""

from __future__ import annotations

import argparse
import sys

from .base import Handler, benchmark_names, command


@command("submit", "turn an lmms-eval output directory into a leaderboard submission (re-scored JSON)")
def _submit(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("output_dir", help="the --output_path of an `lmms-eval ... --log_samples` run (newest run used), "
                   "or a `streamgaze stream-eval` --out directory")
    p.add_argument("--dataset", default=None, help="dataset root the run was made on (default: the run's "
                   "benchmark's $..._ROOT, else its default directory)")
    p.add_argument("--benchmark", default=None, choices=benchmark_names(),
                   help="whose tasks to submit (default: the benchmark the run's samples files are of); "
                        "--dataset then defaults to its $..._ROOT")
    p.add_argument("--model-name", required=True, help="model name shown on the leaderboard")
    p.add_argument("--model-url", default="", help="http(s) link for the model (paper, repository, card)")
    p.add_argument("--model-id", default=None, metavar="ORG/NAME",
                   help="the model on the Hugging Face Hub (its page becomes --model-url; the leaderboard checks it "
                        "exists, records its commit and can add the result to its page)")
    p.add_argument("--params", default="", help="model size, e.g. 7B")
    p.add_argument("--frames", default="", help="frames given to the model, e.g. 32, 1fps, adaptive")
    p.add_argument("--out", required=True, help="submission file to write (e.g. submission.json)")
    p.add_argument("--allow-oracle", action="store_true",
                   help="tests only: accept the answer-key oracle baseline (it is never ranked)")
    p.add_argument("--push", default=None, metavar="ORG/REQUESTS",
                   help="then send it to the leaderboard: a pull request on this requests dataset "
                        "(as `push-submission`; HF_TOKEN or the cached login)")

    def run(a: argparse.Namespace) -> int:
        from ..registry import get_benchmark
        from ..submission import (
            build_submission,
            partial_coverage_warning,
            scores_line,
            submission_benchmark,
            write_submission,
        )
        from ..util.preflight import existing_dir, output_file

        existing_dir(a.output_dir, "lmms-eval output directory")
        output_file(a.out)
        if a.model_id is not None:
            from ..leaderboard import model_page

            a.model_url = model_page(a.model_id, a.model_url)
        sub = build_submission(a.output_dir, a.dataset, model_name=a.model_name, model_url=a.model_url,
                               params=a.params, frames=a.frames, allow_oracle=a.allow_oracle,
                               benchmark=get_benchmark(a.benchmark) if a.benchmark else None)
        write_submission(sub, a.out)
        print(f"{a.out}: {scores_line(sub['scores'], submission_benchmark(sub))}")
        warning = partial_coverage_warning(sub["scores"], sub["run"].get("limit"))
        if warning:
            print(f"streamgaze: warning: {a.out}: {warning}", file=sys.stderr)
        if a.push:
            from ..leaderboard import push_submission

            print(push_submission(a.out, a.push, a.dataset).format())
        return 0

    return run


@command("push-submission", "send a submission to the leaderboard: a pull request adding it to the requests "
         "dataset on the Hub (validated and re-scored locally first)")
def _push_submission(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("submission", help="submission JSON file (from `streamgaze submit`)")
    p.add_argument("--requests", required=True, metavar="ORG/REQUESTS", help="the leaderboard's requests dataset")
    p.add_argument("--dataset", default=None, help="dataset to validate against (default: the dataset revision the "
                   "file pins, hf://datasets/<dataset.repo>@<dataset.commit>)")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import push_submission

        print(push_submission(a.submission, a.requests, a.dataset).format())
        return 0

    return run


@command("validate", "re-score a submission from its raw responses and check it against the dataset")
def _validate(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("submission", help="submission JSON file (from `streamgaze submit`)")
    p.add_argument("--dataset", default=None, help="dataset root of the submission's benchmark (default: its "
                   "$..._ROOT, else its default directory)")
    p.add_argument("--all-missing", action="store_true", help="list every missing question (default: first 50)")

    def run(a: argparse.Namespace) -> int:
        from ..submission import validate_submission

        print(validate_submission(a.submission, a.dataset).format(all_missing=a.all_missing))
        return 0

    return run


@command("compare", "per-task differences between two submissions with paired bootstrap confidence intervals")
def _compare(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("a", help="submission A")
    p.add_argument("b", help="submission B (differences are B - A)")
    p.add_argument("--dataset", default=None, help="dataset root both were made on (default: their benchmark's "
                   "$..._ROOT, else its default directory)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")

    def run(a: argparse.Namespace) -> int:
        import json

        from ..submission import compare_submissions, format_comparison

        result = compare_submissions(a.a, a.b, a.dataset, resamples=a.resamples, seed=a.seed, level=a.level)
        print(json.dumps(result, indent=2) if a.json else format_comparison(result))
        return 0

    return run


@command("leaderboard", "render the leaderboard site (index.html, leaderboard.md/.csv, chart.png) from submissions; "
         "`leaderboard --help` lists its verbs (init, sync, serve, space, flag, unflag, run-request)")
def _leaderboard(p: argparse.ArgumentParser) -> Handler:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    import textwrap

    p.description = f"{textwrap.fill(p.description or '', 100)}\n\n{verbs_text()}"
    p.add_argument("submissions", nargs="+", help="submission JSON files of any registered benchmark (each is "
                   "validated and re-scored by its benchmark's scorer)")
    p.add_argument("--dataset", default=None, action="append",
                   help="dataset root; repeat it, one per benchmark of the submissions (told apart by their "
                        "manifests; default: each benchmark's $..._ROOT, else its default directory)")
    p.add_argument("--out", required=True, help="output directory (replaced if it holds a previous leaderboard)")
    p.add_argument("--no-paper-rows", action="store_true",
                   help="leave out the papers' reference rows (each benchmark's paper_rows)")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import write_leaderboard
        from ..util.preflight import existing_file

        for path in a.submissions:
            existing_file(path, "submission file")
        out = write_leaderboard(a.submissions, a.dataset, a.out, include_paper=not a.no_paper_rows)
        print(out / "index.html")
        return 0

    return run


#: the leaderboard's sub-verbs, each with its one line: ``streamgaze leaderboard init|sync|serve|space ...``
#: (canonical_argv joins the two words); ``streamgaze leaderboard FILE.json ...`` stays the static site
VERB_LINES = {
    "init": "create the requests and results datasets on the Hub (the maintainer's first step)",
    "sync": "re-score open pull requests, accept or close them, run evaluation requests, update the results",
    "serve": "start the leaderboard web app (Gradio): tables, Submit, About",
    "space": "write the folder of a Hugging Face Space running the app",
    "flag": "flag a row of the results dataset, with a link to the discussion",
    "unflag": "remove a row's flag",
    "run-request": "what the leaderboard's Hub Job runs for an evaluation request",
}
LEADERBOARD_VERBS = tuple(VERB_LINES)


def verbs_text() -> str:
    """``leaderboard --help``'s list of its verbs, one line each (the site renderer first)."""
    lines = ["verbs:", f"  {'FILE.json ...':<16}render the static site from submission files (this command)"]
    lines += [f"  {verb:<16}{text}" for verb, text in VERB_LINES.items()]
    return "\n".join(lines) + "\n\n`streamgaze leaderboard VERB --help` for each verb's options."


@command("leaderboard init", "the maintainer's first step: create the requests and results datasets on the Hub "
         "(public, with their cards), after checking the token may create them; prints the next commands")
def _leaderboard_init(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--requests", required=True, metavar="ORG/REQUESTS",
                   help="the requests dataset to create (submissions arrive as pull requests)")
    p.add_argument("--results", required=True, metavar="ORG/RESULTS",
                   help="the results dataset to create (the accepted rows, the papers' rows, the static site)")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import init_leaderboard

        print(init_leaderboard(a.requests, a.results).format())
        return 0

    return run


@command("leaderboard sync", "the maintainer's sync: re-score every open pull request of the requests dataset, "
         "accept (commit the re-scored bytes) or close it with a comment, run accepted evaluation requests as Hub "
         "Jobs (--evaluate jobs), update the results dataset and its static site")
def _leaderboard_sync(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--requests", required=True, metavar="ORG/REQUESTS", help="the requests dataset (pull requests)")
    p.add_argument("--results", required=True, metavar="ORG/RESULTS",
                   help="the results dataset (`leaderboard init` creates it; created here if missing)")
    p.add_argument("--dataset", action="append", required=True,
                   help="a dataset submissions are scored against, hf://datasets/ORG/NAME@TAG or @COMMIT (a tag is "
                        "resolved once, when the sync starts; a branch is refused); repeat it, one or more per "
                        "benchmark (a submission is re-scored only at a listed commit)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds one submission may take to re-score (default 120)")
    p.add_argument("--quota", type=int, default=None,
                   help="accepted or pending submissions per submitter in 7 days (default 5; the maintainers listed "
                        "in the results dataset's leaderboard.yaml are exempt)")
    p.add_argument("--model-card-prs", action="store_true",
                   help="for each accepted submission naming a Hub model, open a pull request adding its result to "
                        "the model's page (.eval_results/<benchmark>.yaml)")
    p.add_argument("--evaluate", choices=["jobs"], default=None,
                   help="run the accepted evaluation requests: jobs = one Hub Job per PENDING request within the "
                        "GPU-hour budget (gpu_hours_budget in the results dataset's leaderboard.yaml); without it "
                        "requests wait in the queue")
    p.add_argument("--flavor", default=None, help="with --evaluate jobs: the Jobs hardware, e.g. a100-large or h200 "
                   "(`hf jobs hardware`; docs/leaderboard.md suggests flavors and their cost)")
    p.add_argument("--namespace", default=None, help="with --evaluate jobs: the user or organisation the jobs run "
                   "under and are billed to (default: the token's user)")
    p.add_argument("--image", default=None, help="with --evaluate jobs: the Docker image of the jobs (default: "
                   "Python 3.12 with uv; the job installs this toolkit's wheel unless the image has this very version)")
    p.add_argument("--job-timeout", default=None, metavar="DURATION",
                   help="with --evaluate jobs: the time bound of one job, e.g. 5400, 90m or 6h (default 12h): the Hub "
                        "stops it then, and a sync cancels a job still running past it")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import SyncOptions, sync

        options = SyncOptions(**{k: v for k, v in (("timeout_s", a.timeout), ("quota", a.quota)) if v is not None},
                              model_card_prs=a.model_card_prs, evaluate=_job_settings(a))
        report = sync(a.requests, a.results, a.dataset, log=print, options=options)
        print(report.format())
        return 1 if report.failed else 0

    return run


def _job_settings(a: argparse.Namespace):
    """``--evaluate jobs`` and its options as JobSettings (None without it); options without it are an error."""
    from ..util.errors import StreamGazeError

    given = [f"--{n.replace('_', '-')}" for n in ("flavor", "namespace", "image", "job_timeout") if getattr(a, n)]
    if a.evaluate is None:
        if given:
            raise StreamGazeError(f"{', '.join(given)}: only with --evaluate jobs")
        return None
    if not a.flavor:
        raise StreamGazeError("--evaluate jobs: give --flavor (the Jobs hardware, e.g. a100-large)")
    from ..leaderboard import DEFAULT_IMAGE, JobSettings, parse_duration

    return JobSettings(a.flavor, a.namespace, a.image or DEFAULT_IMAGE,
                       parse_duration(a.job_timeout) if a.job_timeout else JobSettings.timeout_s)


@command("leaderboard flag", "flag a row of the results dataset (it stays, marked, with a link to the discussion "
         "that explains why)")
def _leaderboard_flag(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("row", help="the row: its pull request number (pr_number, e.g. 12 or #12)")
    p.add_argument("--results", required=True, metavar="ORG/RESULTS", help="the results dataset")
    p.add_argument("--reason", required=True, help="why, in one line (shown in the tables)")
    p.add_argument("--discussion", required=True, metavar="URL", help="the discussion about it (http(s) address)")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import flag

        print(flag(a.results, a.row, a.reason, a.discussion))
        return 0

    return run


@command("leaderboard unflag", "remove the flag of a row of the results dataset")
def _leaderboard_unflag(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("row", help="the row: its pull request number (pr_number)")
    p.add_argument("--results", required=True, metavar="ORG/RESULTS", help="the results dataset")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import unflag

        print(unflag(a.results, a.row))
        return 0

    return run


@command("leaderboard serve", "start the leaderboard web app (Gradio; the app a Space runs): tables from the "
         "results dataset, a Submit tab that re-scores an upload and opens the pull request")
def _leaderboard_serve(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--results", default=None, help="the results: ORG/RESULTS on the Hub or a local directory "
                   "(default: the papers' rows only)")
    p.add_argument("--requests", default=None, metavar="ORG/REQUESTS",
                   help="where the Submit tab opens pull requests (default: no Submit tab)")
    p.add_argument("--dataset", action="append", default=None,
                   help="datasets the Submit tab re-scores against (one per benchmark; default: the revision each "
                        "file pins)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import serve

        serve(a.results, a.requests, a.dataset or (), host=a.host, port=a.port)
        return 0

    return run


@command("leaderboard space", "write the folder of a Hugging Face Space that runs the leaderboard app "
         "(app.py, this toolkit's wheel, requirements.txt naming it, a Dockerfile, README with the Space metadata)")
def _leaderboard_space(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--out", required=True, help="the Space folder to write (a new or empty directory)")
    p.add_argument("--results", default=None, help="ORG/RESULTS the Space reads")
    p.add_argument("--requests", default=None, metavar="ORG/REQUESTS", help="where its Submit tab opens pull requests")
    p.add_argument("--dataset", action="append", default=None, help="datasets its Submit tab re-scores against")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import write_space

        print(write_space(a.out, a.results, a.requests, a.dataset or ()))
        return 0

    return run
