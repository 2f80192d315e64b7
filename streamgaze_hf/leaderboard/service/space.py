"""``streamgaze leaderboard space --out DIR``: the folder of a Hugging Face Space running the leaderboard app.

``app.py`` builds :func:`~.app.build_app` from the Space's settings (the results and requests datasets and
the scoring datasets, written in as defaults, overridable by the Space's variables ``RESULTS``, ``REQUESTS``
and ``DATASETS``); the toolkit's wheel, ``requirements.txt`` naming it with the ``[leaderboard]`` extra and a
``Dockerfile`` (:mod:`.space_install`: the toolkit is not on a package index); ``README.md`` carries the Space
metadata (a Docker Space on Gradio's port, app_file, ``hf_oauth: true`` for the Submit tab's "Sign in with
Hugging Face", and the Hub's leaderboard discovery tags ``leaderboard``, ``submission:automatic``,
``test:public``). The Space's secret ``HF_TOKEN`` is the token that opens pull requests: list its account in
``space_accounts`` of the results dataset's ``leaderboard.yaml``, so the sync records the signed-in user named in
each pull request's description as its submitter.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from ... import __version__
from ...util.errors import StreamGazeError
from ...util.fsutil import atomic_directory
from .space_install import SPACE_METADATA, write_install_files

__all__ = ["write_space", "space_files"]


def space_files(results: str | None, requests: str | None, datasets: Sequence[str] = ()) -> dict[str, str]:
    app = f'''"""The leaderboard Space: written by `streamgaze leaderboard space` (streamgaze-toolkit {__version__})."""
import json
import os

from streamgaze_hf.leaderboard.service.app import build_app, theme

RESULTS = os.environ.get("RESULTS", {json.dumps(results)})
REQUESTS = os.environ.get("REQUESTS", {json.dumps(requests)})
DATASETS = json.loads(os.environ.get("DATASETS", {json.dumps(json.dumps(list(datasets)))}))

demo = build_app(RESULTS or None, REQUESTS or None, DATASETS)

if __name__ == "__main__":
    demo.launch(theme=theme())
'''
    readme = f"""---
title: Gaze benchmarks leaderboard
emoji: 👀
colorFrom: blue
colorTo: green
{SPACE_METADATA}
app_file: app.py
pinned: false
license: cc-by-4.0
short_description: Re-scored results of gaze-guided video benchmarks
hf_oauth: true
tags:
- leaderboard
- submission:automatic
- test:public
---

# Gaze benchmarks leaderboard

The leaderboard of the gaze-guided video benchmarks of streamgaze-toolkit: tables from
the results dataset {results or "(none set: the papers' rows only)"}, a Submit tab that re-scores an uploaded
submission and opens a pull request on {requests or "(no requests dataset set)"}, and an About tab.

Settings (Space variables): `RESULTS`, `REQUESTS`, `DATASETS` (a JSON list of `hf://datasets/ORG/NAME@TAG`);
the secret `HF_TOKEN` opens the pull requests (list its account under `space_accounts` in the results
dataset's `leaderboard.yaml`). Submitting needs "Sign in with Hugging Face" (`hf_oauth: true`): each pull
request names the signed-in user, whom the sync records as the submitter. Written by
`streamgaze leaderboard space`.
"""
    return {"app.py": app, "README.md": readme}  # requirements.txt, Dockerfile and the wheel: space_install.py


def write_space(out: str | os.PathLike[str], results: str | None, requests: str | None,
                datasets: Sequence[str] = ()) -> Path:
    """Write the Space folder into ``out`` (a new or empty directory), atomically."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise StreamGazeError("exists and is not empty: the Space folder goes into a new or empty directory", out)
    with atomic_directory(out) as tmp:
        for name, text in space_files(results, requests, datasets).items():
            (tmp / name).write_text(text, encoding="utf-8")
        write_install_files(tmp)
    return out
