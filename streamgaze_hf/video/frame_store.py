"""Decoded frames kept on disk for the length of a pass: what a decode unit made, until every clip that needs it is
written.

A pass over a source video (``one_pass.py``) decodes each needed GOP once and hands each wanted frame, converted
and resized, to every clip that needs it; the clips are complete only when all their GOPs are, in whatever order
the units ran (on several threads, or in several processes for ``clips warm``). The frames wait here rather than
in memory: one file per unit (its frames back to back) and a small JSON index beside it, both renamed into place
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

from ..util.fsutil import atomic_output, write_text_atomic


class FrameStore:
    """The frames of one pass: ``put(unit, {name: array})`` once per unit, ``get(unit, name)`` any number of times."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._index: dict[int, dict[str, tuple[int, tuple[int, ...], str]]] = {}
        self._lock = threading.Lock()

    def _data(self, unit: int) -> Path:
        return self.root / f"u{unit}.raw"

    def put(self, unit: int, frames: dict[str, np.ndarray]) -> None:
        """Store ``unit``'s frames (name -> array), complete once this returns."""
        self.root.mkdir(parents=True, exist_ok=True)
        index: dict[str, tuple[int, tuple[int, ...], str]] = {}
        offset = 0
        out = self._data(unit)
        with atomic_output(out) as tmp, open(tmp, "wb") as f:
            for name, arr in frames.items():
                arr = np.ascontiguousarray(arr)
                f.write(memoryview(arr).cast("B"))
                index[name] = (offset, tuple(arr.shape), arr.dtype.str)
                offset += arr.nbytes
        write_text_atomic(out.with_suffix(".json"), json.dumps({k: [o, list(s), d] for k, (o, s, d) in index.items()}))
        with self._lock:
            self._index[unit] = index

    def has(self, unit: int) -> bool:
        with self._lock:
            if unit in self._index:
                return True
        return self._data(unit).with_suffix(".json").is_file()

    def _unit_index(self, unit: int) -> dict[str, tuple[int, tuple[int, ...], str]]:
        with self._lock:
            index = self._index.get(unit)
        if index is None:
            raw = json.loads(self._data(unit).with_suffix(".json").read_text())
            index = {k: (int(o), tuple(s), str(d)) for k, (o, s, d) in raw.items()}
            with self._lock:
                self._index[unit] = index
        return index

    def get(self, unit: int, name: str) -> np.ndarray:
        """The array stored as ``name`` by ``unit`` (read from disk: the page cache holds it while the pass runs)."""
        offset, shape, dtype = self._unit_index(unit)[name]
        count = int(np.prod(shape)) if shape else 1
        with open(self._data(unit), "rb") as f:
            f.seek(offset)
            arr = np.fromfile(f, dtype=np.dtype(dtype), count=count)
        return arr.reshape(shape)

    def drop(self, unit: int) -> None:
        """Forget ``unit``'s frames (every clip that needed them is written)."""
        with self._lock:
            self._index.pop(unit, None)
        for p in (self._data(unit), self._data(unit).with_suffix(".json")):
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def remove(self) -> None:
        """Remove the whole store."""
        with self._lock:
            self._index.clear()
        shutil.rmtree(self.root, ignore_errors=True)
