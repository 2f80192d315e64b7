"""Atomic file and directory writes (nothing half-written is ever left at the destination), and where this
user's caches live (:func:`user_cache_dir`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .provenance import TOOLKIT

_HASH_CHUNK = 1 << 20

_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK
DIR_MODE = 0o777 & ~_UMASK


@contextlib.contextmanager
def atomic_output(dest: str | os.PathLike[str], suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``dest``; rename it onto ``dest`` only if the block succeeds.

    The temporary file keeps ``dest``'s suffix (or ``suffix``) so that writers which pick a format
    from the extension (PyAV, OpenCV) still work. On any exception the temporary file is removed.
    """
    dest = Path(dest)
    created = missing_parents(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp" + (suffix or dest.suffix), dir=dest.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, FILE_MODE)  # mkstemp creates 0600; give the file normal permissions
        os.replace(tmp_path, dest)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        remove_empty(created)
        raise


def missing_parents(path: Path) -> list[Path]:
    """The ancestors of ``path`` that do not exist yet, deepest first."""
    missing = []
    p = Path(path).parent
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    return missing


def remove_empty(dirs: list[Path]) -> None:
    """Remove directories (deepest first) that a failed write created, while they are empty."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            break


@contextlib.contextmanager
def atomic_directory(dest: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary directory next to ``dest``; move it into place only if the block succeeds.

    ``dest`` must not exist when the block ends (callers decide about overwriting beforehand).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        yield tmp
        os.chmod(tmp, DIR_MODE)  # mkdtemp creates 0700
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def link_or_copy(src: Path, dest: Path, into: str) -> None:
    """Hard-link ``src`` as ``dest`` (same filesystem), else copy it; the parents of ``dest`` are made. A failed
    copy is a StreamGazeError naming ``src`` and where it was going (``into``, e.g. "the dataset as videos/x.mp4")."""
    from .errors import StreamGazeError

    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        try:
            shutil.copyfile(src, dest)
        except OSError as exc:
            raise StreamGazeError(f"cannot copy {src} into {into}: {exc}", src) from exc


def write_text_atomic(dest: str | os.PathLike[str], text: str) -> None:
    with atomic_output(dest) as tmp:
        tmp.write_text(text, encoding="utf-8")


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def user_cache_dir(name: str, env: str) -> Path:
    """Where one of this user's caches lives (the clip cache, the VLM answers, ...): ``$<env>`` when set,
    else ``~/.cache/streamgaze/<name>``. The one rule for every cache location; nothing is created here.

    Args:
        name: the cache's folder under the toolkit's cache folder (e.g. ``clips``).
        env: the variable that moves it (e.g. ``STREAMGAZE_CLIP_CACHE``).

    Returns:
        The directory (absolute when the variable was absolute; ``~`` expanded).
    """
    raw = os.environ.get(env, "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / TOOLKIT / name
