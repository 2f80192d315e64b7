"""Waiting on background threads: the two loops every pool of worker threads in the toolkit needs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable


def wait_until(cond: threading.Condition, done: Callable[[], bool], timeout: float | None = None,
               stop: Callable[[], bool] = lambda: False) -> bool:
    """With ``cond`` held by the caller: wait until ``done()`` (True), or ``timeout`` seconds pass or ``stop()``
    (False). ``cond`` is re-checked at least every second."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not done():
        if stop():
            return False
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        cond.wait(1.0 if left is None else min(left, 1.0))
    return True


def join_threads(threads: Iterable[threading.Thread], timeout: float | None = None) -> None:
    """Join ``threads`` (not the calling one), all of them within ``timeout`` seconds together."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for t in threads:
        if t is not threading.current_thread():
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
