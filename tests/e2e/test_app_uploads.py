"""The leaderboard app leaves no upload behind (issue 38.9): ``streamgaze leaderboard serve`` (the console script)
stores an uploaded file in a folder of its own, and the folder is gone once the app is stopped (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from ..fixtures.cli_entry import script

pytest.importorskip("gradio")
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _upload(port: int, name: str, data: bytes) -> str:
    boundary = "streamgaze-test-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\n"
            "Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/gradio_api/upload", data=body, method="POST",
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())[0]


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stop,ignored", [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
                         ids=["ctrl-c", "sigterm", "ctrl-c-ignored-by-the-parent"])
def test_uploads_are_removed_when_the_app_stops(tmp_path, stop, ignored):
    """Stopped by Ctrl-C or SIGTERM, the app exits (128 + the signal) with its uploads removed; also when the
    process that started it ignores SIGINT (Python then leaves SIGINT ignored unless the app handles it)."""
    port = _free_port()
    env = {**os.environ, "TMPDIR": str(tmp_path), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("GRADIO_TEMP_DIR", None)
    proc = subprocess.Popen([script(), "leaderboard", "serve", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ignore_sigint if ignored else None)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()[-3000:]
                time.sleep(0.5)
        stored = _upload(port, "mine.json", b'{"schema_version": 2}')
        assert os.path.isfile(stored) and stored.startswith(str(tmp_path / "streamgaze-app-uploads-")), stored
    finally:
        proc.send_signal(stop)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + stop, err[-2000:]
    assert err.strip().endswith(f"streamgaze leaderboard serve: stopped ({stop.name})"), err[-2000:]
    assert not os.path.exists(stored)
    assert [p.name for p in tmp_path.iterdir()] == []  # no upload folder, no gradio folder left
