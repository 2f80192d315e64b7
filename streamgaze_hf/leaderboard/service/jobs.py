"""Hub Jobs for evaluation requests: what the sync asks the Hub to run, and how it reads what happened
(``huggingface_hub``'s Jobs API: ``run_job``, ``inspect_job``, ``fetch_job_logs``, ``cancel_job``,
``list_jobs_hardware``).

One job per request: the image (``--image``, default :data:`DEFAULT_IMAGE`) runs :func:`job_script`, which uses
the image's ``streamgaze`` when it is exactly this toolkit (``streamgaze --version``), else installs this
toolkit's wheel, which the sync put in the requests dataset (:func:`toolkit_wheel_url`; pinned by its sha256),
and then runs ``streamgaze leaderboard run-request`` (:mod:`.job_run`): ``streamgaze eval`` of the pinned model on
the listed dataset commit, ``submit``, and the responses committed to the requests dataset. The maintainer's
token reaches the job only as a Job secret (``secrets={"HF_TOKEN": ...}``): never in its command, its
environment, a label or a file; the environment holds only ``HF_ENDPOINT`` when the sync talks to another
endpoint than the Hub's.

Time: the job carries the time bound (``timeout``), and the sync cancels a job still running past it
(``cancel_job``). GPU-hours: a job's running seconds x the flavor's GPUs (:func:`flavor_gpus`, from the Hub's
hardware list).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ... import __version__
from ...util.errors import StreamGazeError
from ...util.provenance import TOOLKIT

__all__ = ["DEFAULT_IMAGE", "JobSettings", "job_script", "flavor_gpus", "start_job", "job_state", "log_tail",
           "cancel", "toolkit_wheel_url", "TERMINAL", "JobState", "parse_duration", "WHEEL_DIR"]

#: the image a job runs in unless ``--image`` names another: Debian with Python 3.12 and uv (huggingface_hub's
#: default for uv jobs); it has no toolkit, so the job installs this toolkit's wheel first
DEFAULT_IMAGE = "ghcr.io/astral-sh/uv:python3.12-bookworm"
#: where the sync keeps this toolkit's wheel in the requests dataset (one folder per version)
WHEEL_DIR = "toolkit"
#: the Hub's stages a job ends in
TERMINAL = ("COMPLETED", "CANCELED", "ERROR", "DELETED")
LOG_LINES = 20


def parse_duration(text: str) -> int:
    """``"90"``, ``"90s"``, ``"30m"``, ``"2h"`` -> seconds (at least 60); StreamGazeError otherwise."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", str(text))
    if not m:
        raise StreamGazeError(f"--job-timeout {text!r}: a duration such as 5400, 90m or 2h")
    seconds = int(float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)])
    if seconds < 1:
        raise StreamGazeError(f"--job-timeout {text!r}: at least one second")
    return seconds


@dataclass(frozen=True)
class JobSettings:
    """How the sync runs evaluation requests: the flavor, the namespace billed (None: the token's user), the image
    and the time bound of one job."""

    flavor: str
    namespace: str | None = None
    image: str = DEFAULT_IMAGE
    timeout_s: int = 12 * 3600


def flavor_gpus(api, flavor: str) -> int:
    """The GPUs of a Jobs flavor (0 for a CPU flavor), from the Hub's hardware list; StreamGazeError naming the
    flavors when it is not one."""
    from .hub_push import hub_error

    try:
        hardware = api.list_jobs_hardware()
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "reading the Hub's Jobs hardware") from None
    by_name = {h.name: h for h in hardware}
    if flavor not in by_name:
        from ...util.spelling import did_you_mean

        names = sorted(by_name)
        raise StreamGazeError(f"--flavor {flavor!r} is not a Jobs flavor (the Hub has {', '.join(names)})"
                              f"{did_you_mean(flavor, names)}")
    acc = by_name[flavor].accelerator
    try:
        return int(acc.quantity) if acc is not None else 0
    except (TypeError, ValueError):
        return 1


