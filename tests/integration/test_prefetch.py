"""Prefetching: bounded background workers prepare the next documents' clips, so the critical path
(``doc_to_visual``) is a cache hit; errors surface on the caller; the lmms-eval glue uses it."""

from __future__ import annotations

import os
import threading
import time

import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.evaluation import prefetch
from streamgaze_hf.evaluation import visuals as shared_evaluation
from streamgaze_hf.evaluation.prefetch import Prefetcher
from streamgaze_hf.evaluation.settings import RunSettings
from streamgaze_hf.video import clips


def _until(cond, timeout=20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def test_workers_prepare_the_next_items_while_the_caller_works():
    ran_on: dict[int, str] = {}

    def fn(i):
        ran_on[i] = threading.current_thread().name
        return i * 10

    p = Prefetcher(fn, workers=2, name="t")
    try:
        p.submit((i, i) for i in range(6))
        results = []
        for i in range(6):
            results.append(p.get(i))
            # the "model" works on item i until the next item is ready in the background
            if i + 1 < 6:
                assert _until(lambda i=i: p.is_done(i + 1))
        assert results == [0, 10, 20, 30, 40, 50]
        assert p.stats.hits >= 5 and p.stats.misses + p.stats.waits + p.stats.hits == 6
        assert all(ran_on[i].startswith("t-") for i in range(1, 6))  # built by workers, not the caller
        assert p.get(3) == 30 and p.stats.hits >= 6  # asking again is a hit
    finally:
        p.close(timeout=10)


def test_the_caller_never_waits_behind_the_queue():
    gate = threading.Event()

    def fn(i):
        if i == 0:
            gate.wait(20)
        return threading.current_thread().name

    p = Prefetcher(fn, workers=1, name="w")
    try:
        p.submit((i, i) for i in range(5))
        assert _until(lambda: p._started == 1)  # the only worker is stuck on item 0
        assert p.get(4) == threading.current_thread().name  # built at once on the caller's thread
        assert p.stats.misses == 1
        gate.set()
        assert p.get(0) == "w-0" and p.stats.waits + p.stats.hits == 1
    finally:
        gate.set()
        p.close(timeout=10)


def test_ahead_bounds_the_work_beyond_what_was_asked():
    started = []

    def fn(i):
        started.append(i)
        return i

    p = Prefetcher(fn, workers=2, ahead=2, name="a")
    try:
        p.submit((i, i) for i in range(10))
        assert _until(lambda: len(started) == 2)
        time.sleep(0.2)
        assert sorted(started) == [0, 1]
        assert p.get(0) == 0  # one asked for: one more may start
        assert _until(lambda: len(started) == 3)
        time.sleep(0.1)
        assert sorted(started) == [0, 1, 2]
    finally:
        p.close(timeout=10)


def test_a_worker_error_is_raised_on_the_caller():
    calls = []

    def fn(i):
        calls.append((i, threading.current_thread().name))
        if i == 2:
            raise ValueError(f"bad item {i}")
        return i

    p = Prefetcher(fn, workers=2, name="e")
    try:
        p.submit((i, i) for i in range(4))
        assert p.wait_idle(timeout=20)
        assert p.stats.failed == 1 and p.stats.prepared == 3
        with pytest.raises(ValueError, match="bad item 2"):
            p.get(2)
        assert calls[-1] == (2, threading.current_thread().name)  # run again where it is asked for
        with pytest.raises(ValueError, match="bad item 2"):
            p.get(2)  # and every time: a failure is never cached as a result
        assert [p.get(i) for i in (0, 1, 3)] == [0, 1, 3]
    finally:
        p.close(timeout=10)


def test_rank_shard(monkeypatch):
    docs = [{"i": i} for i in range(7)]
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert prefetch.rank_shard(docs) == docs
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    assert [d["i"] for d in prefetch.rank_shard(docs)] == [1, 4]


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (3, 2), (16, 2)])
def test_the_default_workers_leave_the_model_a_core(monkeypatch, cores, threads):
    """Unset, ``STREAMGAZE_PREFETCH`` is one less than the cores this process may use, at least 1 and at most 2;
    a child process gets the number itself (``to_env``), and a user's number stands on any machine."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)))
    monkeypatch.delenv("STREAMGAZE_PREFETCH", raising=False)
    s = RunSettings.from_env()
    assert (s.prefetch, RunSettings().prefetch) == (threads, threads)
    assert s.to_env()["STREAMGAZE_PREFETCH"] == str(threads)
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "2")
    assert RunSettings.from_env().prefetch == 2
    p = Prefetcher(lambda item: item, name="d")
    try:
        assert len(p._threads) == threads
    finally:
        p.close()


def test_settings(monkeypatch):
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "0")
    assert prefetch.start_prefetch([{"x": 1}]) is None
    for bad in ("two", "-1"):
        monkeypatch.setenv("STREAMGAZE_PREFETCH", bad)
        with pytest.raises(evaluation.StreamGazeError, match="STREAMGAZE_PREFETCH"):
            RunSettings.from_env()


@pytest.fixture
def fresh_prefetch(monkeypatch, tmp_path):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "2")
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    prefetch.stop_prefetch()
    clips._clear_memos()
    yield tmp_path / "clips"
    prefetch.stop_prefetch()


def _no_building(monkeypatch):
    """From here on, building a clip or a salience map on the calling thread fails the test."""
    def refuse(*a, **k):
        raise AssertionError("built on the critical path")

    monkeypatch.setattr(clips, "_build", refuse)
    monkeypatch.setattr(shared_evaluation, "track_salience_map", refuse)


def test_doc_to_visual_is_a_cache_hit_after_prefetch(demo_dataset, fresh_prefetch, monkeypatch):
    from lmms_tasks import utils
    from tests.fixtures.task_glue import folder_glue

    glue = folder_glue("streamgaze")
    monkeypatch.setenv("STREAMGAZE_ROOT", str(demo_dataset))
    # what lmms-eval does: the documents come back as rows of the datasets.Dataset process_docs returns
    docs = list(glue.process_docs(utils.read_task_rows("streamgaze", "oi_easy")))
    sal = list(glue.process_docs_salience(utils.read_task_rows("streamgaze", "fap")))
    p = prefetch.current_prefetcher()
    assert p is not None
    assert p.wait_idle(timeout=300)
    assert p.stats.prepared == len({prefetch.doc_key(d) for d in docs + sal}) and p.stats.failed == 0
    _no_building(monkeypatch)
    import numpy as np
    from PIL import Image

    for d in docs + sal:
        visuals = utils.doc_to_visual(d)
        files = evaluation.doc_visuals(d)  # the very files doc_visuals gives (a cache hit)
        assert all(f.startswith(str(fresh_prefetch)) for f in files)
        assert len(visuals) == len(files) == (2 if d["gaze"] == "salience" else 1)
        assert visuals[-1] == files[-1]  # the clip path
        if d["gaze"] == "salience":  # the salience map reaches lmms-eval as a PIL image of the cached PNG
            assert isinstance(visuals[0], Image.Image)
            assert np.array_equal(np.asarray(visuals[0]), np.asarray(Image.open(files[0]).convert("RGB")))
    assert p.stats.misses == 0 and p.stats.hits == len(docs + sal)


def test_the_next_docs_are_ready_while_the_model_works(demo_dataset, fresh_prefetch):
    docs = evaluation.load_docs("sr", dataset=demo_dataset)[:4]
    p = prefetch.start_prefetch(docs)
    first = prefetch.prefetched_visuals(docs[0])
    for i in range(1, len(docs)):
        # the model works on doc i-1 ...
        assert _until(lambda i=i: p.is_done(prefetch.doc_key(docs[i])), timeout=120)
        assert prefetch.prefetched_visuals(docs[i]) == evaluation.doc_visuals(docs[i])
    assert first == evaluation.doc_visuals(docs[0])
    assert p.stats.hits >= len(docs) - 1
