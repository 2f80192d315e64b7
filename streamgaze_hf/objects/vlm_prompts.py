"""The region prompts of the VLM object back-end (paper §3.3, Figures 17-18; reference §3.5) and the
strict parser of their answers.

Stage 1 (FOV) shows the circular FOV crops with the red gaze dot and asks for a scene caption, the
exact object under the dot and the other objects in the crop. Stage 2 (out of FOV) shows the full
frames with the FOV disk blacked out and asks for the objects outside the disk, excluding the
stage-1 objects. Both ask for simple object names, attribute-rich captions and, beyond the paper,
each object's ``attributes`` {color, material, shape, texture} so that OAR questions can be built.

An answer is accepted only if it is one JSON object (optionally inside a ```json fence) with the
required keys and types and non-empty object names; extra keys are ignored. Anything else raises
:class:`AnswerError`, whose message is sent back to the model when the request is retried.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .naming import ATTRIBUTE_KINDS, BUILTIN_ATTRIBUTE_VALUES, normalize_attribute, normalize_name

STAGE_FOV = "fov"
STAGE_OUT = "out"
FOV_OBJECT_KEY = "exact_gaze_object"
FOV_OTHERS_KEY = "other_objects_in_cropped_area"
OUT_OBJECTS_KEY = "other_objects"

_ATTRIBUTE_HINTS = {"color": "red", "material": "metal", "shape": "round", "texture": "smooth"}
_ATTRIBUTE_SCHEMA = ", ".join(f'"{k}": "e.g. {_ATTRIBUTE_HINTS[k]}"' for k in ATTRIBUTE_KINDS)
_ATTRIBUTE_EXAMPLES = "\n".join(f"    {k}: {', '.join(BUILTIN_ATTRIBUTE_VALUES[k][:6])}, ..."
                                for k in ATTRIBUTE_KINDS)

NAMING_RULES = f"""Naming rules:
- object_identity is a simple common name of one or two lower-case words ("knife", "cutting board").
  Put no colour, material, position or other description in the name: that goes in detailed_caption
  and attributes.
- Give each object one name and list it once. Reuse a known name when you see the same object.
- Include a person only when their full or upper body is visible (not just hands or arms), named
  "person wearing [clothing description]", never just "person". The camera wearer's own hands and
  arms are not objects.
- attributes: one or two lower-case words per attribute, for example
{_ATTRIBUTE_EXAMPLES}
  Write "unknown" when you cannot tell.

Return only the JSON object, with no other text. Be concise and direct."""

FOV_PROMPT = """These {n_frames} images are frames, in time order, from {duration} of a first-person
(egocentric) video while the camera wearer keeps looking at the same spot. Each image is a circular
crop of the frame centred on the wearer's gaze; the small red dot in the centre marks exactly where the
wearer is looking (the dot is a marker, not part of the scene).
{known}
Analyze the cropped gaze area and return a JSON object with exactly this structure:

{{
  "scene_caption": "2-3 sentences describing the scene and what the wearer is doing",
  "exact_gaze_object": {{
    "object_identity": "simple name of the single object under the red dot",
    "detailed_caption": "3-5 sentences describing its appearance and characteristics",
    "attributes": {{{attributes}}}
  }},
  "other_objects_in_cropped_area": [
    {{
      "object_identity": "simple name of another object visible inside the circle",
      "detailed_caption": "2 sentences on its appearance and its position relative to other objects",
      "attributes": {{{attributes}}}
    }}
  ]
}}

Use "exact_gaze_object": null only when the red dot lies on no identifiable object (bare wall, floor
or sky). Do not repeat the gazed object in other_objects_in_cropped_area; use an empty list when no
other object is visible inside the circle.

{rules}"""

OUT_PROMPT = """These {n_frames} images are full frames, in time order, from {duration} of a first-person
(egocentric) video. A solid black disk covers the area the camera wearer is looking at. Analyze only
the visible area OUTSIDE the black disk: the objects there are in view but not looked at. The black
disk is a mask, not an object.
{known}
Return a JSON object with exactly this structure:

{{
  "other_objects": [
    {{
      "object_identity": "simple name of an object clearly visible outside the black disk",
      "detailed_caption": "2 sentences on its appearance and its position relative to other objects",
      "attributes": {{{attributes}}}
    }}
  ]
}}
{exclude}
Use an empty list when no object is clearly visible outside the disk.

