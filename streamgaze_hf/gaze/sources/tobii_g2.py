"""Tobii Pro Glasses 2 recordings (the SD card's recording folder).

Native layout (``projects/<project>/recordings/<recording>/`` on the card; pass the ``recordings`` folder as
``--raw``)::

    <raw>/<recording>/recording.json                 defines the recordings (rec_et_samples, rec_et_valid_samples)
    <raw>/<recording>/segments/<n>/livedata.json.gz  the data stream of segment n = 1, 2, ...
    <raw>/<recording>/segments/<n>/fullstream.mp4    the scene video of segment n
    <raw>/<recording>/actions.csv                    optional: the action timeline (start, end, label)

(participant.json, sysinfo.json, segment.json, et.tslv.gz, eyesstream.mp4 are not read.)

**Format** (Tobii Pro Glasses 2 Developer's Guide, "Data output"): one JSON object per line, each with ``ts``
(microseconds on the recording unit's clock), ``s`` (status: 0 = ok, anything else = the packet's data is not
valid) and one payload. Read here: ``gp`` = [x, y], the gaze point on the scene video normalised to the frame,
origin top-left; ``vts`` (below); ``type`` / ``tag`` (events sent through the glasses' API). Not read: ``pts``
/ ``pv`` (the live stream's MPEG-TS timestamps), ``evts`` (the eye video's), ``pc``, ``pd``, ``gd``, ``gp3``,
``gy``, ``ac`` (eye and IMU data) and ``sig`` / ``dir`` (the sync port). The lines are not in time order: every
segment's lines are read in segment order and the packets sorted by ``ts`` (a stable sort).

**Time.** A ``vts`` packet ``{ts, vts}`` says that the scene video's frame at video time ``vts`` (µs from the
segment video's first frame) belongs to data time ``ts`` (the Developer's Guide; GlassesViewer's and
glassesTools' readers take the ``ts`` of the ``vts`` = 0 packet as the video's first frame, ``ts - vts`` being the
same for every packet of a segment). So the scene video's frame at video time ``v`` is at data time ``ts0 - vts0
+ v`` (``ts0``, ``vts0``: the segment's first valid ``vts`` packet), and the frames' data times, taken from the
video's own presentation times, are the scene clock of gaze/sources/wearable.py (segments joined as its parts
are: no gap, no overlap). Samples outside the scene frames are dropped as every reader drops them: the G2
streams data before the video starts (gzz7stc: 26 samples, 0.8 s before ``vts`` 0). Without the video (``streamgaze
gaze`` on a bare recording) the G2's nominal 1920 x 1080 at 25 fps is assumed, one frame every 40 ms from
``vts`` 0 to the segment's last sample (an :class:`~.wearable.AssumedVideoWarning` says so); the time origin is
still the device's ``vts`` 0.

**Validity.** A gaze sample is valid when its status ``s`` is 0 and ``gp`` is two finite numbers (what
recording.json counts as ``rec_et_valid_samples``); a sample with ``s`` not 0 (recorded as ``gp = [0, 0]``) has
no position (NaN, untracked). Off-frame points (outside [0, 1]) keep their position and are valid
(``GazeTrack.in_frame`` is False for them).

**Actions.** ``actions.csv`` beside the recording, else the API events (packets with ``type``; label: their
``tag`` when it is text, else their ``type``) through gaze/sources/wearable.py's rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ..track import GazeTrack
from .base import Recording, discover_recordings, json_lines, recording_folders
from .wearable import SceneClock, assumed, joined_scene_video, recording_actions, scene_track

SOURCE = "tobii_g2"
LAYOUT = ("<raw>/<recording>/{recording.json, segments/<n>/livedata.json.gz, segments/<n>/fullstream.mp4} "
          "(Tobii Pro Glasses 2 SD card; optional actions.csv)")
META, LIVEDATA, VIDEO = "recording.json", "livedata.json.gz", "fullstream.mp4"
NOMINAL = (1920, 1080, 25.0)  # the G2's scene camera
US = 1e-6


@dataclass
class Segment:
    """One segment's packets, sorted by ``ts`` (µs): gaze samples, the video sync offset, the API events."""

    path: Path  # its livedata.json.gz
    ts: np.ndarray  # int64 µs of every gp packet
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    status: np.ndarray  # the packets' s
    offset: int | None  # ts - vts of the first valid vts packet (None: the segment has none)
    events: list[tuple[int, str]] = field(default_factory=list)

    @property
    def video(self) -> Path:
        return self.path.parent / VIDEO


def _int(obj: dict, key: str, path: Path, n: int) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise GazeFormatError(f"line {n}: {key} is not an integer: {v!r}", path)
    return v


