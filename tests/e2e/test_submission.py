"""Leaderboard submissions: lmms-eval run -> submit -> validate -> leaderboard (issue: leaderboard submission).

Two real lmms-eval runs are shared by the module (the random baseline on every task: conftest's
``demo_random_run``, which the leaderboard tests read too; the oracle on the past tasks only); every rejection is a
mutation of the random baseline's submission.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf import __version__
from streamgaze_hf.benchmarks.streamgaze.paper import paper_rows
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS, TASKS
from streamgaze_hf.cli import main
from streamgaze_hf.dataset.writer import manifest_digest
from streamgaze_hf.leaderboard.site import write_leaderboard
from streamgaze_hf.submission import (
    assemble_submission,
    load_answer_key,
    validate_submission,
    write_submission,
)
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.util.provenance import toolkit_commit

from ..fixtures.cli_entry import error_lines
from ..fixtures.lmms_run import run_lmms_eval
from ..fixtures.once import once_per_run
from ..fixtures.submissions import SCRIPT_NAME

pytestmark = pytest.mark.slow
PROACTIVE_METRICS = ("accuracy", "precision", "recall", "f1", "fpr", "fnr")


# ---- helpers ---------------------------------------------------------------------------------------

def cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def error_line(err: str) -> str:
    lines = error_lines(err)
    assert len(lines) == 1, err
    return lines[0]


class _TableRows(HTMLParser):
    """Model names and the overall sort keys of the leaderboard table body, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.overall: list[str] = []
        self._in_body = self._in_name = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tbody":
            self._in_body = True
        if self._in_body and tag == "span" and a.get("class") == "name":
            self._in_name = True
            self.names.append("")
        if self._in_body and tag == "td" and "overall" in (a.get("class") or "").split():
            self.overall.append(a.get("data-sort", ""))

    def handle_endtag(self, tag):
        if tag == "span":
            self._in_name = False
        if tag == "tbody":
            self._in_body = False

    def handle_data(self, data):
        if self._in_name:
            self.names[-1] += data


# ---- shared runs -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def oracle_past_run(demo_dataset, tmp_path_factory):
    """The oracle on the four past tasks only: a partial run."""
    def run(out):
        proc, results, samples = run_lmms_eval(["--model", "streamgaze_oracle", "--tasks", "streamgaze_past"],
                                               demo_dataset, out)
        assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
        return out, results, samples

    return once_per_run(tmp_path_factory, "test_submission.oracle_past_run", run)


@pytest.fixture(scope="module")
def random_sub(demo_random_run, demo_dataset, tmp_path_factory) -> Path:
    """The random baseline's submission, made through the CLI."""
    out = tmp_path_factory.mktemp("subs") / "random.json"
    rc = main(["submit", str(demo_random_run[0]), "--dataset", str(demo_dataset), "--model-name", "Random baseline",
               "--model-url", "https://example.org/random", "--params", "0", "--frames", "all",
               "--out", str(out)])
    assert rc == 0 and out.is_file()
    return out


@pytest.fixture(scope="module")
def answer_key(demo_dataset):
    return load_answer_key(demo_dataset)


def _other_dataset(demo_dataset: Path, dest: Path, edit) -> Path:
    """A copy of the demo dataset (without videos) whose manifest is edited by ``edit``."""
    shutil.copytree(demo_dataset, dest, ignore=shutil.ignore_patterns("*.mp4"))
    manifest = json.loads((dest / "manifest.json").read_text())
    edit(manifest)
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return dest


# ---- round trip ------------------------------------------------------------------------------------

