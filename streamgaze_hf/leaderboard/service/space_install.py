"""How the leaderboard's Space installs this toolkit, which is not on a package index (``leaderboard space``).

The Space folder carries the toolkit's wheel (:func:`streamgaze_hf.util.wheel.toolkit_wheel`: built from the
source tree, or packed again from the installed files) and is a Docker Space: its ``Dockerfile`` copies the folder
and then installs ``requirements.txt``, which names that wheel with the ``[leaderboard]`` extra; every other
package comes from the package index. (A Gradio-SDK Space installs ``requirements.txt`` before the folder's files
are there, so a wheel in the folder could not be named in it; Docker Spaces take ``hf_oauth`` as Gradio ones do.)
"""

from __future__ import annotations

import sys
from pathlib import Path

from ... import __version__
from ...util.wheel import toolkit_wheel

__all__ = ["SPACE_METADATA", "write_install_files", "requirements_txt", "dockerfile"]

#: the README metadata lines that make the folder a Docker Space serving on Gradio's port
SPACE_METADATA = "sdk: docker\napp_port: 7860"


def requirements_txt(wheel: str) -> str:
    return (f"# streamgaze-toolkit {__version__} is not on a package index: its wheel is in this folder (written by\n"
            "# `streamgaze leaderboard space`); the Dockerfile installs this file after copying the folder.\n"
            f"./{wheel}[leaderboard]\n")


def dockerfile() -> str:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f"""# The leaderboard Space (written by `streamgaze leaderboard space`): the folder first, then its requirements
# (the toolkit's wheel in this folder with the [leaderboard] extra; the rest from the package index).
FROM python:{python}-slim
RUN useradd -m -u 1000 user
USER user
ENV HOME=/home/user PATH=/home/user/.local/bin:$PATH GRADIO_SERVER_NAME=0.0.0.0 GRADIO_SERVER_PORT=7860
WORKDIR /home/user/app
COPY --chown=user . .
RUN pip install --no-cache-dir --user -r requirements.txt
CMD ["python", "app.py"]
"""


def write_install_files(folder: Path) -> Path:
    """The toolkit's wheel, ``requirements.txt`` and ``Dockerfile`` in ``folder``; returns the wheel."""
    wheel = toolkit_wheel(folder)
    (folder / "requirements.txt").write_text(requirements_txt(wheel.name), encoding="utf-8")
    (folder / "Dockerfile").write_text(dockerfile(), encoding="utf-8")
    return wheel
