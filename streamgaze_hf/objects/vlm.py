"""Object back-end over an OpenAI-compatible vision-language endpoint (paper §3.3, appendix A.3).

For each fixation, a few frames inside it are read and turned into the paper's two region views
(radius ``fov_radius_px(width, hfov)``): circular FOV crops centred on the fixation centroid with a
red gaze dot, and full frames with the FOV disk blacked out. Two chat-completion requests go to
``{base_url}/chat/completions`` per fixation, with the frames as base64 data URLs and the region
prompts of :mod:`.vlm_prompts`: stage 1 names the gazed object and the other objects in the crop,
stage 2 the objects outside the masked disk (excluding the stage-1 objects). The names seen so far in
the video are offered as "known objects" so that one object keeps one name across fixations.

Answers must be strict JSON in the requested schema; a bad answer is re-asked (with the parse error)
and a failed request retried, up to ``max_retries`` times, then a StreamGazeError names the video
and the fixation.

Cache and resume: every accepted answer is stored under
``<cache_dir>/<key[:2]>/<key>.json`` with ``key = sha256(model, prompt text, image bytes)``, written
atomically. A rerun with the same model, prompts and frames makes no HTTP request at all, and a run
killed midway redoes only the requests that had not been answered.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import re
import struct
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import cast

import cv2
import numpy as np
from tqdm import tqdm

from ..gaze import Fixation, FixationObjects, GazeTrack, fov_crop, fov_radius_px, mask_fov
from ..util.errors import StreamGazeError
from ..util.fsutil import user_cache_dir, write_text_atomic
from ..video import read_frames_at
from .base import VideoObjects
from .naming import ATTRIBUTE_KINDS, BUILTIN_ATTRIBUTE_VALUES, unique_names
from .vlm_prompts import (
    RETRY_PROMPT,
    STAGE_FOV,
    STAGE_OUT,
    VALIDATORS,
    AnswerError,
    FovAnswer,
    OutAnswer,
    VLMObject,
    fov_prompt,
    out_prompt,
    parse_json_answer,
)

log = logging.getLogger(__name__)

CACHE_ENV = "STREAMGAZE_VLM_CACHE"
CACHE_FORMAT = 1
_KEY_PREFIX = b"streamgaze-vlm-cache/1\0"
_RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def api_key_from_env(variable: str | None) -> str | None:
    """The API key in the environment variable ``variable`` (``--vlm-api-key-env VAR``; None: no key), which
    from now on is a secret of this process (never printed: util/secrets.py). The key itself is never taken
    from the command line (``ps`` and shell histories show it) nor recorded."""
    from ..util.secrets import register

    if not variable:
        return None
    if not _VARIABLE_NAME.match(variable):
        register(variable)  # perhaps the key itself: never shown
        raise StreamGazeError("--vlm-api-key-env takes the name of the environment variable that holds the key "
                              "(letters, digits and _), not the key itself (what was given is not shown)")
    key = os.environ.get(variable, "")
    if not key.strip():
        raise StreamGazeError(f"--vlm-api-key-env {variable}: the environment variable {variable} is not set "
                              "(export the key in it first)")
    register(key)
    return key


def default_cache_dir() -> Path:
    """``$STREAMGAZE_VLM_CACHE``, else ``~/.cache/streamgaze/vlm``."""
    return user_cache_dir("vlm", CACHE_ENV)


def cache_key(model: str, prompt: str, images: Sequence[bytes]) -> str:
    """sha256 over the model name, the prompt text and each image's encoded bytes (length-prefixed)."""
    h = hashlib.sha256(_KEY_PREFIX)
    for part in (model.encode(), prompt.encode()):
        h.update(struct.pack(">Q", len(part)) + part)
    for img in images:
        h.update(struct.pack(">Q", len(img)) + img)
    return h.hexdigest()