def test_round_trip_gives_the_scores_lmms_eval_reported(demo_random_run, random_sub, demo_dataset):
    _, results, samples = demo_random_run
    report = validate_submission(random_sub, demo_dataset)
    scores = report.scores
    for spec in TASKS:
        reported = results["results"][spec.lmms_name]
        metrics = PROACTIVE_METRICS if spec.checkpointed else ("accuracy",)
        for m in metrics:
            ours = scores["tasks"][spec.id][m]
            if ours is None:  # undefined (empty denominator): lmms-eval shows NaN, never 0 or 100
                assert math.isnan(reported[f"{m},none"]), (spec.id, m)
                continue
            assert abs(100 * ours - reported[f"{m},none"]) <= 1e-6, (spec.id, m)
    assert abs(100 * scores["overall"] - results["results"]["streamgaze"]["accuracy,none"]) <= 1e-6
    assert scores["coverage"] == {"answered": report.key.expected, "expected": report.key.expected, "fraction": 1.0}
    assert report.missing == []

    sub = json.loads(random_sub.read_text())
    assert sub["schema_version"] == 2
    assert sub["dataset"] == {"version": "0.1.0", "manifest_sha256": manifest_digest(demo_dataset)}
    assert sub["settings"] == {"gaze": "visual", "prompt_mode": "default", "clip_fps": 0.0, "protocol": "default"}
    assert sub["model"] == {"name": "Random baseline", "url": "https://example.org/random", "params": "0",
                            "frames": "all"}
    assert sub["run"]["model"] == "streamgaze_random" and sub["run"]["model_args"] == "seed=0"
    assert sub["run"]["harness"] == "lmms-eval" and sub["run"]["harness_version"].startswith("0.7.3")
    # lmms-eval names itself, not the toolkit's checkout around the venv; the toolkit has its own fields
    assert results["lmms_eval_version"] == "release@v0.7.3" and sub["run"]["harness_version"] == "0.7.3"
    assert sub["toolkit_version"] == sub["run"]["toolkit_version"] == __version__
    assert sub["toolkit_commit"] == sub["run"]["toolkit_commit"] == toolkit_commit()
    assert all(s["accuracy"]["toolkit_version"] == __version__ and
               s["accuracy"]["toolkit_commit"] == toolkit_commit() for recs in samples.values() for s in recs)
    # every raw response is in the file, keyed by question id (proactive: and checkpoint)
    for spec in TASKS:
        for s in samples[spec.lmms_name]:
            rec = s["accuracy"]
            entry = sub["answers"][spec.id][rec["question_id"]]
            if spec.checkpointed:
                entry = entry[str(rec["checkpoint_index"])]
            assert entry == {"response": rec["response"], "parsed": rec["parsed"]}
    assert sub["scores"] == json.loads(json.dumps(scores))


def test_validate_cli_prints_the_table_and_coverage(random_sub, demo_dataset, capsys):
    rc, out, err = cli(capsys, "validate", random_sub, "--dataset", demo_dataset)
    assert rc == 0, err
    assert f"{random_sub}: valid" in out
    for task_id in TASK_IDS:
        assert re.search(rf"^{task_id}\s+(past|present|proactive)\s+\d{{1,3}}\.\d\s", out, re.M), task_id
    assert "coverage: 100.0%" in out and "missing: none" in out


# ---- rejections ------------------------------------------------------------------------------------

def _first(sub: dict, task: str) -> str:
    return next(iter(sub["answers"][task]))


def _set(path: str):
    """A mutation setting ``path`` (dotted; [..] for keys with dots) to a value."""
    def make(value):
        def mutate(sub):
            node = sub
            parts = path.split(".")
            for p in parts[:-1]:
                node = node[p]
            node[parts[-1]] = value
        return mutate
    return make


def _tamper_score(sub):
    sub["scores"]["tasks"]["nfi"]["accuracy"] += 0.125


def _tamper_overall(sub):
    sub["scores"]["overall"] = 0.99


def _unknown_question(sub):
    sub["answers"]["nfi"]["nfi-no-such-question"] = {"response": "A", "parsed": "A"}


def _wrong_task(sub):
    qid = _first(sub, "nfi")
    sub["answers"]["otp"][qid] = sub["answers"]["nfi"].pop(qid)


def _unknown_checkpoint(sub):
    qid = _first(sub, "gta")
    sub["answers"]["gta"][qid]["999"] = {"response": "Yes", "parsed": "Yes"}


def _bad_checkpoint_key(sub):
    qid = _first(sub, "gta")
    sub["answers"]["gta"][qid]["01"] = sub["answers"]["gta"][qid].pop("0")


def _tamper_parsed(sub):
    qid = _first(sub, "nfi")
    entry = sub["answers"]["nfi"][qid]
    entry["parsed"] = "B" if entry["parsed"] != "B" else "C"


def _unknown_field(sub):
    sub["leaderboard_rank"] = 1


def _unknown_task(sub):
    sub["answers"]["xyz"] = {}


def _javascript_url(sub):
    sub["model"]["url"] = "javascript:alert(1)"


def _wrong_count_type(sub):
    sub["scores"]["tasks"]["nfi"]["n"] = 24.5


