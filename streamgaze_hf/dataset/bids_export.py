"""``streamgaze export-bids``: gaze as a BIDS 1.11 eye-tracking dataset (gaze/bids.py has the files' rules).

SOURCE is a built dataset of any benchmark (a folder or ``hf://datasets/ORG/NAME@REV``: every video with gaze
samples becomes one recording), or one raw recording with ``--source`` (read as ``streamgaze gaze`` reads it).
The dataset written::

    <out>/dataset_description.json   BIDSVersion 1.11.0, DatasetType raw, GeneratedBy (the toolkit and its
                                     version), SourceDatasets (the built dataset's name and version)
    <out>/README.md                  what this is and where each value came from
    <out>/participants.tsv + .json   one participant per recording (the toolkit does not know who wore the
                                     glasses), with its video id and raw source
    <out>/sub-<label>/beh/sub-<label>_task-egocentric_recording-eye1_{physio,physioevents}.{tsv.gz,json}
    <out>/stimuli/sub-<label>_task-egocentric.mp4   the scene video (unless --no-videos), which
                                     ``--source bids`` reads back

``sub-<label>``: the video id's letters and digits (BIDS labels are alphanumeric; a clash gets a number). Where
each value came from is in the sidecars: the gaze (the device, through the toolkit's reader of its format, or the
built dataset's gaze config), the fixations (the toolkit's detector, gaze/fixations.py, with its parameters:
the dataset's build options, or the defaults for a raw recording; the device's own as ``device_fixation``), the
blinks (the device's, when it gives them: Neon, Pupil Cloud), the frame times (the scene video's own
presentation times) and the actions (the recording's timeline). A built dataset's device fixations, blinks and
actions are those its build kept (``events/recording_events.json``, recording_events.py). The export is written to a temporary folder and
moved into place when complete (``--force`` replaces an existing one).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..gaze import (
    BIDS_VERSION,
    DATATYPE,
    TASK,
    Events,
    Fixation,
    FixationParams,
    GazeTrack,
    SceneVideo,
    entity_label,
    extract_fixations,
    write_json,
    write_recording,
)
from ..util.errors import StreamGazeError
from ..util.fsutil import atomic_directory, link_or_copy
from .load import DatasetHandle
from .recording_events import EVENTS_FILE, actions_of, blinks_of, device_fixations_of, read_recording_events
from .rows import gaze_tracks

#: (Manufacturer, ManufacturersModelName) of the raw sources whose device is known
DEVICES = {
    "neon": ("Pupil Labs", "Neon"), "pupil_cloud": ("Pupil Labs", "Neon or Pupil Invisible (Pupil Cloud export)"),
    "pupil_core": ("Pupil Labs", "Pupil Core"), "tobii_g3": ("Tobii", "Tobii Pro Glasses 3"),
    "tobii_g2": ("Tobii", "Tobii Pro Glasses 2"), "aria_mps": ("Meta", "Project Aria"),
    "egoexo4d_2d": ("Meta", "Project Aria"), "holoassist": ("Microsoft", "HoloLens 2"),
    "egtea": ("SensoMotoric Instruments", "SMI eye-tracking glasses"),
}


@dataclass
class Export:
    """One recording to write: its track on the scene video's clock, its events and where each came from."""

    video_id: str
    source: str  # the raw source the gaze was read from (registry name)
    track: GazeTrack
    scene: SceneVideo
    video: Path | None  # the scene video file, when there is one
    gaze_source: str
    events: Events = field(default_factory=Events)


def detector_source(params: FixationParams, origin: str) -> str:
    """Where the toolkit's fixations came from: the rule and its parameters."""
    return (f"{origin}: the toolkit's fixation detector (streamgaze_hf/gaze/fixations.py: dispersion around the "
            f"running centroid on valid in-frame samples), r_thresh={params.r_thresh} frame widths, "
            f"min_duration={params.min_duration} s, max_interruption={params.max_interruption} s")


def _frames(video: Path | None) -> np.ndarray | None:
    if video is None or not Path(video).is_file():
        return None
    from ..video import probe_video

    return probe_video(video).frame_times


# ---- from a built dataset ---------------------------------------------------------------------------------

