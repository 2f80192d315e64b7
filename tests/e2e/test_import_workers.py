"""`import BENCH` with the executor options every verb has (util/executors.py, issue 53): the proxies and previews
made in worker processes are the in-process import's bytes. (On a Ray cluster: tests/e2e/test_ray_cluster.py, for a
build's proxies and previews.)"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
SG = str(Path(sys.executable).with_name("streamgaze"))


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_import_makes_its_proxies_and_previews_on_the_seam_with_the_same_bytes(tmp_path):
    """`import streamgaze --proxy-fps 2` with the options every verb has (`--workers 2`): the proxies and previews
    made in worker processes, the dataset the in-process import's byte for byte."""
    from perf.shared.release_fixture import make_release_fixture

    release = make_release_fixture(tmp_path / "release", tmp_path / "world")
    trees = {}
    for n in ("1", "2"):
        out = tmp_path / f"out{n}" / "sg"
        proc = subprocess.run([SG, "import", "streamgaze", str(release), "--out", str(out), "--version", "1.0.0",
                               "--proxy-fps", "2", "--workers", n], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TQDM_DISABLE": "1"})
        assert proc.returncode == 0, proc.stderr[-2000:]
        trees[n] = _tree(out)
    assert trees["2"] == trees["1"]
    assert sum(r.startswith("videos/proxy/") for r in trees["1"]) >= 2 and any("previews" in r for r in trees["1"])
