"""What the synthetic world is made of: the object catalogue and the table/counter scene templates.

Every catalogue entry is one named object with a fixed look. Its (shape, colour, texture) triple is
unique across the whole catalogue, so no two objects of a video look alike, and the attribute values
(colour, shape, material, texture, size, state) are the words attribute questions are built from.
Categories repeat on purpose ("red mug" and "yellow mug" are both mugs) so that two scenes of a video
can hold partly the same kinds of things while every object name stays unique within the video.
"""

from __future__ import annotations

from dataclasses import dataclass

# Colour name -> BGR. The names are the "color" attribute values.
COLORS: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 215),
    "orange": (20, 135, 245),
    "yellow": (30, 215, 240),
    "green": (60, 170, 50),
    "blue": (200, 90, 30),
    "cyan": (210, 200, 40),
    "purple": (150, 50, 130),
    "pink": (180, 120, 245),
    "white": (238, 238, 238),
    "black": (35, 35, 35),
    "silver": (190, 185, 180),
    "brown": (30, 70, 120),
    "tan": (120, 175, 215),
}

# Drawing primitive -> the "shape" attribute value.
SHAPE_WORDS: dict[str, str] = {
    "circle": "round",
    "ellipse": "oval",
    "rectangle": "rectangular",
    "triangle": "triangular",
    "star": "star-shaped",
    "hexagon": "hexagonal",
    "diamond": "diamond-shaped",
}

# Texture pattern -> the "texture" attribute value.
TEXTURE_WORDS: dict[str, str] = {
    "solid": "plain",
    "stripes": "striped",
    "dots": "dotted",
    "checker": "checkered",
}

# Size word -> half-size of the object in frame-width units (before the per-shape aspect).
SIZE_SCALE: dict[str, float] = {"small": 0.045, "medium": 0.062, "large": 0.085}


@dataclass(frozen=True)
class ObjectSpec:
    """One catalogue object: its name, category, look and what can be done with it."""

    name: str
    category: str
    shape: str  # drawing primitive, a key of SHAPE_WORDS
    color: str  # a key of COLORS
    material: str
    texture: str  # a key of TEXTURE_WORDS
    size: str  # a key of SIZE_SCALE
    states: tuple[str, ...]
    verbs: tuple[str, ...]
    aspect: tuple[float, float] = (1.0, 1.0)  # half-width and half-height factors

    def half_size(self, frame_width: int) -> tuple[float, float]:
        """Half-width and half-height in pixels for a frame of the given width."""
        s = SIZE_SCALE[self.size] * frame_width
        return s * self.aspect[0], s * self.aspect[1]


def _o(name: str, category: str, shape: str, color: str, material: str, texture: str, size: str,
       states: str, verbs: str, aspect: tuple[float, float] = (1.0, 1.0)) -> ObjectSpec:
    return ObjectSpec(name, category, shape, color, material, texture, size,
                      tuple(states.split("|")), tuple(verbs.split("|")), aspect)


