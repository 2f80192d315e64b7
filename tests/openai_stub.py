"""A loopback OpenAI-compatible chat-completions stub for end-to-end tests.

It records every request's images (as the demo world's burnt-in frame indices) and answers with
them, e.g. ``frames: 3,17,42``, so the samples file that lmms-eval writes ties each question to
the exact frames the model received. Binds 127.0.0.1 only; serves until killed.

Usage: python tests/openai_stub.py PORT_FILE
"""

from __future__ import annotations

import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

from streamgaze_hf.demo.timecode import read_frame_code


def frame_indices(payload: dict) -> list[int]:
    out = []
    for msg in payload.get("messages", []):
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                data = base64.b64decode(url.split(",", 1)[1])
                img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
                out.append(read_frame_code(img))
    return out


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        payload = json.loads(body)
        text = "frames: " + ",".join(map(str, frame_indices(payload)))
        reply = json.dumps({
            "id": "stub", "object": "chat.completion", "created": 0, "model": payload.get("model", "stub"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):  # quiet
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as fh:
        fh.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
