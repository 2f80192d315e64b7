"""Prompt texts (streamgaze_hf.benchmarks.streamgaze.prompts): reference strings byte for byte, our default prompts."""

from __future__ import annotations

import json

import pytest

from streamgaze_hf.benchmarks.streamgaze.prompts import (
    GAZE_INSTRUCTION,
    GAZE_MODES,
    PROMPT_MODES,
    REFERENCE_GAZE_PREFIX,
    SALIENCE_INSTRUCTION,
    TEXT_GAZE_INSTRUCTION,
    checkpoint_prompt,
    format_fixations,
    mc_prompt,
    target_object,
)

OPTIONS = ["cup", "plate", "knife", "jar"]
FIXATIONS = [
    {"start": 23.94, "end": 26.01, "x": 303 / 640, "y": 165 / 480},
    {"start": 31.9, "end": 34.1, "x": 0.4672, "y": 0.2042},
    {"start": 59.8, "end": 60.0, "x": 0.471875, "y": 0.8},
]
FORMATTED = ("Fixation 1 (23.9s-26.0s): Gaze(303, 165)\n"
             "Fixation 2 (31.9s-34.1s): Gaze(299, 98)\n"
             "Fixation 3 (59.8s-60.0s): Gaze(302, 384)")
GAZE_WORDS = ("gaze", "green dot", "red circle", "fixation", "salience")


def test_constants():
    assert GAZE_MODES == ("visual", "none", "text", "salience")
    assert PROMPT_MODES == ("default", "reference")
    assert REFERENCE_GAZE_PREFIX == (
        "In this video, the green dot represents the gaze point (where the person is looking), and the red "
        "circle represents the field of view (FOV) area.\n\n")
    assert GAZE_INSTRUCTION.startswith(
        "I provide you with a video that contains gaze information. In each frame, the user's gaze center "
        "is indicated by a green dot and the red circle represents the focused gaze area.\n\nFollow these steps")
    assert GAZE_INSTRUCTION.endswith("(2) Observe how the green dot moves across frames in chronological order.")
    assert "{fixations}" in TEXT_GAZE_INSTRUCTION
    assert "(3) Use this fixation pattern to understand the user's attention and intent." in TEXT_GAZE_INSTRUCTION
    assert "Warmer colors (red/yellow)" in SALIENCE_INSTRUCTION and "cooler colors (blue/green)" in SALIENCE_INSTRUCTION


def test_reference_mc_prompt_four_options_matches_the_rendered_example():
    expected = ('\nQuestion: What is this?\nOptions:\nA. cup\nB. plate\nC. knife\nD. jar\nAnswer the question with '
                'only the letter (A, B, C, or D) of the correct option.\n\nThe best option is:')
    assert mc_prompt("What is this?", OPTIONS, gaze="none", mode="reference") == expected
    assert mc_prompt("What is this?", OPTIONS, gaze="visual", mode="reference") == REFERENCE_GAZE_PREFIX + expected
    assert "\n\n\nQuestion: What is this?" in mc_prompt("What is this?", OPTIONS, mode="reference")
    # already-labelled options are kept as they are (reference step 1)
    labelled = [f"{c}. {o}" for c, o in zip("ABCD", OPTIONS)]
    assert mc_prompt("What is this?", labelled, gaze="none", mode="reference") == expected


def test_reference_mc_prompt_other_counts():
    assert mc_prompt("Q?", ["yes", "no"], gaze="none", mode="reference") == (
        "Question: Q?\nOptions:\nA. yes\nB. no\n\nThe best option is:")
    six = ["red", "blue", "green", "white", "tray", "black"]
    assert mc_prompt("What color is this object?", six, gaze="visual", mode="reference") == (
        REFERENCE_GAZE_PREFIX + "Question: What color is this object?\nOptions:\nA. red\nB. blue\nC. green\n"
        "D. white\nE. tray\nF. black\n\nThe best option is:")
    assert mc_prompt("Q?", [], gaze="none", mode="reference") == (
        "\nQuestion: Q?\nAnalyze the video and provide the answer to the question.\n\n\nAnswer:")


def test_reference_proactive_prompt():
    row = {"question": "Monitor my gaze and alert me when I gaze on the <plate>.", "metadata": "{}"}
    body = ('You are monitoring a video stream. Based on what you have seen so far in the video, answer the '
            'following question.\n<video>\n\nQuestion: Monitor my gaze and alert me when I gaze on the <plate>.'
            '\n\nIf you have already seen the requested object/event, answer "Yes".\nIf you have not seen it '
            'yet, answer "No".\n\nAnswer only with "Yes" or "No".\nDo not include any additional text or '
            'explanation in your response.\n')
    assert checkpoint_prompt("gta", row, gaze="none", mode="reference") == body
    assert checkpoint_prompt("gta", row, gaze="visual", mode="reference") == REFERENCE_GAZE_PREFIX + body
    assert checkpoint_prompt("oaa", row, gaze="visual", mode="reference") == REFERENCE_GAZE_PREFIX + body


def test_default_mc_prompt_six_options_visual():
    six = ["red", "blue", "green", "white", "tray", "black"]
    p = mc_prompt("What color is this object?", six)
    assert p == (GAZE_INSTRUCTION + "\n\nQuestion: What color is this object?\nOptions:\nA. red\nB. blue\n"
                 "C. green\nD. white\nE. tray\nF. black\n"
                 "Answer with only the letter (A, B, C, D, E, or F) of the correct option.")
    for i, opt in enumerate(six):
        assert f"\n{'ABCDEF'[i]}. {opt}\n" in p


