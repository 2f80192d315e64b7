"""A simple oculomotor model driving both the gaze stream (30 Hz) and the camera of the demo world.

The model walks forward in time and alternates *fixations* with *transitions*:

* **Fixation** (1-6 s): the eye holds one target -- a point on an object (its centre plus a small
  fixed offset) or, now and then, an empty spot of the table. The head drifts slowly (linear camera
  motion, at most ``MAX_FIX_DRIFT`` frame widths over the whole fixation), the eye compensates, so
  the gaze follows the target's image position plus Gaussian jitter (``JITTER``, isotropic in
  pixels). Inside a fixation there can be *flicks* (1-4 samples, i.e. under 200 ms, jumping at least
  ``FLICK_MIN`` away and then back) and *short blinks* (1-4 invalid samples). Nothing else ever
  interrupts a fixation: long blinks and looks off the frame happen only between fixations.
* **Saccade** (1-3 samples on the middle of the straight line between two targets): the next
  target is already in view, the camera holds still.
* **Free viewing** (0.3-1.5 s): the head turns (an eased camera pan of a good part of a frame width)
  to bring a new target into view, while the eye makes scattered short glances (< 0.5 s, each at least
  ``GLANCE_SEPARATION`` from the previous gaze point), may blink for 250-500 ms or look off the frame
  (valid samples outside [0, 1]).

Consecutive fixation targets are at least ``MIN_SEPARATION`` apart (frame-width units: dx and
dy * height / width), so a dispersion detector with radius 0.08 separates them.

Scene cuts: the world has two or three scenes. Exactly one cut falls *inside* a fixation: the eye stays
still in image coordinates while the scene changes underneath (``spans_cut``; the scene-consistency
check of a fixation detector must reject it). Every other cut falls inside a free-viewing gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .camera import CameraPath
from .scene import PlacedObject, Scene

GAZE_RATE = 30.0  # Hz
JITTER = 0.003  # normalised (frame-width units), standard deviation of the fixational jitter
MAX_FIX_DRIFT = 0.032  # frame-width units: total camera drift allowed during one fixation
MIN_SEPARATION = 0.26  # frame-width units between consecutive fixation targets (>= 0.2 with margin)
GLANCE_SEPARATION = 0.22  # frame-width units between a glance and the gaze point before it
FLICK_MIN, FLICK_MAX = 0.19, 0.30  # flick amplitude, frame-width units
FIX_MIN_S, FIX_MAX_S = 1.1, 5.8  # fixation duration (last sample time - first sample time)
SPAN_MIN_S = 3.4  # the scene-spanning fixation lasts at least this long
GAP_MIN, GAP_MAX = 9, 45  # free-viewing gap length in samples (0.3-1.5 s)
P_FREE_VIEW = 0.4  # probability that a transition is a free-viewing gap (a head turn)
P_EMPTY_SPOT = 0.07  # probability that a fixation lands on the empty table, not an object
_MIN_PAN = 0.3  # frame-width units: a head turn moves the view at least this far (when possible)
_QUIET = 3  # regular samples kept around flicks and blinks, and at the ends of a fixation

# Per-sample kinds (ground truth for tests and debugging).
FIX, FLICK, SHORT_BLINK, SACCADE, GLANCE, LONG_BLINK, OFF_FRAME = range(7)


@dataclass(frozen=True)
class Target:
    """A fixation target: a point on a scene canvas, on an object or not."""

    point: tuple[float, float]  # canvas pixels
    obj: PlacedObject | None


@dataclass(frozen=True)
class TrueFixation:
    """Ground truth of one fixation: its first and last sample index and target."""

    first: int
    last: int
    obj: PlacedObject | None
    spans_cut: bool


@dataclass(frozen=True)
class PlannedCut:
    time: float  # approximate; the actual cut lands on a frame time near it
    spans_fixation: bool


@dataclass
class GazePlan:
    """Everything the model produced: samples, ground truth, the camera path and the cut times."""

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    kind: np.ndarray
    fixations: list[TrueFixation]
    flicks: list[tuple[int, int]]  # first and last sample index of each flick
    cuts: list[float]  # time of the first frame of each new scene
    camera: CameraPath = field(default_factory=CameraPath)

    def scene_spans(self, duration: float) -> list[tuple[float, float]]:
        """(start, end) of every scene, in order."""
        bounds = [0.0, *self.cuts, duration]
        return list(zip(bounds[:-1], bounds[1:]))


def plan_gaze(rng: np.random.Generator, scenes: list[Scene], width: int, height: int, fps: float,
              duration: float) -> GazePlan:
    """Run the oculomotor model over ``duration`` seconds of the given scenes (one cut between each)."""
    return _Planner(rng, scenes, width, height, fps, duration).run()


class _Planner:
    """Sequential generator; see the module docstring. Writes samples from ``cursor`` onwards."""

    def __init__(self, rng: np.random.Generator, scenes: list[Scene], width: int, height: int, fps: float,
                 duration: float):
        self.rng, self.scenes = rng, scenes
        self.w, self.h, self.fps, self.duration = width, height, fps, duration
        self.n = int(math.ceil(duration * GAZE_RATE - 1e-9))
        self.t = np.arange(self.n) / GAZE_RATE
        self.x = np.full(self.n, np.nan)
        self.y = np.full(self.n, np.nan)
        self.valid = np.zeros(self.n, bool)
        self.kind = np.full(self.n, -1, np.int8)
        self.camera = CameraPath()
        self.scene = 0
        self.cam = (0.0, 0.0)
        self.cursor = 0
        self.last_point: tuple[float, float] | None = None  # normalised image position of the last target
        self.prev_obj: PlacedObject | None = None
        self.fixations: list[TrueFixation] = []
        self.flicks: list[tuple[int, int]] = []
        self.cuts: list[float] = []
        self.need_extras = True  # the first free-viewing gap surely has a long blink and an off-frame look
        self.need_flick = self.need_blink = True

    # ----------------------------------------------------------------------------- main loop
    def run(self) -> GazePlan:
        pending = self._plan_cuts()
        min_m = _samples(FIX_MIN_S)
        while self.n - self.cursor >= min_m + GAP_MIN:
            m = self._draw_fixation_length()
            cut = pending[0] if pending else None
            target, cut_done = self._approach(m, cut)
            if cut_done:
                pending.pop(0)
                cut = pending[0] if pending else None
            rem = self.n - self.cursor
            if rem < min_m:
                break
            if cut is not None and cut.spans_fixation and (self.cursor + m) / GAZE_RATE >= cut.time:
                span = min(_samples(self.rng.uniform(SPAN_MIN_S, FIX_MAX_S)), rem)
                if span < _samples(SPAN_MIN_S):
                    break
                self._spanning_fixation(target, span)
                pending.pop(0)
                continue
            if rem - m < _samples(1.6):  # no room for another transition + fixation: take the rest
                m = min(rem, _samples(FIX_MAX_S))
            self._fixation(target, m)
        self._free_view(self.n - self.cursor, extras=False, next_point=None)
        if len(self.cuts) != len(self.scenes) - 1:
            raise RuntimeError(f"duration {self.duration} s is too short for {len(self.scenes)} scenes")
        return GazePlan(self.t, self.x, self.y, self.valid, self.kind, self.fixations, self.flicks,
                        self.cuts, self.camera)

    def _approach(self, m: int, cut: PlannedCut | None) -> tuple[Target, bool]:
        """Bring the eye to the next fixation's target: directly at the start of the video, else through
        a transition -- one holding the next scene cut when a fixation of ``m`` samples would cross it.
        Returns the target and whether the cut was placed."""
        if not self.fixations:
            target, self.cam = self._pan_target(None, min_pan=0.0)
            return target, False
        now = self.cursor / GAZE_RATE
        if cut is not None and not cut.spans_fixation and now + 1.6 + m / GAZE_RATE >= cut.time:
            return self._cut_gap(), True
        return self._transition(force_gap=self.need_extras), False

    def _plan_cuts(self) -> list[PlannedCut]:
        """Roughly even scene lengths; one random cut is the one a fixation spans."""
        k = len(self.scenes) - 1
        times = [self.duration * (j + 1) / (k + 1) + self.rng.uniform(-0.06, 0.06) * self.duration
                 for j in range(k)]
        spanning = int(self.rng.integers(k))
        return [PlannedCut(float(t), j == spanning) for j, t in enumerate(times)]

    def _draw_fixation_length(self) -> int:
        """Fixation durations: 1.1 s plus a gamma tail (mean about 2.5 s), at most 5.8 s."""
        d = min(FIX_MAX_S, FIX_MIN_S + float(self.rng.gamma(2.0, 0.7)))
        return _samples(d)

    # ----------------------------------------------------------------------------- geometry
    def _image(self, point: tuple[float, float], cam: tuple[float, float]) -> tuple[float, float]:
        """Normalised image position of a canvas point seen from a viewport position."""
        return (point[0] - cam[0]) / self.w, (point[1] - cam[1]) / self.h

    def _dist(self, a: tuple[float, float], b: tuple[float, float]) -> float:
        """Distance in frame-width units."""
        return math.hypot(a[0] - b[0], (a[1] - b[1]) * self.h / self.w)

    def _clamp_cam(self, cam: tuple[float, float]) -> tuple[float, float]:
        cw, ch = self.scenes[self.scene].size
        return min(max(cam[0], 0.0), float(cw - self.w)), min(max(cam[1], 0.0), float(ch - self.h))

    def _box_inside(self, obj: PlacedObject, cam: tuple[float, float], margin: float = 0.02) -> bool:
        x0, y0 = self._image((obj.box[0], obj.box[1]), cam)
        x1, y1 = self._image((obj.box[2], obj.box[3]), cam)
        return x0 >= margin and y0 >= margin and x1 <= 1 - margin and y1 <= 1 - margin

    def _far_enough(self, pos: tuple[float, float], *refs: tuple[float, float] | None) -> bool:
        return all(r is None or self._dist(pos, r) >= MIN_SEPARATION for r in refs)

    # ----------------------------------------------------------------------------- targets
    def _object_point(self, obj: PlacedObject) -> tuple[float, float]:
        """Centre of the object plus a small offset: people fixate a part of an object."""
        r = 0.25 * obj.half_extent * math.sqrt(self.rng.uniform())
        a = self.rng.uniform(0, 2 * math.pi)
        return obj.center[0] + r * math.cos(a), obj.center[1] + r * math.sin(a)

    def _empty_point(self, lo: tuple[float, float], hi: tuple[float, float]) -> tuple[float, float] | None:
        """A canvas point in [lo, hi] at least 0.05 frame widths away from every object box."""
        pad = 0.05 * self.w
        for _ in range(50):
            p = (self.rng.uniform(lo[0], hi[0]), self.rng.uniform(lo[1], hi[1]))
            if all(not (o.box[0] - pad <= p[0] <= o.box[2] + pad and o.box[1] - pad <= p[1] <= o.box[3] + pad)
                   for o in self.scenes[self.scene].objects):
                return p
        return None

    def _visible_target(self) -> Target | None:
        """A target already in view (for a saccade), far enough from the current gaze point."""
        cam = self.cam
        if self.rng.uniform() < P_EMPTY_SPOT:
            p = self._empty_point((cam[0] + 0.15 * self.w, cam[1] + 0.15 * self.h),
                                  (cam[0] + 0.85 * self.w, cam[1] + 0.85 * self.h))
            if p is not None and self._far_enough(self._image(p, cam), self.last_point):
                return Target(p, None)
        objs = [o for o in self.scenes[self.scene].objects if o is not self.prev_obj and self._box_inside(o, cam)]
        self.rng.shuffle(objs)
        for obj in objs:
            p = self._object_point(obj)
            if self._far_enough(self._image(p, cam), self.last_point):
                return Target(p, obj)
        return None

    def _pan_target(self, ref: tuple[float, float] | None, min_pan: float = _MIN_PAN
                    ) -> tuple[Target, tuple[float, float]]:
        """A target anywhere in the scene and the viewport that shows it (for a head turn)."""
        objects = [o for o in self.scenes[self.scene].objects if o is not self.prev_obj]
        cw, ch = self.scenes[self.scene].size
        for attempt in range(400):
            want = (self.rng.uniform(0.2, 0.8), self.rng.uniform(0.2, 0.8))
            obj = None
            if self.rng.uniform() < P_EMPTY_SPOT:
                p = self._empty_point((0.1 * self.w, 0.1 * self.h), (cw - 0.1 * self.w, ch - 0.1 * self.h))
                if p is None:
                    continue
            else:
                obj = objects[int(self.rng.integers(len(objects)))]
                p = self._object_point(obj)
            cam = self._clamp_cam((p[0] - want[0] * self.w, p[1] - want[1] * self.h))
            pos = self._image(p, cam)
            if not (0.1 <= pos[0] <= 0.9 and 0.1 <= pos[1] <= 0.9):
                continue
            if obj is not None and not self._box_inside(obj, cam):
                continue
            if not self._far_enough(pos, ref):
                continue
            if attempt < 300 and math.hypot(cam[0] - self.cam[0], cam[1] - self.cam[1]) < min_pan * self.w:
                continue
            return Target(p, obj), cam
        raise RuntimeError("no reachable fixation target in the scene")  # pragma: no cover

    # ----------------------------------------------------------------------------- transitions
    def _transition(self, force_gap: bool) -> Target:
        """A saccade to a target in view, or a free-viewing gap with a head turn to a new one."""
        if not force_gap and self.rng.uniform() >= P_FREE_VIEW:
            target = self._visible_target()
            if target is not None:
                self._saccade(self._image(target.point, self.cam), int(self.rng.integers(1, 4)))
                return target
        length = int(self.rng.integers(27 if force_gap else GAP_MIN, GAP_MAX + 1))
        target, cam = self._pan_target(self.last_point)
        t0, t1 = self._time(self.cursor - 1), self._time(self.cursor + length)
        self.camera.add(t0, t1, self.scene, self.cam, cam, ease=True)
        self.cam = cam
        self._free_view(length, extras=force_gap, next_point=self._image(target.point, cam))
        self.need_extras = self.need_extras and not force_gap
        return target

    def _cut_gap(self) -> Target:
        """A free-viewing gap with a hard scene cut in its middle (no fixation spans this cut)."""
        length = int(self.rng.integers(18, GAP_MAX + 1))
        t_cut = self._frame_time_after(self._time(self.cursor) + length / GAZE_RATE / 2)
        self._switch_scene(t_cut)
        target, self.cam = self._pan_target(self.last_point, min_pan=0.0)
        self.camera.add(t_cut, t_cut, self.scene, self.cam)
        self._free_view(length, extras=False, next_point=self._image(target.point, self.cam))
        return target

    def _switch_scene(self, t_cut: float) -> None:
        """A hard cut to the next scene at ``t_cut`` (the caller adds the new camera segment)."""
        self.cuts.append(round(t_cut, 6))
        self.scene += 1
        self.prev_obj = None

    def _saccade(self, to: tuple[float, float], k: int) -> None:
        """k samples on the way from the last target to the next, in the middle fifth of the path: with
        targets at least MIN_SEPARATION apart they stay > 0.1 away from both fixations."""
        a = self.last_point or to
        for i in range(min(k, self.n - self.cursor)):
            f = 0.5 + (0.1 * (2 * i - (k - 1)) / max(k - 1, 1) if k > 1 else 0.0) + self.rng.normal(0, 0.01)
            self._put(self.cursor, a[0] + (to[0] - a[0]) * f, a[1] + (to[1] - a[1]) * f, SACCADE)
            self.cursor += 1

    def _free_view(self, length: int, extras: bool, next_point: tuple[float, float] | None) -> None:
        """Scattered short glances, long blinks and off-frame looks filling ``length`` samples.

        Every glance lands at least ``GLANCE_SEPARATION`` away from the previous glance, from the
        fixation before the gap and from the target of the fixation after it. With ``extras`` the gap
        surely holds one long blink and one off-frame look.
        """
        end = self.cursor + length
        todo = ["blink", "off"] if extras else []
        self.rng.shuffle(todo)
        prev = self.last_point
        while self.cursor < end:
            kind = todo.pop() if todo else ("glance", "glance", "glance", "blink", "off")[int(self.rng.integers(5))]
            if kind == "blink":
                n = min(int(self.rng.integers(8, 16)), end - self.cursor)
                self.kind[self.cursor:self.cursor + n] = LONG_BLINK
            elif kind == "off":
                n = min(int(self.rng.integers(2, 7)), end - self.cursor)
                px, py = self._off_frame_point()
                for i in range(n):
                    self._put(self.cursor + i, px + self._jx(), py + self._jy(), OFF_FRAME)
            else:
                n = min(int(self.rng.integers(3, 13)), end - self.cursor)
                p = self._glance_point(prev, self.last_point, next_point)
                for i in range(n):
                    self._put(self.cursor + i, p[0] + self._jx(), p[1] + self._jy(), GLANCE)
                prev = p
            self.cursor += n

    def _glance_point(self, prev: tuple[float, float] | None, *others: tuple[float, float] | None
                      ) -> tuple[float, float]:
        """A random in-frame point far from the previous gaze point (and, if possible, from ``others``)."""
        for refs in ((prev, *others), (prev,)):
            for _ in range(200):
                p = (self.rng.uniform(0.05, 0.95), self.rng.uniform(0.05, 0.95))
                if all(r is None or self._dist(p, r) >= GLANCE_SEPARATION for r in refs):
                    return p
        raise RuntimeError("no glance point far enough from the previous gaze")  # pragma: no cover

    def _off_frame_point(self) -> tuple[float, float]:
        """A point just outside the frame (looking past the camera's view)."""
        side = int(self.rng.integers(4))
        out = float(self.rng.uniform(0.04, 0.25))
        along = float(self.rng.uniform(0.1, 0.9))
        return [(-out, along), (1 + out, along), (along, -out), (along, 1 + out)][side]

    # ----------------------------------------------------------------------------- fixations
    def _fixation(self, target: Target, m: int) -> None:
        """A fixation of ``m`` samples with slow camera drift, flicks and short blinks."""
        a, b = self.cursor, self.cursor + m - 1
        cam0 = self.cam
        cam1 = self._drift_end(target, cam0)
        self.camera.add(self._time(a), self._time(b), self.scene, cam0, cam1)
        u = (np.arange(m) / max(m - 1, 1))
        cx, cy = cam0[0] + (cam1[0] - cam0[0]) * u, cam0[1] + (cam1[1] - cam0[1]) * u
        px, py = (target.point[0] - cx) / self.w, (target.point[1] - cy) / self.h
        for i in range(m):
            self._put(a + i, px[i] + self._jx(), py[i] + self._jy(), FIX)
        self._add_interruptions(a, b, px, py)
        self.fixations.append(TrueFixation(a, b, target.obj, False))
        self.cam, self.cursor = cam1, b + 1
        self.last_point, self.prev_obj = (float(px[-1]), float(py[-1])), target.obj

    def _drift_end(self, target: Target, cam0: tuple[float, float]) -> tuple[float, float]:
        """Where a slow head drift during a fixation ends: a random direction, at most MAX_FIX_DRIFT frame
        widths in total (less at the canvas border), reversed or dropped if it would push the target
        out of the frame."""
        amount = self.rng.uniform(0.004, MAX_FIX_DRIFT) * self.w
        angle = self.rng.uniform(0, 2 * math.pi)
        d = (amount * math.cos(angle), amount * math.sin(angle))
        for sign in (1.0, -1.0):
            cam1 = self._clamp_cam((cam0[0] + sign * d[0], cam0[1] + sign * d[1]))
            pos = self._image(target.point, cam1)
            if 0.05 <= pos[0] <= 0.95 and 0.05 <= pos[1] <= 0.95:
                return cam1
        return cam0

    def _add_interruptions(self, a: int, b: int, px: np.ndarray, py: np.ndarray) -> None:
        """Flicks (1-4 samples away and back) and short blinks (1-4 invalid samples)."""
        m = b - a + 1
        n_flicks = min(3, int(self.rng.poisson(0.3 * m / GAZE_RATE)))
        n_blinks = int(self.rng.uniform() < 0.3)
        long_enough = m >= _samples(1.5)
        if self.need_flick and long_enough:
            n_flicks = max(n_flicks, 1)
        if self.need_blink and long_enough:
            n_blinks = max(n_blinks, 1)
        events = ["flick"] * n_flicks + ["blink"] * n_blinks
        self.rng.shuffle(events)
        for ev in events:
            n = int(self.rng.integers(1, 5))
            s = self._free_slot(a, b, n)
            if s is None:
                continue
            i = s - a
            if ev == "blink":
                self.x[s:s + n] = self.y[s:s + n] = np.nan
                self.valid[s:s + n] = False
                self.kind[s:s + n] = SHORT_BLINK
                self.need_blink = False
            else:
                fx, fy = self._flick_point((float(px[i]), float(py[i])))
                for k in range(n):
                    self._put(s + k, fx + self._jx(), fy + self._jy(), FLICK)
                self.flicks.append((s, s + n - 1))
                self.need_flick = False

    def _free_slot(self, a: int, b: int, n: int) -> int | None:
        """Start of n consecutive samples inside [a, b], with quiet regular samples around them."""
        lo, hi = a + _QUIET, b - _QUIET - n + 1
        for _ in range(30):
            if hi < lo:
                return None
            s = int(self.rng.integers(lo, hi + 1))
            if np.all(self.kind[s - _QUIET:s + n + _QUIET] == FIX):
                return s
        return None

    def _flick_point(self, at: tuple[float, float]) -> tuple[float, float]:
        for _ in range(100):
            r = self.rng.uniform(FLICK_MIN, FLICK_MAX)
            a = self.rng.uniform(0, 2 * math.pi)
            p = (at[0] + r * math.cos(a), at[1] + r * math.sin(a) * self.w / self.h)
            if 0.03 <= p[0] <= 0.97 and 0.03 <= p[1] <= 0.97:
                return p
        raise RuntimeError("no room for a flick")  # pragma: no cover

    def _spanning_fixation(self, target: Target, m: int) -> None:
        """The fixation a scene cut falls into: the eye stays still while the scene changes."""
        a, b = self.cursor, self.cursor + m - 1
        self.camera.add(self._time(a), self._time(b), self.scene, self.cam)
        t_cut = self._frame_time_after(self._time(a) + self.rng.uniform(0.55, 0.7) * (m - 1) / GAZE_RATE)
        pos = self._image(target.point, self.cam)
        for i in range(m):
            self._put(a + i, pos[0] + self._jx(), pos[1] + self._jy(), FIX)
        self.fixations.append(TrueFixation(a, b, target.obj, True))
        self._switch_scene(t_cut)
        cw, ch = self.scenes[self.scene].size
        self.cam = (float(self.rng.uniform(0, cw - self.w)), float(self.rng.uniform(0, ch - self.h)))
        self.camera.add(t_cut, t_cut, self.scene, self.cam)
        self.cursor, self.last_point = b + 1, pos

    # ----------------------------------------------------------------------------- helpers
    def _put(self, i: int, x: float, y: float, kind: int) -> None:
        self.x[i], self.y[i], self.valid[i], self.kind[i] = x, y, True, kind

    def _jx(self) -> float:
        return float(self.rng.normal(0.0, JITTER))

    def _jy(self) -> float:
        return float(self.rng.normal(0.0, JITTER * self.w / self.h))

    def _time(self, i: int) -> float:
        return max(i, 0) / GAZE_RATE

    def _frame_time_after(self, t: float) -> float:
        """The first video frame time at or after t."""
        return math.ceil(t * self.fps - 1e-9) / self.fps


def _samples(seconds: float) -> int:
    """Number of samples of a run lasting ``seconds`` from its first to its last sample."""
    return int(round(seconds * GAZE_RATE)) + 1
