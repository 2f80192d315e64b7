"""The CLI answers at once: ``streamgaze --help``, ``--version`` and every ``<command> --help`` import none of
the heavy libraries (``datasets``, pandas, torch, lmms-eval, PyAV, Ray), measured with ``python -X importtime`` in a
fresh interpreter, and importing the package imports none of them either (issue 35 item 6; the wall time is
measured by perf/cli_startup.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from streamgaze_hf.cli import build_parser
from streamgaze_hf.cli.clidoc import _commands

#: the libraries whose import costs seconds on a busy 2-core machine
HEAVY = ("datasets", "pandas", "torch", "lmms_eval", "av", "ray")


def imported_modules(*args: str) -> set[str]:
    """Every module a fresh interpreter imports for ``python -X importtime ARGS`` (from its importtime lines)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "streamgaze_hf" in names or args[:1] == ("-c",), "importtime printed nothing: the check would pass blindly"
    return names


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def every_command() -> list[str]:
    """Every listed command and sub-command (``build streamgaze``, ``clips warm``, ``leaderboard sync``, ...)."""
    return [name.strip() for name, _, _ in _commands(build_parser(), "")]


def test_the_check_sees_a_heavy_import():
    """The measure can fail: importing the dataset loader's reader chain does import ``datasets``."""
    assert "datasets" in heavy(imported_modules("-c", "import streamgaze_hf.dataset.writer"))


def test_importing_the_package_imports_no_heavy_library():
    assert heavy(imported_modules("-c", "import streamgaze_hf")) == []
    assert heavy(imported_modules("-c", "import streamgaze_hf.registry; streamgaze_hf.registry.benchmarks()")) == []


@pytest.mark.parametrize("args", [("--help",), ("--version",)])
def test_top_level_help_and_version_import_no_heavy_library(args):
    assert heavy(imported_modules("-m", "streamgaze_hf", *args)) == []


def test_every_command_help_imports_no_heavy_library():
    names = every_command()
    assert {"eval", "build streamgaze", "import egogazevqa", "report streameqa", "stream-eval", "leaderboard sync",
            "clips warm", "review export", "publish"} <= set(names)
    offenders = {}
    for name in names:
        found = heavy(imported_modules("-m", "streamgaze_hf", *name.split(), "--help"))
        if found:
            offenders[name] = found[:5]
    assert offenders == {}, f"commands whose --help imports heavy libraries: {offenders}"
