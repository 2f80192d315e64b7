"""Modules split by job keep their public face: ``streamgaze_hf.scoring`` re-exports every name of its
submodules, and the review pages' assets are package data (an installed wheel has them)."""

from __future__ import annotations

import fnmatch
import importlib
from pathlib import Path

import pytest

from streamgaze_hf import scoring
from streamgaze_hf.review import page, qa_review

ROOT = Path(__file__).resolve().parents[2]


def test_scoring_keeps_its_public_names():
    names = set(scoring.__all__)
    assert {"parse_choice", "parse_yes_no", "summarize", "proactive_metrics", "parse_direction", "rouge_l",
            "corpus_bleu", "OUTSIDE", "exact_match_correct"} <= names
    owners = {}
    for sub in ("parsers", "metrics", "summary", "gaze_following", "text_similarity"):
        module = importlib.import_module(f"streamgaze_hf.scoring.{sub}")
        for name in module.__all__:
            assert getattr(scoring, name) is getattr(module, name)
            owners.setdefault(name, sub)
    assert set(owners) == names  # each public name lives in exactly one job's module


def test_review_assets_are_package_data():
    tomllib = pytest.importorskip("tomllib")
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["streamgaze_hf.review"]
    assets = sorted((ROOT / "streamgaze_hf" / "review" / "assets").iterdir())
    assert [p.name for p in assets] == ["qa_review.css", "qa_review.js", "qa_review_guide.html", "review.css",
                                        "review.js", "review_guide.html"]
    for p in assets:
        assert any(fnmatch.fnmatch(f"assets/{p.name}", pattern) for pattern in package_data), p.name
    assert page.asset("review.js") == (ROOT / "streamgaze_hf/review/assets/review.js").read_text(encoding="utf-8")
    assert page._JS.lstrip().startswith("(function () {") and "review-data" in page._JS
    assert qa_review._QA_CSS.startswith("\n.qa{") and qa_review._CSS is page._CSS


def test_the_benchmark_contract_covers_every_shared_package():
    """The forbidden contract of .importlinter (no shared module names a benchmark package) lists every
    top-level package but ``benchmarks`` (which holds only benchmark plug-ins): a new package is checked from
    its first line, and a new benchmark needs no line."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / ".importlinter")
    contract = cfg["importlinter:contract:benchmarks-by-registry"]
    listed = set(contract["source_modules"].split())
    pkg = ROOT / "streamgaze_hf"
    shared = {f"streamgaze_hf.{p.name}" for p in pkg.iterdir() if (p / "__init__.py").is_file()} - {
        "streamgaze_hf.benchmarks"}
    assert shared | {"lmms_tasks"} == listed
    assert contract["forbidden_modules"].split() == ["streamgaze_hf.benchmarks"]


def test_nothing_loose_at_the_top_of_the_package():
    """The top level holds packages whose names say their job, and nothing loose but ``__init__`` and
    ``__main__`` (docs/architecture.md)."""
    loose = sorted(p.name for p in (ROOT / "streamgaze_hf").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]
