"""The video readers a ``streamgaze eval`` run gives lmms-eval's wrappers where they let a run choose.

Two libraries read video on a wrapper's behalf and take their backend from the environment:
qwen_vl_utils (``FORCE_QWENVL_VIDEO_READER``, read once at its import; Qwen2.5-VL, Qwen3-VL and lmms-eval's
OpenAI chat wrapper read through it) and lmms-eval's ``read_video`` (``LMMS_VIDEO_DECODE_BACKEND``; LLaVA-
OneVision with ``video_decode_backend=pyav`` and many other wrappers). :data:`CHOSEN` is the fastest of the
backends that give the same frames on the clips a run hands over, measured on the 2-core development machine
(``perf/frames_to_model.py``, docs/performance.md): on a model-ready clip (uncompressed RGB: no colour matrix,
so every backend returns the same pixels) of 32 frames at 616x336, qwen_vl_utils read it in 31 ms of CPU
with decord against 161 ms with torchcodec, ``read_video`` in 10 ms with PyAV against 167 ms with torchcodec.
decord also needs no system FFmpeg (torchcodec does: scripts/install_ffmpeg_libs.sh). Decord's patience at the
end of a file is raised too (below). A value the user set is kept. :func:`choose_backends` applies the choice
(``util/process_env.py``: the libraries read these variables) and returns what the run records.
"""

from __future__ import annotations

#: variable -> the backend a run gets unless the user set one; and decord's patience at the end of a file
#: (``DECORD_EOF_RETRY_MAX``, read when decord loads; default 10240 polls of its decoding thread), which a busy
#: machine exhausts on long B-frame videos ("Unable to handle EOF because it takes too long to retrieve last few
#: frames"): measured here on 600 s camera-layout clips read by decord under load. It changes no frame.
CHOSEN = {"FORCE_QWENVL_VIDEO_READER": "decord", "LMMS_VIDEO_DECODE_BACKEND": "pyav",
          "DECORD_EOF_RETRY_MAX": "1000000"}


def choose_backends() -> dict[str, str]:
    """Set every :data:`CHOSEN` backend the user left unset in this process's environment (before lmms-eval and
    qwen_vl_utils are imported: they read it once).

    Returns:
        variable -> the backend in force (what the run records as ``decode_backends``).
    """
    from ..util.process_env import configure

    return configure(CHOSEN, keep_set=True)
