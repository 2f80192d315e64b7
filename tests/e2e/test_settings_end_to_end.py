"""Every setting a run records reaches its submission, its results row and its leaderboard row (issue 52).

For every registered benchmark, one ``streamgaze eval`` run (the installed script, a separate process, the real
lmms-eval) sets every setting the benchmark records (``Benchmark.recorded_settings``, declared in
``evaluation/recorded.py``) to a value other than its default, and runs a gaze variant other than the plain one;
where the benchmark records model-ready frames, that run is of lmms-eval's gpt4v wrapper against a loopback
OpenAI-compatible stub (a wrapper the toolkit makes them for), else of the random baseline. Each run then goes through ``streamgaze submit`` and all of them through one
``streamgaze leaderboard``: the submission's ``settings``, the results dataset's row (``result_row``) and the
leaderboard's CSV row must each name the value the run used. A setting declared without a way to set it here
fails the test, so a new one is covered when it is added.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from streamgaze_hf.evaluation.protocols import PROTOCOLS
from streamgaze_hf.evaluation.recorded import recorded_settings
from streamgaze_hf.registry import Benchmark, benchmarks, get_benchmark

from ..fixtures.cli_entry import streamgaze
from ..fixtures.openai_stub_server import stub_server as serve_stub

pytestmark = pytest.mark.slow

PROXY = "2fps-448px"


@dataclass
class Run:
    """One ``streamgaze eval`` run of a benchmark: what it sets and what every output must then name."""

    bench: Benchmark
    root: Path
    tasks: str
    model: list[str]
    eval_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    expected: dict[str, object] = field(default_factory=dict)


def _other(values, default):
    return next(v for v in values if v != default)


def _set(run: Run, name: str) -> None:
    """Set the recorded setting ``name`` of ``run`` to a value other than its default, and expect it."""
    bench = run.bench
    if name == "prompt_mode":
        value = _other(bench.prompt_modes, "default")
        run.eval_args += ["--prompt-mode", value]
    elif name == "clip_fps":
        value = 1.5
        run.eval_args += ["--clip-fps", "1.5"]
    elif name == "protocol":
        value = _other(PROTOCOLS, "default")
        run.eval_args += ["--protocol", value]
    elif name == "proxy":
        value = PROXY
        run.eval_args += ["--proxy", PROXY]
    elif any(o.recorded_as == name for o in bench.run_options):  # a benchmark's own option, set by its variable
        option = next(o for o in bench.run_options if o.recorded_as == name)
        value = _other(option.choices, option.default)
        run.env[option.env] = value
    else:
        raise AssertionError(f"{bench.name} records {name!r}, which this test cannot set yet: add it here")
    run.expected[name] = value


@pytest.fixture(scope="module")
def stub_server(tmp_path_factory):
    with serve_stub(tmp_path_factory.mktemp("stub")) as url:
        yield url


@pytest.fixture(scope="module")
def roots(demo_world, demo_build_work, tmp_path_factory) -> dict[str, Path]:
    """A dataset of every registered benchmark; StreamGaze's with proxies (its build resumes from a copy of the
    demo build's work directory)."""
    from streamgaze_hf.benchmarks.egogazevqa.release import import_release as import_ego
    from streamgaze_hf.benchmarks.streameqa.release import import_release as import_eqa
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset
    from streamgaze_hf.video.proxy import ProxySpec

    from ..fixtures.egogazevqa_fixture import write_release as write_ego
    from ..fixtures.streameqa_fixture import write_release as write_eqa
    from ..fixtures.vl4gaze_fixture import build_world_dataset

    base = tmp_path_factory.mktemp("settings_e2e")
    shutil.copytree(demo_build_work, base / ".streamgaze.work")
    out = {"streamgaze": build_dataset(demo_world[0].parent, base / "streamgaze", "0.1.0",
                                       proxy=ProxySpec.parse(PROXY))}
    import_ego(write_ego(base / "ego_release"), base / "egogazevqa", "1.0.0", progress=False)
    release = write_eqa(base / "eqa_release", gaze=True)
    import_eqa(release, base / "streameqa", "1.0.0", gaze_dir=release / "gaze", progress=False)
    out.update(egogazevqa=base / "egogazevqa", streameqa=base / "streameqa")
    out["vl4gaze"] = build_world_dataset(base / "vl4gaze")[1].root
    assert set(out) == {b.name for b in benchmarks()}, "a registered benchmark without a dataset here"
    return {k: Path(v) for k, v in out.items()}