{rules}"""

KNOWN_OBJECTS = """
Known objects in this video: {names}.
IMPORTANT: reuse these exact names for the same objects; use a new name only for a clearly different
object.
"""

EXCLUDE = """
Do NOT include these objects, already identified in the gaze area: {names}.
"""

RETRY_PROMPT = """Your previous answer could not be used: {error}
Answer again with only the JSON object in exactly the structure asked for, with no other text."""


def _duration_text(seconds: float) -> str:
    return f"a {seconds:.1f}-second moment" if seconds > 0 else "one moment"


def _known_block(known_objects: Sequence[str]) -> str:
    return KNOWN_OBJECTS.format(names=", ".join(known_objects)) if known_objects else ""


def fov_prompt(n_frames: int, duration: float, known_objects: Sequence[str] = ()) -> str:
    """Stage-1 prompt (Figure 17): the gazed object and the other objects in the circular FOV crop."""
    return FOV_PROMPT.format(n_frames=n_frames, duration=_duration_text(duration),
                             known=_known_block(known_objects), attributes=_ATTRIBUTE_SCHEMA,
                             rules=NAMING_RULES)


def out_prompt(n_frames: int, duration: float, exclude: Sequence[str] = (),
               known_objects: Sequence[str] = ()) -> str:
    """Stage-2 prompt (Figure 18): objects outside the masked FOV, excluding the stage-1 objects."""
    return OUT_PROMPT.format(n_frames=n_frames, duration=_duration_text(duration),
                             known=_known_block(known_objects), attributes=_ATTRIBUTE_SCHEMA,
                             exclude=EXCLUDE.format(names=", ".join(exclude)) if exclude else "",
                             rules=NAMING_RULES)


class AnswerError(ValueError):
    """A model answer that is not valid JSON in the requested schema."""


@dataclass(frozen=True)
class VLMObject:
    """One object of an answer: normalised name, caption and the attributes the model could tell."""

    name: str
    caption: str
    attributes: dict[str, str]


@dataclass(frozen=True)
class FovAnswer:
    scene_caption: str
    gazed: VLMObject | None
    others: tuple[VLMObject, ...]


@dataclass(frozen=True)
class OutAnswer:
    objects: tuple[VLMObject, ...]


_FENCE = re.compile(r"^```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)\n?[ \t]*```$", re.DOTALL)


def parse_json_answer(text: str) -> dict:
    """The JSON object of an answer: surrounding whitespace and one ```json fence removed, then
    ``json.loads``; AnswerError for anything else (prose around it, arrays, truncated JSON)."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerError("the answer is empty")
    s = text.strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
    try:
        value = json.loads(s)
    except json.JSONDecodeError as exc:
        raise AnswerError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(value, dict):
        raise AnswerError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _object(value: object, where: str) -> VLMObject:
    if not isinstance(value, dict):
        raise AnswerError(f"{where} must be an object with object_identity, detailed_caption and attributes")
    ident = value.get("object_identity")
    if not isinstance(ident, str) or not normalize_name(ident):
        raise AnswerError(f"{where}.object_identity must be a non-empty string")
    caption = value.get("detailed_caption")
    if not isinstance(caption, str):
        raise AnswerError(f"{where}.detailed_caption must be a string")
    attrs = value.get("attributes")
    if not isinstance(attrs, dict):
        raise AnswerError(f"{where}.attributes must be an object with keys {', '.join(ATTRIBUTE_KINDS)}")
    known = {}
    for k in ATTRIBUTE_KINDS:
        if k not in attrs:
            raise AnswerError(f"{where}.attributes is missing {k!r} (write \"unknown\" when you cannot tell)")
        if not isinstance(attrs[k], str):
            raise AnswerError(f"{where}.attributes.{k} must be a string")
        v = normalize_attribute(attrs[k])
        if v is not None:
            known[k] = v
    return VLMObject(normalize_name(ident), caption.strip(), known)


def _object_list(answer: dict, key: str) -> tuple[VLMObject, ...]:
    if key not in answer:
        raise AnswerError(f"missing key {key!r}")
    items = answer[key]
    if not isinstance(items, list):
        raise AnswerError(f"{key} must be a list")
    return tuple(_object(v, f"{key}[{i}]") for i, v in enumerate(items))


def validate_fov(answer: dict) -> FovAnswer:
    """Check a stage-1 answer against its schema; AnswerError naming the first problem."""
    caption = answer.get("scene_caption")
    if not isinstance(caption, str):
        raise AnswerError("missing key 'scene_caption' (a string)" if "scene_caption" not in answer
                          else "scene_caption must be a string")
    if FOV_OBJECT_KEY not in answer:
        raise AnswerError(f"missing key {FOV_OBJECT_KEY!r}")
    raw = answer[FOV_OBJECT_KEY]
    gazed = None if raw is None else _object(raw, FOV_OBJECT_KEY)
    return FovAnswer(caption.strip(), gazed, _object_list(answer, FOV_OTHERS_KEY))


def validate_out(answer: dict) -> OutAnswer:
    """Check a stage-2 answer against its schema; AnswerError naming the first problem."""
    return OutAnswer(_object_list(answer, OUT_OBJECTS_KEY))


VALIDATORS = {STAGE_FOV: validate_fov, STAGE_OUT: validate_out}
