"""Leaderboard sections (issue 9, submissions): rows are ranked only against rows on the same dataset;
demo-scale submissions never appear ranked among the paper's full-benchmark rows. Fast: no lmms-eval."""

from __future__ import annotations

from streamgaze_hf.benchmarks.streamgaze.leaderboard import (
    FULL_NOTE,
    FULL_RELEASE,
    FULL_TITLE,
    PAPER_QUESTIONS,
    dataset_section,
)
from streamgaze_hf.benchmarks.streamgaze.paper import paper_rows
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.leaderboard.chart import MAX_BARS, chart_caption, chart_rows
from streamgaze_hf.leaderboard.rows import Row, category_means
from streamgaze_hf.leaderboard.sections import group_sections, section_of
from streamgaze_hf.registry import get_benchmark


def manifest(version: str, road: str, questions: int, videos: int = 3) -> dict:
    per_task = {t: questions // len(TASK_IDS) for t in TASK_IDS}
    per_task[TASK_IDS[0]] += questions - sum(per_task.values())
    return {"version": version, "build": {"road": road}, "counts": {"questions": per_task, "videos": videos}}


def submission(name: str, score: float, section: str, dataset: str) -> Row:
    tasks = dict.fromkeys(TASK_IDS, score)
    return Row(name=name, source="submission", tasks=tasks, overall=score, categories=category_means(get_benchmark("streamgaze"), tasks),
               dataset=dataset, section=section)


def test_dataset_sections_tell_the_full_release_from_everything_else():
    key, title, note = dataset_section(manifest("0.1.0", "raw-pipeline", 140))
    assert (key, title) == ("dataset-0.1.0", "Dataset 0.1.0 (140 questions, 3 videos)")
    assert "built by the toolkit" in note and "never against the full benchmark's (8,521 questions)" in note
    key, title, _ = dataset_section(manifest("1.0.0", "official-release", PAPER_QUESTIONS, videos=285))
    assert (key, title) == (FULL_RELEASE, FULL_TITLE)
    key, title, note = dataset_section(manifest("1.1.0", "official-release", 900, videos=20))
    assert (key, title) == ("dataset-1.1.0", "Dataset 1.1.0 (900 questions, 20 videos)")
    assert "imported from part of the official release" in note
    # the shared code asks the benchmark's own rule (its package's leaderboard.py)
    assert section_of(get_benchmark("streamgaze"), manifest("0.1.0", "raw-pipeline", 140))[0] == "dataset-0.1.0"


def test_demo_submissions_are_ranked_apart_from_the_paper_rows():
    paper = paper_rows()
    best_paper = max(r.overall for r in paper if r.source == "paper")
    demo = [submission("Demo strong", 0.99, "dataset-0.1.0", "0.1.0"),
            submission("Demo weak", 0.10, "dataset-0.1.0", "0.1.0")]
    titles = {"dataset-0.1.0": ("Dataset 0.1.0", "demo"), FULL_RELEASE: (FULL_TITLE, FULL_NOTE)}
    sections = group_sections([*paper, *demo], titles)
    assert [s.key for s in sections] == ["dataset-0.1.0", FULL_RELEASE]  # the submissions' section first
    assert [(r.name, r.rank) for r in sections[0].rows] == [("Demo strong", 1), ("Demo weak", 2)]
    full = sections[1].rows
    assert {r.source for r in full} == {"paper", "human"} and len(full) == len(paper)
    assert full[0].name == "Human" and full[0].rank is None  # a reference, never ranked
    ranked = [r for r in full if r.rank is not None]
    assert [r.rank for r in ranked] == list(range(1, len(paper)))
    assert ranked[0].overall == best_paper  # 0.99 on the demo does not push the paper's best to rank 2


def test_full_release_submissions_are_ranked_with_the_paper():
    paper = paper_rows()
    best = max(r.overall for r in paper if r.source == "paper")
    sub = submission("New model", best + 0.01, FULL_RELEASE, "1.0.0")
    (section,) = group_sections([*paper, sub], {FULL_RELEASE: (FULL_TITLE, FULL_NOTE)})
    ranked = [(r.name, r.rank) for r in section.rows if r.rank is not None]
    assert ranked[0] == ("New model", 1) and ranked[1][1] == 2 and len(ranked) == len(paper)


def test_chart_caption_counts_what_it_leaves_out():
    paper = paper_rows()
    n_methods = sum(r.source == "paper" for r in paper)
    subs = [submission(f"S{i}", 0.5, FULL_RELEASE, "1.0.0") for i in range(2)]
    rows = [*subs, *paper]  # one section: the full release
    shown = chart_rows(rows)
    assert len(shown) == MAX_BARS
    caption = chart_caption(rows, shown)
    k = MAX_BARS - 2 - 1
    assert caption == (f"Bars: 2 submission(s) (dataset 1.0.0), the Human row, the {k} best of the paper's "
                       f"{n_methods} methods by overall (at most {MAX_BARS} bars per task; the table lists every "
                       "row).")
    only_paper = chart_caption(paper, chart_rows(paper))
    assert only_paper.startswith(f"Bars: the Human row, the {MAX_BARS - 1} best of the paper's {n_methods} methods")
