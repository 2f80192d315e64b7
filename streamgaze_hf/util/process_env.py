"""The one place the toolkit sets environment variables, and builds the environment of a child process.

The toolkit never writes ``os.environ`` to pass a setting to itself: a run's settings travel as values
(``streamgaze_hf.harness.plan.EvalPlan``, ``RunSettings``). What remains are variables that *other* code
reads from the environment, which only an environment variable can reach:

* libraries read in this process that take their configuration from the environment at import or first
  use (:func:`configure`): lmms-eval's version banner (``GIT_CEILING_DIRECTORIES``, ``LMMS_EVAL_GIT_BRANCH``,
  ``LMMS_EVAL_GIT_COMMIT``), ``datasets``' progress bars (``HF_DATASETS_DISABLE_PROGRESS_BARS``), the video
  readers wrappers get (``FORCE_QWENVL_VIDEO_READER``, ``LMMS_VIDEO_DECODE_BACKEND``, ``DECORD_EOF_RETRY_MAX``:
  ``harness/backends.py``), Gradio's upload folder (``GRADIO_TEMP_DIR``), and the Hub commits a run pinned
  (``STREAMGAZE_HUB_PINS``, read back by its child processes: ``hub/reference.py``);
* the environment of a child process the toolkit starts (:func:`child_env`): this process's, with the
  variables that child needs.

Every call names why a variable is set (its docstring or the caller's), and tests check that nothing else
in ``streamgaze_hf/`` assigns to ``os.environ`` (tests/unit/test_package_layout.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["configure", "child_env"]


def configure(values: Mapping[str, str], *, keep_set: bool = False) -> dict[str, str]:
    """Set variables that a library reads from this process's environment.

    Args:
        values: variable -> value.
        keep_set: leave a variable the user (or an earlier call) already set to a non-blank value as it is.

    Returns:
        variable -> the value in force afterwards, for each of ``values``.
    """
    out = {}
    for name, value in values.items():
        if not (keep_set and os.environ.get(name, "").strip()):
            os.environ[name] = value
        out[name] = os.environ[name]
    return out


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process the toolkit starts: this process's, with ``extra`` over it.

    Args:
        extra: variable -> value the child needs (None: none).

    Returns:
        A new mapping (this process's environment is not changed).
    """
    env = dict(os.environ)
    env.update(extra or {})
    return env
