"""lmms-eval glue: task YAMLs, thin task functions, baseline models and wrapper fixes.

``TASKS_DIR`` holds the committed task files of the benchmarks this distribution ships (rendered from the
registry by ``generate.py``; a test keeps them equal). :func:`task_folder` is the directory to pass as
``lmms-eval --include_path`` (``streamgaze tasks-dir`` prints it; ``streamgaze eval`` fills it in): the
committed folder, or, when a benchmark installed from another package is registered too, a folder rendered
into the user's cache holding every registered benchmark's task files, so a new benchmark needs no edit here.
The task functions live in ``utils.py``; what a task name stands for, in the registry's task index.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["TASKS_DIR", "task_folder"]

TASKS_DIR = str(Path(__file__).resolve().parent / "tasks")
#: the variable that moves the folder of rendered task files (default ``~/.cache/streamgaze/lmms_tasks``)
TASKS_CACHE_ENV = "STREAMGAZE_TASKS_CACHE"


def task_folder() -> str:
    """The lmms-eval include path of every registered benchmark's tasks (module docstring).

    Returns:
        ``TASKS_DIR`` when every registered benchmark has its committed folder there; else a folder in the
        user's cache (``$STREAMGAZE_TASKS_CACHE``, else ``~/.cache/streamgaze/lmms_tasks``) named by the
        hash of its files, written once (atomically) and reused.
    """
    from streamgaze_hf.registry import benchmarks

    if all((Path(TASKS_DIR) / b.name).is_dir() for b in benchmarks()):
        return TASKS_DIR
    import hashlib
    import os
    import shutil
    import tempfile

    from streamgaze_hf.util.fsutil import DIR_MODE, user_cache_dir

    from .generate import render_task_files

    files = render_task_files()
    digest = hashlib.sha256("\0".join(f"{k}\0{v}" for k, v in sorted(files.items())).encode()).hexdigest()[:16]
    folder = user_cache_dir("lmms_tasks", TASKS_CACHE_ENV) / digest
    if folder.is_dir():
        return str(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{digest}.", suffix=".tmp", dir=folder.parent))
    try:
        for rel, text in files.items():
            path = tmp / Path(rel).relative_to("tasks")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        os.chmod(tmp, DIR_MODE)
        os.rename(tmp, folder)  # content-addressed: a folder another process put there first is the same
    except OSError:
        if not folder.is_dir():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(folder)