REJECTIONS = {
    "another dataset version": (_set("dataset.version")("9.9.9"), "is for dataset version 9.9.9"),
    "another manifest hash": (_set("dataset.manifest_sha256")("0" * 64), "another build"),
    "bad manifest hash": (_set("dataset.manifest_sha256")("abc"), "dataset.manifest_sha256 must be a sha256"),
    "unknown question id": (_unknown_question, "unknown question id 'nfi-no-such-question'"),
    "question under another task": (_wrong_task, "is a nfi question, not a otp one"),
    "unknown checkpoint": (_unknown_checkpoint, "has no checkpoint 999"),
    "bad checkpoint key": (_bad_checkpoint_key, "checkpoint key '01' is not a checkpoint index"),
    "tampered task score": (_tamper_score, "reported score scores.tasks.nfi.accuracy"),
    "tampered overall": (_tamper_overall, "reported score scores.overall = 0.99 differs from the recomputed"),
    "tampered parsed answer": (_tamper_parsed, "differs from the re-parsed"),
    "schema_version as a string": (_set("schema_version")("1"), "schema_version must be an integer"),
    "schema_version as a boolean": (_set("schema_version")(True), "schema_version must be an integer"),
    "unsupported schema_version": (_set("schema_version")(3), "schema_version 3 is not supported"),
    "clip_fps as a string": (_set("settings.clip_fps")("0"), "settings.clip_fps must be a number"),
    "unknown gaze mode": (_set("settings.gaze")("eyes"), "settings.gaze must be one of"),
    "model name as a number": (_set("model.name")(5), "model.name must be a string"),
    "empty model name": (_set("model.name")("  "), "model.name must be a non-empty string"),
    "javascript: url": (_javascript_url, "model.url must be empty or an http(s) URL"),
    "scores as a list": (_set("scores")([]), "scores must be an object"),
    "count as a float": (_wrong_count_type, "scores.tasks.nfi.n must be an integer"),
    "unknown top-level field": (_unknown_field, "unknown field 'leaderboard_rank' in the submission"),
    "unknown task": (_unknown_task, "unknown field 'xyz' in answers"),
    "missing field": (lambda sub: sub.pop("run"), "the submission is missing the field 'run'"),
}


@pytest.mark.parametrize("case", sorted(REJECTIONS))
def test_validate_rejects(case, random_sub, demo_dataset, tmp_path, capsys):
    mutate, reason = REJECTIONS[case]
    sub = json.loads(random_sub.read_text())
    mutate(sub)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(sub))
    rc, out, err = cli(capsys, "validate", bad, "--dataset", demo_dataset)
    assert rc == 2, out
    line = error_line(err)
    assert line.startswith(f"streamgaze validate: error: {bad}: "), line
    assert reason in line, line


