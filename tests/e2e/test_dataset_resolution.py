"""A dataset reference is resolved once per process (issue 41: the dataset in one hand), counted through the
installed ``streamgaze`` script: ``streamgaze eval`` of the demo (oracle, one task, real lmms-eval in the same
process) and ``streamgaze submit`` of that run."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fixtures.cli_entry import streamgaze

COUNTER = Path(__file__).resolve().parents[1] / "fixtures" / "resolution_count"


def _counted(tmp_path: Path, name: str, *args) -> list[dict]:
    counts = tmp_path / f"counts-{name}"
    counts.mkdir()
    env = {"PYTHONPATH": os.pathsep.join([str(COUNTER), os.environ.get("PYTHONPATH", "")]),
           "STREAMGAZE_COUNT_RESOLUTIONS": str(counts), "STREAMGAZE_PREFETCH": "0"}
    proc = streamgaze(*args, tmp=tmp_path, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(p.read_text()) for p in sorted(counts.glob("*.json"))]


def test_eval_and_submit_resolve_the_dataset_once_per_process(demo_dataset, tmp_path):
    out = tmp_path / "run"
    evals = _counted(tmp_path, "eval", "eval", "--root", demo_dataset, "--", "--model", "streamgaze_oracle",
                     "--tasks", "streamgaze_oi_easy", "--log_samples", "--output_path", out, "--timezone", "UTC")
    assert len(evals) == 1 and evals[0]["argv"][1] == "eval"  # lmms-eval ran in the same process
    assert evals[0]["resolutions"] == 1, evals[0]["callers"]
    assert list(out.rglob("*_results.json")) and list(out.rglob("*_samples_streamgaze_oi_easy.jsonl"))
    subs = _counted(tmp_path, "submit", "submit", out, "--dataset", demo_dataset, "--model-name", "Oracle",
                    "--allow-oracle", "--out", tmp_path / "oracle.json")
    assert [s["resolutions"] for s in subs] == [1], [s["callers"] for s in subs]
    assert json.loads((tmp_path / "oracle.json").read_text())["scores"]["tasks"]["oi_easy"]["accuracy"] == 1.0


def test_the_counter_counts_every_resolution(demo_dataset, tmp_path):
    """The count above is real: a process that opens the same reference twice is counted twice."""
    import subprocess
    import sys

    counts = tmp_path / "counts"
    counts.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(COUNTER), os.environ.get("PYTHONPATH", "")]),
           "STREAMGAZE_COUNT_RESOLUTIONS": str(counts)}
    code = ("from streamgaze_hf.dataset.load import open_dataset; import sys; "
            "a = open_dataset(sys.argv[1]); open_dataset(a); open_dataset(sys.argv[1])")
    subprocess.run([sys.executable, "-c", code, str(demo_dataset)], check=True, env=env, timeout=300)
    (count,) = [json.loads(p.read_text()) for p in counts.glob("*.json")]
    assert count["resolutions"] == 2  # an open handle passed on is not resolved again
