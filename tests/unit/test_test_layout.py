"""The tests are laid out by kind (tests/unit, tests/integration, tests/e2e; shared helpers in
tests/fixtures), and every test path the docs and scripts name exists."""

from __future__ import annotations

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