def toolkit_wheel_url(api, requests: str, tmp) -> tuple[str, str]:
    """(address, sha256) of this toolkit's wheel in the requests dataset, uploaded first when it is not there yet
    (``toolkit/<version>/<wheel>``): what a job installs when its image has not this toolkit."""
    import hashlib
    from pathlib import Path

    from huggingface_hub import CommitOperationAdd, constants, hf_hub_download

    from ...util.wheel import toolkit_wheel
    from .hub_push import hub_error

    folder = Path(tmp) / "wheel"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        head = api.repo_info(requests, repo_type="dataset").sha
        present = [f.path for f in api.list_repo_tree(requests, path_in_repo=f"{WHEEL_DIR}/{__version__}",
                                                     revision=head, repo_type="dataset")] \
            if api.get_paths_info(requests, [f"{WHEEL_DIR}/{__version__}"], revision=head, repo_type="dataset") else []
        wheels = [p for p in present if p.endswith(".whl")]
        if wheels:
            path = wheels[0]
            data = Path(hf_hub_download(requests, path, repo_type="dataset", revision=head,
                                        cache_dir=folder / "cache")).read_bytes()
        else:
            wheel = toolkit_wheel(folder)
            path, data = f"{WHEEL_DIR}/{__version__}/{wheel.name}", wheel.read_bytes()
            head = api.create_commit(requests, [CommitOperationAdd(path, data)], repo_type="dataset",
                                     commit_message=f"streamgaze-toolkit {__version__} for the leaderboard's jobs").oid
    except StreamGazeError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"putting this toolkit's wheel in {requests}") from None
    url = f"{constants.ENDPOINT.rstrip('/')}/datasets/{requests}/resolve/{head}/{path}"
    return url, hashlib.sha256(data).hexdigest()


def job_script(*, requests: str, request_path: str, request_commit: str, num: int, responses_path: str,
               wheel_url: str, wheel_sha256: str, version_line: str) -> str:
    """The job's shell script: this toolkit (the image's when it is this one, else the wheel), then
    ``streamgaze leaderboard run-request``. Holds no secret."""
    q = shlex.quote
    wheel = q(f"streamgaze-toolkit[eval] @ {wheel_url}#sha256={wheel_sha256}")
    run = " ".join(q(a) for a in (TOOLKIT, "leaderboard", "run-request", "--requests", requests, "--request",
                                  request_path, "--commit", request_commit, "--pr", str(num), "--out", responses_path))
    return "\n".join([
        "set -eu",
        f"if [ \"$({TOOLKIT} --version 2>/dev/null || true)\" = {q(version_line)} ]; then",
        f"  echo {q('streamgaze-toolkit: the image has ' + version_line)}",
        "else",
        f"  echo {q('streamgaze-toolkit: installing ' + version_line.split(' (')[0] + ' from the requests dataset')}",
        f"  python -m pip install --quiet --no-cache-dir {wheel} || uv pip install --system --quiet {wheel}",
        "fi",
        f"exec {run}",
    ])


def start_job(api, settings: JobSettings, script: str, *, token: str, requests: str, num: int):
    """``run_job`` of ``script`` (``bash -c``) with the token as the Job secret ``HF_TOKEN``; the JobInfo."""
    from huggingface_hub import constants

    from .hub_push import hub_error

    env = {}
    if constants.ENDPOINT.rstrip("/") != "https://huggingface.co":
        env["HF_ENDPOINT"] = constants.ENDPOINT.rstrip("/")
    labels = {"streamgaze-requests": requests.replace("/", "--")[:100], "streamgaze-request": str(num)}
    try:
        return api.run_job(image=settings.image, command=["bash", "-c", script], env=env,
                           secrets={"HF_TOKEN": token}, flavor=settings.flavor, timeout=settings.timeout_s,
                           name=f"streamgaze-eval-{num}", labels=labels, namespace=settings.namespace)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"starting the job of request #{num}") from None


@dataclass(frozen=True)
class JobState:
    stage: str  # the Hub's: SCHEDULING, RUNNING, COMPLETED, CANCELED, ERROR, DELETED
    message: str
    running_s: float
    finished_at: str

    @property
    def done(self) -> bool:
        return self.stage in TERMINAL


def job_state(api, job_id: str, namespace: str) -> JobState:
    info = api.inspect_job(job_id=job_id, namespace=namespace)
    durations = info.durations
    running = float(durations.running_secs or 0) if durations is not None else 0.0
    finished = info.finished_at.strftime("%Y-%m-%dT%H:%M:%SZ") if info.finished_at else ""
    return JobState(str(info.status.stage), str(info.status.message or ""), running, finished)


def log_tail(api, job_id: str, namespace: str, token: str | None, lines: int = LOG_LINES) -> list[str]:
    """The last ``lines`` lines of a job's log, secrets (and the maintainer's token) redacted, each one line of at
    most 300 characters; [] when the Hub gives none."""
    from ...util.secrets import redact, register
    from .untrusted import terminal_text

    register(token)
    try:
        got = list(api.fetch_job_logs(job_id=job_id, namespace=namespace, tail=lines))
    except Exception:  # noqa: BLE001 - the logs are a courtesy: the status is decided without them
        return []
    return [terminal_text(redact(line)) for line in got[-lines:] if line.strip()]


def cancel(api, job_id: str, namespace: str) -> None:
    api.cancel_job(job_id=job_id, namespace=namespace)
