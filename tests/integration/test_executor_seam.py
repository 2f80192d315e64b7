"""The one executor seam of per-video work (util/executors.py, issue 53): its options checked before any work, the
results in the jobs' order wherever they ran, and a build with a damaged recording on local workers: the others
finish, one error names what was left out, nothing is written, and a re-run redoes only that recording. (The
same on a two-node Ray cluster: tests/e2e/test_ray_cluster.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.util.executors import Inline, Workers, check_gpu_ask, map_ordered, map_settled, processes

SG = str(Path(sys.executable).with_name("streamgaze"))


def _square_or_fail(x: int) -> int:
    if x == 3:
        raise ValueError(f"bad {x}")
    return x * x


@pytest.mark.parametrize("workers, message", [
    (Workers(executor="spark"), "--executor must be one of local, ray, got 'spark'"),
    (Workers(count=0), "--workers must be a positive integer, got 0"),
    (Workers(address="127.0.0.1:6379"), "--ray-address is the Ray executor's: add --executor ray"),
])
def test_bad_options_are_refused_before_any_work(workers, message):
    with pytest.raises(StreamGazeError) as err:
        workers.check()
    assert str(err.value) == message


@pytest.mark.parametrize("gpus, workers, applies, message", [
    (-1.0, Workers(executor="ray"), True, "--vlm-gpus must be a number of GPUs >= 0, got -1.0"),
    (float("nan"), Workers(executor="ray"), True, "--vlm-gpus must be a number of GPUs >= 0, got nan"),
    (1.0, Workers(count=2), True, "--vlm-gpus asks a Ray cluster for GPUs: add --executor ray (a local process "
                                  "pool runs its calls on this machine, whatever they ask)"),
    (0.5, Workers(executor="ray"), False, "--vlm-gpus is for a stage this build does not run: it needs --objects vlm"),
])
def test_a_gpu_ask_is_checked_before_any_work(gpus, workers, applies, message):
    with pytest.raises(StreamGazeError) as err:
        check_gpu_ask(gpus, workers, "--vlm-gpus", applies, "--objects vlm")
    assert str(err.value) == message
    check_gpu_ask(0.0, Workers(), "--vlm-gpus", False)  # no ask: nothing to check


@pytest.mark.parametrize("bench, extra", [("streamgaze", ["--objects", "vlm", "--vlm-url", "http://127.0.0.1:9/v1",
                                                         "--vlm-model", "m"]),
                                         ("egogazevqa", ["--vlm-url", "http://127.0.0.1:9/v1", "--vlm-model", "m"])])
def test_build_refuses_a_gpu_ask_without_a_cluster_before_any_work(tmp_path, bench, extra):
    (tmp_path / "raw").mkdir()
    out = tmp_path / "out" / "d"
    proc = subprocess.run([SG, "build", bench, "--raw", str(tmp_path / "raw"), "--out", str(out), "--version",
                           "1.0.0", *extra, "--vlm-gpus", "1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--vlm-gpus asks a Ray cluster for GPUs: add --executor ray" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_ray_without_an_address_names_both_ways_to_give_one(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(StreamGazeError, match=r"--ray-address HOST:PORT or \$RAY_ADDRESS"):
        Workers(executor="ray").check()


@pytest.mark.parametrize("executor", [Inline(), processes(2)], ids=["inline", "processes"])
def test_results_come_in_the_jobs_order_and_every_failure_is_kept(executor):
    jobs = [(x,) for x in range(6)]
    settled = map_settled(executor, _square_or_fail, jobs)
    assert [r for r, _ in settled] == [0, 1, 4, None, 16, 25]
    assert [str(e) for _, e in settled if e is not None] == ["bad 3"]


def test_map_ordered_raises_the_first_failure_in_the_jobs_order():
    assert map_ordered(processes(2), _square_or_fail, [(5,), (2,)]) == [25, 4]
    with pytest.raises(ValueError, match="bad 3"):
        map_ordered(processes(2), _square_or_fail, [(1,), (3,), (4,)])


def test_a_damaged_recording_is_left_out_named_and_the_rerun_redoes_only_it(tmp_path):
    from streamgaze_hf.demo.world import generate_world

    raw = tmp_path / "raw"
    dirs = generate_world(raw, n_videos=3, seed=0, duration=15, width=160, height=120, fps=12, progress=False)
    good = dirs[1] / "video.mp4"
    kept = tmp_path / "good.mp4"
    shutil.copyfile(good, kept)
    good.write_bytes(kept.read_bytes()[:3000])  # a truncated video
    out = tmp_path / "out" / "sg"
    env = {**os.environ, "TQDM_DISABLE": "1"}
    cmd = [SG, "build", "--raw", str(raw), "--out", str(out), "--version", "1.0.0", "--workers", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    err = [ln for ln in proc.stderr.splitlines() if "recordings failed" in ln]
    assert len(err) == 1 and "1 of 3 recordings failed and were left out, nothing was written" in err[0]
    assert f"{dirs[1].name}: " in err[0] and dirs[0].name not in err[0]
    assert not out.exists()
    work = out.parent / ".sg.work"
    assert sorted(p.parts[-3] for p in work.glob("*/*/result.json")) == [dirs[0].name, dirs[2].name]
    assert not list(work.glob(f"{dirs[1].name}/*"))  # nothing half-written for the damaged one
    shutil.copyfile(kept, good)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "build: 2 of 3 recordings were done already" in proc.stderr
    assert (out / "manifest.json").is_file() and not work.exists()

