"""EGTEA Gaze+: SMI BeGaze text exports (both row layouts) and the ``action_labels.csv`` timeline.

Native layout::

    <raw>/videos/<session>.mp4                      (or .avi) the scene video, 24 fps
    <raw>/gaze_data/<session>.txt                   BeGaze export, one per session (defines the recordings)
    <raw>/raw_annotations/action_labels.csv         optional; "; "-separated, ms times

Gaze file. A block of header lines (``## ...``) and a line of column names precede the samples; the
reference reader (``gaze_io_sample.py`` of the EGTEA Gaze+ release) skips a fixed 34 lines, we skip every
line before the first one that parses as a sample (and ``#`` comment lines, blank lines and ``MSG`` message
rows anywhere). A sample row is recognised by its shape alone: the layout's field count, a frame number
(v1) or timecode (v2) and two point-of-regard fields that are numbers, ``NaN`` included, so the header
ends in the same place whether or not the first samples are tracked. The header's
``## Number of Samples:`` line sits on line 10 in the old export (v1) and line 11 in the new one
(v2, reference §3.2); when present it must agree with the row layout:

* v1, 7 whitespace-separated fields: POR x = f[3], y = f[4] (pixels), video frame = int(f[5]),
  event type = f[6];
* v2, 26 fields: POR x = f[5], y = f[6], video timecode ``HH:MM:SS:FF`` = f[-2], event type = f[-1].

After the first sample every non-blank, non-comment line must be a sample of the same layout, else
:class:`GazeFormatError` names the line.

Coordinates are scene-camera pixels of a 1280x960 frame and are divided by (1280, 960) *without*
clamping: a truncated (off-frame) point keeps its coordinates, so ``GazeTrack.in_frame`` is False for
it (the reference clamped and then lost its "truncated" code, reference bug 18).

Time base. Samples (30 Hz) are binned by video frame; the samples of one frame are averaged with a
true mean (the reference averaged pairwise) and the frame gets one sample at ``t = frame / fps``.
EGTEA videos are 24 fps; ``fps`` is the video's own rate when the video is known (the reference
hard-coded 24, bug 19), else 24. The v2 timecode counts seconds plus FF frames, so its time is
``HH*3600 + MM*60 + SS + FF / fps``, rounded to the nearest frame. Frames without samples get no
sample in the track.

Untracked samples. BeGaze v2 writes ``NaN`` in the point-of-regard columns when the tracker has no
gaze (whatever the event label, usually ``-`` or ``Blink``); such a sample is *untracked*: invalid and
without a position. (The reference parses ``NaN`` as a number; the pairwise mean then spreads it over its
frame and the clamp ``min(max(0, NaN), 1279)`` turns it into 0, so the reference reports the frame at the
top-left corner with the last sample's event type. We do not reproduce that.)

Event types (BeGaze semantics). ``Fixation`` and ``Saccade`` rows are tracked samples (valid).
``Blink`` rows are invalid (eyes closed) but keep their position. Any other label (``-``,
unclassified, unknown) is a measured point of regard that no event detector claimed: valid, like the
reference's "unknown" type 3. Per frame: valid when at least one of its samples is valid; its position is
the mean of its valid samples, else (no valid sample) the mean of its tracked (Blink) samples, else (only
untracked samples) unknown (NaN): an invalid frame.

Actions (``action_labels.csv``). A header line starting with ``#``
(``# Clip ID; Clip Prefix; Video Session; Starting Time (ms); Ending Time (ms); Action Label; ...``)
names the columns; fields are split on ``;`` and stripped (the reference matched ``' <session>'``
with its leading space). Without a header the columns are taken by position (2, 3, 4, 5). Times are
milliseconds on the session video; labels are the ``Action Label`` text. A missing file gives no
actions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..track import GazeTrack
from .base import Action, Recording, discover_recordings, find_video, sort_actions

SOURCE = "egtea"
LAYOUT = ("<raw>/videos/<session>.mp4 (or .avi), <raw>/gaze_data/<session>.txt (BeGaze export), "
          "optional <raw>/raw_annotations/action_labels.csv")
GAZE_WIDTH, GAZE_HEIGHT = 1280, 960  # the pixel grid of the BeGaze point of regard
DEFAULT_FPS = 24.0
V1_FIELDS, V2_FIELDS = 7, 26
VIDEO_EXTENSIONS = (".mp4", ".avi")
INVALID_EVENTS = frozenset({"blink"})
_TIMECODE = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2}):(\d{1,3})$")
_SAMPLES_LINE = "## Number of Samples:"


def discover(raw: Path) -> list[str]:
    """Sessions with a gaze file; each must have its video."""
    gaze_dir = Path(raw) / "gaze_data"
    ids = [p.stem for p in gaze_dir.glob("*.txt")] if gaze_dir.is_dir() else []
    return discover_recordings(raw, ids, "EGTEA Gaze+ recordings", LAYOUT,
                               lambda vid: find_video(Path(raw), vid, VIDEO_EXTENSIONS, "session"))


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, gaze track (at the video's rate) and actions of one session."""
    raw = Path(raw)
    video = find_video(raw, video_id, VIDEO_EXTENSIONS, "session")
    track = read_track(raw / "gaze_data" / f"{video_id}.txt", video)
    actions = read_action_labels(raw / "raw_annotations" / "action_labels.csv", video_id)
    return Recording(video_id, SOURCE, video, track, actions, None)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The gaze track of one BeGaze file; the video (given, or found in the native layout) sets
    size and fps, else 1280x960 at 24 fps."""
    path = Path(path)
    if video is None:
        candidate = path.parent.parent / "videos"
        video = next((candidate / f"{path.stem}{e}" for e in VIDEO_EXTENSIONS
                      if (candidate / f"{path.stem}{e}").is_file()), None)
    if video is not None:
        info = probe_video(video)
        width, height, fps = info.width, info.height, info.fps
    else:
        width, height, fps = GAZE_WIDTH, GAZE_HEIGHT, DEFAULT_FPS
    frames, x, y, valid = parse_begaze(path, fps)
    try:
        return GazeTrack(frames / fps, x, y, valid, width, height, fps)
    except GazeFormatError as exc:
        raise GazeFormatError(exc.reason, path) from None


def begaze_samples(path: Path, fps: float = DEFAULT_FPS) -> Iterator[tuple[int, tuple[int, float, float, str]]]:
    """(line number, (frame, POR x px, POR y px, event)) of every sample row of a BeGaze export, in file
    order; the POR is NaN (or another non-finite number) where BeGaze wrote one (an untracked sample)."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    try:
        lines = path.read_text(encoding="utf-8", errors="strict").splitlines()
    except UnicodeDecodeError:
        try:
            lines = path.read_text(encoding="latin-1").splitlines()
        except OSError as exc:
            raise GazeFormatError(f"cannot read ({exc})", path) from None
    header_version = _header_version(lines)
    layout = None
    for lineno, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#") or (len(fields) > 1 and fields[1] == "MSG"):
            continue
        if layout is None:
            sample = _parse_row(fields, len(fields), fps)
            if sample is None:
                continue  # still in the header block (column names)
            layout = len(fields)
            if header_version is not None and header_version != _version(layout):
                raise GazeFormatError(
                    f"line {lineno}: {layout}-field rows are the BeGaze v{_version(layout)} layout but the header "
                    f"('{_SAMPLES_LINE}' on line {9 + header_version}) is the v{header_version} export", path)
        else:
            if len(fields) != layout:
                raise GazeFormatError(f"line {lineno}: expected {layout} fields (BeGaze v{_version(layout)} "
                                      f"layout), got {len(fields)}", path)
            sample = _parse_row(fields, layout, fps)
            if sample is None:
                raise GazeFormatError(f"line {lineno}: not a gaze sample (bad number, frame or timecode): "
                                      f"{line.strip()[:80]!r}", path)
        yield lineno, sample
    if layout is None:
        raise GazeFormatError(f"no gaze samples found (expected BeGaze rows of {V1_FIELDS} fields (v1) or "
                              f"{V2_FIELDS} fields (v2))", path)


