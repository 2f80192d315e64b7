"""Fault injection on the clip cache and the dataset build: a worker killed mid-write, several processes
building the same clips at once, a full disk (ENOSPC raised by the writer). Every test here fails when the
write-to-a-temporary-name-then-rename of ``streamgaze_hf/util/fsutil.py`` is replaced by a direct write
(docs/reliability.md records that run)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video import clips
from streamgaze_hf.video.cache_admin import cache_stats
from streamgaze_hf.video.clips import cached_clip, prepare_clip, read_sidecar
from streamgaze_hf.video.frame_reader import iter_frames

from ..fixtures.coded_clips import write_source

#: 20 windows of the 10 s test source: most start between keyframes (a smart cut: encoded head, copied rest)
WINDOWS = [(round(0.37 * i, 2), round(0.37 * i + 1.6, 2)) for i in range(20)]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_source(tmp_path_factory.mktemp("faultsrc") / "src.mp4")


@pytest.fixture
def cache(tmp_path) -> Path:
    clips._clear_memos()
    return tmp_path / "cache"


def _frames(clip: Path) -> int:
    return sum(1 for _ in iter_frames(clip))


def _entries(cache: Path) -> dict[str, bytes]:
    """Every finished file of the cache (no temporary leftovers), by relative path."""
    return {p.relative_to(cache).as_posix(): p.read_bytes() for p in sorted(cache.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ})


# ------------------------------------------------------------------------------------------------ SIGKILL

_KILL_MID_WRITE = """
import os, signal, sys
from pathlib import Path
from streamgaze_hf.video import clips
cache = Path(sys.argv[1])
real_cut = clips._cut
def cut_then_die(src, start, end, fn):
    n = real_cut(src, start, end, fn)
    for p in cache.rglob("*.mp4"):  # the clip being written (no sidecar yet): cut it in half, as a kill leaves it
        if not p.with_name(p.name + ".json").exists():
            os.truncate(p, p.stat().st_size // 2)
    os.kill(os.getpid(), signal.SIGKILL)
    return n
clips._cut = cut_then_die
clips.prepare_clip(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), cache_dir=cache)
"""


def test_worker_killed_mid_write_leaves_no_partial_clip(source, cache):
    start, end = WINDOWS[3]
    earlier = prepare_clip(source, *WINDOWS[0], cache_dir=cache)
    before = _entries(cache)
    proc = subprocess.run([sys.executable, "-c", _KILL_MID_WRITE, str(cache), str(source), str(start), str(end)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    clips._clear_memos()
    # no partial file where a clip is looked up; the earlier entry is untouched
    assert cached_clip(source, start, end, cache_dir=cache) is None
    assert _entries(cache) == before
    leftovers = [p for p in cache.rglob("*.mp4") if p.name.startswith(".")]
    assert len(leftovers) == 1 and ".tmp" in leftovers[0].name  # the killed writer's temporary file
    stats = cache_stats(cache)
    assert (stats["clips"], stats["corrupt"], stats["orphans"], stats["tmp_files"]) == (1, 0, 0, 1)
    # the next run rebuilds the clip completely and the cache reports no corruption
    clip = prepare_clip(source, start, end, cache_dir=cache)
    assert _frames(clip) == read_sidecar(clip)["n_frames"] > 0
    assert read_sidecar(clip)["clip_size"] == clip.stat().st_size
    stats = cache_stats(cache)
    assert (stats["clips"], stats["corrupt"], stats["orphans"]) == (2, 0, 0)
    assert earlier.read_bytes() == before[earlier.relative_to(cache).as_posix()]


# ------------------------------------------------------------------------------------------ concurrency

_RACE = """
import hashlib, json, sys, time
from pathlib import Path
from streamgaze_hf.video.clips import prepare_clip, read_sidecar
from streamgaze_hf.video.frame_reader import iter_frames
src, cache, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
windows = json.loads(sys.argv[4])
while not go.exists():
    time.sleep(0.005)
out = []
for start, end in windows:
    clip = prepare_clip(src, start, end, cache_dir=cache)
    data = clip.read_bytes()  # what this process hands to a model
    frames = sum(1 for _ in iter_frames(clip))
    side = read_sidecar(clip)
    out.append([hashlib.sha256(data).hexdigest(), len(data), frames, side["n_frames"], side["clip_size"]])
