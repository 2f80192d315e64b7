"""The run settings of an evaluation: one frozen object, built from the environment only at the edges.

:class:`RunSettings` holds what a run chooses that changes what the model is shown, how its answer is
parsed, or how clips are prepared: the prompt mode, the clip frame-rate cap, the frame-sampling protocol,
the proxy videos, the clip prefetcher, and each registered benchmark's own options (``Benchmark.run_options``,
e.g. EgoGazeVQA's visual form, VL4Gaze's judge: :meth:`RunSettings.option`). The edges build it: the CLI from its
flags over :meth:`RunSettings.from_env` (its flags are the variables they set: :func:`with_flags`; one builder,
``streamgaze_hf.harness.plan.run_settings_for``), and the lmms-eval glue (``lmms_tasks/utils.py``) in a plain
``lmms-eval`` run. Under ``streamgaze eval`` the settings reach the glue through the run's own task files
(``harness.task_files.run_task_files`` writes :meth:`RunSettings.to_env`'s variables, secrets left out, under each
template's ``metadata``), never through the process's environment; :meth:`RunSettings.to_env` gives the
variables that reproduce them in another process. Library functions take it as an argument (``settings=``); a direct caller
that passes none gets ``RunSettings.from_env()`` (:func:`given`).

:meth:`RunSettings.from_env` is the one reader of these variables (their names and meanings are a
contract: users, scripts and tests set them):

=============================  ===========================================================================
``STREAMGAZE_PROMPT_MODE``     ``default`` (ours) or ``reference`` (the official prompts and scorer)
``STREAMGAZE_CLIP_FPS``        frame-rate cap of the window clips (> 0; unset: none)
``STREAMGAZE_PROTOCOL``        a model family's official frame sampling (``protocols.PROTOCOLS``)
``STREAMGAZE_PROXY``           clip the dataset's proxy videos: a proxy name or ``auto`` (unset: off)
``STREAMGAZE_PREFETCH``        clip-prefetch worker threads (default: one less than the usable cores, at
                               least 1 and at most 2: :func:`default_prefetch`; 0 = off)
``STREAMGAZE_PREFETCH_AHEAD``  how many documents the prefetcher runs ahead (default 0: no bound)
``STREAMGAZE_FRAMES``          ``model`` (default): model-ready clips where the run's wrapper is known
                               (``model_frames.py``); ``full``: full-rate window clips for every model
``STREAMGAZE_MODEL``           the run's lmms-eval wrapper as ``model_frames.frames_request`` gives it (JSON;
                               ``streamgaze eval`` and ``clips warm`` work it out from ``--model``/``--model_args``
                               with ``harness.model.frames_for``; unset in a plain ``lmms-eval`` run: the glue
                               reads lmms-eval's own command line the same way)
=============================  ===========================================================================

and the variables of every registered benchmark's ``run_options`` (for example ``EGOGAZEVQA_VISUALS``,
EgoGazeVQA's visual form; a secret one, such as a judge's key, is never shown).

What a run records (:meth:`RunSettings.record`): every evaluation document carries the recorded fields its
benchmark declares (``Benchmark.recorded_settings``, each declared once in ``recorded.py``: shared ones such as
``prompt_mode``, ``clip_fps``, ``protocol``, ``proxy``, and its options' ``recorded_as`` fields), each sample
record copies them from its document (``recorded.record_settings``), and
``streamgaze eval`` writes them (with the toolkit's version) into lmms-eval's results files.

Not run settings, read where they are used: the dataset roots (``$STREAMGAZE_ROOT``, ... name the data,
``dataset/load.py``), the cache locations (``$STREAMGAZE_CLIP_CACHE``, ``$STREAMGAZE_VLM_CACHE``,
``$STREAMGAZE_VERIFY_CACHE``: where this user's caches live, like ``HF_HOME``; they never change a
document or a number), and the process's own launch variables (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``
of torch launchers; ``HF_HUB_DISABLE_PROGRESS_BARS``; ``OPENAI_API_KEY`` as a client's default key).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..registry import RunOption, run_options
from ..util.errors import StreamGazeError
from .prompts import PROMPT_MODES
from .protocols import get_protocol

PROMPT_MODE_ENV = "STREAMGAZE_PROMPT_MODE"
CLIP_FPS_ENV = "STREAMGAZE_CLIP_FPS"
PROXY_ENV = "STREAMGAZE_PROXY"
PROTOCOL_ENV = "STREAMGAZE_PROTOCOL"
PREFETCH_ENV = "STREAMGAZE_PREFETCH"
PREFETCH_AHEAD_ENV = "STREAMGAZE_PREFETCH_AHEAD"
FRAMES_ENV = "STREAMGAZE_FRAMES"
MODEL_ENV = "STREAMGAZE_MODEL"
#: the shared variables :meth:`RunSettings.from_env` reads (besides the benchmarks' own: :func:`env_variables`)
ENV_VARIABLES = (PROMPT_MODE_ENV, CLIP_FPS_ENV, PROTOCOL_ENV, PROXY_ENV, PREFETCH_ENV, PREFETCH_AHEAD_ENV, FRAMES_ENV,
                 MODEL_ENV)
#: the most background worker threads a run takes by default (:func:`default_prefetch`)
MAX_DEFAULT_PREFETCH = 2


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity where the platform says, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_prefetch() -> int:
    """The background's worker threads when ``$STREAMGAZE_PREFETCH`` is unset: one less than the usable cores, so
    that the model's own process keeps a core, at least 1 and at most :data:`MAX_DEFAULT_PREFETCH`. On a 2-core
    machine that is 1: two workers there took 1.50-1.62x the decode floor in CPU on our layout against 1.27-1.40x
    for one, and 1.35x against 1.03x on a camera's (perf/model_wait.py, docs/performance.md)."""
    return max(1, min(MAX_DEFAULT_PREFETCH, usable_cores() - 1))


