"""The benchmark contract (streamgaze_hf/registry/): every registered benchmark meets it, the declaration
helper derives the module references from the package name, every optional part is declared (never found by
its file), the optional hooks have their documented defaults, and the two lmms-eval glue modules agree on an
undefined metric (NaN)."""

from __future__ import annotations

import math
import random
import re
import sys
import types
from pathlib import Path

import pytest

from lmms_tasks import utils
from streamgaze_hf.evaluation import baselines
from streamgaze_hf.registry import (
    HOOKS,
    IMPORTER_KINDS,
    OPTIONAL_PARTS,
    PACKAGE_FILES,
    REQUIRED,
    EvaluationModule,
    LeaderboardColumn,
    Plugin,
    TaskDef,
    UnknownHook,
    benchmarks,
    declare,
    get_benchmark,
    package_ref,
    provide,
    resolve,
)

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "streamgaze_hf" / "benchmarks"


@pytest.mark.parametrize("bench", benchmarks(), ids=lambda b: b.name)
def test_every_benchmark_meets_the_contract(bench):
    plugin = bench.plugin()
    assert isinstance(plugin, Plugin) and plugin is bench.plugin() and plugin.benchmark is bench
    assert isinstance(plugin.evaluation_module, EvaluationModule)
    assert plugin.evaluation_module is resolve(bench.evaluation)
    assert set(bench.importers) <= set(IMPORTER_KINDS) and bench.importers
    assert set(bench.parts) <= set(OPTIONAL_PARTS)
    for ref in (bench.evaluation, bench.leaderboard.paper_rows, *bench.importers.values(), *bench.parts.values(),
                bench.dataset.qa_features, bench.dataset.validate_row, bench.dataset.file_paths,
                bench.dataset.card_intro, bench.dataset.card_sections):
        if ref:
            assert resolve(ref) is not None, ref


@pytest.mark.parametrize("bench", benchmarks(), ids=lambda b: b.name)
def test_every_package_keeps_each_job_in_the_same_file(bench):
    """The references are the conventional ones (PACKAGE_FILES), and those files exist; an optional part's file
    is there exactly when the package declares the part (a file alone adds nothing: parts are declared)."""
    package = f"streamgaze_hf.benchmarks.{bench.name}"
    declared = {"evaluation": bench.evaluation, "paper_rows": bench.leaderboard.paper_rows, **bench.importers,
                **bench.parts,
                "qa_features": bench.dataset.qa_features, "validate_row": bench.dataset.validate_row,
                "file_paths": bench.dataset.file_paths, "card_intro": bench.dataset.card_intro,
                "card_sections": bench.dataset.card_sections}
    for job, ref in declared.items():
        assert ref == package_ref(package, job)
        assert (PACKAGE_DIR / bench.name / f"{PACKAGE_FILES[job].split(':')[0]}.py").is_file()
    present = {part for part in OPTIONAL_PARTS if (PACKAGE_DIR / bench.name / f"{PACKAGE_FILES[part]}.py").is_file()}
    assert present == set(bench.parts)


def test_the_built_in_benchmarks_declare_their_parts():
    assert {b.name: tuple(b.parts) for b in benchmarks()} == {
        "streamgaze": ("cli", "leaderboard"), "egogazevqa": ("cli", "report"), "streameqa": ("cli", "report"),
        "vl4gaze": ("cli",)}


def test_checkpointed_tasks_and_lower_is_better_metrics_are_declared_by_the_benchmark():
    """The registry names no benchmark's concept: a benchmark declares which tasks are answered per checkpoint
    (StreamGaze's proactive ones) and which metrics are better lower (its alerts' error rates)."""
    sg = get_benchmark("streamgaze")
    assert sg.checkpointed_ids() == ("gta", "oaa") == tuple(t.id for t in sg.tasks_in("proactive"))
    assert sg.task("gta").kind == "checkpointed" and sg.task("nfi").kind == "mc"
    assert sg.metric_names("gta") == sg.metrics["checkpointed"] and sg.metric_names("nfi") == ("accuracy",)
    assert [m for m in sg.metric_set() if sg.lower_is_better(m)] == ["fpr", "fnr"]
    assert {b.name: b.checkpointed_ids() for b in benchmarks() if b.name != "streamgaze"} == {
        "egogazevqa": (), "streameqa": (), "vl4gaze": ()}
    assert not any(b.lower_is_better("fpr") for b in benchmarks() if b.name != "streamgaze")
    registry = (PACKAGE_DIR.parent / "registry").glob("*.py")
    assert not [p.name for p in registry if re.search(r"proactive|\bfpr\b|\bfnr\b", p.read_text(encoding="utf-8"))]


