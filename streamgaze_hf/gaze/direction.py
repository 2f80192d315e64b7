"""Eight-way gaze directions in the image plane (VL4Gaze GDD) and their angles.

The angle convention, stated once for the whole toolkit:

* image coordinates: origin top-left, x to the right, **y down** (pixels, or normalised to [0, 1]);
* a direction's angle is measured on screen, counter-clockwise from the right:
  **right = 0°, up = 90°, left = 180°, down = 270°** (so the vector (dx, dy) in image coordinates has
  the angle ``atan2(-dy, dx)``, taken in [0, 360));
* the direction of a gaze is the vector from the eye point to the gaze target **in pixels** (normalised
  coordinates are scaled by the image width and height first, so a wide image does not bend angles);
* it is discretised into eight 45° sectors centred on the eight directions: "right" covers
  [-22.5°, 22.5°), "upper right" [22.5°, 67.5°), ..., "lower right" [292.5°, 337.5°) (a boundary
  angle belongs to the sector counter-clockwise of it);
* the angular error between two directions is the smaller angle between their sector centres
  (0, 45, 90, 135 or 180 degrees).

Directions are named from the viewer's side of the image ("left" = towards the image's left edge).
"""

from __future__ import annotations

import math

__all__ = ["DIRECTIONS", "DIRECTION_ANGLES", "direction_angle", "discretize", "direction_of",
           "angular_difference", "direction_error"]

#: the eight directions, counter-clockwise from the right
DIRECTIONS: tuple[str, ...] = ("right", "upper right", "up", "upper left", "left", "lower left", "down",
                               "lower right")
#: direction -> its angle (degrees, right = 0, up = 90)
DIRECTION_ANGLES: dict[str, float] = {d: 45.0 * i for i, d in enumerate(DIRECTIONS)}


def direction_angle(dx: float, dy: float) -> float | None:
    """The angle in [0, 360) of the image-coordinate vector (dx, dy) (y down); None for a zero vector."""
    if dx == 0 and dy == 0:
        return None
    return math.degrees(math.atan2(-dy, dx)) % 360.0


def discretize(angle: float) -> str:
    """The direction whose 45° sector holds ``angle`` (degrees, any real number)."""
    return DIRECTIONS[int(math.floor(((angle % 360.0) + 22.5) / 45.0)) % 8]


def direction_of(eye: tuple[float, float], target: tuple[float, float], width: float = 1.0,
                 height: float = 1.0) -> str | None:
    """The eight-way direction from ``eye`` to ``target`` (normalised coordinates scaled by the image
    ``width`` x ``height``; pass 1, 1 for pixel coordinates). None when they coincide."""
    angle = direction_angle((target[0] - eye[0]) * width, (target[1] - eye[1]) * height)
    return None if angle is None else discretize(angle)


def angular_difference(a: float, b: float) -> float:
    """The smaller angle between two angles, in [0, 180] degrees."""
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def direction_error(predicted: str, truth: str) -> float:
    """Angular error (degrees) between two of the eight directions."""
    return angular_difference(DIRECTION_ANGLES[predicted], DIRECTION_ANGLES[truth])
