"""EgoExoLearn: the processed 30 fps gaze arrays and the fine-grained action annotations.

Native layout::

    <raw>/videos/<uid>.mp4                          the ego video
    <raw>/gazes_30fps_npy/<uid>.npy                 gaze, shape (N, 3) (defines the recordings)
    <raw>/annotations/<uid>.json                    optional per-video actions, or else
    <raw>/annotations/fine_annotation_trainvaltest_en.csv   (or fine_annotation_trainval_en.csv)

Gaze. Row ``i`` of the array is ``[x, y, valid]`` for the 30 fps frame ``i``: x, y normalised, origin
top-left, valid 0 or 1; its time is ``i / 30`` s whatever the video's rate (the array is the 30 fps
resampling the release ships). Coordinates are kept as given (the reference clipped off-frame points
to the border); NaN coordinates make a sample invalid. A non-numeric array, a shape other than
(N, 3), a ``valid`` value other than 0/1 or a non-finite one raise :class:`GazeFormatError`.

Actions. The per-video JSON (a list of ``{start, end, textAttribute_en}``, seconds) wins when it
exists. Otherwise the fine-grained CSV (``video_uid, annotation_id, subset, view, scene, start_sec,
end_sec, narration_en, narration_en_hand_prompt, narration_en_no_hand_prompt``): rows of this uid,
``view == ego`` when the file has a view column, label ``narration_en_no_hand_prompt`` (rows with an
empty label are skipped). No annotation file gives no actions.
"""

from __future__ import annotations

import csv
import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...util.errors import GazeFormatError, StreamGazeError
from ...video import probe_video
from ..track import GazeTrack
from .base import Action, Recording, discover_recordings, find_video, sort_actions

SOURCE = "egoexolearn"
LAYOUT = ("<raw>/videos/<uid>.mp4, <raw>/gazes_30fps_npy/<uid>.npy ((N, 3) = x, y, valid at 30 fps), optional "
          "<raw>/annotations/<uid>.json or <raw>/annotations/fine_annotation_trainvaltest_en.csv")
GAZE_RATE = 30.0
GAZE_DIR = "gazes_30fps_npy"
ANNOTATION_CSVS = ("fine_annotation_trainvaltest_en.csv", "fine_annotation_trainval_en.csv")
CSV_COLUMNS = ("video_uid", "start_sec", "end_sec", "narration_en_no_hand_prompt")


def discover(raw: Path) -> list[str]:
    """Videos with a gaze array; each must have its video."""
    gaze_dir = Path(raw) / GAZE_DIR
    ids = [p.stem for p in gaze_dir.glob("*.npy")] if gaze_dir.is_dir() else []
    return discover_recordings(raw, ids, "EgoExoLearn recordings", LAYOUT, lambda uid: find_video(Path(raw), uid))


def load_recording(raw: Path, video_id: str) -> Recording:
    """Video, 30 Hz gaze track and actions of one video."""
    raw = Path(raw)
    video = find_video(raw, video_id)
    track = read_track(raw / GAZE_DIR / f"{video_id}.npy", video)
    return Recording(video_id, SOURCE, video, track, read_annotations(raw / "annotations", video_id), None)


def read_track(path: Path, video: Path | None = None) -> GazeTrack:
    """The track of one gaze array; the video (given, or found in the native layout) sets the size."""
    path = Path(path)
    if video is None:
        candidate = path.parent.parent / "videos" / f"{path.stem}.mp4"
        if not candidate.is_file():
            raise StreamGazeError("EgoExoLearn gaze does not imply the video size: pass the video "
                                  f"(not found at {candidate})", path)
        video = candidate
    info = probe_video(video)
    x, y, valid = read_gaze_npy(path)
    t = np.arange(len(x), dtype=np.float64) / GAZE_RATE
    return GazeTrack(t, x, y, valid, info.width, info.height, info.fps)