#: ``STREAMGAZE_FRAMES`` values: model-ready clips where the wrapper is known (the default), or full-rate clips
FRAMES_CHOICES = ("model", "full")
_PROXY_OFF = ("", "0", "off", "none", "no")
_PROXY_AUTO = ("auto", "1", "on", "yes")


@dataclass(frozen=True)
class RunSettings:
    """One run's settings (module docstring); the defaults are those of an empty environment."""

    prompt_mode: str = "default"
    clip_fps: float | None = None
    protocol: str = "default"
    #: the proxy asked for, as given ("" = off, ``auto``, or a proxy name); :meth:`proxy_for` resolves it
    proxy: str = ""
    prefetch: int = field(default_factory=default_prefetch)
    prefetch_ahead: int = 0
    #: "model": each document's clip holds the frames the run's wrapper would sample, at its processor's size
    #: (model-ready, where the wrapper is known); "full": the full-rate window clip
    frames: str = "model"
    #: the run's lmms-eval wrapper (``model_frames.frames_request`` as JSON; "" = none known)
    model: str = ""
    #: the benchmarks' own options given (name -> value; an option not given has its declared default);
    #: not in the repr, since an option may be a secret
    options: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.prompt_mode not in PROMPT_MODES:
            raise StreamGazeError(f"prompt mode {self.prompt_mode!r}; expected one of {', '.join(PROMPT_MODES)}")
        if self.clip_fps is not None and not self.clip_fps > 0:
            raise StreamGazeError(f"clip fps must be > 0, got {self.clip_fps}")
        get_protocol(self.protocol)
        if self.prefetch < 0 or self.prefetch_ahead < 0:
            raise StreamGazeError("prefetch workers and lookahead must be >= 0")
        if self.frames not in FRAMES_CHOICES:
            raise StreamGazeError(f"frames {self.frames!r}; expected one of {', '.join(FRAMES_CHOICES)}")
        if self.model:
            _model_request(self.model)
        declared = run_options()
        for name, value in self.options.items():
            if name not in declared:
                raise StreamGazeError(f"unknown run option {name!r}; options are {', '.join(declared) or 'none'}")
            _check_option(declared[name], value, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunSettings):
            return NotImplemented
        shared = ("prompt_mode", "clip_fps", "protocol", "proxy", "prefetch", "prefetch_ahead", "frames", "model")
        return (all(getattr(self, f) == getattr(other, f) for f in shared)
                and all(self.option(n) == other.option(n) for n in run_options()))

    def option(self, name: str) -> str:
        """The value of a benchmark's own run option (``Benchmark.run_options``): as given, else its default.

        Raises:
            KeyError: no registered benchmark declares an option of that name.
        """
        declared = run_options()
        if name not in declared:
            raise KeyError(f"unknown run option {name!r}; options are {', '.join(declared) or 'none'}")
        return self.options.get(name, declared[name].default)

    # ---- the environment (the edges only) ----------------------------------------------------------

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RunSettings:
        """The settings named by ``environ`` (default ``os.environ``), validated with the messages the
        toolkit has always given (``$NAME=value; expected ...``)."""
        env = os.environ if environ is None else environ
        mode = env.get(PROMPT_MODE_ENV, "default")
        if mode not in PROMPT_MODES:
            raise StreamGazeError(f"${PROMPT_MODE_ENV}={mode!r}; expected one of {', '.join(PROMPT_MODES)}")
        protocol = env.get(PROTOCOL_ENV, "").strip() or "default"
        try:
            get_protocol(protocol)
        except StreamGazeError as exc:
            raise StreamGazeError(f"${PROTOCOL_ENV}: {exc}") from None
        options = {}
        for option in run_options().values():
            raw = env.get(option.env, "").strip()
            if raw:
                _check_option(option, raw, f"${option.env}")
                options[option.name] = raw
        frames = env.get(FRAMES_ENV, "").strip() or "model"
        if frames not in FRAMES_CHOICES:
            raise StreamGazeError(f"${FRAMES_ENV}={frames!r}; expected one of {', '.join(FRAMES_CHOICES)}")
        model = env.get(MODEL_ENV, "").strip()
        if model:
            try:
                _model_request(model)
            except StreamGazeError as exc:
                raise StreamGazeError(f"${MODEL_ENV}: {exc}") from None
        return cls(prompt_mode=mode, clip_fps=_env_fps(env), protocol=protocol, proxy=env.get(PROXY_ENV, "").strip(),
                   prefetch=_env_count(env, PREFETCH_ENV, default_prefetch()),
                   prefetch_ahead=_env_count(env, PREFETCH_AHEAD_ENV, 0), frames=frames, model=model, options=options)

    def to_env(self) -> dict[str, str]:
        """Every variable :meth:`from_env` reads (an unset one as ""), so that :meth:`from_env` in another
        process (lmms-eval's, its children) gives these settings back whatever that process inherited."""
        return {PROMPT_MODE_ENV: self.prompt_mode, CLIP_FPS_ENV: "" if self.clip_fps is None else str(self.clip_fps),
                PROTOCOL_ENV: self.protocol, PROXY_ENV: self.proxy, PREFETCH_ENV: str(self.prefetch),
                PREFETCH_AHEAD_ENV: str(self.prefetch_ahead), FRAMES_ENV: self.frames, MODEL_ENV: self.model,
                **{o.env: self.options.get(name, "") for name, o in run_options().items()}}

    # ---- the frames the model is handed -------------------------------------------------------------

    @property
    def reads_video(self) -> bool:
        """False when the run's wrapper reads no video (``model_frames.reads_no_video``: the toolkit's baselines):
        no clip is prepared for it."""
        if not self.model:
            return True
        return _model_request(self.model).get("video", True) is not False

    def frames_spec(self):
        """The run's model-ready frames (a ``model_frames.FramesSpec``), or None: full-rate clips (``frames`` is
        "full", no wrapper is known, or the table does not cover it). Reads the checkpoint's processor
        configuration where the wrapper's size comes from it (local files only)."""
        if self.frames != "model" or not self.model:
            return None
        return _resolved_spec(self.model, os.environ.get("FORCE_QWENVL_VIDEO_READER", ""))

    # ---- what a run records ------------------------------------------------------------------------

    def proxy_for(self, root: str | os.PathLike[str]) -> str:
        """The proxy videos the evaluation of the dataset at ``root`` clips: "" (off, the default:
        full-rate clips), a proxy name such as ``2fps-448px``, or for ``auto`` the dataset's only proxy
        kind. The named proxies must exist in the dataset (built with ``--proxy-fps`` / ``--proxy-size``)."""
        from ..video import PROXY_DIR, ProxySpec

        raw, root = self.proxy, Path(root)
        if raw.lower() in _PROXY_OFF:
            return ""
        base = root / PROXY_DIR
        available = sorted(d.name for d in base.iterdir() if d.is_dir()) if base.is_dir() else []
        if raw.lower() in _PROXY_AUTO:
            if len(available) != 1:
                raise StreamGazeError(f"${PROXY_ENV}={raw}: the dataset has {len(available)} proxy kinds "
                                      f"({', '.join(available) or 'none: build it with --proxy-fps/--proxy-size'}); "
                                      "name one", root)
            return available[0]
        name = ProxySpec.parse(raw).name
        if name not in available:
            raise StreamGazeError(f"${PROXY_ENV}={raw}: the dataset has no {name} proxies (it has: "
                                  f"{', '.join(available) or 'none; build it with --proxy-fps/--proxy-size'})", root)
        return name

    def record(self, fields: Iterable[str], root: str | os.PathLike[str] | None = None) -> dict:
        """The recorded values of ``fields``, in that order, as documents and sample records carry them.

        Args:
            fields: shared fields (``recorded.SHARED``) and the ``recorded_as`` fields of the
                benchmarks' options.
            root: the dataset (needed for ``proxy``, resolved by :meth:`proxy_for`).

        Returns:
            field -> value; ``clip_fps`` 0.0 when uncapped.

        Raises:
            ValueError: a field that is neither shared nor an option's ``recorded_as``.
        """
        values = {"prompt_mode": lambda: self.prompt_mode, "clip_fps": lambda: self.clip_fps or 0.0,
                  "protocol": lambda: self.protocol, "proxy": lambda: self.proxy_for(_need_root(root)),
                  "model_ready": lambda: spec.describe() if (spec := self.frames_spec()) is not None else ""}
        values.update({o.recorded_as: (lambda name=name: self.option(name))
                       for name, o in run_options().items() if o.recorded_as and not o.secret})
        out = {}
        for name in fields:
            if name not in values:
                raise ValueError(f"{name!r} is not a recorded setting; expected one of {', '.join(values)}")
            out[name] = values[name]()
        return out


