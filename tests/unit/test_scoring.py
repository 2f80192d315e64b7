"""Answer parsing and scoring (streamgaze_hf.scoring): our parser, the reference mode, the metrics."""

from __future__ import annotations

import pytest

from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.scoring import (
    mc_metrics,
    parse_choice,
    parse_yes_no,
    proactive_metrics,
    reference_mc_correct,
    reference_parse_choice,
    reference_yes_no_correct,
    summarize,
)

KITCHEN = ["cup", "pot", "knife", "jar"]  # A cup, B pot, C knife, D jar
NO_CUP = ["plate", "bowl", "cup", "jar"]  # cup is C
NO_CUP_AT_ALL = ["plate", "bowl", "fork", "jar"]
KNIFE_FIRST = ["knife", "pot", "cup", "jar"]
KNIFE_THIRD = ["spoon", "pot", "knife", "jar"]
BOARDS = ["board", "cutting board", "pan", "jar"]
FIVE = ["cup", "pot", "knife", "jar", "tray"]
SIX = ["red", "blue", "green", "white", "tray", "black"]
EIGHT = ["red", "blue", "green", "white", "yellow", "black", "brown", "grey"]
NINE = [*EIGHT, "pink"]
ACTIONS = ["Cut the onion.", "Wash the pan.", "Open the fridge.", "Pour the water."]

CHOICE_CASES = [
    # bare letters
    ("B", KITCHEN, "B"),
    (" b ", KITCHEN, "B"),
    ("B.", KITCHEN, "B"),
    ("(C)", KITCHEN, "C"),
    ("[D]", KITCHEN, "D"),
    ("C.", KITCHEN, "C"),
    ("C)", KITCHEN, "C"),
    ("a", KITCHEN, "A"),
    ("A", KITCHEN, "A"),
    ("A.", KITCHEN, "A"),
    ("(a)", KITCHEN, "A"),
    ("**B**", KITCHEN, "B"),
    ("`C`", KITCHEN, "C"),
    ('"D"', KITCHEN, "D"),
    # leading labels
    ("C. pot", KITCHEN, "C"),  # the label wins over the text
    ("C: pot", KITCHEN, "C"),
    ("C) knife", KITCHEN, "C"),
    ("(B) pot", KITCHEN, "B"),
    ("**B. pot**", KITCHEN, "B"),
    ("A. cup", KITCHEN, "A"),
    ("D\nThe jar is inside the red circle.", KITCHEN, "D"),
    ("B is correct", KITCHEN, "B"),
    ("C because the pot is red", KITCHEN, "C"),
    ("A is correct", KITCHEN, "A"),
    ("Option C", KITCHEN, "C"),
    ("A cup", KITCHEN, "A"),  # article or label: both read "cup" = A
    ("A cup", ["plate", "cup", "pot", "jar"], "B"),  # the article: cup is B
    # explicit answers
    ("Answer: B", KITCHEN, "B"),
    ("answer: b", KITCHEN, "B"),
    ("Answer: A", KITCHEN, "A"),
    ("Answer: (A) cup", KITCHEN, "A"),
    ("answer is B", KITCHEN, "B"),
    ("The answer is (B).", KITCHEN, "B"),
    ("The best option is C", KITCHEN, "C"),
    ("The best option is:\nD", KITCHEN, "D"),
    ("**Answer:** C", KITCHEN, "C"),
    ("Final Answer: B", KITCHEN, "B"),
    ("My answer is D", KITCHEN, "D"),
    ("The correct answer is: B. pot", KITCHEN, "B"),
    ("The answer is A because the cup is red", KITCHEN, "A"),
    ("I'd say D", KITCHEN, "D"),
    ("I would choose B", KITCHEN, "B"),
    ("<answer>B</answer>", KITCHEN, "B"),
    ("<answer>pot</answer>", KITCHEN, "B"),
    ("<think>Maybe A or C.</think><answer>C</answer>", KITCHEN, "C"),
    ("The answer is the knife.", KITCHEN, "C"),
    ("The answer is a knife.", KNIFE_THIRD, "C"),
    ("Based on the video, the user is holding a cup. Therefore, the answer is A.", KITCHEN, "A"),
    ("The user looks at the pan first.\nso the answer is\n\nC", KITCHEN, "C"),
    ("The user looked at the pot and then the knife.\nC", KITCHEN, "C"),
    ("Options:\nA. cup\nB. pot\nC. knife\nD. jar\nThe answer is B", KITCHEN, "B"),
    ("The answer is not A, it's C", KITCHEN, "C"),
    # the article "a" is never option A
    ("A cup is on the table, so C", NO_CUP, "C"),
    ("A cup is on the table, so C", KITCHEN, "C"),
    ("It's a cup (C)", NO_CUP, "C"),
    ("It's a cup (C)", NO_CUP_AT_ALL, "C"),
    ("a knife", KNIFE_FIRST, "A"),
    ("a knife", KNIFE_THIRD, "C"),
    ("I think it's a pot", KITCHEN, "B"),
    ("I think it's a pot", ["cup", "pan", "jar", "fork"], None),
    ("A person is holding something.", KITCHEN, None),
    # option text
    ("pot", KITCHEN, "B"),
    ("The pot.", KITCHEN, "B"),
    ("POT", KITCHEN, "B"),
    ("Cups", KITCHEN, "A"),
    ("cutting board", BOARDS, "B"),
    ("The user is looking at the cutting board.", BOARDS, "B"),
    ("the board", BOARDS, "A"),
    ("It's not the pot, it's the knife", KITCHEN, "C"),
    ("The user will wash the pan.", ACTIONS, "B"),
    # letters beyond D
    ("E", KITCHEN, None),
    ("E", FIVE, "E"),
    ("The answer is E", KITCHEN, None),
    ("(E) tray", SIX, "E"),
    ("F. black", SIX, "F"),
    ("H", EIGHT, "H"),
    ("The answer is G.", EIGHT, "G"),
    ("I", NINE, "I"),
    ("I think it is G", NINE, "G"),  # the pronoun "I" is not option I
    ("e.g. the pot", FIVE, "B"),  # "e.g." is not option E
    # ambiguous or unparseable
    ("B or C", KITCHEN, None),
    ("The answer is B or C", KITCHEN, None),
    ("None of the above", KITCHEN, None),
    ("The pot (B) and the knife (C) are both visible.", KITCHEN, None),
    ("Options:\nA. cup\nB. pot\nC. knife\nD. jar", KITCHEN, None),
    ("<answer></answer>", KITCHEN, None),
    ("", KITCHEN, None),
    ("   \n\t ", KITCHEN, None),
    ("I cannot determine this from the video.", KITCHEN, None),
    ("B", [], None),
]


