"""The QA-generation prompts of the EgoGazeVQA raw build (paper appendix E.1, one per category) and the
strict parser of their answers.

Each request shows the group's nine keyframes (images, in time order) and ends with one text: the
paper's category prompt (E.1.1 spatial, E.1.2 temporal, E.1.3 causal, kept as the paper words it,
examples included), then the inputs as the official generator wrote them (one line per keyframe,
``Frame j: <narration>; Gaze:(x, y)`` with the gaze normalised, origin top-left, three decimals), then
our output contract: one JSON object ``{"question", "options" (five texts, A-E, without letters),
"answer" (the letter of the single correct option)}``. The paper's generator asked for Markdown; JSON
lets a bad answer be detected and re-asked (``AnswerError`` carries the reason, sent back to the
model by the VLM back-end).

Accepted answers: one JSON object (optionally in a ```json fence), a non-empty ``question``, exactly
five non-empty, pairwise different ``options`` (a leading label that matches the option's position,
"A: ", "B." or "(C)", is removed) and an ``answer`` that is one letter A-E ("c" and "C." are read as C).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...dataset import LETTERS
from ...objects.vlm_prompts import AnswerError
from . import CATEGORIES, OPTION_COUNT

__all__ = ["CATEGORY_PROMPTS", "GeneratedQA", "generation_prompt", "validate_generated", "frame_lines"]

STAGE_PREFIX = "egogazevqa-"  # the VLM cache's stage label: egogazevqa-spatial, ...

SPATIAL = """You are an expert in understanding gaze information and spatial localization in ego-centric video data. \
Your task is to generate spatial localization and gaze-aware video QA benchmarks. These benchmarks are designed to \
evaluate nuanced understanding of gaze-based spatial relations in video scenes.

Provided Inputs:
RGB keyframe: A visual snapshot of the scene captured from the first-person perspective.
Keyframe caption: A textual description of the keyframe content, including objects and their spatial arrangement.
Ego-centric gaze information: Includes gaze fixation points.

Requirements:
- Create Question: Formulate spatial localization questions based on the given input with a strong emphasis on the \
ego-centric gaze. Questions should incorporate both gaze dynamics and spatial relationships in the scene, such as:
  - The object's position relative to the gaze direction.
  - Combining gaze focus and object-to-object spatial relations.
- Generate Answer Options: Provide five plausible answer options for each question. Ensure that:
  Only one option is correct.
  The other options are plausible but incorrect, requiring nuanced understanding of gaze fixation, object \
relationships, and spatial layout to differentiate.
- Focus on Detailed Spatial and Gaze-Based Relations: Unlike traditional benchmarks with simple spatial answers \
(e.g., "on the table"), your answers should include detailed gaze-based spatial relationships (e.g., "On the table, \
to the right of the object I looked at for the longest time"). This tests the model's ability to interpret both gaze \
data and spatial relations.

Example:
Question: What is the relative relationship between the knife and my current fixation?
Answer Options:
A: The knife is on the countertop, to the left of my current fixation.
B: The knife is near the edge of the countertop, behind my current fixation.
C: The knife is near the edge of the countertop, to the right of my current fixation.
D: The knife is on the countertop, in front of my current fixation.
E: The knife is near the edge of the countertop, to the left of the cutting board and my current fixation.
Correct Answer: C."""

TEMPORAL = """You are an expert in contextual temporal reasoning for videos. Your task is to generate high-quality \
Contextual Temporal Reasoning VideoQA benchmarks that emphasize event-based responses. Unlike traditional benchmarks \
that rely on time-based answers (e.g., "from 10s to 50s in the video"), this task focuses on generating questions and \
answers based on event relationships within the video.

Provided Inputs:
RGB Keyframe: A visual snapshot of the scene captured from the first-person perspective.
Keyframe Caption: A textual description of the keyframe content, including objects and their spatial arrangement.
Ego-centric Gaze Information: Includes gaze fixation points.

Requirements:
- Create Question
  Focus on what the viewer looked at before or after an action. Explore action sequences based on gaze transitions. \
Highlight cause-and-effect relationships between gaze and actions. Include gaze shifts.
- Generate Answer Options: Provide five plausible answer options for each question. Ensure that:
  Use natural reasoning: Options should reflect events based on gaze, not timestamps. Ensure answers are grounded in \
visible objects and actions from the frames and gaze patterns.

Example:
Question: What did I look at after I put down the knife?
Answer Options:
A: The cutting board.
B: The stove.
C: The refrigerator.
D: The plate on the counter.
E: The sink.
Correct Answer: A."""

CAUSAL = """You are an expert in gaze-based event causal understanding within ego-centric video environments. Your \
task is to design comprehensive Gaze-Informed Causal Reasoning ego-centric VideoQA benchmarks. The benchmarks should \
focus on complex, high-level reasoning that integrates gaze dynamics with event interactions.

Input Data: Visual: 9 first-person RGB frames + captions. Ego-centric gaze information: Includes gaze fixation points.

Event Parsing: Identify action chains (e.g., pick glass -> drink -> glance at bottle -> pour water). Link actions to \
gaze patterns, focusing on implicit cause-and-effect relationships.

Gaze Dynamics: Cluster gaze points as natural scene regions (e.g., 'cup rim', 'bottle cap area'). Track gaze \
trajectory shifts (e.g., 'suddenly locked onto...'). Focus on: Gaze as a predictive signal for upcoming actions; \
Ambiguous gaze paths that may point to multiple plausible behaviors.