def env_variables() -> tuple[str, ...]:
    """Every variable :meth:`RunSettings.from_env` reads: the shared ones and the benchmarks' options'."""
    return ENV_VARIABLES + tuple(o.env for o in run_options().values())


def _check_option(option: RunOption, value: str, where: str) -> None:
    if option.choices and value not in option.choices:
        shown = "<hidden>" if option.secret else repr(value)
        raise StreamGazeError(f"{where}={shown}; expected one of {', '.join(option.choices)}")


def _model_request(text: str) -> dict:
    import json

    try:
        request = json.loads(text)
    except ValueError:
        raise StreamGazeError(f"not a wrapper request (JSON): {text[:80]!r}") from None
    if not isinstance(request, dict) or not isinstance(request.get("wrapper"), str) or not isinstance(
            request.get("args"), dict):
        raise StreamGazeError(f"not a wrapper request ({{\"wrapper\": ..., \"args\": {{...}}}}): {text[:80]!r}")
    return request


@lru_cache(maxsize=8)
def _resolved_spec(text: str, _qwen_reader: str):
    from .model_frames import resolve_spec

    return resolve_spec(_model_request(text))


def with_flags(environ: Mapping[str, str] | None = None, **flags: str | None) -> RunSettings:
    """The settings of ``environ`` (default ``os.environ``) with a command's flags over them: each flag
    given (not None) stands for its variable (``prompt_mode`` for ``$STREAMGAZE_PROMPT_MODE``, ...), as if
    it had been set, so a flag overrides the variable and is checked with the variable's message."""
    names = {"prompt_mode": PROMPT_MODE_ENV, "clip_fps": CLIP_FPS_ENV, "protocol": PROTOCOL_ENV, "proxy": PROXY_ENV,
             "frames": FRAMES_ENV, "model": MODEL_ENV}
    env = dict(os.environ if environ is None else environ)
    env.update({names[k]: str(v) for k, v in flags.items() if v is not None})
    return RunSettings.from_env(env)


def given(settings: RunSettings | None) -> RunSettings:
    """``settings``, or for a direct library call that passes none the process's (:meth:`RunSettings.from_env`)."""
    return RunSettings.from_env() if settings is None else settings


def _need_root(root) -> Path:
    if root is None:
        raise ValueError("the proxy setting is recorded for a dataset: give its root")
    return Path(root)


def _env_fps(env: Mapping[str, str]) -> float | None:
    raw = env.get(CLIP_FPS_ENV, "").strip()
    if not raw:
        return None
    try:
        fps = float(raw)
    except ValueError:
        raise StreamGazeError(f"${CLIP_FPS_ENV}={raw!r} is not a number") from None
    if not fps > 0:
        raise StreamGazeError(f"${CLIP_FPS_ENV} must be > 0, got {raw}")
    return fps


def _env_count(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise StreamGazeError(f"${name}={raw!r} is not a whole number") from None
    if value < 0:
        raise StreamGazeError(f"${name} must be >= 0, got {raw}")
    return value
