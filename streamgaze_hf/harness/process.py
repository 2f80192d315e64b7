"""The process settings ``streamgaze eval`` gives lmms-eval before running it in the same process.

* **Honest version banner.** lmms-eval prints "branch: … / commit: …" above its result tables and
  stores them as ``git_branch`` / ``git_hash`` / ``lmms_eval_version``, asking git about the directory
  that holds the ``lmms_eval`` package. For a pip install that is ``site-packages``, and when the
  virtual environment sits inside a clone of this toolkit (``make setup``'s ``.venv``), git walks up
  and answers with the *toolkit's* branch and commit. ``GIT_CEILING_DIRECTORIES`` stops git at the
  package's own directory: a real lmms-eval checkout still reports itself; a pip install (no
  checkout) is named by lmms-eval's own fallback variables as ``release@v<version>`` (branch
  "release", commit "v0.7.3"), never by ``GITHUB_SHA`` of a CI run of the toolkit. The toolkit names itself under its own fields (``toolkit_version``, ``toolkit_commit``
  in every sample record and submission; :mod:`streamgaze_hf.util.provenance`).
* **No ``datasets`` progress noise.** ``datasets`` bars ("Generating test split", "Map") say nothing
  about an evaluation (the task configs are read through the toolkit's reader, lmms_tasks/utils.py),
  so they are turned off.
* **No import nobody uses.** lmms-eval's metric registry imports Hugging Face ``evaluate`` for one fallback
  (a metric of the ``evaluate`` library, which no task of the toolkit names), and that import costs about 1.5 s
  of every run's start-up (it imports ``transformers.pipelines`` and ``torch._dynamo``). It is deferred
  (``util/imports.defer_import``): the module loads on first use, as it would have.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

__all__ = ["prepare_lmms_eval_process", "lmms_eval_repo_root"]

def _installed_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("lmms-eval")
    except metadata.PackageNotFoundError:
        return None


def lmms_eval_repo_root() -> Path | None:
    """The directory lmms-eval asks git about (the parent of the ``lmms_eval`` package)."""
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).resolve().parents[1]


def lmms_eval_variables() -> tuple[dict[str, str], dict[str, str]]:
    """The variables an in-process lmms-eval run reads (see the module docstring).

    Returns:
        (variables to set, variables to set only where the user has not).
    """
    from ..util.provenance import RELEASE_BRANCH

    always: dict[str, str] = {}
    unless_set = {"HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    root = lmms_eval_repo_root()
    if root is not None:
        ceilings = [c for c in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if c]
        if str(root.parent) not in ceilings:
            always["GIT_CEILING_DIRECTORIES"] = os.pathsep.join([*ceilings, str(root.parent)])
        version = _installed_version()
        if not (root / ".git").exists() and version:
            unless_set.update(LMMS_EVAL_GIT_BRANCH=RELEASE_BRANCH, LMMS_EVAL_GIT_COMMIT=f"v{version}")
    return always, unless_set


def prepare_lmms_eval_process() -> None:
    """Set this process up for an in-process lmms-eval run (see the module docstring)."""
    from ..util.imports import defer_import
    from ..util.process_env import configure
    from ..util.provenance import toolkit_commit

    defer_import("evaluate")  # before lmms-eval's registry imports it (module docstring)
    toolkit_commit()  # resolved (and cached) before the ceiling below applies to this process
    always, unless_set = lmms_eval_variables()
    configure(always)
    configure(unless_set, keep_set=True)
    if "datasets" in sys.modules:
        from datasets.utils.logging import disable_progress_bar

        disable_progress_bar()
