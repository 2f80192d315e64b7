"""Docs in code (issue 35 item 7): the public functions of the benchmark contract, the registry, the readers'
base class and the library entry points of the CLI's commands say what they take, give and raise
(Google-style ``Args:``, ``Returns:``, ``Raises:`` sections)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

#: modules every public function (and public method of a public class) of which is documented
CONTRACT_MODULES = ("streamgaze_hf.registry", "streamgaze_hf.registry.declarations", "streamgaze_hf.registry.references",
                    "streamgaze_hf.registry.hooks", "streamgaze_hf.registry.plugin",
                    "streamgaze_hf.registry.leaderboard_layout", "streamgaze_hf.registry.lmms",
                    "streamgaze_hf.registry.task_index",
                    "streamgaze_hf.gaze.sources.base")
#: the library functions the commands call ("module:function"): each also says what it raises
ENTRY_POINTS = (
    "streamgaze_hf.demo.world:generate_world", "streamgaze_hf.gaze.overlay:render_overlay_files",
    "streamgaze_hf.gaze.sources.registry:read_track", "streamgaze_hf.gaze.io:write_gaze_csv",
    "streamgaze_hf.dataset.stats:compute_stats", "streamgaze_hf.dataset.doctor:dataset_problems",
    "streamgaze_hf.dataset.publish:publish_dataset", "streamgaze_hf.dataset.writer:write_dataset",
    "streamgaze_hf.dataset.writer:dataset_destination", "streamgaze_hf.dataset.load:open_dataset",
    "streamgaze_hf.dataset.load:load_task", "streamgaze_hf.util.environment:environment_report",
    "streamgaze_hf.review:export_review", "streamgaze_hf.review:load_corrections",
    "streamgaze_hf.review:verification_stats", "streamgaze_hf.review.qa_review:load_qa_verdicts",
    "streamgaze_hf.harness.checks:plan_tasks", "streamgaze_hf.harness.checks:run_checked",
    "streamgaze_hf.harness.run:run_lmms_eval", "streamgaze_hf.harness.run:prepare_files",
    "streamgaze_hf.harness.files:prepare_run_files", "streamgaze_hf.evaluation.warm:warm_clips",
    "streamgaze_hf.video.cache_admin:cache_stats", "streamgaze_hf.video.cache_admin:prune_cache",
    "streamgaze_hf.submission.build:build_submission", "streamgaze_hf.submission.build:write_submission",
    "streamgaze_hf.submission.validate:validate_submission", "streamgaze_hf.submission.compare:compare_submissions",
    "streamgaze_hf.submission.answer_key:load_answer_key", "streamgaze_hf.submission.answer_key:score_responses",
    "streamgaze_hf.submission.lmms_output:read_run", "streamgaze_hf.leaderboard.site:write_leaderboard",
    "streamgaze_hf.benchmarks.streamgaze.build:build_dataset", "streamgaze_hf.benchmarks.streamgaze.release:import_release",
    "streamgaze_hf.benchmarks.streamgaze.streaming.runner:stream_eval",
    "streamgaze_hf.benchmarks.streamgaze.sft_export:export_sft",
    "streamgaze_hf.benchmarks.streamgaze.official:import_official_results",
)


def _sections(fn) -> set[str]:
    doc = inspect.getdoc(fn) or ""
    return {line.strip().rstrip(":") for line in doc.splitlines() if line.strip() in ("Args:", "Returns:", "Raises:",
                                                                                       "Yields:")}


def _needs(fn, raises: bool) -> set[str]:
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters if p not in ("self", "cls")]
    need = set()
    if params:
        need.add("Args")
    ret = sig.return_annotation
    if ret not in (inspect.Signature.empty, None, "None") and not (inspect.isgeneratorfunction(fn)):
        need.add("Returns")
    if raises:
        need.add("Raises")
    return need


def _public(module) -> list[tuple[str, object]]:
    out = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            out.append((name, obj))
        elif inspect.isclass(obj):
            for mname, member in vars(obj).items():
                if not mname.startswith("_") and inspect.isfunction(member):
                    out.append((f"{name}.{mname}", member))
    return out


@pytest.mark.parametrize("module_name", CONTRACT_MODULES)
def test_the_contract_is_documented(module_name):
    module = importlib.import_module(module_name)
    missing = {name: sorted(_needs(fn, False) - _sections(fn)) for name, fn in _public(module)}
    assert {k: v for k, v in missing.items() if v} == {}


def test_the_commands_library_entry_points_are_documented():
    missing = {}
    for ref in ENTRY_POINTS:
        module, _, name = ref.partition(":")
        fn = getattr(importlib.import_module(module), name)
        lacking = sorted(_needs(fn, True) - _sections(fn))
        if lacking:
            missing[ref] = lacking
    assert missing == {}


def test_the_check_reads_sections():
    def documented(a: int) -> int:
        """Twice ``a``.

        Args:
            a: a number.

        Returns:
            ``2 * a``.

        Raises:
            ValueError: never.
        """
        return 2 * a

    def bare(a: int) -> int:
        """Twice ``a``."""
        return 2 * a

    assert _needs(documented, True) - _sections(documented) == set()
    assert _needs(bare, True) - _sections(bare) == {"Args", "Returns", "Raises"}
    assert Path(__file__).name == "test_docs_in_code.py" and ast  # the module parses


def test_the_architecture_map_names_every_shared_module():
    """docs/architecture.md is the map of the code: every module of the shared packages and of the lmms-eval
    glue is named there (a benchmark package is a plug-in with its own page)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", (root / "docs" / "architecture.md").read_text(encoding="utf-8")))
    unnamed = [p.relative_to(root).as_posix() for folder in ("streamgaze_hf", "lmms_tasks")
               for p in sorted((root / folder).rglob("*.py"))
               if p.name != "__init__.py" and "__pycache__" not in p.parts and "benchmarks" not in p.parts
               and not p.is_relative_to(root / "lmms_tasks" / "tasks") and p.stem not in words]
    assert unnamed == []
