"""What the readers of people's own eye-tracking glasses share (``neon``, ``pupil_cloud``, ``pupil_core``,
``tobii_g3``, ``tobii_g2``): the scene video's clock built from the device's own frame timestamps, blink intervals,
the device's fixations, the action timeline (the user's events, or an ``actions.csv``), the scene video of a
recording in parts, and the one warning a reader gives when it must assume what only the scene video says.

**The scene clock.** A wearable records gaze and scene frames on one device clock; the scene video's
clock starts at its first frame. :class:`SceneClock` holds the device timestamps of every scene frame,
in parts (a Neon recording that was interrupted is split into ``ps1``, ``ps2``, ...; every other
recording is one part; a Tobii Pro Glasses 2 recording is split into segments). On the video's clock, part ``k`` starts where part ``k - 1`` ended: at
``offset_k = offset_{k-1} + (last_{k-1} - first_{k-1}) + period_{k-1}``, ``period`` being the median
interval of that part's own frame timestamps (never an assumed frame rate). So the joined scene video has
no gap and no overlap at a join, and a gaze sample at device time ``ts`` inside part ``k``'s span
``[first_k, last_k + period_k)`` is at ``offset_k + (ts - first_k)``. Samples outside every span (before
the first frame, in the pause between two parts, after the last frame has ended) have no frame to be
drawn on and are dropped. Integer device clocks (nanoseconds) are subtracted as integers, so no
precision is lost before the conversion to seconds.

**Validity (one rule for every reader).** A sample is invalid when the device says it is untracked (no
position, an empty record, ``-1, -1`` markers, confidence below the vendor's own threshold), when the
glasses are not worn, or when it falls in a blink the device detected. A position outside the frame is a
position: it keeps its coordinates on whichever side it falls (``GazeTrack.in_frame`` is False for it).

**Actions.** ``actions.csv`` beside the recording (columns ``start, end, label``: seconds on the scene
video's clock) is the timeline when it is there. Otherwise the user's events become it
(:func:`events_to_actions`): ``recording.begin`` / ``recording.end`` (written by the device) are not
actions; an event named ``<label>_start`` / ``.start`` / ``_begin`` / ``.begin`` opens the action
``<label>``, closed by the next ``<label>_end`` / ``.end`` / ``_stop`` / ``.stop`` event; any other event
starts an action named after it that lasts until the next event (or the end of the video).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...util.fsutil import user_cache_dir
from ..fixations import Fixation
from ..track import GazeTrack
from .base import Action, csv_rows, finite_float, sort_actions

ACTIONS_CSV = "actions.csv"
DEVICE_EVENTS = frozenset({"recording.begin", "recording.end"})
_OPEN = re.compile(r"^(?P<label>.+?)[ ._-](?:start|begin)$", re.IGNORECASE)
_CLOSE = re.compile(r"^(?P<label>.+?)[ ._-](?:end|stop)$", re.IGNORECASE)


@dataclass(frozen=True)
class SceneClock:
    """The device timestamps of the scene frames, per part, and the video clock they define (module
    docstring). ``unit``: seconds per device tick (1e-9 for nanoseconds, 1.0 for seconds)."""

    parts: tuple[np.ndarray, ...]
    unit: float

    @classmethod
    def of(cls, parts: Sequence[np.ndarray], unit: float, path: Path) -> SceneClock:
        """Checked: at least one frame, every part strictly increasing, parts in time order."""
        arrays = tuple(np.asarray(p) for p in parts if len(p))
        if not arrays:
            raise GazeFormatError("no scene frame timestamps", path)
        for k, p in enumerate(arrays):
            d = np.diff(p)
            if np.any(d <= 0):
                i = int(np.argmax(d <= 0)) + 1
                raise GazeFormatError(f"scene frame timestamps must increase (part {k + 1}, frame {i})", path)
            if k and p[0] <= arrays[k - 1][-1]:
                raise GazeFormatError(f"scene part {k + 1} starts before part {k} ends", path)
        return cls(arrays, float(unit))

    def period(self, k: int) -> float:
        """One frame period of part ``k`` in device ticks: the median interval of its timestamps (a
        one-frame part borrows the recording's median)."""
        p = self.parts[k]
        if len(p) > 1:
            return float(np.median(np.diff(p)))
        d = [np.diff(q) for q in self.parts if len(q) > 1]
        return float(np.median(np.concatenate(d))) if d else 1.0 / 30.0 / self.unit

    @property
    def offsets(self) -> list[float]:
        """Seconds on the video clock at which each part's first frame is shown."""
        out = [0.0]
        for k, p in enumerate(self.parts[:-1]):
            out.append(out[-1] + (float(p[-1] - p[0]) + self.period(k)) * self.unit)
        return out

    @property
    def frame_times(self) -> np.ndarray:
        """Every scene frame's time on the video clock (seconds), parts joined."""
        return np.concatenate([off + (p - p[0]).astype(np.float64) * self.unit
                               for off, p in zip(self.offsets, self.parts)])

    @property
    def n_frames(self) -> int:
        return sum(len(p) for p in self.parts)

    @property
    def duration(self) -> float:
        """Seconds from the first frame to the end of the last one."""
        last = len(self.parts) - 1
        return self.offsets[-1] + (float(self.parts[-1][-1] - self.parts[-1][0]) + self.period(last)) * self.unit

    @property
    def fps(self) -> float:
        """Frames per second of the joined video (its frame count over its duration)."""
        return self.n_frames / self.duration

    def to_video(self, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(seconds on the video clock, kept) of device timestamps ``ts``; kept is False outside every
        part's span (those times are NaN)."""
        ts = np.asarray(ts)
        t = np.full(len(ts), np.nan)
        kept = np.zeros(len(ts), dtype=bool)
        for k, (off, p) in enumerate(zip(self.offsets, self.parts)):
            end = p[-1] + self.period(k)
            m = (ts >= p[0]) & (ts < end)
            t[m] = off + (ts[m] - p[0]).astype(np.float64) * self.unit
            kept |= m
        return t, kept


def in_intervals(ts: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """True where a timestamp lies in one of the closed intervals [start, end] (e.g. blinks)."""
    ts = np.asarray(ts)
    if not len(starts):
        return np.zeros(len(ts), dtype=bool)
    order = np.argsort(starts, kind="stable")
    starts, ends = np.asarray(starts)[order], np.asarray(ends)[order]
    ends = np.maximum.accumulate(ends)  # overlapping intervals: the running furthest end
    i = np.searchsorted(starts, ts, side="right") - 1
    ok = i >= 0
    out = np.zeros(len(ts), dtype=bool)
    out[ok] = ts[ok] <= ends[i[ok]]
    return out


def scene_track(clock: SceneClock | None, ts: np.ndarray, x: np.ndarray, y: np.ndarray, valid: np.ndarray,
                width: int, height: int, fps: float, path: Path, hfov_deg: float | None = None) -> GazeTrack:
    """The track of device samples ``ts`` (in file order) on the scene clock: samples outside the scene
    parts dropped, a repeated timestamp keeps its first sample, a timestamp going back is an error
    naming the file. ``clock`` None: the device clock is the video's (seconds; samples before 0 dropped)."""
    ts = np.asarray(ts)
    if len(ts) > 1:
        d = np.diff(ts)
        if np.any(d < 0):
            i = int(np.argmax(d < 0)) + 1
            raise GazeFormatError(f"sample {i}: timestamp {ts[i]} goes back from {ts[i - 1]}", path)
        first = np.concatenate([[True], d > 0])
    else:
        first = np.ones(len(ts), dtype=bool)
    if clock is None:
        t, kept = ts.astype(np.float64), ts >= 0
    else:
        t, kept = clock.to_video(ts)
    keep = kept & first
    try:
        return GazeTrack(t[keep], np.asarray(x, np.float64)[keep], np.asarray(y, np.float64)[keep],
                         np.asarray(valid, bool)[keep], width, height, fps, hfov_deg)
    except GazeFormatError as exc:
        raise GazeFormatError(exc.reason, path) from None


def device_fixations(clock: SceneClock, starts: np.ndarray, ends: np.ndarray, px: np.ndarray, py: np.ndarray,
                     width: float, height: float, track: GazeTrack) -> list[Fixation]:
    """The device's own fixations on the scene clock (centroid normalised by the frame size); a fixation
    whose start or end falls outside the scene parts is left out. ``n_samples``: the track's valid samples
    in it."""
    t0, k0 = clock.to_video(starts)
    t1, k1 = clock.to_video(ends)
    out = []
    for a, b, ka, kb, x, y in zip(t0, t1, k0, k1, px, py):
        if not (ka and kb and b >= a and math.isfinite(x) and math.isfinite(y)):
            continue
        out.append(Fixation(float(a), float(b), float(x) / width, float(y) / height, valid_samples(track, a, b)))
    return out


def valid_samples(track: GazeTrack, start: float, end: float) -> int:
    """The track's valid samples from ``start`` to ``end`` (seconds, both included): a device fixation's
    ``n_samples``."""
    lo, hi = np.searchsorted(track.t, [start - 1e-9, end + 1e-9], side="left")
    return int(track.valid[lo:hi].sum())


def device_blinks(clock: SceneClock, starts: np.ndarray, ends: np.ndarray) -> list[tuple[float, float]]:
    """The device's blinks (device timestamps) as (start, end) on the scene clock; a blink whose start or end falls
    outside the scene parts is left out."""
    t0, k0 = clock.to_video(np.asarray(starts))
    t1, k1 = clock.to_video(np.asarray(ends))
    return [(float(a), float(b)) for a, b, ka, kb in zip(t0, t1, k0, k1) if ka and kb and b >= a]


def events_to_actions(events: Sequence[tuple[float, str]], end: float) -> list[Action]:
    """The action timeline of the user's events (seconds on the video clock, name): module docstring."""
    events = sorted((t, n.strip()) for t, n in events if n.strip() and n.strip() not in DEVICE_EVENTS)
    actions: list[Action] = []
    open_: dict[str, float] = {}
    for k, (t, name) in enumerate(events):
        if m := _OPEN.match(name):
            open_.setdefault(m.group("label"), t)
        elif (m := _CLOSE.match(name)) and m.group("label") in open_:
            label = m.group("label")
            actions.append(Action(open_.pop(label), t, label))
        else:
            nxt = events[k + 1][0] if k + 1 < len(events) else end
            actions.append(Action(t, max(t, nxt), name))
    actions += [Action(t, max(t, end), label) for label, t in open_.items()]
    return sort_actions(actions)


def read_actions_csv(path: Path) -> list[Action]:
    """``actions.csv`` (``start, end, label``; seconds on the scene video's clock)."""
    actions = []
    for lineno, row, col in csv_rows(path, ("start", "end", "label")):
        start = finite_float(row[col["start"]], path, lineno, "start")
        end = finite_float(row[col["end"]], path, lineno, "end")
        if end < start:
            raise StreamGazeError(f"line {lineno}: end {end:g} is before start {start:g}", path)
        actions.append(Action(start, end, row[col["label"]].strip()))
    return sort_actions(actions)


def recording_actions(directory: Path, events: Sequence[tuple[float, str]], end: float) -> list[Action]:
    """``actions.csv`` in ``directory`` when it is there, else the timeline of the user's events."""
    path = Path(directory) / ACTIONS_CSV
    return read_actions_csv(path) if path.is_file() else events_to_actions(events, end)


class AssumedVideoWarning(UserWarning):
    """A reader without the scene video took the frame size, rate or time origin from the device's nominal
    values (the message says which, with the values); the CLI prints it as one warning line offering
    ``--video``."""


def assumed(path: Path, what: str) -> None:
    """Warn (:class:`AssumedVideoWarning`) that the track of ``path`` assumes ``what`` for want of its scene video."""
    warnings.warn(AssumedVideoWarning(f"{path}: no scene video: assumed {what}"), stacklevel=2)


class SceneLengthWarning(UserWarning):
    """The scene video lasts longer or shorter than the device's frame timestamps say (the message gives both
    durations): gaze past the shorter one's end has no frame; the CLI prints it as one warning line."""

    streamgaze_line = True  # cli/termio.py: shown as one ``streamgaze: warning: ...`` line


#: (video, its duration, the timestamps' duration) already warned of in this process: one warning a recording
_LENGTH_WARNED: set[tuple[str, float, float]] = set()


def check_scene_length(video: Path, video_s: float, clock: SceneClock, path: Path | None = None) -> None:
    """Warn once (:class:`SceneLengthWarning`) when the scene video's duration and its frame timestamps' span
    (:attr:`SceneClock.duration`) differ by more than two frame periods (an encoder may add or drop a frame at
    either end; a scene video cut short, or the wrong video, differs by more)."""
    timed = clock.duration
    if abs(video_s - timed) <= 2.0 / clock.fps:
        return
    key = (str(video), round(video_s, 6), round(timed, 6))
    if key in _LENGTH_WARNED:
        return
    _LENGTH_WARNED.add(key)
    warnings.warn(SceneLengthWarning(
        f"{path or video}: the scene video {Path(video).name} lasts {video_s:.3f} s but the recording's "
        f"{clock.n_frames} frame timestamps span {timed:.3f} s ({'shorter' if video_s < timed else 'longer'} by "
        f"{abs(video_s - timed):.3f} s): gaze past the end of the shorter has no frame"), stacklevel=2)


def video_geometry(video: Path | None, default: tuple[int, int], clock: SceneClock,
                   path: Path | None = None) -> tuple[int, int, float]:
    """(width, height, fps): the scene video's when it is given (a :class:`SceneLengthWarning` when its length
    disagrees with the frame timestamps), else the device's nominal frame size (an :class:`AssumedVideoWarning`
    naming ``path``) and the rate of its frame timestamps."""
    if video is not None:
        from ...video import probe_video

        info = probe_video(video)
        check_scene_length(video, info.duration, clock, path)
        return info.width, info.height, info.fps
    assumed(path or Path("."), f"the scene camera's frame size {default[0]}x{default[1]} (the rate and the first "
                               "frame come from the recording's own frame timestamps)")
    return default[0], default[1], clock.fps


def joined_scene_video(parts: Sequence[Path], offsets: Sequence[float], directory: Path) -> Path:
    """One scene video of a recording's consecutive part videos, part ``k`` starting at ``offsets[k]`` s (the
    scene clock's :attr:`SceneClock.offsets`), packets copied; kept in ``$STREAMGAZE_SCENE_CACHE`` (default
    ``~/.cache/streamgaze/scene``) under a name made of the parts' names, sizes and times and the recording's
    folder, so a build reads one video on the same clock as the track. One part is returned as it is."""
    if len(parts) == 1:
        return Path(parts[0])
    stamp = json.dumps([[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in parts]
                       + [str(Path(directory).resolve())])
    out = user_cache_dir("scene", "STREAMGAZE_SCENE_CACHE") / f"{hashlib.sha256(stamp.encode()).hexdigest()[:20]}.mp4"
    if not out.is_file():
        from ...video import join_parts

        join_parts(parts, offsets, out)
    return out