def dataset_exports(dataset: DatasetHandle) -> Iterator[Export]:
    """One :class:`Export` per video of a built dataset that has gaze samples."""
    manifest = dataset.manifest
    build = manifest.get("build") or {}
    options = build.get("options") or {}
    fx = options.get("fixation") or {}
    params = FixationParams(**{k: fx[k] for k in ("r_thresh", "min_duration", "max_interruption") if k in fx})
    device = options.get("fixations") == "device"
    version, name = manifest.get("version", ""), manifest.get("name", "")
    origin = f"the built dataset {name} {version}".strip()
    videos = dataset.read_config("videos").to_pylist()
    tracks = gaze_tracks(dataset, {row["video_id"] for row in videos}, {row["video_id"]: row for row in videos})
    fixations = dataset.read_config("fixations").to_pydict()
    kept = read_recording_events(dataset)  # the recordings' actions, device fixations and blinks, when kept
    fix_by_video: dict[str, list[Fixation]] = {}
    for i, vid in enumerate(fixations["video_id"]):
        fix_by_video.setdefault(vid, []).append(Fixation(fixations["start"][i], fixations["end"][i], fixations["x"][i],
                                                         fixations["y"][i], fixations["n_samples"][i]))
    for row in videos:
        track = tracks.get(row["video_id"])
        if track is None:
            continue
        video = dataset.file(row["video_path"])
        source = row.get("source") or build.get("source") or ""
        events = Events(frames=_frames(video), frames_source="the scene video's own frame times (the dataset's "
                                                             f"{row['video_path']})")
        fixes = fix_by_video.get(row["video_id"], [])
        recorded = kept.get(row["video_id"], {})
        own = device_fixations_of(recorded)
        if own is not None:  # every fixation of the device's (those the build used are among them)
            events.device_fixations = own
            events.device_fixations_source = f"{origin}: the {source} recording's own fixations ({EVENTS_FILE})"
        elif device:
            events.device_fixations = fixes
            events.device_fixations_source = (f"{origin}: the device's own fixations lasting at least "
                                              f"{params.min_duration} s (build --fixations device)")
        if not device:
            events.fixations, events.fixations_source = fixes, detector_source(params, origin)
        if (blinks := blinks_of(recorded)) is not None:
            events.blinks, events.blinks_source = blinks, f"{origin}: the {source} recording's own blinks ({EVENTS_FILE})"
        if actions := actions_of(recorded):
            events.actions = actions
            events.actions_source = f"{origin}: the recording's action timeline ({EVENTS_FILE})"
        yield Export(row["video_id"], source, track, SceneVideo(row["video_id"], row["width"], row["height"],
                                                                 row["fps"]), video,
                     f"{origin}: its gaze config (read from the {source} recording by the toolkit's reader, "
                     f"streamgaze_hf/gaze/sources/{source}.py)", events)


# ---- from one raw recording -------------------------------------------------------------------------------

def raw_export(path: Path, source: str, video: Path | None = None) -> Export:
    """The :class:`Export` of one raw recording: its whole recording (device fixations, blinks, actions) when
    the source reads it as a recording folder with its scene video, else its track alone (``streamgaze gaze``'s
    reading, which says what it assumed without the video)."""
    from ..gaze import DIRECTORY_SOURCES, load_recording, read_track

    path = Path(path)
    rec = None
    if video is None and path.is_dir() and source in DIRECTORY_SOURCES:
        try:
            rec = load_recording(path.parent, source, path.name)
        except StreamGazeError:
            rec = None  # no scene video (or not a whole recording folder): the track alone, below
    track = rec.track if rec is not None else read_track(path, source, video)
    scene_file = rec.video_path if rec is not None else video
    reader = f"device: read by the toolkit's {source} reader (streamgaze_hf/gaze/sources/{source}.py states its rule)"
    params = FixationParams()
    events = Events(fixations=extract_fixations(track, params), fixations_source=detector_source(params, "toolkit"),
                    frames=_frames(scene_file), frames_source="the scene video's own frame times")
    if rec is not None:
        if rec.device_fixations:
            events.device_fixations = rec.device_fixations
            events.device_fixations_source = f"device: the {source} recording's own fixations"
        if rec.device_blinks:
            events.blinks, events.blinks_source = rec.device_blinks, f"device: the {source} recording's own blinks"
        if rec.actions:
            events.actions = [(a.start, a.end, a.label) for a in rec.actions]
            events.actions_source = "the recording's action timeline (actions.csv, else the user's events)"
    vid = rec.video_id if rec is not None else path.name
    return Export(vid, source, track, SceneVideo(vid, track.width, track.height, track.fps), scene_file, reader,
                  events)


# ---- the dataset ------------------------------------------------------------------------------------------

