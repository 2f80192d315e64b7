"""The one rule for "does this file match its ``manifest.json`` entry" (size first, then sha256), memoised.

:func:`file_problem` is the rule: what is wrong with a file given its manifest entry (``None`` when it
matches), as ``<name>: <problem>``. ``streamgaze doctor`` and the writer's ``verify_dataset`` report it one
line per file (:func:`streamgaze_hf.dataset.integrity.manifest_problems`); :func:`verify_file`, the check
made on the way to using a file (``dataset/load.py`` ``dataset_files``), raises it as one
:class:`StreamGazeError` naming the file. Both say the same words about the same file.

A match is remembered per *file identity* — (real path, size, mtime_ns, inode, device) together with the
digest it must have — as an empty marker file under ``$STREAMGAZE_VERIFY_CACHE`` (default
``~/.cache/streamgaze/verified``) and in this process, so a second check (in this run or the next, by any
command) costs one ``stat``. A file that is rewritten, touched or replaced has another identity and is
hashed again. Problems are never remembered.

This module sits in the Hub client layer (below ``dataset/``), so it names the manifest file itself.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..util.errors import StreamGazeError
from ..util.fsutil import sha256_file, user_cache_dir

__all__ = ["MANIFEST", "VERIFY_CACHE_ENV", "verify_cache_dir", "file_problem", "verify_file"]

MANIFEST = "manifest.json"
VERIFY_CACHE_ENV = "STREAMGAZE_VERIFY_CACHE"
_DONE: set[str] = set()


def verify_cache_dir() -> Path:
    return user_cache_dir("verified", VERIFY_CACHE_ENV)


def _identity_key(path: Path, sha256: str) -> tuple[str, os.stat_result]:
    real = os.path.realpath(path)
    st = os.stat(real)
    text = f"{real}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_dev}\0{sha256}"
    return hashlib.sha256(text.encode()).hexdigest(), st


def _marker(key: str) -> Path:
    return verify_cache_dir() / key[:2] / key


def _remember(key: str) -> None:
    _DONE.add(key)
    marker = _marker(key)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # a read-only cache: the check is still made, only not remembered across runs
        pass


def _reason(path: Path, entry: Mapping[str, Any] | None) -> str | None:
    """The problem of ``path`` against ``entry`` without the file's name; ``None`` when it matches."""
    if entry is None:
        return f"not listed in {MANIFEST}"
    if not path.is_file():
        return f"missing (listed in {MANIFEST})"
    expected = str(entry.get("sha256", ""))
    try:
        key, st = _identity_key(path, expected)
        if key in _DONE or _marker(key).exists():
            _DONE.add(key)
            return None
        size = entry.get("bytes")
        if size is not None and st.st_size != int(size):  # a truncated or grown file, found without hashing
            return f"{st.st_size:,} bytes, {MANIFEST} says {int(size):,} (truncated or changed)"
        digest = sha256_file(path)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if digest != expected:
        return f"sha256 {digest[:12]}… differs from {MANIFEST} ({expected[:12] or 'none'}…)"
    _remember(key)
    return None


def file_problem(path: str | os.PathLike[str], entry: Mapping[str, Any] | None,
                 name: str | None = None) -> str | None:
    """What is wrong with the file at ``path`` given its manifest ``entry`` (``{"sha256", "bytes"}``;
    ``None``: the manifest does not list it), as ``<name>: <problem>`` (``name``: the file's path inside
    the dataset, default its file name); ``None`` when it matches. Memoised (see the module)."""
    path = Path(path)
    reason = _reason(path, entry)
    return None if reason is None else f"{name or path.name}: {reason}"


def verify_file(path: str | os.PathLike[str], entry: Mapping[str, Any]) -> None:
    """Raise :func:`file_problem` of ``path`` as one :class:`StreamGazeError` on the file (printed by the
    CLI as ``streamgaze COMMAND: error: <path>: <problem>``, the line ``streamgaze doctor`` prints for it)."""
    path = Path(path)
    reason = _reason(path, entry)
    if reason is not None:
        raise StreamGazeError(reason, path)
