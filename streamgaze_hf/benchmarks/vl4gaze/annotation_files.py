"""Readers of gaze-following annotations: GazeFollow and VideoAttentionTarget.

Both give, per person in an image, a head box and a gaze target; every row is validated and a bad row
raises StreamGazeError naming the file and the line. Output: one :class:`GazeAnnotation` per person
and image, all coordinates **normalised to [0, 1], origin top-left, y down** (the toolkit's gaze
convention; directions and angles: ``gaze/direction.py``).

GazeFollow (Recasens et al. 2015, the "extended" release with head boxes of Chong et al. 2020):
``train_annotations_release.txt`` / ``test_annotations_release.txt``, comma-separated, no header::

    path, idx, body_bbox_x, body_bbox_y, body_bbox_w, body_bbox_h, eye_x, eye_y, gaze_x, gaze_y,
    bbox_x_min, bbox_y_min, bbox_x_max, bbox_y_max, [inout,] [source,] meta

``eye_*`` and ``gaze_*`` are normalised by the image size; the head box (``bbox_*``) is in pixels;
``inout`` is 1 (target inside), 0 (outside; gaze given as -1, -1) or -1 (not annotated: the row is
skipped and counted). The train file has ``inout`` (16 or 17 columns with ``source``); the test file
has none (15 or 16 columns): its targets are all inside and each person appears once per annotator
(about ten rows); the rows of one person (same path and eye point) become one annotation whose
``gaze`` is the mean of the annotators' points and ``gaze_points`` lists them all.

VideoAttentionTarget (Chong et al. 2020): ``annotations/{train,test}/<show>/<clip>/<person>.txt``,
one line per frame, comma-separated, no header::

    frame_file, xmin, ymin, xmax, ymax, gaze_x, gaze_y

all in **pixels** of the frame ``images/<show>/<clip>/<frame_file>``; ``gaze_x = gaze_y = -1`` means
the target is outside the frame. There is no eye point: the head box centre stands in for it.

Both layouts are as read by the public loader of Chong et al. 2020 (``ejcgt/attention-target-detection``,
``dataset.py``); neither dataset ships a format document.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...gaze import finite_float
from ...util.errors import StreamGazeError

__all__ = ["GazeAnnotation", "ReadReport", "read_gazefollow", "read_videoattentiontarget", "image_size"]


@dataclass(frozen=True)
class GazeAnnotation:
    """One person's gaze in one image (normalised coordinates, origin top-left)."""

    source: str  # gazefollow | videoattentiontarget | synthetic
    image: str  # path relative to the image root (forward slashes)
    person: str  # person id, unique within the image
    width: int
    height: int
    head_box: tuple[float, float, float, float]  # x_min, y_min, x_max, y_max
    eye: tuple[float, float]
    gaze: tuple[float, float] | None  # None: the target is outside the image
    gaze_points: tuple[tuple[float, float], ...] = ()  # every annotator's point (GazeFollow test)
    file: str = ""  # the annotation file and line it came from
    line: int = 0

    @property
    def inside(self) -> bool:
        return self.gaze is not None


@dataclass
class ReadReport:
    """What a reader kept and skipped."""

    annotations: list[GazeAnnotation] = field(default_factory=list)
    skipped_unannotated: int = 0  # GazeFollow inout = -1
    files: int = 0


