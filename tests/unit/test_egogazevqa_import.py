"""EgoGazeVQA release import (issue 13): official-layout CSV/JSON fixtures with invented values."""

from __future__ import annotations

import json
import math

import cv2
import datasets
import numpy as np
import pytest

from streamgaze_hf.benchmarks.egogazevqa.release import import_release, parse_answer, parse_options
from streamgaze_hf.cli import main as cli_main
from streamgaze_hf.dataset.files import read_manifest
from streamgaze_hf.dataset.load import open_dataset
from streamgaze_hf.dataset.stats import compute_stats, format_stats
from streamgaze_hf.dataset.writer import verify_dataset
from streamgaze_hf.registry import benchmarks, get_benchmark
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.egogazevqa_fixture import (
    CLIPS,
    EXPECTED,
    FRAMES,
    OPTIONS,
    SKIPPED,
    colour,
    gaze_at,
    write_release,
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    base = tmp_path_factory.mktemp("ego")
    release = write_release(base / "release")
    report = import_release(release, base / "out" / "egogazevqa", "1.0.0", progress=False)
    return release, base / "out" / "egogazevqa", report


def _rows(root):
    return {r["question"]: r for task in ("spatial", "temporal", "causal")
            for r in open_dataset(root).load_config(task)}


def test_registry_declares_both_benchmarks():
    names = [b.name for b in benchmarks()]
    assert names == ["streamgaze", "egogazevqa", "streameqa", "vl4gaze"]
    ego = get_benchmark("egogazevqa")
    assert ego.task_ids == ("spatial", "temporal", "causal")
    assert {t.option_count for t in ego.tasks} == {5}
    assert ego.lmms_task_name("causal", "salience") == "egogazevqa_causal_gazes"
    sg = get_benchmark("streamgaze")
    assert len(sg.tasks) == 10 and sg.lmms_task_name("oi_easy", "text") == "streamgaze_oi_easy_textgaze"
    assert sg.task("gta").checkpointed and sg.metric_names("gta")[-1] == "fnr"
    with pytest.raises(KeyError, match="benchmarks are streamgaze, egogazevqa"):
        get_benchmark("nope")


def test_option_and_answer_cells():
    assert parse_options("A: x\nB: y\nC: z\nD: w\nE: v") == ["x", "y", "z", "w", "v"]
    assert parse_options("A. x\r\nB) y\n(C) z\nD: w that\ncontinues\nE: v") == ["x", "y", "z", "w that continues", "v"]
    assert parse_options("A: x\nC: y\nB: z\nD: w\nE: v") is None  # out of order
    assert parse_options("A: x\nB: y\nC: z\nD: w\nE: v\nF: u") is None  # six options
    assert parse_options("x\nB: y") is None
    assert parse_answer("C") == ("C", True)
    assert parse_answer("C.") == ("C", False) and parse_answer("**D**") == ("D", False)
    assert parse_answer("E: The sink.") == ("E", False)
    assert parse_answer("F") == (None, False) and parse_answer("") == (None, False)


def test_counts_answers_and_report(imported):
    _, root, report = imported
    assert report.imported == {"spatial": 2, "temporal": 2, "causal": 1} and report.videos == 4
    assert dict(report.skipped) == SKIPPED
    assert report.notes["missing_category_file"] == 6 and report.notes["answer_normalised"] == 1
    assert report.notes["frame_without_gaze"] == 2 and report.notes["frame_from_video"] == 9
    rows = _rows(root)
    assert set(rows) == set(EXPECTED)
    for question, (cat, source, vid, answer, scenario, activity) in EXPECTED.items():
        r = rows[question]
        assert (r["task"], r["category"], r["source"], r["video_id"], r["answer"]) == (cat, cat, source, vid, answer)
        assert (r["scenario"], r["activity"]) == (scenario, activity)
        assert r["options"] == OPTIONS and r["answer_text"] == OPTIONS["ABCDE".index(answer)]
        assert len(r["frames"]) == 9 and (r["width"], r["height"]) == (64, 48)
        assert r["question_id"].startswith(f"egogazevqa-{cat}-{source}-")
    counts = read_manifest(root)["build"]["report"]
    assert counts["skipped"] == SKIPPED and counts["imported"] == report.imported


def test_per_frame_gaze_and_files(imported):
    release, root, _ = imported
    rows = _rows(root)
    clip_index = {vid: i for i, (_, vid) in enumerate(CLIPS)}
    for question, (_, source, vid, *_rest) in EXPECTED.items():
        ci = clip_index[vid]
        for k, f in enumerate(rows[question]["frames"]):
            assert f["frame"] == FRAMES[k] and math.isclose(f["time"], FRAMES[k] / 30.0)
            if vid == "e4-alpha" and FRAMES[k] == 150:
                assert not f["gaze_valid"] and math.isnan(f["gaze_x"])
            else:
                assert f["gaze_valid"] and (f["gaze_x"], f["gaze_y"]) == gaze_at(k, ci)
            assert f["path"].startswith(f"frames/{source}/{vid}/")
            image = cv2.imread(str(root / f["path"]))
            # the stored keyframe is the release's (or, for take-clip, the decoded clip frame)
            assert np.abs(image.reshape(-1, 3).mean(0) - np.array(colour(k, ci))).max() < 6, (vid, k)
    assert rows["Which object came last?"]["frames"][0]["path"] == "frames/egoexo4d/take-clip/30.png"
    assert rows["Which object came last?"]["video_path"] == "videos/original/take-clip.mp4"
    assert rows["Why did I open the fridge?"]["frames"][0]["caption"] == "#C C does step 0 in P01-R01-Salad"
    gaze = open_dataset(root).load_config("gaze")
    assert len(gaze) == 36 and sum(not v for v in gaze["valid"]) == 1
    videos = {v["video_id"]: v for v in open_dataset(root).load_config("videos")}
    assert videos["take-clip"]["n_frames"] == 300 and videos["take-clip"]["fps"] == 30.0
    assert videos["take-med"]["duration"] == 9.0 and videos["take-med"]["video_path"] == ""
    assert verify_dataset(root) == []


def test_loads_with_datasets_and_card(imported):
    _, root, _ = imported
    assert datasets.get_dataset_config_names(str(root)) == ["spatial", "temporal", "causal", "videos", "gaze", "previews"]
    ds = datasets.load_dataset(str(root), "causal", split="test", cache_dir=str(root.parent / "c2"))
    assert ds[0]["answer"] == "D" and len(ds[0]["frames"]) == 9
    card = (root / "README.md").read_text()
    assert "# EgoGazeVQA 1.0.0" in card and "pretty_name: EgoGazeVQA" in card
    # not our annotations to license: the card says whose terms apply instead of StreamGaze's CC-BY-4.0
    assert "\nlicense: other\n" in card and "cc-by-4.0" not in card.lower()
    assert "Ego4D and Ego-Exo4D need a signed licence agreement" in card
    manifest = read_manifest(root)
    assert manifest["name"] == "egogazevqa" and manifest["version"] == "1.0.0"
    assert set(manifest["build"]["inputs"]) == {"qa/spatial_ego4d.csv", "qa/temporal_egoexo.csv",
                                               "reasoning/causal_egtea.csv", "narrations/ego4d.json",
                                               "narrations/egoexo.json", "narrations/egtea.json"}
    stats = compute_stats(root)
    assert stats["benchmark"] == "egogazevqa" and stats["categories"] == {"spatial": 2, "temporal": 2, "causal": 1}
    assert format_stats(stats).startswith("EgoGazeVQA dataset 1.0.0")


def test_reproducible_and_strict(imported, tmp_path, capsys):
    release, root, _ = imported
    again = tmp_path / "again" / "egogazevqa"
    assert cli_main(["import", "egogazevqa", str(release), "--out", str(again),
                     "--version", "1.0.0"]) == 0
    assert "Imported 5 questions" in capsys.readouterr().out
    same = json.loads((again / "manifest.json").read_text())
    assert same == read_manifest(root)  # identical files, hashes and build info
    strict = tmp_path / "strict" / "egogazevqa"
    assert cli_main(["import", "egogazevqa", str(release), "--out", str(strict), "--version", "1.0.0", "--strict"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("streamgaze import egogazevqa: error")]
    assert len(err) == 1 and "spatial_ego4d.csv: entry 2: bad_options" in err[0]
    assert not strict.exists() and not (tmp_path / "strict").exists()  # nothing written, not even the parent


def test_not_a_release(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(StreamGazeError, match="no .*_\\{ego4d,egoexo,egtea\\}.csv found"):
        import_release(tmp_path / "empty", tmp_path / "out", "1.0.0", progress=False)
