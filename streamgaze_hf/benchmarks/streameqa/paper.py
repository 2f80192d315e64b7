"""The StreamEQA supplement's Tables 5 (perception), 6 (interaction) and 7 (planning) as reference
rows, never re-scored.

Read from the packaged ``data/paper_table_<level>.csv`` (values as printed, bold removed; "71.08",
"34.01" and "42.05" are kept as printed). One row per model, the three tables merged:

* ``tasks`` has every leaderboard column (``LEADERBOARD_COLUMNS``): the 42 task codes and each
  level's ``Avg.`` (key = the level) as printed; the direction columns are None (the tables print no
  per-direction average);
* ``overall``: the unweighted mean of the three printed level averages (the supplement prints no
  overall number; ``overall_derived`` says so).

All rows were scored by the official code, i.e. our prompt mode ``reference``, with no gaze, on the
full release minus the windows of 1 s or less (which the official code skips).
"""

from __future__ import annotations

import csv
import io
from importlib import resources

from . import LEADERBOARD_COLUMNS, LEVELS, subtasks

PAPER_DATASET = "paper (StreamEQA, 20,731 Q)"
TABLES = {"perception": 5, "interaction": 6, "planning": 7}
#: names as printed -> the model's usual name (Table 5 prints "VideollmOnline", Tables 6-7 "VideoLLMOnline")
MODEL_NAMES = {"Gemini": "Gemini-2.5-Pro", "GPT5": "GPT-5", "VideollmOnline": "VideoLLM-online",
               "VideoLLMOnline": "VideoLLM-online"}


def read_table(level: str) -> list[dict]:
    """The rows of one packaged table: group, model (as printed), frames, {code: value}, avg."""
    text = resources.files(__package__).joinpath("data", f"paper_table_{level}.csv").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    codes = [s.code for s in subtasks(level)]
    rows = []
    for rec in csv.DictReader(io.StringIO("\n".join(lines))):
        rows.append({"group": rec["group"], "model": rec["model"], "frames": rec["frames"],
                     "codes": {c: float(rec[c]) for c in codes}, "avg": float(rec["avg"])})
    return rows


def paper_rows() -> list[dict]:
    """One dict per model, in Table 5's order: ``name``, ``printed`` (the tables' spelling), ``group``
    (offline / online), ``frames``, ``source`` ("paper"), ``gaze`` ("none"), ``prompt_mode``
    ("reference"), ``dataset``, ``tasks`` {column key: value or None}, ``overall`` (fractions), ``overall_derived``."""
    merged: dict[str, dict] = {}
    for level in LEVELS:
        for rec in read_table(level):
            name = MODEL_NAMES.get(rec["model"], rec["model"])
            row = merged.setdefault(name, {
                "name": name, "printed": rec["model"], "group": rec["group"], "frames": rec["frames"],
                "source": "paper", "gaze": "none", "prompt_mode": "reference", "dataset": PAPER_DATASET,
                "tasks": {key: None for key, _label, _hib in LEADERBOARD_COLUMNS}, "overall": None,
                "overall_derived": True})
            row["tasks"].update(rec["codes"])
            row["tasks"][level] = rec["avg"]
    for row in merged.values():
        avgs = [row["tasks"][lv] for lv in LEVELS]
        row["overall"] = round(sum(avgs) / len(avgs), 2) if all(v is not None for v in avgs) else None
        # printed in percent; rows hold fractions like every leaderboard value
        row["tasks"] = {k: None if v is None else v / 100.0 for k, v in row["tasks"].items()}
        row["overall"] = None if row["overall"] is None else row["overall"] / 100.0
    return list(merged.values())