def image_size(path: Path) -> tuple[int, int]:
    """(width, height) of an image file, from its header."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            return int(im.width), int(im.height)
    except (OSError, UnidentifiedImageError) as exc:
        raise StreamGazeError(f"cannot read the image ({exc})", path) from None


def _unit(x: float, name: str, where: str, path: Path) -> float:
    if not -1e-6 <= x <= 1 + 1e-6:
        raise StreamGazeError(f"{where}: {name} {x} is outside [0, 1] (normalised coordinates)", path)
    return min(max(x, 0.0), 1.0)


def _box(x0: float, y0: float, x1: float, y1: float, w: int, h: int, where: str, path: Path
         ) -> tuple[float, float, float, float]:
    """A pixel head box, checked and normalised (clipped to the image)."""
    if not (x1 > x0 and y1 > y0):
        raise StreamGazeError(f"{where}: head box ({x0}, {y0}, {x1}, {y1}) is empty or inverted", path)
    if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
        raise StreamGazeError(f"{where}: head box ({x0}, {y0}, {x1}, {y1}) lies outside the {w}x{h} image", path)
    return (max(x0, 0) / w, max(y0, 0) / h, min(x1, w) / w, min(y1, h) / h)


def _rel(path: str) -> str:
    p = path.strip().replace("\\", "/")
    return p[2:] if p.startswith("./") else p


def _rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            for n, row in enumerate(csv.reader(fh), 1):
                if row and any(c.strip() for c in row):
                    yield n, [c.strip() for c in row]
    except OSError as exc:
        raise StreamGazeError(f"cannot read the annotation file ({exc})", path) from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"not a comma-separated annotation file ({exc})", path) from None


def read_gazefollow(annotation_file: str | os.PathLike[str], image_root: str | os.PathLike[str]) -> ReadReport:
    """Read a GazeFollow annotation file (format in the module docstring); images are looked up under
    ``image_root`` (for their size)."""
    path = Path(annotation_file)
    root = Path(image_root)
    report = ReadReport(files=1)
    groups: dict[tuple[str, float, float], list] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for n, row in _rows(path):
        where = f"line {n}"
        if len(row) not in (15, 16, 17):
            raise StreamGazeError(f"{where}: {len(row)} columns; GazeFollow rows have 15 (test), 16 or 17 "
                                  "(path, idx, body box x/y/w/h, eye x/y, gaze x/y, head box x_min/y_min/x_max/"
                                  "y_max, [inout], [source], meta)", path)
        image = _rel(row[0])
        if not image:
            raise StreamGazeError(f"{where}: empty image path", path)
        eye = tuple(_unit(finite_float(row[i], path, n, nm), nm, where, path) for i, nm in ((6, "eye_x"), (7, "eye_y")))
        gx, gy = (finite_float(row[i], path, n, nm) for i, nm in ((8, "gaze_x"), (9, "gaze_y")))
        box = [finite_float(row[10 + i], path, n, nm) for i, nm in enumerate(("bbox_x_min", "bbox_y_min",
                                                                              "bbox_x_max", "bbox_y_max"))]
        inout = 1
        if len(row) >= 16 and row[14].lstrip("-").isdigit():
            inout = int(row[14])
            if inout not in (-1, 0, 1):
                raise StreamGazeError(f"{where}: inout {row[14]!r} is not 1 (inside), 0 (outside) or -1", path)
        if inout == -1:
            report.skipped_unannotated += 1
            continue
        if inout == 1:
            gaze = (_unit(gx, "gaze_x", where, path), _unit(gy, "gaze_y", where, path))
        else:
            gaze = None
        if image not in sizes:
            sizes[image] = image_size(root / image)
        w, h = sizes[image]
        head = _box(*box, w, h, where, path)
        key = (image, round(eye[0], 6), round(eye[1], 6))
        groups.setdefault(key, []).append((n, head, gaze))
    per_image: dict[str, int] = {}
    for (image, ex, ey), items in groups.items():
        w, h = sizes[image]
        points = tuple(g for _, _, g in items if g is not None)
        if points and len(points) != len(items):
            raise StreamGazeError(f"line {items[0][0]}: the person at eye ({ex}, {ey}) in {image} is annotated both "
                                  "inside and outside the frame", path)
        gaze = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)) if points else None
        k = per_image.get(image, 0)
        per_image[image] = k + 1
        report.annotations.append(GazeAnnotation(
            "gazefollow", image, f"p{k}", w, h, items[0][1], (ex, ey), gaze, points if len(points) > 1 else (),
            str(path), items[0][0]))
    return report


def read_videoattentiontarget(annotation_dir: str | os.PathLike[str], image_root: str | os.PathLike[str],
                              frame_step: int = 1) -> ReadReport:
    """Read VideoAttentionTarget annotations below ``annotation_dir`` (``<show>/<clip>/<person>.txt``;
    format in the module docstring); frames are under ``image_root/<show>/<clip>/``. ``frame_step``
    keeps every n-th annotated frame of each person (consecutive frames are near duplicates)."""
    adir = Path(annotation_dir)
    root = Path(image_root)
    if not adir.is_dir():
        raise StreamGazeError("not a directory of VideoAttentionTarget annotations", adir)
    files = sorted(p for p in adir.rglob("*.txt"))
    if not files:
        raise StreamGazeError("no <show>/<clip>/<person>.txt annotation files", adir)
    report = ReadReport(files=len(files))
    sizes: dict[str, tuple[int, int]] = {}
    for path in files:
        rel = path.relative_to(adir)
        if len(rel.parts) < 3:
            raise StreamGazeError("annotation file not at <show>/<clip>/<person>.txt", path)
        show, clip, person = rel.parts[-3], rel.parts[-2], path.stem
        kept = 0
        for n, row in _rows(path):
            where = f"line {n}"
            if len(row) != 7:
                raise StreamGazeError(f"{where}: {len(row)} columns; VideoAttentionTarget rows have 7 "
                                      "(frame, xmin, ymin, xmax, ymax, gaze_x, gaze_y)", path)
            if kept % max(1, frame_step):
                kept += 1
                continue
            kept += 1
            image = f"{show}/{clip}/{_rel(row[0])}"
            x0, y0, x1, y1, gx, gy = (finite_float(row[i], path, n, nm) for i, nm in
                                      enumerate(("xmin", "ymin", "xmax", "ymax", "gaze_x", "gaze_y"), 1))
            if image not in sizes:
                sizes[image] = image_size(root / image)
            w, h = sizes[image]
            head = _box(x0, y0, x1, y1, w, h, where, path)
            if gx == -1 and gy == -1:
                gaze = None
            elif -1 < gx <= w + 1 and -1 < gy <= h + 1 and gx >= 0 - 1e-6 and gy >= 0 - 1e-6:
                gaze = (min(max(gx, 0.0), w) / w, min(max(gy, 0.0), h) / h)
            else:
                raise StreamGazeError(f"{where}: gaze ({gx}, {gy}) is neither in the {w}x{h} frame nor -1, -1 "
                                      "(outside)", path)
            eye = ((head[0] + head[2]) / 2, (head[1] + head[3]) / 2)
            report.annotations.append(GazeAnnotation("videoattentiontarget", image, person, w, h, head, eye, gaze,
                                                     (), str(path), n))
    return report
