"""The Hub-facing ``previews`` config: what a visitor of the dataset's page sees in the dataset viewer.

The toolkit's own configs keep the videos as relative path strings (an evaluation harness resolves them
against the root and decodes them itself; schema.py). For the Hub's dataset viewer to play something and for
``load_dataset(repo, "previews")`` to give video objects, this config stores one row per video: ``video_id``,
``preview`` (a ``datasets.Video`` cell with the mp4 bytes embedded: a small copy of what a model is shown,
video/preview.py) and ``shows`` (``overlay``: the gaze-overlay video, the video with the wearer's gaze drawn;
``original``: the video itself, for a video without an overlay), sorted by ``video_id``, one parquet row
group per video, in ``data/previews/test-00000-of-00001.parquet``. The previews exist only there (no mp4
files beside them): the viewer and ``load_dataset`` need the bytes in the parquet anyway.

Why bytes in parquet, not a folder of files? ``datasets`` (5.2) picks one builder per repository from the
first config's files, so next to the parquet configs a ``videofolder`` config is read by the parquet builder
and fails ("Parquet magic bytes not found"); and a path-only ``Video`` value is opened against the process's
working directory (hf_datasets_notes.md §3.2), on the Hub against nothing: only embedded bytes decode
wherever the dataset is loaded.

Datasets built before previews have a ``video_files`` config instead (every video whole, twice the storage);
it is no longer written, and such datasets keep loading and validating (card.py declares whichever of these
configs a dataset has). The toolkit never reads either config (they are not among
:func:`~streamgaze_hf.dataset.load.config_names`), so a run fetching from the Hub never downloads them.
Decoding (``Video(decode=True)``, the default) needs ``torchcodec`` and FFmpeg's shared libraries;
``Video(decode=False)`` gives ``{"path", "bytes"}`` without them (docs/datasets.md).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from ..util.executors import SMALL_VIDEO, Workers, as_workers, map_ordered
from ..video import DEFAULT_PREVIEW, PreviewSpec, build_preview
from .files import data_file
from .schema import PREVIEW_FEATURES, PREVIEWS_CONFIG, VIEWER_FEATURES

__all__ = ["PREVIEWS_CONFIG", "write_previews", "viewer_configs"]


def _shown(row: dict) -> tuple[str, str]:
    """(what the preview shows, the dataset file it is made from): the overlay, else the original."""
    return ("overlay", row["overlay_path"]) if row["overlay_path"] else ("original", row["video_path"])


def _build(src: Path, out: Path, spec: PreviewSpec) -> str:
    """One preview's mp4, written at ``out`` (a path, not the bytes, comes back from a worker)."""
    return str(build_preview(src, out, spec))


def write_previews(root: str | os.PathLike[str], parquet_options: dict, spec: PreviewSpec = DEFAULT_PREVIEW,
                   progress: bool = True, sources: Mapping[str, Path] | None = None,
                   workers: int | Workers = 1) -> bool:
    """Write the ``previews`` config of the dataset at ``root`` from its ``videos`` config and video files
    (one preview at a time, built in a hidden temporary folder under ``root`` and removed after). A video
    without any file gets no row; False (nothing written) when no video has one. ``parquet_options`` are the
    writer's fixed options (same inputs, same bytes). ``sources``: dataset path -> the file it was made from
    (the writer's), read instead of ``root / path`` so that an unreadable video is named by its own path.
    ``workers`` > 1 builds previews in that many processes, a :class:`~streamgaze_hf.util.executors.Workers` on
    a Ray cluster (the same bytes: each is made on one x264 thread into the temporary folder, and the rows are
    written in ``video_id`` order). Raises :class:`VideoError` naming the video that cannot
    be decoded."""
    root = Path(root)
    videos = pq.read_table(data_file(root, "videos"), columns=["video_id", "video_path", "overlay_path"])
    rows = [r for r in videos.sort_by("video_id").to_pylist() if r["overlay_path"] or r["video_path"]]
    if not rows:
        return False
    schema = PREVIEW_FEATURES.arrow_schema
    # mp4 bytes do not compress: no codec and no dictionary (the other fixed options are kept)
    options = {k: v for k, v in parquet_options.items() if k not in ("row_group_size", "compression_level")}
    options.update(compression="none", use_dictionary=False)
    path = data_file(root, PREVIEWS_CONFIG)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".previews-", dir=root) as work:
        jobs = []
        for row in rows:
            rel = _shown(row)[1]
            src = Path(sources[rel]) if sources and rel in sources else root / rel
            jobs.append((src, Path(work) / f"{row['video_id']}.mp4", spec))
        with tqdm(total=len(rows), desc="previews", unit="video", disable=not progress) as bar:
            built = map_ordered(as_workers(workers).open(SMALL_VIDEO, len(jobs)), _build, jobs, bar)
        with pq.ParquetWriter(path, schema, **options) as out:
            for row, mp4 in zip(rows, built):
                cell = {"bytes": Path(mp4).read_bytes(), "path": f"{row['video_id']}.mp4"}
                Path(mp4).unlink()
                out.write_table(pa.Table.from_pylist([{"video_id": row["video_id"], "preview": cell,
                                                       "shows": _shown(row)[0]}], schema=schema))
    return True


def viewer_configs(root: str | os.PathLike[str]) -> list[str]:
    """The Hub-facing configs the dataset at ``root`` has (``previews``; ``video_files`` in older datasets)."""
    return [name for name in VIEWER_FEATURES if data_file(root, name).is_file()]