TEXT_REJECTIONS = {
    "malformed JSON": (lambda t: t[: len(t) // 2], "malformed JSON"),
    "not an object": (lambda t: "[1, 2]", "a submission must be a JSON object, got array"),
    "NaN": (lambda t: re.sub(r'"overall": [0-9.e-]+', '"overall": NaN', t, count=1), "non-finite number NaN"),
    "Infinity": (lambda t: re.sub(r'"clip_fps": [0-9.]+', '"clip_fps": Infinity', t, count=1),
                 "non-finite number Infinity"),
    "overflow": (lambda t: re.sub(r'"clip_fps": [0-9.]+', '"clip_fps": 1e999', t, count=1), "out of range"),
    "duplicate top-level key": (lambda t: t.replace('"schema_version": 2,', '"schema_version": 2, "schema_version": 2,'),
                                "duplicate field 'schema_version' in the submission"),
}


@pytest.mark.parametrize("case", sorted(TEXT_REJECTIONS))
def test_validate_rejects_text(case, random_sub, demo_dataset, tmp_path, capsys):
    edit, reason = TEXT_REJECTIONS[case]
    bad = tmp_path / "bad.json"
    text = edit(random_sub.read_text())
    assert text != random_sub.read_text()
    bad.write_text(text)
    rc, _, err = cli(capsys, "validate", bad, "--dataset", demo_dataset)
    assert rc == 2
    line = error_line(err)
    assert line.startswith(f"streamgaze validate: error: {bad}: ") and reason in line, line


def test_duplicate_question_id_is_rejected(random_sub, demo_dataset, tmp_path, capsys):
    sub = json.loads(random_sub.read_text())
    qid = _first(sub, "oar")
    entry = json.dumps(sub["answers"]["oar"][qid])
    text = random_sub.read_text()
    # the same question id twice in answers.oar (json.loads alone would silently keep the last one)
    dup = re.sub(r'("oar": \{)', lambda m: m.group(1) + f'"{qid}": {entry}, ', text, count=1)
    assert dup.count(f'"{qid}"') == 2
    bad = tmp_path / "dup.json"
    bad.write_text(dup)
    rc, _, err = cli(capsys, "validate", bad, "--dataset", demo_dataset)
    assert rc == 2
    assert f"duplicate question id '{qid}' in answers.oar" in error_line(err)


def test_duplicate_checkpoint_is_rejected(random_sub, demo_dataset, tmp_path):
    sub = json.loads(random_sub.read_text())
    qid = _first(sub, "gta")
    text = random_sub.read_text()
    dup = text.replace(f'"{qid}": {{', f'"{qid}": {{"0": {{"response": "Yes", "parsed": "Yes"}}, ', 1)
    bad = tmp_path / "dup.json"
    bad.write_text(dup)
    with pytest.raises(StreamGazeError, match=f"duplicate checkpoint '0' of question '{qid}'"):
        validate_submission(bad, demo_dataset)


def test_missing_file_is_a_clear_error(demo_dataset, tmp_path, capsys):
    rc, _, err = cli(capsys, "validate", tmp_path / "nope.json", "--dataset", demo_dataset)
    assert rc == 2 and "no such submission file" in error_line(err)


def test_submission_for_another_dataset_build_is_rejected(random_sub, demo_dataset, tmp_path, capsys):
    """The same submission against a dataset of another version, then another build of the same version."""
    v2 = _other_dataset(demo_dataset, tmp_path / "v2" / "streamgaze", lambda m: m.update(version="0.2.0"))
    rc, _, err = cli(capsys, "validate", random_sub, "--dataset", v2)
    assert rc == 2
    assert "submission is for dataset version 0.1.0, but the dataset at" in error_line(err)
    assert "is version 0.2.0" in error_line(err)

    rebuilt = _other_dataset(demo_dataset, tmp_path / "rebuilt" / "streamgaze",
                             lambda m: m["build"].update(note="rebuilt"))
    rc, _, err = cli(capsys, "validate", random_sub, "--dataset", rebuilt)
    assert rc == 2
    assert "differs from the dataset at" in error_line(err) and "same version 0.1.0, another build" in error_line(err)


# ---- submit ----------------------------------------------------------------------------------------

def test_oracle_run_is_refused_without_allow_oracle(oracle_past_run, demo_dataset, tmp_path, capsys):
    out_dir = oracle_past_run[0]
    out = tmp_path / "oracle.json"
    rc, _, err = cli(capsys, "submit", out_dir, "--dataset", demo_dataset, "--model-name", "Oracle", "--out", out)
    assert rc == 2 and not out.exists()
    assert "streamgaze_oracle baseline, which reads the answer key" in error_line(err)


def test_partial_run_counts_missing_questions_as_wrong(oracle_past_run, demo_dataset, tmp_path, capsys):
    out_dir, results, _ = oracle_past_run
    out = tmp_path / "oracle_past.json"
    rc, _, err = cli(capsys, "submit", out_dir, "--dataset", demo_dataset, "--model-name", "Oracle (past only)",
                     "--allow-oracle", "--out", out)
    assert rc == 0, err
    report = validate_submission(out, demo_dataset)
    s = report.scores
    assert abs(100 * s["past"] - results["results"]["streamgaze_past"]["accuracy,none"]) <= 1e-6
    assert s["past"] == 1.0 and s["present"] == 0.0 and s["proactive"] == 0.0
    assert abs(s["overall"] - 0.4) < 1e-12  # 4 of 10 tasks right, the other six missing = wrong
    past = {t.id for t in TASKS if t.category == "past"}
    expected_missing = [(t, q, cp) for t in TASK_IDS if t not in past for (q, cp) in report.key.docs[t]]
    assert report.missing == expected_missing
    assert s["coverage"]["answered"] == sum(len(report.key.docs[t]) for t in past)
    assert 0 < s["coverage"]["fraction"] < 1
    for t in TASK_IDS:
        assert s["tasks"][t]["n_missing"] == (0 if t in past else s["tasks"][t]["n"])
    assert report.is_oracle

    assert "streamgaze: warning: " in err and "partial run: " in err
    rc, text, _ = cli(capsys, "validate", out, "--dataset", demo_dataset)
    assert rc == 0
    assert f"missing ({len(expected_missing)}):" in text
    assert f"coverage: {100 * s['coverage']['fraction']:.1f}%" in text
    assert "  WARNING: partial run: " in text
    # tasks without a single answer say so; no "fpr 1.000, fnr 1.000" made of missing answers
    for t in ("gta", "oaa", "oi_easy"):
        line = next(ln for ln in text.splitlines() if ln.startswith(f"{t} "))
        assert line.endswith("no answers: every item counts as wrong") and f"0.0% (0/{s['tasks'][t]['n']})" in line
    assert "fpr" not in text
    assert "... and" in text and "never ranked" in text
    rc, text, _ = cli(capsys, "validate", out, "--dataset", demo_dataset, "--all-missing")
    assert all(f"  {t} {q}" in text for t, q, _ in expected_missing)

    # the leaderboard never ranks the oracle
    lb = tmp_path / "lb"
    rc, _, err = cli(capsys, "leaderboard", out, "--dataset", demo_dataset, "--out", lb)
    assert rc == 2 and not lb.exists()
    assert error_line(err).startswith(f"streamgaze leaderboard: error: {out}: ") and "oracle" in error_line(err)


def test_limited_run_is_flagged_by_submit_and_validate(demo_random_run, random_sub, demo_dataset, tmp_path, capsys):
    """An `lmms-eval --limit 3` run: the first 3 documents of every task answered, the rest missing."""
    run = _copy_run(demo_random_run[0], tmp_path / "run")
    results_path = next(run.rglob("*_results.json"))
    results = json.loads(results_path.read_text())
    results["config"]["limit"] = 3
    results_path.write_text(json.dumps(results))
    for path in run.rglob("*_samples_*.jsonl"):
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    out = tmp_path / "limited.json"
    rc, printed, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "Limited", "--out", out)
    assert rc == 0, err
    report = validate_submission(out, demo_dataset)
    cov = report.scores["coverage"]
    assert cov["answered"] == 3 * len(TASK_IDS) < cov["expected"]
    pct = f"{100 * cov['answered'] / cov['expected']:.1f}% ({cov['answered']}/{cov['expected']:,})"
    assert printed.strip().endswith(f"on coverage {pct}")
    warning = error_line(err.replace("streamgaze: warning:", "streamgaze submit: error:"))
    assert f"partial run: {pct} of the dataset's items answered (the run used lmms-eval --limit 3)" in warning
    assert "not comparable with a full run" in warning
    rc, text, _ = cli(capsys, "validate", out, "--dataset", demo_dataset)
    assert rc == 0 and text.splitlines()[4].startswith("  WARNING: partial run: ")
    for spec in TASKS:  # coverage beside every task score
        n = report.scores["tasks"][spec.id]["n"]
        line = next(ln for ln in text.splitlines() if ln.startswith(f"{spec.id} "))
        assert f"% (3/{n:,})" in line, line
    for cat in ("past", "present", "proactive", "overall"):
        assert re.search(rf"^{cat}\s+\d{{1,3}}\.\d\s+\d+\.\d+% \(\d+/[\d,]+\)$", text, re.M), cat
    # on the leaderboard (the installed script) it is marked and not ranked among full runs, whatever its score
    import subprocess

    from ..fixtures.cli_entry import script

    proc = subprocess.run([script(), "leaderboard", str(out), str(random_sub), "--dataset", str(demo_dataset),
                           "--out", str(tmp_path / "site"), "--no-paper-rows"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = {r["model"]: r for r in csv.DictReader(io.StringIO((tmp_path / "site" / "leaderboard.csv").read_text()))}
    assert (table["Limited"]["rank"], table["Random baseline"]["rank"]) == ("", "1")
    assert list(table) == ["Random baseline", "Limited"]  # after the full run
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    assert f"| Limited (partial run: {pct.split(' ')[0]} answered, not ranked) |" in md


def _copy_run(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("clips"))
    return dest


def test_mixed_gaze_modes_in_one_run_are_rejected(demo_random_run, demo_dataset, tmp_path, capsys):
    run = _copy_run(demo_random_run[0], tmp_path / "mixed")
    src = next(run.rglob("*_samples_streamgaze_nfi.jsonl"))
    lines = []
    for line in src.read_text().splitlines():
        s = json.loads(line)
        for v in s.values():
            if isinstance(v, dict) and "gaze" in v:
                v["gaze"] = "none"
        lines.append(json.dumps(s))
    src.with_name(src.name.replace("_nfi.jsonl", "_nfi_nogaze.jsonl")).write_text("\n".join(lines) + "\n")
    src.unlink()
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out",
                     tmp_path / "s.json")
    assert rc == 2
    line = error_line(err)
    assert "mixed gaze modes in one run" in line and "none (streamgaze_nfi_nogaze)" in line


def test_submit_refuses_samples_that_disagree_with_the_dataset(demo_random_run, demo_dataset, tmp_path, capsys):
    run = _copy_run(demo_random_run[0], tmp_path / "other")
    src = next(run.rglob("*_samples_streamgaze_otp.jsonl"))
    samples = [json.loads(ln) for ln in src.read_text().splitlines()]
    samples[0]["accuracy"]["correct"] = not samples[0]["accuracy"]["correct"]
    src.write_text("\n".join(json.dumps(s) for s in samples) + "\n")
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out",
                     tmp_path / "s.json")
    assert rc == 2 and "was the run made on another build of the dataset" in error_line(err)

    samples[0]["accuracy"]["question_id"] = "otp-not-in-this-dataset"
    src.write_text("\n".join(json.dumps(s) for s in samples) + "\n")
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out",
                     tmp_path / "s.json")
    assert rc == 2 and "unknown question id 'otp-not-in-this-dataset'" in error_line(err)


