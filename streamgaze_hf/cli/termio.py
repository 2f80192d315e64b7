"""Console behaviour of the ``streamgaze`` command, as Unix tools behave.

* **A closed stdout** (``streamgaze stats ROOT | head``) ends the command quietly with exit status
  141 (128 + SIGPIPE, what a shell reports for a Unix tool stopped by a closed pipe): no traceback,
  no "Exception ignored" message at interpreter exit. :func:`stdout_closed` tells a closed stdout
  apart from any other broken pipe (a socket of a VLM back-end is an ordinary error).
* **Progress bars in logs**: tqdm redraws a bar with carriage returns; in a file or a pipe that
  becomes one ever-growing line per bar. :class:`LogLines` (installed on stderr when it is not a
  terminal) keeps what a terminal would finally show: each bar's last state as one line, and nothing
  for bars that erase themselves (``leave=False``) or that finished within a second (lmms-eval draws
  two such bars per task; a log has no use for them). Ordinary lines pass through unchanged.
* **No secret in clear**: everything written to stdout and stderr while a command runs, lmms-eval's and
  huggingface_hub's log lines in the same process included, passes through
  :func:`streamgaze_hf.util.secrets.redact` (:class:`Redacted`): a token or API key is printed as
  ``<redacted>``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import select
import sys
import warnings
from collections.abc import Iterator

__all__ = ["SIGPIPE_STATUS", "stdout_closed", "silence_stdout", "flush_stdout", "LogLines", "Redacted", "console"]

SIGPIPE_STATUS = 141
#: a tqdm status whose elapsed time is still 00:00 ("... 24/24 [00:00<00:00, 5505.24it/s]")
_QUICK_BAR = re.compile(r"\|\s*\d+/\d+ \[00:00<")


def stdout_closed() -> bool:
    """Whether the reading end of stdout's pipe (or socket) has gone away."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    try:
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        events = poller.poll(0)
    except (OSError, ValueError, AttributeError):
        return False
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in events)


def silence_stdout() -> None:
    """Point stdout's file descriptor at /dev/null, so that the interpreter's final flush of what is
    still buffered cannot fail again (it would print "Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def flush_stdout() -> bool:
    """Flush stdout; False (and stdout silenced) when its reader has gone away."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return False
    except (OSError, ValueError):
        return True
    return True


class LogLines(io.TextIOBase):
    """A text stream for a log file or pipe: carriage-return redraws collapse to their final line.

    Text up to a newline is written as the part after its last carriage return (a line that ends up
    blank after a carriage return, i.e. an erased bar, is dropped). A partial line is held until its
    newline arrives or the stream is flushed at the end (:meth:`finish`).
    """

    def __init__(self, target) -> None:
        super().__init__()
        self.target = target
        self._pending = ""

    @property
    def encoding(self):  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.target.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        data = self._pending + text
        *lines, self._pending = data.split("\n")
        out = []
        for line in lines:
            if "\r" in line:
                line = line.rsplit("\r", 1)[1]
                if not line.strip() or _QUICK_BAR.search(line):
                    continue
            out.append(line + "\n")
        if out:
            self.target.write("".join(out))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def finish(self) -> None:
        """Write a held partial line (its final state) and flush."""
        line, self._pending = self._pending, ""
        if "\r" in line:
            line = line.rsplit("\r", 1)[1]
            if _QUICK_BAR.search(line):
                line = ""
        if line.strip():
            self.target.write(line + "\n")
        self.target.flush()


class Redacted:
    """A text stream that writes to ``target`` what it is given with every secret redacted (each write on its
    own: a print, a log record, a progress redraw). Everything else is the target's."""

    def __init__(self, target) -> None:
        self._target = target

    def write(self, text: str) -> int:
        from ..util.secrets import redact

        self._target.write(redact(text) if isinstance(text, str) else text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._target, name)


def _warning_line(show):
    """``warnings.showwarning`` that prints a toolkit warning meant for people (a category with
    ``streamgaze_line = True``, e.g. gaze/sources/wearable.py's ``SceneLengthWarning``) as one
    ``streamgaze: warning: ...`` line, and leaves every other warning to ``show``."""
    def showwarning(message, category, filename, lineno, file=None, line=None):
        if getattr(category, "streamgaze_line", False):
            print(f"streamgaze: warning: {message}", file=file or sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)

    return showwarning


@contextlib.contextmanager
def console() -> Iterator[None]:
    """For the duration of a command: stdout and stderr redact secrets; stderr collapses progress redraws when
    it is not a terminal; a toolkit warning meant for people is one ``streamgaze: warning:`` line."""
    original_out, original = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Redacted(original_out), Redacted(original)
    try:
        tty = original.isatty()
    except (AttributeError, ValueError):
        tty = True
    wrapper = None if tty else LogLines(sys.stderr)
    if wrapper is not None:
        sys.stderr = wrapper
    shown = warnings.showwarning
    warnings.showwarning = _warning_line(shown)
    try:
        yield
    finally:
        warnings.showwarning = shown
        if wrapper is not None:
            with contextlib.suppress(Exception):
                wrapper.finish()
        if sys.stdout is not original_out and isinstance(sys.stdout, Redacted):
            sys.stdout = original_out
        if sys.stderr is not original and isinstance(sys.stderr, (Redacted, LogLines)):
            sys.stderr = original