def _runs(roots: dict[str, Path], stub: str) -> list[Run]:
    """One run per benchmark: the random baseline, or, where the benchmark records model-ready frames, lmms-eval's
    gpt4v wrapper against the loopback stub (a wrapper the toolkit makes model-ready frames for)."""
    runs = []
    for bench in benchmarks():
        task_id = bench.task_ids[0]
        suffix, gaze = next(((s, g) for s, g in bench.gaze_variants.items() if s), ("", bench.plain_gaze))
        run = Run(bench, roots[bench.name], bench.lmms_task_name(task_id, gaze),
                  ["--model", "streamgaze_random", "--model_args", "seed=1"],
                  env={"VL4GAZE_JUDGE_URL": "", "VL4GAZE_JUDGE_MODEL": ""}, expected={"gaze": gaze})
        if "model_ready" in bench.recorded_settings:
            run.model = ["--model", "gpt4v", "--model_args", "model_version=stub,max_frames_num=4"]
            run.env.update(OPENAI_BASE_URL=stub, OPENAI_API_KEY="stub", API_TYPE="openai")
            run.expected["model_ready"] = "gpt4v/simple"
        for s in recorded_settings(bench):
            if s.name != "model_ready":
                _set(run, s.name)
        runs.append(run)
    return runs


@pytest.fixture(scope="module")
def submitted(roots, stub_server, tmp_path_factory):
    """Each run's submission (path, JSON) and the leaderboard site made of all of them."""
    base = tmp_path_factory.mktemp("settings_runs")
    done = []
    for i, run in enumerate(_runs(roots, stub_server)):
        out = base / f"run{i}"
        proc = streamgaze("eval", "--benchmark", run.bench.name, "--root", run.root, *run.eval_args, "--",
                          *run.model, "--tasks", run.tasks, "--limit", "2", "--log_samples", "--output_path", out,
                          tmp=base / f"cache{i}", env=run.env, timeout=900)
        assert list(out.rglob("*_results.json")), (run.bench.name, run.expected, proc.stderr[-3000:])
        sub = base / f"sub{i}.json"
        proc = streamgaze("submit", out, "--dataset", run.root, "--model-name", f"Run {i}", "--out", sub,
                          tmp=base / f"cache{i}")
        assert proc.returncode == 0, (run.bench.name, run.expected, proc.stderr[-3000:])
        done.append((run, sub, json.loads(sub.read_text())))
    site = base / "site"
    dataset_args = [a for name, root in roots.items() for a in ("--dataset", root)]
    proc = streamgaze("leaderboard", *(s for _, s, _ in done), *dataset_args, "--out", site, "--no-paper-rows",
                      tmp=base / "cache-site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return done, site


def _matches(name: str, got, expected) -> bool:
    if name == "model_ready":  # the wrapper's frames: "<wrapper>/<kind> k=v ... v<plan version>"
        return isinstance(got, str) and got.split()[0] == expected
    return got == expected


def _csv_rows(site: Path, bench: Benchmark) -> dict[str, dict]:
    with open(site / bench.leaderboard.csv_name, newline="", encoding="utf-8") as fh:
        return {r["model"]: r for r in csv.DictReader(fh)}


def test_every_recorded_setting_of_every_benchmark_is_set_by_a_run(submitted):
    done, _ = submitted
    for bench in benchmarks():
        covered = {name for run, _, _ in done if run.bench is bench for name in run.expected}
        assert covered == {"gaze", *bench.recorded_settings}, bench.name


def test_the_submission_and_the_results_row_name_each_value_used(submitted):
    from streamgaze_hf.leaderboard.service.results import result_row
    from streamgaze_hf.submission import validate_submission

    done, _ = submitted
    checked = 0
    for run, path, sub in done:
        assert sub["benchmark"] == run.bench.name
        report = validate_submission(path, run.root)
        row = result_row(run.bench, report.submission, report.scores, ("s", "S", ""), submitter="me", pr_number=1,
                         path="submissions/x.json")
        for name, value in run.expected.items():
            assert _matches(name, sub["settings"][name], value), (run.bench.name, name, sub["settings"])
            assert _matches(name, row[name], value), (run.bench.name, name, row[name])
            checked += 1
    assert checked >= 14


def test_the_leaderboard_row_names_each_value_used(submitted):
    done, site = submitted
    for run, _, sub in done:
        row = _csv_rows(site, run.bench)[sub["model"]["name"]]
        columns = {s.name: s for s in recorded_settings(run.bench)}
        for name, value in run.expected.items():
            shown = row[name]  # the CSV's columns are named by key: a setting's by its name
            expected = value if name in ("gaze", "model_ready") else columns[name].text(value)
            assert _matches(name, shown, expected), (run.bench.name, name, shown, expected)


def test_a_streameqa_run_capped_and_on_a_protocol_is_submitted_as_such(submitted):
    """The fault the issue found: StreamEQA's records left ``clip_fps`` and ``protocol`` out, so its submission
    said ``clip_fps 0.0`` and ``protocol default`` whatever the run used."""
    done, _ = submitted
    eqa = get_benchmark("streameqa")
    sub = next(sub for run, _, sub in done if run.bench is eqa and "clip_fps" in run.expected)
    assert sub["settings"]["clip_fps"] == 1.5 and sub["settings"]["protocol"] != "default"