def test_submit_uses_the_newest_run(demo_random_run, demo_dataset, tmp_path):
    """A newer run in the same directory (here: one that covered only nfi) is the one submitted."""
    from streamgaze_hf.submission import build_submission

    run = _copy_run(demo_random_run[0], tmp_path / "two_runs")
    results = next(run.rglob("*_results.json"))
    prefix = results.name[: -len("_results.json")]
    newer = "29991231_235959"
    (results.parent / f"{newer}_results.json").write_text(results.read_text())
    nfi = results.parent / f"{prefix}_samples_streamgaze_nfi.jsonl"
    shutil.copy(nfi, results.parent / f"{newer}_samples_streamgaze_nfi.jsonl")
    sub = build_submission(run, demo_dataset, model_name="x")
    assert list(sub["answers"]) == ["nfi"]
    assert sub["scores"]["tasks"]["nfi"]["n_missing"] == 0 and sub["scores"]["tasks"]["otp"]["n_missing"] == sub["scores"]["tasks"]["otp"]["n"]


def test_changed_responses_with_kept_scores_are_rejected(random_sub, answer_key, demo_dataset, tmp_path, capsys):
    """Raw responses edited to the right answers (parsed values updated too), scores left as they were."""
    sub = json.loads(random_sub.read_text())
    fixed = 0
    for qid, entry in sub["answers"]["sr"].items():
        right = answer_key.docs["sr"][(qid, -1)]["answer"]
        if entry["parsed"] != right:
            entry["response"] = entry["parsed"] = right
            fixed += 1
    assert fixed > 0
    bad = tmp_path / "better.json"
    bad.write_text(json.dumps(sub))
    rc, _, err = cli(capsys, "validate", bad, "--dataset", demo_dataset)
    assert rc == 2 and "reported score scores." in error_line(err) and "differs from the recomputed" in error_line(err)


