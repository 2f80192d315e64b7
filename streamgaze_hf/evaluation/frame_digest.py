"""The digest of the model-ready frames a document showed the model, so that anyone can check that they see the
same frames.

A run whose wrapper is in the frame table (``model_frames.py``) records its frame spec (``model_ready``); each
document's window clip is then model-ready (``ready.py``: exactly the frames that wrapper samples, at its
processor's size). :func:`frames_digest` is the sha256 over those frames as decoded (RGB, each frame's shape then
its bytes, in order); :func:`document_digests` gives it for every document of a run's settings: the leaderboard's
own job computes it from the clips its run made (``cached_only``: a clip the run did not make gets none), and
anyone re-derives it from the dataset revision and the recorded settings (the clip made again when it is not in
the cache) with the same function. A run without a frame spec (the wrapper samples a full-rate clip itself) has
no model-ready frames: no digests.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping

from ..dataset import DatasetHandle
from ..registry import Benchmark

__all__ = ["frames_digest", "doc_frames_digest", "document_digests", "item_name"]


def frames_digest(path: str | os.PathLike[str]) -> str:
    """sha256 over a clip's frames decoded as RGB (shape, then bytes, of each frame in order)."""
    import numpy as np

    from ..video import iter_frames

    digest = hashlib.sha256()
    for _index, _time, frame in iter_frames(path, "rgb24"):
        digest.update(repr(tuple(frame.shape)).encode())
        digest.update(np.ascontiguousarray(frame).tobytes())
    return digest.hexdigest()


def doc_frames_digest(doc: dict, *, cached_only: bool = False, cache_dir: str | os.PathLike[str] | None = None) -> str:
    """The digest of a document's model-ready frames ("" without a frame spec, or with ``cached_only`` when its
    clip is not in the clip cache)."""
    from .visuals import cached_window_clip, clip_request, window_clip

    if clip_request(doc).spec is None:
        return ""
    clip = cached_window_clip(doc, cache_dir) if cached_only else window_clip(doc, cache_dir)
    return "" if clip is None else frames_digest(clip)


def item_name(task_id: str, question_id: str, checkpoint_index: int) -> str:
    """How a document is named in a digest listing: ``<task>/<question id>/<checkpoint index>``."""
    return f"{task_id}/{question_id}/{int(checkpoint_index)}"


def document_digests(bench: Benchmark, dataset: DatasetHandle, settings: Mapping, *, cached_only: bool = False,
                     cache_dir: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """:func:`item_name` -> digest of every document of ``dataset`` in the gaze mode and recorded settings of a
    run (a submission's ``settings``); none when the run recorded no frame spec."""
    module = bench.plugin()
    recorded = {name: settings[name] for name in bench.recorded_settings if name in settings}
    out = {}
    for task_id in dataset.nonempty_tasks(bench.task_ids):
        for doc in module.load_docs(task_id, settings["gaze"], dataset):
            doc = {**doc, **recorded}
            digest = doc_frames_digest(doc, cached_only=cached_only, cache_dir=cache_dir)
            if digest:
                out[item_name(task_id, doc["question_id"], doc.get("checkpoint_index", -1))] = digest
    return out

