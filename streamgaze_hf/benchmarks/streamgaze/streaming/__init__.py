"""Streaming evaluation (docs/streaming.md): frames pushed in time order, questions at
their query times, answers and alerts whenever the model decides; harness-agnostic (lmms-eval only for
``lmms:`` models).

* :mod:`.interface` — the model interface and the event loop (:func:`run_stream`);
* :mod:`.polling` — the polling adapter: any clip model becomes a streaming model;
* :mod:`.clip_models` — the baselines and an OpenAI-compatible endpoint as clip models;
* :mod:`.lmms_model` — lmms-eval's model wrappers as clip models (``--model lmms:<name>``);
* :mod:`.runner` — ``streamgaze stream-eval``: a dataset root, one decoded video at a time, resumable;
* :mod:`.metrics` / :mod:`.timing` / :mod:`.results` — time-aware alert metrics, the field's timing scores
  (StreamingBench, StreamGaze, tolerance curve, duplicates) and the run's scores;
* :mod:`.clock` — the real-time clock (``--realtime``): a slow model's skipped looks and late alerts;
* :mod:`.stream_run` / :mod:`.table` — a run as a submission, and the leaderboard's streaming table.

This package is StreamGaze's ``Benchmark.streaming`` part: shared code (submissions, validation, the
leaderboard) reaches it through ``benchmark.streaming_module()`` and uses the names in ``__all__`` below
the first line (``is_stream_run``, ``build_stream_submission``, ``recompute_streaming``, ``recompute_realtime``,
``format_streaming``, ``streaming_rows``, ``render_streaming_*``).
"""

from .interface import (
    GAZE_SAMPLE_MODES,
    Frame,
    GazeSamples,
    LeakageError,
    Question,
    Response,
    StampedResponse,
    StreamContext,
    StreamingModel,
    run_stream,
)
from .polling import BufferedFrame, ClipModel, ClipRequest, PollingAdapter
from .report import format_streaming
from .results import is_stream_run
from .stream_run import build_stream_submission, recompute_realtime, recompute_streaming
from .table import render_streaming_csv, render_streaming_html, render_streaming_markdown, streaming_rows

__all__ = ["GAZE_SAMPLE_MODES", "Frame", "GazeSamples", "LeakageError", "Question", "Response", "StampedResponse",
           "StreamContext", "StreamingModel", "run_stream", "BufferedFrame", "ClipModel", "ClipRequest",
           "PollingAdapter",
           "is_stream_run", "build_stream_submission", "recompute_streaming", "recompute_realtime", "format_streaming", "streaming_rows",
           "render_streaming_csv", "render_streaming_html", "render_streaming_markdown"]