_HOLD = "pick up|put down|move"
CATALOG: tuple[ObjectSpec, ...] = (
    _o("red mug", "mug", "circle", "red", "ceramic", "stripes", "medium", "empty|full", f"{_HOLD}|fill|wash"),
    _o("yellow mug", "mug", "circle", "yellow", "ceramic", "dots", "medium", "empty|full", f"{_HOLD}|fill|wash"),
    _o("blue mug", "mug", "circle", "blue", "ceramic", "stripes", "medium", "empty|full", f"{_HOLD}|fill|wash"),
    _o("white bowl", "bowl", "circle", "white", "ceramic", "dots", "large", "empty|full", f"{_HOLD}|stir|wash"),
    _o("cyan cup", "cup", "circle", "cyan", "glass", "solid", "small", "empty|full", f"{_HOLD}|fill"),
    _o("blue bowl", "bowl", "circle", "blue", "ceramic", "solid", "large", "empty|full", f"{_HOLD}|stir|wash"),
    _o("green bowl", "bowl", "circle", "green", "plastic", "checker", "large", "empty|full", f"{_HOLD}|stir|wash"),
    _o("white plate", "plate", "circle", "white", "ceramic", "solid", "large", "clean|dirty", f"{_HOLD}|wash|wipe"),
    _o("tomato", "tomato", "circle", "red", "organic", "solid", "small", "whole|sliced", "pick up|cut|wash"),
    _o("green apple", "apple", "circle", "green", "organic", "solid", "small", "whole|sliced", "pick up|cut|peel"),
    _o("orange", "orange", "circle", "orange", "organic", "dots", "small", "whole|peeled", "pick up|peel|cut"),
    _o("frying pan", "pan", "circle", "black", "metal", "solid", "large", "empty|full", f"{_HOLD}|wash|stir"),
    _o("steel pot", "pot", "circle", "silver", "metal", "stripes", "large", "empty|full", f"{_HOLD}|fill|stir"),
    _o("purple cup", "cup", "circle", "purple", "plastic", "solid", "small", "empty|full", f"{_HOLD}|fill"),
    _o("teapot", "teapot", "circle", "cyan", "ceramic", "dots", "medium", "empty|full", f"{_HOLD}|fill|pour from"),
    _o("green bottle", "bottle", "ellipse", "green", "glass", "solid", "medium", "open|closed",
       f"{_HOLD}|open|close|pour from", (0.6, 1.5)),
    _o("orange bottle", "bottle", "ellipse", "orange", "plastic", "stripes", "medium", "open|closed",
       f"{_HOLD}|open|close|pour from", (0.6, 1.5)),
    _o("cucumber", "cucumber", "ellipse", "green", "organic", "stripes", "medium", "whole|sliced",
       "pick up|cut|peel|wash", (1.5, 0.5)),
    _o("lemon", "lemon", "ellipse", "yellow", "organic", "dots", "small", "whole|sliced", "pick up|cut|squeeze",
       (1.2, 0.85)),
    _o("oven mitt", "oven mitt", "ellipse", "red", "fabric", "checker", "medium", "clean|dirty",
       "pick up|put down|put on", (0.8, 1.3)),
    _o("wooden spoon", "spoon", "ellipse", "brown", "wood", "stripes", "medium", "clean|dirty",
       f"{_HOLD}|stir with|wash", (1.7, 0.4)),
    _o("knife", "knife", "rectangle", "silver", "metal", "solid", "medium", "clean|dirty",
       f"{_HOLD}|wash|wipe", (1.7, 0.3)),
    _o("bread knife", "knife", "rectangle", "black", "metal", "stripes", "medium", "clean|dirty",
       f"{_HOLD}|wash|wipe", (1.8, 0.3)),
    _o("red towel", "towel", "rectangle", "red", "fabric", "stripes", "large", "folded|crumpled",
       "pick up|fold|wipe with", (1.2, 0.8)),
    _o("cutting board", "cutting board", "rectangle", "tan", "wood", "stripes", "large", "clean|dirty",
       f"{_HOLD}|wipe|wash", (1.3, 0.9)),
    _o("spatula", "spatula", "rectangle", "black", "plastic", "solid", "medium", "clean|dirty",
       f"{_HOLD}|wash", (1.6, 0.35)),
    _o("sponge", "sponge", "rectangle", "yellow", "foam", "dots", "small", "dry|wet", "pick up|squeeze|put down",
       (1.3, 0.8)),
    _o("dish towel", "towel", "rectangle", "blue", "fabric", "checker", "large", "folded|crumpled",
       "pick up|fold|wipe with", (1.2, 0.8)),
    _o("soap bottle", "bottle", "rectangle", "pink", "plastic", "solid", "medium", "full|empty",
       "pick up|squeeze|put down", (0.6, 1.2)),
    _o("recipe book", "book", "rectangle", "purple", "paper", "stripes", "large", "open|closed",
       "open|close|read|move", (1.0, 1.3)),
    _o("egg carton", "egg carton", "rectangle", "white", "paper", "checker", "medium", "open|closed",
       "open|close|pick up", (1.5, 0.7)),
    _o("butter dish", "butter dish", "rectangle", "yellow", "glass", "solid", "medium", "open|closed",
       "open|close|move", (1.2, 0.8)),
    _o("cheese wedge", "cheese", "triangle", "yellow", "organic", "dots", "medium", "whole|sliced",
       "pick up|cut|wrap"),
    _o("pizza slice", "pizza", "triangle", "orange", "organic", "dots", "medium", "hot|cold", "pick up|cut|eat"),
    _o("funnel", "funnel", "triangle", "green", "plastic", "solid", "small", "clean|dirty", f"{_HOLD}|wash"),
    _o("sandwich", "sandwich", "triangle", "tan", "organic", "stripes", "medium", "whole|cut", "pick up|cut|eat"),
    _o("star cookie", "cookie", "star", "brown", "organic", "dots", "small", "whole|broken", "pick up|eat|move"),
    _o("cookie cutter", "cookie cutter", "star", "silver", "metal", "solid", "small", "clean|dirty",
       f"{_HOLD}|wash"),
    _o("star plate", "plate", "star", "blue", "ceramic", "stripes", "large", "clean|dirty", f"{_HOLD}|wipe"),
    _o("salt shaker", "shaker", "hexagon", "white", "glass", "dots", "small", "full|empty",
       "pick up|shake|put down"),
    _o("pepper grinder", "grinder", "hexagon", "black", "wood", "solid", "small", "full|empty",
       "pick up|grind|put down"),
    _o("wooden trivet", "trivet", "hexagon", "brown", "wood", "checker", "medium", "clean|dirty", "move|wipe"),
    _o("honey jar", "jar", "hexagon", "orange", "glass", "solid", "small", "open|closed", "open|close|pick up"),
    _o("napkin", "napkin", "diamond", "pink", "paper", "checker", "medium", "folded|unfolded",
       "pick up|fold|wipe with"),
    _o("kitchen timer", "timer", "diamond", "red", "plastic", "solid", "small", "running|stopped",
       "pick up|set|put down"),
    _o("green sponge", "sponge", "diamond", "green", "foam", "stripes", "small", "dry|wet", "pick up|squeeze"),
    _o("coaster", "coaster", "diamond", "cyan", "cork", "checker", "small", "clean|dirty", "move|wipe"),
)


