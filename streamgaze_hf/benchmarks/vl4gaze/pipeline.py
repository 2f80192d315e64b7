"""The VL4Gaze generation pipeline (paper §3) through the OpenAI-compatible VLM back-end.

Per gaze annotation (one observer in one image, :class:`~.annotation_files.GazeAnnotation`):

1. **observer descriptions** (§3.2): the image with the observer's head box drawn as a red rectangle;
   the VLM proposes unique, general and non-existent person descriptions;
2. **self-consistency validation**: each description goes back with the plain image and "Please tell
   me the number of people in the image that match this description."; a unique description is kept
   only if the count is exactly 1, a general (existing) one only if it is 2 or more, a non-existent
   one only if it is 0;
3. **two-stage target description** (§3.3, targets inside the image only): stage 1 describes the
   object at the gaze point (a red cross); stage 2 rephrases each description from the observer's
   perspective into an answer sentence;
4. **visibility check**: can the observer actually see the target? If not, the annotation is dropped
   (a wrong gaze label or a transparent target);
5. the **forbidden-word filter** (§3.4) removes every description or answer with an annotation
   artefact ("red box", "marker", ...) as soon as it is generated.

Then :func:`build_questions` (§3.4) draws, per annotation and task, one observer description, one
target description and one question template, from a ``random.Random`` seeded by (seed, image,
person): the same inputs and seed give the same questions, whatever the order or subset processed.

Every VLM answer is strict JSON, validated, cached on disk and retried (``objects.vlm.ChatJSONClient``),
so a rerun or a run resumed after a crash only asks what was never answered.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from tqdm.auto import tqdm

from ...gaze import direction_of
from ...objects.vlm import ChatJSONClient
from ...objects.vlm_prompts import AnswerError
from ...util.errors import StreamGazeError
from . import NAME
from .annotation_files import GazeAnnotation
from .prompts import (
    CANNOT_IDENTIFY_ANSWERS,
    COUNT_PROMPT,
    DIRECTION_ANSWERS,
    DIRECTION_PHRASES,
    NO_SUCH_PERSON_ANSWERS,
    OBSERVER_PROMPT,
    OUT_OF_FRAME_ANSWERS,
    QUESTION_TEMPLATES,
    REPHRASE_PROMPT,
    TARGET_PROMPT,
    VISIBILITY_PROMPT,
    has_forbidden_word,
    pronoun_of,
)

STAGES = ("vl4gaze-observer", "vl4gaze-count", "vl4gaze-target", "vl4gaze-rephrase", "vl4gaze-visible")
MAX_TARGET_DESCRIPTIONS = 3


# ---------------------------------------------------------------------------------------------- answer validators


def _strings(answer: dict, key: str, required: bool = True) -> list[str]:
    if not isinstance(answer, dict) or (required and key not in answer):
        raise AnswerError(f'expected a JSON object with the key "{key}"')
    value = answer.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnswerError(f'"{key}" must be a list of strings')
    return [" ".join(v.split()) for v in value if v.strip()]


def _observer(answer: dict) -> dict[str, list[str]]:
    return {k: _strings(answer, k, required=k == "unique") for k in ("unique", "general", "nonexistent")}


def _count(answer: dict) -> int:
    c = answer.get("count") if isinstance(answer, dict) else None
    if isinstance(c, bool) or not isinstance(c, int) or c < 0:
        raise AnswerError('"count" must be a non-negative integer')
    return c


def _descriptions(answer: dict) -> list[str]:
    return _strings(answer, "descriptions")


def _answers(answer: dict) -> list[str]:
    return _strings(answer, "answers")


def _visible(answer: dict) -> bool:
    v = answer.get("visible") if isinstance(answer, dict) else None
    if not isinstance(v, bool):
        raise AnswerError('"visible" must be true or false')
    return v


# ---------------------------------------------------------------------------------------------- images


def _png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise StreamGazeError("cannot encode an image as PNG")
    return buf.tobytes()


def _pixels(ann: GazeAnnotation) -> tuple[list[int], tuple[int, int] | None]:
    w, h = ann.width, ann.height
    box = [round(ann.head_box[0] * w), round(ann.head_box[1] * h), round(ann.head_box[2] * w),
           round(ann.head_box[3] * h)]
    point = None if ann.gaze is None else (round(ann.gaze[0] * w), round(ann.gaze[1] * h))
    return box, point


def marked(img: np.ndarray, box: list[int] | None = None, point: tuple[int, int] | None = None) -> np.ndarray:
    """A copy of ``img`` with the observer's box (red rectangle) and the gaze point (red cross)."""
    out = img.copy()
    if box is not None:
        cv2.rectangle(out, (box[0], box[1]), (box[2], box[3]), (0, 0, 255), 2)
    if point is not None:
        cv2.drawMarker(out, point, (0, 0, 255), cv2.MARKER_CROSS, 9, 2)
    return out


