"""One error type for every bad input, so the CLI can print one clear line and exit non-zero."""

from __future__ import annotations

import os


class StreamGazeError(Exception):
    """A user-facing error: ``<path>: <reason>`` (the path is optional)."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None):
        self.reason = reason
        self.path = None if path is None else os.fspath(path)
        super().__init__(f"{self.path}: {reason}" if self.path else reason)


class GazeFormatError(StreamGazeError):
    """A gaze file (or gaze array) that does not follow the expected format."""


class VideoError(StreamGazeError):
    """A missing, unreadable or undecodable video."""


class ArgumentError(StreamGazeError, ValueError):
    """An option value out of its range (also a ValueError for library callers)."""