def read_segment(path: Path) -> Segment:
    """The packets of one ``livedata.json.gz`` (module docstring); GazeFormatError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    gp, syncs, events = [], [], []
    for n, obj in json_lines(path):
        if "gp" in obj:
            ts, s, g = _int(obj, "ts", path, n), _int(obj, "s", path, n), obj["gp"]
            if s == 0 and not (isinstance(g, list) and len(g) == 2
                               and all(isinstance(v, int | float) and not isinstance(v, bool) for v in g)):
                raise GazeFormatError(f"line {n}: gp is not [x, y]: {g!r}", path)
            gp.append((ts, s, float(g[0]) if s == 0 else math.nan, float(g[1]) if s == 0 else math.nan))
        elif "vts" in obj:
            ts, s, v = _int(obj, "ts", path, n), _int(obj, "s", path, n), _int(obj, "vts", path, n)
            if s == 0:
                syncs.append((ts, v))
        elif "type" in obj and _int(obj, "s", path, n) == 0:
            tag = obj.get("tag")
            events.append((_int(obj, "ts", path, n), str(tag if isinstance(tag, str) and tag.strip()
                                                         else obj["type"]).strip()))
    gp.sort(key=lambda r: r[0])  # stable: packets of one ts keep their file order
    syncs.sort(key=lambda r: r[0])
    ts = np.asarray([r[0] for r in gp], dtype=np.int64)
    status = np.asarray([r[1] for r in gp], dtype=np.int64)
    x = np.asarray([r[2] for r in gp], dtype=np.float64)
    y = np.asarray([r[3] for r in gp], dtype=np.float64)
    valid = (status == 0) & np.isfinite(x) & np.isfinite(y)
    offset = syncs[0][0] - syncs[0][1] if syncs else None
    return Segment(path, ts, x, y, valid, status, offset, sorted(events))


def segment_files(recording: Path) -> list[Path]:
    """``segments/<n>/livedata.json.gz`` of a recording folder, in segment order (1, 2, ..., 10)."""
    seg = Path(recording) / "segments"
    dirs = [d for d in seg.iterdir() if d.is_dir() and (d / LIVEDATA).is_file()] if seg.is_dir() else []
    return [d / LIVEDATA for d in sorted(dirs, key=lambda d: (not d.name.isdigit(), int(d.name) if d.name.isdigit()
                                                               else 0, d.name))]


def is_recording(d: Path) -> bool:
    """Whether folder ``d`` is one recording of this layout."""
    return (d / META).is_file() and bool(segment_files(d))


def discover(raw: Path) -> list[str]:
    """Sub-folders with a recording.json and segments; every segment must have its scene video."""
    raw = Path(raw)
    return discover_recordings(raw, recording_folders(raw, is_recording), "Tobii Pro Glasses 2 recordings", LAYOUT,
                               lambda vid: _require_videos(raw / vid))


def _require_videos(recording: Path) -> None:
    """Every segment of a recording has its scene video (else a StreamGazeError naming the segment)."""
    for f in segment_files(recording):
        if not (f.parent / VIDEO).is_file():
            raise StreamGazeError(f"scene video not found (expected {VIDEO} beside {LIVEDATA})", f.parent)


def _frame_us(video: Path) -> tuple[np.ndarray, tuple[int, int, float]]:
    """The video's frames' times (µs from its first frame) and its (width, height, fps)."""
    from ...video import probe_video

    info = probe_video(video)
    return np.round(info.frame_times * 1e6).astype(np.int64), (info.width, info.height, info.fps)


def _load(files: list[Path], videos: list[Path] | None, where: Path):
    """(clock, track, segments) of the given segment files; ``videos`` one per segment, or None (nominal)."""
    segments = [read_segment(f) for f in files]
    parts, geometry = [], None
    for k, seg in enumerate(segments):
        if seg.offset is None:
            raise GazeFormatError("no valid vts packet: the gaze cannot be placed on the scene video's clock", seg.path)
        if videos is not None:
            frames, geo = _frame_us(videos[k])
            geometry = geometry or geo
        else:
            last = int(seg.ts.max()) - seg.offset if len(seg.ts) else 0
            period = round(1e6 / NOMINAL[2])
            frames = np.arange(0, max(last, 0) + period, period, dtype=np.int64)
        parts.append(seg.offset + frames)
    if videos is None:
        geometry = NOMINAL
        assumed(where, f"the G2's nominal scene camera, {NOMINAL[0]}x{NOMINAL[1]} at {NOMINAL[2]:g} fps (the time "
                       "origin is the device's vts 0)")
    clock = SceneClock.of(parts, US, where)
    ts, x, y, valid = (np.concatenate([getattr(s, name) for s in segments]) for name in ("ts", "x", "y", "valid"))
    track = scene_track(clock, ts, x, y, valid, *geometry, where)
    return clock, track, segments


def _files(path: Path) -> tuple[Path, list[Path]]:
    """(the recording folder, its segment files) of a recording folder or of one ``livedata.json.gz``."""
    path = Path(path)
    if path.is_dir():
        files = segment_files(path)
        if not files:
            raise StreamGazeError(f"not a Tobii Pro Glasses 2 recording folder: no segments/<n>/{LIVEDATA} "
                                  f"(expected {LAYOUT})", path)
        return path, files
    return path.parent.parent.parent, [path]


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of a recording folder (every segment) or of one segment's ``livedata.json.gz``; the scene
    video (given, or each segment's fullstream.mp4) sets the clock's frames and the frame size, else the G2's
    nominal 1920 x 1080 at 25 fps."""
    _, files = _files(path)
    if video is not None:
        if len(files) > 1:
            raise StreamGazeError(f"a recording of {len(files)} segments has one video per segment "
                                  f"(segments/<n>/{VIDEO}); --video names the video of a one-segment recording",
                                  path)
        videos = [Path(video)]
    else:
        own = [f.parent / VIDEO for f in files]
        videos = own if all(v.is_file() for v in own) else None
    return _load(files, videos, Path(path))[1]


def load_recording(raw: Path, video_id: str) -> Recording:
    """Scene video (segments joined), gaze track and actions of one recording folder."""
    directory = Path(raw) / video_id
    files = segment_files(directory)
    videos = [f.parent / VIDEO for f in files]
    for v in videos:
        if not v.is_file():
            raise StreamGazeError(f"scene video not found (expected {VIDEO} beside {LIVEDATA})", v.parent)
    clock, track, segments = _load(files, videos, directory)
    video = joined_scene_video(videos, clock.offsets, directory)
    events = [e for s in segments for e in s.events]
    t, kept = clock.to_video(np.asarray([e[0] for e in events], dtype=np.int64))
    actions = recording_actions(directory, [(float(tk), e[1]) for tk, k, e in zip(t, kept, events) if k],
                                clock.duration)
    return Recording(video_id, SOURCE, video, track, actions, directory)