class ResponseCache:
    """Accepted answers on disk, one JSON file per request key (two-character fan-out directories)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, stage: str, validate: Callable[[dict], object] | None = None) -> dict | None:
        """The cached answer for ``key`` if present and still valid for ``stage`` (checked by
        ``validate``, default: the object back-end's validator of that stage), else None."""
        p = self.path(key)
        if not p.is_file():
            return None
        try:
            record = json.loads(p.read_text(encoding="utf-8"))
            answer = record["answer"]
            if record.get("format") != CACHE_FORMAT or record.get("stage") != stage:
                raise ValueError("other format or stage")
            (validate or VALIDATORS[stage])(answer)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring unusable cache entry %s (%s)", p, exc)
            return None
        return answer

    def put(self, key: str, stage: str, model: str, answer: dict, raw: str, attempts: int) -> None:
        record = {"format": CACHE_FORMAT, "stage": stage, "model": model, "attempts": attempts,
                  "answer": answer, "raw": raw}
        write_text_atomic(self.path(key), json.dumps(record, ensure_ascii=False, indent=1) + "\n")


class _RequestFailed(Exception):
    """A failed HTTP exchange; ``retryable`` says whether asking again may help."""

    def __init__(self, message: str, retryable: bool):
        super().__init__(message)
        self.retryable = retryable


@dataclass(frozen=True)
class _Where:
    """Where a request belongs, for error messages."""

    video: Path
    index: int
    fixation: Fixation
    stage: str

    def describe(self) -> str:
        f = self.fixation
        stage = "FOV" if self.stage == STAGE_FOV else "out-of-FOV"
        return f"fixation {self.index} ({f.start:.2f}-{f.end:.2f} s), {stage} request"


class ChatJSONClient:
    """Strict-JSON questions to an OpenAI-compatible chat-completions endpoint, with images, a
    response cache and retries (the machinery under :class:`VLMBackend`, shared by other pipelines,
    e.g. VL4Gaze's §3 generation).

    :meth:`ask_json` sends one user message (images first, then the prompt), parses the reply as one
    JSON object (``parse_json_answer``), checks it with ``validate`` (raising :class:`AnswerError` for
    a bad answer, which is re-asked with the error), retries failed or retryable HTTP exchanges, and
    caches accepted answers under ``sha256(model, prompt, images)`` tagged with ``stage``.
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 cache_dir: str | os.PathLike[str] | None = None, max_retries: int = 3, timeout: float = 60,
                 image_format: str = "jpeg", max_tokens: int = 1024, temperature: float = 0.0,
                 extra_body: dict | None = None, retry_backoff: float = 1.0):
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if image_format not in ("jpeg", "png"):
            raise ValueError(f"image_format must be 'jpeg' or 'png', got {image_format!r}")
        url = base_url.rstrip("/")
        self.url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.cache = ResponseCache(default_cache_dir() if cache_dir is None else cache_dir)
        self.max_retries = int(max_retries)
        self.timeout = float(timeout)
        self.image_format = image_format
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.extra_body = dict(extra_body or {})
        self.retry_backoff = float(retry_backoff)
        self.calls = 0  # HTTP requests sent by this instance
        self.cache_hits = 0  # answers served from the cache

    def ask_json(self, prompt: str, images: list[bytes], stage: str, validate: Callable[[dict], object],
                 where: str, path: str | os.PathLike[str] | None = None):
        """``validate(answer)`` of the accepted JSON answer to one prompt: from the cache, else from
        the endpoint. ``where`` (and ``path``) name the request in errors."""
        key = cache_key(self.model, prompt, images)
        cached = self.cache.get(key, stage, validate)
        if cached is not None:
            self.cache_hits += 1
            return validate(cached)
        mime = "image/png" if self.image_format == "png" else "image/jpeg"
        content: list[dict] = [{"type": "image_url", "image_url": {"url": f"data:{mime};base64,"
                                                                   + base64.b64encode(b).decode("ascii")}}
                               for b in images]
        content.append({"type": "text", "text": prompt})
        base = [{"role": "user", "content": content}]
        messages = base
        last_error = ""
        for attempt in range(1, self.max_retries + 2):
            try:
                text = self._post(messages)
            except _RequestFailed as exc:
                last_error = str(exc)
                if not exc.retryable:
                    raise StreamGazeError(f"{where} to {self.url} failed: {exc}", path) from None
                if attempt <= self.max_retries and self.retry_backoff > 0:
                    time.sleep(min(30.0, self.retry_backoff * 2 ** (attempt - 1)))
                continue
            try:
                answer_json = parse_json_answer(text)
                answer = validate(answer_json)
            except AnswerError as exc:
                last_error = f"invalid answer: {exc}"
                messages = base + [{"role": "assistant", "content": text},
                                   {"role": "user", "content": RETRY_PROMPT.format(error=exc)}]
                continue
            self.cache.put(key, stage, self.model, answer_json, text, attempt)
            return answer
        raise StreamGazeError(f"{where}: no valid answer from model {self.model!r} after "
                              f"{self.max_retries + 1} attempts (last: {last_error})", path)

    def _post(self, messages: list[dict]) -> str:
        """One chat-completion request; the assistant's text."""
        body = {"model": self.model, "messages": messages, "max_tokens": self.max_tokens,
                "temperature": self.temperature, **self.extra_body}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        self.calls += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            raise _RequestFailed(f"HTTP {exc.code}{': ' + detail if detail else ''}",
                                 exc.code in _RETRYABLE_STATUS) from None
        except (OSError, HTTPException) as exc:  # URLError, timeouts, refused/reset connections
            reason = getattr(exc, "reason", None) or exc
            raise _RequestFailed(f"request error: {reason}", True) from None
        try:
            payload = json.loads(raw)
            content = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _RequestFailed(f"not a chat-completion response: {raw[:200]!r}", True) from None
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise _RequestFailed("the response has no text content", True)
        return content


class VLMBackend(ChatJSONClient):
    """Object sets per fixation from an OpenAI-compatible vision-language model (see module docstring).

    ``base_url``: the API root, e.g. ``http://localhost:8000/v1`` (``/chat/completions`` is appended
    unless already there). ``api_key``: sent as a Bearer token when given. ``cache_dir``: the answer
    cache (default :func:`default_cache_dir`). ``frames_per_fixation``: frames sampled evenly inside
    each fixation (fewer when the fixation spans fewer frames). ``max_retries``: extra attempts per
    request after a bad answer or a failed/retryable HTTP exchange. ``timeout``: seconds per HTTP
    request. ``hfov_deg``: the camera's horizontal FOV (default: the track's, else 90 degrees).
    ``max_image_side``: images larger than this are downscaled before encoding. ``image_format``:
    ``"jpeg"`` or ``"png"``. ``max_tokens``/``temperature``/``extra_body``: generation parameters
    sent with every request. ``known_objects``: how many of the video's earlier object names to offer
    for reuse (0 disables). ``retry_backoff``: seconds before the first transport retry (doubling).
    """

    name = "vlm"

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 cache_dir: str | os.PathLike[str] | None = None, frames_per_fixation: int = 4,
                 max_retries: int = 3, timeout: float = 60, hfov_deg: float | None = None,
                 max_image_side: int | None = 1024, image_format: str = "jpeg", jpeg_quality: int = 90,
                 max_tokens: int = 1024, temperature: float = 0.0, extra_body: dict | None = None,
                 known_objects: int = 50, retry_backoff: float = 1.0, progress: bool = False):
        if frames_per_fixation < 1:
            raise ValueError("frames_per_fixation must be at least 1")
        super().__init__(base_url, model, api_key=api_key, cache_dir=cache_dir, max_retries=max_retries,
                         timeout=timeout, image_format=image_format, max_tokens=max_tokens,
                         temperature=temperature, extra_body=extra_body, retry_backoff=retry_backoff)
        self.frames_per_fixation = int(frames_per_fixation)
        self.hfov_deg = hfov_deg
        self.max_image_side = max_image_side
        self.jpeg_quality = int(jpeg_quality)
        self.known_objects = int(known_objects)
        self.progress = progress

    # ------------------------------------------------------------------ the back-end interface

    def describe(self, video_dir: Path, video_path: Path, track: GazeTrack,
                 fixations: Sequence[Fixation]) -> VideoObjects:
        """Object sets per fixation (same order), attributes voted over all answers, and a vocabulary."""
        video_path = Path(video_path)
        hfov = self.hfov_deg if self.hfov_deg is not None else track.hfov_deg
        pool: dict[str, None] = {}
        votes: dict[str, dict[str, Counter]] = {}
        per_fix: list[FixationObjects] = []
        bar = tqdm(fixations, desc=f"objects {video_path.stem}", unit="fixation", disable=not self.progress)
        for i, f in enumerate(bar):
            known = list(pool)[-self.known_objects:] if self.known_objects > 0 else []
            crops, masked = self.region_images(video_path, f, hfov)
            fov = cast(FovAnswer, self._ask(fov_prompt(len(crops), f.duration, known), crops,
                                             _Where(video_path, i, f, STAGE_FOV)))
            gazed = fov.gazed.name if fov.gazed else None
            fov_names = unique_names((o.name for o in fov.others), exclude=[gazed] if gazed else [])
            stage1 = ((gazed,) if gazed else ()) + fov_names
            out = cast(OutAnswer, self._ask(out_prompt(len(masked), f.duration, stage1, known), masked,
                                            _Where(video_path, i, f, STAGE_OUT)))
            out_names = unique_names((o.name for o in out.objects), exclude=stage1)
            per_fix.append(FixationObjects(gazed, fov_names, out_names))
            objects: list[VLMObject] = [*([fov.gazed] if fov.gazed else []), *fov.others, *out.objects]
            for o in objects:
                pool.setdefault(o.name, None)
                for kind, value in o.attributes.items():
                    votes.setdefault(o.name, {}).setdefault(kind, Counter())[value] += 1
        # Most frequent value per attribute (ties: the value seen first).
        attributes = {name: {k: c.most_common(1)[0][0] for k, c in kinds.items()}
                      for name, kinds in votes.items()}
        return VideoObjects(per_fixation=per_fix, attributes=attributes,
                            attribute_vocabulary=attribute_vocabulary(attributes))

    # ------------------------------------------------------------------ images

    def sample_times(self, f: Fixation) -> list[float]:
        """``frames_per_fixation`` times evenly spread inside the fixation (bin centres)."""
        n = self.frames_per_fixation
        return [f.start + (k + 0.5) * f.duration / n for k in range(n)]

    def region_images(self, video_path: Path, f: Fixation, hfov_deg: float | None
                      ) -> tuple[list[bytes], list[bytes]]:
        """Encoded FOV crops (red gaze dot) and out-of-FOV frames (black disk), one per distinct frame."""
        frames = read_frames_at(video_path, self.sample_times(f))
        seen: set[float] = set()
        crops, masked = [], []
        for t, img in frames:
            if t in seen:
                continue
            seen.add(t)
            h, w = img.shape[:2]
            radius = fov_radius_px(w, hfov_deg)
            centre = (f.x * w, f.y * h)
            crops.append(self._encode(fov_crop(img, centre, radius)))
            masked.append(self._encode(mask_fov(img, centre, radius)))
        return crops, masked

    def encode(self, img: np.ndarray) -> bytes:
        """A BGR image as the request sends it (downscaled to ``max_image_side``, JPEG or PNG)."""
        return self._encode(img)

    def ask(self, prompt: str, images: list[bytes], where, validate: Callable[[dict], object]):
        """The validated answer to any strict-JSON request (prompt text after the images), with the
        same cache, re-asks and retries as the region prompts. ``where`` names the request in errors:
        it has ``stage`` (the cache's stage label), ``video`` (a path) and ``describe()``."""
        return self._ask(prompt, images, where, validate)

    def _encode(self, img: np.ndarray) -> bytes:
        h, w = img.shape[:2]
        side = self.max_image_side
        if side and max(h, w) > side:
            s = side / max(h, w)
            img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        if self.image_format == "png":
            ok, buf = cv2.imencode(".png", img)
        else:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            raise StreamGazeError(f"cannot encode a {w}x{h} frame as {self.image_format}")
        return buf.tobytes()

    # ------------------------------------------------------------------ requests

    def _ask(self, prompt: str, images: list[bytes], where: _Where,
             validate: Callable[[dict], object] | None = None):
        """The validated answer to one prompt (default validator: the region stage's): from the
        cache, else from the endpoint."""
        validate = validate or VALIDATORS[where.stage]
        return self.ask_json(prompt, images, where.stage, validate, where.describe(), where.video)


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read(2000).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    try:
        err = json.loads(text).get("error")
        if isinstance(err, dict):
            return str(err.get("message") or err)
        if err:
            return str(err)
    except (ValueError, AttributeError):
        pass
    return text[:300]


def attribute_vocabulary(attributes: dict[str, dict[str, str]]) -> dict[str, list[str]]:
    """Per attribute kind: the values seen in the video plus the built-in values, sorted."""
    vocab: dict[str, set[str]] = {k: set(BUILTIN_ATTRIBUTE_VALUES[k]) for k in ATTRIBUTE_KINDS}
    for attrs in attributes.values():
        for k, v in attrs.items():
            vocab.setdefault(k, set()).add(v)
    return {k: sorted(v) for k, v in vocab.items()}