def test_importer_kinds_are_release_and_raw():
    assert IMPORTER_KINDS == ("release", "raw")
    kinds = {b.name: tuple(b.importers) for b in benchmarks()}
    assert kinds == {"streamgaze": ("release", "raw"), "egogazevqa": ("release", "raw"),
                     "streameqa": ("release",), "vl4gaze": ("raw",)}
    from streamgaze_hf.benchmarks.egogazevqa.build import build_dataset, build_egogazevqa
    from streamgaze_hf.benchmarks.vl4gaze.build import build_dataset as vl4gaze_build

    assert get_benchmark("egogazevqa").importer("raw") is build_dataset is build_egogazevqa
    assert get_benchmark("vl4gaze").importer("raw") is vl4gaze_build
    with pytest.raises(KeyError, match="streameqa has no importer 'raw'; importers: release"):
        get_benchmark("streameqa").importer("raw")


def _declared(**over):
    fields = dict(name="mybench", title="MyBench", paper="p", tasks=(), categories=(), gaze_variants={"": "none"},
                  metrics={"mc": ("accuracy",)}, root_env="MYBENCH_ROOT", default_root="mybench",
                  dataset={"dataset_name": "mybench", "pretty_name": "MyBench", "qa_sort_keys": ("question_id",)})
    fields.update(over)
    return declare("pkg.mybench", **fields)


def test_declare_derives_the_references_from_the_package_name():
    b = _declared(importers=("release", "raw"), parts=("report", "cli"))
    assert b.evaluation == "pkg.mybench.evaluation"
    assert b.leaderboard.paper_rows == "pkg.mybench.paper:paper_rows"
    assert dict(b.importers) == {"release": "pkg.mybench.release:import_release", "raw": "pkg.mybench.build:build_dataset"}
    assert dict(b.parts) == {"report": "pkg.mybench.report", "cli": "pkg.mybench.cli"}
    d = b.dataset
    assert (d.qa_features, d.validate_row, d.file_paths, d.card_intro, d.card_sections) == (
        "pkg.mybench.schema:QA_FEATURES", "pkg.mybench.schema:validate_row", "pkg.mybench.schema:file_paths",
        "pkg.mybench.card:intro", "pkg.mybench.card:sections")
    plain = _declared(leaderboard={"paper_rows": ""})
    assert plain.leaderboard.paper_rows == "" and plain.leaderboard.reference_rows() == []
    assert dict(plain.importers) == {"release": "pkg.mybench.release:import_release"} and dict(plain.parts) == {}
    with pytest.raises(ValueError, match="unknown importer kinds \\['annotations'\\]; kinds are release, raw"):
        _declared(importers=("annotations",))
    with pytest.raises(ValueError, match="unknown parts \\['report.py'\\]; parts are cli, report, leaderboard"):
        _declared(parts=("report.py",))


def test_declare_fills_the_leaderboard_layout():
    """No columns declared: one accuracy column per task; the title and CSV name from the benchmark's."""
    tasks = (TaskDef("a", "Task A", "x", "one image"), TaskDef("b", "Task B", "y", "one image"))
    board = _declared(tasks=tasks).leaderboard
    assert (board.page_title, board.csv_name) == ("MyBench leaderboard", "leaderboard-mybench.csv")
    assert [(c.key, c.label, c.title) for c in board.score_columns()] == [
        ("a", "Task A", "Task A (x): accuracy"), ("b", "Task B", "Task B (y): accuracy")]
    assert board.overall_column() == LeaderboardColumn("overall", "Overall", True, "unweighted mean of the task scores")
    own = _declared(tasks=tasks, leaderboard={"columns": (("overall", "Mean error", False), ("a", "A", False, "", 2,
                                                                                            "deg")),
                                              "page_title": "Mine", "settings": ("gaze",)}).leaderboard
    assert own.overall_column().label == "Mean error" and [c.key for c in own.score_columns()] == ["a"]
    assert (own.page_title, own.csv_name, own.settings) == ("Mine", "leaderboard-mybench.csv", ("gaze",))


def _evaluation_module(monkeypatch, **names) -> types.ModuleType:
    module = types.ModuleType("pkg.mybench.evaluation")
    for name, value in names.items():
        setattr(module, name, value)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


def test_a_module_without_a_required_function_is_refused(monkeypatch):
    module = _evaluation_module(monkeypatch, **{name: (lambda *a, **k: None) for name in REQUIRED["evaluation"]
                                                if name != "score_doc"})
    plugin = Plugin(_declared())  # nothing is imported until a part is used
    with pytest.raises(TypeError, match="pkg.mybench.evaluation of mybench lacks score_doc"):
        plugin.doc_prompt({})
    module.score_doc = lambda doc, response: {}
    provide(module.__name__, BREAKDOWN_KEYS=("source",))
    with pytest.raises(TypeError, match="declares BREAKDOWN_KEYS but no breakdown"):
        Plugin(_declared()).has_hook("breakdown")


