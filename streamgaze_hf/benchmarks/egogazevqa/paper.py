"""The EgoGazeVQA paper's Table 3 (incl. the Human row) as reference rows, never re-scored.

Read from the packaged ``data/paper_table3.csv``. Each row: the method, its gaze-prompting strategy
as our gaze mode (``none``, ``text``, ``visual``, ``salience``; "" for the human row), the three
category accuracies (%) and the paper's own average, as printed; rows hold them as fractions. The paper scored with the official exact-match
rule, i.e. our prompt mode ``reference``.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

from . import CATEGORIES

PAPER_CSV = "paper_table3.csv"
PAPER_DATASET = "paper (1,757 Q)"
STRATEGY_TO_GAZE = {"w/o": "none", "T": "text", "V": "visual", "S": "salience", "/": ""}


def paper_rows() -> list[dict]:
    """One dict per Table 3 row, in the paper's order: ``name``, ``group`` (human / api / open),
    ``source`` ("human" or "paper"), ``gaze``, ``strategy`` (as printed), ``tasks`` {category: accuracy},
    ``overall`` (the paper's Avg.), fractions (the table prints percent), ``dataset``, ``prompt_mode``."""
    text = resources.files(__package__).joinpath("data", PAPER_CSV).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    rows = []
    for rec in csv.DictReader(io.StringIO("\n".join(lines))):
        human = rec["group"] == "human"
        rows.append({"name": rec["method"], "group": rec["group"], "source": "human" if human else "paper",
                     "gaze": STRATEGY_TO_GAZE[rec["strategy"]], "strategy": rec["strategy"],
                     "tasks": {c: float(rec[c]) / 100.0 for c in CATEGORIES}, "overall": float(rec["avg"]) / 100.0,
                     "dataset": PAPER_DATASET, "prompt_mode": "" if human else "reference"})
    return rows
