"""One leaderboard shape (issue 31 item 6): a benchmark declares its layout and the shared code gives it its
own table, page section, chart decision, results columns and app table, without naming it."""

from __future__ import annotations

import re

import pytest

from streamgaze_hf.registry import _REGISTRY, get_benchmark, register

from ..fixtures import toy_benchmark


@pytest.fixture
def toy():
    bench = register(toy_benchmark.declaration())
    yield bench
    _REGISTRY.pop(bench.name)


def _scores() -> dict:
    return {"overall": 0.6, "columns": {"look": 0.7, "act": 0.5, "spot": 0.8, "track": 0.6, "reach": 0.5,
                                        "latency": 2.25},
            "coverage": {"answered": 9, "expected": 10, "fraction": 0.9},
            "tasks": {t: {"accuracy": 0.5, "n": 4, "n_missing": 0} for t in ("spot", "track", "reach")}}


def test_a_new_benchmark_gets_its_own_table(toy):
    from streamgaze_hf.leaderboard.service.app import tables_html
    from streamgaze_hf.leaderboard.service.results import result_row, results_files, results_sections, schema
    from streamgaze_hf.leaderboard.site import site_notes, site_title

    sub = {"settings": {"gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0},
           "model": {"name": "Toy <model>", "url": "", "params": "1B", "frames": "8"},
           "dataset": {"version": "1.0.0", "manifest_sha256": "0" * 64}, "run": {"harness": "lmms-eval",
                                                                              "harness_version": "0.7.3"}}
    row = result_row(toy, sub, _scores(), ("toybench-dataset-1.0.0", "ToyBench: dataset 1.0.0", "note"),
                     submitter="alice", pr_number=3, path="submissions/toybench/toy-model/20260101T000000Z.json")
    assert [n for n in schema(toy).names if n.startswith("score_")] == [
        "score_look", "score_act", "score_spot", "score_track", "score_reach", "score_latency"]
    assert (row["score_look"], row["score_latency"], row["lmms_eval_version"]) == (0.7, 2.25, "0.7.3")
    sections = [s for s in results_sections({"toybench": [row]}) if s.benchmark == "toybench"]
    assert [s.key for s in sections] == ["toybench-dataset-1.0.0", "toybench-reference"]
    keys = [c.key for c in sections[0].columns]
    assert keys[:10] == ["rank", "model", "source", "overall", "look", "act", "spot", "track", "reach", "latency"]
    assert (sections[0].rows[0].name, sections[0].rows[0].tasks["act"]) == ("Toy <model>", 0.5)
    assert site_title(["toybench"]) == "ToyBench board" and site_notes(["toybench"]) == ("ToyBench's own note.",)

    files = results_files({"toybench": [row]})
    page = files["site/index.html"].decode()
    assert 'data-benchmark="toybench"' in page and "Toy &lt;model&gt;" in page and "<model>" not in page
    assert 'data-label="Latency (s)"' in page and ">2.25<" in page  # its own unit, as declared
    assert "config_name: toybench\n" in files["README.md"].decode()
    assert "site/leaderboard-toybench.csv" in files

    html = tables_html(toy, [row])  # the app's tables: the page's renderer, one table per dataset
    labels = re.findall(r'data-label="([^"]+)"', html.split('<section class="dataset"')[1])
    # the toy row answered part of the questions: a partial run, not ranked, so the table has no rank column
    assert labels[:8] == ["Model", "Mean", "Look", "Act", "Spot", "Track", "Reach", "Latency (s)"]
    assert "partial run: " in html
    assert ">70.0<" in html and ">2.25<" in html and "Toy &lt;model&gt;" in html and "by @alice" in html


def test_streamgaze_declares_its_layout():
    """StreamGaze's category layout is its declaration, not the shared code's."""
    from streamgaze_hf.leaderboard.rows import benchmark_columns, chart_columns

    sg = get_benchmark("streamgaze")
    keys = [c.key for c in benchmark_columns(sg)]
    assert keys[:17] == ["rank", "model", "source", "overall", "past", "present", "proactive", "nfi", "otp", "gsm",
                         "sr", "oi_easy", "oi_hard", "oar", "fap", "gta", "oaa"]
    # its declared settings, then the recorded ones it does not declare (evaluation/recorded.py)
    assert keys[17:] == ["coverage", "dataset", "gaze", "prompt_mode", "clip_fps", "protocol", "frames", "params",
                         "by_source", "proxy", "model_ready", "efficiency"]
    assert [c.label for c in chart_columns(sg)][:3] == ["NFI", "OTP", "GSM"]
    assert sg.leaderboard.csv_name == "leaderboard.csv"
    assert not chart_columns(get_benchmark("vl4gaze"))  # mixed units: no per-task chart