def test_submit_without_samples_is_a_clear_error(demo_random_run, demo_dataset, tmp_path, capsys):
    run = tmp_path / "nosamples"
    run.mkdir()
    results = next(demo_random_run[0].rglob("*_results.json"))
    shutil.copy(results, run / results.name)
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out",
                     tmp_path / "s.json")
    assert rc == 2 and "--log_samples" in error_line(err)
    rc, _, err = cli(capsys, "submit", tmp_path / "empty_dir_missing", "--dataset", demo_dataset, "--model-name",
                     "x", "--out", tmp_path / "s.json")
    assert rc == 2 and error_line(err).endswith("empty_dir_missing: lmms-eval output directory not found")


def test_prompt_mode_selects_the_parser(answer_key, demo_dataset, tmp_path):
    """validate re-scores with the parser of the submission's prompt mode, exactly as the plugin does."""
    from streamgaze_hf.benchmarks.streamgaze.evaluation import score_doc, task_metrics

    responses = {}
    for t in TASK_IDS:
        for item, doc in answer_key.docs[t].items():
            # reference parser: "NO" as a substring (right for a No label); the first \b[ABCD]\b (the article)
            responses[item] = "I don't know" if item[1] >= 0 else f"It's a thing ({doc['answer']})"
    overall = {}
    for mode in ("default", "reference"):
        sub = assemble_submission(answer_key, responses, prompt_mode=mode, clip_fps=2.0,
                                  model={"name": mode}, run={"harness": "lmms-eval", "harness_version": "t",
                                                             "model": "m", "model_args": "", "date": "",
                                                             "limit": None})
        path = tmp_path / f"{mode}.json"
        write_submission(sub, path)
        report = validate_submission(path, demo_dataset)
        for t in TASK_IDS:
            recs = [score_doc({**doc, "prompt_mode": mode}, responses[item])
                    for item, doc in answer_key.docs[t].items()]
            assert report.scores["tasks"][t]["accuracy"] == task_metrics(recs)["accuracy"], (mode, t)
        assert report.submission["settings"] == {"gaze": "visual", "prompt_mode": mode, "clip_fps": 2.0,
                                                 "protocol": "default"}
        overall[mode] = report.scores["overall"]
    assert overall["default"] != overall["reference"]

    # a file claiming the other mode is caught by its parsed answers
    sub = json.loads((tmp_path / "default.json").read_text())
    sub["settings"]["prompt_mode"] = "reference"
    bad = tmp_path / "claims_reference.json"
    bad.write_text(json.dumps(sub))
    with pytest.raises(StreamGazeError, match="differs from the re-parsed"):
        validate_submission(bad, demo_dataset)


