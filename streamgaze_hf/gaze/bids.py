"""One gaze track as BIDS eye tracking (BIDS 1.11, the physiological recordings' ``eyetrack`` type, BEP020), and
back: the files of one recording, what their sidecars say, and how they are read.

**Files** (``<prefix>`` = ``sub-<label>[_ses-<label>]_task-<label>[_run-<index>]``, in ``sub-<label>/beh/``)::

    <prefix>_recording-eye1_physio.tsv.gz        the samples: no header, tab-separated, gzip without a name or time
    <prefix>_recording-eye1_physio.json          PhysioType eyetrack, SamplingFrequency, StartTime, Columns,
                                                 RecordedEye, SampleCoordinateSystem, each column's Units, and
                                                 where each value came from
    <prefix>_recording-eye1_physioevents.tsv.gz  fixations, blinks, the scene video's frames and the actions
    <prefix>_recording-eye1_physioevents.json    Columns, OnsetSource, Description, where each kind came from

Head-mounted glasses give one gaze point for both eyes on the scene camera's image: ``RecordedEye`` is
``cyclopean`` and ``recording-eye1`` the one recording. ``SampleCoordinateSystem`` is ``custom``, described in
the sidecar (``SampleCoordinateSystemDescription``, the columns' ``Description``): the point on the scene video's
frame, normalised to it (x = pixels / width, y = pixels / height), origin top-left, x right, y down; outside
[0, 1] is gaze off the frame. Units: ``timestamp`` ``s``, ``x_coordinate`` / ``y_coordinate`` ``1`` (a fraction
of the frame's width / height). ``valid`` (0 / 1) is the device's validity (gaze/sources/base.py); ``n/a`` is a
sample without a position.

**Time.** ``timestamp`` is seconds on the scene video's clock (0 = its first frame; the toolkit's track time),
written to the microsecond; ``StartTime`` is the first sample's, so a recording lies on the scene video as BIDS
lays a physio file on its reference. Reading follows the same rule for any file: ``t = StartTime + (timestamp -
first timestamp)``, the timestamps converted from their ``Units`` (s, ms, us, ns). ``SamplingFrequency`` is one
over the median sample interval (the nearest whole number when within 1 % of it): the device's nominal rate;
the ``timestamp`` column holds each sample's own time. Positions are written as the shortest text that gives the
same float32 back.

**Events** (``onset`` on the same clock, ``OnsetSource`` ``timestamp``; ``trial_type`` fixation, device_fixation,
blink, frame, action): a fixation of the toolkit's detector has its onset at its first sample's time, its
duration to the last sample, its centroid in ``x_coordinate`` / ``y_coordinate``; a device fixation and a blink as
the device reports them; one ``frame`` per scene video frame
(``message``: its index; duration: to the next frame); an action of the recording's timeline (``message``: its
label).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..util.errors import GazeFormatError
from ..util.fsutil import atomic_output
from .fixations import Fixation
from .track import GazeTrack

BIDS_VERSION = "1.11.0"
DATATYPE = "beh"
RECORDING = "eye1"
TASK = "egocentric"
TASK_NAME = "egocentric activity recorded with head-mounted eye-tracking glasses"
PHYSIO_COLUMNS = ("timestamp", "x_coordinate", "y_coordinate", "valid")
EVENT_COLUMNS = ("onset", "duration", "trial_type", "message", "x_coordinate", "y_coordinate")
NA = "n/a"
COORDINATES = ("gaze on the scene video: the point on the head-mounted scene camera's video frame, normalised to the "
               "frame (x = pixels / frame width, y = pixels / frame height), origin at the top-left corner, x to the "
               "right, y down; values outside [0, 1] are gaze off the frame")
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


@dataclass(frozen=True)
class SceneVideo:
    """The scene video a recording's gaze lies on: its id in the toolkit, size, rate and (when written beside the
    BIDS dataset) its file, relative to the dataset's root."""

    video_id: str
    width: int
    height: int
    fps: float
    file: str = ""

    def as_dict(self) -> dict:
        d = {"VideoId": self.video_id, "Width": self.width, "Height": self.height, "FrameRate": self.fps}
        return {**d, "File": self.file} if self.file else d


@dataclass
class Events:
    """What the physioevents file of one recording holds, each kind with where it came from ("" = not given)."""

    fixations: list[Fixation] = field(default_factory=list)  # the toolkit's detector's
    fixations_source: str = ""
    device_fixations: list[Fixation] = field(default_factory=list)  # the device's own
    device_fixations_source: str = ""
    blinks: list[tuple[float, float]] = field(default_factory=list)
    blinks_source: str = ""
    frames: np.ndarray | None = None  # the scene video's frame times (seconds on its clock)
    frames_source: str = ""
    actions: list[tuple[float, float, str]] = field(default_factory=list)
    actions_source: str = ""


