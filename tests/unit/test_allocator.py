"""Keeping freed memory for the next frame (util/allocator.py): each case runs in a fresh Python process, since
glibc's thresholds are the process's."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from streamgaze_hf.util.allocator import user_malloc_settings

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc thresholds")

# A frame's worth of work as a pass does it: three 6 MB blocks (a 1080p RGB frame's size) written and freed, 20
# times, on the main thread and on a worker thread (its own malloc arena). Prints what keep_freed_memory said
# and the page faults of each thread's 20 frames.
FRAMES = r"""
import ctypes, json, resource, sys, threading
from streamgaze_hf.util import allocator
state = allocator.keep_freed_memory() if sys.argv[1] == "keep" else None
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
MB = 1 << 20
def frames(n):
    for _ in range(n):
        blocks = [libc.malloc(6 * MB) for _ in range(3)]
        for b in blocks:
            ctypes.memset(b, 1, 6 * MB)
        for b in blocks:
            libc.free(b)
faults = []
def count():
    frames(3)
    f0 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    frames(20)
    faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - f0)
count()
t = threading.Thread(target=count)
t.start()
t.join()
print(json.dumps({"state": state, "faults": faults}))
"""


def run_frames(mode: str, **env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES",) and not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", FRAMES, mode], env={**clean, **env}, capture_output=True,
                         text=True, check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_freed_frames_are_reused_without_page_faults():
    default = run_frames("default")
    kept = run_frames("keep")
    assert kept["state"] == "set"
    # glibc's defaults give each frame fresh memory (at least a fault per block per frame); kept, none after the
    # first frames, on either thread
    assert all(f >= 20 * 3 for f in default["faults"]), default
    assert all(f < 20 for f in kept["faults"]), kept


def test_the_users_own_malloc_settings_win():
    r = run_frames("keep", MALLOC_TRIM_THRESHOLD_="131072")
    assert r["state"] == "user"
    assert all(f >= 20 * 3 for f in r["faults"]), r  # glibc's behaviour as the user set it: fresh memory
    assert run_frames("keep", GLIBC_TUNABLES="glibc.malloc.mmap_threshold=65536")["state"] == "user"


def test_which_variables_count_as_the_users_malloc_settings():
    assert user_malloc_settings({}) == []
    assert user_malloc_settings({"MALLOC_MMAP_THRESHOLD_": "1", "MALLOC_TOP_PAD_": " "}) == ["MALLOC_MMAP_THRESHOLD_"]
    assert user_malloc_settings({"GLIBC_TUNABLES": "glibc.rtld.nns=2:glibc.malloc.trim_threshold=9"}) == [
        "GLIBC_TUNABLES"]
    assert user_malloc_settings({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F"}) == []

