"""VL4Gaze texts: the §3 generation prompts, the QA template pools (§3.4, §4.1), the forbidden-word
list, and the evaluation prompt of each task.

The paper gives a few prompts verbatim ("Describe the person inside the given bounding box.",
"Please tell me the number of people in the image that match this description.", "Please rephrase
the description from the person's perspective.") and example QA pairs; the rest is written to the
same intent. Every generation prompt asks for one JSON object (the VLM back-end's strict-JSON rule).
Templates use ``{observer}`` (a person description such as "the man in the red shirt") and, in
answers, ``{Pronoun}`` / ``{target}``.
"""

from __future__ import annotations

from ...gaze import DIRECTIONS

# ---------------------------------------------------------------------------------------------- §3.2 observers

OBSERVER_PROMPT = """Describe the person inside the given bounding box (the red rectangle drawn on the image, at
pixels [{x0}, {y0}, {x1}, {y1}] as [x_min, y_min, x_max, y_max]; the rectangle is a marker, not part of the scene).
Write short noun phrases that start with "the", e.g. "the man in the blue shirt", of three kinds:
- "unique": descriptions that pick out exactly this person and nobody else in the image;
- "general": descriptions true of this person that also fit other people in the image;
- "nonexistent": descriptions of a person that is not in the image at all.
Do not mention the rectangle. Return only this JSON object:
{{"unique": ["..."], "general": ["..."], "nonexistent": ["..."]}}"""

COUNT_PROMPT = """Please tell me the number of people in the image that match this description: "{description}".
Return only this JSON object: {{"count": <integer>}}"""

# ---------------------------------------------------------------------------------------------- §3.3 targets

TARGET_PROMPT = """Describe the object at the marked point of the image (the small red cross at pixel ({x}, {y}); the
cross is a marker, not part of the scene). Focus on the object itself: what it is and how it looks. Give one to
three short noun phrases that start with "the", e.g. "the silver laptop on the desk".
Return only this JSON object: {{"descriptions": ["..."]}}"""

REPHRASE_PROMPT = """The person in the red rectangle at pixels [{x0}, {y0}, {x1}, {y1}] is looking at the point marked
with a red cross at pixel ({x}, {y}). That point shows: "{description}".
Please rephrase the description from the person's perspective, as the answer to "What is this person looking at?":
one to three full sentences such as "She is looking at the bubble wand she is holding." Use he, she or they for the
person and do not mention the rectangle or the cross.
Return only this JSON object: {{"answers": ["..."]}}"""

VISIBILITY_PROMPT = """The person in the red rectangle at pixels [{x0}, {y0}, {x1}, {y1}] is said to be looking at the
point marked with a red cross at pixel ({x}, {y}), which shows "{description}". Can this person actually see that
object from where they are (it is in their line of sight, not transparent, not hidden behind something)?
Return only this JSON object: {{"visible": true}} or {{"visible": false}}"""

#: §3.4: descriptions with annotation artefacts are dropped (case-insensitive substrings)
FORBIDDEN_WORDS: tuple[str, ...] = ("red box", "bounding box", "rectangle", "red cross", "marker", "marked",
                                    "red dot", "annotation", "highlighted", "the box")

# ---------------------------------------------------------------------------------------------- §3.4 templates

QUESTION_TEMPLATES: dict[str, tuple[str, ...]] = {
    "god": (
        "What is {observer} looking at in the image?",
        "What is {observer} gazing at?",
        "Describe the object that {observer} is looking at.",
        "Which object is {observer} paying attention to?",
    ),
    "gdd": (
        "In which direction is {observer} looking?",
        "Which direction is {observer} gazing in?",
        "Describe the gaze direction of {observer}.",
        "Where in the image is {observer} looking: left, right, up, down or a diagonal?",
    ),
    "gpl": (
        "Please provide the image coordinates of {observer}'s gaze point. Only (x, y). If outside, (-1, -1).",
        "Where exactly is {observer} looking? Give the pixel coordinates (x, y) of the gaze point, or (-1, -1) "
        "if it is outside the image.",
        "Locate the gaze point of {observer} as pixel coordinates (x, y); answer (-1, -1) if the target is out of "
        "the frame.",
    ),
}
#: AQR questions are gaze questions (GOD templates) whose description may be ambiguous
QUESTION_TEMPLATES["aqr"] = QUESTION_TEMPLATES["god"]

OUT_OF_FRAME_ANSWERS: tuple[str, ...] = (
    "The person is looking out of the frame.",
    "{Pronoun} is looking at something outside the image.",
    "{Pronoun} is looking out of the frame.",
)
CANNOT_IDENTIFY_ANSWERS: tuple[str, ...] = (  # the description fits several people
    "I cannot identify the observer.",
    "The description is not unique.",
    "I cannot identify which person the question refers to.",
)
NO_SUCH_PERSON_ANSWERS: tuple[str, ...] = (  # the description fits nobody
    "I cannot identify the observer.",
    "No person in the image matches this description.",
)
DIRECTION_ANSWERS: tuple[str, ...] = (
    "{Pronoun} is looking {phrase}.",
    "{Pronoun} is gazing {phrase}.",
)
DIRECTION_PHRASES: dict[str, str] = {
    "right": "to the right", "upper right": "to the upper right", "up": "upward", "upper left": "to the upper left",
    "left": "to the left", "lower left": "to the lower left", "down": "downward", "lower right": "to the lower right",
}
assert set(DIRECTION_PHRASES) == set(DIRECTIONS)

# ---------------------------------------------------------------------------------------------- evaluation

TASK_INSTRUCTIONS: dict[str, str] = {
    "god": "Answer with one sentence describing what the person looks at. If the person looks at something outside "
           "the image, say that the person is looking out of the frame.",
    "gdd": "Answer with the direction in the image, as seen by the viewer: left, right, up, down, upper left, upper "
           "right, lower left or lower right.",
    "gpl": "The image is {width}x{height} pixels. Answer only with the pixel coordinates (x, y) of the gaze point, or "
           "(-1, -1) if it is outside the image.",
    "aqr": "If the description does not identify exactly one person in the image, answer: I cannot identify the "
           "observer. Otherwise answer the question in one sentence.",
}


def eval_prompt(task: str, question: str, width: int, height: int, mode: str = "default") -> str:
    """The text shown with the image. ``reference``: the question alone (the paper's models were
    fine-tuned on it); ``default``: the question and a one-line answer-format instruction."""
    if mode == "reference":
        return question
    return f"{question}\n{TASK_INSTRUCTIONS[task].format(width=width, height=height)}"


def pronoun_of(description: str) -> str:
    """He / She / They from a person description's head noun."""
    words = description.lower().split()
    if any(w in words for w in ("man", "boy", "gentleman", "he")):
        return "He"
    if any(w in words for w in ("woman", "girl", "lady", "she")):
        return "She"
    return "They"


def has_forbidden_word(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in FORBIDDEN_WORDS)
