"""Keeping the clip cache bounded: ``streamgaze clips stats`` and ``streamgaze clips prune``.

What the cache holds (video/clips.py): clips ``<key[:2]>/<key>.mp4`` with their sidecars
``<key>.mp4.json``, model-ready clips ``ready/<key[:2]>/<key>.mov`` with theirs (evaluation/ready.py), salience images ``salience/<key>.png``, the source-digest index ``sources/*.json``,
and possibly ``.<name>.<random>.tmp.*`` files left by a process killed mid-write.

An *entry* is a clip with its sidecar, or a salience image. Its *last use* is the later of its access
and modification times (cache hits do not write to the cache, so on file systems mounted ``noatime``
this is the time the entry was built). Pruning removes whole entries, least recently used first: the
clip before its sidecar, so a concurrent reader sees either the whole entry or a miss (and rebuilds),
never half of one. Temporary files older than an hour (no writer takes that long) are removed too;
so are a sidecar without its clip (or the reverse) older than an hour. The source-digest index is
kept (a few hundred bytes per source video).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..util.errors import StreamGazeError

TMP_GRACE_S = 3600.0
#: the files an entry is made of, each with its ``<file>.json`` sidecar: window clips (``.mp4``) and model-ready
#: clips (``ready/``: ``.mov`` raw, ``.mp4`` compact; streamgaze_hf/evaluation/ready.py)
CLIP_SUFFIXES = (".mp4", ".mov")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.IGNORECASE)
_AGE_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_size(text: str) -> int:
    """Bytes from ``"123"``, ``"500M"``, ``"1.5G"``, ``"2GB"``, ``"10GiB"`` (K/M/G/T are powers of 1024)."""
    m = _SIZE.match(str(text))
    if not m:
        raise StreamGazeError(f"not a size: {text!r} (e.g. 500M, 20G, 1T, or a number of bytes)")
    return int(float(m[1]) * 1024 ** " kmgt".index(m[2].lower() or " "))


def parse_age(text: str) -> float:
    """Seconds from ``"90"``, ``"45s"``, ``"30m"``, ``"12h"``, ``"7d"``, ``"2w"``."""
    m = _AGE.match(str(text))
    if not m:
        raise StreamGazeError(f"not an age: {text!r} (e.g. 12h, 7d, 2w, or a number of seconds)")
    return float(m[1]) * _AGE_UNITS[m[2].lower()]


@dataclass
class Entry:
    files: list[Path]  # removal order: the clip first, its sidecar last
    size: int
    last_use: float
    kind: str  # clip | salience
    mode: str = ""


@dataclass
class CacheScan:
    root: Path
    entries: list[Entry] = field(default_factory=list)
    tmp: list[tuple[Path, int, float]] = field(default_factory=list)  # (path, size, mtime)
    corrupt: list[Path] = field(default_factory=list)  # clips whose size differs from their sidecar's (read_modes)
    index_bytes: int = 0
    orphans: list[tuple[Path, int, float]] = field(default_factory=list)  # a sidecar without its clip, or the reverse

    @property
    def bytes(self) -> int:
        return (sum(e.size for e in self.entries) + sum(s for _, s, _ in self.tmp) + self.index_bytes
                + sum(s for _, s, _ in self.orphans))


def _stat(p: Path) -> os.stat_result | None:
    try:
        return p.stat()
    except OSError:
        return None


def scan_cache(root: str | os.PathLike[str], read_modes: bool = False) -> CacheScan:
    """Everything in the cache at ``root`` (an absent directory is an empty cache)."""
    root = Path(root)
    scan = CacheScan(root)
    if not root.exists():
        return scan
    if not root.is_dir():
        raise StreamGazeError("clip cache is not a directory", root)
    for dirpath, _dirs, names in os.walk(root):
        d = Path(dirpath)
        rel = d.relative_to(root).parts
        for name in names:
            p = d / name
            st = _stat(p)
            if st is None:
                continue
            if (".tmp" in name and name.startswith(".")) or rel[:1] == ("passes",):
                # a temporary file, or a frame of a pass that a killed process left behind (evaluation/ready.py)
                scan.tmp.append((p, st.st_size, st.st_mtime))
            elif rel[:1] == ("sources",):
                scan.index_bytes += st.st_size
            elif rel[:1] == ("salience",) and name.endswith(".png"):
                scan.entries.append(Entry([p], st.st_size, max(st.st_atime, st.st_mtime), "salience"))
            elif name.endswith(CLIP_SUFFIXES):
                side = p.with_name(name + ".json")
                sst = _stat(side)
                if sst is None:
                    scan.orphans.append((p, st.st_size, st.st_mtime))
                    continue
                mode = ""
                if read_modes:
                    try:
                        meta = json.loads(side.read_bytes())
                        mode = str(meta.get("mode", ""))
                        if meta.get("clip_size") != st.st_size or st.st_size == 0:
                            scan.corrupt.append(p)  # a clip that is not the one its sidecar describes
                    except (OSError, ValueError, AttributeError):
                        mode = "?"
                        scan.corrupt.append(p)
                last = max(st.st_atime, st.st_mtime, sst.st_mtime)
                scan.entries.append(Entry([p, side], st.st_size + sst.st_size, last, "clip", mode))
            elif name.endswith(tuple(f"{x}.json" for x in CLIP_SUFFIXES)) and not (d / name[:-5]).exists():
                scan.orphans.append((p, st.st_size, st.st_mtime))
    return scan


def cache_stats(root: str | os.PathLike[str]) -> dict:
    """Counts and bytes of the cache at ``root`` (``streamgaze clips stats``).

    Args:
        root: the clip cache directory (an absent one is an empty cache).

    Returns:
        ``cache``, ``bytes`` (in all), ``clips``, ``clip_bytes``, ``clip_modes`` (clips per mode of their
        sidecar), ``salience_images``, ``salience_bytes``, ``index_bytes``, ``tmp_files``, ``tmp_bytes``,
        ``orphans``, ``corrupt`` (clips whose size differs from their sidecar's) and ``oldest_use`` /
        ``newest_use`` (epoch seconds, None when empty).

    Raises:
        StreamGazeError: ``root`` exists and is not a directory.
    """
    scan = scan_cache(root, read_modes=True)
    clips = [e for e in scan.entries if e.kind == "clip"]
    sal = [e for e in scan.entries if e.kind == "salience"]
    uses = [e.last_use for e in scan.entries]
    return {
        "cache": str(scan.root), "bytes": scan.bytes,
        "clips": len(clips), "clip_bytes": sum(e.size for e in clips),
        "clip_modes": dict(sorted(Counter(e.mode for e in clips).items())),
        "salience_images": len(sal), "salience_bytes": sum(e.size for e in sal),
        "index_bytes": scan.index_bytes, "tmp_files": len(scan.tmp), "tmp_bytes": sum(s for _, s, _ in scan.tmp),
        "orphans": len(scan.orphans), "corrupt": len(scan.corrupt),
        "oldest_use": min(uses) if uses else None, "newest_use": max(uses) if uses else None,
    }


def format_stats(stats: dict) -> str:
    def when(t):
        return "-" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))

    modes = ", ".join(f"{k or '?'} {v}" for k, v in stats["clip_modes"].items()) or "none"
    return "\n".join([
        f"clip cache {stats['cache']}: {_human(stats['bytes'])} in all",
        f"  clips: {stats['clips']} ({_human(stats['clip_bytes'])}; {modes})",
        f"  salience images: {stats['salience_images']} ({_human(stats['salience_bytes'])})",
        f"  source index: {_human(stats['index_bytes'])}; leftover temporary files: {stats['tmp_files']} "
        f"({_human(stats['tmp_bytes'])}); orphaned halves: {stats['orphans']}; corrupt clips: {stats.get('corrupt', 0)}",
        f"  last use: oldest {when(stats['oldest_use'])}, newest {when(stats['newest_use'])}",
    ])


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def prune_cache(root: str | os.PathLike[str], max_bytes: int | None = None, older_than: float | None = None,
                dry_run: bool = False, now: float | None = None) -> dict:
    """Remove entries last used more than ``older_than`` seconds ago, then the least recently used ones
    until the cache holds at most ``max_bytes``; plus stale temporary files and orphaned halves (only
    those older than a grace period, so a writer at work keeps its files).

    Args:
        root: the clip cache directory (an absent one is an empty cache).
        max_bytes: the size to shrink the cache to (at least 0), or None.
        older_than: remove entries not used for this many seconds, or None.
        dry_run: only count what would be removed.
        now: the current time in epoch seconds (None: the clock's).

    Returns:
        ``removed_entries``, ``removed_tmp``, ``removed_orphans``, ``freed_bytes``, ``kept_entries``,
        ``bytes_after`` and ``dry_run``: what was (or, with ``dry_run``, would be) removed.

    Raises:
        StreamGazeError: neither ``max_bytes`` nor ``older_than`` given, a negative ``max_bytes``, or
            ``root`` exists and is not a directory.
    """
    if max_bytes is None and older_than is None:
        raise StreamGazeError("prune needs --max-bytes or --older-than")
    if max_bytes is not None and max_bytes < 0:
        raise StreamGazeError(f"--max-bytes must be >= 0, got {max_bytes}")
    now = time.time() if now is None else now
    scan = scan_cache(root)
    removed: list[Entry] = []
    keep = sorted(scan.entries, key=lambda e: e.last_use)  # oldest first
    if older_than is not None:
        removed += [e for e in keep if e.last_use < now - older_than]
        keep = [e for e in keep if e.last_use >= now - older_than]
    # a writer renames its sidecar into place just before its clip: only old halves are orphans
    stale_tmp = [(p, s) for p, s, m in scan.tmp if m < now - TMP_GRACE_S]
    orphans = [(p, s) for p, s, m in scan.orphans if m < now - TMP_GRACE_S]
    total = scan.bytes - sum(e.size for e in removed) - sum(s for _, s in stale_tmp) - sum(s for _, s in orphans)
    if max_bytes is not None:
        while keep and total > max_bytes:
            e = keep.pop(0)
            removed.append(e)
            total -= e.size
    freed = scan.bytes - total
    if not dry_run:
        for e in removed:
            for f in e.files:
                f.unlink(missing_ok=True)
        for p, _ in stale_tmp:
            p.unlink(missing_ok=True)
        for p, _ in orphans:
            p.unlink(missing_ok=True)
        _remove_empty_dirs(scan.root)
    return {"removed_entries": len(removed), "removed_tmp": len(stale_tmp), "removed_orphans": len(orphans),
            "freed_bytes": freed, "kept_entries": len(keep), "bytes_after": total, "dry_run": dry_run}


def _remove_empty_dirs(root: Path) -> None:
    for dirpath, _dirs, _names in sorted(os.walk(root), key=lambda t: -len(t[0])):
        if Path(dirpath) != root:
            try:
                os.rmdir(dirpath)
            except OSError:
                pass
