"""Decoded frames kept on disk for the length of a pass: what a decode unit made, until every clip that needs it is
written.

A pass over a source video (``one_pass.py``) decodes each needed GOP once and hands each wanted frame, converted
and resized, to every clip that needs it; the clips are complete only when all their GOPs are, in whatever order
the units ran (on several threads, or in several processes for ``clips warm``). The frames wait here rather than
in memory: one file per unit (its index, then its frames back to back), renamed into place
when complete, so any thread or process can read a finished unit. A pass's store is one directory, removed when the
pass ends.

Uncompressed clips need no such wait (:class:`ClipPlacement`): where frame ``k`` of a clip goes in its file is
known before any frame is decoded (``video/lossless.RawLayout``), so a unit writes each frame straight into every
clip that needs it, at its place, and a clip is finished by writing its head and index. Each frame is then written
once per clip that holds it and never read back.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np

from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_output
from .lossless import RawLayout


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


class ClipPlacement:
    """The frames of a pass written straight into the uncompressed clips that need them.

    ``clips``: clip id -> (the name of each of its frames, in the clip's order; its :class:`RawLayout`). ``put``
    writes each frame a clip holds at its offset in that clip's partial file (``<root>/<id>.part``; several threads
    or processes may write one file: each writes its own frames' bytes); frames no clip here holds go to a
    :class:`FrameStore` in the same directory (``get``, ``drop``). ``finish(id)`` adds the head and index once every
    frame is written and returns the finished file."""

    def __init__(self, root: str | os.PathLike[str], clips: dict[str, tuple[tuple[str, ...], RawLayout]]) -> None:
        self.root = Path(root)
        self.frames = FrameStore(self.root)
        self._clips = clips
        #: frame name -> every (clip, position) that holds it
        self._where: dict[str, list[tuple[str, int]]] = {}
        for clip, (names, _layout) in clips.items():
            for k, name in enumerate(names):
                self._where.setdefault(name, []).append((clip, k))

    def placed(self, clip: str) -> bool:
        return clip in self._clips

    def layout(self, clip: str) -> RawLayout:
        return self._clips[clip][1]

    def part(self, clip: str) -> Path:
        return self.root / f"{clip}.part"

    def put(self, unit: int, frames: dict[str, np.ndarray]) -> None:
        """Write ``unit``'s frames (name -> array) into the clips that hold them; keep the rest in the store."""
        spots: dict[str, list[tuple[int, np.ndarray]]] = {}
        rest = {}
        for name, arr in frames.items():
            if name not in self._where:
                rest[name] = arr
            for clip, k in self._where.get(name, ()):
                spots.setdefault(clip, []).append((k, arr))
        if spots:
            self.root.mkdir(parents=True, exist_ok=True)
        for clip, items in spots.items():
            layout = self._clips[clip][1]
            fd = _open_part(self.part(clip), layout.end)
            try:
                for k, arr in sorted(items, key=lambda item: item[0]):
                    if arr.shape != (layout.height, layout.width, 3) or arr.dtype != np.uint8:
                        raise StreamGazeError(f"frame {k} of clip {clip} is {arr.shape} {arr.dtype}, the clip holds "
                                              f"({layout.height}, {layout.width}, 3) uint8", self.part(clip))
                    _pwrite_all(fd, memoryview(np.ascontiguousarray(arr)).cast("B"), layout.offset(k))
            finally:
                os.close(fd)
        if rest:
            self.frames.put(unit, rest)

    def finish(self, clip: str) -> Path:
        """The clip's file, complete: its head and index written around the frames ``put`` placed."""
        layout = self._clips[clip][1]
        path = self.part(clip)
        fd = os.open(path, os.O_WRONLY)
        try:
            size = os.fstat(fd).st_size
            # a frame no unit wrote leaves the file short, or a hole in it (found where the file system tells)
            hole = os.lseek(fd, layout.HEAD, os.SEEK_HOLE) if size == layout.end and hasattr(os, "SEEK_HOLE") else size
            if size != layout.end or hole < layout.end:
                raise StreamGazeError(f"clip {clip} is missing frames (nothing was written at byte {min(size, hole)} "
                                      f"of {layout.end})", path)
            _pwrite_all(fd, layout.head(), 0)
            _pwrite_all(fd, layout.tail(), layout.end)
        finally:
            os.close(fd)
        return path

    def get(self, unit: int, name: str) -> np.ndarray:
        return self.frames.get(unit, name)

    def drop(self, unit: int) -> None:
        self.frames.drop(unit)

    def remove(self) -> None:
        """Remove the whole store, with any unfinished clip."""
        self.frames.remove()


def _open_part(path: Path, size: int) -> int:
    """A clip's partial file, open for writing; whoever creates it reserves its ``size`` bytes first (one
    allocation instead of one per page as the frames arrive: less than half the CPU for the same writes in
    perf/clip_write.py's in-place case, docs/performance.md). The reserved bytes read as a hole until a frame is
    written there."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return os.open(path, os.O_WRONLY)
    reserve = getattr(os, "posix_fallocate", None)  # not on macOS
    try:
        if reserve is not None:
            reserve(fd, 0, size)
    except OSError:  # a file system that cannot reserve: the frames allocate as they are written
        pass
    return fd


def _pwrite_all(fd: int, data: memoryview | bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n
