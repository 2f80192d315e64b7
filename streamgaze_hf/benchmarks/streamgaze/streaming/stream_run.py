"""A complete ``stream-eval`` run -> a leaderboard submission (``streamgaze submit OUT ...``).

The checkpoint-protocol answers (multiple choice at the query time, proactive responses tagged with a
checkpoint) fill the submission's ``answers`` exactly as an lmms-eval run's samples do, and are
re-scored the same way; the run's alert times go into the optional ``streaming`` section, whose
time-aware scores ``validate`` recomputes from those times and the dataset's event times.
"""

from __future__ import annotations

import json
import os

from .... import __version__
from ....submission import StrictJSONError, assemble_submission, check_structure, is_oracle, load_answer_key
from ....util.errors import StreamGazeError
from .. import BENCHMARK
from .clock import realtime_section
from .results import (
    alerts_by_question,
    checkpoint_responses,
    key_events,
    read_stream_run,
    realtime_scores,
    stream_scores,
)

__all__ = ["build_stream_submission", "HARNESS", "recompute_streaming", "recompute_realtime"]

HARNESS = "streamgaze-stream"
#: built-in stream-eval models -> the model id recorded in a submission (the oracle keeps its lmms-eval id,
#: so it is never ranked)
_RUN_MODEL = {"random": "streamgaze_random", "oracle": "streamgaze_oracle"}


def recompute_streaming(key, alerts: dict, poll: str = "") -> dict:
    """Streaming scores of ``alerts`` (task -> question id -> times) against the dataset of ``key``
    (``poll``: the run's poll setting)."""
    return stream_scores(key_events(key), alerts, poll)


def recompute_realtime(key, section: dict, poll: str = "") -> dict:
    """The scores of a submission's ``streaming.realtime`` section (:func:`~.clock.realtime_scores`)."""
    return realtime_scores(section, key_events(key), poll)


def build_stream_submission(output_dir: str | os.PathLike[str], root: str | os.PathLike[str] | None = None, *,
                            model_name: str, model_url: str = "", params: str = "", frames: str = "",
                            allow_oracle: bool = False) -> dict:
    """The submission of the complete stream-eval run in ``output_dir`` on the dataset at ``root``."""
    run = read_stream_run(output_dir)
    if run.missing_videos:
        raise StreamGazeError(f"the run is incomplete ({len(run.done)} of {len(run.meta.get('videos', []))} videos "
                              "done): run stream-eval again with the same --out to finish it", output_dir)
    st = run.settings
    run_model = _RUN_MODEL.get(str(st.get("model")), str(st.get("model") or "unknown"))
    if is_oracle({"model": run_model}) and not allow_oracle:
        raise StreamGazeError("this run is the oracle baseline, which reads the answer key; it cannot be submitted",
                              output_dir)
    key = load_answer_key(root, st.get("gaze", "visual"), BENCHMARK)
    if run.meta.get("dataset", {}).get("manifest_sha256") != key.manifest_sha256:
        raise StreamGazeError(f"the run was made on another dataset build (manifest sha256 "
                              f"{str(run.meta.get('dataset', {}).get('manifest_sha256'))[:16]}...), not the one at "
                              f"{key.root} ({key.manifest_sha256[:16]}...)", output_dir)
    responses = checkpoint_responses(run.records)
    for (qid, cp) in responses:
        owner = key.task_of.get(qid, "")
        problem = key.problem(owner, qid, cp) if owner else f"unknown question id {qid!r}"
        if problem:
            raise StreamGazeError(f"{problem}: was this run made on the dataset at {key.root}?", output_dir)
    run_info = {"harness": HARNESS, "harness_version": __version__, "model": run_model,
                "model_args": str(st.get("model_args", "")), "date": "", "limit": None}
    fps = float(st.get("fps", 0.0))
    sub = assemble_submission(key, responses, prompt_mode=st.get("prompt_mode", "default"), clip_fps=fps,
                              model={"name": model_name, "url": model_url, "params": params, "frames": frames},
                              run=run_info)
    alerts = alerts_by_question(run.records)
    poll = str(st.get("poll", "")) or "model"
    sub["streaming"] = {"fps": fps, "poll": poll, "alerts": alerts, "scores": recompute_streaming(key, alerts, poll)}
    section = realtime_section(run)
    if section is not None:
        sub["streaming"]["realtime"] = {**section, "scores": recompute_realtime(key, section, poll)}
    try:
        check_structure(json.loads(json.dumps(sub)))
    except StrictJSONError as exc:
        raise StreamGazeError(f"cannot build a valid submission: {exc}") from None
    return sub