# ---- leaderboard -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def leaderboard_subs(demo_random_run, random_sub, answer_key, demo_dataset, tmp_path_factory):
    d = tmp_path_factory.mktemp("lb_subs")
    # a run of its own (the same run under another name is one row: the site refuses it)
    script = synthetic_submission(answer_key, d / "script.json", SCRIPT_NAME, 0.45, salt=1)
    strong = synthetic_submission(answer_key, d / "strong.json", "Strong | model", 0.95, frames="32", params="7B")
    weak = synthetic_submission(answer_key, d / "weak.json", "=cmd|' /C calc'!A0", 0.0, drop=0.3)
    return [random_sub, script, strong, weak]


def test_leaderboard_writes_the_site(leaderboard_subs, demo_dataset, tmp_path, capsys):
    out = tmp_path / "site"
    rc, printed, err = cli(capsys, "leaderboard", *leaderboard_subs, "--dataset", demo_dataset, "--out", out)
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["chart.png", "index.html", "leaderboard.csv", "leaderboard.md"]
    assert printed.strip() == str(out / "index.html")
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    page = (out / "index.html").read_text()
    assert SCRIPT_NAME not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script") == 1  # only the page's own sorting script
    links = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert all(u.startswith("data:image/png;base64,") or u == "https://example.org/random" for u in links), links
    rows = _TableRows()
    rows.feed(page)
    overall = [float(v) if v else float("-inf") for v in rows.overall]
    paper = paper_rows()
    assert len(rows.names) == 4 + len(paper)
    # two sections: the demo dataset's submissions, ranked among themselves, then the paper's full benchmark
    assert page.count('<section class="dataset"') == 2
    assert page.index("<h2>Dataset 0.1.0 (") < page.index("<h2>Full benchmark: the official release (8,521 questions)")
    assert overall[:4] == sorted(overall[:4], reverse=True) and overall[4:] == sorted(overall[4:], reverse=True)
    assert rows.names[0] == "Strong | model" and rows.names[3] == "=cmd|' /C calc'!A0"
    assert rows.names[4] == "Human"  # first of the paper's section, not interleaved with the demo rows
    assert {p.name for p in paper} == set(rows.names[4:])
    assert page.count('<span class="badge">reported in the paper</span>') == len(paper)
    assert "reported in the paper (human)" not in page  # said once, by the badge

    table = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text())))
    assert [r["model"] for r in table] == [n if not n.startswith("=") else "'" + n for n in rows.names]
    by_name = {r["model"]: r for r in table}
    assert by_name["Human"]["source"] == "reported in the paper (human)" and by_name["Human"]["rank"] == ""
    assert by_name["GPT-4o"]["source"] == "reported in the paper" and by_name["GPT-4o"]["frames"] == "16"
    assert by_name["GPT-4o"]["section"] == "full-release" and by_name["Strong | model"]["section"] == "dataset-0.1.0"
    paper_ranks = sorted(int(r["rank"]) for r in table if r["section"] == "full-release" and r["rank"])
    assert paper_ranks == list(range(1, len(paper)))  # every paper method but the Human reference
    # the weak one left 30% of the questions out: a partial run, listed after the full ones and never ranked
    assert sorted(int(r["rank"]) for r in table if r["section"] == "dataset-0.1.0" and r["rank"]) == [1, 2, 3]
    assert by_name["'=cmd|' /C calc'!A0"]["rank"] == ""
    assert by_name["AssistGaze"]["gta"] == "" and by_name["AssistGaze"]["overall"] == "0.223000"
    assert by_name["Strong | model"]["rank"] == "1" and by_name["Strong | model"]["source"] == "submission (re-scored)"
    assert by_name["Strong | model"]["dataset"] == "0.1.0" and by_name["Strong | model"]["params"] == "7B"
    weak = by_name["'=cmd|' /C calc'!A0"]
    assert weak["coverage"] == f"{validate_submission(leaderboard_subs[3], demo_dataset).scores['coverage']['fraction']:.6f}"
    random_report = validate_submission(leaderboard_subs[0], demo_dataset)
    assert by_name["Random baseline"]["overall"] == f"{random_report.scores['overall']:.6f}"

    md = (out / "leaderboard.md").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    assert "Strong \\| model" in md and SCRIPT_NAME not in md
    assert "reported in the paper" in md and "click" not in md.lower()
    assert "## Dataset 0.1.0 (" in md and "## Full benchmark: the official release (8,521 questions)" in md
    assert md.index("## Dataset 0.1.0") < md.index("Strong \\| model") < md.index("## Full benchmark")
    header = next(ln for ln in md.splitlines() if ln.startswith("| # |"))
    for col in ("Overall", "Past", "Present", "Proactive", "NFI", "OAA", "Coverage", "Gaze", "Prompt",
                "Clip fps cap", "Frames", "Params"):
        assert f"| {col} |" in header, col

    # re-rendering replaces the previous site
    rc, _, err = cli(capsys, "leaderboard", leaderboard_subs[0], "--dataset", demo_dataset, "--out", out)
    assert rc == 0, err
    assert "Strong | model" not in (out / "leaderboard.csv").read_text()


