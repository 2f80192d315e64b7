"""The tests are laid out by kind (tests/unit, tests/integration, tests/e2e; shared helpers in
tests/fixtures, never imported from another test module), every test path the docs and scripts name exists, and
perf/ imports nothing from tests/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
KINDS = ("unit", "integration", "e2e")


def test_every_test_module_is_in_a_kind_directory():
    stray = sorted(p.relative_to(REPO).as_posix() for p in TESTS.rglob("test_*.py")
                   if p.relative_to(TESTS).parts[0] not in KINDS)
    assert stray == []
    for name in (*KINDS, "fixtures"):
        assert (TESTS / name / "__init__.py").is_file(), name
    helpers = {p.name for p in TESTS.glob("*.py")}
    assert helpers == {"__init__.py", "conftest.py"}  # helpers live in tests/fixtures


def test_test_paths_named_in_docs_and_scripts_exist():
    files = [REPO / "README.md", REPO / "Makefile", REPO / ".ci" / "run"]
    for folder in ("docs", "scripts", "perf", "streamgaze_hf", "lmms_tasks", "tests"):
        files += [p for p in (REPO / folder).rglob("*") if "__pycache__" not in p.parts]
    missing = []
    for path in files:
        if path.suffix not in (".md", ".py", ".sh", "") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in re.findall(r"\btests/[\w/.-]*\w", text):
            if not name.startswith("tests/data/") and not (REPO / name).exists():  # data: PROVENANCE.md
                missing.append(f"{path.relative_to(REPO)}: {name}")
    assert missing == []


# ---- who imports whom ----------------------------------------------------------------------------------------

#: a test module: tests/unit|integration|e2e/test_*.py (its dotted name)
TEST_MODULE = re.compile(r"^tests\.(unit|integration|e2e)\.test_\w+$")


def _imported_modules(path: Path, source: str, package: str) -> list[tuple[int, str]]:
    """Every module an ``import`` or ``from ... import`` of ``source`` names, at any depth (a function's lazy
    import too), as absolute dotted names: ``package`` is the file's package, for relative imports; a ``from
    PACKAGE import NAME`` also counts ``PACKAGE.NAME`` (which may be a module). Returns (line, module) pairs."""
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])


def imports_of_test_modules(path: Path, source: str) -> list[str]:
    """``path: line: module`` for each import of a test module or of tests/conftest.py (helpers live in
    tests/fixtures; pytest finds the fixtures of conftest.py by itself)."""
    bad = []
    for line, module in _imported_modules(path, source, _package_of(path)):
        if TEST_MODULE.match(module) or module == "tests.conftest":
            bad.append(f"{path.relative_to(REPO)}:{line}: {module}")
    return bad


def perf_imports_of_tests(path: Path, source: str) -> list[str]:
    """``path: line: module`` for each import of anything under tests/ (perf/ scripts run on a checkout as they are;
    what they share with the tests is perf/shared/, which the tests import)."""
    bad = {}
    for line, module in _imported_modules(path, source, _package_of(path)):
        if module == "tests" or module.startswith("tests."):
            bad.setdefault(line, f"{path.relative_to(REPO)}:{line}: {module}")  # one per statement
    return list(bad.values())


def _sources(folder: str) -> list[tuple[Path, str]]:
    return [(p, p.read_text(encoding="utf-8")) for p in sorted((REPO / folder).rglob("*.py"))
            if "__pycache__" not in p.parts]


def test_no_test_module_imports_another():
    bad = [b for path, source in _sources("tests") for b in imports_of_test_modules(path, source)]
    assert bad == []


def test_perf_imports_nothing_from_tests():
    bad = [b for path, source in _sources("perf") for b in perf_imports_of_tests(path, source)]
    assert bad == []


def test_the_import_checks_catch_each_form():
    """A probe: each way of importing a test module (relative, absolute, a sibling, a lazy one in a function,
    ``from PACKAGE import test_x``, conftest) is caught, and the imports of tests/fixtures and perf/shared are
    not; the same for perf/ importing tests/."""
    e2e = TESTS / "e2e" / "test_probe.py"
    caught = {
        "from ..unit.test_clips import write_source": "tests.unit.test_clips",
        "from tests.e2e.test_submission import x": "tests.e2e.test_submission",
        "import tests.integration.test_review": "tests.integration.test_review",
        "from .test_submission import x": "tests.e2e.test_submission",
        "def f():\n    from ..integration.test_review import GOOD": "tests.integration.test_review",
        "from ..unit import test_clips": "tests.unit.test_clips",
        "from ..conftest import run_lmms_eval": "tests.conftest",
    }
    for source, module in caught.items():
        line = source.count("\n") + 1
        assert imports_of_test_modules(e2e, source) == [f"{e2e.relative_to(REPO)}:{line}: {module}"], source
    for source in ("from ..fixtures.coded_clips import write_source", "from perf.shared.hub_stub import HubStub",
                   "from . import fixtures_are_not_tests", "import json"):
        assert imports_of_test_modules(e2e, source) == [], source
    script = REPO / "perf" / "probe.py"
    for source in ("from tests.fixtures.hub_stub import HubStub", "import tests.e2e.test_submission",
                   "def f():\n    from tests.e2e.test_submission import synthetic_submission"):
        assert len(perf_imports_of_tests(script, source)) == 1, source
    assert perf_imports_of_tests(script, "from perf.shared.synthetic import synthetic_submission") == []