def entity_label(text: str) -> str:
    """A BIDS label from any text: its letters and digits only (BIDS labels are alphanumeric)."""
    label = "".join(c for c in str(text) if c.isascii() and c.isalnum())
    return label or "x"


def sampling_frequency(t: np.ndarray) -> float:
    """One over the median sample interval; the nearest whole number when within 1 % of it (module docstring)."""
    d = np.diff(np.asarray(t, dtype=np.float64))
    if not len(d):
        return 1.0
    f = 1.0 / float(np.median(d))
    whole = round(f)
    return float(whole) if whole and abs(f - whole) <= 0.01 * f else round(f, 3)


def _position(v: float) -> str:
    return NA if not math.isfinite(v) else np.format_float_positional(np.float32(v), unique=True, trim="-")


def _time(v: float) -> str:
    return f"{v:.6f}"


def _gzip_tsv(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """Rows as a headerless TSV in a gzip without a file name or time (reproducible bytes, as BIDS recommends)."""
    data = "".join("\t".join(r) + "\n" for r in rows).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
        gz.write(data)
    with atomic_output(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def write_json(path: Path, obj: dict) -> None:
    """A BIDS JSON file: indented, UTF-8, written atomically."""
    with atomic_output(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def physio_sidecar(track: GazeTrack, scene: SceneVideo, device: dict, gaze_source: str) -> dict:
    """The ``_physio.json`` of a track: BIDS's required fields, the columns' units and descriptions, and where
    each value came from (``gaze_source``: the device and the reader's rule; ``device``: Manufacturer and
    ManufacturersModelName when known)."""
    return {
        "PhysioType": "eyetrack",
        "TaskName": TASK_NAME,
        **device,
        "SamplingFrequency": sampling_frequency(track.t),
        "StartTime": round(float(track.t[0]), 6) if len(track) else 0.0,
        "Columns": list(PHYSIO_COLUMNS),
        "RecordedEye": "cyclopean",
        "SampleCoordinateSystem": "custom",
        "SampleCoordinateSystemDescription": COORDINATES,
        "SceneVideo": scene.as_dict(),
        "timestamp": {"Description": "the sample's time on the scene video's clock (0 = its first frame), to the "
                                     "microsecond", "Units": "s", "Source": gaze_source},
        "x_coordinate": {"Description": "gaze x on the scene video's frame as a fraction of its width (0 = left "
                                        "edge, 1 = right edge; n/a = no position)", "Units": "1",
                         "Source": gaze_source},
        "y_coordinate": {"Description": "gaze y on the scene video's frame as a fraction of its height (0 = top "
                                        "edge, 1 = bottom edge; n/a = no position)", "Units": "1",
                         "Source": gaze_source},
        "valid": {"Description": "1 when the device tracked the gaze (worn, not blinking, above its confidence "
                                 "threshold), else 0", "Levels": {"0": "not tracked", "1": "tracked"},
                  "Source": gaze_source},
    }


def events_sidecar(events: Events) -> dict:
    """The ``_physioevents.json``: its columns, ``OnsetSource`` and where each kind of event came from."""
    sources = {kind: src for kind, src in (("fixation", events.fixations_source),
                                           ("device_fixation", events.device_fixations_source),
                                           ("blink", events.blinks_source), ("frame", events.frames_source),
                                           ("action", events.actions_source)) if src}
    return {
        "TaskName": TASK_NAME,
        "Columns": list(EVENT_COLUMNS),
        "OnsetSource": "timestamp",
        "Description": "fixations, blinks, the scene video's frames and the actions of the recording, on the "
                       "timestamp column's clock (seconds on the scene video's clock)",
        "onset": {"Description": "start of the event (s, on the scene video's clock)", "Units": "s"},
        "duration": {"Description": "length of the event", "Units": "s"},
        "trial_type": {"Description": "the kind of event", "Levels": {
            "fixation": "a fixation of the toolkit's detector (Sources says which rule and parameters): onset at "
                        "its first sample, duration to its last; x_coordinate, y_coordinate: its centroid",
            "device_fixation": "a fixation the device detected (onset, duration and centroid as the device gives "
                               "them)",
            "blink": "a blink the device detected",
            "frame": "a frame of the scene video (message: its index from 0)",
            "action": "an action of the recording's timeline (message: its label)"}},
        "message": {"Description": "the frame's index, or the action's label"},
        "x_coordinate": {"Description": "a fixation's centroid x (fraction of the frame's width)", "Units": "1"},
        "y_coordinate": {"Description": "a fixation's centroid y (fraction of the frame's height)", "Units": "1"},
        "Sources": sources,
    }


def _event_rows(events: Events) -> list[tuple[float, list[str]]]:
    rows: list[tuple[float, list[str]]] = []
    for kind, fixations in (("fixation", events.fixations), ("device_fixation", events.device_fixations)):
        rows += [(f.start, [_time(f.start), _time(max(0.0, f.end - f.start)), kind, NA, _position(f.x),
                            _position(f.y)]) for f in fixations]
    for a, b in events.blinks:
        rows.append((a, [_time(a), _time(max(0.0, b - a)), "blink", NA, NA, NA]))
    if events.frames is not None and len(events.frames):
        fr = np.asarray(events.frames, dtype=np.float64)
        ends = np.append(fr[1:], fr[-1] + (float(np.median(np.diff(fr))) if len(fr) > 1 else 0.0))
        rows += [(float(a), [_time(a), _time(max(0.0, b - a)), "frame", str(i), NA, NA])
                 for i, (a, b) in enumerate(zip(fr, ends))]
    for a, b, label in events.actions:
        rows.append((a, [_time(a), _time(max(0.0, b - a)), "action", label.replace("\t", " ") or NA, NA, NA]))
    return sorted(rows, key=lambda r: (r[0], r[1][2]))


def write_recording(directory: Path, prefix: str, track: GazeTrack, scene: SceneVideo, events: Events,
                    device: dict, gaze_source: str) -> list[Path]:
    """Write one recording's physio and physioevents pairs into ``directory`` (the ``beh`` folder); returns them."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / f"{prefix}_recording-{RECORDING}"
    physio = [[_time(t), _position(x), _position(y), "1" if v else "0"]
              for t, x, y, v in zip(track.t.tolist(), track.x.tolist(), track.y.tolist(), track.valid.tolist())]
    paths = [Path(f"{base}_physio.tsv.gz"), Path(f"{base}_physio.json"), Path(f"{base}_physioevents.tsv.gz"),
             Path(f"{base}_physioevents.json")]
    _gzip_tsv(paths[0], physio)
    write_json(paths[1], physio_sidecar(track, scene, device, gaze_source))
    _gzip_tsv(paths[2], [r for _, r in _event_rows(events)])
    write_json(paths[3], events_sidecar(events))
    return paths


# ---- reading ----------------------------------------------------------------------------------------------

def read_sidecar(path: Path) -> dict:
    """A physio sidecar (JSON object); GazeFormatError naming the file otherwise."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GazeFormatError(f"not a JSON sidecar ({exc})", path) from None
    if not isinstance(obj, dict):
        raise GazeFormatError("not a JSON object", path)
    return obj


def _eyetrack_sidecar(path: Path) -> dict | None:
    """The content of a ``*_physio.json`` that declares eye tracking, else None (not one, or unreadable)."""
    try:
        meta = read_sidecar(path)
    except GazeFormatError:
        return None
    return meta if meta.get("PhysioType") == "eyetrack" else None


def _rows(path: Path) -> list[list[str]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return [line.rstrip("\n").split("\t") for line in fh if line.strip()]
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise GazeFormatError(f"not a gzip of tab-separated text ({exc})", path) from None


def _number(text: str, path: Path, n: int, what: str) -> float:
    if text.strip() == NA:
        return math.nan
    try:
        v = float(text)
    except ValueError:
        raise GazeFormatError(f"line {n}: {what} is not a number: {text!r}", path) from None
    if math.isinf(v):
        raise GazeFormatError(f"line {n}: {what} is not finite: {text!r}", path)
    return v


@dataclass
class Physio:
    """One eyetrack physio file read back: times on the scene video's clock (s), positions (normalised, or
    pixels when ``units`` says so) and validity, with its sidecar."""

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    sidecar: dict
    units: str  # "1" (normalised) or "pixel"


def read_physio(sidecar_path: Path) -> Physio:
    """The samples of the ``_physio.tsv.gz`` beside a ``_physio.json`` (module docstring's rule)."""
    sidecar_path = Path(sidecar_path)
    meta = read_sidecar(sidecar_path)
    data = Path(str(sidecar_path)[: -len(".json")] + ".tsv.gz")
    if not data.is_file():
        raise GazeFormatError(f"no {data.name} beside the sidecar", sidecar_path)
    cols = meta.get("Columns")
    if not (isinstance(cols, list) and all(isinstance(c, str) for c in cols)):
        raise GazeFormatError("Columns is not a list of column names", sidecar_path)
    missing = [c for c in ("timestamp", "x_coordinate", "y_coordinate") if c not in cols]
    if missing:
        raise GazeFormatError(f"Columns lacks {', '.join(missing)} (required for eye tracking)", sidecar_path)
    unit = str((meta.get("timestamp") or {}).get("Units", "s")).strip()
    if unit not in TIME_UNITS:
        raise GazeFormatError(f"timestamp Units {unit!r} is not a time unit ({', '.join(TIME_UNITS)})", sidecar_path)
    units = {str((meta.get(c) or {}).get("Units", "1")).strip() for c in ("x_coordinate", "y_coordinate")}
    kind = "pixel" if units <= {"pixel", "px"} else "1" if units <= {"1"} else None
    if kind is None:
        raise GazeFormatError(f"x_coordinate / y_coordinate Units {sorted(units)} are neither a fraction of the scene "
                              "video's frame ('1') nor its pixels ('pixel')", sidecar_path)
    col = {c: i for i, c in enumerate(cols)}
    ts, xs, ys, vs = [], [], [], []
    for n, row in enumerate(_rows(data), start=1):
        if len(row) != len(cols):
            raise GazeFormatError(f"line {n}: expected {len(cols)} fields (Columns), got {len(row)}", data)
        t = _number(row[col["timestamp"]], data, n, "timestamp")
        if math.isnan(t):
            raise GazeFormatError(f"line {n}: timestamp is n/a", data)
        ts.append(t)
        xs.append(_number(row[col["x_coordinate"]], data, n, "x_coordinate"))
        ys.append(_number(row[col["y_coordinate"]], data, n, "y_coordinate"))
        vs.append(row[col["valid"]].strip() == "1" if "valid" in col else True)
    stamps = np.asarray(ts, dtype=np.float64) * TIME_UNITS[unit]
    start = meta.get("StartTime", 0.0)
    if isinstance(start, bool) or not isinstance(start, int | float) or not math.isfinite(start):
        raise GazeFormatError(f"StartTime is not a number: {start!r}", sidecar_path)
    t = float(start) + (stamps - stamps[0]) if len(stamps) else stamps
    x, y = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    valid = np.asarray(vs, dtype=bool) & np.isfinite(x) & np.isfinite(y)
    return Physio(t, x, y, valid, meta, kind)


def read_events(sidecar_path: Path) -> list[tuple[float, float, str, str]]:
    """(onset, duration, trial_type, message) of the ``_physioevents.tsv.gz`` beside a ``_physioevents.json``
    (empty when there is none)."""
    return [row[:4] for row in read_event_positions(sidecar_path)]


def read_event_positions(sidecar_path: Path) -> list[tuple[float, float, str, str, float, float]]:
    """(onset, duration, trial_type, message, x, y) of every physioevent (:func:`read_events`; x, y NaN where the
    event has no position or the file no such column)."""
    sidecar_path = Path(sidecar_path)
    if not sidecar_path.is_file():
        return []
    meta = read_sidecar(sidecar_path)
    data = Path(str(sidecar_path)[: -len(".json")] + ".tsv.gz")
    cols = meta.get("Columns") or []
    if not data.is_file() or "onset" not in cols:
        return []
    col = {c: i for i, c in enumerate(cols)}
    out = []
    for n, row in enumerate(_rows(data), start=1):
        if len(row) != len(cols):
            raise GazeFormatError(f"line {n}: expected {len(cols)} fields (Columns), got {len(row)}", data)
        onset = _number(row[col["onset"]], data, n, "onset")
        dur = _number(row[col["duration"]], data, n, "duration") if "duration" in col else 0.0
        kind = row[col["trial_type"]].strip() if "trial_type" in col else ""
        msg = row[col["message"]].strip() if "message" in col else ""
        x, y = (_number(row[col[c]], data, n, c) if c in col else math.nan for c in ("x_coordinate", "y_coordinate"))
        out.append((onset, 0.0 if math.isnan(dur) else dur, kind, "" if msg == NA else msg, x, y))
    return out


def physio_files(root: str | os.PathLike[str]) -> list[Path]:
    """Every eyetrack ``*_physio.json`` under the subjects of a BIDS dataset, sorted."""
    return [p for p, _meta in physio_sidecars(root)]


def physio_sidecars(root: str | os.PathLike[str], pattern: str = "sub-*/**/*_physio.json") -> list[tuple[Path, dict]]:
    """Every eyetrack ``*_physio.json`` under the subjects of a BIDS dataset (or matching ``pattern`` under
    ``root``) with its content (each file parsed once), sorted by path."""
    found = ((p, _eyetrack_sidecar(p)) for p in sorted(Path(root).glob(pattern)))
    return [(p, meta) for p, meta in found if meta is not None]
