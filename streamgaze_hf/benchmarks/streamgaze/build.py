"""`streamgaze build`: raw recordings -> fixations -> scene check -> FOV objects -> scanpath -> QA ->
videos (original re-encoded and gaze overlay, keyframes at every window start) -> the written,
versioned dataset.

Resumable: every recording's results go to a work directory next to the output
(``<out>.work/<video_id>/<key>/``, key = hash of the inputs and options) and a finished recording
is never redone; the dataset itself is written atomically at the end (nothing partial at ``out``).
The work directory is removed after a successful build. Recordings run in a process pool
(``--workers``), one recording in memory per worker, or as tasks on a Ray cluster (``--executor ray``,
util/executors.py): each recording's results are written into a temporary directory beside its work directory and
renamed into place when complete, so a task retried on another node (its worker or node lost) never meets half of
another attempt's files. A recording that fails for a reason of its own (a damaged video) fails once; the others
finish, and the build stops with one error naming each recording left out (and the node it failed on) before
anything is written at ``out``: a re-run redoes only those.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ... import __version__
from ...dataset import EVENTS_FILE, events_json, events_of_recording, gaze_rows, run_recordings, video_row
from ...gaze import (
    DEFAULT_MERGE_GAP,
    DEFAULT_TAU_SCENE,
    Fixation,
    FixationParams,
    GazeTrack,
    Recording,
    RecordingRef,
    build_scanpath,
    extract_fixations,
    find_recordings,
    load,
    reencode_with_overlay,
    scene_scores,
)
from ...objects.oracle import OracleBackend
from ...util.errors import StreamGazeError
from ...util.executors import Workers, as_workers, check_gpu_ask
from ...util.fsutil import write_text_atomic
from ...video import ProxySpec, VideoInfo, probe_video
from . import BENCHMARK
from .qa.context import VideoContext
from .qa.generate import DEFAULT_CAP, empty_task_reasons, generate_questions
from .tasks import TASK_IDS

RESULT_FILE = "result.json"


class NothingToBuild(StreamGazeError):
    """No recording can give (or gave) a question to any task: ``skipped`` holds every task's reason per
    recording (task -> {video_id: why}), which the CLI prints as the build report before this error."""

    def __init__(self, reason: str, skipped: dict[str, dict[str, str]], path=None):
        super().__init__(reason, path)
        self.skipped = skipped


def check_objects_none(recs: list[RecordingRef], opts: BuildOptions) -> None:
    """Before any work: a build without object names (``--objects none``) has only FAP, which needs each
    recording's action labels; when no recording has enough, :class:`NothingToBuild` names every task's reason
    and what would make it possible (recordings are read, no video is decoded)."""
    if opts.objects != "none":
        return
    from .qa.present import fap_unavailable

    actions = {ref.video_id: load(ref).actions for ref in recs}
    if any(fap_unavailable(a) is None for a in actions.values()):
        return
    reasons = {vid: empty_task_reasons({}, a, opts.objects) for vid, a in actions.items()}  # the build report's rule
    skipped = {task: {vid: why[task] for vid, why in reasons.items()} for task in TASK_IDS}
    raise NothingToBuild("nothing to build: --objects none gives questions only to fap, which needs at least 4 "
                         "distinct action labels per recording, and no recording has them (every task's reason is "
                         "listed above)", skipped)


@dataclass(frozen=True)
class BuildOptions:
    seed: int = 0
    source: str = "world"  # raw layout: one of gaze.sources.registry.SOURCES
    objects: str = "oracle"  # object back-end: oracle (demo world) | metadata | vlm | none (no object names)
    metadata: str = ""  # metadata back-end: the official episode CSV (or a directory of them)
    vlm_url: str = ""  # vlm back-end: OpenAI-compatible base URL ...
    vlm_model: str = ""  # ... and model name
    vlm_api_key_env: str = ""  # ... and the environment variable holding its API key ("": none; never recorded)
    review: tuple[str, ...] = ()  # human-verification CSVs applied before QA generation
    fixations: str = "detector"  # detector (the paper's dispersion rule) | device (the glasses' own fixations)
    fixation: FixationParams = field(default_factory=FixationParams)
    tau_scene: float = DEFAULT_TAU_SCENE
    merge_gap: float = DEFAULT_MERGE_GAP
    cap_per_task: int = DEFAULT_CAP
    hfov_deg: float | None = None

    def to_dict(self) -> dict:
        """The options as recorded in the manifest (input files by name, not by local path)."""
        d = asdict(self)
        del d["vlm_api_key_env"]  # how the key is found locally changes nothing in the dataset
        d["metadata"] = Path(self.metadata).name if self.metadata else ""
        d["review"] = [Path(r).name for r in self.review]
        return d


def _as_ref(rec: RecordingRef | Path) -> RecordingRef:
    """A demo-world recording directory is accepted where a reference is expected."""
    return rec if isinstance(rec, RecordingRef) else RecordingRef(Path(rec).parent, "world", Path(rec).name)


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def recording_key(rec: Recording, opts: BuildOptions) -> str:
    """Hash of everything a recording's results depend on: the video bytes, the gaze track, the
    actions, the device's fixations and blinks, the object back-end's inputs, the options and the toolkit
    version."""
    h = hashlib.sha256(json.dumps([__version__, opts.to_dict()], sort_keys=True).encode())
    h.update(_file_digest(rec.video_path).encode())
    tr = rec.track
    h.update(json.dumps([rec.source, tr.width, tr.height, tr.fps, tr.hfov_deg]).encode())
    for arr in (tr.t, tr.x, tr.y, tr.valid):
        h.update(np.ascontiguousarray(arr).tobytes())
    h.update(json.dumps([[a.start, a.end, a.label] for a in rec.actions]).encode())
    if rec.device_fixations is not None:  # the dataset keeps them (recording_events), whichever fixations it uses
        h.update(json.dumps([f.to_dict() for f in rec.device_fixations]).encode())
    if rec.device_blinks is not None:
        h.update(json.dumps(rec.device_blinks).encode())
    inputs = [Path(p) for p in (opts.metadata, *opts.review) if p]
    if opts.objects == "oracle" and rec.directory is not None:
        inputs.append(rec.directory / "objects.json")
    for p in inputs:
        for f in sorted(p.rglob("*.csv")) if p.is_dir() else [p]:
            h.update(_file_digest(f).encode() if f.is_file() else b"missing")
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


def analyse_recording(rec: Recording | RecordingRef | Path, opts: BuildOptions) -> Analysis:
    """Fixations -> scene check -> FOV objects (the chosen back-end, then any human-verification
    corrections) -> scanpath, ready for QA generation."""
    if not isinstance(rec, Recording):
        rec = load(_as_ref(rec))
    video = rec.video_path
    info = probe_video(video)
    track = rec.track
    fixations = recording_fixations(rec, opts)
    scores = scene_scores(video, fixations)
    kept_idx = [i for i, s in enumerate(scores) if s >= opts.tau_scene]
    kept = [fixations[i] for i in kept_idx]
    backend = make_backend(opts)
    objects = backend.describe(rec.directory or video.parent, video, track, kept)
    if opts.review:
        from ...review import apply_corrections, load_corrections

        objects.per_fixation = apply_corrections(rec.video_id, kept, objects.per_fixation,
                                                 load_corrections(opts.review), fixation_indices=kept_idx)
    episodes = build_scanpath(kept, objects.per_fixation, opts.merge_gap, opts.fixation.r_thresh, track.aspect)
    ctx = VideoContext(rec.video_id, rec.source, info.duration, info.fps, track, kept, objects, episodes,
                       rec.actions, opts.fixation.r_thresh)
    return Analysis(info, track, fixations, scores, kept_idx, ctx)


FIXATION_SOURCES = ("detector", "device")


def recording_fixations(rec: Recording, opts: BuildOptions) -> list[Fixation]:
    """The fixations the pipeline starts from: our detector's (the paper's dispersion rule) or, with
    ``fixations="device"``, the glasses' own (Pupil Cloud fixations.csv, Neon's fixation stream) that last at
    least the minimum duration (τ_dur, as the detector's)."""
    if opts.fixations == "detector":
        return extract_fixations(rec.track, opts.fixation)
    if opts.fixations != "device":
        raise StreamGazeError(f"unknown fixation source {opts.fixations!r} ({', '.join(FIXATION_SOURCES)})")
    if rec.device_fixations is None:
        raise StreamGazeError(f"--fixations device: the {rec.source} recording {rec.video_id!r} has no fixations of "
                              "its own (Pupil Cloud fixations.csv, Neon's fixations stream)", rec.directory)
    return [f for f in rec.device_fixations if f.duration >= opts.fixation.min_duration - 1e-9]


def make_backend(opts: BuildOptions):
    """The object back-end the options name (see objects/). The VLM back-end's response cache
    lives outside the build's work directory ($STREAMGAZE_VLM_CACHE or ~/.cache/streamgaze/vlm), so
    rebuilds and resumed builds never pay for the same request twice."""
    if opts.objects == "oracle":
        return OracleBackend()
    if opts.objects == "none":
        from ...objects.none import NoObjectsBackend

        return NoObjectsBackend()
    if opts.objects == "metadata":
        from .episode_objects import MetadataBackend

        if not opts.metadata:
            raise StreamGazeError("the metadata object back-end needs --metadata CSV")
        return MetadataBackend(opts.metadata)
    if opts.objects == "vlm":
        from ...objects.vlm import VLMBackend, api_key_from_env

        if not (opts.vlm_url and opts.vlm_model):
            raise StreamGazeError("the vlm object back-end needs --vlm-url and --vlm-model")
        return VLMBackend(opts.vlm_url, opts.vlm_model, api_key=api_key_from_env(opts.vlm_api_key_env),
                          hfov_deg=opts.hfov_deg)
    raise StreamGazeError(f"unknown object back-end {opts.objects!r} (oracle, metadata, vlm, none)")


def process_recording(ref: RecordingRef | Path, work: Path, opts: BuildOptions) -> Path:
    """Run the pipeline on one recording; returns its finished work directory (reused if present)."""
    rec = load(_as_ref(ref))
    done = work / rec.video_id / recording_key(rec, opts)
    if (done / RESULT_FILE).is_file():
        return done
    out = done.with_name(f".{done.name}.{uuid.uuid4().hex[:12]}.tmp")  # renamed into place when complete
    out.mkdir(parents=True)
    try:
        _run_pipeline(rec, out, opts)
        try:
            out.rename(done)
        except OSError:  # another attempt (a retried task) finished first, or a partial attempt's leftovers
            if not (done / RESULT_FILE).is_file():
                shutil.rmtree(done, ignore_errors=True)
                out.rename(done)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return done


def _run_pipeline(rec: Recording, out: Path, opts: BuildOptions) -> None:
    """The pipeline's results of ``rec`` written into the directory ``out``."""
    a = analyse_recording(rec, opts)
    info, track, fixations, scores, kept_idx = a.info, a.track, a.fixations, a.scores, a.kept_idx
    objects, episodes = a.context.objects, a.context.episodes
    qa = generate_questions(a.context, opts.seed, opts.cap_per_task, names=opts.objects != "none")
    # Both stored videos are re-encoded without B-frames and with a keyframe at every window start,
    # so every evaluation window clip is a frame-exact packet copy (video/clips.py).
    starts = sorted({r["window_start"] for rows in qa.values() for r in rows if r["window_start"] > 0})
    # One pass: each source frame decoded once, encoded plain and with the gaze marks.
    hfov = opts.hfov_deg if opts.hfov_deg is not None else track.hfov_deg
    reencode_with_overlay(rec.video_path, track, out / "original.mp4", out / "overlay.mp4", hfov_deg=hfov,
                          keyframe_times=starts, progress=False)

    vid = rec.video_id
    episode_of = {fi: k for k, ep in enumerate(episodes) for fi in ep.fixations}
    fix_rows = []
    for i, (f, s) in enumerate(zip(fixations, scores)):
        j = kept_idx.index(i) if i in kept_idx else None
        o = objects.per_fixation[j] if j is not None else None
        fix_rows.append({
            "video_id": vid, "fixation_index": i, "start": f.start, "end": f.end, "x": f.x, "y": f.y,
            "n_samples": f.n_samples, "scene_score": float(s), "kept": j is not None,
            "episode_index": episode_of.get(j, -1) if j is not None else -1,
            "gazed_object": (o.gazed or "") if o else "", "fov_objects": list(o.fov) if o else [],
            "out_objects": list(o.out) if o else [],
        })
    samples = gaze_rows(vid, track, missing=None)  # null, not NaN: the result file is strict JSON
    video = video_row(vid, rec.source, info, video_path=f"videos/original/{vid}.mp4",
                      overlay_path=f"videos/overlay/{vid}.mp4", hfov_deg=hfov)
    skipped = empty_task_reasons(qa, rec.actions, opts.objects)  # every task this recording gives no question
    events = events_of_recording(rec.actions, rec.device_fixations, rec.device_blinks)  # the dataset keeps them
    result = {"video": video, "qa": qa, "fixations": fix_rows, "gaze": samples, "skipped": skipped, "events": events}
    write_text_atomic(out / RESULT_FILE, json.dumps(result, sort_keys=True))


def check_build_arguments(raw: Path, out: Path, version: str, opts: BuildOptions, workers: int | Workers = 1,
                          force: bool = False) -> None:
    """Every argument of a build, checked before any work starts (a wrong version string or back-end
    option must not surface after hours of processing): the destination and version, the raw
    directory and source, the worker count, the field of view and the object back-end's options."""
    from ...dataset import dataset_destination
    from ...gaze import source_module
    from ...util.preflight import existing_dir, in_range

    dataset_destination(out, version, force)
    source_module(opts.source)
    existing_dir(raw, f"raw directory (--source {opts.source})")
    in_range(opts.hfov_deg, "--hfov (degrees)", 0.0, 180.0, include_hi=False)
    if opts.objects == "oracle" and opts.source != "world":
        raise StreamGazeError(f"the oracle object back-end reads the demo world's objects.json; --source "
                              f"{opts.source} needs --objects metadata --metadata CSV or --objects vlm")
    if opts.vlm_api_key_env and opts.objects != "vlm":
        raise StreamGazeError(f"--vlm-api-key-env is the vlm object back-end's key; --objects {opts.objects} "
                              "calls no endpoint")
    if opts.objects == "vlm" and opts.vlm_url and not opts.vlm_url.lower().startswith(("http://", "https://")):
        raise StreamGazeError(f"--vlm-url must be an http(s) URL, got {opts.vlm_url!r}")
    if opts.fixations not in FIXATION_SOURCES:
        raise StreamGazeError(f"--fixations must be one of {', '.join(FIXATION_SOURCES)}, got {opts.fixations!r}")
    make_backend(opts)  # missing options, unreadable metadata CSV
    as_workers(workers).check()  # last: reaches the cluster with --executor ray


def _process_job(ref: RecordingRef, work: Path, opts: BuildOptions) -> tuple[str, bool]:
    """One recording's task: (its finished work directory, whether it was found done)."""
    before = set((work / ref.video_id).glob(f"*/{RESULT_FILE}"))
    d = process_recording(ref, work, opts)
    return str(d), d / RESULT_FILE in before


def process_all(recs: list[RecordingRef], work: Path, opts: BuildOptions, workers: Workers,
                vlm_gpus: float = 0.0) -> list[Path]:
    """Every recording's finished work directory, in ``recs``' order, on ``workers`` (one progress bar for all of
    them, wherever they run; each task asks a cluster for ``vlm_gpus`` GPUs besides its CPU and memory);
    :class:`~streamgaze_hf.dataset.RecordingsFailed` when some failed (after the others finished)."""
    import sys

    done = run_recordings(workers, _process_job, [(ref, work, opts) for ref in recs], [ref.video_id for ref in recs],
                          work, "the other {done} are done in the work directory; a re-run redoes only the failed ones",
                          gpus=vlm_gpus)
    reused = sum(1 for _, found in done if found)
    if reused:
        print(f"build: {reused} of {len(recs)} recordings were done already (work directory {work})", file=sys.stderr)
    return [Path(d) for d, _ in done]


def build_dataset(raw: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *, seed: int = 0,
                  workers: int | Workers = 1, force: bool = False, changelog: str = "",
                  options: BuildOptions | None = None,
                  keep_work: bool = False, proxy: ProxySpec | None = None, previews: bool = True,
                  vlm_gpus: float = 0.0) -> Path:
    """Build the dataset at ``out`` from the raw recordings in ``raw``: ``options`` choose the source
    layout, the object back-end and any human-verification corrections (see the module docstring).
    ``proxy``: also store a proxy of every video (video/proxy.py), built in the work directory.

    Args:
        raw: the raw recordings, in the native layout of ``options.source``.
        out: the dataset directory to write (atomically, at the end).
        version: the dataset version, ``X.Y.Z``.
        seed: the seed, when ``options`` is None (else ``options.seed`` is used).
        workers: processes, one recording each (also for the proxies and previews), or a
            :class:`~streamgaze_hf.util.executors.Workers` (a Ray cluster's tasks).
        force: replace a dataset of the same version at ``out``.
        changelog: this version's CHANGELOG entry ("" = a summary of the counts).
        options: the pipeline's options (:class:`BuildOptions`; None: the defaults with ``seed``).
        keep_work: keep the work directory ``.<out>.work`` beside ``out`` after a successful build.
        proxy: also store a proxy of every video (None: none).
        previews: also write the Hub viewer's ``previews`` config.
        vlm_gpus: GPUs each recording's task asks a Ray cluster for, when the VLM object back-end is served by a
            model on the node itself (0: none; ``--executor ray`` and ``--objects vlm`` only).

    Returns:
        ``out`` as a path.

    Raises:
        StreamGazeError: before any work: a bad destination or version, an unknown source, a missing raw
            directory, a bad worker count, field of view or object back-end option, or unreadable
            corrections; during the build: recordings that cannot be read
            (:class:`~streamgaze_hf.dataset.RecordingsFailed`, after
            the others finished), or content the dataset writer refuses (:func:`write_dataset`).
    """
    from ...dataset import DatasetContent, write_dataset

    raw, out = Path(raw), Path(out)
    opts = options or BuildOptions(seed=seed)
    workers = as_workers(workers)
    check_gpu_ask(vlm_gpus, workers, "--vlm-gpus", opts.objects == "vlm", "--objects vlm")
    check_build_arguments(raw, out, version, opts, workers, force)
    review_stats = None
    if opts.review:  # validate the corrections before any work starts
        from ...review import load_corrections, verification_stats

        review_stats = verification_stats(load_corrections(opts.review))["overall"]
    recs = find_recordings(raw, opts.source)
    check_objects_none(recs, opts)
    work = out.parent / f".{out.name}.work"
    done = process_all(recs, work, opts, workers, vlm_gpus)
    content = DatasetContent(qa={t: [] for t in TASK_IDS}, videos=[], gaze=[], fixations=[], files={})
    skipped: dict[str, dict[str, str]] = {}
    events: dict[str, dict] = {}
    for d in done:
        res = json.loads((d / RESULT_FILE).read_text(encoding="utf-8"))
        if "events" not in res:  # a work directory of a build before the dataset kept them: read them again
            rec = load(next(r for r in recs if r.video_id == res["video"]["video_id"]))
            res["events"] = events_of_recording(rec.actions, rec.device_fixations, rec.device_blinks)
        events[res["video"]["video_id"]] = res["events"]
        for task, reason in res.get("skipped", {}).items():
            skipped.setdefault(task, {})[res["video"]["video_id"]] = reason
        for task, rows in res["qa"].items():
            content.qa[task].extend(rows)
        content.videos.append(res["video"])
        content.fixations.extend(res["fixations"])
        content.gaze.extend({**g, "x": math.nan if g["x"] is None else g["x"],
                             "y": math.nan if g["y"] is None else g["y"]} for g in res["gaze"])
        content.files[res["video"]["video_path"]] = d / "original.mp4"
        content.files[res["video"]["overlay_path"]] = d / "overlay.mp4"
    events_text = events_json(events)
    if events_text is not None:  # the recordings' actions, device fixations and blinks (dataset/recording_events.py)
        write_text_atomic(work / EVENTS_FILE, events_text)
        content.files[EVENTS_FILE] = work / EVENTS_FILE
    if proxy is not None:
        from ...dataset import build_proxies

        where = {}
        for d in done:
            res = json.loads((d / RESULT_FILE).read_text(encoding="utf-8"))["video"]
            where[res["video_path"]] = d / f"proxy-{proxy.name}" / "original.mp4"
            where[res["overlay_path"]] = d / f"proxy-{proxy.name}" / "overlay.mp4"
        content.files.update(build_proxies(content.files, proxy, where, workers=workers))
    if not any(content.qa.values()):
        raise NothingToBuild("nothing to write: no recording gave a question to any task (every task's reason is "
                             "listed above)", skipped)
    build_info = {"road": "raw-pipeline", "raw_dir": raw.name, "source": opts.source,
                  "object_backend": opts.objects, "options": opts.to_dict(),
                  "inputs": {ref.video_id: d.name for ref, d in zip(recs, done)}}
    build_info["skipped_tasks"] = skipped  # task -> {video_id: why that recording gives the task no question}
    if proxy is not None:
        build_info["proxy"] = proxy.as_dict()
    if review_stats is not None:
        build_info["human_verification"] = review_stats
    root = write_dataset(out, content, version, build_info, force=force, changelog=changelog, previews=previews,
                         workers=workers, benchmark=BENCHMARK)
    if not keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return root

