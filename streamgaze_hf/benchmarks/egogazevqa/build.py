"""``streamgaze build egogazevqa``: raw recordings -> narrations -> groups of nine
keyframes with gaze -> QA generation per category by a VLM -> answer validation -> our EgoGazeVQA
dataset (the layout the release importer writes) -> human-verification pages (``streamgaze review
export``).

Raw input: one raw directory read by a gaze-source reader of ``gaze/sources`` (``ego4d`` with its
``narration.json``, ``egtea`` with ``action_labels.csv``, ``egoexo4d_2d`` with its keysteps, or the
demo ``world`` with its ``actions.json``). The reader's action timeline is the narration list.

Keyframe rule (the paper's §3 "QA pairs generation", following the official converter, which takes
``ceil(end_time * fps)`` for an Ego-Exo4D keystep):

1. every narration gives one keyframe: the first video frame at or after the narration's end
   (``ceil(end * fps)``, clamped to the last frame; a point narration, as in Ego4D, ends where it starts);
2. its gaze is the latest gaze sample at or before the frame's time, at most ``max_gaze_age`` seconds
   old (0.2 s by default), and it must be valid; a narration whose keyframe has no such sample, or whose
   frame is already another narration's keyframe, is skipped;
3. the keyframes, in time order, are cut into consecutive groups of nine (``[0..8], [9..17], ...``); a
   last group of fewer than nine is dropped;
4. per video at most ``groups_per_video`` groups are kept, the first ones (default: the paper's "up to
   three QA sets" for Ego4D and Ego-Exo4D, one for EGTEA Gaze+ whose narrations are sparser; three for
   the demo world);
5. every kept group gets one question per category (spatial, temporal, causal).

QA generation: for each group and category one chat-completion request through the OpenAI-compatible
VLM back-end (``objects/vlm.py``) with the nine keyframes (JPEG, longer side at most 1024 px) and
the paper's category prompt (``generation.py``). Answers must be strict JSON (re-asked with the
reason otherwise, failed requests retried, ``max_retries`` times); every accepted answer is cached
(``$STREAMGAZE_VLM_CACHE``, keyed by model, prompt and image bytes), so a second run, or a run
resumed after a crash, sends no request that was already answered.

Answer validation: five different options and one letter A-E (``generation.validate_generated``),
then the dataset rules (``schema.validate_row``).

Output: the configs ``spatial``, ``temporal``, ``causal`` (``schema.QA_FEATURES``, one row per
question, the keyframes stored under ``frames/<source>/<video_id>/<frame:06d>.jpg`` with their gaze
and narration), ``videos`` (one row per recording, no video file) and ``gaze`` (every sample of the
recordings' tracks), written by the shared writer: deterministic (same inputs, options and answers ->
byte-identical parquet files) and atomic. The EgoGazeVQA evaluation loads it as it loads an imported
release.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ...dataset import LETTERS, dump_metadata, gaze_rows, run_recordings, video_row
from ...gaze import Recording
from ...util.errors import StreamGazeError
from ...util.executors import Workers, as_workers, check_gpu_ask
from ...util.fsutil import atomic_output
from . import BENCHMARK, CATEGORIES, GROUP_SIZE, NAME
from .generation import generation_prompt, stage, validate_generated
from .release import EGTEA_CONTEXT
from .schema import validate_row

__all__ = ["EgoBuildOptions", "Keyframe", "select_keyframes", "frame_groups", "build_dataset", "build_egogazevqa", "RAW_SOURCES"]

ROAD = "egogazevqa-raw"
#: reader key -> our ``source`` value (EgoGazeVQA's sources, plus the demo world)
RAW_SOURCES: dict[str, str] = {"ego4d": "ego4d", "egtea": "egtea", "egoexo4d_2d": "egoexo4d", "world": "world"}
#: the paper's QA sets per video (EGTEA Gaze+: one; its narrations are sparser)
DEFAULT_GROUPS = {"ego4d": 3, "egoexo4d_2d": 3, "egtea": 1, "world": 3}
DEFAULT_MAX_GAZE_AGE = 0.2
JPEG_QUALITY = 95


@dataclass(frozen=True)
class EgoBuildOptions:
    """Options of a raw EgoGazeVQA build (recorded in the manifest)."""

    source: str = "world"
    vlm_url: str = ""
    vlm_model: str = ""
    vlm_api_key_env: str = ""  # the environment variable holding the endpoint's API key ("": none; never recorded)
    groups_per_video: int | None = None  # None: DEFAULT_GROUPS[source]
    max_gaze_age: float = DEFAULT_MAX_GAZE_AGE
    max_retries: int = 3
    review: tuple[str, ...] = ()  # human-verification CSVs (review export) applied to the questions

    def groups(self) -> int:
        return self.groups_per_video if self.groups_per_video is not None else DEFAULT_GROUPS[self.source]

    def to_dict(self) -> dict:
        d = asdict(self)
        del d["vlm_api_key_env"]  # how the key is found locally changes nothing in the dataset
        d["vlm_url"] = "set" if self.vlm_url else ""  # no local endpoint in the manifest
        d["groups_per_video"] = self.groups()
        d["review"] = [Path(r).name for r in self.review]
        return d


@dataclass(frozen=True)
class Keyframe:
    """One narration's keyframe: frame index and time in the video, gaze there, the narration text."""

    frame: int
    time: float
    gaze_x: float
    gaze_y: float
    caption: str


