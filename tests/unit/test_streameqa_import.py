"""Import of the official StreamEQA annotation files (issue 14): exact counts and windows, realtime in
seconds and HH:MM:SS, options with and without "A." prefixes, bad items reported, --strict failing on
the file and item, windows of 1 s or less kept and reported; the task table and the paper rows."""

from __future__ import annotations

import json

import pytest

from streamgaze_hf.benchmarks.streameqa import LEVELS, SUBTASKS, subtasks
from streamgaze_hf.benchmarks.streameqa.release import import_release, parse_options, parse_realtime
from streamgaze_hf.cli import main as cli_main
from streamgaze_hf.dataset.files import read_manifest
from streamgaze_hf.dataset.load import load_task, open_dataset
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.streameqa_fixture import REALTIMES, SPECIAL, V1, V2, expected, write_release


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    base = tmp_path_factory.mktemp("eqa_import")
    release = write_release(base / "release")
    report = import_release(release, base / "streameqa", "1.0.0", progress=False)
    return release, base / "streameqa", report


def test_task_table_has_the_supplements_42_codes():
    assert len(SUBTASKS) == 42 == len({s.code for s in SUBTASKS})
    assert [len(subtasks(lv)) for lv in LEVELS] == [13, 16, 13]
    assert [s.code for s in subtasks("perception", "realtime")] == ["OPR", "ORQ", "ARR", "RRR", "SUR"]
    assert [s.code for s in subtasks("interaction", "forward")] == ["NAP", "EPD", "ERD", "AIP", "ARP", "FRC"]
    assert [s.code for s in subtasks("planning", "backward")] == ["PRF", "BPO", "BPR"]
    assert {s.direction for s in subtasks("planning")} == {"backward", "realtime", "forward"}
    bench = get_benchmark("streameqa")
    assert bench.task_ids == LEVELS and bench.task("planning").option_count == 4
    assert bench.lmms_task_name("interaction") == "streameqa_interaction"


def test_counts_and_report(imported):
    _release, root, report = imported
    exp = expected()
    assert report.imported == exp["imported"]
    assert dict(report.skipped) == exp["skipped"]
    assert {k: v for k, v in report.notes.items() if v} == exp["notes"]
    assert report.videos == 2
    text = report.format()
    assert "short_window" in text and "kept (the official code skips it)" in text
    assert "data/annotations/Perception.json entry" in text
    manifest = read_manifest(root)
    assert manifest["build"]["options"]["context_s"] == 64.0
    assert manifest["build"]["report"]["notes"]["short_window"] == 3
    assert set(manifest["build"]["inputs"]) == {f"data/annotations/{n}" for n in
                                                    ("Perception.json", "Interaction.json", "Planning_all.json")}
    for level in LEVELS:
        assert len(load_task(level, root)) == exp["imported"][level]
    videos = {r["video_id"]: r for r in open_dataset(root).load_config("videos")}
    assert set(videos) == {V1, V2} and videos[V1]["duration"] == pytest.approx(80.0, abs=0.6)


def test_rows_windows_and_fields(imported):
    _release, root, _report = imported
    rows = {r["release_id"]: dict(r) for r in load_task("perception", root)}
    first = rows["OPB-0"]
    assert (first["task_code"], first["task_name"], first["direction"]) == ("OPB", "Object Perception Backward",
                                                                            "backward")
    assert first["options"] == ["OPB-0: the pan", "OPB-0: the knife", "OPB-0: the bowl", "OPB-0: the tap"]
    assert first["answer"] == "A" and first["answer_index"] == 0 and first["answer_text"] == "OPB-0: the pan"
    assert first["video_path"] == f"videos/original/{V1}.mp4" and first["participant"] == "P01"
    codes = [s.code for s in subtasks("perception")]
    for j, code in enumerate(codes):
        raw, seconds, win = REALTIMES[j % len(REALTIMES)]
        row = rows[f"{code}-{j}"]
        assert row["realtime"] == str(raw) and row["query_time"] == seconds
        assert (row["window_start"], row["window_end"]) == win and not row["short_window"]
        assert row["answer"] == "ABCD"[j % 4]
        assert not row["options"][0].startswith("A.")  # prefixes stripped (even items had them)
    for qid, video, _raw, _task, win, short in SPECIAL:
        row = rows[qid]
        assert row["video_id"] == video and (row["window_start"], row["window_end"]) == win
        assert row["short_window"] is short
    assert (rows["two"]["task_code"], rows["two"]["direction"]) == ("SUR", "realtime")  # given by its name
    assert rows["late"]["query_time"] == 40.0  # the query time is kept, the window clamped at the end
    same_id = sorted((r["question_id"], r["question"]) for r in load_task("perception", root)
                     if r["release_id"] == "OPB-0")
    assert same_id == [("streameqa-perception-OPB-0", "What about OPB number 0?"),
                       ("streameqa-perception-OPB-0-18", "What about OPB number 18?")]
    planning = {r["release_id"]: r for r in load_task("planning", root)}
    assert planning["MUS-11"]["direction"] == "forward" and planning["MUS-11"]["task_name"] == "Move-up Steps"


