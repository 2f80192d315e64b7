"""`streamgaze build`: raw recordings -> fixations -> scene check -> FOV objects -> scanpath -> QA ->
videos (original re-encoded and gaze overlay, keyframes at every window start) -> the written,
versioned dataset.

Resumable: every recording's results go to a work directory next to the output
(``<out>.work/<video_id>/<key>/``, key = hash of the inputs and options) and a finished recording
is never redone; the dataset itself is written atomically at the end (nothing partial at ``out``).
The work directory is removed after a successful build. Recordings run in a process pool
(``--workers``), one recording in memory per worker.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tqdm import tqdm

from .. import __version__
from ..errors import StreamGazeError
from ..fsutil import write_text_atomic
from ..gaze.fixations import Fixation, FixationParams, extract_fixations
from ..gaze.io import read_gaze_csv
from ..gaze.scanpath import DEFAULT_MERGE_GAP, build_scanpath
from ..gaze.scene import DEFAULT_TAU_SCENE, scene_scores
from ..gaze.sources.base import read_actions
from ..gaze.track import GazeTrack
from ..objects.oracle import OracleBackend
from ..qa.context import VideoContext
from ..qa.generate import DEFAULT_CAP, generate_questions
from ..tasks import TASK_IDS
from ..video.overlay import reencode_video, render_overlay
from ..video.reader import VideoInfo, probe_video

RESULT_FILE = "result.json"


@dataclass(frozen=True)
class BuildOptions:
    seed: int = 0
    source: str = "world"
    fixation: FixationParams = field(default_factory=FixationParams)
    tau_scene: float = DEFAULT_TAU_SCENE
    merge_gap: float = DEFAULT_MERGE_GAP
    cap_per_task: int = DEFAULT_CAP
    hfov_deg: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def find_recordings(raw: Path) -> list[Path]:
    """Sub-directories of ``raw`` holding a recording in our raw format (video.mp4 + gaze.csv)."""
    if not raw.is_dir():
        raise StreamGazeError("raw directory not found", raw)
    recs = sorted(d for d in raw.iterdir() if d.is_dir() and (d / "video.mp4").is_file())
    if not recs:
        raise StreamGazeError("no recordings found (expected <raw>/<video_id>/video.mp4 with gaze.csv)", raw)
    for d in recs:
        if not (d / "gaze.csv").is_file():
            raise StreamGazeError("recording has a video but no gaze.csv", d)
    return recs


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def recording_key(rec: Path, opts: BuildOptions) -> str:
    """Hash of a recording's input files, the options and the toolkit version."""
    h = hashlib.sha256(json.dumps([__version__, opts.to_dict()], sort_keys=True).encode())
    for name in sorted(p.name for p in rec.iterdir() if p.is_file()):
        h.update(name.encode() + _file_digest(rec / name).encode())
    return h.hexdigest()[:16]


@dataclass
class Analysis:
    """One recording through the pipeline up to the QA (everything but the overlay video)."""

    info: VideoInfo
    track: GazeTrack
    fixations: list[Fixation]  # all fixations of the dispersion rule
    scores: list[float]  # their scene-consistency S_min
    kept_idx: list[int]  # indices of the scene-consistent ones
    context: VideoContext


def analyse_recording(rec: Path, opts: BuildOptions) -> Analysis:
    """Fixations -> scene check -> FOV objects -> scanpath, ready for QA generation."""
    video = rec / "video.mp4"
    info = probe_video(video)
    track = read_gaze_csv(rec / "gaze.csv", info.width, info.height, info.fps, opts.hfov_deg)
    fixations = extract_fixations(track, opts.fixation)
    scores = scene_scores(video, fixations)
    kept_idx = [i for i, s in enumerate(scores) if s >= opts.tau_scene]
    kept = [fixations[i] for i in kept_idx]
    objects = OracleBackend().describe(rec, video, track, kept)
    episodes = build_scanpath(kept, objects.per_fixation, opts.merge_gap, opts.fixation.r_thresh, track.aspect)
    ctx = VideoContext(rec.name, opts.source, info.duration, info.fps, track, kept, objects, episodes,
                       read_actions(rec / "actions.json"), opts.fixation.r_thresh)
    return Analysis(info, track, fixations, scores, kept_idx, ctx)


