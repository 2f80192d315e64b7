"""The benchmark scripts are not run by the suite (minutes each), but they must keep importing:
a refactor of the library must not break them silently."""

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("name", ["overlay", "clips", "frames_to_model"])
def test_benchmark_script_imports(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None))