def test_hooks_are_registered_explicitly(monkeypatch):
    """A hook counts only when its part registers it (``@hook``, ``provide``); a name that is not a hook is
    refused at registration, naming it and the hooks there are; a part that defines a hook's name without
    registering it, or registers another part's hook, is refused on first use (never silently the default)."""
    module = _evaluation_module(monkeypatch, **{name: (lambda *a, **k: None) for name in REQUIRED["evaluation"]})
    with pytest.raises(UnknownHook, match="unknown hook 'leaderboard_value' in pkg.mybench.evaluation; did you mean "
                                          "leaderboard_values or leaderboard_scores\\?; the hooks are leaderboard_scores, metric_value"):
        provide(module.__name__, leaderboard_value=lambda scores: {})
    with pytest.raises(UnknownHook, match="the hook 'HELP' of pkg.mybench.evaluation is a value, not function"):
        provide(module.__name__, HELP=lambda: "")
    with pytest.raises(UnknownHook, match="the hook 'breakdown' of pkg.mybench.evaluation is a function, not tuple"):
        provide(module.__name__, breakdown=("source",))
    assert not Plugin(_declared()).has_hook("metric_value")
    module.metric_value = lambda records, name: 1.0
    with pytest.raises(TypeError, match="pkg.mybench.evaluation of mybench defines metric_value without registering"):
        Plugin(_declared()).has_hook("metric_value")
    provide(module.__name__, metric_value=module.metric_value)
    assert Plugin(_declared()).metric_value([{}], "accuracy") == 1.0
    provide(module.__name__, HELP="not here")
    with pytest.raises(TypeError, match="pkg.mybench.evaluation of mybench registers HELP \\(a hook of the report "
                                        "part\\)"):
        Plugin(_declared()).has_hook("metric_value")


def test_optional_parts_are_declared_never_found(monkeypatch):
    """A part the declaration does not name is not looked for, even when its module exists; a declared one
    gives its hooks, a report without its required functions is refused."""
    _evaluation_module(monkeypatch, **{name: (lambda *a, **k: None) for name in REQUIRED["evaluation"]})
    report = types.ModuleType("pkg.mybench.report")
    monkeypatch.setitem(sys.modules, report.__name__, report)
    provide(report.__name__, HELP="MyBench per source")
    board = types.ModuleType("pkg.mybench.leaderboard")
    monkeypatch.setitem(sys.modules, board.__name__, board)
    provide(board.__name__, reference_section=lambda: ("k", "t", "n"))
    undeclared = Plugin(_declared())
    assert undeclared.report_help() is None and undeclared.reference_section() is None
    assert undeclared.importer_options("raw") is None and not undeclared.has_hook("HELP")
    declared = Plugin(_declared(parts=("report", "leaderboard")))
    assert declared.reference_section() == ("k", "t", "n") and declared.dataset_section({}) is None
    with pytest.raises(TypeError, match="report module pkg.mybench.report of mybench lacks run_breakdown, "
                                        "format_breakdown"):
        declared.report_help()
    report.run_breakdown = lambda run_dir: {"run": run_dir}
    report.format_breakdown = lambda result: f"<{result['run']}>"
    declared = Plugin(_declared(parts=("report",)))
    assert declared.report_help() == "MyBench per source" and declared.has_hook("HELP")
    assert declared.format_breakdown(declared.run_breakdown("r")) == "<r>"
    plain = types.ModuleType("pkg.mybench.report")
    plain.run_breakdown, plain.format_breakdown = report.run_breakdown, report.format_breakdown
    monkeypatch.setitem(sys.modules, plain.__name__, plain)
    assert Plugin(_declared(parts=("report",))).report_help() == "MyBench: breakdown of an lmms-eval run"


def _mc(task: str, correct: bool) -> dict:
    return {"benchmark": "streamgaze", "task": task, "correct": correct, "parsed": "A" if correct else "B"}


def _yes_no(parsed: str | None, label: str) -> dict:
    return {"benchmark": "streamgaze", "task": "gta", "parsed": parsed, "label": label, "checkpoint_index": 0}