@pytest.mark.parametrize(("response", "options", "expected"), CHOICE_CASES)
def test_parse_choice(response, options, expected):
    assert parse_choice(response, options) == expected


def test_parse_choice_table_is_large_and_deterministic():
    assert len(CHOICE_CASES) >= 60
    for response, options, expected in CHOICE_CASES:
        assert parse_choice(response, options) == parse_choice(response, list(options)) == expected


YES_NO_CASES = [
    ("Yes", True), ("yes.", True), ("YES", True), ("Yes!", True), ("No", False), ("no, the cup is not visible", False),
    ("Yes, the user is gazing at it", True), ("Answer: No", False), ("answer: yes", True),
    ("The answer is no.", False), ("<answer>yes</answer>", True), ("<answer>No</answer>", False),
    ("Y", True), ("N", False), ("y.", True), ("Nope", False), ("Yep", True), ("Yeah, it is.", True),
    ("Not yet", False), ("Not yet.", False), ("Correct.", True), ("I would say yes", True),
    ("There is no plate", False), ("Yes, no doubt", True), ("**No**", False),
    ("I don't know", None), ("I do not know.", None), ("not sure", None), ("maybe", None), ("", None),
    ("   ", None), ("Yes and no", None), ("yes or no?", None), ("Yes. No.", None), ("nothing", None),
    ("yesterday", None), ("I know", None), ("That is not correct", None), ("Maybe yes", None),
    ("<answer></answer>", None),
]


@pytest.mark.parametrize(("response", "expected"), YES_NO_CASES)
def test_parse_yes_no(response, expected):
    assert parse_yes_no(response) is expected


# ---- reference mode --------------------------------------------------------------------------------

@pytest.mark.parametrize(("response", "expected"), [
    ("It's a cup (C)", "A"),  # bug 4: the article read as A
    ("I'd say D", "D"),  # "I'D" -> the D after the apostrophe is a word
    ("(C)", "C"), (" b ", "B"), ("The answer is B", "B"), ("E", "E"), ("(E) tray", "(E) TRAY"),
    ("pot", "POT"), ("", ""), (None, "NONE"),
])
def test_reference_parse_choice(response, expected):
    assert reference_parse_choice(response) == expected


def test_reference_mc_correct_normalises_both_sides():
    assert reference_mc_correct("It's a cup (C)", "A")
    assert not reference_mc_correct("It's a cup (C)", "C")
    assert reference_mc_correct(" c. knife", "C")
    assert reference_mc_correct("E", "e")  # letters beyond D only as the whole string
    assert not reference_mc_correct("(E)", "E")


def test_reference_yes_no_substring_bugs():
    assert reference_yes_no_correct("I don't know", False)  # bug 5: "KNOW" contains NO
    assert reference_yes_no_correct("Not yet", False)
    assert reference_yes_no_correct("Yes and no", True) and reference_yes_no_correct("Yes and no", False)
    assert reference_yes_no_correct("yesterday", True)
    assert reference_yes_no_correct(" yes ", True)
    assert not reference_yes_no_correct("Yes", False)
    assert not reference_yes_no_correct("", True) and not reference_yes_no_correct("", False)
    # our parser does not share the bugs
    assert parse_yes_no("I don't know") is None and parse_yes_no("yesterday") is None


