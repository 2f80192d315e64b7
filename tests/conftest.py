"""Shared fixtures: the synthetic demo world, generated once per test session (never the network)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def demo_world(tmp_path_factory):
    """Three 60-90 s demo videos (seed 0), the README demo's world at its default size."""
    from streamgaze_hf.demo.world import generate_world

    out = tmp_path_factory.mktemp("world")
    return generate_world(out, n_videos=3, seed=0)
