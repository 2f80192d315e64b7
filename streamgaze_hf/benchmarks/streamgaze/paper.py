"""The paper's Table 2 (incl. the Human row) as leaderboard rows, marked "reported in the paper".

Read from the packaged copy ``data/paper_table2.csv`` (the project's reference file): past/present
columns are accuracy, proactive (gta, oaa) columns are checkpoint accuracy, and the overall is the
paper's own number (AssistGaze has no proactive scores: blank, and its overall is over eight tasks as
in the paper). These rows are never re-scored.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

from ...leaderboard import Row, category_means
from . import BENCHMARK
from .leaderboard import FULL_RELEASE
from .tasks import TASK_IDS

__all__ = ["PAPER_CSV", "paper_rows", "PAPER_DATASET"]

PAPER_CSV = "paper_table2.csv"
#: how paper rows are labelled in the dataset column
PAPER_DATASET = "paper (8,521 Q)"
# The paper's numbers come from the official code's prompts and parser, i.e. our prompt mode "reference".
PAPER_PROMPT_MODE = "reference"


def _read_csv() -> list[dict[str, str]]:
    text = resources.files(__package__).joinpath("data", PAPER_CSV).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def _score(text: str | None) -> float | None:
    text = (text or "").strip()
    return float(text) if text else None


def _setting(text: str | None) -> str:
    text = (text or "").strip()
    return "" if text in ("", "-") else text


def paper_rows() -> list[Row]:
    """One row per method of Table 2, Human first, in the paper's order."""
    rows = []
    for rec in _read_csv():
        tasks = {t: _score(rec.get(t)) for t in TASK_IDS}
        human = rec["group"].strip() == "human"
        rows.append(Row(name=rec["method"].strip(), source="human" if human else "paper", tasks=tasks,
                        overall=_score(rec.get("overall")), categories=category_means(BENCHMARK, tasks),
                        dataset=PAPER_DATASET, gaze="visual", prompt_mode="" if human else PAPER_PROMPT_MODE,
                        frames=_setting(rec.get("frames")), params=_setting(rec.get("params")),
                        group=rec["group"].strip(), section=FULL_RELEASE))
    return rows
