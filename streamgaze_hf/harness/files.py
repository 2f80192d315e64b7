"""What an evaluation run needs from its dataset, fetched and verified before the harness starts.

``streamgaze eval`` and ``streamgaze clips warm`` call :func:`prepare_run_files` with the lmms-eval task
and group names of the run: their evaluation documents are loaded (which fetches the card, the manifest and
the parquet files of exactly those tasks), then every file their visuals are made from
(:func:`streamgaze_hf.evaluation.visuals.doc_media`: the image, the keyframes, or the one video variant a document
shows) is fetched with one byte progress bar and checked against the manifest. A damaged file is one
error before anything is evaluated. Names this toolkit does not define are left to the harness.
"""

from __future__ import annotations

import os

__all__ = ["lmms_selection", "prepare_run_files", "tasks_argument"]


def tasks_argument(args: list[str]) -> list[str]:
    """The names of lmms-eval's ``--tasks`` (comma-separated, ``--tasks X`` or ``--tasks=X``)."""
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "--tasks" and i + 1 < len(args) else (
            arg.split("=", 1)[1] if arg.startswith("--tasks=") else None)
        if value is not None:
            return [t.strip() for t in value.split(",") if t.strip()]
    return []


def lmms_selection(names: list[str], groups: dict[str, list[str]]) -> dict[str, list[tuple[str, str]]]:
    """benchmark -> [(task id, gaze mode)] of the lmms-eval task and group names (``groups``: group ->
    members, lmms_tasks.group_members(); expanded recursively)."""
    from ..registry import benchmarks

    leaves: dict[str, tuple[str, str, str]] = {}
    for bench in benchmarks():
        for tid in bench.task_ids:
            for suffix, mode in bench.gaze_variants.items():
                leaves[bench.lmms_task_name(tid) + suffix] = (bench.name, tid, mode)
    out: dict[str, list[tuple[str, str]]] = {}
    todo, seen = list(names), set()
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in leaves:
            bench, tid, mode = leaves[name]
            if (tid, mode) not in out.setdefault(bench, []):
                out[bench].append((tid, mode))
        else:
            todo += groups.get(name, [])
    return out


def prepare_run_files(root: str | os.PathLike[str], benchmark: str, pairs: list[tuple[str, str]],
                      progress: bool = True) -> dict:
    """Fetch (a Hub snapshot) and verify every file the documents of ``pairs`` ((task id, gaze mode) of
    ``benchmark``) read or show. Returns counts: documents, media files."""
    from ..dataset.load import data_file, dataset_files
    from ..evaluation.visuals import doc_media
    from ..registry import get_benchmark

    module = get_benchmark(benchmark).evaluation_module()
    # the tasks' parquet files and the videos table in one batch (gaze and fixations when a document reads them)
    configs = [*dict.fromkeys(tid for tid, _ in pairs), "videos"]
    dataset_files(root, [data_file(".", c).as_posix() for c in configs], progress=progress)
    media: dict[str, None] = {}
    n_docs = 0
    for tid, mode in pairs:
        docs = module.load_docs(tid, mode, root)
        n_docs += len(docs)
        for doc in docs:
            media.update(dict.fromkeys(doc_media(doc)))
    dataset_files(root, sorted(media), progress=progress)
    return {"documents": n_docs, "media": len(media)}
