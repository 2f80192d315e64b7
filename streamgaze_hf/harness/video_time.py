"""Did the model wait for video? The time the model wrapper spent reading video in an lmms-eval run.

``streamgaze eval`` runs lmms-eval in its own process; :func:`install` wraps, in that process, the calls a
wrapper reads video with: decord's ``VideoReader`` (opening, indexing, ``get_batch``), torchcodec's
``VideoDecoder`` (opening and every frame getter), lmms-eval's ``read_video`` / ``load_video_decord`` (PyAV),
qwen_vl_utils' ``fetch_video`` (its reader and resize) and transformers' ``load_video``. Only the outermost
call is timed (a ``fetch_video`` that opens a ``VideoReader`` counts once), and only on the wrapper's side: the
toolkit's own work is left out (the prefetcher's threads, and :func:`harness_work`, the window clip the
glue's ``doc_to_visual`` hands over, whose own cost is counted apart as ``prepare_s``).

Questions are told apart by :func:`mark_question` (the glue calls it when a wrapper asks for a document's
visuals): the reading done until the next question belongs to this one. :func:`summary` gives the total, its
share of the run (the lmms-eval run's wall time, :func:`run_started` / :func:`run_finished`), and the
per-question median; ``streamgaze eval`` prints it, writes it into the results files (``video_read``) and the
submission carries it (``run.video_read_*``), shown as the leaderboard's efficiency column.
"""

from __future__ import annotations

import functools
import statistics
import sys
import threading
import time
from contextlib import contextmanager

#: (module, class or None, attribute names): what is wrapped when the module can be imported
TARGETS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("decord.video_reader", "VideoReader", ("__init__", "__getitem__", "get_batch", "next", "seek_accurate",
                                           "skip_frames")),
    ("torchcodec.decoders._video_decoder", "VideoDecoder", ("__init__", "__getitem__", "get_frame_at", "get_frames_at",
                                                           "get_frames_in_range", "get_frame_played_at",
                                                           "get_frames_played_at", "get_frames_played_in_range",
                                                           "get_all_frames")),
    ("lmms_eval.models.model_utils.load_video", None, ("read_video", "load_video_decord")),
    ("qwen_vl_utils.vision_process", None, ("fetch_video",)),
    ("transformers.video_utils", None, ("load_video",)),
)

_lock = threading.Lock()
_local = threading.local()
_state: dict = {}
_installed: list[tuple[object, str, object]] = []
_generation = [0]  # bumped by uninstall(): a wrap still waiting for its module's import is dropped


def reset() -> None:
    """Forget everything measured (a new run)."""
    with _lock:
        _state.clear()
        _state.update(total=0.0, prepare=0.0, questions=[], current=None, run_start=None, run_end=None, calls=0)


reset()


def _counting() -> bool:
    if getattr(_local, "depth", 0) or getattr(_local, "harness", 0):
        return False
    from ..evaluation import PREFETCH_THREADS

    return not threading.current_thread().name.startswith(PREFETCH_THREADS)


def _timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _counting():
            return fn(*args, **kwargs)
        _local.depth = 1
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            dt = time.perf_counter() - t0
            _local.depth = 0
            with _lock:
                _state["total"] += dt
                _state["calls"] += 1
                if _state["current"] is not None:
                    _state["current"] += dt

    wrapper._streamgaze_timed = True
    return wrapper


def install(targets=TARGETS) -> list[str]:
    """Wrap the reading calls of every module of ``targets`` (default :data:`TARGETS`): now for a module imported
    already, else as soon as something imports it (``util/imports.when_imported``: importing torchcodec here would
    import ``torch._dynamo``, seconds that a run whose wrapper never reads through it would pay for nothing). Each
    call is wrapped once; returns the names wrapped now."""
    from ..util.imports import when_imported

    done: list[str] = []
    generation = _generation[0]
    for module_name, cls_name, names in targets:
        if module_name in sys.modules:
            done += _wrap(sys.modules[module_name], module_name, cls_name, names)
        else:
            when_imported(module_name, lambda module, m=module_name, c=cls_name, n=names: (
                _wrap(module, m, c, n) if _generation[0] == generation else None))
    return done