def read_gaze_npy(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y, valid of an (N, 3) gaze array."""
    path = Path(path)
    if not path.is_file():
        raise GazeFormatError("gaze file not found", path)
    with path.open("rb") as fh:
        if fh.read(6) != b"\x93NUMPY":
            raise GazeFormatError("not a NumPy .npy file (no NPY header)", path)
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as exc:
        reason = "it holds Python objects" if "allow_pickle" in str(exc) else str(exc)
        raise GazeFormatError(f"cannot read the .npy array: {reason}; expected a numeric (N, 3) array", path) from None
    except (OSError, EOFError) as exc:
        raise GazeFormatError(f"cannot read the .npy array ({exc})", path) from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.shape[1] != 3:
        shape = getattr(arr, "shape", None)
        raise GazeFormatError(f"expected an (N, 3) array [x, y, valid], got shape {shape}", path)
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)
            or arr.dtype == np.bool_):
        raise GazeFormatError(f"expected a numeric array, got dtype {arr.dtype}", path)
    arr = arr.astype(np.float64)
    flag = arr[:, 2]
    bad = ~np.isin(flag, (0.0, 1.0))
    if bad.any():
        i = int(np.argmax(bad))
        raise GazeFormatError(f"row {i}: valid must be 0 or 1, got {flag[i]:g}", path)
    return arr[:, 0].copy(), arr[:, 1].copy(), flag == 1.0


def read_annotations(ann_dir: Path, uid: str) -> list[Action]:
    """The actions of one video: its JSON if present, else the fine-grained CSV, else none."""
    ann_dir = Path(ann_dir)
    per_video = ann_dir / f"{uid}.json"
    if per_video.is_file():
        return read_annotation_json(per_video)
    for name in ANNOTATION_CSVS:
        if (ann_dir / name).is_file():
            return read_annotation_csv(ann_dir / name, uid)
    return []


def read_annotation_json(path: Path) -> list[Action]:
    """A per-video JSON list of ``{start, end, textAttribute_en}`` (seconds)."""
    path = Path(path)
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise StreamGazeError(f"bad annotation JSON ({exc})", path) from None
    if not isinstance(items, list):
        raise StreamGazeError("expected a JSON list of {start, end, textAttribute_en}", path)
    out = []
    for i, item in enumerate(items):
        try:
            start, end, label = float(item["start"]), float(item["end"]), str(item["textAttribute_en"]).strip()
        except (KeyError, TypeError, ValueError) as exc:
            raise StreamGazeError(f"item {i}: needs numeric start, end and textAttribute_en ({exc})", path) from None
        _check_span(start, end, path, f"item {i}")
        if label:
            out.append(Action(start, end, label))
    return sort_actions(out)


def read_annotation_csv(path: Path, uid: str) -> list[Action]:
    """One video's ego-view actions from the fine-grained annotation CSV."""
    path = Path(path)
    st = path.stat()
    return list(_csv_by_uid(str(path.resolve()), st.st_mtime_ns, st.st_size).get(uid, ()))


@lru_cache(maxsize=4)
def _csv_by_uid(path: str, _mtime: int, _size: int) -> dict[str, tuple[Action, ...]]:
    """Every video's actions from one CSV (parsed once per file version)."""
    by_uid: dict[str, list[Action]] = {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = [h.strip() for h in next(reader, [])]
            missing = [c for c in CSV_COLUMNS if c not in header]
            if missing:
                raise StreamGazeError(f"missing column(s) {', '.join(missing)}", path)
            col = {c: header.index(c) for c in (*CSV_COLUMNS, "view") if c in header}
            for lineno, row in enumerate(reader, start=2):
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise StreamGazeError(f"line {lineno}: expected {len(header)} fields, got {len(row)}", path)
                if "view" in col and row[col["view"]].strip().lower() != "ego":
                    continue
                try:
                    start, end = float(row[col["start_sec"]]), float(row[col["end_sec"]])
                except ValueError:
                    raise StreamGazeError(f"line {lineno}: start_sec/end_sec are not numbers", path) from None
                _check_span(start, end, path, f"line {lineno}")
                label = row[col["narration_en_no_hand_prompt"]].strip()
                if label:
                    by_uid.setdefault(row[col["video_uid"]].strip(), []).append(Action(start, end, label))
    except UnicodeDecodeError:
        raise StreamGazeError("not a UTF-8 CSV file", path) from None
    return {uid: tuple(sort_actions(acts)) for uid, acts in by_uid.items()}


def _check_span(start: float, end: float, path: Path | str, where: str) -> None:
    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
        raise StreamGazeError(f"{where}: bad time span {start:g}-{end:g} s", path)