def _participants(ids: list[str]) -> dict[str, str]:
    """video id -> a unique BIDS participant label."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for vid in ids:
        label, k = entity_label(vid), 1
        while label in used:
            k += 1
            label = f"{entity_label(vid)}{k}"
        used.add(label)
        out[vid] = label
    return out


def _readme(name: str, exports: list[Export]) -> str:
    from ..util.provenance import TOOLKIT

    return (f"# {name}\n\nGaze of head-mounted eye-tracking glasses on their scene videos, written by `{TOOLKIT} "
            "export-bids` as BIDS eye tracking (BIDS 1.11, physio files of PhysioType "
            f"eyetrack). {len(exports)} recording(s), one participant each: the toolkit does not know who wore the "
            "glasses.\n\nGaze is the one (cyclopean) point the glasses give on the scene camera's video, normalised "
            "to the frame (origin top-left), with timestamps in seconds on the scene video's clock. Where each value "
            "came from (the device through the toolkit's reader of its format, the toolkit's fixation detector and "
            "its parameters, the device's blinks and fixations) is said in each sidecar (`Source`, `Sources`). "
            "The scene videos are in `stimuli/`.\n")


def export_bids(source: str | os.PathLike[str], out: str | os.PathLike[str], *, raw_source: str | None = None,
                video: str | os.PathLike[str] | None = None, copy_videos: bool = True, force: bool = False,
                progress: bool = True) -> list[tuple[str, str]]:
    """Write the BIDS eye-tracking dataset of ``source`` at ``out`` (module docstring).

    Args:
        source: a built dataset (folder or Hub reference), or with ``raw_source`` one raw recording.
        out: the BIDS dataset's folder (must not exist unless ``force``).
        raw_source: the raw recording's source (registry name); None: ``source`` is a built dataset.
        video: a raw recording's scene video (as ``streamgaze gaze --video``).
        copy_videos: also write each scene video into ``stimuli/`` (a hard link where possible).
        force: replace an existing ``out``.
        progress: show a progress bar.

    Returns:
        (video id, participant label) of every recording written.

    Raises:
        StreamGazeError: before any work for an existing ``out`` without ``force``, an unknown source or a
            missing SOURCE; a dataset without gaze; whatever the readers raise for a bad recording.
    """
    from tqdm import tqdm

    out = Path(out)
    if out.exists() and not force:
        raise StreamGazeError("already exists (give --force to replace it)", out)
    if raw_source is not None:
        from ..gaze import source_module

        source_module(raw_source)
        if not Path(source).exists():
            raise StreamGazeError("no such recording", source)
        exports = [raw_export(Path(source), raw_source, Path(video) if video else None)]
        name, description = f"{exports[0].video_id} ({raw_source})", {}
    else:
        if video is not None:
            raise StreamGazeError("--video is for a raw recording (with --source); a built dataset has its videos")
        from .load import open_dataset

        data = open_dataset(source)
        manifest = data.manifest
        exports = list(dataset_exports(data))
        if not exports:
            raise StreamGazeError("no gaze samples in this dataset: nothing to export", data.path)
        name = f"{manifest.get('name', data.path.name)} {manifest.get('version', '')}".strip()
        description = {"SourceDatasets": [{"Version": str(manifest.get("version", ""))}]}
    from .. import __version__
    from ..util.provenance import TOOLKIT

    labels = _participants([e.video_id for e in exports])
    with atomic_directory(out) as tmp:
        write_json(tmp / "dataset_description.json", {
            "Name": name, "BIDSVersion": BIDS_VERSION, "DatasetType": "raw",
            "GeneratedBy": [{"Name": TOOLKIT, "Version": __version__, "Description": "streamgaze export-bids"}],
            **description})
        (tmp / "README.md").write_text(_readme(name, exports), encoding="utf-8")
        (tmp / "participants.tsv").write_text(
            "participant_id\tvideo_id\tsource\n"
            + "".join(f"sub-{labels[e.video_id]}\t{e.video_id}\t{e.source or 'n/a'}\n" for e in exports),
            encoding="utf-8")
        write_json(tmp / "participants.json", {
            "participant_id": {"Description": "one participant per recording (the toolkit does not know who wore "
                                              "the glasses)"},
            "video_id": {"Description": "the recording's video id in the toolkit that exported it (GeneratedBy)"},
            "source": {"Description": "the raw layout the gaze was read from (streamgaze --source)"}})
        for e in tqdm(exports, desc="export-bids", unit="recording", disable=not progress):
            label = labels[e.video_id]
            prefix = f"sub-{label}_task-{TASK}"
            scene = e.scene
            if copy_videos and e.video is not None and Path(e.video).is_file():
                rel = f"stimuli/{prefix}.mp4"
                link_or_copy(Path(e.video), tmp / rel, f"the BIDS dataset as {rel}")
                scene = SceneVideo(scene.video_id, scene.width, scene.height, scene.fps, rel)
            make, model = DEVICES.get(e.source, ("", ""))
            device = {"Manufacturer": make, "ManufacturersModelName": model} if make else {}
            write_recording(tmp / f"sub-{label}" / DATATYPE, prefix, e.track, scene, e.events, device, e.gaze_source)
    return [(e.video_id, labels[e.video_id]) for e in exports]