# ---- metrics -------------------------------------------------------------------------------------------

def test_mc_metrics():
    m = mc_metrics([True, False, True, True, False], unparsed=1)
    assert m == {"accuracy": 0.6, "n": 5, "n_correct": 3, "n_unparsed": 1}
    assert mc_metrics([]) == {"accuracy": 0.0, "n": 0, "n_correct": 0, "n_unparsed": 0}


def test_proactive_metrics_hand_computed():
    pairs = [
        (True, True), (True, True), (False, True), (None, True),  # tp 2, fn 1, unparsed-yes -> fn
        (False, False), (False, False), (True, False), (None, False),  # tn 2, fp 1, unparsed-no -> fp
    ]
    m = proactive_metrics(pairs)
    assert (m["tp"], m["fp"], m["tn"], m["fn"]) == (2, 2, 2, 2)
    assert m["n"] == 8 and m["n_unparsed"] == 2
    assert m["accuracy"] == pytest.approx(4 / 8)
    assert m["precision"] == pytest.approx(2 / 4)
    assert m["recall"] == pytest.approx(2 / 4)
    assert m["f1"] == pytest.approx(0.5)
    assert m["fpr"] == pytest.approx(2 / 4)
    assert m["fnr"] == pytest.approx(2 / 4)


def test_proactive_metrics_asymmetric():
    pairs = [(True, True), (True, True), (True, True), (True, False), (False, True), (False, False),
             (False, False), (False, False), (False, False), (None, True)]
    m = proactive_metrics(pairs)
    assert (m["tp"], m["fp"], m["tn"], m["fn"]) == (3, 1, 4, 2)
    assert m["accuracy"] == pytest.approx(0.7)
    assert m["precision"] == pytest.approx(3 / 4)
    assert m["recall"] == pytest.approx(3 / 5)
    assert m["f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert m["fpr"] == pytest.approx(1 / 5)
    assert m["fnr"] == pytest.approx(2 / 5)


def test_proactive_metrics_empty_denominators_are_undefined():
    m = proactive_metrics([(False, False), (False, False)])  # no positives predicted or labelled
    assert m["accuracy"] == 1.0
    assert m["fpr"] == 0.0  # 0 of 2 negatives called Yes: defined
    assert m["precision"] is None and m["recall"] is None and m["f1"] is None and m["fnr"] is None
    never_yes = proactive_metrics([(False, True), (False, False)])
    assert never_yes["precision"] is None  # the model never said Yes
    assert (never_yes["recall"], never_yes["f1"], never_yes["fnr"], never_yes["fpr"]) == (0.0, 0.0, 1.0, 0.0)
    empty = proactive_metrics([])
    assert empty["n"] == 0 and empty["accuracy"] == 0.0
    assert [empty[k] for k in ("precision", "recall", "f1", "fpr", "fnr")] == [None] * 5
    all_unparsed = proactive_metrics([(None, True), (None, False)])
    assert (all_unparsed["fn"], all_unparsed["fp"], all_unparsed["accuracy"]) == (1, 1, 0.0)
    assert all_unparsed["precision"] == 0.0 and all_unparsed["fpr"] == all_unparsed["fnr"] == 1.0


def test_summarize():
    scores = dict(zip(TASK_IDS, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]))
    s = summarize(scores, get_benchmark("streamgaze"))
    assert s["overall"] == pytest.approx(0.55)
    assert s["past"] == pytest.approx(0.25)  # nfi otp gsm sr
    assert s["present"] == pytest.approx(0.65)  # oi_easy oi_hard oar fap
    assert s["proactive"] == pytest.approx(0.95)  # gta oaa
    assert set(s) == {"overall", "past", "present", "proactive"}


def test_summarize_requires_all_ten_tasks():
    scores = dict.fromkeys(TASK_IDS, 0.5)
    del scores["gta"], scores["sr"]
    with pytest.raises(ValueError, match="sr, gta"):
        summarize(scores, get_benchmark("streamgaze"))
    with pytest.raises(ValueError, match="unknown tasks: oi-easy"):
        summarize({**dict.fromkeys(TASK_IDS, 0.5), "oi-easy": 0.1}, get_benchmark("streamgaze"))


def test_summarize_takes_any_benchmark_s_categories():
    ego = get_benchmark("egogazevqa")
    scores = dict(zip(ego.task_ids, [0.2, 0.4, 0.9]))
    s = summarize(scores, ego)
    assert set(s) == {"overall", *ego.categories}
    assert s["overall"] == pytest.approx(0.5)
    for cat in ego.categories:  # one task per category: its mean is that task's score
        assert s[cat] == pytest.approx(scores[ego.tasks_in(cat)[0].id])
    with pytest.raises(ValueError, match="3 EgoGazeVQA task scores"):
        summarize({"spatial": 0.1}, ego)
