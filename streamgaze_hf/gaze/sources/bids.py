"""A BIDS eye-tracking dataset (BIDS 1.11 physio files of ``PhysioType`` ``eyetrack``), with the scene videos
beside it: what ``streamgaze export-bids`` writes, or any BIDS dataset of head-mounted gaze on a scene video.

Native layout::

    <raw>/dataset_description.json
    <raw>/sub-<label>/[ses-<label>/]<datatype>/<prefix>_recording-<label>_physio.{tsv.gz,json}   (eyetrack)
    <raw>/sub-<label>/.../<prefix>_recording-<label>_physioevents.{tsv.gz,json}             optional
    <raw>/stimuli/<prefix>.mp4                                                             the scene video

One recording per ``<prefix>`` (``sub-<label>[_ses-<label>]_task-<label>[_acq-...][_run-<index>]``): its
``cyclopean`` file when there are several eyes, else the first by label. Its video id is the sidecar's
``SceneVideo.VideoId`` (what the export wrote), else the prefix; its scene video ``SceneVideo.File`` (relative to
the dataset's root), else ``stimuli/<prefix>.mp4``.

Track (gaze/bids.py's rule): t = ``StartTime`` + (``timestamp`` - the first one), in seconds on the scene video's
clock; x, y as written when their ``Units`` are ``1`` (a fraction of the frame), divided by the video's width and
height when ``pixel``; valid = the ``valid`` column (1) when there is one, and a position. Samples outside the
scene video's frames are dropped as every reader drops them. Without the video the sidecar's ``SceneVideo``
size and rate are the frame (no assumption: the export recorded them); a file without them needs the video.
Actions: the physioevents of ``trial_type`` ``action`` (message: the label), else ``actions.csv`` in the
recording's datatype folder; the device's blinks and fixations: those of ``trial_type`` ``blink`` and
``device_fixation`` (its centroid ``x_coordinate``, ``y_coordinate``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ...util.errors import GazeFormatError, StreamGazeError
from ..bids import Physio, physio_files, physio_sidecars, read_event_positions, read_physio
from ..fixations import Fixation
from ..track import GazeTrack
from .base import Action, Recording, sort_actions
from .wearable import SceneClock, read_actions_csv, scene_track, valid_samples

SOURCE = "bids"
LAYOUT = ("<raw>/{dataset_description.json, sub-<label>/.../<prefix>_recording-<label>_physio.tsv.gz + .json "
          "(PhysioType eyetrack), stimuli/<prefix>.mp4} (a BIDS eye-tracking dataset with its scene videos)")
_RECORDING = re.compile(r"^(?P<prefix>.+)_recording-(?P<label>[0-9A-Za-z]+)_physio\.json$")


def looks_like(raw: Path) -> bool:
    """Whether ``raw`` is a BIDS dataset holding eye tracking."""
    return (Path(raw) / "dataset_description.json").is_file() and bool(physio_files(raw))


def _choose(files: list[tuple[Path, dict]]) -> tuple[Path, dict]:
    """The recording of one prefix (its sidecar and content): the cyclopean one when there are several, else the
    first by label."""
    cyclopean = [f for f in files if f[1].get("RecordedEye") == "cyclopean"]
    return (cyclopean or files)[0]


def _index(raw: Path) -> dict[str, tuple[Path, Path]]:
    """video id -> (its physio sidecar, its scene video path) of every recording of a BIDS dataset; worked out once
    for the same sidecars (paths, sizes and times)."""
    raw = Path(raw)
    stamp = tuple((str(f), *st) for f in sorted(raw.glob("sub-*/**/*_physio.json")) if (st := _stat(f)) is not None)
    index = dict(_index_of(str(raw), stamp))
    _LATEST[str(raw)] = ({f: (size, mtime) for f, size, mtime in stamp}, index)
    return index


#: dataset root -> (sidecar -> (size, mtime) when it was last indexed, that index)
_LATEST: dict[str, tuple[dict[str, tuple[int, int]], dict[str, tuple[Path, Path]]]] = {}


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _entry(raw: Path, video_id: str) -> tuple[Path, Path] | None:
    """One recording's (sidecar, scene video): from the dataset's last index while that sidecar is unchanged (a
    build reads every recording of the dataset it has just discovered: without walking the dataset again for
    each), else from a new index."""
    latest = _LATEST.get(str(raw))
    if latest is not None and video_id in latest[1]:
        sidecar = latest[1][video_id][0]
        if latest[0].get(str(sidecar)) == _stat(sidecar):
            return latest[1][video_id]
    return _index(raw).get(video_id)


@lru_cache(maxsize=8)
def _index_of(raw: str, _stamp: tuple) -> tuple[tuple[str, tuple[Path, Path]], ...]:
    by_prefix: dict[str, list[tuple[Path, dict]]] = {}
    for f, meta in physio_sidecars(raw):
        m = _RECORDING.match(f.name)
        prefix = m.group("prefix") if m else f.name[: -len("_physio.json")]
        by_prefix.setdefault(prefix, []).append((f, meta))
    out: dict[str, tuple[Path, Path]] = {}
    for prefix, files in sorted(by_prefix.items()):
        sidecar, meta = _choose(files)
        scene = meta.get("SceneVideo") or {}
        vid = str(scene.get("VideoId") or prefix) if isinstance(scene, dict) else prefix
        video = Path(raw) / (str(scene.get("File")) if isinstance(scene, dict) and scene.get("File")
                             else f"stimuli/{prefix}.mp4")
        if vid in out:
            raise StreamGazeError(f"two recordings have the video id {vid!r} ({out[vid][0].name}, {sidecar.name})", raw)
        out[vid] = (sidecar, video)
    return tuple(out.items())


def discover(raw: Path) -> list[str]:
    """The video ids of a BIDS eye-tracking dataset; every recording must have its scene video."""
    raw = Path(raw)
    index = _index(raw) if (raw / "dataset_description.json").is_file() else {}
    if not index:
        raise StreamGazeError(f"no BIDS eye-tracking recordings found (expected {LAYOUT})", raw)
    for vid, (sidecar, video) in index.items():
        if not video.is_file():
            raise StreamGazeError(f"scene video of {vid!r} not found (expected {video.relative_to(raw)} for "
                                  f"{sidecar.name})", raw)
    return sorted(index)


def _track(physio: Physio, video: Path | None, where: Path) -> GazeTrack:
    scene = physio.sidecar.get("SceneVideo") if isinstance(physio.sidecar.get("SceneVideo"), dict) else {}
    clock = None
    if video is not None:
        from ...video import probe_video

        info = probe_video(video)
        width, height, fps = info.width, info.height, info.fps
        clock = SceneClock.of([info.frame_times], 1.0, video)
    else:
        try:
            width, height, fps = int(scene["Width"]), int(scene["Height"]), float(scene["FrameRate"])
        except (KeyError, TypeError, ValueError):
            raise StreamGazeError("no scene video: the sidecar has no SceneVideo Width, Height and FrameRate; give "
                                  "the video (--video)", where) from None
    x, y = physio.x, physio.y
    if physio.units == "pixel":
        x, y = x / width, y / height
    return scene_track(clock, physio.t, x, y, physio.valid, width, height, fps, where)


def _sidecar_of(path: Path) -> tuple[Path, Path | None]:
    """(physio sidecar, its scene video or None) of a folder holding one recording (a dataset's root, or any folder
    in it: a subject's, a datatype's), or of a physio file."""
    path = Path(path)
    if path.is_dir():
        root = _dataset_root(path)
        inside = path.resolve()
        found = [(s, v) for s, v in _index(root or path).values() if root is None or inside in s.resolve().parents]
        if not found and root is None:  # a folder of physio files outside any BIDS dataset: no scene video
            found = [(s, None) for s, _meta in physio_sidecars(path, "*_physio.json")]
        if len(found) != 1:
            raise StreamGazeError(f"{len(found)} eye-tracking recordings here; name one's _physio.json "
                                  f"({', '.join(s.name for s, _ in found) or 'none'})", path)
        sidecar, video = found[0]
        return sidecar, video if video is not None and video.is_file() else None
    sidecar = path if path.name.endswith(".json") else Path(str(path).removesuffix(".tsv.gz") + ".json")
    if not sidecar.is_file():
        raise GazeFormatError("no _physio.json sidecar beside the file", path)
    return sidecar, None


def _dataset_root(path: Path) -> Path | None:
    """The BIDS dataset a folder is in: the folder itself or the nearest folder above holding
    ``dataset_description.json``."""
    for d in (path.resolve(), *path.resolve().parents):
        if (d / "dataset_description.json").is_file():
            return d
    return None


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of a BIDS dataset with one recording, or of one ``*_physio.json`` / ``.tsv.gz``; the scene video
    (given, or the dataset's) sets the clock's frames and the frame, else the sidecar's ``SceneVideo``."""
    sidecar, own = _sidecar_of(path)
    return _track(read_physio(sidecar), Path(video) if video is not None else own, sidecar)