def test_leaderboard_refuses_the_same_run_twice_naming_the_first(leaderboard_subs, demo_dataset, tmp_path, capsys):
    again = tmp_path / "again.json"
    sub = json.loads(leaderboard_subs[0].read_text())
    sub["model"]["name"] = "The random baseline again"
    again.write_text(json.dumps(sub))
    rc, _, err = cli(capsys, "leaderboard", leaderboard_subs[0], again, "--dataset", demo_dataset, "--out",
                     tmp_path / "site")
    assert rc == 2 and not (tmp_path / "site").exists()
    assert error_line(err) == (f"streamgaze leaderboard: error: {again}: its responses are those of "
                               f"{leaderboard_subs[0]}, given before it: the same run is one row (leave one of them out)")


def test_leaderboard_refuses_an_invalid_submission_naming_it(leaderboard_subs, demo_dataset, tmp_path, capsys):
    sub = json.loads(leaderboard_subs[0].read_text())
    _tamper_score(sub)
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(sub))
    out = tmp_path / "site"
    rc, _, err = cli(capsys, "leaderboard", leaderboard_subs[2], bad, "--dataset", demo_dataset, "--out", out)
    assert rc == 2 and not out.exists()
    line = error_line(err)
    assert line.startswith(f"streamgaze leaderboard: error: {bad}: ") and "reported score" in line


def test_leaderboard_will_not_replace_another_directory(leaderboard_subs, demo_dataset, tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("keep me")
    with pytest.raises(StreamGazeError, match="not a leaderboard directory"):
        write_leaderboard(leaderboard_subs[:1], demo_dataset, out)
    assert (out / "thesis.tex").read_text() == "keep me"


def _set_record_field(run: Path, field: str, value, only: str = "") -> None:
    for path in run.rglob(f"*_samples_{only or ''}*.jsonl"):
        lines = []
        for line in path.read_text().splitlines():
            s = json.loads(line)
            for v in s.values():
                if isinstance(v, dict) and "question_id" in v:
                    v[field] = value
            lines.append(json.dumps(s))
        path.write_text("\n".join(lines) + "\n")


def test_the_proxy_a_run_used_is_a_setting_of_its_submission(demo_random_run, demo_dataset, tmp_path, capsys):
    """Records name the proxy their clips came from (""= full-rate): the submission carries it, validate
    shows it, and a run mixing proxies is refused like any other mixed setting."""
    plain = tmp_path / "plain.json"
    rc, _, err = cli(capsys, "submit", demo_random_run[0], "--dataset", demo_dataset, "--model-name", "x", "--out", plain)
    assert rc == 0, err
    assert "proxy" not in json.loads(plain.read_text())["settings"]  # full-rate clips: no field, as before
    run = _copy_run(demo_random_run[0], tmp_path / "proxy")
    _set_record_field(run, "proxy", "2fps-448px")
    out = tmp_path / "proxy.json"
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out", out)
    assert rc == 0, err
    assert json.loads(out.read_text())["settings"]["proxy"] == "2fps-448px"
    rc, text, _ = cli(capsys, "validate", out, "--dataset", demo_dataset)
    assert rc == 0 and "clips 2fps-448px" in text
    _set_record_field(run, "proxy", "", only="streamgaze_nfi")
    rc, _, err = cli(capsys, "submit", run, "--dataset", demo_dataset, "--model-name", "x", "--out",
                     tmp_path / "mixed.json")
    assert rc == 2 and "mixed proxies in one run" in error_line(err)