print(json.dumps(out))
"""


def test_four_processes_building_the_same_20_clips(source, cache, tmp_path):
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _RACE, str(source), str(cache), str(go), json.dumps(WINDOWS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    time.sleep(0.5)
    go.touch()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
        results.append(json.loads(out))
    for i, window in enumerate(WINDOWS):
        seen = [r[i] for r in results]
        # every process read a complete clip: all its frames, the size its sidecar records
        for _digest, size, frames, n_frames, clip_size in seen:
            assert frames == n_frames > 0 and size == clip_size, (window, seen)
        # built once, or rebuilt byte for byte: every process got the same bytes
        assert len({s[0] for s in seen}) == 1, (window, seen)
        clip = cached_clip(source, *window, cache_dir=cache)
        assert clip is not None and hashlib.sha256(clip.read_bytes()).hexdigest() == seen[0][0]
    stats = cache_stats(cache)
    assert (stats["clips"], stats["corrupt"], stats["orphans"], stats["tmp_files"]) == (len(WINDOWS), 0, 0, 0)


# ---------------------------------------------------------------------------------------------- ENOSPC


def _disk_full_after(fraction: float):
    """A stand-in for ``clips._cut`` that writes part of the clip, then fails as a full disk does."""
    real_cut = clips._cut

    def cut(src, start, end, fn):
        real_cut(src, start, end, fn)
        for p in Path(clips.clip_cache_dir()).rglob("*.mp4"):  # the clip being written (no sidecar yet)
            if not p.with_name(p.name + ".json").exists():
                os.truncate(p, int(p.stat().st_size * fraction))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return cut


def test_full_disk_while_writing_a_clip(source, cache, monkeypatch):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(cache))
    earlier = prepare_clip(source, *WINDOWS[0])
    before = _entries(cache)
    monkeypatch.setattr(clips, "_cut", _disk_full_after(0.5))
    with pytest.raises(StreamGazeError) as err:
        prepare_clip(source, *WINDOWS[5])
    assert err.value.reason == f"cannot write to the clip cache ({os.strerror(errno.ENOSPC)})"
    assert Path(err.value.path).is_relative_to(cache)
    assert _entries(cache) == before  # the earlier clip and its sidecar are intact, nothing half-written added
    assert not [p for p in cache.rglob("*") if ".tmp" in p.name]
    assert cached_clip(source, *WINDOWS[5]) is None
    monkeypatch.undo()
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(cache))
    clip = prepare_clip(source, *WINDOWS[5])  # with space again: the rerun completes
    assert _frames(clip) == read_sidecar(clip)["n_frames"] > 0
    assert cache_stats(cache)["corrupt"] == 0 and earlier.read_bytes() == before[earlier.relative_to(cache).as_posix()]


_FULL_DISK_BUILD = """
import errno, os, sys
from streamgaze_hf.dataset import writer
real = writer._write_parquet
def write_then_fail(table, path):
    real(table, path)
    if path.parent.name == "oi_easy":  # a few tables in: the disk fills up
        os.truncate(path, path.stat().st_size // 2)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
writer._write_parquet = write_then_fail
from streamgaze_hf.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow  # three builds through the CLI (about 14 s on 2 cores): the dataset path end to end
def test_full_disk_while_writing_a_dataset(tmp_path):
    from streamgaze_hf.dataset.integrity import manifest_problems

    world = tmp_path / "world"
    root = tmp_path / "ds" / "streamgaze"
    sg = [sys.executable, "-m", "streamgaze_hf"]
    assert subprocess.run([*sg, "world", "--out", world, "--videos", "1", "--duration", "20"],
                          capture_output=True).returncode == 0
    first = subprocess.run([*sg, "build", "--raw", world, "--out", root, "--version", "0.1.0"], capture_output=True,
                           text=True)
    assert first.returncode == 0, first.stderr
    before = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    proc = _child(_FULL_DISK_BUILD.replace("sys.argv[1:]", repr(["build", "--raw", str(world), "--out", str(root),
                                                                  "--version", "0.2.0"])))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"streamgaze build streamgaze: error: {root}: cannot write dataset version 0.2.0 ({os.strerror(errno.ENOSPC)}); "
        "the previous version is unchanged")
    after = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert after == before and manifest_problems(root) == []
    # no temporary directory left (.streamgaze.work is the build's per-video resume state, by design)
    assert sorted(p.name for p in root.parent.iterdir()) == [".streamgaze.work", "streamgaze"]
    rerun = subprocess.run([*sg, "build", "--raw", world, "--out", root, "--version", "0.2.0"], capture_output=True,
                           text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads((root / "manifest.json").read_text())["version"] == "0.2.0" and manifest_problems(root) == []
