"""Which toolkit produced a record: its version and, where known, its git commit.

lmms-eval prints the *current directory's* git branch and commit in its result tables and stores them
as its own ``lmms_eval_version`` / ``git_hash`` (a pip-installed lmms-eval has no checkout of its own),
so a run started from a clone of this toolkit shows the toolkit's commit as if it were lmms-eval's.
Every per-sample record and every submission therefore names the toolkit under its own fields:
``toolkit_version`` (the package version) and ``toolkit_commit`` (the commit of the source tree the
package was imported from, with ``+dirty`` when it has uncommitted changes; the commit recorded by pip
for a VCS install; "" when neither is known).

What a run records also passes through here: model arguments with secret-looking values redacted
(:func:`redact_model_args`: lmms-eval runs' ``model_args`` in submissions, ``stream-eval`` runs' settings),
and the ``lmms_eval_version`` string lmms-eval gives a release install under ``streamgaze eval``'s settings
(:func:`release_version_string`).
"""

from __future__ import annotations

import functools
import json
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from .secrets import REDACTED, redact, secret_name, secret_value_shape

__all__ = ["toolkit_version", "toolkit_commit", "toolkit_description", "run_provenance", "DISTRIBUTION", "TOOLKIT",
           "REDACTED", "redact_model_args", "RELEASE_BRANCH", "release_version_string"]

DISTRIBUTION = "streamgaze-toolkit"
#: the toolkit's short name: its command, its folder in the user's cache (``~/.cache/streamgaze``), its key in
#: the lmms-eval results files it annotates (named after its first benchmark, but the toolkit's own)
TOOLKIT = "streamgaze"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # streamgaze_hf/


def toolkit_version() -> str:
    return __version__


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _checkout_commit() -> str:
    """The commit of the git work tree this package lives in (an editable install or a clone)."""
    top = _git(["rev-parse", "--show-toplevel"], _PACKAGE_DIR)
    if not top or not (Path(top) / "pyproject.toml").is_file() or Path(top) != _PACKAGE_DIR.parent:
        return ""
    commit = _git(["rev-parse", "HEAD"], _PACKAGE_DIR) or ""
    if commit and _git(["status", "--porcelain", "--untracked-files=no", "--", "."], Path(top)):
        commit += "+dirty"
    return commit


def _pip_vcs_commit() -> str:
    """The commit pip recorded (``direct_url.json``) when the toolkit was installed from a repository."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return ""
    try:
        info = json.loads(text or "{}")
    except ValueError:
        return ""
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    return str(vcs.get("commit_id") or "") if isinstance(vcs, dict) else ""


@functools.lru_cache(maxsize=1)
def toolkit_commit() -> str:
    """The toolkit's git commit ("" when unknown); computed once per process."""
    return _checkout_commit() or _pip_vcs_commit()


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""


@functools.lru_cache(maxsize=1)
def run_provenance() -> dict[str, str]:
    """What produced a record, as every per-sample record and submission names it: the toolkit's version
    and commit, and the installed lmms-eval and datasets versions ("" when not installed)."""
    return {"toolkit_version": toolkit_version(), "toolkit_commit": toolkit_commit(),
            "lmms_eval_version": _installed("lmms-eval"), "datasets_version": _installed("datasets")}


def toolkit_description() -> str:
    """``streamgaze-toolkit 0.1.0 (commit abc1234)``: what ``streamgaze --version`` prints."""
    commit = toolkit_commit()
    return f"{DISTRIBUTION} {__version__}" + (f" (commit {commit})" if commit else "")


# ---- model arguments as a run records them -------------------------------------------------------

def redact_model_args(model_args: Any) -> str:
    """lmms-eval ``model_args`` (``k=v,k2=v2`` or a dict) with secrets redacted, by the rule of
    :mod:`.secrets`: arguments whose name says they hold one (``api_key``, ``hf_token``, ``password``),
    values shaped like access tokens, and URLs with a user:password part."""
    if isinstance(model_args, dict):
        pairs = [(str(k), str(v)) for k, v in model_args.items()]
    else:
        text = "" if model_args is None else str(model_args)
        pairs = [(p.split("=", 1)[0], p.split("=", 1)[1] if "=" in p else None) for p in text.split(",") if p]
    out = []
    for k, v in pairs:
        if v is None:
            out.append(REDACTED if secret_value_shape(k) else k)
        elif secret_name(k) or secret_value_shape(v):
            out.append(f"{k}={REDACTED}")
        else:
            out.append(f"{k}={v}")
    return redact(",".join(out))


# ---- lmms-eval's own version string ----------------------------------------------------------------

#: what lmms-eval's banner calls the branch of a pip-installed (not checked-out) lmms-eval
RELEASE_BRANCH = "release"


def release_version_string(version: str) -> str:
    """lmms-eval's ``lmms_eval_version`` (``branch@commit[:8]``) of a release install under our settings
    (``streamgaze_hf.harness.process``)."""
    return f"{RELEASE_BRANCH}@{('v' + version)[:8]}"
