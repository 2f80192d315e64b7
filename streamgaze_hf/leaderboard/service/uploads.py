"""Where the leaderboard app keeps what users upload: a folder of its own, removed when the app stops.

Gradio stores every uploaded file under ``$GRADIO_TEMP_DIR`` (default ``<tmp>/gradio``) and keeps it after the
server stops. :func:`upload_folder` gives the app a fresh temporary folder (``streamgaze-app-uploads-*``) as
``GRADIO_TEMP_DIR``, before Gradio is imported, and removes it when the process exits (``serve`` turns SIGTERM
into a normal exit, so a stopped service cleans up too). An operator's own ``GRADIO_TEMP_DIR`` is left as it is.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["upload_folder"]

_FOLDER: list[Path] = []


def upload_folder() -> Path:
    """This process's upload folder (made and set as ``GRADIO_TEMP_DIR`` on the first call)."""
    if _FOLDER:
        return _FOLDER[0]
    chosen = os.environ.get("GRADIO_TEMP_DIR")
    if chosen:
        folder = Path(chosen)
    else:
        from ...util.process_env import configure

        folder = Path(tempfile.mkdtemp(prefix="streamgaze-app-uploads-"))
        configure({"GRADIO_TEMP_DIR": str(folder)})  # where Gradio keeps uploads (it reads the variable)
        atexit.register(shutil.rmtree, folder, True)
    _FOLDER.append(folder)
    return folder
