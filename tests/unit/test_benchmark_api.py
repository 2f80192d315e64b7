"""The benchmark contract (streamgaze_hf/registry/contract.py): every registered benchmark meets it, the
declaration helper derives the module references from the package name, the optional hooks have their
documented defaults, and the two lmms-eval glue modules agree on an undefined metric (NaN)."""

from __future__ import annotations

import math
import random
import types
from pathlib import Path

import pytest

from lmms_tasks import utils
from streamgaze_hf.evaluation import baselines
from streamgaze_hf.registry import (
    IMPORTER_KINDS,
    Evaluation,
    EvaluationModule,
    benchmarks,
    declare,
    get_benchmark,
    resolve,
)
from streamgaze_hf.registry.contract import HOOKS, PACKAGE_FILES, REQUIRED, package_ref

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "streamgaze_hf" / "benchmarks"


@pytest.mark.parametrize("bench", benchmarks(), ids=lambda b: b.name)
def test_every_benchmark_meets_the_contract(bench):
    module = bench.evaluation_module()
    assert isinstance(module, EvaluationModule)
    ev = bench.evaluation_api()
    assert isinstance(ev, Evaluation) and ev.module is module and ev is bench.evaluation_api()
    assert set(bench.importers) <= set(IMPORTER_KINDS) and bench.importers
    for ref in (bench.evaluation, bench.paper_rows, *bench.importers.values(), bench.dataset.qa_features,
                bench.dataset.validate_row, bench.dataset.file_paths, bench.dataset.card_intro,
                bench.dataset.card_sections):
        if ref:
            assert resolve(ref) is not None, ref


@pytest.mark.parametrize("bench", benchmarks(), ids=lambda b: b.name)
def test_every_package_keeps_each_job_in_the_same_file(bench):
    """The references are the conventional ones (PACKAGE_FILES), and those files exist."""
    package = f"streamgaze_hf.benchmarks.{bench.name}"
    declared = {"evaluation": bench.evaluation, "paper_rows": bench.paper_rows, **bench.importers,
                "qa_features": bench.dataset.qa_features, "validate_row": bench.dataset.validate_row,
                "file_paths": bench.dataset.file_paths, "card_intro": bench.dataset.card_intro,
                "card_sections": bench.dataset.card_sections}
    for job, ref in declared.items():
        assert ref == package_ref(package, job)
        assert (PACKAGE_DIR / bench.name / f"{PACKAGE_FILES[job].split(':')[0]}.py").is_file()


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
    b = _declared(importers=("release", "raw"))
    assert b.evaluation == "pkg.mybench.evaluation"
    assert b.paper_rows == "pkg.mybench.paper:paper_rows"
    assert dict(b.importers) == {"release": "pkg.mybench.release:import_release", "raw": "pkg.mybench.build:build_dataset"}
    d = b.dataset
    assert (d.qa_features, d.validate_row, d.file_paths, d.card_intro, d.card_sections) == (
        "pkg.mybench.schema:QA_FEATURES", "pkg.mybench.schema:validate_row", "pkg.mybench.schema:file_paths",
        "pkg.mybench.card:intro", "pkg.mybench.card:sections")
    plain = _declared(paper_rows="")
    assert plain.paper_rows == ""
    assert dict(plain.importers) == {"release": "pkg.mybench.release:import_release"}
    with pytest.raises(ValueError, match="unknown importer kinds \\['annotations'\\]; kinds are release, raw"):
        _declared(importers=("annotations",))


def test_a_module_without_a_required_function_is_refused():
    module = types.ModuleType("pkg.mybench.evaluation")
    for name in REQUIRED:
        if name != "score_doc":
            setattr(module, name, lambda *a, **k: None)
    with pytest.raises(TypeError, match="pkg.mybench.evaluation of mybench lacks score_doc"):
        Evaluation(_declared(), module)
    module.score_doc = lambda doc, response: {}
    module.BREAKDOWN_KEYS = ("source",)
    with pytest.raises(TypeError, match="declares BREAKDOWN_KEYS but no breakdown"):
        Evaluation(_declared(), module)


def _mc(task: str, correct: bool) -> dict:
    return {"benchmark": "streamgaze", "task": task, "correct": correct, "parsed": "A" if correct else "B"}


def _yes_no(parsed: str | None, label: str) -> dict:
    return {"benchmark": "streamgaze", "task": "gta", "parsed": parsed, "label": label, "checkpoint_index": 0}


def test_default_hooks():
    bench = get_benchmark("streamgaze")
    ev = bench.evaluation_api()
    # StreamGaze scores a submission in its own layout (score_answers) and reads it (leaderboard_values), its
    # proactive items carry each metric's denominator (metric_records);
    # every other hook is the default
    assert [h for h in HOOKS if ev.has_hook(h)] == ["score_answers", "leaderboard_values", "metric_records"]
    assert get_benchmark("egogazevqa").evaluation_api().score_answers(None, {}, "default", 0.0) is None
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
    ego = get_benchmark("egogazevqa").evaluation_api()
    assert ego.breakdown_keys == ("task", "source", "scenario", "activity")
    recs = [{**_mc("causal", True), "source": "egtea", "scenario": "", "activity": ""},
            {**_mc("causal", False), "source": "ego4d", "scenario": "", "activity": ""}]
    assert sorted(ego.breakdowns(recs)) == ["activity", "scenario", "source"]
    assert ego.breakdowns(recs)["source"]["egtea"]["accuracy"] == 1.0
    vl = get_benchmark("vl4gaze").evaluation_api()
    assert vl.has_hook("metric_value") and vl.has_hook("baseline_random_answer")
    assert math.isnan(vl.metric_value([], "bleu"))


def test_the_glue_module_gives_the_benchmarks_metric_value_and_nan_when_undefined():
    """lmms_tasks/utils.py (the one glue of every task file) gives the benchmark's ``metric_value`` for
    the records, NaN for an undefined metric (never a made-up 0 or 100)."""
    from streamgaze_hf.registry import get_benchmark

    ev = get_benchmark("streamgaze").evaluation_api()
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