@dataclass(frozen=True)
class SceneTemplate:
    """A place the camera wearer works at: a name and a background pattern in one dominant colour.

    ``bgr`` is a fully saturated colour (its smallest channel is 0). Every background pixel is a
    multiple (0.7-1.1) of it -- planks, tiles and lines differ in brightness only -- so the whole
    surface has one hue and saturation 255: it falls into a single bin of a 50x60 Hue-Saturation
    histogram, and H.264 compression noise (which shifts decoded colours by a level or two, more in
    fast pans) cannot move it into a neighbouring bin. Frames of one scene therefore keep nearly the
    same histogram, frames of two scenes share almost none of it.
    """

    key: str
    name: str
    pattern: str  # "wood", "tiles" or "mat"
    bgr: tuple[int, int, int]


# OpenCV hues 12 (brown-orange), 103 (blue) and 60 (green): far apart, and each well inside its
# histogram bin (checked against the yuv420p round trip and +-2 levels of noise in Y, U and V).
SCENE_TEMPLATES: tuple[SceneTemplate, ...] = (
    SceneTemplate("wood", "wooden kitchen table", "wood", (0, 66, 165)),
    SceneTemplate("tiles", "blue tiled counter", "tiles", (200, 113, 0)),
    SceneTemplate("mat", "green workbench mat", "mat", (0, 150, 0)),
)
