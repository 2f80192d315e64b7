"""Evaluation requests: asking the leaderboard to run a model itself (``streamgaze request-eval``, the app's
Submit tab).

A request is one small JSON file, added by a pull request to the requests dataset at
``requests/<benchmark>/<model-slug>/<UTC timestamp>.json`` (:func:`~.untrusted.repo_path`)::

    {"request_version": 1, "kind": "evaluation-request", "toolkit_version": "0.1.0", "benchmark": "streamgaze",
     "model": {"id": "ORG/MODEL", "revision": "<40-hex commit>", "name": "ORG/MODEL", "params": "7B", "frames": ""},
     "lmms_eval": {"model": "qwen2_5_vl", "model_args": "max_pixels=76800,max_num_frames=32"},
     "settings": {"gaze": "visual", "prompt_mode": "default"},
     "dataset": {"repo": "ORG/streamgaze", "revision": "v1.0.0", "commit": "<40-hex>", "version": "1.0.0",
                 "manifest_sha256": "<64 hex>"}}

The model is pinned to a commit (``request-eval --revision`` is resolved once, when the request is made); the
leaderboard's job loads exactly those weights (``pretrained=`` is the job's, never the request's). The lmms-eval
model id and its ``model_args`` are what ``streamgaze eval`` passes to lmms-eval; the gaze mode chooses the
benchmark's tasks (:func:`request_tasks`), the prompt mode ``eval --prompt-mode``. The dataset is a commit the
maintainer listed (the sync checks it as it checks a submission's: :func:`~.pinning.scoring_target`).

A request is untrusted input like a submission: it is read in the bounded child (:func:`request_verdict`), at
most :data:`MAX_REQUEST_BYTES`, strictly (no duplicate keys, closed objects, bounded strings); ``model_args``
may hold only ``name=value`` pairs of plain characters, never ``pretrained`` (the job's) nor an argument whose
name says it holds a secret (a leaderboard job evaluates a model on the Hub, with no keys of anyone's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ... import __version__
from ...registry import Benchmark, get_benchmark
from ...util.errors import StreamGazeError
from ...util.secrets import secret_name

__all__ = ["REQUEST_KIND", "REQUEST_VERSION", "MAX_REQUEST_BYTES", "build_request", "parse_request", "request_tasks",
           "request_verdict", "model_args_problem", "RequestPush", "open_request", "request_digest"]

REQUEST_KIND = "evaluation-request"
REQUEST_VERSION = 1
#: the largest request file read (a request is a few hundred bytes)
MAX_REQUEST_BYTES = 64 * 1024
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_LMMS_MODEL = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
_ARG = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,63})=([A-Za-z0-9_.:/+-]{1,200})$")
_MAX_MODEL_ARGS = 1000


def model_args_problem(model_args: str) -> str | None:
    """Why ``model_args`` cannot be part of a request (None when it can): ``name=value`` pairs separated by commas,
    names and values of plain characters, no ``pretrained`` (the job sets it to the pinned weights), no secret."""
    if not model_args:
        return None
    if len(model_args) > _MAX_MODEL_ARGS:
        return f"--model-args: at most {_MAX_MODEL_ARGS} characters"
    seen = set()
    for pair in model_args.split(","):
        m = _ARG.match(pair)
        if m is None:
            return (f"--model-args: {pair[:60]!r} is not name=value (letters, digits and _ . : / + - only, no spaces "
                    "or quotes)")
        name = m.group(1)
        if name in seen:
            return f"--model-args: {name} given twice"
        seen.add(name)
        if name == "pretrained":
            return ("--model-args: pretrained is the leaderboard's: the job loads the model repository pinned to its "
                    "commit (ORG/MODEL --revision REV)")
        if secret_name(name):
            return f"--model-args: {name} names a secret; a leaderboard job evaluates a model on the Hub, with no keys"
    return None


def request_tasks(bench: Benchmark, gaze: str) -> list[str]:
    """The lmms-eval tasks a request's job runs: the group of every task of ``bench`` in the gaze mode ``gaze``
    (``streamgaze eval`` leaves out the tasks the dataset has no questions of, saying so)."""
    suffix = next(s for s, mode in bench.gaze_variants.items() if mode == gaze)
    return [f"{bench.name}{suffix}"]


def request_digest(req: Mapping) -> str:
    """What makes two requests the same evaluation: the model at its commit, the lmms-eval model and arguments, the
    settings and the dataset commit (sha256 of their canonical JSON); the sync runs one of them."""
    import hashlib
    import json

    same = {"benchmark": req["benchmark"], "model": [req["model"]["id"], req["model"]["revision"]],
            "lmms_eval": req["lmms_eval"], "settings": req["settings"],
            "dataset": [req["dataset"]["repo"], req["dataset"]["commit"]]}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode("utf-8")).hexdigest()


def build_request(bench: Benchmark, *, model_id: str, commit: str, lmms_model: str, model_args: str = "",
                  gaze: str | None = None, prompt_mode: str = "default", dataset: Mapping, model_name: str = "",
                  params: str = "", frames: str = "") -> dict:
    """A request object (the module docstring), checked (:func:`parse_request`'s rules)."""
    req = {"request_version": REQUEST_VERSION, "kind": REQUEST_KIND, "toolkit_version": __version__,
           "benchmark": bench.name,
           "model": {"id": model_id, "revision": commit, "name": model_name or model_id, "params": params,
                     "frames": frames},
           "lmms_eval": {"model": lmms_model, "model_args": model_args},
           "settings": {"gaze": gaze or bench.plain_gaze, "prompt_mode": prompt_mode},
           "dataset": {k: str(dataset.get(k) or "") for k in ("repo", "revision", "commit", "version",
                                                             "manifest_sha256")}}
    check_request(req)
    return req


def _pattern(rx: re.Pattern, what: str):
    def check(v) -> str | None:
        return None if isinstance(v, str) and rx.match(v) else what

    return check


def check_request(req) -> dict:
    """A request's structure and values (StreamGazeError with the first problem); returns it."""
    from ...submission import StrictJSONError, check_object, exact_int, obj, one_of, string

    try:
        check_object(req, "", {"request_version": exact_int(REQUEST_VERSION), "kind": one_of(REQUEST_KIND),
                               "toolkit_version": string(40), "benchmark": string(40, nonempty=True), "model": obj,
                               "lmms_eval": obj, "settings": obj, "dataset": obj})
        try:
            bench = get_benchmark(req["benchmark"])
        except Exception:  # noqa: BLE001 - an unknown name
            raise StrictJSONError(f"benchmark {req['benchmark'][:40]!r} is not a benchmark of this leaderboard") from None
        check_object(req["model"], "model", {
            "id": _pattern(_MODEL_ID, "a model repository ORG/NAME"),
            "revision": _pattern(_COMMIT, "a 40-hex commit"), "name": string(200, nonempty=True),
            "params": string(20), "frames": string(40)})
        check_object(req["lmms_eval"], "lmms_eval", {"model": _pattern(_LMMS_MODEL, "an lmms-eval model id"),
                                                     "model_args": string(_MAX_MODEL_ARGS)})
        check_object(req["settings"], "settings", {"gaze": one_of(*bench.gaze_variants.values()),
                                                   "prompt_mode": one_of(*bench.prompt_modes)})
        check_object(req["dataset"], "dataset", {
            "repo": _pattern(_MODEL_ID, "a dataset repository ORG/NAME"), "revision": string(100, nonempty=True),
            "commit": _pattern(_COMMIT, "a 40-hex commit"), "version": string(40),
            "manifest_sha256": _pattern(_SHA256, "a sha256 (64 hex)")})
    except StrictJSONError as exc:
        raise StreamGazeError(f"evaluation request: {exc}") from None
    problem = model_args_problem(req["lmms_eval"]["model_args"])
    if problem:
        raise StreamGazeError(f"evaluation request: {problem.removeprefix('--model-args: ')}")
    return req


def parse_request(data: bytes) -> dict:
    """A request file's bytes, read under its limits and checked (StreamGazeError with the reason)."""
    from ...submission import StrictJSONError, loads_strict

    if len(data) > MAX_REQUEST_BYTES:
        raise StreamGazeError(f"{len(data):,} bytes: an evaluation request has at most {MAX_REQUEST_BYTES:,} bytes")
    try:
        req = loads_strict(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise StreamGazeError("an evaluation request is UTF-8 JSON") from None
    except StrictJSONError as exc:
        raise StreamGazeError(f"evaluation request: {exc}") from None
    return check_request(req)


def request_verdict(path: str, listed: Mapping[str, Sequence], repo_path: str) -> dict:
    """What the sync needs of a request file (read in the bounded child): the request, its benchmark, the listed
    dataset it runs on (``pinning.scoring_target``), the model name's collision key; StreamGazeError with the
    reason of a refusal."""
    from pathlib import Path

    from .names import name_key
    from .pinning import scoring_target
    from .untrusted import model_slug, parse_repo_path

    req = parse_request(Path(path).read_bytes())
    parts = parse_repo_path(repo_path, ("requests",))
    if parts is None or parts.benchmark != req["benchmark"]:
        raise StreamGazeError(f"a {req['benchmark']} request under {repo_path.split('/')[:2]}")
    if model_slug(req["model"]["name"]) != parts.slug:
        raise StreamGazeError(f"the folder {parts.slug!r} is not the model name's slug {model_slug(req['model']['name'])!r}")
    target = scoring_target(req["benchmark"], req["dataset"], listed)
    key = name_key(req["model"]["name"])
    if not key:
        raise StreamGazeError("the model name has no letter or digit")
    return {"request": req, "benchmark": req["benchmark"], "name_key": key, "dataset_root": target.root,
            "dataset_label": target.label}


@dataclass(frozen=True)
class RequestPush:
    url: str  # the pull request's address
    path: str
    author: str
    request: dict

    def format(self) -> str:
        m, lm = self.request["model"], self.request["lmms_eval"]
        return (f"opened a pull request adding the evaluation request {self.path} (author {self.author}): "
                f"{m['id']}@{m['revision'][:12]} with lmms-eval's {lm['model']} on {self.request['dataset']['repo']}"
                f"@{self.request['dataset']['revision']}:\n{self.url}")


def resolve_model(api, model_id: str, revision: str) -> str:
    """The commit of ``model_id`` at ``revision`` (a branch, tag or commit) on the Hub; StreamGazeError when the model
    or the revision is not there."""
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    from .hub_push import hub_error

    if not _MODEL_ID.match(model_id):
        raise StreamGazeError(f"{model_id!r}: expected ORG/MODEL, a model repository on the Hub")
    try:
        info = api.model_info(model_id, revision=revision, expand=["sha"])
    except RepositoryNotFoundError:
        raise StreamGazeError(f"{model_id} is not a public model on the Hub (or this token cannot see it)") from None
    except RevisionNotFoundError:
        raise StreamGazeError(f"--revision {revision}: {model_id} has no such branch, tag or commit") from None
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"looking up {model_id}") from None
    if not info.sha or not _COMMIT.match(str(info.sha)):
        raise StreamGazeError(f"the Hub gave no commit for {model_id}@{revision}")
    return str(info.sha)


def listed_dataset(api, ref: str):
    """``--dataset REF`` of a request: a Hub dataset at a tag or a commit (``pinning``'s rule: a branch is refused),
    resolved to its commit, with its benchmark and manifest."""
    from ...hub.reference import is_reference
    from .pinning import listed_datasets

    if not is_reference(ref):
        raise StreamGazeError(f"--dataset {ref}: the leaderboard runs the model on a dataset on the Hub, "
                              "hf://datasets/ORG/NAME@TAG (a tag or a commit)")
    [(bench, [found])] = listed_datasets([ref], api).items()
    return get_benchmark(bench), found


def open_request(requests: str, *, model_id: str, revision: str, lmms_model: str, dataset: str, model_args: str = "",
                 gaze: str | None = None, prompt_mode: str = "default", model_name: str = "", params: str = "",
                 frames: str = "", token: str | None = None, submitter: str | None = None,
                 when: datetime | None = None, how: str = "with `streamgaze request-eval`") -> RequestPush:
    """``streamgaze request-eval``: check everything that can be checked here (the arguments, the requests
    dataset, the model and its revision, the dataset at its tag), then open the pull request adding the request.
    ``submitter``: the user signed in on the Space (the app opens the pull request with its own token)."""
    from huggingface_hub import CommitOperationAdd

    from .hub_push import hub_api, hub_error
    from .identity import space_description
    from .repos import require_repo
    from .untrusted import repo_path

    problem = model_args_problem(model_args)
    if problem:
        raise StreamGazeError(problem)
    if not _LMMS_MODEL.match(lmms_model or ""):
        raise StreamGazeError(f"--lmms-model {lmms_model!r}: an lmms-eval model id (e.g. qwen2_5_vl)")
    api = hub_api(token)
    try:
        require_repo(api, requests, "requests", requests=requests)
    except StreamGazeError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"looking up {requests}") from None
    commit = resolve_model(api, model_id, revision)
    bench, found = listed_dataset(api, dataset)
    if gaze is not None and gaze not in bench.gaze_variants.values():
        raise StreamGazeError(f"--gaze {gaze!r}: {bench.name}'s gaze modes are {', '.join(bench.gaze_variants.values())}")
    if prompt_mode not in bench.prompt_modes:
        raise StreamGazeError(f"--prompt-mode {prompt_mode!r}: {bench.name}'s are {', '.join(bench.prompt_modes)}")
    req = build_request(bench, model_id=model_id, commit=commit, lmms_model=lmms_model, model_args=model_args,
                        gaze=gaze, prompt_mode=prompt_mode, model_name=model_name, params=params, frames=frames,
                        dataset={"repo": found.repo, "revision": found.revision, "commit": found.commit,
                                 "version": found.version, "manifest_sha256": found.manifest_sha256})
    import json

    data = (json.dumps(req, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        author = api.whoami()["name"]
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "who is asking (whoami)") from None
    target = repo_path("requests", bench.name, req["model"]["name"], when)
    description = space_description(submitter) if submitter else f"Evaluation requested by {author} {how}."
    try:
        info = api.create_commit(requests, [CommitOperationAdd(target, data)], repo_type="dataset", create_pr=True,
                                 commit_message=f"Evaluation request: {req['model']['name'][:80]}",
                                 commit_description=description)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"opening the pull request on {requests}") from None
    return RequestPush(str(info.pr_url), target, submitter or author, req)