def test_default_hooks():
    bench = get_benchmark("streamgaze")
    ev = bench.plugin()
    # StreamGaze scores a submission in its own layout (score_answers) and reads it (leaderboard_values), its
    # proactive items carry each metric's denominator (metric_records);
    # every other hook is the default
    assert [h for h in HOOKS if ev.has_hook(h)] == ["score_answers", "leaderboard_values", "metric_records",
                                                    "dataset_section", "reference_section", "RAW", "RELEASE"]
    assert set(HOOKS.values()) == {"evaluation", *OPTIONAL_PARTS}
    assert get_benchmark("egogazevqa").plugin().score_answers(None, {}, "default", 0.0) is None
    scores = ev.leaderboard_scores({"oi_easy": [_mc("oi_easy", True), _mc("oi_easy", False)],
                                    "nfi": [_mc("nfi", True)], "sr": []})
    assert scores["columns"]["oi_easy"] == 0.5 and scores["columns"]["nfi"] == 1.0
    assert scores["columns"]["sr"] is None and list(scores["columns"]) == list(bench.task_ids)
    assert scores["overall"] == 0.75  # the unweighted mean of the tasks with records
    assert ev.breakdowns([_mc("nfi", True)]) == {}
    assert ev.baseline_random_answer(random.Random(0), {"task": "nfi"}) is None
    # percent of the fraction; NaN when undefined, never 0 or 100
    assert ev.metric_value([_mc("nfi", True), _mc("nfi", False), _mc("nfi", True), _mc("nfi", True)],
                           "accuracy") == 75.0
    assert math.isnan(ev.metric_value([], "accuracy"))
    never_yes = [_yes_no("No", "Yes"), _yes_no("No", "No")]
    assert ev.metric_value(never_yes, "accuracy") == 50.0 and ev.metric_value(never_yes, "recall") == 0.0
    assert math.isnan(ev.metric_value(never_yes, "precision"))
    assert math.isnan(ev.metric_value([_mc("nfi", True)], "precision"))  # not a metric of the task


def test_hooks_of_the_modules_that_define_them():
    ego = get_benchmark("egogazevqa").plugin()
    assert ego.breakdown_keys == ("task", "source", "scenario", "activity")
    recs = [{**_mc("causal", True), "source": "egtea", "scenario": "", "activity": ""},
            {**_mc("causal", False), "source": "ego4d", "scenario": "", "activity": ""}]
    assert sorted(ego.breakdowns(recs)) == ["activity", "scenario", "source"]
    assert ego.breakdowns(recs)["source"]["egtea"]["accuracy"] == 1.0
    vl = get_benchmark("vl4gaze").plugin()
    assert vl.has_hook("metric_value") and vl.has_hook("baseline_random_answer")
    assert math.isnan(vl.metric_value([], "bleu"))


def test_the_glue_module_gives_the_benchmarks_metric_value_and_nan_when_undefined():
    """lmms_tasks/utils.py (the one glue of every task file) gives the benchmark's ``metric_value`` for
    the records, NaN for an undefined metric (never a made-up 0 or 100)."""
    from streamgaze_hf.registry import get_benchmark

    ev = get_benchmark("streamgaze").plugin()
    cases = {
        "never_yes": [_yes_no("No", "Yes"), _yes_no("No", "No")],
        "unparsed": [_yes_no(None, "No"), _yes_no(None, "Yes")],  # misses of their labels
        "no_yes_label": [_yes_no("No", "No"), _yes_no("No", "No")],
        "mixed": [_yes_no("Yes", "Yes"), _yes_no("Yes", "No"), _yes_no("No", "Yes"), _yes_no("No", "No")],
        "empty": [],
    }
    seen_nan = set()
    for label, items in cases.items():
        for name in ("accuracy", "precision", "recall", "f1", "fpr", "fnr"):
            a, b = utils.metric_value(items, name), ev.metric_value(items, name)
            assert (math.isnan(a) and math.isnan(b)) or a == b, (label, name, a, b)
            if math.isnan(a):
                seen_nan.add((label, name))
    assert {("never_yes", "precision"), ("no_yes_label", "recall"), ("no_yes_label", "f1"),
            ("empty", "accuracy")} <= seen_nan
    from tests.fixtures.task_glue import folder_glue

    glue = folder_glue("streamgaze")  # what the task files name: `aggregation: !function glue.aggregate_f1`
    assert glue.aggregate_f1(cases["mixed"]) == 50.0
    assert math.isnan(glue.aggregate_f1(cases["no_yes_label"]))


def test_random_baseline_keeps_the_shared_rule_without_a_hook():
    doc = {"benchmark": "streamgaze", "task": "oi_easy", "question_id": "q1", "checkpoint_index": -1,
           "options": ["a", "b", "c", "d"]}
    assert baselines.random_doc_answer(7, doc) == baselines.random_answer(7, "q1", -1, False, 4)
    proactive = {"benchmark": "streamgaze", "task": "gta", "question_id": "q2", "checkpoint_index": 3, "options": []}
    assert baselines.random_doc_answer(7, proactive) in ("Yes", "No")
    assert baselines.random_doc_answer(7, proactive) == baselines.random_answer(7, "q2", 3, True, 0)
