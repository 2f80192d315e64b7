"""The recorded settings, each declared once (evaluation/recorded.py; issue 52): what every document, record,
submission, results row and leaderboard row carries follows from the declaration."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from streamgaze_hf.evaluation.recorded import (
    SHARED,
    every_recorded_setting,
    record_settings,
    recorded_settings,
    row_settings,
    row_texts,
    settings_text,
    submission_settings,
)
from streamgaze_hf.evaluation.settings import RunSettings
from streamgaze_hf.registry import benchmarks, get_benchmark
from streamgaze_hf.submission.schema import settings_fields

ROOT = Path(__file__).resolve().parents[2]
SG, EGO, EQA = get_benchmark("streamgaze"), get_benchmark("egogazevqa"), get_benchmark("streameqa")


def test_run_settings_give_a_value_for_every_declared_setting_and_no_other(tmp_path):
    """``RunSettings.record`` knows exactly the declared settings: the shared ones and the options' recorded_as."""
    own = {o.recorded_as for b in benchmarks() for o in b.run_options if o.recorded_as and not o.secret}
    declared = set(SHARED) | own
    assert {s.name for s in every_recorded_setting()} <= declared
    assert RunSettings().record(sorted(declared - {"proxy"})).keys() == declared - {"proxy"}
    with pytest.raises(ValueError, match="not a recorded setting"):
        RunSettings().record(("frames_per_second",))


def test_each_benchmark_records_what_it_declares_in_its_order():
    assert [s.name for s in recorded_settings(SG)] == ["prompt_mode", "clip_fps", "protocol", "proxy", "model_ready"]
    assert [s.name for s in recorded_settings(EGO)] == ["prompt_mode", "visual_form"]
    assert [s.name for s in recorded_settings(EQA)] == ["prompt_mode", "clip_fps", "protocol", "model_ready"]
    visual = recorded_settings(EGO)[1]
    assert visual.allowed(EGO) == ("images", "clip") and visual.default == "images"  # from EgoGazeVQA's option


def test_an_undeclared_setting_name_is_refused():
    odd = dataclasses.replace(SG, recorded_settings=("prompt_mode", "fps_cap"))
    with pytest.raises(ValueError, match="streamgaze records 'fps_cap', which is neither a shared setting"):
        recorded_settings(odd)


def test_a_record_copies_its_documents_settings_with_the_defaults_of_older_documents():
    doc = {"prompt_mode": "reference", "clip_fps": 2.0, "protocol": "paper_api", "model_ready": "x/y v2"}
    assert record_settings(EQA, doc) == {"prompt_mode": "reference", "clip_fps": 2.0, "protocol": "paper_api",
                                         "model_ready": "x/y v2"}
    assert record_settings(SG, {"prompt_mode": "default", "clip_fps": 0.0}) == {
        "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default", "proxy": "", "model_ready": ""}


def test_a_submissions_settings_always_name_the_shared_ones_and_the_set_optional_ones():
    assert submission_settings(SG, "visual", {"prompt_mode": "default", "clip_fps": 0}) == {
        "gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default"}
    assert submission_settings(SG, "text", {"prompt_mode": "reference", "clip_fps": 1.5, "protocol": "paper_api",
                                            "proxy": "2fps-448px", "model_ready": "gpt4v/simple v2"}) == {
        "gaze": "text", "prompt_mode": "reference", "clip_fps": 1.5, "protocol": "paper_api", "proxy": "2fps-448px",
        "model_ready": "gpt4v/simple v2"}
    assert submission_settings(EGO, "none", {"prompt_mode": "default", "visual_form": "clip"}) == {
        "gaze": "none", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default", "visual_form": "clip"}


def test_the_schema_checks_each_setting_as_declared_for_its_benchmark():
    fields, optional = settings_fields(EGO)
    assert list(fields) == ["gaze", "prompt_mode", "clip_fps", "protocol", "visual_form"]
    assert optional == {"protocol", "visual_form"}
    assert fields["visual_form"]("clip") is None and fields["visual_form"]("video") is not None
    assert fields["protocol"]("paper_api") is None and fields["protocol"]("paper_x") is not None
    assert fields["clip_fps"](1.5) is None and fields["clip_fps"](-1) is not None
    sg_fields, _ = settings_fields(SG)
    assert "visual_form" not in sg_fields and sg_fields["model_ready"]("x" * 500) is None
    assert sg_fields["model_ready"]("x" * 501) is not None


def test_results_and_leaderboard_rows_name_every_setting():
    st = {"gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default"}
    assert [s.name for s in every_recorded_setting()] == ["prompt_mode", "clip_fps", "protocol", "proxy",
                                                         "model_ready", "visual_form"]
    assert row_settings(SG, st) == {"prompt_mode": "default", "clip_fps": 0.0, "protocol": "default", "proxy": "",
                                    "model_ready": "", "visual_form": ""}
    assert row_settings(EGO, {**st, "visual_form": "clip"})["visual_form"] == "clip"
    assert row_texts(SG, {**st, "clip_fps": 1.5}) == {"prompt_mode": "default", "clip_fps": "1.5",
                                                      "protocol": "default", "proxy": "full-rate",
                                                      "model_ready": "full-rate clips"}
    assert settings_text(SG, {**st, "clip_fps": 2.0, "proxy": "2fps-448px"}) == (
        "gaze visual, prompt mode default, clip fps cap 2 fps, protocol default, clips 2fps-448px, "
        "frames full-rate clips")
    assert settings_text(EGO, {**st, "gaze": "none", "visual_form": "clip"}) == (
        "gaze none, prompt mode default, clip fps cap none, protocol default, visual form clip")


def _strings(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_no_benchmarks_setting_is_named_in_shared_code():
    """A benchmark's own recorded setting (its option's ``recorded_as`` and variable) is named only in its package:
    the submission schema, the results dataset and the leaderboard take it from the declaration."""
    own = {o.recorded_as for b in benchmarks() for o in b.run_options if o.recorded_as}
    own |= {o.env for b in benchmarks() for o in b.run_options}
    shared = [p for p in sorted((ROOT / "streamgaze_hf").rglob("*.py")) if "benchmarks" not in p.parts]
    found = [f"{p.relative_to(ROOT)}: {s!r}" for p in shared for s in _strings(p) if s in own]
    assert own and found == []
