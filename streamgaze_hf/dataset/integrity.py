"""Check a built dataset's files against its ``manifest.json`` (sha256 and size of every file).

``streamgaze doctor`` and the writer's ``verify_dataset`` use it. The rule for one file is
:func:`streamgaze_hf.hub.verify.file_problem` (size first, then sha256; memoised by file identity), the
same the loader applies on the way to using a file (``verify_file``), so both say the same about a file.

* :func:`manifest_problems` — every problem of a dataset directory (or of some of its files), one
  line each, ``<relpath>: <problem>``; an empty list means intact.
* :func:`file_problem` — one file against one manifest entry (``None`` when it matches; from hub/verify.py).
* :func:`dataset_files` — the files a manifest should list (everything but ``manifest.json``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..hub.verify import file_problem
from .files import MANIFEST, read_manifest


def dataset_files(root: str | os.PathLike[str]) -> list[str]:
    """Relative POSIX paths of every file under ``root`` except ``manifest.json``, sorted."""
    root = Path(root)
    found = []
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            rel = (Path(dirpath) / name).relative_to(root).as_posix()
            if rel != MANIFEST:
                found.append(rel)
    return sorted(found)


def manifest_problems(root: str | os.PathLike[str], relpaths: Iterable[str] | None = None,
                      manifest: Mapping[str, Any] | None = None) -> list[str]:
    """Problems of the dataset at ``root`` against its manifest, one line each (empty = intact).

    ``relpaths=None`` checks every listed file and reports files present but not listed;
    otherwise only the given dataset-relative POSIX paths are checked. ``manifest`` is the parsed
    manifest when the caller already has it (default: read ``root/manifest.json``, which raises
    :class:`~streamgaze_hf.util.errors.StreamGazeError` when it is missing or unreadable).
    """
    root = Path(root)
    listed: Mapping[str, Any] = (manifest if manifest is not None else read_manifest(root)).get("files") or {}
    if relpaths is None:
        present = set(dataset_files(root))
        names = sorted(set(listed) | present)
    else:
        present, names = None, list(relpaths)
    problems = []
    for rel in names:
        if present is not None and rel not in present:
            problems.append(f"{rel}: missing (listed in {MANIFEST})")
            continue
        problem = file_problem(root / rel, listed.get(rel), rel)
        if problem:
            problems.append(problem)
    return problems
