"""Finding the release's videos in ``videos/`` (tarballs or their extracted folders), by path.

The release ships six tarballs ``videos_{egtea,egoexolearn,holoassist}_{original,viz}.tar.gz``
(reference §1.1); their internal layout is undocumented. Extracted folders with the same names
(without ``.tar.gz``) and the evaluator's flat ``original_video/`` / ``gaze_viz_video/`` folders (source
unknown) are accepted too.

Videos are told apart by **path, never by basename alone**: HoloAssist questions name
``<session>/Export_py/Video_pitchshift.mp4``, so many different videos share one basename.

* :func:`assign_video_ids` gives every distinct referenced path its own video id: the file's stem
  when no other referenced path has the same basename, else the path's distinguishing directories
  (``R001/Export_py/Video_pitchshift.mp4`` and ``R002/...`` → ``R001`` and ``R002``). A path that
  is only a suffix of several referenced paths, or two paths that end up with the same id, is one
  error naming both paths.
* :func:`locate_videos` collects every file in ``videos/`` whose basename is referenced: folders
  first (no copying), then only what no folder had is streamed out of the tarballs, member by
  member, into a caller-provided temporary directory, each member under a name chosen here
  (``<tmp>/<archive>/<n>/<basename>``, regular files only: nothing can land outside it).
* :func:`pick_file` chooses a video's file among them by the longest common path ending. A file
  that fits two referenced paths equally well, or two files that fit one path equally well with
  different bytes, is one error naming both; identical copies are a note.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import tarfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from ...dataset import Problem
from ...util.errors import StreamGazeError

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
    """A video file found in a container (``member``: its path inside it) and where it is on disk."""

    path: Path
    source: str
    container: str
    member: str

    @property
    def label(self) -> str:
        return f"{self.container}/{self.member}"


@dataclass
class VideoLookup:
    """Result of :func:`locate_videos`: per kind, basename → every file with that name, plus problems."""

    found: dict[str, dict[str, list[LocatedVideo]]] = field(
        default_factory=lambda: {ORIGINAL: defaultdict(list), OVERLAY: defaultdict(list)})
    problems: list[Problem] = field(default_factory=list)

    def candidates(self, kind: str, name: str) -> list[LocatedVideo]:
        """Every file of ``kind`` a reference with basename ``name`` may mean."""
        return [hit for c in candidate_names(name) for hit in self.found[kind].get(c, [])]


def candidate_names(name: str) -> tuple[str, ...]:
    """File names a referenced video may have: itself, or ``<name>.mp4`` when it has no extension."""
    return (name,) if Path(name).suffix else (name, name + ".mp4")


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def _is_suffix(short: list[str], long: list[str]) -> bool:
    return len(short) <= len(long) and long[len(long) - len(short):] == short


# ---------------------------------------------------------------------------------------------- ids


@dataclass
class VideoIds:
    """Referenced path → video id, and each id's full (longest) referenced path."""

    of_ref: dict[str, str]
    path_of: dict[str, str]


def assign_video_ids(refs: Iterable[str], where: Path | None = None) -> VideoIds:
    """Video ids of the referenced paths (see the module docstring); StreamGazeError on ambiguity."""
    groups: dict[str, set[str]] = defaultdict(set)
    for ref in refs:
        groups[posixpath.basename(ref)].add(ref)
    of_ref: dict[str, str] = {}
    path_of: dict[str, str] = {}
    for name in sorted(groups):
        refs_ = sorted(groups[name])
        parts = {r: _parts(r) for r in refs_}
        maximal = [r for r in refs_ if not any(o != r and _is_suffix(parts[r], parts[o]) for o in refs_)]
        ids = {m: _distinguishing_id(m, maximal, parts) for m in maximal}
        for m in maximal:
            vid = ids[m]
            if vid in path_of and path_of[vid] != m:
                raise StreamGazeError(f"two different videos get the id {vid!r}: {path_of[vid]} and {m}; "
                                      "rename one of them", where)
            path_of[vid] = m
            of_ref[m] = vid
        for r in refs_:
            if r in of_ref:
                continue
            owners = [m for m in maximal if _is_suffix(parts[r], parts[m])]
            if len(owners) > 1:
                raise StreamGazeError(f"ambiguous video path {r}: it may be {owners[0]} or {owners[1]}", where)
            of_ref[r] = ids[owners[0]]
    return VideoIds(of_ref, path_of)


def _distinguishing_id(ref: str, maximal: list[str], parts: dict[str, list[str]]) -> str:
    """The file stem when ``ref`` is the only path with its basename, else the directories of its shortest
    unique path ending that differ from another path at the same depth, joined with ``-``."""
    stem = Path(parts[ref][-1]).stem
    others = [parts[o] for o in maximal if o != ref]
    if not others:
        return stem
    mine = parts[ref]
    k = next(k for k in range(2, len(mine) + 1) if all(o[-k:] != mine[-k:] for o in others))
    keep = [mine[-d] for d in range(k, 1, -1) if any(len(o) < d or o[-d] != mine[-d] for o in others)]
    return "-".join(keep) or stem