def parse_begaze(path: Path, fps: float = DEFAULT_FPS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-frame (frame index, x, y, valid) of a BeGaze export, x and y normalised by 1280x960 (NaN for a
    frame of untracked samples only)."""
    bins: dict[int, list[tuple[float, float, bool, bool]]] = {}
    for lineno, (frame, px, py, event) in begaze_samples(path, fps):
        if frame < 0:
            raise GazeFormatError(f"line {lineno}: negative frame number {frame}", path)
        tracked = math.isfinite(px) and math.isfinite(py)
        valid = tracked and event.lower() not in INVALID_EVENTS
        bins.setdefault(frame, []).append((px / GAZE_WIDTH, py / GAZE_HEIGHT, tracked, valid))
    return _average(bins)


def _header_version(lines: list[str]) -> int | None:
    """1 or 2 from the position of the ``Number of Samples`` header line (reference §3.2), else None."""
    for version, index in ((1, 9), (2, 10)):
        if len(lines) > index and lines[index].startswith(_SAMPLES_LINE):
            return version
    return None


def _version(n_fields: int) -> int:
    return 1 if n_fields == V1_FIELDS else 2


def _parse_row(fields: list[str], layout: int, fps: float) -> tuple[int, float, float, str] | None:
    """(frame, px, py, event) of a sample row of the given layout, None if it does not parse; a POR that
    is a number but not finite (BeGaze's ``NaN``) is kept: the sample is untracked, not malformed."""
    try:
        if layout == V1_FIELDS:
            px, py, frame = float(fields[3]), float(fields[4]), int(fields[5])
        elif layout == V2_FIELDS:
            px, py = float(fields[5]), float(fields[6])
            frame = _timecode_frame(fields[-2], fps)
            if frame is None:
                return None
        else:
            return None
    except ValueError:
        return None
    return frame, px, py, fields[-1]


def _timecode_frame(code: str, fps: float) -> int | None:
    m = _TIMECODE.match(code)
    if m is None:
        return None
    h, mi, s, ff = (int(g) for g in m.groups())
    return int(round((h * 3600 + mi * 60 + s) * fps + ff))


def _average(bins: dict[int, list[tuple[float, float, bool, bool]]]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One sample per frame: the mean of its valid samples, else of its tracked ones, else NaN."""
    frames = sorted(bins)
    x = np.full(len(frames), np.nan)
    y = np.full(len(frames), np.nan)
    valid = np.zeros(len(frames), dtype=bool)
    for k, f in enumerate(frames):
        samples = bins[f]
        good = [s for s in samples if s[3]]
        use = good or [s for s in samples if s[2]]
        if use:
            x[k] = sum(s[0] for s in use) / len(use)
            y[k] = sum(s[1] for s in use) / len(use)
        valid[k] = bool(good)
    return np.asarray(frames, dtype=np.float64), x, y, valid


def read_action_labels(path: Path, session: str) -> list[Action]:
    """The actions of one session from ``action_labels.csv`` (seconds); a missing file -> none."""
    path = Path(path)
    if not path.is_file():
        return []
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (UnicodeDecodeError, OSError) as exc:
        raise StreamGazeError(f"cannot read action labels ({exc})", path) from None
    cols = {"session": 2, "start": 3, "end": 4, "label": 5}
    names = {"video session": "session", "starting time (ms)": "start", "ending time (ms)": "end",
             "action label": "label"}
    actions = []
    header_seen = False
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            if not header_seen:
                header = [h.strip().lower() for h in line.lstrip().lstrip("#").split(";")]
                found = {names[h]: i for i, h in enumerate(header) if h in names}
                if len(found) != len(names):
                    missing = sorted(set(names) - set(header))
                    raise StreamGazeError(f"line {lineno}: header lacks column(s) {', '.join(missing)}", path)
                cols, header_seen = found, True
            continue
        fields = [f.strip() for f in line.split(";")]
        if len(fields) <= max(cols.values()):
            raise StreamGazeError(f"line {lineno}: expected at least {max(cols.values()) + 1} ';'-separated "
                                  f"fields, got {len(fields)}", path)
        if fields[cols["session"]].replace(" ", "") != session.replace(" ", ""):
            continue
        try:
            start, end = float(fields[cols["start"]]) / 1000.0, float(fields[cols["end"]]) / 1000.0
        except ValueError:
            raise StreamGazeError(f"line {lineno}: start/end times are not numbers (ms)", path) from None
        if not (math.isfinite(start) and math.isfinite(end)) or end < start:
            raise StreamGazeError(f"line {lineno}: bad time span {start:g}-{end:g} s", path)
        actions.append(Action(start, end, fields[cols["label"]]))
    return sort_actions(actions)
