"""Keeping freed memory for the next frame while model-ready frames are made: glibc's malloc thresholds.

Making a model-ready frame allocates a few megabytes and frees them straight after: the readers' RGB conversion
(6 MB for a 1080p frame), torchvision's resize buffers, the frame handed to the clips. With glibc's defaults such
blocks go back to the kernel (a block above the mmap threshold is unmapped when freed; a heap's free top above the
trim threshold is released), so the next frame's block is fresh memory that faults in page by page: about 130 page
faults a frame in a pass over a 1080p source, 0.7–1.4 million a 200-question run. On a virtual machine that
reports freed pages to its host (virtio's free page reporting, common in clouds) each of them is a host fault too.

:func:`keep_freed_memory` raises both thresholds once per process, before the first frame is made
(``evaluation/ready.run_unit``): blocks up to :data:`MMAP_THRESHOLD` come from the heap, and up to
:data:`TRIM_THRESHOLD` of a heap's free top stays with the process for the next frame. In a profiled pass over our
layout's 200 windows this took the frame conversions' page faults from 636,000 to 1,400 (docs/performance.md).
The cost: a process keeps up to that much freed memory per malloc arena instead of returning it.

Your own settings win: when the environment sets any of glibc's malloc tunables (``GLIBC_TUNABLES`` with a
``glibc.malloc.`` name, or ``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TOP_PAD_``,
``MALLOC_MMAP_MAX_``), nothing is changed. On a C library other than glibc nothing is changed either.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import threading
from collections.abc import Mapping

#: blocks up to this size come from a heap: glibc's largest mmap threshold on a 64-bit system (half its heap size)
MMAP_THRESHOLD = 32 << 20
#: a heap keeps up to this much free memory at its top
TRIM_THRESHOLD = 256 << 20

# mallopt's parameter numbers (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_USER_VARIABLES = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")

_LOCK = threading.Lock()
_STATE: str | None = None  # None: not decided yet; else what keep_freed_memory returned


def user_malloc_settings(environ: Mapping[str, str] | None = None) -> list[str]:
    """The variables of ``environ`` (default: this process's) that set glibc's malloc behaviour."""
    env = os.environ if environ is None else environ
    found = [name for name in _USER_VARIABLES if env.get(name, "").strip()]
    if any(part.strip().startswith("glibc.malloc.") for part in env.get("GLIBC_TUNABLES", "").split(":")):
        found.append("GLIBC_TUNABLES")
    return found


def keep_freed_memory() -> str:
    """Raise glibc's mmap and trim thresholds (module docstring), once per process.

    Returns:
        ``"set"`` (this call or an earlier one set them), ``"user"`` (the environment sets malloc's behaviour:
        left as it is), or ``"unsupported"`` (not glibc, or its ``mallopt`` refused a value).
    """
    global _STATE
    if _STATE is not None:
        return _STATE
    with _LOCK:
        if _STATE is None:
            _STATE = _apply()
        return _STATE


def _apply() -> str:
    if user_malloc_settings():
        return "user"
    if platform.libc_ver()[0] != "glibc":
        return "unsupported"
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return "unsupported"
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # the trim threshold first: setting the mmap threshold also ends glibc's own adjusting of both
    if not mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) or not mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD):
        return "unsupported"
    return "set"
