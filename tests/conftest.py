"""Shared fixtures: the synthetic demo world and dataset, generated once per test run (never the network; shared by
the pytest-xdist workers: tests/fixtures/once.py), and the isolation of every cache from the user's home
(:func:`isolated_caches`)."""

from __future__ import annotations

import os

import pytest

# the asserts of the helpers in tests/fixtures report their values as a test's own do (before their first import)
pytest.register_assert_rewrite("tests.fixtures")

from .fixtures.browser import browser  # noqa: E402, F401  (the headless Chromium fixture of the browser tests)
from .fixtures.home_guard import isolate_caches  # noqa: E402
from .fixtures.lmms_run import run_lmms_eval  # noqa: E402
from .fixtures.once import once_per_run  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

# Set when pytest imports this file, before any test module imports `datasets` (which reads HF_HOME
# once, at import) and before any subprocess starts: every child inherits the temporary home and caches.
_CACHES = isolate_caches()


@pytest.fixture(scope="session", autouse=True)
def isolated_caches():
    """The session's temporary home and caches (HOME, HF_HOME, HF_DATASETS_CACHE, XDG_CACHE_HOME, the clip and VLM
    caches, ...: ``perf/shared/caches.CACHE_VARIABLES``), checked for in every test; at the end of the session it
    fails when a test process, or a Python process it started, wrote under the real home's ``.cache``, ``.config``
    or ``~`` itself (tests/fixtures/home_guard.py; what other programs write there meanwhile is not counted)."""
    for name, value in _CACHES.env.items():
        assert os.environ.get(name) == value, f"{name} is not the session's temporary cache"
    yield _CACHES
    wrote = _CACHES.home_writes()
    _CACHES.cleanup()
    if wrote:
        pytest.fail(f"the tests wrote under the real home {_CACHES.real_home}: " + "; ".join(wrote[:10]),
                    pytrace=False)


@pytest.fixture(scope="session")
def demo_world(tmp_path_factory):
    """Three 60-90 s demo videos (seed 0), the README demo's world at its default size (built once per run:
    tests/fixtures/once.py)."""
    from streamgaze_hf.demo.world import generate_world

    return once_per_run(tmp_path_factory, "demo_world", lambda out: generate_world(out, n_videos=3, seed=0))


@pytest.fixture(scope="session")
def demo_dataset(demo_world, tmp_path_factory):
    """The demo dataset built from ``demo_world`` through the raw pipeline (version 0.1.0; once per run, its
    recordings in 2 processes: the bytes do not depend on the number of workers). The build's work directory is
    kept beside it (:func:`demo_build_work`)."""
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset

    raw = demo_world[0].parent
    return once_per_run(tmp_path_factory, "demo_dataset",
                        lambda out: build_dataset(raw, out / "streamgaze", "0.1.0", workers=2, keep_work=True))


@pytest.fixture(scope="session")
def demo_build_work(demo_dataset):
    """The demo dataset build's work directory: each demo recording's finished pipeline results (the build's
    resume state), so a test that runs the pipeline on the demo world again (``process_recording``, a build with
    other output options) finds them done instead of redoing them. Read-only: a build that writes into its work
    directory gets a copy."""
    return demo_dataset.parent / ".streamgaze.work"


@pytest.fixture(scope="session")
def demo_random_run(demo_dataset, tmp_path_factory):
    """The random baseline's real lmms-eval run on every task of the demo dataset (seed 0; once per run): its
    output folder, results and samples (``run_lmms_eval``). Tests that change a run copy it first."""
    def run(out):
        proc, results, samples = run_lmms_eval(["--model", "streamgaze_random", "--model_args", "seed=0", "--tasks",
                                                "streamgaze"], demo_dataset, out)
        assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
        return out, results, samples

    return once_per_run(tmp_path_factory, "demo_random_run", run)
