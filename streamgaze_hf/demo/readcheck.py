"""Read a video the ways model wrappers do and name every frame they get: a check of clips, proxies and sources.

A model wrapper does not read a clip straight through: decord's ``get_batch`` of k uniformly spaced
indices seeks to the keyframe before each target (or decodes on, when it is close), ``vr[i]`` in any order
does the same per frame, and PyAV wrappers seek by timestamp. A clip whose frames are right read straight
through can still give wrong frames or decoder errors that way (e.g. a keyframe that lacks the parameter
sets its slices need). :func:`read_videos` runs such reads (:func:`wrapper_reads`) on a video whose pictures carry their source
frame index (:func:`~streamgaze_hf.demo.timecode.burn_frame_code`) and lists every wrong frame, raised
error and FFmpeg or decord log line.

The reads run in a child process (``python -m streamgaze_hf.demo.readcheck``): decord stops the process
on some decoder failures (``Check failed``), and FFmpeg logs to the process's stderr, which the parent
captures and assigns to the read that wrote it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..util.process_env import child_env

BATCH_SIZES = (4, 8, 16, 32, 64)
_MARK = "@@readcheck "


def uniform_indices(n: int, k: int) -> list[int]:
    """k indices of n frames spaced uniformly, first and last included (as wrappers sample; fewer if n < k)."""
    return sorted(set(np.linspace(0, n - 1, min(k, n)).round().astype(int).tolist()))


def wrapper_reads(n: int, extra: Sequence[int] = ()) -> dict[str, tuple[str, list[int]]]:
    """The reads of an n-frame video: name -> (reader, frame indices in the order they are asked for).

    decord ``get_batch`` at each of :data:`BATCH_SIZES`; decord ``vr[i]`` in reverse order over 16 uniform
    indices and ``extra`` (e.g. the frames either side of each segment boundary); PyAV seeks to the
    first, middle and last frame, each from a freshly opened file and then in one file in that order.
    """
    reads = {f"decord get_batch {k}": ("decord_batch", uniform_indices(n, k)) for k in BATCH_SIZES}
    picks = set(uniform_indices(n, 16)) | {int(i) for i in extra if 0 <= int(i) < n}
    reads["decord reverse"] = ("decord_each", sorted(picks, reverse=True))
    ends = [0, (n - 1) // 2, n - 1]
    for name, i in zip(("first", "middle", "last"), ends):
        reads[f"pyav seek {name}"] = ("pyav_seek", [i])
    reads["pyav seeks"] = ("pyav_seek", ends)
    return reads


@dataclass
class ReadReport:
    """What the reads of one video got: per read, the frame codes (None: unreadable) or its error, and the
    decoder log lines written during it."""

    path: str
    codes: dict[str, list[int | None]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    logs: dict[str, list[str]] = field(default_factory=dict)

    def problems(self, expected: Sequence[int], reads: dict[str, tuple[str, list[int]]],
                 label: str | None = None) -> list[str]:
        """Each read whose frames are not ``expected[i]`` for its indices, that raised, or that logged (one
        line each, starting with ``label``, default the path)."""
        what = label or self.path
        out = [f"{what}: {name}: {err}" for name, err in self.errors.items() if name not in reads]
        for name, (_, idx) in reads.items():
            want = [int(expected[i]) for i in idx]
            if name in self.errors:
                out.append(f"{what}: {name}: {self.errors[name]}")
            elif self.codes.get(name) != want:
                got = self.codes.get(name)
                bad = [(i, w, g) for i, w, g in zip(idx, want, got or [])] if got else []
                bad = [b for b in bad if b[1] != b[2]][:4]
                out.append(f"{what}: {name}: wrong frames (index, want, got) {bad or got}")
            if self.logs.get(name):
                out.append(f"{what}: {name}: decoder log {self.logs[name][:3]}")
        return out


def read_videos(jobs: Sequence[tuple[str | os.PathLike[str], dict[str, tuple[str, list[int]]]]],
                timeout: float = 300.0) -> list[ReadReport]:
    """Run every job's reads in child processes; a child that dies marks the read it was in as failed and a
    new child takes the remaining jobs."""
    todo = [(str(p), reads) for p, reads in jobs]
    reports: list[ReadReport] = []
    while todo:
        spec = json.dumps([[p, {k: list(v) for k, v in reads.items()}] for p, reads in todo])
        proc = subprocess.run([sys.executable, "-m", __name__], input=spec, capture_output=True, text=True,
                              timeout=timeout, env=child_env({"PYTHONUNBUFFERED": "1"}))
        done, finished = _parse(proc.stdout, proc.stderr, todo)
        if proc.returncode != 0 and len(done) == finished < len(todo):  # died outside any read
            tail = proc.stderr.strip().splitlines()[-3:]
            done.append(ReadReport(todo[finished][0], errors={"(reader process)": f"exit {proc.returncode}: {tail}"}))
        reports.extend(done)
        todo = todo[len(done):]
    return reports


def _parse(stdout: str, stderr: str, todo) -> tuple[list[ReadReport], int]:
    """Reports from the child's output: one JSON line per finished job on stdout; on stderr, a marker line
    before each read, so every log line belongs to the read that wrote it. The job the child died in gets
    the read it died in as an error. Returns the reports and how many jobs finished."""
    finished = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    logs: dict[tuple[int, str], list[str]] = {}
    where = None
    for line in stderr.splitlines():
        if line.startswith(_MARK):
            job, name = line[len(_MARK):].split(" ", 1)
            where = (int(job), name)
            logs.setdefault(where, [])
        elif where is not None and line.strip():
            logs[where].append(line.strip())
    reports = []
    for j, rec in enumerate(finished):
        r = ReadReport(rec["path"], rec["codes"], rec["errors"])
        r.logs = {name: lines for (job, name), lines in logs.items() if job == j and lines}
        reports.append(r)
    if where is not None and where[0] == len(finished) and where[0] < len(todo):
        path = todo[where[0]][0]
        died = ReadReport(path, errors={where[1]: "the reader process died: " + " | ".join(logs[where][-3:])})
        died.logs = {name: lines for (job, name), lines in logs.items() if job == where[0] and lines}
        reports.append(died)
    return reports, len(finished)


# ---------------------------------------------------------------------------------------------------
# the child process


def _child() -> None:
    import av
    import decord

    from .timecode import read_frame_code

    av.logging.restore_default_callback()  # FFmpeg logs go to stderr, as decord's do
    av.logging.set_libav_level(av.logging.WARNING)
    jobs = json.loads(sys.stdin.read())
    for j, (path, reads) in enumerate(jobs):
        codes: dict[str, list[int | None]] = {}
        errors: dict[str, str] = {}
        for name, (kind, idx) in reads.items():
            os.write(2, f"{_MARK}{j} {name}\n".encode())
            try:
                if kind == "decord_batch":
                    frames = list(decord.VideoReader(path).get_batch(idx).asnumpy())
                elif kind == "decord_each":
                    vr = decord.VideoReader(path)
                    frames = [vr[i].asnumpy() for i in idx]
                else:
                    frames = _pyav_seek(av, path, idx)
                codes[name] = [None if f is None else read_frame_code(f) for f in frames]
            except Exception as exc:  # noqa: BLE001 - every failure of a reader is a finding
                errors[name] = f"{type(exc).__name__}: {exc}"
        print(json.dumps({"path": path, "codes": codes, "errors": errors}), flush=True)


def _pyav_seek(av, path: str, idx: list[int]) -> list:
    """Seek (backward, to the keyframe at or before) to each frame's pts and decode up to it."""
    out = []
    with av.open(path) as c:
        s = c.streams.video[0]
        pts = sorted(p.pts for p in c.demux(s) if p.pts is not None and p.size > 0)
        for i in idx:
            c.seek(pts[i], stream=s, backward=True, any_frame=False)
            got = None
            for frame in c.decode(s):
                if frame.pts is not None and frame.pts >= pts[i]:
                    got = frame.to_ndarray(format="rgb24") if frame.pts == pts[i] else None
                    break
            out.append(got)
    return out


if __name__ == "__main__":
    _child()
