"""Evaluated by the leaderboard: asking it to run a model (``request-eval``) and what its Hub Job runs
(``leaderboard run-request``). The sync's ``--evaluate jobs`` is in submit.py with the other sync options."""

from __future__ import annotations

import argparse

from .base import Handler, command


@command("request-eval", "ask the leaderboard to run a model itself: a pull request adding an evaluation request "
         "(the model pinned to a commit, the lmms-eval model and its arguments, the gaze and prompt settings) to "
         "the requests dataset")
def _request_eval(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("model", metavar="ORG/MODEL", help="the model repository on the Hub (public)")
    p.add_argument("--revision", required=True, help="a branch, tag or commit of the model; the request pins the commit "
                   "it is now")
    p.add_argument("--lmms-model", required=True, metavar="ID",
                   help="the lmms-eval model id that runs it, e.g. qwen2_5_vl or llava_onevision (`lmms-eval models`)")
    p.add_argument("--model-args", default="", metavar="ARGS",
                   help="lmms-eval --model_args for it, name=value,... without pretrained (the job sets it to the "
                        "pinned model) and without secrets, e.g. max_pixels=602112,max_num_frames=32")
    p.add_argument("--requests", required=True, metavar="ORG/REQUESTS", help="the leaderboard's requests dataset")
    p.add_argument("--dataset", required=True, metavar="REF",
                   help="the dataset to run it on, hf://datasets/ORG/NAME@TAG or @COMMIT (one the leaderboard lists)")
    p.add_argument("--gaze", default=None, help="the gaze mode (default: the benchmark's plain tasks' mode, e.g. visual)")
    p.add_argument("--prompt-mode", default="default", help="the prompt mode (default: default)")
    p.add_argument("--model-name", default="", help="the name shown on the leaderboard (default: ORG/MODEL)")
    p.add_argument("--params", default="", help="the model's size, e.g. 7B (checked against the Hub's count)")
    p.add_argument("--frames", default="", help="the frames it is given, as shown, e.g. 32")

    def run(a: argparse.Namespace) -> int:
        from ..leaderboard import open_request

        if a.lmms_model:
            _check_lmms_model(a.lmms_model)
        print(open_request(a.requests, model_id=a.model, revision=a.revision, lmms_model=a.lmms_model,
                           dataset=a.dataset, model_args=a.model_args, gaze=a.gaze, prompt_mode=a.prompt_mode,
                           model_name=a.model_name, params=a.params, frames=a.frames).format())
        return 0

    return run


def _check_lmms_model(model: str) -> None:
    """A typo in ``--lmms-model`` answers here, when lmms-eval is installed (the job would fail on it)."""
    import importlib.util

    if importlib.util.find_spec("lmms_eval") is None:
        return
    from ..harness.checks import check_model
    from ..harness.model import lmms_model_names

    check_model(["--model", model], lmms_model_names)


@command("leaderboard run-request", "what the leaderboard's Hub Job runs for an accepted evaluation request: "
         "`streamgaze eval` of the pinned model on the listed dataset, `submit`, and the responses committed to the "
         "requests dataset (the maintainer's sync starts it; HF_TOKEN is the job's secret)")
def _run_request(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--requests", required=True, metavar="ORG/REQUESTS", help="the requests dataset")
    p.add_argument("--request", required=True, metavar="PATH", help="the request file (requests/...)")
    p.add_argument("--commit", required=True, help="the commit that accepted it (its bytes)")
    p.add_argument("--pr", required=True, type=int, help="its pull request number")
    p.add_argument("--out", required=True, metavar="PATH", help="where the responses go (evaluations/...)")
    p.add_argument("--work", default=None, help="a working directory (default: a temporary one)")

    def run(a: argparse.Namespace) -> int:
        import tempfile
        from pathlib import Path

        from ..leaderboard import run_request

        if a.work:
            Path(a.work).mkdir(parents=True, exist_ok=True)
            run_request(a.requests, a.request, a.commit, a.pr, a.out, work=Path(a.work))
            return 0
        with tempfile.TemporaryDirectory(prefix="streamgaze-job-") as tmp:
            run_request(a.requests, a.request, a.commit, a.pr, a.out, work=Path(tmp))
        return 0

    return run
