"""``streamgaze export-sft``: chat-format fine-tuning samples from a built dataset (paper appendix C.1).

Every sample references its window clip, cut with the evaluation's clipper
(:func:`~streamgaze_hf.video.clips.prepare_clip`, so it holds no frame after the window end) and stored
under ``OUT/clips/`` (content-addressed, with a sidecar JSON listing the clip's source frames):

* a **multiple-choice** question: the clip of its window (past ``[0, t]``, present ``[t - 60, t]``),
  the evaluation prompt (gaze mode applied) as the user turn at the query time, and the answer letter
  and text (``"B. cup"``) as the assistant turn;
* a **proactive** question, with the paper's negative sampling (Fig. 8): the clip ``[0, event]``
  (event = the target's first fixation, GTA, or first appearance, OAA), the question as the user turn
  at the query time, one *silent* (empty) assistant turn at every checkpoint before the event, and the
  alert at the event ("You are now gazing at the X." / "The X is now visible.").

Formats: ``llava`` (LLaVA-Video / ViSpeak style: ``video``, ``conversations`` of ``{from, value,
time}``, ``proactive``) and ``qwen`` (Qwen2.5-VL / ms-swift style ``messages`` with a ``video``
content part; turns carry ``time``). Output: ``OUT/samples.jsonl`` (one sample per line, deterministic
order), ``OUT/clips/``, ``OUT/manifest.json`` (dataset version and hash, options, counts per task,
silent and alert turns, clips, the samples file's sha256). Written to a temporary directory and moved
into place when complete.

A dataset whose card marks it as an evaluation set (tag ``benchmark`` or ``evaluation``, or only
``test`` splits: every StreamGaze benchmark build) is refused unless ``allow_eval_data``: training on
the benchmark's own questions contaminates its evaluation.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from ... import __version__
from ...dataset import letter_index, manifest_digest, open_dataset
from ...util.errors import StreamGazeError
from ...util.fsutil import atomic_directory
from . import BENCHMARK, BUILD_HINT, evaluation, prompts
from .streaming.metrics import event_time
from .tasks import TASKS

__all__ = ["export_sft", "is_eval_card", "FORMATS", "alert_text"]

FORMATS = ("llava", "qwen")
SAMPLES_FILE = "samples.jsonl"
_ALERTS = {"gta": "You are now gazing at the {target}.", "oaa": "The {target} is now visible."}
_EVAL_TAGS = {"benchmark", "evaluation"}


def _front_matter(root: Path) -> dict:
    import yaml

    card = root / "README.md"
    try:
        text = card.read_text(encoding="utf-8")
    except OSError as exc:
        raise StreamGazeError(f"cannot read the dataset card ({exc})", card) from None
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    try:
        data = yaml.safe_load(text[3:end]) if end > 0 else {}
    except yaml.YAMLError as exc:
        raise StreamGazeError(f"the card's YAML front matter is malformed ({exc})", card) from None
    return data if isinstance(data, dict) else {}


def is_eval_card(root: str | os.PathLike[str]) -> bool:
    """Whether the dataset card marks the dataset as an evaluation set: a ``benchmark`` /
    ``evaluation`` tag, or configs whose data files are ``test`` splits only."""
    data = _front_matter(Path(root))
    tags = {str(t).lower() for t in data.get("tags") or []}
    if tags & _EVAL_TAGS:
        return True
    splits = {str(f.get("split")) for c in data.get("configs") or [] if isinstance(c, dict)
              for f in c.get("data_files") or [] if isinstance(f, dict)}
    return splits == {"test"}


def alert_text(task_id: str, target: str) -> str:
    return _ALERTS[task_id].format(target=target)


def _turn(fmt: str, role: str, text: str, time: float, video: str | None = None) -> dict:
    t = round(float(time), 3)
    if fmt == "llava":
        value = f"<video>\n{text}" if video is not None else text
        return {"from": "human" if role == "user" else "gpt", "value": value, "time": t}
    content = ([{"type": "video", "video": video}] if video is not None else []) + [{"type": "text", "text": text}]
    return {"role": role, "content": content, "time": t}


def _sample(fmt: str, sid: str, task: str, clip: str, window: tuple[float, float], turns: list[dict],
            proactive: bool) -> dict:
    meta = {"id": sid, "task": task, "window": [float(window[0]), float(window[1])], "proactive": proactive}
    if fmt == "llava":
        return {**meta, "video": clip, "conversations": turns}
    return {**meta, "messages": turns}


def export_sft(root: str | os.PathLike[str] | None, out: str | os.PathLike[str], fmt: str = "llava", *,
               gaze: str = "visual", allow_eval_data: bool = False, progress: bool = True) -> dict:
    """Write the samples, clips and manifest to ``out`` (see the module docstring; ``streamgaze export-sft``).

    Args:
        root: the StreamGaze dataset, a directory or a Hub reference (None: ``$STREAMGAZE_ROOT``, else its
            default directory).
        out: the output directory: absent, empty, or an earlier export (it has ``manifest.json``); replaced
            atomically.
        fmt: the sample format, ``llava`` or ``qwen``.
        gaze: the gaze mode of the prompts and clips (``visual``: cut from the overlay videos).
        allow_eval_data: export a dataset whose card marks it as an evaluation set.
        progress: show a progress bar over the samples.

    Returns:
        The manifest written to ``out/manifest.json``: toolkit version, format, gaze mode, the dataset
        (root, version, manifest sha256), the samples file (name, count, sha256, per task), the proactive
        turns and the clip count.

    Raises:
        StreamGazeError: an unknown format or gaze mode, no dataset at ``root``, an evaluation set without
            ``allow_eval_data``, an ``out`` that is not an export directory, or a dataset file or video that is
            missing or damaged.
    """
    from tqdm import tqdm

    from ...video import prepare_clip

    if fmt not in FORMATS:
        raise StreamGazeError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if gaze not in evaluation.GAZE_VARIANTS.values():
        raise StreamGazeError(f"unknown gaze mode {gaze!r}")
    data = open_dataset(root, benchmark=BENCHMARK, build_hint=BUILD_HINT)
    path = data.path
    eval_card = is_eval_card(path)
    if eval_card and not allow_eval_data:
        raise StreamGazeError("the dataset card marks this dataset as an evaluation set (tag 'benchmark' / test "
                              "splits): training on it contaminates the benchmark; pass --allow-eval-data if this "
                              "is intended", path / "README.md")
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "manifest.json").is_file())):
        raise StreamGazeError("exists and is not an export-sft output directory (no manifest.json): choose a new "
                              "--out", out)
    manifest = data.manifest
    present = data.nonempty_tasks(tuple(spec.id for spec in TASKS))
    docs_by_task = {spec.id: [d for d in evaluation.load_docs(spec.id, gaze, data)
                              if d["checkpoint_index"] <= 0] if spec.id in present else [] for spec in TASKS}
    counts = {t: len(d) for t, d in docs_by_task.items()}
    silent = alerts = 0
    lines: list[str] = []
    with atomic_directory(out) as tmp:
        clip_dir = tmp / "clips"
        clips: set[str] = set()
        bar = tqdm(total=sum(counts.values()), desc="export-sft", unit="sample", disable=not progress)
        for spec in TASKS:
            for doc in docs_by_task[spec.id]:
                video = data.file(doc["overlay_path"] if gaze == "visual" else doc["video_path"])
                q = float(doc["query_time"])
                if spec.checkpointed:
                    event = event_time(doc)
                    window = (0.0, max(event, 0.0))
                    before = [float(c["time"]) for c in doc["checkpoints"] if float(c["time"]) < event]
                    user = doc["question"]
                    answer_turns = [("", t) for t in before if t >= q]
                    answer_turns.append((alert_text(spec.id, prompts.target_object(doc)), event))
                    silent += len(answer_turns) - 1
                    alerts += 1
                else:
                    window = evaluation.doc_window(doc)
                    user = evaluation.doc_prompt({**doc, "prompt_mode": "default"})
                    letter = doc["answer"]
                    answer_turns = [(f"{letter}. {doc['options'][letter_index(letter)]}", q)]
                clip = prepare_clip(video, window[0], window[1], cache_dir=clip_dir)
                rel = clip.relative_to(tmp).as_posix()
                clips.add(rel)
                turns = [_turn(fmt, "user", user, min(q, window[1]), video=rel)]
                turns += [_turn(fmt, "assistant", text, t) for text, t in answer_turns]
                lines.append(json.dumps(_sample(fmt, doc["question_id"], spec.id, rel, window, turns,
                                                spec.checkpointed), ensure_ascii=False, sort_keys=True) + "\n")
                bar.update()
        bar.close()
        shutil.rmtree(clip_dir / "sources", ignore_errors=True)  # the clipper's source-digest memo
        body = "".join(lines)
        (tmp / SAMPLES_FILE).write_text(body, encoding="utf-8")
        result = {"toolkit_version": __version__, "format": fmt, "gaze": gaze,
                  "dataset": {"root": str(path), "version": str(manifest["version"]),
                              "manifest_sha256": manifest_digest(path)},
                  "eval_card": eval_card, "allow_eval_data": bool(allow_eval_data),
                  "samples": {"file": SAMPLES_FILE, "n": len(lines),
                              "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(), "per_task": counts},
                  "proactive": {"silent_turns": silent, "alert_turns": alerts,
                                "rule": "silent (empty) at every checkpoint before the event; the alert at the event"},
                  "clips": len(clips)}
        (tmp / "manifest.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return result
