"""``streamgaze doctor ROOT``: every problem of a built dataset, one line each.

Three checks, all run (a problem does not stop the others):

1. every file against ``manifest.json`` (sha256 and size; missing and unlisted files): :func:`~.integrity.manifest_problems`;
2. every config's parquet file through the one reader (readable, expected schema, row count as the manifest's);
3. every video decodes, every frame (``videos/**.mp4``; a video the manifest marks as changed is still decoded,
   so a truncated video reports both its size and its decoding failure).
"""

from __future__ import annotations

import os
from pathlib import Path

from tqdm.auto import tqdm

from ..util.errors import StreamGazeError
from .files import MANIFEST, data_file
from .integrity import dataset_files, manifest_problems
from .load import open_dataset
from .reader import parquet_rows


def video_problem(path: Path, rel: str) -> str | None:
    """Why the video at ``path`` does not decode (every frame), as ``<rel>: <problem>``; None when it does."""
    import av

    from ..video import open_container

    try:
        with open_container(path) as c:
            stream = c.streams.video[0]
            stream.thread_type = "AUTO"
            n = sum(1 for _ in c.decode(stream))
    except StreamGazeError as exc:
        return f"{rel}: {exc.reason}"
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        return f"{rel}: does not decode ({exc})"
    return None if n else f"{rel}: no frames"


def dataset_problems(root: str | os.PathLike[str], decode: bool = True, progress: bool = True) -> list[str]:
    """Every problem of the dataset at ``root`` (see the module docstring); empty when it is sound.

    Args:
        root: a local dataset directory.
        decode: also decode every frame of every video (check 3; the slow part).
        progress: show a progress bar over the videos.

    Returns:
        One line per problem, ``<path in the dataset>: <problem>``, in check order.

    Raises:
        StreamGazeError: only when ``root`` is not a dataset at all: no such directory, no readable
            manifest, or a manifest naming a benchmark no installed package registers.
    """
    root = Path(root)
    if not root.is_dir():
        raise StreamGazeError("no such dataset directory", root)
    data = open_dataset(root, check=False)  # a damaged dataset is what doctor reports, one line per problem
    problems = manifest_problems(root, manifest=data.manifest)
    for config in data.config_names:
        rel = data_file(Path(""), config).as_posix()
        try:
            parquet_rows(root / rel, f"parquet file of config {config!r}", data.features(config))
        except StreamGazeError as exc:
            problems.append(f"{rel}: {exc.reason}")
    if not any(p.startswith("data/") for p in problems):
        try:
            data.check_files()  # row counts against the manifest
        except StreamGazeError as exc:
            rel = Path(exc.path).relative_to(root).as_posix() if exc.path else MANIFEST
            problems.append(f"{rel}: {exc.reason}")
    if decode:
        videos = [rel for rel in dataset_files(root) if rel.startswith("videos/") and rel.endswith(".mp4")]
        for rel in tqdm(videos, desc="decoding videos", unit="video", disable=not progress):
            problem = video_problem(root / rel, rel)
            if problem:
                problems.append(problem)
    return problems
