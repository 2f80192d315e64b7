"""Reasoning variants (paper Table 4, Figs. 19-21): prompts, <answer> extraction, scoring, task files."""


import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation, prompts
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.harness.task_files import committed_tasks_dir
from streamgaze_hf.registry import get_benchmark, task_index
from streamgaze_hf.scoring import reasoning_answer

FIG19 = ("You are an expert at gaze-conditioned streaming video reasoning.\n\nRules:\n"
         "1) Only use visual evidence up to the given timestamp.\n"
         "2) Do your step-by-step reasoning ONLY inside <think>...</think>.\n"
         "3) Give exactly ONE final choice (A/B/C/D) or yes/no with its short text inside <answer>...</answer>.")


def test_reference_instructions_keep_the_paper_wording():
    assert prompts.reasoning_instruction("text", "reference", 8) == FIG19
    gaze = prompts.reasoning_instruction("gaze", "reference")
    assert gaze.count("\n") == 8 and "3) Return exactly three tags in order: <gaze>...</gaze> <think>...</think> " \
        "<answer>...</answer>." in gaze
    visual = prompts.reasoning_instruction("visual", "reference")
    assert visual.endswith("7) In <answer>, provide exactly ONE final label (A/B/C/D or Yes/No) with a short "
                           "justification.")
    assert "5) In <objects>, ground the most relevant objects" in visual
    # default mode names the question's own letters
    assert "(A/B/C/D/E/F/G/H)" in prompts.reasoning_instruction("text", "default", 8)
    with pytest.raises(ValueError):
        prompts.reasoning_instruction("vibes")


def test_reasoning_prompts_wrap_the_question():
    p = prompts.mc_reasoning_prompt("text", "What did I look at?", ["cup", "pot"], gaze="none")
    assert p == (prompts.reasoning_instruction("text", "default", 2)
                 + "\n\nQuestion: What did I look at?\nOptions:\nA. cup\nB. pot")
    ref = prompts.mc_reasoning_prompt("gaze", "What?", ["cup", "pot", "pan", "jar"], mode="reference")
    assert ref.startswith(prompts.REFERENCE_GAZE_PREFIX + "You are an expert") and "Answer with only" not in ref
    row = {"question_id": "q", "question": "Alert me when I look at the kettle.", "metadata": "{}"}
    cp = prompts.checkpoint_reasoning_prompt("visual", "gta", row)
    assert cp.startswith(prompts.GAZE_INSTRUCTION + "\n\nYou are an expert")
    assert cp.endswith("Question: Is the user gazing at the kettle right now (at the end of the video)?")
    assert prompts.checkpoint_reasoning_prompt("text", "gta", row, gaze="none", mode="reference").endswith(
        "Question: Alert me when I look at the kettle.")


@pytest.mark.parametrize("response,expected", [
    ("<think>A looks wrong; maybe C</think>\n<answer>B. cup</answer>", "B. cup"),
    ("<gaze>(0.4, 0.5), r=0.1</gaze><objects>A: bowl</objects><think>so D</think> C", "C"),
    ("<think>I keep thinking about option A", ""),
    ("<answer>A</answer> <answer>D. pan</answer>", "D. pan"),
    ("Just B", "Just B"),
])
def test_reasoning_answer_ignores_the_reasoning(response, expected):
    assert reasoning_answer(response) == expected


def _doc(task, **kw):
    base = {"question_id": "q1", "task": task, "video_id": "v", "checkpoint_index": -1, "gaze": "visual",
            "prompt_mode": "default", "clip_fps": 0.0, "options": ["cup", "pot", "pan", "jar"], "answer": "C",
            "reasoning": "gaze"}
    return {**base, **kw}


def test_scoring_reads_only_the_answer_tag_in_both_prompt_modes():
    resp = "<gaze>center (0.5,0.5)</gaze><think>A is the bowl, not it. D neither.</think><answer>C. pan</answer>"
    for mode in ("default", "reference"):
        rec = evaluation.score_doc(_doc("oi_easy", prompt_mode=mode), resp)
        assert rec["parsed"] == "C" and rec["correct"] and rec["response"] == resp and rec["reasoning"] == "gaze"
    # without the reasoning setting the reference parser reads the first letter of the reasoning
    plain = evaluation.score_doc(_doc("oi_easy", prompt_mode="reference", reasoning=""), resp)
    assert plain["parsed"] == "A" and not plain["correct"] and "reasoning" not in plain
    rec = evaluation.score_doc(_doc("oi_easy"), "<think>C or B?")
    assert rec["parsed"] is None and not rec["correct"]
    yes = evaluation.score_doc(_doc("gta", checkpoint_index=0, checkpoint_time=5.0, checkpoint_label="Yes"),
                               "<think>No sign yet... no, wait.</think><answer>Yes, the kettle.</answer>")
    assert yes["parsed"] == "Yes" and yes["correct"]


def test_reasoning_task_files_name_their_variant():
    base = committed_tasks_dir() / "streamgaze"
    for suffix, reasoning in get_benchmark("streamgaze").lmms.reasoning.items():
        for spec in TASKS:
            text = (base / f"{spec.lmms_name}{suffix}.yaml").read_text()
            assert f"dataset_name: {spec.id}\n" in text
            assert f"process_docs: !function glue.process_docs{suffix}\n" in text
            task = task_index().lmms_task(f"{spec.lmms_name}{suffix}")
            assert (task.task_id, task.gaze, task.reasoning, task.suffix) == (spec.id, "visual", reasoning, suffix)
            assert "max_new_tokens: 1024" in text and "until: []" in text
        assert (base / f"_group_streamgaze{suffix}.yaml").is_file()


def test_reasoning_docs_of_the_demo_dataset(demo_dataset):
    docs = evaluation.load_docs("oar", "visual", demo_dataset, reasoning="visual")
    d = docs[0]
    n = len(d["options"])
    prompt = evaluation.doc_prompt(d)
    assert prompt.startswith(prompts.GAZE_INSTRUCTION) and f"({'/'.join(chr(65 + i) for i in range(n))} or Yes/No)" in prompt
    assert prompt.endswith(f"{chr(64 + n)}. {d['options'][-1]}")
    g = evaluation.load_docs("gta", "visual", demo_dataset, reasoning="text")
    assert all(doc["reasoning"] == "text" for doc in g) and "<answer>" in evaluation.doc_prompt(g[0])