@dataclass
class _Counts:
    narrations: int = 0
    no_gaze: int = 0
    same_frame: int = 0
    keyframes: int = 0
    groups: int = 0
    groups_dropped: int = 0
    invalid: int = 0
    rejected: int = 0
    per_video: dict = field(default_factory=dict)


def select_keyframes(rec: Recording, frame_times: np.ndarray, fps: float,
                     max_gaze_age: float = DEFAULT_MAX_GAZE_AGE, counts: _Counts | None = None) -> list[Keyframe]:
    """Steps 1-2 of the keyframe rule (module docstring): one keyframe per narration, in time order."""
    counts = counts if counts is not None else _Counts()
    n = len(frame_times)
    out: list[Keyframe] = []
    used: set[int] = set()
    track = rec.track
    for a in sorted(rec.actions, key=lambda a: (a.end, a.start, a.label)):
        counts.narrations += 1
        frame = min(max(int(math.ceil(a.end * fps - 1e-6)), 0), n - 1)
        t = float(frame_times[frame])
        k = int(track.index_at(t, max_gaze_age)[0])
        if k < 0 or not track.valid[k]:
            counts.no_gaze += 1
            continue
        if frame in used:
            counts.same_frame += 1
            continue
        used.add(frame)
        out.append(Keyframe(frame, t, float(track.x[k]), float(track.y[k]), a.label))
    out.sort(key=lambda f: f.frame)
    counts.keyframes += len(out)
    return out


def frame_groups(keyframes: list[Keyframe], max_groups: int) -> list[list[Keyframe]]:
    """Steps 3-4: consecutive groups of nine, the first ``max_groups`` of them."""
    full = [keyframes[i:i + GROUP_SIZE] for i in range(0, len(keyframes) - GROUP_SIZE + 1, GROUP_SIZE)]
    return full[:max_groups]


@dataclass(frozen=True)
class _Where:
    """Where a generation request belongs, for error messages (the VLM back-end's ``where``)."""

    video: Path
    group: int
    category: str

    @property
    def stage(self) -> str:
        return stage(self.category)

    def describe(self) -> str:
        return f"group {self.group}, {self.category} question request"


def _question_id(category: str, source: str, video_id: str, frames: list[int]) -> str:
    key = json.dumps([NAME, "raw", category, source, video_id, frames])
    return f"egogazevqa-{category}-{source}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def check_build_arguments(raw: Path, out: Path, version: str, opts: EgoBuildOptions, force: bool = False) -> None:
    """Every argument, checked before any work (destination, version, source, VLM options)."""
    from ...dataset import dataset_destination
    from ...gaze import source_module
    from ...util.preflight import existing_dir, positive

    dataset_destination(out, version, force)
    if opts.source not in RAW_SOURCES:
        raise StreamGazeError(f"--source {opts.source} has no EgoGazeVQA build; EgoGazeVQA sources: "
                              f"{', '.join(RAW_SOURCES)}")
    source_module(opts.source)
    existing_dir(raw, f"raw directory (--source {opts.source})")
    if not (opts.vlm_url and opts.vlm_model):
        raise StreamGazeError("the EgoGazeVQA build generates its questions with a VLM: give --vlm-url URL and "
                              "--vlm-model NAME (an OpenAI-compatible endpoint)")
    if not opts.vlm_url.lower().startswith(("http://", "https://")):
        raise StreamGazeError(f"--vlm-url must be an http(s) URL, got {opts.vlm_url!r}")
    positive(opts.groups(), "--groups-per-video", integer=True)
    from ...objects.vlm import api_key_from_env

    api_key_from_env(opts.vlm_api_key_env)  # set, and a variable's name
    positive(opts.max_gaze_age, "max gaze age (seconds)")