def test_strict_fails_on_the_first_bad_item_naming_file_and_item(imported, tmp_path):
    release, _root, _report = imported
    with pytest.raises(StreamGazeError) as e:
        import_release(release, tmp_path / "strict", "1.0.0", strict=True, progress=False)
    msg = str(e.value)
    n_good = len(subtasks("perception")) + len(SPECIAL) + 1
    assert "Perception.json" in msg and f"entry {n_good}: bad_options" in msg, msg
    assert not (tmp_path / "strict").exists()
    # the CLI: the same failure, and without --strict the report
    assert cli_main(["import", "streameqa", str(release), "--out", str(tmp_path / "cli"), "--version", "1.0.0",
                     "--strict"]) != 0
    assert not (tmp_path / "cli").exists()


def test_cli_import_and_context_setting(imported, tmp_path, capsys):
    release, _root, _report = imported
    assert cli_main(["import", "streameqa", str(release), "--out", str(tmp_path / "c30"), "--version", "1.0.0",
                     "--context-s", "30"]) == 0
    out = capsys.readouterr().out
    assert "Imported 48 questions" in out and "short_window" in out
    row = next(r for r in load_task("perception", tmp_path / "c30")
               if r["question_id"] == "streameqa-perception-OPB-0")
    assert (row["window_start"], row["window_end"], row["context_s"]) == (45.0, 75.0, 30.0)


def test_parsers():
    assert parse_realtime(83) == 83.0 and parse_realtime("83.5") == 83.5
    assert parse_realtime("00:01:23") == 83.0 and parse_realtime("1:02:03.5") == 3723.5
    assert parse_realtime("01:23") == 83.0 and parse_realtime("1:75") == 135.0  # as the official parser
    for bad in ("soon", "1:xx", "", -1, None, True, "nan"):
        assert parse_realtime(bad) is None, bad
    assert parse_options(["A. x", "B. y", "C) z", "D: w"]) == (["x", "y", "z", "w"], True)
    assert parse_options(["x", "y", "z", "w"]) == (["x", "y", "z", "w"], False)
    assert parse_options(["B. x", "A. y", "C. z", "D. w"]) == (None, False)
    assert parse_options(["x", "y", "z"]) == (None, False)


def test_paper_rows_tables_5_to_7():
    rows = get_benchmark("streameqa").leaderboard.reference_rows()
    assert len(rows) == 13
    gem = rows[0]
    assert gem["name"] == "Gemini-2.5-Pro" and gem["source"] == "paper" and gem["prompt_mode"] == "reference"
    assert gem["gaze"] == "none" and gem["group"] == "offline" and gem["frames"] == "1fps"
    # printed in percent, held as fractions (every leaderboard value is a fraction)
    assert (gem["tasks"]["OPB"], gem["tasks"]["ARB"], gem["tasks"]["FPO"]) == pytest.approx((0.642, 0.763, 0.607))
    assert (gem["tasks"]["perception"], gem["tasks"]["interaction"], gem["tasks"]["planning"]) == pytest.approx(
        (0.701, 0.564, 0.525))
    assert gem["tasks"]["backward"] is None and gem["overall"] == pytest.approx((0.701 + 0.564 + 0.525) / 3, abs=1e-4)
    ego = next(r for r in rows if r["name"] == "EgoGPT")
    assert (ego["tasks"]["EMM"], ego["tasks"]["interaction"]) == pytest.approx((0.783, 0.605))
    online = next(r for r in rows if r["name"] == "VideoLLM-online")
    assert online["group"] == "online" and online["tasks"]["ERD"] == pytest.approx(0.002)
    assert online["tasks"]["planning"] == pytest.approx(0.372)
    assert all(set(r["tasks"]) == {c.key for c in get_benchmark("streameqa").leaderboard.score_columns()}
               for r in rows)
    assert json.dumps(rows)  # plain data