# ---------------------------------------------------------------------------------------------- stages


@dataclass
class PersonTexts:
    """What the pipeline generated for one annotation."""

    annotation: GazeAnnotation
    unique: list[str] = field(default_factory=list)
    general_existing: list[str] = field(default_factory=list)
    general_nonexisting: list[str] = field(default_factory=list)
    target_descriptions: list[str] = field(default_factory=list)  # stage 1
    answers: list[str] = field(default_factory=list)  # stage 2: GOD answers (observer's view)
    visible: bool | None = None  # None: the target is outside the image
    rejected: dict[str, list[str]] = field(default_factory=dict)  # reason -> texts dropped

    @property
    def usable(self) -> bool:
        return bool(self.unique) and self.visible is not False and (self.annotation.gaze is None or bool(self.answers))

    def reject(self, reason: str, text: str) -> None:
        self.rejected.setdefault(reason, []).append(text)


def _clean(texts: Iterable[str], pt: PersonTexts) -> list[str]:
    out: list[str] = []
    for t in texts:
        if has_forbidden_word(t):
            pt.reject("forbidden word", t)
        elif t.lower() not in (o.lower() for o in out):
            out.append(t)
    return out


def describe_person(client: ChatJSONClient, ann: GazeAnnotation, image: np.ndarray, image_path: Path) -> PersonTexts:
    """Stages 1-5 for one annotation (module docstring)."""
    pt = PersonTexts(ann)
    box, point = _pixels(ann)
    where = f"{ann.image} person {ann.person}"
    plain = _png(image)
    obs = client.ask_json(OBSERVER_PROMPT.format(x0=box[0], y0=box[1], x1=box[2], y1=box[3]),
                          [_png(marked(image, box))], STAGES[0], _observer, f"{where}: observer descriptions",
                          image_path)
    for kind, keep in (("unique", lambda c: c == 1), ("general", lambda c: c >= 2), ("nonexistent", lambda c: c == 0)):
        if kind != "unique" and not pt.unique:
            return pt  # no question can name this observer: ask nothing more
        for desc in _clean(obs[kind], pt):
            count = client.ask_json(COUNT_PROMPT.format(description=desc), [plain], STAGES[1], _count,
                                    f"{where}: self-consistency count", image_path)
            if not keep(count):
                pt.reject(f"{kind} description matches {count} {'person' if count == 1 else 'people'}", desc)
            elif kind == "unique":
                pt.unique.append(desc)
            elif kind == "general":
                pt.general_existing.append(desc)
            else:
                pt.general_nonexisting.append(desc)
    if point is None or not pt.unique:
        return pt
    x, y = point
    stage1 = client.ask_json(TARGET_PROMPT.format(x=x, y=y), [_png(marked(image, None, point))], STAGES[2],
                             _descriptions, f"{where}: target description", image_path)
    pt.target_descriptions = _clean(stage1, pt)[:MAX_TARGET_DESCRIPTIONS]
    if not pt.target_descriptions:
        return pt
    both = [_png(marked(image, box, point))]
    fmt = {"x0": box[0], "y0": box[1], "x1": box[2], "y1": box[3], "x": x, "y": y}
    pt.visible = client.ask_json(VISIBILITY_PROMPT.format(description=pt.target_descriptions[0], **fmt), both,
                                 STAGES[4], _visible, f"{where}: visibility check", image_path)
    if not pt.visible:
        return pt
    answers: list[str] = []
    for desc in pt.target_descriptions:
        answers += client.ask_json(REPHRASE_PROMPT.format(description=desc, **fmt), both, STAGES[3], _answers,
                                   f"{where}: rephrase", image_path)
    pt.answers = _clean(answers, pt)
    return pt


def generate_texts(annotations: Sequence[GazeAnnotation], image_root: str | Path, client: ChatJSONClient,
                   progress: bool = True) -> list[PersonTexts]:
    """Stages 1-5 for every annotation, in order (a rerun is served from the VLM cache)."""
    root = Path(image_root)
    images: dict[str, np.ndarray] = {}
    out = []
    for ann in tqdm(annotations, desc="vl4gaze descriptions", unit="person", disable=not progress):
        if ann.image not in images:
            images.clear()  # annotations come grouped by image; keep one decoded image at a time
            path = root / ann.image
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is None:
                raise StreamGazeError("cannot read the image", path)
            images[ann.image] = img
        out.append(describe_person(client, ann, images[ann.image], root / ann.image))
    return out


