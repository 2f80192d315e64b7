"""One entry point over every raw-source reader: discover recordings, load one, read one gaze track.

=========== ====================================================================================
source      native layout (details in each module's docstring)
=========== ====================================================================================
world       ``<raw>/<video_id>/{video.mp4, gaze.csv, actions.json, objects.json}``
egtea       ``<raw>/videos/<session>.mp4``, ``<raw>/gaze_data/<session>.txt``,
            ``<raw>/raw_annotations/action_labels.csv``
egoexolearn ``<raw>/videos/<uid>.mp4``, ``<raw>/gazes_30fps_npy/<uid>.npy``,
            ``<raw>/annotations/{<uid>.json | fine_annotation_trainvaltest_en.csv}``
holoassist  ``<raw>/<session>/Export_py/...``, ``<raw>/data-annnotation-trainval-v1_1.json``
ego4d       ``<raw>/videos/<uid>.mp4``, ``<raw>/gaze/<uid>.csv``, optional ``<raw>/narration.json``
egoexo4d_2d ``<raw>/takes/<take>/eye_gaze/general_eye_gaze_2d.csv``,
            ``<raw>/takes/<take>/frame_aligned_videos/<aria>_214-1.mp4``, ``<raw>/annotations/keystep_*.json``
            (Ego-Exo4D's projected 2-D gaze, not the Aria MPS yaw/pitch file)
aria_mps    ``<raw>/videos/<id>.mp4`` (or ``<raw>/<Pxx>/<id>.mp4``), ``<raw>/eye_gaze/<id>/general_eye_gaze.csv``
            + ``calibration.json`` (HD-EPIC: Aria MPS yaw/pitch in CPF, projected into the frames)
neon        ``<raw>/<recording>/``: a native Pupil Labs Neon recording folder (read with the vendor's
            ``pupil-labs-neon-recording``), ``Neon Scene Camera v1 ps<k>.mp4`` + ``.time``
pupil_cloud ``<raw>/<recording>/{gaze.csv, world_timestamps.csv, <scene>.mp4}`` (Pupil Cloud Timeseries
            Data + Scene Video; optional events.csv, fixations.csv, blinks.csv)
pupil_core  ``<raw>/<recording>/exports/<NNN>/{gaze_positions.csv, world.mp4, world_timestamps.npy}``
tobii_g3    ``<raw>/<recording>/{gazedata.gz, scenevideo.mp4}`` (optional eventdata.gz, recording.g3)
tobii_g2    ``<raw>/<recording>/{recording.json, segments/<n>/livedata.json.gz, segments/<n>/fullstream.mp4}``
bids        ``<raw>/sub-<label>/.../<prefix>_recording-<label>_physio.{tsv.gz,json}`` (eyetrack),
            ``<raw>/stimuli/<prefix>.mp4`` (a BIDS eye-tracking dataset, e.g. ``streamgaze export-bids``'s)
=========== ====================================================================================

The five readers of people's own glasses share gaze/sources/wearable.py (scene clock, blinks, device
fixations, events as actions; ``actions.csv`` beside a recording).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ...util.errors import StreamGazeError
from ..track import GazeTrack
from .base import Recording

SOURCES = ("world", "egtea", "egoexolearn", "holoassist", "ego4d", "egoexo4d_2d", "aria_mps",
           "neon", "pupil_cloud", "pupil_core", "tobii_g3", "tobii_g2", "bids")
#: the sources whose ``read_track`` also takes the recording's directory (not only its gaze file)
DIRECTORY_SOURCES = ("world", "holoassist", "neon", "pupil_cloud", "pupil_core", "tobii_g3", "tobii_g2", "bids")


#: the vendor layouts a directory is recognised by when ``--source`` does not fit it, in the order they are tried
#: (a module's ``is_recording(folder)``, or ``looks_like(raw)`` for a layout that is not a folder per recording)
RECOGNISED = {"neon": "Pupil Labs Neon", "pupil_cloud": "Pupil Cloud export", "pupil_core": "Pupil Core (Pupil Player "
              "export)", "tobii_g3": "Tobii Pro Glasses 3", "tobii_g2": "Tobii Pro Glasses 2", "aria_mps": "Aria MPS "
              "eye gaze", "bids": "BIDS eye-tracking"}


def source_module(source: str) -> ModuleType:
    """The reader module of a source (imported on first use)."""
    if source not in SOURCES:
        raise StreamGazeError(f"unknown gaze source {source!r}; choose one of {', '.join(SOURCES)}")
    return importlib.import_module(f"{__package__}.{source}")


def layout(source: str) -> str:
    """One-line description of a source's native layout."""
    return source_module(source).LAYOUT


