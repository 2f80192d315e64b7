"""Scenes of the synthetic world: a large pre-rendered table-top canvas with non-overlapping objects.

The camera (see :mod:`.camera`) is a frame-sized viewport that slides over the canvas, so the canvas
is larger than a frame (``CANVAS_SCALE`` times in each direction, 3.2x the frame area) and objects
enter and leave the view as the camera moves. All positions here are canvas pixels.

The background of a scene is a fine, spatially stationary pattern (planks with grain, small tiles, a
mat grid) in shades of one fully saturated colour: any frame-sized window of it has nearly the same
Hue-Saturation histogram, so frames of one scene correlate strongly (> 0.95 even across fast pans and
H.264 noise) while frames of two scenes do not (about 0).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from .catalog import CATALOG, COLORS, SHAPE_WORDS, TEXTURE_WORDS, ObjectSpec, SceneTemplate

CANVAS_SCALE = (2.0, 1.6)  # canvas size / frame size, per axis
OBJECTS_PER_SCENE = 12
_EDGE_MARGIN = 0.04  # frame-width units kept free along the canvas border
_GAP = 0.03  # frame-width units kept free between two object boxes


@dataclass(frozen=True, eq=False)
class PlacedObject:
    """One object instance on a scene canvas."""

    id: int
    spec: ObjectSpec
    scene: int  # index of the scene the object lies in
    state: str
    center: tuple[float, float]  # canvas pixels
    polygon: np.ndarray  # (N, 2) float outline in canvas pixels
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 canvas pixels (bounding box of the outline)

    @property
    def attributes(self) -> dict[str, str]:
        s = self.spec
        return {"color": s.color, "shape": SHAPE_WORDS[s.shape], "material": s.material,
                "texture": TEXTURE_WORDS[s.texture], "size": s.size, "state": self.state}

    @property
    def half_extent(self) -> float:
        """Half of the smaller side of the bounding box (pixels)."""
        x0, y0, x1, y1 = self.box
        return 0.5 * min(x1 - x0, y1 - y0)


@dataclass
class Scene:
    """A rendered scene: its canvas (BGR uint8) and the objects drawn on it."""

    index: int
    id: str
    template: SceneTemplate
    canvas: np.ndarray
    objects: list[PlacedObject]

    @property
    def name(self) -> str:
        return self.template.name

    @property
    def size(self) -> tuple[int, int]:
        """Canvas (width, height) in pixels."""
        return self.canvas.shape[1], self.canvas.shape[0]


def canvas_size(width: int, height: int) -> tuple[int, int]:
    """Canvas (width, height) in pixels for a frame size."""
    return int(round(CANVAS_SCALE[0] * width)), int(round(CANVAS_SCALE[1] * height))


def shape_polygon(shape: str, half_w: float, half_h: float, angle: float) -> np.ndarray:
    """Outline of a drawing primitive centred on the origin, rotated by ``angle`` radians: (N, 2)."""
    if shape in ("circle", "ellipse"):
        a = np.linspace(0.0, 2 * math.pi, 48, endpoint=False)
        pts = np.stack([half_w * np.cos(a), half_h * np.sin(a)], axis=1)
    elif shape == "rectangle":
        pts = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
    elif shape == "triangle":
        pts = np.array([[0.0, -half_h], [half_w, half_h * 0.8], [-half_w, half_h * 0.8]])
    elif shape == "diamond":
        pts = np.array([[0.0, -half_h * 1.15], [half_w * 0.85, 0.0], [0.0, half_h * 1.15], [-half_w * 0.85, 0.0]])
    elif shape == "hexagon":
        a = np.arange(6) * math.pi / 3
        pts = np.stack([half_w * np.cos(a), half_h * np.sin(a)], axis=1)
    elif shape == "star":
        a = np.arange(10) * math.pi / 5 - math.pi / 2
        r = np.where(np.arange(10) % 2 == 0, 1.15, 0.5)
        pts = np.stack([half_w * r * np.cos(a), half_h * r * np.sin(a)], axis=1)
    else:
        raise ValueError(f"unknown shape {shape!r}")
    c, s = math.cos(angle), math.sin(angle)
    return pts @ np.array([[c, s], [-s, c]])


def build_scenes(rng: np.random.Generator, n_scenes: int, width: int, height: int,
                 templates: list[SceneTemplate]) -> list[Scene]:
    """Pick objects for every scene (names unique across the video), place and render them."""
    if n_scenes * OBJECTS_PER_SCENE > len(CATALOG):
        raise ValueError(f"the catalogue has {len(CATALOG)} objects, not enough for {n_scenes} scenes")
    scenes: list[Scene] = []
    unused = [CATALOG[int(i)] for i in rng.permutation(len(CATALOG))]
    next_id = 0
    for j in range(n_scenes):
        specs = choose_objects(unused, scenes[-1] if scenes else None, last=j == n_scenes - 1)
        objects = place_objects(rng, specs, j, next_id, width, height)
        next_id += len(objects)
        canvas = render_background(rng, templates[j], *canvas_size(width, height), width)
        for obj in objects:
            draw_object(canvas, obj, width)
        scenes.append(Scene(j, f"s{j}", templates[j], canvas, objects))
    return scenes


def choose_objects(unused: list[ObjectSpec], previous: Scene | None, last: bool,
                   n_shared: int = 4) -> list[ObjectSpec]:
    """``OBJECTS_PER_SCENE`` catalogue objects, taken in order from ``unused`` (a shuffled list).

    Consecutive scenes hold partly the same kinds of things: a scene first takes other instances of
    up to ``n_shared`` categories the previous scene had (another mug, another knife), and, unless it
    is the last scene, keeps a second instance of ``n_shared`` of its own categories unused for the
    next one. Every object -- and every name -- still belongs to one scene only. The rest is chosen
    so that the scene has at least ``_VARIETY`` distinct shapes, colours, textures and materials.
    """
    chosen: list[ObjectSpec] = []
    prev_cats = {o.spec.category for o in previous.objects} if previous is not None else set()
    for spec in unused:
        if len(chosen) < n_shared and spec.category in prev_cats and spec.category not in _cats(chosen):
            chosen.append(spec)
    reserved: set[str] = set()
    if not last:
        left = Counter(s.category for s in unused if s not in chosen)
        reserved = {c for c in _cats(chosen) if left[c] >= 1}
        for spec in unused:
            if len(reserved) < n_shared and spec not in chosen and spec.category not in reserved \
                    and left[spec.category] >= 2:
                chosen.append(spec)
                reserved.add(spec.category)
    for varied_only in (True, False):  # first whatever adds variety, then anything
        for spec in unused:
            if len(chosen) == OBJECTS_PER_SCENE:
                break
            if spec in chosen or (spec.category in reserved and spec.category in _cats(chosen)):
                continue
            if not varied_only or _adds_variety(spec, chosen):
                chosen.append(spec)
    for spec in chosen:
        unused.remove(spec)
    return chosen


# Least number of distinct values per scene (attribute questions need distractors).
_VARIETY = {"shape": 4, "color": 5, "texture": 3, "material": 3}


def _adds_variety(spec: ObjectSpec, chosen: list[ObjectSpec]) -> bool:
    for attr, least in _VARIETY.items():
        have = {getattr(c, attr) for c in chosen}
        if len(have) < least and getattr(spec, attr) not in have:
            return True
    return False


def _cats(specs: list[ObjectSpec]) -> set[str]:
    return {s.category for s in specs}


def place_objects(rng: np.random.Generator, specs: list[ObjectSpec], scene: int, first_id: int,
                  width: int, height: int) -> list[PlacedObject]:
    """Random non-overlapping placement (rejection sampling on bounding boxes plus a gap)."""
    cw, ch = canvas_size(width, height)
    margin, gap = _EDGE_MARGIN * width, _GAP * width
    # Big objects first: they are the hardest to fit.
    specs = sorted(specs, key=lambda s: -s.half_size(width)[0] * s.half_size(width)[1])
    placed: list[PlacedObject] = []
    for spec in specs:
        hw, hh = spec.half_size(width)
        for _ in range(2000):
            angle = float(rng.uniform(-0.6, 0.6)) if spec.shape not in ("circle", "star", "hexagon") else 0.0
            poly = shape_polygon(spec.shape, hw, hh, angle)
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            cx = float(rng.uniform(margin - lo[0], cw - margin - hi[0]))
            cy = float(rng.uniform(margin - lo[1], ch - margin - hi[1]))
            box = (cx + lo[0], cy + lo[1], cx + hi[0], cy + hi[1])
            if all(not _boxes_overlap(box, p.box, gap) for p in placed):
                break
        else:
            raise RuntimeError("could not place the scene objects without overlap")
        state = spec.states[int(rng.integers(len(spec.states)))]
        placed.append(PlacedObject(0, spec, scene, state, (cx, cy), poly + np.array([cx, cy]), box))
    # Ids in reading order (top to bottom, left to right), stable and easy to follow.
    placed.sort(key=lambda p: (round(p.center[1]), round(p.center[0])))
    return [PlacedObject(first_id + k, p.spec, p.scene, p.state, p.center, p.polygon, p.box)
            for k, p in enumerate(placed)]


def _boxes_overlap(a: tuple[float, ...], b: tuple[float, ...], gap: float) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


def render_background(rng: np.random.Generator, template: SceneTemplate, cw: int, ch: int,
                      frame_width: int) -> np.ndarray:
    """The scene's table/counter surface: a fine stationary pattern in one dominant colour.

    The pattern is a brightness map (planks with seams and grain lines, tiles with grout, a mat with
    a grid); the image is that map times the template's fully saturated colour, so hue and
    saturation are the same everywhere (see :class:`~.catalog.SceneTemplate`).
    """
    u = frame_width / 320.0  # pattern scale follows the frame size
    if template.pattern == "wood":
        shade = _wood(rng, cw, ch, u)
    elif template.pattern == "tiles":
        shade = _tiles(rng, cw, ch, u)
    elif template.pattern == "mat":
        shade = _mat(cw, ch, u)
    else:
        raise ValueError(f"unknown background pattern {template.pattern!r}")
    return np.clip(np.rint(shade[..., None] * np.array(template.bgr, np.float32)[None, None, :]), 0, 255).astype(np.uint8)


def _wood(rng: np.random.Generator, cw: int, ch: int, u: float) -> np.ndarray:
    """Horizontal planks of slightly different brightness, dark seams, sparse wavy grain lines."""
    plank = 44.0 * u
    rows = np.arange(ch)
    idx = (rows // plank).astype(np.int64)
    shade = np.repeat(rng.uniform(0.9, 1.08, size=idx.max() + 1)[idx][:, None], cw, axis=1).astype(np.float32)
    xs = np.arange(0, cw + 8, 8, dtype=np.float64)
    for k in range(idx.max() + 1):
        top = k * plank
        for _ in range(3):
            y0 = top + rng.uniform(0.2, 0.8) * plank
            amp, period, phase = rng.uniform(1, 4) * u, rng.uniform(80, 200) * u, rng.uniform(0, 2 * math.pi)
            ys = y0 + amp * np.sin(2 * math.pi * xs / period + phase)
            pts = np.round(np.stack([xs, ys], axis=1)).astype(np.int32)
            cv2.polylines(shade, [pts], False, 0.8, thickness=1)
        cv2.line(shade, (0, int(top)), (cw, int(top)), 0.72, thickness=max(1, int(round(1.5 * u))))
    return shade


def _tiles(rng: np.random.Generator, cw: int, ch: int, u: float) -> np.ndarray:
    """Small square tiles of slightly different brightness with darker grout lines."""
    tile = 24.0 * u
    yy, xx = np.mgrid[0:ch, 0:cw]
    ti, tj = (yy // tile).astype(np.int64), (xx // tile).astype(np.int64)
    shade = rng.uniform(0.92, 1.08, size=(ti.max() + 1, tj.max() + 1))[ti, tj].astype(np.float32)
    width = max(1.0, 1.5 * u)
    shade[(np.mod(yy, tile) < width) | (np.mod(xx, tile) < width)] = 0.75
    return shade


def _mat(cw: int, ch: int, u: float) -> np.ndarray:
    """A cutting mat: flat colour with a darker grid."""
    yy, xx = np.mgrid[0:ch, 0:cw]
    grid, width = 40.0 * u, max(1.0, u)
    shade = np.ones((ch, cw), np.float32)
    shade[(np.mod(yy, grid) < width) | (np.mod(xx, grid) < width)] = 0.8
    return shade


def draw_object(canvas: np.ndarray, obj: PlacedObject, frame_width: int) -> None:
    """Fill the object's outline with its colour and texture, then draw a dark border."""
    x0, y0, x1, y1 = (int(math.floor(obj.box[0])) - 2, int(math.floor(obj.box[1])) - 2,
                      int(math.ceil(obj.box[2])) + 3, int(math.ceil(obj.box[3])) + 3)
    h, w = y1 - y0, x1 - x0
    local = np.round((obj.polygon - np.array([x0, y0])) * 4).astype(np.int32)  # 2 fractional bits
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [local], 255, lineType=cv2.LINE_AA, shift=2)
    color = np.array(COLORS[obj.spec.color], np.float32)
    pattern = _texture(obj.spec.texture, h, w, max(3.0, 0.012 * frame_width))
    second = _contrast(color)
    fill = color[None, None, :] * (1 - pattern[..., None]) + second[None, None, :] * pattern[..., None]
    # The patch may reach past the canvas edges (small frames): work on a full-size patch, write back
    # only the part inside the canvas.
    vy0, vx0 = max(0, y0), max(0, x0)
    vy1, vx1 = min(canvas.shape[0], y1), min(canvas.shape[1], x1)
    patch = np.zeros((h, w, 3), np.float32)
    patch[vy0 - y0:vy1 - y0, vx0 - x0:vx1 - x0] = canvas[vy0:vy1, vx0:vx1]
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    out = patch * (1 - alpha) + fill * alpha
    out = np.clip(out, 0, 255).astype(np.uint8)
    cv2.polylines(out, [local], True, (20, 20, 20), thickness=max(1, frame_width // 320),
                  lineType=cv2.LINE_AA, shift=2)
    canvas[vy0:vy1, vx0:vx1] = out[vy0 - y0:vy1 - y0, vx0 - x0:vx1 - x0]


def _contrast(color: np.ndarray) -> np.ndarray:
    """The second colour of a pattern: darker for light colours, lighter for dark ones."""
    if float(color.mean()) > 110:
        return color * 0.55
    return color + (255 - color) * 0.45


def _texture(texture: str, h: int, w: int, cell: float) -> np.ndarray:
    """Weight of the second colour per pixel (0..1) for a texture pattern."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if texture == "solid":
        return np.zeros((h, w), np.float32)
    if texture == "stripes":
        return (np.mod((xx + yy) / (1.6 * cell), 2.0) < 1.0).astype(np.float32)
    if texture == "checker":
        return ((np.floor(xx / (1.6 * cell)) + np.floor(yy / (1.6 * cell))) % 2).astype(np.float32)
    if texture == "dots":
        period = 2.6 * cell
        dx, dy = np.mod(xx, period) - period / 2, np.mod(yy, period) - period / 2
        return (np.hypot(dx, dy) < 0.32 * period).astype(np.float32)
    raise ValueError(f"unknown texture {texture!r}")