def load_recording(raw: Path, video_id: str) -> Recording:
    """Scene video, gaze track and actions of one recording of a BIDS dataset."""
    raw = Path(raw)
    entry = _entry(raw, video_id)
    if entry is None:
        raise StreamGazeError(f"no recording {video_id!r} in this BIDS dataset", raw)
    sidecar, video = entry
    if not video.is_file():
        raise StreamGazeError(f"scene video not found (expected {video.relative_to(raw)})", raw)
    track = _track(read_physio(sidecar), video, sidecar)
    events = read_event_positions(Path(str(sidecar).replace("_physio.json", "_physioevents.json")))
    # an event's end is its onset + duration, both written to the microsecond: read to the microsecond too
    actions = [Action(a, round(a + d, 6), label) for a, d, kind, label, _x, _y in events if kind == "action" and label]
    csv = sidecar.parent / "actions.csv"
    if not actions and csv.is_file():
        actions = read_actions_csv(csv)
    blinks = [(a, round(a + d, 6)) for a, d, kind, *_ in events if kind == "blink"]
    fixations = [Fixation(a, round(a + d, 6), x, y, valid_samples(track, a, round(a + d, 6)))
                 for a, d, kind, _label, x, y in events if kind == "device_fixation"]
    return Recording(video_id, SOURCE, video, track, sort_actions(actions), sidecar.parent,
                     device_fixations=fixations or None, device_blinks=blinks or None)

