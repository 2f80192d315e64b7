"""StreamGaze's QA rows: the schema (all ten task configs share ``QA_FEATURES``; unused fields stay empty:
"" / [] / NaN), the validation the writer applies to every row (``qa/validate.py``) and the files a row
refers to."""

from __future__ import annotations

from datasets import Features, List, Value

from .qa.validate import validate_qa_row

__all__ = ["QA_FEATURES", "validate_row", "file_paths"]

QA_FEATURES = Features({
    "question_id": Value("string"),
    "task": Value("string"),
    "category": Value("string"),
    "video_id": Value("string"),
    "source": Value("string"),
    "video_path": Value("string"),  # relative to the dataset root
    "overlay_path": Value("string"),  # relative to the dataset root
    "question": Value("string"),
    "options": List(Value("string")),  # option texts without "A. " labels
    "answer": Value("string"),  # letter; "" for proactive
    "answer_text": Value("string"),
    "query_time": Value("float64"),  # seconds
    "window_start": Value("float64"),
    "window_end": Value("float64"),
    "checkpoints": List({"time": Value("float64"), "label": Value("string")}),  # proactive: label Yes/No
    "fixations": List({"start": Value("float64"), "end": Value("float64"),
                       "x": Value("float64"), "y": Value("float64")}),  # up to the window end
    "metadata": Value("string"),  # JSON object of task-specific extras
})




def validate_row(row: dict, duration: float | None) -> list[str]:
    """The StreamGaze QA rule set (``qa/validate.py``), as the writer applies it to every row."""
    return validate_qa_row(row, duration=duration, min_options=2)


def file_paths(row: dict) -> list[str]:
    return [p for p in (row.get("video_path"), row.get("overlay_path")) if p]
