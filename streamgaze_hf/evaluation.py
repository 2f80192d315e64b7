"""Evaluation documents: what an evaluation harness shows a model and how its answer is scored.

Harness-agnostic (the lmms-eval plugin in ``lmms_tasks/`` is thin glue over this module):
- :func:`load_docs` turns a task's dataset rows into evaluation documents; proactive questions are
  expanded into one document per checkpoint whose window is [0, r];
- :func:`doc_visuals` prepares exactly the document's window as a clip (no frame after the window
  end, none before its start) — for every model, never left to model wrappers (reference bug 3);
- :func:`doc_prompt` / :func:`score_doc` build the prompt and score a response with the shared parser.

Run settings come from the environment so that every rank of a distributed run agrees:
``STREAMGAZE_ROOT`` (dataset root), ``STREAMGAZE_PROMPT_MODE`` (``default`` or ``reference``),
``STREAMGAZE_CLIP_FPS`` (frame-rate cap of the clips), ``STREAMGAZE_PROTOCOL`` (frame sampling of a
model family's official wrapper, see ``protocols``), ``STREAMGAZE_PROXY`` (clip the dataset's proxy
videos instead of the full-rate ones; recorded in every document and sample record, like ``clip_fps``),
``STREAMGAZE_CLIP_CACHE`` (clip cache dir).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import prompts, scoring
from .dataset.load import data_file, load_task, resolve_root
from .errors import StreamGazeError
from .fsutil import atomic_output
from .gaze.salience import salience_heatmap, track_salience_map
from .gaze.track import GazeTrack
from .protocols import current_protocol, get_protocol
from .provenance import toolkit_commit, toolkit_version
from .tasks import get_task

#: task-name suffix -> gaze-input mode (paper Table 3); "" is the paper's main setting
GAZE_VARIANTS: dict[str, str] = {"": "visual", "_nogaze": "none", "_textgaze": "text", "_salience": "salience"}
#: task-name suffix -> reasoning variant (paper Table 4, prompts of Figs. 19-21), on the visual gaze setting
REASONING_VARIANTS: dict[str, str] = {"_cot_text": "text", "_cot_gaze": "gaze", "_cot_visual": "visual"}
PROMPT_MODE_ENV = "STREAMGAZE_PROMPT_MODE"
CLIP_FPS_ENV = "STREAMGAZE_CLIP_FPS"
PROXY_ENV = "STREAMGAZE_PROXY"


def prompt_mode() -> str:
    mode = os.environ.get(PROMPT_MODE_ENV, "default")
    if mode not in prompts.PROMPT_MODES:
        raise StreamGazeError(f"${PROMPT_MODE_ENV}={mode!r}; expected one of {', '.join(prompts.PROMPT_MODES)}")
    return mode


def clip_fps() -> float | None:
    raw = os.environ.get(CLIP_FPS_ENV, "").strip()
    if not raw:
        return None
    try:
        fps = float(raw)
    except ValueError:
        raise StreamGazeError(f"${CLIP_FPS_ENV}={raw!r} is not a number") from None
    if not fps > 0:
        raise StreamGazeError(f"${CLIP_FPS_ENV} must be > 0, got {raw}")
    return fps


def run_settings(root: str | os.PathLike[str] | None = None) -> dict:
    """The settings of this process's evaluation that change a number (validated), and the toolkit
    that ran it; with ``root`` also the proxy videos it clips (``proxy_setting``)."""
    settings = {"prompt_mode": prompt_mode(), "protocol": current_protocol().name, "clip_fps": clip_fps() or 0.0,
                "toolkit_version": toolkit_version(), "toolkit_commit": toolkit_commit()}
    if root is not None:
        settings["proxy"] = proxy_setting(Path(root))
    return settings


def proxy_setting(root: Path) -> str:
    """The proxy videos the evaluation clips (``$STREAMGAZE_PROXY``): "" (off, the default: full-rate
    clips), a proxy name such as ``2fps-448px``, or ``auto`` (the dataset's only proxy kind). The named
    proxies must exist in the dataset (built with ``--proxy-fps`` / ``--proxy-size``)."""
    from .video.proxy import PROXY_DIR, ProxySpec

    raw = os.environ.get(PROXY_ENV, "").strip()
    if raw.lower() in ("", "0", "off", "none", "no"):
        return ""
    base = root / PROXY_DIR
    available = sorted(d.name for d in base.iterdir() if d.is_dir()) if base.is_dir() else []
    if raw.lower() in ("auto", "1", "on", "yes"):
        if len(available) != 1:
            raise StreamGazeError(f"${PROXY_ENV}={raw}: the dataset has {len(available)} proxy kinds "
                                  f"({', '.join(available) or 'none: build it with --proxy-fps/--proxy-size'}); "
                                  "name one", root)
        return available[0]
    name = ProxySpec.parse(raw).name
    if name not in available:
        raise StreamGazeError(f"${PROXY_ENV}={raw}: the dataset has no {name} proxies (it has: "
                              f"{', '.join(available) or 'none; build it with --proxy-fps/--proxy-size'})", root)
    return name


def task_name(task_id: str, gaze: str = "visual") -> str:
    suffix = {v: k for k, v in GAZE_VARIANTS.items()}[gaze]
    return f"{get_task(task_id).lmms_name}{suffix}"


# ---- documents -------------------------------------------------------------------------------------

def video_geometry(root: Path) -> dict[str, dict]:
    """video_id -> {video_id, width, height, fps} of every video of the dataset at ``root``."""
    import pyarrow.parquet as pq

    table = pq.read_table(data_file(root, "videos"), columns=["video_id", "width", "height", "fps"])
    return {r["video_id"]: r for r in table.to_pylist()}


def gaze_tracks(root: Path, video_ids: set[str], geometry: dict[str, dict]) -> dict[str, GazeTrack]:
    """The gaze samples of the given videos (empty when the dataset has none, e.g. the release)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = data_file(root, "gaze")
    if not path.is_file() or not video_ids:
        return {}
    table = pq.read_table(path, filters=[("video_id", "in", sorted(video_ids))])
    tracks = {}
    for vid in sorted(video_ids):
        part = table.filter(pc.equal(table["video_id"], vid))
        if part.num_rows == 0:
            continue
        g = geometry[vid]
        tracks[vid] = GazeTrack(part["t"].to_numpy(), part["x"].to_numpy(zero_copy_only=False),
                                part["y"].to_numpy(zero_copy_only=False),
                                part["valid"].to_numpy(zero_copy_only=False), g["width"], g["height"], g["fps"])
    return tracks


def video_gaze_track(root: Path, video_id: str, width: int, height: int) -> GazeTrack | None:
    """One video's gaze samples (None without any), read once per dataset version and video.

    Memoised (the last few videos) on the gaze file's path, size and mtime, so the salience variant
    reads a video's gaze once, not once per document."""
    path = data_file(root, "gaze")
    try:
        st = path.stat()
    except OSError:
        return None
    return _video_gaze_track(str(path.resolve()), st.st_size, st.st_mtime_ns, str(root), video_id, int(width),
                             int(height))


@lru_cache(maxsize=8)
def _video_gaze_track(_path: str, _size: int, _mtime_ns: int, root: str, video_id: str, width: int,
                      height: int) -> GazeTrack | None:
    geometry = {video_id: {"width": width, "height": height, "fps": 30.0}}
    return gaze_tracks(Path(root), {video_id}, geometry).get(video_id)


def clip_fixations(fixations: list[dict], end: float, track: GazeTrack | None) -> list[dict]:
    """The fixation list as known at time ``end``: later fixations dropped; one still running at
    ``end`` is cut there and its centroid recomputed from the samples up to ``end`` (dropped when
    no gaze samples are available: never a position from after ``end``)."""
    out = []
    for f in fixations:
        if f["start"] > end:
            continue
        if f["end"] <= end:
            out.append(dict(f))
            continue
        if track is None:
            continue
        part = track.between(f["start"], end)
        ok = part.in_frame
        if ok.any():
            out.append({"start": f["start"], "end": round(end, 3), "x": round(float(np.mean(part.x[ok])), 4),
                        "y": round(float(np.mean(part.y[ok])), 4)})
    return out


#: the gaze modes whose prompt or visuals use the window's fixations (the others' documents carry none)
FIXATION_VARIANTS = ("text", "salience")


def load_docs(task_id: str, gaze: str = "visual", root: str | os.PathLike[str] | None = None,
              reasoning: str = "") -> list[dict]:
    """Evaluation documents of one task (see the module docstring); ``reasoning`` ("" or one of
    ``prompts.REASONING_MODES``) selects a reasoning variant's prompts and answer extraction."""
    spec = get_task(task_id)
    if reasoning and reasoning not in prompts.REASONING_MODES:
        raise StreamGazeError(f"unknown reasoning mode {reasoning!r}; expected one of "
                              f"{', '.join(prompts.REASONING_MODES)}")
    if gaze not in GAZE_VARIANTS.values():
        raise StreamGazeError(f"unknown gaze mode {gaze!r}; expected one of {', '.join(GAZE_VARIANTS.values())}")
    root_path = resolve_root(root)
    rows = [dict(r) for r in load_task(task_id, root_path)]
    check_variant(task_id, gaze, rows, root_path)
    geometry = video_geometry(root_path)
    settings = {"dataset_root": str(root_path), "gaze": gaze, "prompt_mode": prompt_mode(),
                "clip_fps": clip_fps() or 0.0, "protocol": current_protocol().name,
                "proxy": proxy_setting(root_path)}
    if reasoning:
        settings["reasoning"] = reasoning
    tracks = {}
    if spec.is_proactive and gaze in FIXATION_VARIANTS:  # clip_fixations at every checkpoint
        tracks = gaze_tracks(root_path, {r["video_id"] for r in rows}, geometry)
    # Only the text and salience variants read a document's fixations; the others carry none, which
    # keeps the documents lmms-eval holds (and logs with --log_samples) small: a past question over a
    # long video has hundreds of fixations, a proactive one that many per checkpoint.
    uses_fixations = gaze in FIXATION_VARIANTS
    docs = []
    for row in rows:
        g = geometry.get(row["video_id"], {})
        base = {**row, **settings, "frame_width": int(g.get("width", 0)), "frame_height": int(g.get("height", 0)),
                "checkpoint_index": -1, "checkpoint_time": math.nan, "checkpoint_label": ""}
        if not uses_fixations:
            base["fixations"] = []
        if not spec.is_proactive:
            docs.append(base)
            continue
        for i, cp in enumerate(row["checkpoints"]):
            fixations = (clip_fixations(row["fixations"], cp["time"], tracks.get(row["video_id"]))
                         if uses_fixations else [])
            docs.append({**base, "window_end": cp["time"], "checkpoint_index": i, "checkpoint_time": cp["time"],
                         "checkpoint_label": cp["label"], "fixations": fixations})
    return docs


def check_variant(task_id: str, gaze: str, rows: list[dict], root: Path) -> None:
    """One clear error when the dataset cannot serve this gaze variant (dataset/variants.py): no overlay
    video for the visual setting, no gaze at all for the text and salience settings."""
    from .dataset.variants import has_gaze

    name = task_name(task_id, gaze)
    if gaze == "visual":
        missing = sorted({r["video_id"] for r in rows if not r["overlay_path"]})
        if missing:
            raise StreamGazeError(f"{name}: {len(missing)} video(s) of this task have no gaze-overlay video (e.g. "
                                  f"{missing[0]}; a release imported without viz videos and without fixation "
                                  f"centres): run {task_name(task_id, 'none')} instead", root)
    elif gaze in ("text", "salience") and not has_gaze(root):
        raise StreamGazeError(f"{name}: this dataset has no gaze (no gaze samples, no fixation centres), so the "
                              f"{gaze} gaze variant would show none: run {task_name(task_id, 'visual')} or "
                              f"{task_name(task_id, 'none')} instead", root)


def doc_window(doc: dict) -> tuple[float, float]:
    return float(doc["window_start"]), float(doc["window_end"])


# ---- what the model sees ---------------------------------------------------------------------------

def doc_clip_spec(doc: dict) -> tuple[Path, float, float, float | None]:
    """(video file, window start, window end, fps cap) of the document's clip: the overlay video in
    visual mode, the original video in the other modes."""
    rel = doc["overlay_path"] if doc["gaze"] == "visual" else doc["video_path"]
    if doc.get("proxy"):
        from .video.proxy import proxy_rel_path

        rel = proxy_rel_path(rel, doc["proxy"])
    start, end = doc_window(doc)
    return Path(doc["dataset_root"]) / rel, start, end, doc_fps_cap(doc)


def doc_visuals(doc: dict, cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Local files for the model: the window clip of the overlay video (visual mode) or of the
    original video (other modes), preceded by the window's salience map image in salience mode."""
    from .video.clips import clip_cache_dir, prepare_clip

    clip = prepare_clip(*doc_clip_spec(doc), cache_dir=cache_dir)
    visuals = [str(clip)]
    if doc["gaze"] == "salience":
        visuals.insert(0, str(salience_image(doc, Path(cache_dir) if cache_dir else clip_cache_dir())))
    return visuals


def doc_fps_cap(doc: dict) -> float | None:
    """The frame-rate cap of the document's clip: the lower of ``clip_fps`` and the protocol's."""
    start, end = doc_window(doc)
    caps = [c for c in (doc["clip_fps"] or None, get_protocol(doc.get("protocol", "default")).fps_cap(end - start))
            if c]
    return min(caps) if caps else None


def salience_image(doc: dict, cache_dir: Path) -> Path:
    """PNG heat map of the gaze in the document's window (EgoGazeVQA Algorithm 1), cached."""
    import cv2

    root = Path(doc["dataset_root"])
    start, end = doc_window(doc)
    key = hashlib.sha256(json.dumps([str(root), doc["video_id"], start, end, "salience-v1"]).encode()).hexdigest()
    out = cache_dir / "salience" / f"{key[:32]}.png"
    if out.is_file():
        return out
    width, height = doc["frame_width"], doc["frame_height"]
    track = video_gaze_track(root, doc["video_id"], width, height)
    if track is not None:
        sal = track_salience_map(track, start, end)
    else:  # no gaze samples (e.g. the official release): the fixation centroids in the window
        from .gaze.salience import salience_map

        pts = np.array([[f["x"] * width, f["y"] * height] for f in doc["fixations"]]).reshape(-1, 2)
        sal = salience_map(pts, width, height)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(out) as tmp:
        cv2.imwrite(str(tmp), salience_heatmap(sal))
    return out


def doc_prompt(doc: dict) -> str:
    size = (doc["frame_width"], doc["frame_height"])
    if doc.get("reasoning"):
        if get_task(doc["task"]).is_proactive:
            return prompts.checkpoint_reasoning_prompt(doc["reasoning"], doc["task"], doc, gaze=doc["gaze"],
                                                       mode=doc["prompt_mode"], fixations=doc["fixations"],
                                                       frame_size=size)
        return prompts.mc_reasoning_prompt(doc["reasoning"], doc["question"], doc["options"], gaze=doc["gaze"],
                                           mode=doc["prompt_mode"], fixations=doc["fixations"], frame_size=size)
    if get_task(doc["task"]).is_proactive:
        return prompts.checkpoint_prompt(doc["task"], doc, gaze=doc["gaze"], mode=doc["prompt_mode"],
                                         fixations=doc["fixations"], frame_size=size)
    return prompts.mc_prompt(doc["question"], doc["options"], gaze=doc["gaze"], mode=doc["prompt_mode"],
                             fixations=doc["fixations"], frame_size=size)


def doc_target(doc: dict) -> str:
    return doc["checkpoint_label"] if get_task(doc["task"]).is_proactive else doc["answer"]


# ---- scoring ---------------------------------------------------------------------------------------

def score_doc(doc: dict, response: str) -> dict:
    """The per-sample record (what samples files and submissions carry): ids, raw response, parsed
    answer, correctness, the settings that change a number, and the toolkit that scored it
    (``toolkit_version``, ``toolkit_commit``: lmms-eval's own "branch / commit" fields describe the
    directory it was started in, not lmms-eval)."""
    response = response or ""
    rec = {"question_id": doc["question_id"], "task": doc["task"], "video_id": doc["video_id"],
           "source": doc.get("source", ""), "checkpoint_index": int(doc["checkpoint_index"]), "response": response,
           "gaze": doc["gaze"], "prompt_mode": doc["prompt_mode"], "clip_fps": doc["clip_fps"],
           "protocol": doc.get("protocol", "default"), "proxy": doc.get("proxy", ""),
           "toolkit_version": toolkit_version(), "toolkit_commit": toolkit_commit()}
    reference = doc["prompt_mode"] == "reference"
    if doc.get("reasoning"):  # reasoning variants: only the <answer> is parsed, never the reasoning
        rec["reasoning"] = doc["reasoning"]
        response = scoring.reasoning_answer(response)
    if get_task(doc["task"]).is_proactive:
        label = doc["checkpoint_label"] == "Yes"
        if reference:
            correct = scoring.reference_yes_no_correct(response, label)
            parsed = label if correct else (not label)
        else:
            parsed = scoring.parse_yes_no(response)
            correct = parsed is not None and parsed == label
        rec.update({"checkpoint_time": doc["checkpoint_time"], "label": doc["checkpoint_label"],
                    "parsed": None if parsed is None else ("Yes" if parsed else "No"), "correct": bool(correct)})
    else:
        if reference:
            parsed = scoring.reference_parse_choice(response)
            correct = scoring.reference_mc_correct(response, doc["answer"])
        else:
            parsed = scoring.parse_choice(response, doc["options"])
            correct = parsed is not None and parsed == doc["answer"]
        rec.update({"answer": doc["answer"], "parsed": parsed, "correct": bool(correct)})
    rec["score"] = 100.0 if rec["correct"] else 0.0
    return rec


def effective_yes(record: dict) -> bool:
    """A proactive record's prediction as the metrics count it: an unparsed answer is a miss of its
    label (a false negative for Yes, a false positive for No; see ``scoring.proactive_metrics``)."""
    return (record["label"] != "Yes") if record["parsed"] is None else record["parsed"] == "Yes"


def metric_records(record: dict) -> dict[str, dict]:
    """One item per metric for a harness that computes standard errors from per-item scores
    (lmms-eval's CLT and clustered stderr read each item's ``score``).

    Multiple choice: ``accuracy`` only. Proactive: every metric gets its own item. The proportions
    carry ``score`` only on the items in their denominator (precision: predicted Yes; recall and FNR:
    label Yes; FPR: label No), so their standard error is that of their own proportion, never the
    accuracy's; F1 is not a mean of per-item scores and carries none (its bootstrap standard error
    is in ``statistics``)."""
    if record["checkpoint_index"] < 0:
        return {"accuracy": record}
    pred, label = effective_yes(record), record["label"] == "Yes"
    base = {k: v for k, v in record.items() if k != "score"}
    conditional = {"precision": (pred, label), "recall": (label, pred), "fpr": (not label, pred),
                   "fnr": (label, not pred)}
    out = {"accuracy": record, "f1": base}
    for name, (in_denominator, hit) in conditional.items():
        out[name] = {**base, "score": 100.0 if hit else 0.0} if in_denominator else base
    return out


def task_metrics(records: list[dict]) -> dict:
    """Metrics of one task's records: accuracy for multiple choice; for proactive tasks checkpoint
    accuracy plus precision, recall, F1, FPR and FNR. Fractions in [0, 1]; None where a ratio's
    denominator is empty (undefined, see :func:`streamgaze_hf.scoring.proactive_metrics`)."""
    if not records:
        return {"accuracy": 0.0, "n": 0}
    if get_task(records[0]["task"]).is_proactive:
        pairs = [(None if r["parsed"] is None else r["parsed"] == "Yes", r["label"] == "Yes") for r in records]
        return scoring.proactive_metrics(pairs)
    return scoring.mc_metrics((r["correct"] for r in records), sum(r["parsed"] is None for r in records))