def _wrap(module, module_name: str, cls_name: str | None, names: tuple[str, ...]) -> list[str]:
    owner = getattr(module, cls_name, None) if cls_name else module
    done = []
    for name in names if owner is not None else ():
        fn = getattr(owner, name, None)
        if fn is None or getattr(fn, "_streamgaze_timed", False):
            continue
        _installed.append((owner, name, fn))
        setattr(owner, name, _timed(fn))
        done.append(f"{module_name}.{cls_name + '.' if cls_name else ''}{name}")
    return done


def uninstall() -> None:
    """Put back what :func:`install` wrapped, and wrap nothing more on a later import (tests)."""
    _generation[0] += 1
    while _installed:
        owner, name, fn = _installed.pop()
        setattr(owner, name, fn)


def mark_question() -> None:
    """A wrapper asked for a new document's visuals: what is read from now on belongs to that question."""
    with _lock:
        if _state["current"] is not None:
            _state["questions"].append(_state["current"])
        _state["current"] = 0.0


@contextmanager
def harness_work():
    """The toolkit's own work on the wrapper's thread (handing over a document's clip): timed as ``prepare``,
    never as the wrapper's reading."""
    _local.harness = getattr(_local, "harness", 0) + 1
    t0 = time.perf_counter()
    try:
        yield
    finally:
        _local.harness -= 1
        with _lock:
            _state["prepare"] += time.perf_counter() - t0


def run_started() -> None:
    with _lock:
        _state["run_start"] = time.perf_counter()


def run_finished() -> None:
    with _lock:
        _state["run_end"] = time.perf_counter()


def measured(run):
    """``run`` (lmms-eval's runner: args -> exit status) with the reading calls wrapped and the run timed."""

    def go(args):
        reset()
        install()
        run_started()
        try:
            return run(args)
        finally:
            run_finished()

    return go


def summary() -> dict:
    """``{"video_read_s", "video_read_share", "video_read_median_ms", "questions", "prepare_s", "run_s"}``
    (share: of the lmms-eval run's wall time; None before a run)."""
    with _lock:
        questions = list(_state["questions"]) + ([_state["current"]] if _state["current"] is not None else [])
        start, end = _state["run_start"], _state["run_end"]
        run_s = None if start is None else ((end or time.perf_counter()) - start)
        total = _state["total"]
        return {"video_read_s": round(total, 3),
                "video_read_share": None if not run_s else round(min(1.0, total / run_s), 4),
                "video_read_median_ms": round(1e3 * statistics.median(questions), 1) if questions else None,
                "questions": len(questions), "prepare_s": round(_state["prepare"], 3),
                "run_s": None if run_s is None else round(run_s, 3)}


def format_summary(s: dict) -> str:
    """The line ``streamgaze eval`` prints at the end of a run. A model that never asked for a document's visuals
    (the toolkit's random and oracle baselines answer from the document alone; lmms-eval hands a wrapper its
    ``doc_to_visual`` and the wrapper decides whether to call it) read no video: said as such, not as a fault."""
    if not s.get("questions"):
        return ("streamgaze: video: the model read no video (it asked for no document's visuals, as the random and "
                "oracle baselines do)")
    share = s["video_read_share"]
    return (f"streamgaze: video: the model wrapper spent {s['video_read_s']:.1f} s reading video"
            f"{'' if share is None else f' ({100 * share:.1f} % of the run)'}, a median of "
            f"{s['video_read_median_ms']:.0f} ms per question over {s['questions']} questions "
            f"(the toolkit's clip hand-over on that path: {s['prepare_s']:.1f} s)")
