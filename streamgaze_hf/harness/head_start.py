"""The first clips while lmms-eval starts and the model loads (``streamgaze eval``): :func:`start_head_start`.

lmms-eval builds the model before it loads any task's documents (``evaluator.simple_evaluate``: the model, then
``get_task_dict``), and the glue hands a task's documents to the frame scheduler only as lmms-eval loads them
(``lmms_tasks/utils.py``: ``documents``, ``prefetch.start_prefetch``). Without a head start no clip is planned nor
made during lmms-eval's start-up (its imports: tens of seconds on a small machine) nor during the model's load (a
7B model's weights: 10-30 s), and the model's first asks wait for the first passes.

So ``streamgaze eval`` (``run.py``: ``run_evaluation``) starts them itself, from its plan, before lmms-eval
starts: on a background thread, each requested task's documents are made as the glue will make them (the same
task names, the settings the run's task files name, ``Plugin.task_docs``) and handed to
``prefetch.start_prefetch`` with the same task name, the run's task names (``lmms_args.clip_tasks``) and ``--limit``.
The run's frame scheduler plans its passes once the last task is registered, and its workers make the clips in
the order the model will ask (lmms-eval's sort, as ``prefetch`` predicts it). lmms-eval runs in this process
(``run_lmms_eval``), so when the glue registers the same documents later the scheduler finds every window
registered (it dedups by key) and the model's asks join the work under way.

No head start (:func:`skip_reason`) in a distributed run (``WORLD_SIZE`` > 1: each rank registers its own
shard when lmms-eval loads its documents), when lmms-eval's arguments name an ``--include_path`` of their own
(its tasks get other settings), or when the run cuts no clip (prefetching off, a model that reads no video, a
benchmark without window clips, no task of it requested). The clips are the same either way: the scheduler
makes each once, content-addressed (``video/clips.py``); only when they are made changes.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..registry import task_index
from .lmms_args import clip_tasks

if TYPE_CHECKING:
    from .plan import EvalPlan

__all__ = ["HeadStart", "skip_reason", "start_head_start"]


def skip_reason(plan: EvalPlan, environ: Mapping[str, str] | None = None) -> str:
    """Why ``plan``'s run gets no head start (module docstring), or "" when it gets one.

    Args:
        plan: the evaluation.
        environ: the process's variables (default ``os.environ``: the launcher's ``WORLD_SIZE``).
    """
    environ = os.environ if environ is None else environ
    try:
        world = int(environ.get("WORLD_SIZE", "1"))
    except ValueError:
        world = 1
    if world > 1:
        return f"a distributed run (WORLD_SIZE={world}): each rank registers its own documents"
    if plan.lmms_args.include_path is not None:
        return "lmms-eval's arguments name an --include_path of their own"
    if not plan.benchmark.window_clips:
        return f"{plan.benchmark.name} has no window clips"
    if plan.settings.prefetch == 0 or not plan.settings.reads_video:
        return "the run prepares no clip in the background"
    if not _tasks(plan):
        return f"no task of {plan.benchmark.name} is requested"
    return ""


def _tasks(plan: EvalPlan) -> list:
    """The requested lmms-eval tasks of ``plan``'s benchmark whose documents are window clips, in order."""
    index = task_index()
    wanted = clip_tasks(plan.lmms_args) or frozenset()
    names = dict.fromkeys(leaf for name in plan.lmms_args.tasks for leaf in index.leaves(name) if leaf in wanted)
    return [t for n in names if (t := index.lmms_task(n)) is not None and t.benchmark == plan.benchmark.name]


class HeadStart:
    """The head start of one run, on its own thread (:func:`start_head_start`), or the reason there is none.

    Attributes:
        report: what it did, for the results file: ``tasks`` and ``documents`` registered (those lmms-eval asks
            for: ``--limit``) and ``seconds`` (from its
            start until the last task was registered and the passes planned), with ``error`` when making them
            failed (the glue then meets the same error where lmms-eval loads the documents, and reports it there);
            or ``skipped``: why there is none.
    """

    def __init__(self, plan: EvalPlan, skipped: str = "") -> None:
        from ..evaluation import PREFETCH_THREADS

        self._plan = plan
        self.report: dict = {"skipped": skipped} if skipped else {}
        self._thread = None if skipped else threading.Thread(target=self._run, name=f"{PREFETCH_THREADS}-head-start",
                                                             daemon=True)
        if self._thread is not None:
            self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def _run(self) -> None:
        from ..evaluation import prefetch
        from .task_files import settings_metadata, settings_of_metadata

        t0 = time.perf_counter()
        plan = self._plan
        tasks = _tasks(plan)
        expected, limit = clip_tasks(plan.lmms_args), plan.lmms_args.limit
        settings = settings_of_metadata(settings_metadata(plan.settings))  # what the glue reads from the task files
        documents = 0
        try:
            for task in tasks:
                docs = plan.benchmark.plugin().task_docs(task, plan.dataset, settings=settings)
                prefetch.start_prefetch(docs, settings, task=task.name, expected=expected, limit=limit)
                documents += len(prefetch.rank_shard(docs, limit))
        except Exception as exc:  # noqa: BLE001 - the glue meets it again where lmms-eval loads the documents
            self.report["error"] = f"{type(exc).__name__}: {exc}"
        self.report.update(tasks=len(tasks), documents=documents, seconds=round(time.perf_counter() - t0, 3))

    def join(self, timeout: float | None = None) -> dict:
        """Wait (up to ``timeout``) for the documents to be registered and the passes planned; the report."""
        if self._thread is not None:
            self._thread.join(timeout)
        return dict(self.report)


def start_head_start(plan: EvalPlan, environ: Mapping[str, str] | None = None) -> HeadStart:
    """Start registering ``plan``'s documents with the run's frame scheduler on a background thread (module
    docstring), unless the run gets no head start (:func:`skip_reason`: then the returned one only says why)."""
    return HeadStart(plan, skip_reason(plan, environ))
