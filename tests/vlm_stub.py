"""A loopback OpenAI-compatible chat-completions stub that answers the VLM back-end's region prompts.

It binds 127.0.0.1 on a free port, serves from a daemon thread for the lifetime of a ``with`` block,
decodes every request's images and records them, and counts calls. By default it "sees" like a tiny
model: the test video holds flat squares in the colours of ``PALETTE``; the stage-1 (FOV crop) answer
names the square under the gaze (a pixel next to the red dot), the stage-2 (masked frame) answer names
every square still visible. Both always add a ``Kitchen_Table`` so name normalisation and the
stage-1/stage-2 exclusion can be checked. A ``responder`` can replace the answers (garbage JSON,
HTTP errors) to exercise retries and failures.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

# Object name -> (BGR colour drawn in the test video, colour word the stub reports).
PALETTE: dict[str, tuple[tuple[int, int, int], str]] = {
    "cup": ((200, 60, 20), "blue"),
    "plate": ((40, 180, 40), "green"),
    "bowl": ((20, 210, 230), "yellow"),
}
TABLE = {"object_identity": "Kitchen_Table", "detailed_caption": "A table. It holds things.",
         "attributes": {"color": "brown", "material": "wooden", "shape": "rectangular", "texture": "unknown"}}
MAX_BODY = 64 * 1024 * 1024
COLOUR_TOLERANCE = 60.0


@dataclass
class StubRequest:
    """One request as the stub saw it."""

    index: int  # 0-based call number
    path: str
    stage: str  # "fov", "out" or "?"
    prompt: str  # the text of the first user message
    images: list[np.ndarray]  # decoded BGR images of the first user message
    retry: bool  # the conversation carries an earlier answer (a re-ask)
    authorization: str | None
    payload: dict = field(repr=False)

    @property
    def n_images(self) -> int:
        return len(self.images)


Reply = str | tuple[int, str]  # assistant text, or (HTTP status, body) for an error response
Responder = Callable[[StubRequest], Reply]


def _decode(url: str) -> np.ndarray:
    data = base64.b64decode(url.split(",", 1)[1])
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("undecodable image")
    return img


def parse_request(index: int, path: str, payload: dict, authorization: str | None) -> StubRequest:
    messages = payload.get("messages") or []
    first = messages[0]["content"] if messages else []
    texts = [p["text"] for p in first if p.get("type") == "text"] if isinstance(first, list) else [first]
    images = [_decode(p["image_url"]["url"]) for p in first
              if isinstance(first, list) and p.get("type") == "image_url"]
    prompt = "\n".join(texts)
    stage = "fov" if '"exact_gaze_object"' in prompt else "out" if '"other_objects"' in prompt else "?"
    return StubRequest(index, path, stage, prompt, images, len(messages) > 1, authorization, payload)


def _nearest(pixel: np.ndarray) -> str | None:
    best, dist = None, COLOUR_TOLERANCE
    for name, (bgr, _) in PALETTE.items():
        d = float(np.linalg.norm(pixel.astype(float) - np.array(bgr, float)))
        if d < dist:
            best, dist = name, d
    return best


def _obj(name: str) -> dict:
    word = PALETTE[name][1]
    return {"object_identity": name.capitalize(),
            "detailed_caption": f"A {word} {name}. It sits on the table.",
            "attributes": {"color": word, "material": "ceramic", "shape": "round", "texture": "smooth"}}


def object_answer(req: StubRequest) -> str:
    """A valid answer for the request's stage, from what the images show."""
    img = req.images[0]
    if req.stage == "fov":
        r = img.shape[0] // 2
        dx = max(4, int(0.35 * r))
        patch = img[r - 2:r + 3, r + dx - 2:r + dx + 3].reshape(-1, 3).mean(axis=0)
        gazed = _nearest(patch)
        answer = {"scene_caption": "A kitchen counter seen from above.",
                  "exact_gaze_object": _obj(gazed) if gazed else None,
                  "other_objects_in_cropped_area": [TABLE]}
        return "```json\n" + json.dumps(answer, indent=1) + "\n```"
    present = []
    for name, (bgr, _) in PALETTE.items():
        close = np.linalg.norm(img.astype(float) - np.array(bgr, float), axis=2) < COLOUR_TOLERANCE
        if int(close.sum()) >= 50:
            present.append(_obj(name))
    return json.dumps({"other_objects": present + [TABLE]})


class VLMStub:
    """``with VLMStub() as stub: VLMBackend(stub.url, ...)``; ``stub.requests`` / ``stub.calls`` after."""

    def __init__(self, responder: Responder | None = None, api_key: str | None = None):
        self.responder = responder or object_answer
        self.api_key = api_key
        self.requests: list[StubRequest] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def url(self) -> str:
        assert self._server is not None, "stub not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> VLMStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 30

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                if length > MAX_BODY:
                    return self._send(413, json.dumps({"error": "too large"}))
                body = self.rfile.read(length)
                auth = self.headers.get("Authorization")
                if self.path != "/v1/chat/completions":
                    return self._send(404, json.dumps({"error": f"no route {self.path}"}))
                if stub.api_key and auth != f"Bearer {stub.api_key}":
                    return self._send(401, json.dumps({"error": {"message": "bad api key"}}))
                try:
                    with stub._lock:
                        req = parse_request(len(stub.requests), self.path, json.loads(body), auth)
                        stub.requests.append(req)
                    reply = stub.responder(req)
                except Exception as exc:  # a stub bug must show up in the test, not hang it
                    stub.errors.append(repr(exc))
                    return self._send(400, json.dumps({"error": {"message": f"stub: {exc!r}"}}))
                if isinstance(reply, tuple):
                    return self._send(reply[0], reply[1])
                self._send(200, json.dumps({
                    "id": f"stub-{req.index}", "object": "chat.completion", "created": 0,
                    "model": req.payload.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}))

            def _send(self, status: int, text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