def recognise(path: Path) -> tuple[str, bool] | None:
    """The vendor layout (:data:`RECOGNISED`) a directory is in: (source, False) when it holds that source's
    recordings, (source, True) when it is itself one recording; None when it is none of them."""
    path = Path(path)
    if not path.is_dir():
        return None
    subdirs = sorted(d for d in path.iterdir() if d.is_dir())
    mods = {s: source_module(s) for s in RECOGNISED}
    for s, mod in mods.items():
        if mod.looks_like(path) if hasattr(mod, "looks_like") else any(mod.is_recording(d) for d in subdirs):
            return s, False
    return next(((s, True) for s, mod in mods.items() if hasattr(mod, "is_recording") and mod.is_recording(path)),
                None)


def _with_hint(exc: StreamGazeError, path: Path, source: str, raw: bool) -> StreamGazeError:
    """``exc`` with the ``--source`` to use appended, when ``path`` is recognisably another source's layout."""
    found = recognise(path)
    if found is None or found[0] == source:
        return exc
    other, itself = found
    what = RECOGNISED[other]
    if not itself:
        hint = f"this holds {what} recordings: give --source {other}"
    elif raw:
        hint = f"this is itself one {what} recording: give --source {other} and its parent folder as --raw"
    else:
        hint = f"this is a {what} recording: give --source {other}"
    return type(exc)(f"{exc.reason}; {hint}", exc.path)


def discover(raw_dir: Path, source: str) -> list[str]:
    """Sorted video ids of a raw directory in the source's native layout (error if there are none; when the
    directory is recognisably another vendor's layout, the error names the ``--source`` to use)."""
    mod = source_module(source)
    raw = Path(raw_dir)
    if not raw.is_dir():
        raise StreamGazeError(f"raw directory not found (expected {mod.LAYOUT})", raw)
    try:
        return mod.discover(raw)
    except StreamGazeError as exc:
        raise _with_hint(exc, raw, source, raw=True) from None


def load_recording(raw_dir: Path, source: str, video_id: str) -> Recording:
    """Video, normalised gaze track and action timeline of one recording."""
    return source_module(source).load_recording(Path(raw_dir), video_id)


def read_track(path: Path, source: str, video: Path | None = None) -> GazeTrack:
    """The normalised gaze track of one recording's gaze file (HoloAssist: its ``Export_py`` directory).

    ``video`` gives the size and rate; without it the video is looked up in the source's native
    layout, else the source's nominal geometry is used where it implies one (EGTEA 1280x960 at
    24 fps, Ego4D 1088x1080 at 30 fps) and an error asks for it otherwise.

    Args:
        path: the gaze file (or directory) in the source's own format.
        source: the source's name (one of :data:`SOURCES`).
        video: the recording's video, for its size and frame rate (None: looked up, or nominal).

    Returns:
        The track, normalised to the video frame (origin top-left; see ``gaze/sources/base.py``).

    Raises:
        StreamGazeError: naming the file, for an unknown source, no file at ``path``, or a source that
            needs the video when none was given or found.
        GazeFormatError: (a StreamGazeError) the file does not follow the source's format.
        VideoError: (a StreamGazeError) the video cannot be probed.
    """
    mod = source_module(source)
    path = Path(path)
    if not path.exists():
        raise StreamGazeError("gaze file not found", path)
    try:
        return mod.read_track(path, None if video is None else Path(video))
    except StreamGazeError as exc:
        raise _with_hint(exc, path, source, raw=False) from None


@dataclass(frozen=True)
class RecordingRef:
    """One recording of a raw directory (cheap to pass to worker processes)."""

    raw: Path
    source: str
    video_id: str


def find_recordings(raw: Path, source: str = "world") -> list[RecordingRef]:
    """The recordings of a raw directory in ``source``'s native layout (sorted by video id)."""
    if not raw.is_dir():
        raise StreamGazeError("raw directory not found", raw)
    return [RecordingRef(raw, source, vid) for vid in discover(raw, source)]


def load(ref: RecordingRef) -> Recording:
    """The recording a reference names (read in its source's layout)."""
    return load_recording(ref.raw, ref.source, ref.video_id)