# ---------------------------------------------------------------------------------------------- §3.4 QA


def image_id(ann: GazeAnnotation) -> str:
    stem = ann.image.rsplit(".", 1)[0]
    return f"{ann.source}__{stem.replace('/', '__')}"


def _sentence(template: str, pronoun: str, **kw: str) -> str:
    text = template.format(Pronoun=pronoun, **kw)
    return text.replace("They is ", "They are ")


def build_questions(texts: Sequence[PersonTexts], seed: int = 0, image_dir: str = "images") -> dict[str, list[dict]]:
    """QA rows per task (schema.QA_FEATURES) from the pipeline's texts (module docstring)."""
    qa: dict[str, list[dict]] = {t: [] for t in QUESTION_TEMPLATES}
    for pt in texts:
        if pt.usable:
            for task, row in _person_questions(pt, seed, image_dir):
                qa[task].append(row)
    return qa


def _person_questions(pt: PersonTexts, seed: int, image_dir: str) -> list[tuple[str, dict]]:
    """The questions of one usable annotation: GOD, GDD (target inside only), GPL and AQR."""
    ann = pt.annotation
    rng = random.Random(f"{NAME}:{seed}:{ann.source}:{ann.image}:{ann.person}")
    w, h = ann.width, ann.height
    inside = ann.gaze is not None
    direction = direction_of(ann.eye, ann.gaze, w, h) if ann.gaze is not None else None
    base = {
        "video_id": image_id(ann), "source": ann.source, "image_path": f"{image_dir}/{ann.source}/{ann.image}",
        "width": w, "height": h, "person": ann.person, "head_box": list(ann.head_box),
        "eye_x": ann.eye[0], "eye_y": ann.eye[1],
        "gaze_x": ann.gaze[0] if ann.gaze else -1.0, "gaze_y": ann.gaze[1] if ann.gaze else -1.0,
        "inside": inside, "direction": direction or "",
    }
    out: list[tuple[str, dict]] = []

    def add(task: str, desc: str, kind: str, answer: str, target: str, tmpl: int) -> None:
        question = QUESTION_TEMPLATES[task][tmpl].format(observer=desc)
        meta = {"template": tmpl, "annotation": f"{ann.file}:{ann.line}" if ann.file else ""}
        out.append((task, {**base, "question_id": f"{base['video_id']}__{ann.person}__{task}", "task": task,
                           "category": task, "observer_description": desc, "description_kind": kind,
                           "ambiguous": kind != "unique", "target_description": target,
                           "question": question[0].upper() + question[1:], "answer": answer,
                           "metadata": json.dumps(meta, sort_keys=True)}))

    def draw(task: str) -> tuple[str, str, int]:
        desc = rng.choice(pt.unique)
        return desc, pronoun_of(desc), rng.randrange(len(QUESTION_TEMPLATES[task]))

    target = pt.target_descriptions[0] if inside else ""
    desc, pron, tmpl = draw("god")
    god_answer = rng.choice(pt.answers) if inside else _sentence(rng.choice(OUT_OF_FRAME_ANSWERS), pron)
    add("god", desc, "unique", god_answer, target, tmpl)
    if direction is not None:
        desc, pron, tmpl = draw("gdd")
        add("gdd", desc, "unique", _sentence(rng.choice(DIRECTION_ANSWERS), pron, phrase=DIRECTION_PHRASES[direction]),
            target, tmpl)
    desc, pron, tmpl = draw("gpl")
    point = f"({round(ann.gaze[0] * w)}, {round(ann.gaze[1] * h)})" if ann.gaze is not None else "(-1, -1)"
    add("gpl", desc, "unique", point, target, tmpl)
    general = [("general_existing", d) for d in pt.general_existing] + \
              [("general_nonexisting", d) for d in pt.general_nonexisting]
    tmpl = rng.randrange(len(QUESTION_TEMPLATES["aqr"]))
    if general and rng.random() < 0.5:
        kind, desc = rng.choice(general)
        pool = CANNOT_IDENTIFY_ANSWERS if kind == "general_existing" else NO_SUCH_PERSON_ANSWERS
        add("aqr", desc, kind, rng.choice(pool), "", tmpl)
    else:
        desc = rng.choice(pt.unique)
        answer = god_answer if inside else _sentence(rng.choice(OUT_OF_FRAME_ANSWERS), pronoun_of(desc))
        add("aqr", desc, "unique", answer, target, tmpl)
    return out