# ---------------------------------------------------------------------------------------------- lookup


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
    """Every file named like a wanted basename (both kinds): folders first, then the rest from tarballs."""
    lookup = VideoLookup()
    names = {c for w in wanted for c in candidate_names(w)}
    containers = discover_containers(videos_dir)
    bar = tqdm(containers, desc="release videos", unit="archive", disable=not progress, leave=False)
    for container in bar:
        missing = names
        if container.is_archive:  # only what no folder (or earlier archive) had
            missing = {n for n in names if not lookup.found[container.kind].get(n)}
        if not missing:
            continue
        bar.set_postfix_str(container.path.name)
        if container.is_archive:
            _scan_archive(container, missing, tmp_dir, lookup)
        else:
            _scan_folder(container, missing, lookup)
    return lookup


def _record(lookup: VideoLookup, container: VideoContainer, name: str, path: Path, member: str) -> None:
    lookup.found[container.kind][name].append(LocatedVideo(path, container.source, container.label, member))


def _scan_folder(container: VideoContainer, names: set[str], lookup: VideoLookup) -> None:
    for dirpath, dirnames, filenames in os.walk(container.path):
        dirnames.sort()
        for fname in sorted(filenames):
            path = Path(dirpath) / fname
            if fname in names and path.is_file():
                _record(lookup, container, fname, path, path.relative_to(container.path).as_posix())


def _scan_archive(container: VideoContainer, missing: set[str], tmp_dir: Path, lookup: VideoLookup) -> None:
    dest_dir = tmp_dir / container.path.name.split(".")[0]
    n = 0
    try:
        with tarfile.open(container.path, mode="r|*") as tf:
            for member in tf:
                member_path = "/".join(_parts(member.name))
                name = posixpath.basename(member_path)
                if not member.isfile() or name not in missing:
                    continue
                dest = _safe_destination(dest_dir / str(n), name, tmp_dir)
                n += 1
                src = tf.extractfile(member)
                if src is None:
                    continue
                with src, dest.open("wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
                _record(lookup, container, name, dest, member_path)
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


# ---------------------------------------------------------------------------------------------- choice


def _score(ref: list[str], member: str) -> int:
    """How many trailing path components ``member`` shares with ``ref`` (its basename may add .mp4)."""
    mine = _parts(member)
    if not mine or mine[-1] not in candidate_names(ref[-1]):
        return 0
    n = 1
    while n < min(len(ref), len(mine)) and ref[-1 - n] == mine[-1 - n]:
        n += 1
    return n


def _same_bytes(files: list[LocatedVideo]) -> bool:
    sizes = {f.path.stat().st_size for f in files}
    if len(sizes) > 1:
        return False
    return len({_sha256(f.path) for f in files}) == 1


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def pick_files(lookup: VideoLookup, kind: str, ids: VideoIds, where: Path | None = None,
               notes: list[Problem] | None = None) -> dict[str, LocatedVideo]:
    """Video id → its file of ``kind`` (ids without a file are absent).

    Each file goes to the referenced path it shares the longest ending with; a file that fits several
    equally well is an error unless each of them has a better fitting file. Among the files of one
    video, the best fitting one wins; a tie of different bytes is an error, of identical bytes a note.
    """
    by_name: dict[str, list[str]] = defaultdict(list)
    for vid, path in sorted(ids.path_of.items()):
        by_name[posixpath.basename(path)].append(vid)
    out: dict[str, LocatedVideo] = {}
    for name, vids in sorted(by_name.items()):
        refs = {vid: _parts(ids.path_of[vid]) for vid in vids}
        assigned: dict[str, list[tuple[int, LocatedVideo]]] = defaultdict(list)
        tied: list[tuple[int, LocatedVideo, list[str]]] = []
        for hit in lookup.candidates(kind, name):
            scores = {vid: _score(ref, hit.member) for vid, ref in refs.items()}
            best = max(scores.values())
            owners = [vid for vid, s in scores.items() if s == best]
            if best == 0:
                continue
            if len(owners) == 1:
                assigned[owners[0]].append((best, hit))
            else:
                tied.append((best, hit, owners))
        for best, hit, owners in tied:
            unsure = [v for v in owners if not any(s > best for s, _ in assigned[v])]
            if unsure:
                a, b = (ids.path_of[v] for v in owners[:2])
                raise StreamGazeError(f"ambiguous video file {hit.label}: it may be {a} or {b} (the file's path "
                                      "does not tell them apart)", where)
        for vid, hits in assigned.items():
            top = max(s for s, _ in hits)
            best_hits = sorted((h for s, h in hits if s == top), key=lambda h: h.label)
            if len(best_hits) > 1:
                if not _same_bytes(best_hits):
                    raise StreamGazeError(f"ambiguous video {ids.path_of[vid]}: {best_hits[0].label} and "
                                          f"{best_hits[1].label} are different files", where)
                if notes is not None:
                    notes.append(Problem("duplicate_video_file", best_hits[1].container, detail=(
                        f"{best_hits[1].label} is identical to {best_hits[0].label}; using the first")))
            out[vid] = best_hits[0]
    return out
