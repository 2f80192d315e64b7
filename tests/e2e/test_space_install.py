"""The Space folder installs without the toolkit on a package index (issue 38.5): ``leaderboard space`` writes the
toolkit's wheel into the folder, ``requirements.txt`` naming it with the ``[leaderboard]`` extra, and a Docker
Space's ``Dockerfile`` that copies the folder before installing it. Shown on a clean scratch venv: with uv offline,
the package index is the uv cache (the tested set, uv.lock's versions, put in first without dependencies: uv
cannot resolve offline from a cache that ``uv sync`` filled) and the folder; ``requirements.txt`` is installed
from inside the folder, and ``import app`` builds the Gradio app from the installed wheel, never from this clone.
The scratch venv's own ``leaderboard space`` (an installed wheel, no source tree) packs the same files again."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ..fixtures.cli_entry import REPO, streamgaze

pytestmark = pytest.mark.slow


def _uv() -> Path:
    for candidate in (Path(sys.executable).parent / "uv", REPO / ".venv" / ".uv" / "bin" / "uv"):
        if candidate.is_file():
            return candidate
    pytest.skip("no uv next to the test interpreter (make setup installs it)")


def _uv_env() -> dict:
    cache = os.environ.get("UV_CACHE_DIR") or str(Path(os.path.expanduser("~")) / ".cache" / "uv")
    if not Path(cache).is_dir():
        pytest.skip(f"no uv cache at {cache} (make setup fills it)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "UV_CACHE_DIR": cache, "UV_OFFLINE": "1", "UV_NO_CONFIG": "1"}


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert proc.returncode == 0, (cmd, proc.stdout[-2000:], proc.stderr[-3000:])
    return proc


def test_the_space_folder_installs_from_the_index_and_itself(tmp_path):
    space = tmp_path / "space"
    proc = streamgaze("leaderboard", "space", "--out", space, "--results", "org/results", "--requests", "org/requests",
                      tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [wheel] = sorted(space.glob("*.whl"))
    assert wheel.name == "streamgaze_toolkit-0.1.0-py3-none-any.whl"
    assert sorted(p.name for p in space.iterdir()) == sorted(["Dockerfile", "README.md", "app.py", "requirements.txt",
                                                             wheel.name])
    assert [ln for ln in (space / "requirements.txt").read_text().splitlines() if not ln.startswith("#")] == [
        f"./{wheel.name}[leaderboard]"]
    docker = (space / "Dockerfile").read_text().splitlines()
    assert docker.index("COPY --chown=user . .") < docker.index("RUN pip install --no-cache-dir --user -r "
                                                                 "requirements.txt")
    assert "sdk: docker\napp_port: 7860\n" in (space / "README.md").read_text()
    # the wheel holds every file of the packages (code and data), as the source tree has them
    packed = set(zipfile.ZipFile(wheel).namelist())
    source = {p.relative_to(REPO).as_posix() for top in ("streamgaze_hf", "lmms_tasks") for p in (REPO / top).rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert source - packed == set()

    uv, env = _uv(), _uv_env()
    venv = tmp_path / "scratch"
    _run([uv, "venv", "-q", venv, "--python", sys.executable], env=env)
    python = venv / "bin" / "python"
    pins = tmp_path / "pins.txt"  # uv.lock's versions of the base dependencies and the [leaderboard] extra
    _run([uv, "export", "--frozen", "--no-hashes", "--no-emit-project", "--extra", "leaderboard", "-q", "-o", pins],
         env=env, cwd=REPO)
    _run([uv, "pip", "install", "-q", "--no-deps", "--python", python, "-r", pins], env=env, cwd=tmp_path)
    installed = _run([uv, "pip", "install", "--python", python, "-r", "requirements.txt"], env=env, cwd=space)
    assert f"+ streamgaze-toolkit==0.1.0 (from file://{wheel})" in installed.stderr, installed.stderr[-2000:]

    code = ("import app, gradio, streamgaze_hf; print(streamgaze_hf.__file__); "
            "print(isinstance(app.demo, gradio.Blocks))")
    run_env = {**env, "RESULTS": "", "REQUESTS": "", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    out = _run([python, "-c", code], env=run_env, cwd=space).stdout.split()
    assert out[-2].startswith(str(venv)) and out[-1] == "True", out

    # from the installed wheel (no source tree): the same files, packed again
    again = tmp_path / "again"
    _run([venv / "bin" / "streamgaze", "leaderboard", "space", "--out", again], env=run_env, cwd=tmp_path)
    [rewheel] = sorted(again.glob("*.whl"))
    assert set(zipfile.ZipFile(rewheel).namelist()) == packed
