"""Finding the release's videos by file name in ``videos/`` (tarballs or their extracted folders).

The release ships six tarballs ``videos_{egtea,egoexolearn,holoassist}_{original,viz}.tar.gz``
(reference §1.1); their internal layout is undocumented, so a video is looked up by its basename
anywhere inside. Extracted folders with the same names (without ``.tar.gz``) and the evaluator's
flat ``original_video/`` / ``gaze_viz_video/`` folders (source unknown) are accepted too.

Folders are searched first (no copying); only videos still missing are then streamed out of the
tarballs, one pass per tarball, member by member, into a caller-provided temporary directory. A
member is written to ``<tmp>/<archive name>/<basename>`` under a name chosen here, never to its
own path, and only regular files are read, so no member can land outside the temporary directory.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .release_report import Problem

ORIGINAL, OVERLAY = "original", "overlay"
_NAMED = re.compile(r"^videos_(?P<source>[a-z0-9]+)_(?P<kind>original|viz)(?P<ext>\.tar\.gz|\.tgz|\.tar)?$",
                    re.I)
_FLAT = {"original_video": ORIGINAL, "gaze_viz_video": OVERLAY}


@dataclass(frozen=True)
class VideoContainer:
    """A tarball or folder of videos of one kind (original / overlay) and, if known, one source."""

    path: Path
    kind: str
    source: str  # "" when the container does not say
    is_archive: bool

    @property
    def label(self) -> str:
        return f"videos/{self.path.name}"


@dataclass(frozen=True)
class LocatedVideo:
    """Where a video file was found (or extracted to) and which container it came from."""

    path: Path
    source: str
    container: str


@dataclass
class VideoLookup:
    """Result of :func:`locate_videos`: basename → location, per kind, plus problems/notes."""

    found: dict[str, dict[str, LocatedVideo]] = field(
        default_factory=lambda: {ORIGINAL: {}, OVERLAY: {}})
    problems: list[Problem] = field(default_factory=list)

    def get(self, kind: str, name: str) -> LocatedVideo | None:
        for candidate in candidate_names(name):
            hit = self.found[kind].get(candidate)
            if hit is not None:
                return hit
        return None


def candidate_names(name: str) -> tuple[str, ...]:
    """File names a referenced video may have: itself, or ``<name>.mp4`` when it has no extension."""
    return (name,) if Path(name).suffix else (name, name + ".mp4")


def discover_containers(videos_dir: Path) -> list[VideoContainer]:
    """The video tarballs/folders directly under ``videos_dir``, sorted (folders before tarballs)."""
    if not videos_dir.is_dir():
        return []
    out = []
    for p in sorted(videos_dir.iterdir()):
        m = _NAMED.match(p.name)
        if m and (bool(m["ext"]) == p.is_file()) and (p.is_file() or p.is_dir()):
            kind = ORIGINAL if m["kind"].lower() == "original" else OVERLAY
            out.append(VideoContainer(p, kind, m["source"].lower(), p.is_file()))
        elif p.name in _FLAT and p.is_dir():
            out.append(VideoContainer(p, _FLAT[p.name], "", False))
    return sorted(out, key=lambda c: (c.is_archive, c.path.name))


def locate_videos(videos_dir: Path, wanted: set[str], tmp_dir: Path, progress: bool = True) -> VideoLookup:
    """Find every wanted basename (both kinds): folders first, then stream the rest out of tarballs."""
    lookup = VideoLookup()
    names = {c for w in wanted for c in candidate_names(w)}
    containers = discover_containers(videos_dir)
    bar = tqdm(containers, desc="release videos", unit="archive", disable=not progress, leave=False)
    for container in bar:
        missing = names
        if container.is_archive:  # only what no folder (or earlier archive) had
            missing = {n for n in names if lookup.get(container.kind, n) is None}
        if not missing:
            continue
        bar.set_postfix_str(container.path.name)
        if container.is_archive:
            _scan_archive(container, missing, wanted, tmp_dir, lookup)
        else:
            _scan_folder(container, missing, lookup)
    return lookup


def _record(lookup: VideoLookup, container: VideoContainer, name: str, path: Path) -> None:
    found = lookup.found[container.kind]
    if name in found:
        lookup.problems.append(Problem("duplicate_video_file", container.label, detail=(
            f"{name} also in {found[name].container}; using the first")))
        return
    found[name] = LocatedVideo(path, container.source, container.label)


def _scan_folder(container: VideoContainer, names: set[str], lookup: VideoLookup) -> None:
    for dirpath, dirnames, filenames in os.walk(container.path):
        dirnames.sort()
        for fname in sorted(filenames):
            if fname in names and (Path(dirpath) / fname).is_file():
                _record(lookup, container, fname, Path(dirpath) / fname)


def _scan_archive(container: VideoContainer, missing: set[str], wanted: set[str], tmp_dir: Path,
                  lookup: VideoLookup) -> None:
    dest_dir = tmp_dir / container.path.name.split(".")[0]
    try:
        with tarfile.open(container.path, mode="r|*") as tf:
            for member in tf:
                name = posixpath.basename(member.name.replace("\\", "/"))
                if not member.isfile() or name not in missing:
                    continue
                dest = _safe_destination(dest_dir, name, tmp_dir)
                src = tf.extractfile(member)
                if src is None:
                    continue
                with src, dest.open("wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
                _record(lookup, container, name, dest)
                missing.discard(name)
                if not any(lookup.get(container.kind, w) is None for w in wanted):
                    break
    except (tarfile.TarError, OSError, EOFError) as exc:
        problem = Problem("unreadable_archive", container.label, detail=f"cannot read archive ({exc})")
        lookup.problems.append(problem)


def _safe_destination(dest_dir: Path, name: str, root: Path) -> Path:
    """``dest_dir/name`` after checking it stays inside ``root`` (name is a bare basename)."""
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise OSError(f"refusing archive member name {name!r}")
    dest = (dest_dir / name).resolve()
    if not dest.is_relative_to(root.resolve()):
        raise OSError(f"archive member {name!r} would land outside the temporary directory")
    dest.parent.mkdir(parents=True, exist_ok=True)
    return dest