def process_recording(rec: Path, work: Path, opts: BuildOptions) -> Path:
    """Run the pipeline on one recording; returns its finished work directory (reused if present)."""
    out = work / rec.name / recording_key(rec, opts)
    if (out / RESULT_FILE).is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    a = analyse_recording(rec, opts)
    info, track, fixations, scores, kept_idx = a.info, a.track, a.fixations, a.scores, a.kept_idx
    objects, episodes = a.context.objects, a.context.episodes
    qa = generate_questions(a.context, opts.seed, opts.cap_per_task)
    # Both stored videos are re-encoded without B-frames and with a keyframe at every window start,
    # so every evaluation window clip is a frame-exact packet copy (video/clips.py).
    starts = sorted({r["window_start"] for rows in qa.values() for r in rows if r["window_start"] > 0})
    reencode_video(rec / "video.mp4", out / "original.mp4", keyframe_times=starts, progress=False)
    render_overlay(rec / "video.mp4", track, out / "overlay.mp4", hfov_deg=opts.hfov_deg, progress=False,
                   keyframe_times=starts)

    episode_of = {fi: k for k, ep in enumerate(episodes) for fi in ep.fixations}
    fix_rows = []
    for i, (f, s) in enumerate(zip(fixations, scores)):
        j = kept_idx.index(i) if i in kept_idx else None
        o = objects.per_fixation[j] if j is not None else None
        fix_rows.append({
            "video_id": rec.name, "fixation_index": i, "start": f.start, "end": f.end, "x": f.x, "y": f.y,
            "n_samples": f.n_samples, "scene_score": float(s), "kept": j is not None,
            "episode_index": episode_of.get(j, -1) if j is not None else -1,
            "gazed_object": (o.gazed or "") if o else "", "fov_objects": list(o.fov) if o else [],
            "out_objects": list(o.out) if o else [],
        })
    inf = track.in_frame
    gaze_rows = [{"video_id": rec.name, "t": float(track.t[k]), "x": _num(track.x[k]), "y": _num(track.y[k]),
                  "valid": bool(track.valid[k]), "in_frame": bool(inf[k])} for k in range(len(track))]
    video_row = {"video_id": rec.name, "source": opts.source, "video_path": f"videos/original/{rec.name}.mp4",
                 "overlay_path": f"videos/overlay/{rec.name}.mp4", "fps": info.fps, "width": info.width,
                 "height": info.height, "n_frames": info.n_frames, "duration": info.duration,
                 "hfov_deg": opts.hfov_deg if opts.hfov_deg is not None else math.nan}
    result = {"video": video_row, "qa": qa, "fixations": fix_rows, "gaze": gaze_rows}
    write_text_atomic(out / RESULT_FILE, json.dumps(result, sort_keys=True))
    return out


def _check_version_free(out: Path, version: str, force: bool) -> None:
    """Fail before any work when ``out`` already holds this version (the writer checks again)."""
    manifest = out / "manifest.json"
    if manifest.is_file() and not force:
        try:
            existing = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except ValueError:
            existing = None
        if existing == version:
            raise StreamGazeError(f"dataset version {version} already exists; use --force to overwrite", out)


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _process_star(args: tuple[Path, Path, BuildOptions]) -> Path:
    return process_recording(*args)


def build_dataset(raw: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *, seed: int = 0,
                  workers: int = 1, force: bool = False, changelog: str = "", options: BuildOptions | None = None,
                  keep_work: bool = False) -> Path:
    """Build the dataset at ``out`` from the raw recordings in ``raw`` (see the module docstring)."""
    from .writer import DatasetContent, write_dataset

    raw, out = Path(raw), Path(out)
    opts = options or BuildOptions(seed=seed)
    _check_version_free(out, version, force)
    recs = find_recordings(raw)
    work = out.parent / f".{out.name}.work"
    jobs = [(rec, work, opts) for rec in recs]
    bar = tqdm(total=len(jobs), desc="build", unit="video")
    try:
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                done = []
                for d in pool.map(_process_star, jobs):
                    done.append(d)
                    bar.update()
        else:
            done = []
            for job in jobs:
                done.append(_process_star(job))
                bar.update()
    finally:
        bar.close()
    content = DatasetContent(qa={t: [] for t in TASK_IDS}, videos=[], gaze=[], fixations=[], files={})
    for d in done:
        res = json.loads((d / RESULT_FILE).read_text(encoding="utf-8"))
        for task, rows in res["qa"].items():
            content.qa[task].extend(rows)
        content.videos.append(res["video"])
        content.fixations.extend(res["fixations"])
        content.gaze.extend({**g, "x": math.nan if g["x"] is None else g["x"],
                             "y": math.nan if g["y"] is None else g["y"]} for g in res["gaze"])
        content.files[res["video"]["video_path"]] = d / "original.mp4"
        content.files[res["video"]["overlay_path"]] = d / "overlay.mp4"
    build_info = {"road": "raw-pipeline", "raw_dir": raw.name, "object_backend": "oracle",
                  "options": opts.to_dict(),
                  "inputs": {rec.name: recording_key(rec, opts) for rec in recs}}
    root = write_dataset(out, content, version, build_info, force=force, changelog=changelog)
    if not keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return root

