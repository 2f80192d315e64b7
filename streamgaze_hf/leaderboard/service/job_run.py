"""What a leaderboard job runs: ``streamgaze leaderboard run-request`` (inside the Hub Job the sync started for an
accepted evaluation request; :mod:`.jobs`).

1. the request's bytes at its accept commit on the requests dataset's ``main`` (read and checked as the sync did:
   :func:`~.eval_requests.parse_request`);
2. the model repository at the request's pinned commit (``snapshot_download``);
3. ``streamgaze eval <benchmark> --dataset hf://datasets/REPO@COMMIT --prompt-mode P -- --model ID --model_args
   pretrained=<those files>,<the request's model_args> --tasks <the gaze mode's tasks> --log_samples``, this
   toolkit's own verb in a child process whose environment holds no token (the model's code never sees the
   maintainer's token);
4. ``submit``'s submission of that run (:func:`~streamgaze_hf.submission.build.build_submission`);
5. the submission committed to the requests dataset's ``main`` at the path the sync chose
   (``evaluations/<benchmark>/<model-slug>/<timestamp>.json``), with ``parent_commit`` and the title
   ``Evaluation of request #N: <path>``; in the same commit, beside it (``<timestamp>.frames.json``,
   :func:`~.traces.frames_path`), the digest of each document's model-ready frames from the clips the run made
   (``evaluation/frame_digest.py``; none when the run recorded no frame spec), which the traces carry.

A later sync finds the job COMPLETED and re-scores those bytes as it re-scores a submission. Any failure ends the
job with a non-zero status and one line saying why (the sync then marks the request FAILED with the log's last
lines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ... import __version__
from ...registry import get_benchmark
from ...util.errors import StreamGazeError
from .hub_commit import ATTEMPTS, commit_on_head
from .traces import frames_path

__all__ = ["run_request", "evaluation_title"]

#: environment variables a job's ``streamgaze eval`` child does not get (the token is the push's, not the model's)
_WITHHELD = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_API_TOKEN")


def evaluation_title(num: int, path: str) -> str:
    return f"Evaluation of request #{num}: {path}"


def _eval_command(req: dict, model_dir: Path, out: Path) -> list[str]:
    from .eval_requests import request_tasks

    bench = get_benchmark(req["benchmark"])
    ds = req["dataset"]
    args = ",".join(a for a in (f"pretrained={model_dir}", req["lmms_eval"]["model_args"]) if a)
    return [sys.executable, "-m", "streamgaze_hf", "eval", bench.name, "--dataset",
            f"hf://datasets/{ds['repo']}@{ds['commit']}", "--prompt-mode", req["settings"]["prompt_mode"], "--",
            "--model", req["lmms_eval"]["model"], "--model_args", args,
            "--tasks", ",".join(request_tasks(bench, req["settings"]["gaze"])), "--log_samples", "--output_path",
            str(out)]


def _commit(api, requests: str, num: int, path: str, files: dict[str, bytes], log: Callable[[str], None]) -> str:
    from huggingface_hub import CommitOperationAdd

    def attempt():
        head = api.repo_info(requests, repo_type="dataset").sha
        return api.create_commit(requests, [CommitOperationAdd(p, d) for p, d in files.items()], repo_type="dataset",
                                 parent_commit=head, commit_message=evaluation_title(num, path),
                                 commit_description=(f"The responses of the leaderboard's job for request #{num}, "
                                                     f"made by streamgaze-toolkit {__version__}.")).oid

    return commit_on_head(attempt, moved=lambda: log("the requests dataset moved while committing; reading its new head"),
                          gave_up=StreamGazeError(f"other writers kept committing to {requests}; {ATTEMPTS} attempts "
                                                  "failed"))


def _frame_digests(req: dict, sub: dict) -> dict[str, str]:
    """The digest of each document's model-ready frames, from the clips the run made (none without a frame
    spec: ``evaluation/frame_digest.py``)."""
    from ...dataset import open_dataset
    from ...evaluation import document_digests

    bench = get_benchmark(req["benchmark"])
    if not sub["settings"].get("model_ready"):
        return {}
    data = open_dataset(f"hf://datasets/{req['dataset']['repo']}@{req['dataset']['commit']}", benchmark=bench)
    return document_digests(bench, data, sub["settings"], cached_only=True)


def run_request(requests: str, request_path: str, commit: str, num: int, out_path: str, *, work: Path,
                log: Callable[[str], None] = print) -> str:
    """Steps 1-5 of the module docstring; returns the commit holding the responses."""
    from huggingface_hub import hf_hub_download, snapshot_download

    from ...submission import build_submission, dumps_submission
    from .eval_requests import parse_request
    from .hub_push import hub_api, hub_error
    from .model_checks import model_page
    from .untrusted import parse_repo_path

    if parse_repo_path(request_path, ("requests",)) is None or parse_repo_path(out_path, ("evaluations",)) is None:
        raise StreamGazeError(f"--request {request_path} / --out {out_path}: a request path and an evaluations path")
    api = hub_api()
    try:
        req = parse_request(Path(hf_hub_download(requests, request_path, repo_type="dataset", revision=commit,
                                                 cache_dir=work / "requests")).read_bytes())
        log(f"request #{num}: {req['model']['id']}@{req['model']['revision'][:12]}, lmms-eval's "
            f"{req['lmms_eval']['model']}, {req['benchmark']} ({req['settings']['gaze']} gaze, "
            f"{req['settings']['prompt_mode']} prompts) on {req['dataset']['repo']}@{req['dataset']['commit'][:12]}")
        model_dir = Path(snapshot_download(req["model"]["id"], revision=req["model"]["revision"],
                                           cache_dir=work / "models"))
    except StreamGazeError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "reading the request and the model") from None
    env = {k: v for k, v in os.environ.items() if k not in _WITHHELD}
    run_dir = work / "run"
    cmd = _eval_command(req, model_dir, run_dir)
    log("running: streamgaze " + " ".join(cmd[3:]))
    proc = subprocess.run(cmd, env=env, check=False)
    if proc.returncode != 0:
        raise StreamGazeError(f"streamgaze eval failed (exit status {proc.returncode}): see the lines above")
    m = req["model"]
    sub = build_submission(run_dir, f"hf://datasets/{req['dataset']['repo']}@{req['dataset']['commit']}",
                           model_name=m["name"], model_url=model_page(m["id"]), params=m["params"],
                           frames=m["frames"], benchmark=get_benchmark(req["benchmark"]))
    cov = sub["scores"]["coverage"]
    log(f"submission: {cov['answered']}/{cov['expected']} answered, overall {sub['scores'].get('overall')}")
    files = {out_path: dumps_submission(sub).encode("utf-8")}
    digests = _frame_digests(req, sub)
    if digests:
        files[frames_path(out_path)] = (json.dumps(digests, indent=1, sort_keys=True) + "\n").encode("utf-8")
        log(f"model-ready frames: {len(digests)} document digest(s) in {frames_path(out_path)}")
    try:
        done = _commit(api, requests, num, out_path, files, log)
    except StreamGazeError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"committing the responses to {requests}") from None
    log(f"responses committed to {requests}: {out_path} (commit {done})")
    return done
