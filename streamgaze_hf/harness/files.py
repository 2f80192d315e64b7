"""What an evaluation run needs from its dataset, fetched and verified before the harness starts.

``streamgaze eval`` calls :func:`prepare_run_files` with the (task id, gaze mode) pairs the run's lmms-eval
task and group names stand for (``streamgaze_hf.registry.task_index().selection``): their evaluation
documents are loaded (which fetches the card, the manifest and
the parquet files of exactly those tasks), then every file their visuals are made from
(:func:`streamgaze_hf.evaluation.visuals.doc_media`: the image, the keyframes, or the one video variant a document
shows) is fetched with one byte progress bar and checked against the manifest. A damaged file is one
error before anything is evaluated. Names this toolkit does not define are left to the harness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..dataset import DatasetHandle

__all__ = ["prepare_run_files"]


def prepare_run_files(dataset: DatasetHandle, pairs: list[tuple[str, str]], progress: bool = True) -> dict:
    """Fetch (a Hub snapshot) and verify every file the documents of ``pairs`` read or show.

    Args:
        dataset: the evaluated dataset (its benchmark's tasks run).
        pairs: (task id, gaze mode) of each task the run evaluates.
        progress: show one byte progress bar for the downloads.

    Returns:
        Counts: ``documents``, ``media`` (distinct files).

    Raises:
        StreamGazeError: a file is missing or does not match the manifest, or a task's documents cannot be
            made from the dataset (an unknown task or gaze mode, a damaged table).
    """
    from ..dataset import data_file
    from ..evaluation import doc_media

    module = dataset.benchmark.plugin()
    # the tasks' parquet files and the videos table in one batch (gaze and fixations when a document reads them)
    configs = [*dict.fromkeys(tid for tid, _ in pairs), "videos"]
    dataset.files([data_file(".", c).as_posix() for c in configs], progress=progress)
    media: dict[str, None] = {}
    n_docs = 0
    for tid, mode in pairs:
        docs = module.load_docs(tid, mode, dataset)
        n_docs += len(docs)
        for doc in docs:
            media.update(dict.fromkeys(doc_media(doc)))
    dataset.files(sorted(media), progress=progress)
    return {"documents": n_docs, "media": len(media)}
