"""Clip models for the polling adapter: the baselines (no lmms-eval) and any OpenAI-compatible
chat-completions endpoint, plus :func:`make_model`, the ``--model`` / ``--model-args`` factory of
``streamgaze stream-eval``."""

from __future__ import annotations

import base64
import importlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping

from ....evaluation import oracle_answer, random_answer
from ....util.errors import StreamGazeError
from ..tasks import get_task
from .interface import StreamingModel
from .polling import ClipModel, ClipRequest, PollingAdapter

__all__ = ["RandomClipModel", "OracleClipModel", "OpenAIClipModel", "make_model", "parse_model_args",
           "BUILTIN_MODELS"]

BUILTIN_MODELS = ("random", "oracle", "openai")


class RandomClipModel(ClipModel):
    """The random baseline: the same answer as lmms-eval's ``streamgaze_random`` for every item."""

    needs_frames = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)

    def answer(self, request: ClipRequest) -> str:
        return random_answer(self.seed, request.question_id, request.poll_key, get_task(request.task).checkpointed,
                             len(request.options))


class OracleClipModel(ClipModel):
    """Answers from the answer key (pipeline checks only; never ranked). Only checkpoint polls and
    multiple-choice questions have a key."""

    needs_frames = False

    def __init__(self, docs: Mapping[tuple[str, int], dict]) -> None:
        self.docs = docs

    def answer(self, request: ClipRequest) -> str:
        doc = self.docs.get((request.question_id, request.checkpoint_index))
        if doc is None:
            raise StreamGazeError(f"the oracle has no key for {request.question_id!r} at {request.time:.3f} s: "
                                  "it answers checkpoint polls only (--poll checkpoints)")
        return oracle_answer(doc)


class OpenAIClipModel(ClipModel):
    """An OpenAI-compatible ``/chat/completions`` endpoint: one user message with up to
    ``max_frames`` frames of the window (JPEG data URLs, evenly spread, the last frame always
    included) followed by the prompt; temperature 0. The key comes from ``api_key`` or
    ``$OPENAI_API_KEY`` (may be empty for a local server)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, max_frames: int = 8,
                 max_tokens: int = 64, timeout: float = 120.0, retries: int = 2) -> None:
        if not base_url or not model:
            raise StreamGazeError("the openai model needs --model-args base_url=URL,model=NAME")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.max_frames = int(max_frames)
        self.max_tokens = int(max_tokens)
        self.timeout = float(timeout)
        self.retries = int(retries)
        if self.max_frames < 1:
            raise StreamGazeError(f"max_frames must be >= 1, got {max_frames}")

    def pick(self, n: int) -> list[int]:
        """Indices of at most ``max_frames`` of ``n`` frames, evenly spread, the last one included."""
        if n <= self.max_frames:
            return list(range(n))
        k = self.max_frames
        return sorted({round(n - 1 - i * (n - 1) / (k - 1)) for i in range(k)}) if k > 1 else [n - 1]

    def payload(self, request: ClipRequest) -> dict:
        content = [{"type": "image_url",
                    "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(request.frames[i].jpeg).decode()}}
                   for i in self.pick(len(request.frames))]
        content.append({"type": "text", "text": request.prompt})
        return {"model": self.model, "messages": [{"role": "user", "content": content}],
                "temperature": 0, "max_tokens": self.max_tokens}

    def answer(self, request: ClipRequest) -> str:
        body = json.dumps(self.payload(request)).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.retries + 1):
            try:
                req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    data = json.loads(resp.read().decode("utf-8"))
                return str(data["choices"][0]["message"]["content"] or "")
            except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
                last = str(exc)
                if attempt < self.retries:
                    time.sleep(min(2.0 ** attempt, 10.0))
        raise StreamGazeError(f"{self.url}: no usable answer after {self.retries + 1} attempts ({last})")


def parse_model_args(text: str) -> dict[str, str]:
    """``k=v,k2=v2`` -> dict (values stay strings)."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise StreamGazeError(f"--model-args: {part!r} is not key=value")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def make_model(name: str, args: Mapping[str, str], poll: str | float, answer_docs=None) -> StreamingModel:
    """A streaming model from ``--model`` and ``--model-args``: ``random`` (seed=N), ``oracle``,
    ``openai`` (base_url, model, api_key, max_frames, max_tokens, timeout) behind the polling adapter,
    or ``package.module:factory`` — a callable taking the model args as keywords and returning a
    :class:`StreamingModel` (used as is) or a :class:`ClipModel` (wrapped in the polling adapter).
    ``answer_docs`` ((question id, checkpoint index) -> document) is needed by the oracle only."""
    args = dict(args)
    try:
        if name == "random":
            model = PollingAdapter(RandomClipModel(int(args.pop("seed", 0))), poll)
        elif name == "oracle":
            model = PollingAdapter(OracleClipModel(answer_docs or {}), poll)
        elif name == "openai":
            kw = {k: args.pop(k) for k in list(args) if k in ("base_url", "model", "api_key", "max_frames",
                                                                "max_tokens", "timeout", "retries")}
            model = PollingAdapter(OpenAIClipModel(**kw), poll)
        elif name.startswith("lmms:"):
            raise StreamGazeError(f"--model {name}: an lmms-eval wrapper needs the run's documents: run it through "
                                  "stream-eval (lmms_model.lmms_choice)")
        elif ":" in name:
            module, attr = name.split(":", 1)
            try:
                factory = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                raise StreamGazeError(f"--model {name}: cannot import ({exc})") from None
            made = factory(**args)
            args = {}
            if isinstance(made, ClipModel):
                return PollingAdapter(made, poll)
            if not isinstance(made, StreamingModel):
                raise StreamGazeError(f"--model {name}: the factory returned {type(made).__name__}, not a "
                                      "StreamingModel or ClipModel")
            return made
        else:
            raise StreamGazeError(f"unknown --model {name!r}: one of {', '.join(BUILTIN_MODELS)}, lmms:<name> or "
                                  "module:factory")
    except (TypeError, ValueError) as exc:
        raise StreamGazeError(f"--model {name}: bad --model-args ({exc})") from None
    if args:
        raise StreamGazeError(f"--model {name}: unknown --model-args {', '.join(sorted(args))}")
    return model