def _recording_qa(ref, work: Path, opts: EgoBuildOptions, rejected: frozenset[str]) -> dict:
    """One recording's task (module docstring, steps 1-5 and the generation): its questions per category, its
    ``videos`` and ``gaze`` rows, its keyframe files (written into ``work``) and its counts. Only paths and rows
    come back: the frames stay on storage."""
    from ...gaze import load
    from ...objects.vlm import VLMBackend, api_key_from_env
    from ...video import probe_video, read_frames_at

    backend = VLMBackend(opts.vlm_url, opts.vlm_model, api_key=api_key_from_env(opts.vlm_api_key_env),
                         max_retries=opts.max_retries)
    source = RAW_SOURCES[opts.source]
    counts = _Counts()
    qa: dict[str, list[dict]] = {c: [] for c in CATEGORIES}
    files: dict[str, str] = {}
    rec = load(ref)
    info = probe_video(rec.video_path)
    keyframes = select_keyframes(rec, info.frame_times, info.fps, opts.max_gaze_age, counts)
    groups = frame_groups(keyframes, opts.groups())
    counts.groups += len(groups)
    counts.groups_dropped += max(0, len(keyframes) // GROUP_SIZE - len(groups))
    counts.per_video[rec.video_id] = {"narrations": len(rec.actions), "keyframes": len(keyframes),
                                      "groups": len(groups)}
    context = _context(opts.source, rec)
    for g, group in enumerate(groups):
        images = read_frames_at(rec.video_path, [k.time for k in group])
        sent = [backend.encode(img) for _, img in images]
        rels = []
        for k, (_, img) in zip(group, images):
            rel = f"frames/{source}/{rec.video_id}/{k.frame:06d}.jpg"
            dest = work / rel
            if not dest.is_file():
                ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
                if not ok:
                    raise StreamGazeError(f"cannot encode keyframe {k.frame} as JPEG", rec.video_path)
                with atomic_output(dest) as tmp:  # a task retried elsewhere never meets half a file
                    tmp.write_bytes(buf.tobytes())
            files[rel] = str(dest)
            rels.append(rel)
        captions = [k.caption for k in group]
        points = [(k.gaze_x, k.gaze_y) for k in group]
        for cat in CATEGORIES:
            answer = backend.ask(generation_prompt(cat, captions, points), sent,
                                 _Where(rec.video_path, g, cat), validate_generated)
            row = _row(cat, source, rec, group, rels, answer, info, context, g, opts)
            if validate_row(row, info.duration):
                counts.invalid += 1
            elif row["question_id"] in rejected:
                counts.rejected += 1
            else:
                qa[cat].append(row)
    return {"qa": qa, "video": video_row(rec.video_id, source, info), "gaze": gaze_rows(rec.video_id, rec.track),
            "files": files, "counts": asdict(counts)}


def build_dataset(raw: str | os.PathLike[str], out: str | os.PathLike[str], version: str, *,
                  options: EgoBuildOptions | None = None, force: bool = False, changelog: str = "",
                  keep_work: bool = False, progress: bool = True, previews: bool = True,
                  workers: int | Workers = 1, vlm_gpus: float = 0.0) -> Path:
    """Build the EgoGazeVQA dataset at ``out`` from the raw recordings in ``raw`` (module docstring).
    ``workers``: processes, one recording each (also for the previews), or a
    :class:`~streamgaze_hf.util.executors.Workers` (a Ray cluster's tasks); ``vlm_gpus``: GPUs each recording's
    task asks a Ray cluster for, when the VLM is a model served on the node itself."""
    from ...dataset import DatasetContent, write_dataset
    from ...gaze import find_recordings

    raw, out = Path(raw), Path(out)
    opts = options or EgoBuildOptions()
    workers = as_workers(workers)
    check_gpu_ask(vlm_gpus, workers, "--vlm-gpus")
    check_build_arguments(raw, out, version, opts, force)
    rejected: frozenset[str] = frozenset()
    review_stats = None
    if opts.review:  # validate the verification CSVs before any work starts
        from ...review.qa_review import load_qa_verdicts, qa_verdict_stats

        verdicts = load_qa_verdicts(opts.review)
        rejected, review_stats = frozenset(verdicts.rejected), qa_verdict_stats(verdicts)
    workers.check()  # last: reaches the cluster with --executor ray
    refs = find_recordings(raw, opts.source)
    work = out.parent / f".{out.name}.work"
    counts = _Counts()
    qa: dict[str, list[dict]] = {c: [] for c in CATEGORIES}
    videos: list[dict] = []
    gaze: list[dict] = []
    files: dict[str, Path] = {}
    try:
        done = run_recordings(workers, _recording_qa, [(ref, work, opts, rejected) for ref in refs],
                              [ref.video_id for ref in refs], work,
                              "a re-run asks the VLM nothing it answered before: its answers are cached",
                              desc="egogazevqa build", progress=progress, gpus=vlm_gpus)
        for res in done:  # in the recordings' order, wherever they ran
            for cat in CATEGORIES:
                qa[cat].extend(res["qa"][cat])
            videos.append(res["video"])
            gaze.extend(res["gaze"])
            files.update({rel: Path(p) for rel, p in res["files"].items()})
            for name, value in res["counts"].items():
                if name == "per_video":
                    counts.per_video.update(value)
                else:
                    setattr(counts, name, getattr(counts, name) + value)
        if not any(qa.values()):
            raise StreamGazeError(
                f"no question generated: {counts.keyframes} keyframes from {counts.narrations} narrations "
                f"({counts.no_gaze} without valid gaze) make no group of {GROUP_SIZE}", raw)
        used = {r["video_id"] for rows in qa.values() for r in rows}
        videos = [v for v in videos if v["video_id"] in used]
        gaze = [s for s in gaze if s["video_id"] in used]
        content = DatasetContent(qa=qa, videos=videos, gaze=gaze, fixations=[], files=files)
        report = {k: v for k, v in asdict(counts).items() if k != "per_video"}
        report["questions"] = {c: len(qa[c]) for c in CATEGORIES}
        build_info = {"road": ROAD, "raw_dir": raw.name, "source": opts.source, "options": opts.to_dict(),
                      "vlm_model": opts.vlm_model, "report": report, "inputs": counts.per_video}
        if review_stats is not None:
            build_info["human_verification"] = review_stats
        entry = changelog or (f"Built from raw {opts.source} recordings ({raw.name}); questions generated by "
                              f"{opts.vlm_model}.")
        root = write_dataset(out, content, version, build_info, force=force, changelog=entry, progress=progress,
                             benchmark=BENCHMARK, previews=previews, workers=workers)
    finally:
        if not keep_work:
            shutil.rmtree(work, ignore_errors=True)
    return root


def _context(source_key: str, rec: Recording) -> dict[str, str]:
    if source_key == "egtea":
        return dict(EGTEA_CONTEXT)
    return {"scenario": rec.scenario, "activity": ""}


def _row(cat: str, source: str, rec: Recording, group: list, rels: list[str], answer, info, context: dict,
         g: int, opts: EgoBuildOptions) -> dict:
    frames = [{"path": rel, "frame": k.frame, "time": k.time, "gaze_x": k.gaze_x, "gaze_y": k.gaze_y,
               "gaze_valid": True, "caption": k.caption} for k, rel in zip(group, rels)]
    options = list(answer.options)
    meta = {"road": ROAD, "group_index": g, "keyframes": [k.frame for k in group], "vlm_model": opts.vlm_model}
    return {
        "question_id": _question_id(cat, source, rec.video_id, [k.frame for k in group]), "task": cat,
        "category": cat, "video_id": rec.video_id, "source": source, "scenario": context.get("scenario", ""),
        "activity": context.get("activity", ""), "video_path": "", "question": answer.question, "options": options,
        "answer": answer.answer, "answer_text": options[LETTERS.index(answer.answer)], "frames": frames,
        "window_start": group[0].time, "window_end": group[-1].time, "width": int(info.width),
        "height": int(info.height), "metadata": dump_metadata(meta),
    }


#: the name this function had before the registry derived importer names from the package (importer kind ``raw``)
build_egogazevqa = build_dataset
