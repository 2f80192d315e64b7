"""The build report is never silent (issue 38.6), and a build needs no server (issue 38.7), through the installed
``streamgaze`` script on small demo-world recordings:

* every task with no question is listed with the recording's reason: the generator's rule that nothing met, the
  action labels FAP lacks, or no object names;
* ``build --objects none`` builds the tasks that need no object names (FAP, from the action labels) and reports the
  other nine as skipped;
* ``--vlm-api-key-env VAR`` is checked before any work: the back-end that uses it, the variable set, a variable's
  name (a key given in its place is refused without being shown).
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from streamgaze_hf.demo.world import generate_world

from ..fixtures.cli_entry import one_error_line, streamgaze
from ..fixtures.once import once_per_run

NAMED = ("nfi", "otp", "gsm", "sr", "oi_easy", "oi_hard", "oar", "gta", "oaa")
NO_NAMES = ("no object names (objects: none); name them with --objects vlm --vlm-url URL --vlm-model NAME, or "
            "--objects metadata --metadata CSV")


def _world(tmp_path_factory, seed: int, duration: float):
    return once_per_run(tmp_path_factory, f"test_build_report.world{seed}", lambda out: generate_world(
        out, n_videos=1, seed=seed, duration=duration, width=160, height=120, fps=8.0, progress=False)[0])


@pytest.fixture(scope="module")
def short_world(tmp_path_factory):
    """20 s: three tasks get no question (nothing met their rule)."""
    return _world(tmp_path_factory, 1, 20.0)


@pytest.fixture(scope="module")
def world_with_actions(tmp_path_factory):
    """40 s with four action labels: one FAP question without object names."""
    return _world(tmp_path_factory, 3, 40.0)


def test_every_task_without_questions_is_reported_with_its_reason(short_world, tmp_path):
    out = tmp_path / "ds"
    proc = streamgaze("build", "streamgaze", "--raw", short_world.parent, "--out", out, "--version", "0.1.0",
                      tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == str(out)
    vid = short_world.name
    report = [ln for ln in proc.stderr.splitlines() if not ln.startswith("build") and "%|" not in ln]
    assert report == [
        f"no questions for nfi: {vid}: no object in view but never looked at once three objects had been looked at",
        f"no questions for gsm: {vid}: no three looks in a row at three different objects",
        f"no questions for fap: {vid}: no action starting 1 to 60 s after a look"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["build"]["skipped_tasks"]) == ["fap", "gsm", "nfi"]


def test_objects_none_builds_the_tasks_that_need_no_names(world_with_actions, tmp_path):
    out = tmp_path / "ds"
    proc = streamgaze("build", "streamgaze", "--raw", world_with_actions.parent, "--objects", "none", "--out", out,
                      "--version", "0.1.0", tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    vid = world_with_actions.name
    report = [ln for ln in proc.stderr.splitlines() if not ln.startswith("build") and "%|" not in ln]
    assert report == [f"no questions for {t}: {vid}: {NO_NAMES}" for t in NAMED]
    fap = pq.read_table(out / "data" / "fap" / "test-00000-of-00001.parquet").to_pylist()
    assert len(fap) == 1 and fap[0]["question"] == "Based on the recent fixation pattern, what will the user do next?"
    assert len(set(fap[0]["options"])) == 4 and fap[0]["answer_text"] in fap[0]["options"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["build"]["object_backend"] == "none" and sorted(manifest["build"]["skipped_tasks"]) == sorted(NAMED)


def test_the_vlm_key_variable_is_checked_before_any_work(world_with_actions, tmp_path):
    raw, out = world_with_actions.parent, tmp_path / "ds"
    vlm = ("--objects", "vlm", "--vlm-url", "http://127.0.0.1:9/v1", "--vlm-model", "m")
    cases = {
        ("--objects", "none", "--vlm-api-key-env", "MY_KEY"):
            "--vlm-api-key-env is the vlm object back-end's key; --objects none calls no endpoint",
        (*vlm, "--vlm-api-key-env", "STREAMGAZE_TEST_UNSET_KEY"):
            "--vlm-api-key-env STREAMGAZE_TEST_UNSET_KEY: the environment variable STREAMGAZE_TEST_UNSET_KEY is not "
            "set (export the key in it first)",
        (*vlm, "--vlm-api-key-env", "sk-live-0123456789abcdef"):
            "--vlm-api-key-env takes the name of the environment variable that holds the key (letters, digits and _), "
            "not the key itself (what was given is not shown)",
    }
    for args, reason in cases.items():
        proc = streamgaze("build", "streamgaze", "--raw", raw, "--out", out, "--version", "0.1.0", *args, tmp=tmp_path)
        assert one_error_line(proc) == f"streamgaze build streamgaze: error: {reason}"
        assert "sk-live-0123456789abcdef" not in proc.stdout + proc.stderr
    assert not out.exists() and not (tmp_path / ".ds.work").exists()