Requirements:
- Ego-centric Question Construction: Create 5 multiple-choice options: 1 correct and 4 misleading. Use templates like: \
Why did [Subject] perform [Action] while [Ongoing Task], given the observed changes in my attention? Why did [Subject] \
[Action] while [Other Subject] was [Action], considering the shifts in my attention? What was [Subject] trying to \
achieve by [Action], based on the changes in my attention during [Task]?
- Generate Answer Options: Ensure that: correct answers require concurrent gaze features to explain actions. Avoid \
using external contextual clues that are not related to gaze. Express temporal relationships through event sequences, \
but avoid explicit time references (e.g., 'after Frame 3', 'during the first phase'). Focus on my gaze's role in \
anticipating or influencing actions, but avoid overly simplistic or surface-level reasoning.
- Distractor Design: Include reverse-causal options, where my gaze behavior is misinterpreted as being a result of the \
action; Spatial-proximity traps where objects in close proximity are incorrectly linked to my gaze behavior; \
High-salience distractors that divert attention to irrelevant but visually prominent elements; Create social \
influence traps

Example Question:
Why did I shuffle the cards while organizing them, given the observed changes in attention?
Answer Options:
A: I was focusing on the deck to ensure it was properly shuffled.
B: I was distracted by the cards' edges and kept adjusting them.
C: I was checking if any specific card was missing from the deck.
D: I was trying to hide certain cards from the others.
E: I was preparing the cards for a trick.
Correct Answer: C."""

CATEGORY_PROMPTS: dict[str, str] = {"spatial": SPATIAL, "temporal": TEMPORAL, "causal": CAUSAL}

INPUTS = """Inputs: the {n} images above are the keyframes, in time order (Frame 1 is the first image). Per keyframe, \
its caption and the camera wearer's gaze point (x, y normalised to [0, 1]: x from left to right, y from top to bottom):
{lines}"""

OUTPUT = f"""Write one question with {OPTION_COUNT} answer options, exactly one of them correct. Return only one JSON \
object, with no other text, in exactly this structure:

{{"question": "the question", "options": ["option A", "option B", "option C", "option D", "option E"], \
"answer": "the letter A-{LETTERS[OPTION_COUNT - 1]} of the single correct option"}}

"options" lists the {OPTION_COUNT} option texts in order A-{LETTERS[OPTION_COUNT - 1]}, without their letters."""

_LABEL = re.compile(r"^\s*(?:\(([A-Za-z])\)|([A-Za-z])\s*[:.)])\s+")
_ANSWER = re.compile(r"^\s*\(?([A-Za-z])\)?\s*[.:]?\s*$")


def frame_lines(captions: Sequence[str], gaze: Sequence[tuple[float, float]]) -> str:
    """``Frame j: <caption>; Gaze:(x, y)`` per keyframe (the official generator's input lines)."""
    return "\n".join(f"Frame {j}: {c.strip() or '(no caption)'}; Gaze:({x:.3f}, {y:.3f})"
                     for j, (c, (x, y)) in enumerate(zip(captions, gaze), 1))


def generation_prompt(category: str, captions: Sequence[str], gaze: Sequence[tuple[float, float]]) -> str:
    """The full text of one category's request (after the keyframe images)."""
    if category not in CATEGORY_PROMPTS:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if len(captions) != len(gaze):
        raise ValueError("one caption and one gaze point per keyframe")
    inputs = INPUTS.format(n=len(captions), lines=frame_lines(captions, gaze))
    return "\n\n".join([CATEGORY_PROMPTS[category], inputs, OUTPUT])


@dataclass(frozen=True)
class GeneratedQA:
    question: str
    options: tuple[str, ...]
    answer: str  # letter


def validate_generated(data: dict) -> GeneratedQA:
    """A generated question checked against the output contract (AnswerError says what is wrong)."""
    if not isinstance(data, dict):
        raise AnswerError("the answer is not a JSON object")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise AnswerError('"question" must be a non-empty string')
    options = data.get("options")
    if not isinstance(options, list) or len(options) != OPTION_COUNT:
        raise AnswerError(f'"options" must be a list of exactly {OPTION_COUNT} strings')
    clean = []
    for k, o in enumerate(options):
        if not isinstance(o, str):
            raise AnswerError(f'option {LETTERS[k]} is not a string')
        m = _LABEL.match(o)
        if m and (m.group(1) or m.group(2)).upper() == LETTERS[k]:
            o = o[m.end():]
        o = " ".join(o.split())
        if not o:
            raise AnswerError(f"option {LETTERS[k]} is empty")
        clean.append(o)
    if len({o.casefold() for o in clean}) != OPTION_COUNT:
        raise AnswerError("two options are the same: the five options must all differ")
    answer = data.get("answer")
    m = _ANSWER.match(answer) if isinstance(answer, str) else None
    if not m or m.group(1).upper() not in LETTERS[:OPTION_COUNT]:
        raise AnswerError(f'"answer" must be one letter A-{LETTERS[OPTION_COUNT - 1]}, got {answer!r}')
    return GeneratedQA(" ".join(question.split()), tuple(clean), m.group(1).upper())


def stage(category: str) -> str:
    return STAGE_PREFIX + category


