"""The VL4Gaze paper's main results table (§5.2) as reference rows, never re-scored.

Read from the packaged ``data/paper_main.csv``. Each row, in the dict shape of the other benchmarks'
``paper_rows`` (``name, group, source, gaze, prompt_mode, dataset, tasks, overall``): ``tasks`` maps the
leaderboard column keys of the registry (``COLUMN_METRICS``) to the printed values (``god_rouge_l``
is None: the table has no ROUGE-L), ``overall`` is None (the paper gives no single score over metrics
of different units), ``setting`` is ``icl`` or ``sft`` (fine-tuned on VL4Gaze) and ``dataset`` names the
test set (the 1K subset for the commercial APIs, the full test set otherwise).
"""

from __future__ import annotations

import csv
import io
from importlib import resources

from . import COLUMN_METRICS

PAPER_CSV = "paper_main.csv"
TEST_SETS = {"1k": "paper (VL4Gaze-1K test subset)", "full": "paper (full test set, 4.6K per task)"}
#: CSV column -> leaderboard column key
CSV_COLUMNS = {"bleu": "god_bleu", "judge": "god_judge", "angle": "gdd_angle", "gdd_acc": "gdd_acc", "l2": "gpl_l2",
               "gpl_acc": "gpl_inout_acc", "aqr_f1": "aqr_f1"}


def paper_rows() -> list[dict]:
    """One dict per row of the paper's main table, in the paper's order."""
    text = resources.files(__package__).joinpath("data", PAPER_CSV).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    rows = []
    for rec in csv.DictReader(io.StringIO("\n".join(lines))):
        values = {CSV_COLUMNS[k]: float(rec[k]) for k in CSV_COLUMNS}
        rows.append({"name": rec["method"], "group": rec["group"], "source": "paper", "gaze": "none",
                     "prompt_mode": "reference", "setting": rec["setting"], "dataset": TEST_SETS[rec["test_set"]],
                     "tasks": {key: values.get(key) for key in COLUMN_METRICS}, "overall": None})
    return rows
