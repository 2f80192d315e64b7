"""The README's test command fails when the main job is broken (issue 30): one real lmms-eval evaluation
through the installed ``streamgaze eval`` on a small task of the demo dataset, checked through the files
lmms-eval writes (it exits 0 on many failures). A fresh install with filelock 4 failed every evaluation
while ``make test`` stayed green; this test goes red then and its message carries lmms-eval's own cause.
"""

from __future__ import annotations

import json
import re
from importlib import metadata

import datasets
import pytest

from ..fixtures.cli_entry import streamgaze

TASK = "streamgaze_oi_easy"


def _cause(proc) -> str:
    """The lines of the run's output that say why it failed (a traceback's last line, errors)."""
    lines = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr).splitlines()
    keep = [ln for ln in lines if "Error" in ln or "error:" in ln or "Traceback" in ln]
    return f"exit {proc.returncode}; " + " | ".join(keep[-6:] or lines[-6:])


def test_streamgaze_eval_runs_lmms_eval_and_writes_scored_samples(demo_dataset, tmp_path):
    out = tmp_path / "run"
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--model_args",
                      "seed=0,check_visuals=true", "--tasks", TASK,
                      "--log_samples", "--output_path", out, "--timezone", "UTC", "--verbosity", "WARNING",
                      tmp=tmp_path, timeout=600, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, _cause(proc)
    # start-up pays for no import the run does not use (util/imports.py): lmms-eval's registry without Hugging Face
    # `evaluate` (and the transformers pipelines it imports), no reader library of a wrapper the run does not use
    imported = {ln.rsplit("|", 1)[1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")}
    assert {"lmms_eval.api.registry", "lmms_eval.evaluator", "torch"} <= imported
    assert not imported & {"evaluate.evaluator", "transformers.pipelines", "torchcodec",
                           "lmms_eval.models.chat.llava_hf", "lmms_eval.models.simple.internvl3"}
    results = sorted(out.rglob("*_results.json"))
    samples = sorted(out.rglob(f"*_samples_{TASK}.jsonl"))
    assert len(results) == 1 and len(samples) == 1, _cause(proc)
    accuracy = json.loads(results[0].read_text())["results"][TASK]["accuracy,none"]

    rows = datasets.load_dataset(str(demo_dataset), "oi_easy", split="test")
    records = [json.loads(line)["accuracy"] for line in samples[0].read_text().splitlines() if line.strip()]
    assert sorted(r["question_id"] for r in records) == sorted(rows["question_id"])
    assert all(r["parsed"] in "ABCD" and r["correct"] == (r["parsed"] == r["answer"]) for r in records)
    assert accuracy == pytest.approx(100.0 * sum(r["correct"] for r in records) / len(records))
    # the baseline is no wrapper the toolkit knows: full-rate clips, recorded as such; it asked for every
    # document's visuals, which the reading-time figures count (it reads no video itself)
    assert all(r["model_ready"] == "" for r in records)
    annotation = json.loads(results[0].read_text())["streamgaze"]
    assert annotation["model_ready"] == ""
    assert annotation["decode_backends"] == {"FORCE_QWENVL_VIDEO_READER": "decord", "LMMS_VIDEO_DECODE_BACKEND": "pyav",
                                             "DECORD_EOF_RETRY_MAX": "1000000"}
    read = annotation["video_read"]
    assert read["questions"] == len(records) and read["video_read_s"] == 0.0 and read["run_s"] > 0
    assert "streamgaze: video: the model wrapper spent 0.0 s reading video" in proc.stderr

    # what produced the records is named in them and in the submission built from them
    versions = {"lmms_eval_version": metadata.version("lmms-eval"), "datasets_version": metadata.version("datasets")}
    assert all({k: r[k] for k in versions} == versions for r in records)
    sub = tmp_path / "sub.json"
    proc = streamgaze("submit", out, "--dataset", demo_dataset, "--model-name", "Oracle", "--out", sub, tmp=tmp_path)
    assert proc.returncode == 0, _cause(proc)
    run = json.loads(sub.read_text())["run"]
    assert {k: run[k] for k in versions} == versions and run["toolkit_version"] == "0.1.0"
    assert run["video_read_s"] == 0.0 and run["video_read_share"] == 0.0


def test_doctor_lists_the_key_packages_against_the_lock(tmp_path):
    """`streamgaze doctor` without a dataset: each key package's installed and locked version, nothing
    flagged in the tested environment (exit 0)."""
    from streamgaze_hf.util.environment import KEY_PACKAGES, find_lock, locked_versions

    proc = streamgaze("doctor", tmp=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    locked = locked_versions(find_lock())
    rows = {ln.split()[0]: ln.split()[1:] for ln in proc.stdout.splitlines() if ln.split()[:1] and
            ln.split()[0] in KEY_PACKAGES}
    assert rows == {name: [locked[name], locked[name]] for name in KEY_PACKAGES}
    assert "installed set against the lock: equal" in proc.stdout and "declared ranges: met" in proc.stdout
