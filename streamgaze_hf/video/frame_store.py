"""Decoded frames kept on disk for the length of a pass: what a decode unit made, until every clip that needs it is
written.

A pass over a source video (``one_pass.py``) decodes each needed GOP once and hands each wanted frame, converted
and resized, to every clip that needs it; the clips are complete only when all their GOPs are, in whatever order
the units ran (on several threads, or in several processes for ``clips warm``). The frames wait here rather than
in memory: one file per unit (its index, then its frames back to back), renamed into place
when complete, so any thread or process can read a finished unit. A pass's store is one directory, removed when the
pass ends.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np

from ..util.fsutil import atomic_output


class FrameStore:
    """The frames of one pass: ``put(unit, {name: array})`` once per unit, ``get(unit, name)`` any number of times.

    A unit's file is its index (JSON, its length first) followed by its frames back to back, renamed into place
    when complete: any thread or process that sees it can read it."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._index: dict[int, tuple[int, dict[str, tuple[int, tuple[int, ...], str]]]] = {}
        self._lock = threading.Lock()

    def _data(self, unit: int) -> Path:
        return self.root / f"u{unit}.raw"

    def put(self, unit: int, frames: dict[str, np.ndarray]) -> None:
        """Store ``unit``'s frames (name -> array), complete once this returns."""
        self.root.mkdir(parents=True, exist_ok=True)
        arrays = {name: np.ascontiguousarray(arr) for name, arr in frames.items()}
        index: dict[str, tuple[int, tuple[int, ...], str]] = {}
        offset = 0
        for name, arr in arrays.items():
            index[name] = (offset, tuple(arr.shape), arr.dtype.str)
            offset += arr.nbytes
        head = json.dumps({k: [o, list(sh), d] for k, (o, sh, d) in index.items()}).encode()
        with atomic_output(self._data(unit)) as tmp, open(tmp, "wb") as f:
            f.write(len(head).to_bytes(8, "little") + head)
            for arr in arrays.values():
                f.write(memoryview(arr).cast("B"))
        with self._lock:
            self._index[unit] = (8 + len(head), index)

    def has(self, unit: int) -> bool:
        with self._lock:
            if unit in self._index:
                return True
        return self._data(unit).is_file()

    def _unit_index(self, unit: int) -> tuple[int, dict[str, tuple[int, tuple[int, ...], str]]]:
        with self._lock:
            found = self._index.get(unit)
        if found is None:
            with open(self._data(unit), "rb") as f:
                n = int.from_bytes(f.read(8), "little")
                raw = json.loads(f.read(n))
            found = (8 + n, {k: (int(o), tuple(sh), str(d)) for k, (o, sh, d) in raw.items()})
            with self._lock:
                self._index[unit] = found
        return found

    def get(self, unit: int, name: str) -> np.ndarray:
        """The array stored as ``name`` by ``unit`` (read from disk: the page cache holds it while the pass runs)."""
        base, index = self._unit_index(unit)
        offset, shape, dtype = index[name]
        count = int(np.prod(shape)) if shape else 1
        with open(self._data(unit), "rb") as f:
            f.seek(base + offset)
            arr = np.fromfile(f, dtype=np.dtype(dtype), count=count)
        return arr.reshape(shape)

    def drop(self, unit: int) -> None:
        """Forget ``unit``'s frames (every clip that needed them is written)."""
        with self._lock:
            self._index.pop(unit, None)
        try:
            self._data(unit).unlink()
        except FileNotFoundError:
            pass

    def remove(self) -> None:
        """Remove the whole store."""
        with self._lock:
            self._index.clear()
        shutil.rmtree(self.root, ignore_errors=True)
