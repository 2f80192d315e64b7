"""A fifth benchmark needs no shared edit (issue 35 item 3): the toy benchmark of tests/fixtures/plugin_benchmark/
is built as a wheel here, installed into a folder on the path (its entry point in its own metadata), and the
toolkit's installed commands run on it: ``import``, ``eval`` (through lmms-eval, its task files rendered from its
declaration), ``submit`` and ``validate``. Nothing under the shared packages changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "plugin_benchmark"
BIN = Path(sys.executable).parent
GAZE_POINTS = [(0.2, 0.3), (0.8, 0.1), (0.1, 0.9), (0.7, 0.6), (0.45, 0.55), (0.55, 0.45), (0.9, 0.9), (0.3, 0.2)]

pytestmark = pytest.mark.slow


def _run(args: list[str], env: dict, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, args))}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
    return proc


def _git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "streamgaze_hf", "lmms_tasks",
                           ".importlinter", "pyproject.toml"], cwd=ROOT, capture_output=True, text=True).stdout


def _release(base: Path) -> Path:
    from PIL import Image, ImageDraw

    rel = base / "release"
    (rel / "images").mkdir(parents=True)
    items = []
    for i, (x, y) in enumerate(GAZE_POINTS):
        im = Image.new("RGB", (64, 48), (40, 40, 40))
        ImageDraw.Draw(im).ellipse([x * 64 - 3, y * 48 - 3, x * 64 + 3, y * 48 + 3], fill=(0, 255, 0))
        im.save(rel / "images" / f"img{i}.png")
        items.append({"id": f"q{i}", "image": f"img{i}.png", "x": x, "y": y})
    (rel / "questions.json").write_text(json.dumps(items), encoding="utf-8")
    return rel


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The plug-in built as a wheel (no network: the environment's setuptools) and installed into a folder."""
    base = tmp_path_factory.mktemp("plugin")
    src = base / "src"
    shutil.copytree(FIXTURE, src)  # a build writes build/ and *.egg-info next to the sources: not in the repo
    _run([str(BIN / "uv"), "build", "--wheel", "--no-build-isolation", "--offline", "--python", sys.executable,
          "--out-dir", str(base / "dist"), str(src)], dict(os.environ), base)
    (wheel,) = (base / "dist").glob("gazequad_benchmark-*.whl")
    target = base / "site"
    _run([str(BIN / "uv"), "pip", "install", "--offline", "--no-deps", "--python", sys.executable, "--target",
          str(target), str(wheel)], dict(os.environ), base)
    assert (next(target.glob("gazequad_benchmark-*.dist-info")) / "entry_points.txt").read_text().split() == [
        "[streamgaze.benchmarks]", "gazequad", "=", "gazequad"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return base, env


def test_a_benchmark_of_another_package_runs_end_to_end_with_no_shared_edit(installed):
    base, env = installed
    before = _git_status()
    streamgaze = str(BIN / "streamgaze")
    listed = _run([streamgaze, "import", "--help"], env, base).stdout
    assert "gazequad" in listed  # the shared `import BENCH` lists it from the registry
    root = base / "gazequad"
    release = _release(base)
    out = _run([streamgaze, "import", "gazequad", str(release), "--out", str(root), "--version", "1.0.0"],
               env, base).stdout
    assert "Imported 8 questions, 8 videos" in out
    # the executor options every `import` has: an importer that takes no `workers` says so rather than ignore them
    refused = subprocess.run([streamgaze, "import", "gazequad", str(release), "--out", str(base / "g2"),
                              "--version", "1.0.0", "--workers", "2"], env=env, cwd=base, capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode == 2 and not (base / "g2").exists()
    assert "gazequad's importer runs its work in this process: it takes no --workers, --executor or --ray-address" \
        in refused.stderr
    assert json.loads((root / "manifest.json").read_text())["name"] == "gazequad"
    stats = _run([streamgaze, "stats", "--dataset", str(root)], env, base).stdout
    assert "GazeQuad dataset 1.0.0" in stats

    run_dir = base / "run"
    _run([streamgaze, "eval", "--dataset", str(root), "--", "--model", "streamgaze_random", "--model_args", "seed=3",
          "--tasks", "gazequad", "--log_samples", "--output_path", str(run_dir), "--batch_size", "1"], env, base)
    (results,) = run_dir.rglob("*_results.json")
    data = json.loads(results.read_text())
    assert set(data["results"]) >= {"gazequad", "gazequad_quadrant"}
    (samples,) = run_dir.rglob("*_samples_gazequad_quadrant.jsonl")
    records = [json.loads(line)["accuracy"] for line in samples.read_text().splitlines()]
    assert sorted(r["question_id"] for r in records) == [f"q{i}" for i in range(8)]
    assert data["results"]["gazequad_quadrant"]["accuracy,none"] == pytest.approx(
        100.0 * sum(r["correct"] for r in records) / 8)

    sub = base / "sub.json"
    _run([streamgaze, "submit", str(run_dir), "--dataset", str(root), "--model-name", "Random", "--out", str(sub)],
         env, base)
    submission = json.loads(sub.read_text())
    assert submission["benchmark"] == "gazequad" and len(submission["answers"]["quadrant"]) == 8
    assert submission["scores"]["overall"] == pytest.approx(sum(r["correct"] for r in records) / 8)
    assert "valid" in _run([streamgaze, "validate", str(sub), "--dataset", str(root)], env, base).stdout
    assert _git_status() == before  # nothing of the shared code was written to serve it
