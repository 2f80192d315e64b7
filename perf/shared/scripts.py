"""The timing scripts of perf/ as modules: they are files to run, not modules of a package, and some use another's
functions (the videos frames_to_model.py writes, model_ready.py's windows, model_wait.py's dataset)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PERF = Path(__file__).resolve().parents[1]


def load_script(name: str):
    """``perf/<name>.py`` as a module (its ``main`` is not run)."""
    spec = importlib.util.spec_from_file_location(f"perf_{name}", PERF / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
