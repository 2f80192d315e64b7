"""Evaluation protocols: the frame sampling and generation settings that change a model's numbers.

The official StreamGaze harness gives every model family its own settings (reference §3, wrapper
table; paper Table 2 was produced with them):

=================  ==========================================================  ==========================
family             frames the official wrapper takes from the window (d s)      generation
=================  ==========================================================  ==========================
Qwen2.5-VL         video at an fps chosen by d: d<=30 -> 1, <=60 -> 0.5,        max_new_tokens 128,
                   <=300 -> 0.2, else 0.1                                       temperature 0.7, top_p 0.8
GPT-4o, Claude,    16 frames spread uniformly over the window                   max_tokens 1536,
Gemini                                                                          temperature 0.7, top_p 0.8
InternVL3.5        d<=30 -> 8, <=60 -> 16, <=300 -> 32, else 64 segments       max_new_tokens 128, sampled,
                                                                                temperature 0.7, top_p 0.8
=================  ==========================================================  ==========================

Our ``default`` protocol keeps every frame of the window (the model wrapper samples from the clip as it
always does) and decodes greedily (temperature 0), so a run is deterministic. A ``paper_*`` protocol
cuts the window clip to the family's frame count or rate (each frame at its exact source time, the last
one at the window end, n frames spaced d/n apart; the official wrappers' linspace starts at the window's
first frame instead, a difference of at most one spacing) and names the family's generation settings, which ``streamgaze eval --protocol`` passes to lmms-eval as ``--gen_kwargs``.
Sampled generation makes those runs non-deterministic, as the paper's were.

The protocol is a run setting (``RunSettings.protocol``, from ``$STREAMGAZE_PROTOCOL`` or ``--protocol``:
``streamgaze_hf/evaluation/settings.py``) and is recorded in every per-sample record and submission.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..util.errors import StreamGazeError


def _by_duration(steps: tuple[tuple[float, float], ...], last: float) -> Callable[[float], float]:
    def pick(duration: float) -> float:
        return next((v for limit, v in steps if duration <= limit), last)
    return pick


@dataclass(frozen=True)
class Protocol:
    name: str
    family: str
    frames: str  # what the clip keeps, in words (README / leaderboard)
    #: window duration (s) -> ("fps", rate) or ("frames", count); None keeps every frame
    sampling: Callable[[float], tuple[str, float]] | None = None
    generation: dict = field(default_factory=dict)

    def fps_cap(self, duration: float) -> float | None:
        """The clip frame-rate cap that keeps this protocol's frames of a ``duration``-second window.

        ``video.clips`` keeps the window's last frame and then, backwards, the latest frame at least
        1/cap before the previous pick. For n frames the spacing is a hair over d/n: the picks land on
        the frame grid a little early, so n of them fit in the window whenever d >= n(n-1)/fps (10 s for
        16 frames at 24 fps; a shorter window gets fewer), and an (n+1)-th never does."""
        if self.sampling is None or duration <= 0:
            return None
        kind, value = self.sampling(duration)
        if kind == "fps":
            return float(value)
        return float(value) / duration * (1.0 - 1e-6)

    def gen_kwargs(self) -> str:
        """The generation settings as an lmms-eval ``--gen_kwargs`` string ("" for none)."""
        return ",".join(f"{k}={v}" for k, v in self.generation.items())


_QWEN_FPS = _by_duration(((30, 1.0), (60, 0.5), (300, 0.2)), 0.1)
_INTERNVL_SEGMENTS = _by_duration(((30, 8), (60, 16), (300, 32)), 64)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Protocol("default", "any", "every frame of the window (the wrapper samples as it always does)",
             None, {}),
    Protocol("paper_qwen2_5_vl", "Qwen2.5-VL", "fps by window length: 1 / 0.5 / 0.2 / 0.1 (<=30 / <=60 / <=300 s / longer)",
             lambda d: ("fps", _QWEN_FPS(d)),
             {"max_new_tokens": 128, "temperature": 0.7, "top_p": 0.8, "do_sample": True}),
    Protocol("paper_api", "GPT-4o, Claude, Gemini", "16 frames spread over the window",
             lambda d: ("frames", 16),
             {"max_new_tokens": 1536, "temperature": 0.7, "top_p": 0.8, "do_sample": True}),
    Protocol("paper_internvl", "InternVL3.5", "8 / 16 / 32 / 64 frames by window length (<=30 / <=60 / <=300 s / longer)",
             lambda d: ("frames", _INTERNVL_SEGMENTS(d)),
             {"max_new_tokens": 128, "temperature": 0.7, "top_p": 0.8, "do_sample": True}),
)}


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise StreamGazeError(f"unknown protocol {name!r}; expected one of {', '.join(PROTOCOLS)}") from None