def test_default_mc_prompt_none_has_no_gaze_wording():
    p = mc_prompt("What is this?", OPTIONS, gaze="none")
    assert p == ("Question: What is this?\nOptions:\nA. cup\nB. plate\nC. knife\nD. jar\n"
                 "Answer with only the letter (A, B, C, or D) of the correct option.")
    assert not any(w in p.lower() for w in GAZE_WORDS)
    assert mc_prompt("Q?", ["x", "y"], gaze="none").endswith("Answer with only the letter (A or B) of the correct option.")


def test_format_fixations_as_figure_9a():
    assert format_fixations(FIXATIONS, 640, 480) == FORMATTED
    assert format_fixations([], 640, 480) == ""
    with pytest.raises(ValueError):
        format_fixations(FIXATIONS, 0, 480)


def test_text_mode_includes_the_fixations():
    p = mc_prompt("What is this?", OPTIONS, gaze="text", fixations=FIXATIONS, frame_size=(640, 480))
    assert p.startswith("I provide you with gaze fixation information extracted from the video.")
    assert "\n\n" + FORMATTED + "\n\n" in p
    assert p.endswith("Answer with only the letter (A, B, C, or D) of the correct option.")
    assert "green dot" not in p
    empty = mc_prompt("What is this?", OPTIONS, gaze="text", fixations=[], frame_size=(640, 480))
    assert "no fixation in the shown interval" in empty
    with pytest.raises(ValueError, match="frame_size"):
        mc_prompt("What is this?", OPTIONS, gaze="text", fixations=FIXATIONS)


def test_salience_mode_and_reference_text_mode():
    p = mc_prompt("What is this?", OPTIONS, gaze="salience")
    assert p.startswith(SALIENCE_INSTRUCTION + "\n\nQuestion: What is this?")
    ref = mc_prompt("What is this?", OPTIONS, gaze="text", mode="reference", fixations=FIXATIONS,
                    frame_size=(640, 480))
    assert FORMATTED in ref and ref.endswith("\n\n\nQuestion: What is this?\nOptions:\nA. cup\nB. plate\nC. knife"
                                             "\nD. jar\nAnswer the question with only the letter (A, B, C, or D) "
                                             "of the correct option.\n\nThe best option is:")


def test_bad_modes_raise():
    with pytest.raises(ValueError, match="gaze mode"):
        mc_prompt("Q?", OPTIONS, gaze="overlay")
    with pytest.raises(ValueError, match="prompt mode"):
        mc_prompt("Q?", OPTIONS, mode="paper")
    with pytest.raises(ValueError, match="gta and oaa"):
        checkpoint_prompt("nfi", {"question": "Alert me when the plate appears."})


@pytest.mark.parametrize(("question", "target"), [
    ("Monitor my gaze and alert me when I gaze on the <plate>.", "plate"),
    ("Watch the scene and alert me when the <cutting board> first appears.", "cutting board"),
    ("Alert me when I look at the plate.", "plate"),
    ("Alert me when the paper towel appears.", "paper towel"),
])
def test_target_object_from_the_question(question, target):
    assert target_object({"question": question, "metadata": "{}"}) == target
    assert target_object({"question": question}) == target


def test_target_object_prefers_metadata():
    row = {"question": "Alert me when I look at the plate.", "metadata": json.dumps({"target_object": "bowl"})}
    assert target_object(row) == "bowl"
    assert target_object({"question": "x", "metadata": {"target_object": "<jar>"}}) == "jar"
    with pytest.raises(ValueError, match="no target object"):
        target_object({"question_id": "q1", "question": "What is this?", "metadata": "{}"})


def test_default_checkpoint_prompts():
    gta = {"question": "Alert me when I look at the plate.", "metadata": json.dumps({"target_object": "plate"})}
    oaa = {"question": "Watch the scene and alert me when the <kettle> first appears.", "metadata": "{}"}
    assert checkpoint_prompt("gta", gta, gaze="none") == (
        "Question: Is the user gazing at the plate right now (at the end of the video)?\nAnswer Yes or No.")
    assert checkpoint_prompt("oaa", oaa, gaze="none") == (
        "Question: Is the kettle visible right now (at the end of the video)?\nAnswer Yes or No.")
    assert checkpoint_prompt("gta", gta) == GAZE_INSTRUCTION + "\n\n" + checkpoint_prompt("gta", gta, gaze="none")
    text = checkpoint_prompt("gta", gta, gaze="text", fixations=[f for f in FIXATIONS if f["end"] <= 40.0],
                             frame_size=(640, 480))
    assert "Fixation 2 (31.9s-34.1s): Gaze(299, 98)" in text and "Fixation 3" not in text
    assert text.endswith("Answer Yes or No.")


def test_prompts_are_deterministic():
    a = [mc_prompt("Q?", OPTIONS, gaze=g, mode=m, fixations=FIXATIONS, frame_size=(640, 480))
         for g in GAZE_MODES for m in PROMPT_MODES]
    b = [mc_prompt("Q?", OPTIONS, gaze=g, mode=m, fixations=FIXATIONS, frame_size=(640, 480))
         for g in GAZE_MODES for m in PROMPT_MODES]
    assert a == b and len(set(a)) == len(a)
