"""Official-release fidelity: tasks keyed and rows counted as the official evaluator does, videos told apart
by path, gaze from fixation centres, original-only releases, official outputs re-scored (issue 10)."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import av  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from streamgaze_hf.benchmarks.streamgaze import evaluation  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.official import import_official_results  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.release import import_release  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.release_parse import normalise_answer, task_for_name  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.release_videos import assign_video_ids  # noqa: E402
from streamgaze_hf.cli import main  # noqa: E402
from streamgaze_hf.dataset.files import data_file  # noqa: E402
from streamgaze_hf.submission.validate import validate_submission  # noqa: E402
from streamgaze_hf.util.errors import StreamGazeError  # noqa: E402

from ..fixtures.release_fidelity_fixture import (  # noqa: E402
    DURATION,
    FPS,
    R014,
    R022,
    R022_ABS,
    make_fidelity_release,
    official_outputs,
)

# rows in the files / imported / imported with a flag / skipped, per task
ROWS = {
    "nfi": (3, 2, 1, 1), "otp": (2, 2, 1, 0), "gsm": (3, 3, 2, 0), "sr": (2, 2, 2, 0),
    "oi_easy": (2, 2, 1, 0), "oi_hard": (3, 1, 1, 2), "oar": (1, 1, 0, 0), "fap": (1, 1, 0, 0),
    "gta": (3, 2, 2, 1), "oaa": (1, 1, 1, 0),
}
SKIPPED = {"missing_video": 1, "answer_not_in_options": 1, "no_options": 1, "no_checkpoints": 1}
FLAGS = {"answer_normalised": 5, "time_stamp_missing": 2, "empty_window": 1, "checkpoint_dropped": 2,
         "time_beyond_video": 2, "duplicate": 1}


def rows(root: Path, config: str) -> list[dict]:
    """Rows of one config in release order (file, entry, question)."""
    out = pq.read_table(data_file(root, config)).to_pylist()
    if config in ROWS:
        out.sort(key=lambda r: (json.loads(r["metadata"])["release_entry"],
                                json.loads(r["metadata"])["release_question"]))
    return out


@pytest.fixture(scope="module")
def videos_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fidelity-videos")


@pytest.fixture(scope="module")
def fidelity(tmp_path_factory, videos_cache):
    base = tmp_path_factory.mktemp("fidelity")
    release = make_fidelity_release(base / "tar" / "release", videos_cache)
    report = import_release(release, base / "out" / "streamgaze", "1.0.0", progress=False)
    return release, base / "out" / "streamgaze", report


# ---------------------------------------------------------------------------------------------- counting


def test_rows_are_counted_per_task_as_the_official_evaluator(fidelity):
    _release, root, report = fidelity
    counts = report.counts()
    assert {t: tuple(c.values()) for t, c in counts["rows"].items()} == ROWS
    assert counts["skipped"] == SKIPPED and counts["flagged"] == FLAGS
    assert counts["notes"] == {"task_text_disagrees": 3, "metadata_video_not_imported": 1,
                               "fixation_centres_in_pixels": 1}
    assert counts["checkpoints"] == {"gta": {"in_files": 8, "imported": 4, "dropped": 4},
                                     "oaa": {"in_files": 5, "imported": 5, "dropped": 0}}
    assert report.total_imported == 17 and (report.videos, report.fixations) == (3, 6)
    for task, (_, imported, _, _) in ROWS.items():
        assert len(rows(root, task)) == imported
    text = report.format()
    assert "rows in the files / imported / imported with a flag / skipped" in text
    assert "  oi_hard       3      1      1      2" in text and "  gta           8      4      4" in text


def test_file_name_decides_otp_and_gsm(fidelity):
    _release, root, report = fidelity
    otp, gsm = rows(root, "otp"), rows(root, "gsm")
    assert [r["question"] for r in otp] == ["Which transition best matches the user's gaze pattern?",
                                            "What object does the user gaze at next after looking at the {drill}?"]
    assert [r["question"][:40] for r in gsm] == ["What object does the user gaze at next a"] * 2 + [
        "Which transition best matches the user's"]
    assert report.counts()["task_text_disagrees"] == {"qa/past_gaze_sequence_matching.json": 2,
                                                      "qa/past_object_transition_prediction.json": 1}
    text = report.format()
    assert "qa/past_gaze_sequence_matching.json: 2 of 3 questions" in text
    assert "qa/past_object_transition_prediction.json: 1 of 2 questions" in text


def test_answer_letters_are_normalised_like_the_official_scorer(fidelity):
    _release, root, _report = fidelity
    assert [r["answer"] for r in rows(root, "otp")] == ["A", "B"]  # "b"
    assert [r["answer"] for r in rows(root, "gsm")] == ["C", "D", "B"]  # "C.", "(d)"
    assert [(r["answer"], r["answer_text"]) for r in rows(root, "oi_easy")] == [("C", "tray"), ("D", "level")]
    assert [(r["answer"], r["answer_text"]) for r in rows(root, "oi_hard")] == [("B", "level")]  # option text
    assert [r["answer"] for r in rows(root, "oar")] == ["E"]
    # the official value of a normalised answer stays in the metadata; a clean one is the column itself
    assert [json.loads(r["metadata"]).get("release_answer") for r in rows(root, "gsm")] == ["C.", "(d)", None]


@pytest.mark.parametrize("raw, letter", [("c", "C"), ("C.", "C"), ("(C)", "C"), (" c) ", "C"), ("C. cup", "C"),
                                         ("Answer: C", "C"), ("cup", "C"), ("B", "B")])
def test_normalise_answer(raw, letter):
    assert normalise_answer(raw, ["pan", "jar", "cup", "pot"]) == letter


@pytest.mark.parametrize("raw", ["E", "e", "spoon", None, ""])
def test_normalise_answer_rejects(raw):
    with pytest.raises(ValueError):
        normalise_answer(raw, ["pan", "jar", "cup", "pot"])


def test_checkpoints_time_stamps_and_clamping(fidelity):
    _release, root, _report = fidelity
    gta = rows(root, "gta")
    assert [[(c["time"], c["label"]) for c in r["checkpoints"]] for r in gta] == [
        [(4.0, "No"), (12.0, "Yes")],  # types null and 2 dropped alone
        [(3.0, "No"), (13.0, "Yes")]]
    assert [(r["video_id"], r["query_time"], r["window_end"]) for r in gta] == [
        ("lab_07", 2.0, 12.0), ("R014-desk", 0.0, 13.0)]  # missing time_stamp: the official 0:00
    (oaa,) = rows(root, "oaa")
    assert [c["time"] for c in oaa["checkpoints"]] == [6.0, 11.0, 16.0, 16.0, 16.0]  # 21 s, 26 s clamped
    assert [c["label"] for c in oaa["checkpoints"]] == ["No", "No", "Yes", "No", "No"]
    assert (oaa["window_start"], oaa["window_end"]) == (0.0, 16.0)
    sr = rows(root, "sr")
    assert [(r["video_id"], r["query_time"], r["window_start"], r["window_end"]) for r in sr] == [
        ("lab_07", 1 / FPS, 0.0, 1 / FPS), ("R022-bench", 24.0, 0.0, 24.0)]
    assert "time_stamp" not in json.loads(sr[0]["metadata"])
    assert json.loads(sr[1]["metadata"])["time_stamp"] == "00:30"
    nfi = rows(root, "nfi")
    assert [r["question"] for r in nfi] == [nfi[0]["question"]] * 2 and nfi[0]["question_id"] != nfi[1]["question_id"]


# ---------------------------------------------------------------------------------------------- videos


def test_videos_are_told_apart_by_path(fidelity):
    _release, root, _report = fidelity
    videos = {v["video_id"]: v for v in rows(root, "videos")}
    assert sorted(videos) == ["R014-desk", "R022-bench", "lab_07"]
    for vid, v in videos.items():
        assert v["duration"] == pytest.approx(DURATION[vid]) and v["n_frames"] == DURATION[vid] * FPS
        assert v["video_path"] == f"videos/original/{vid}.mp4" and v["overlay_path"] == f"videos/overlay/{vid}.mp4"
    assert [videos[v]["source"] for v in sorted(videos)] == ["holoassist", "holoassist", "egoexolearn"]
    # both spellings of R022's path are one video; R014's questions are on R014's file
    assert {r["video_id"] for r in rows(root, "gsm")} == {"R022-bench", "lab_07"}
    assert [r["video_id"] for r in rows(root, "oi_easy")] == ["lab_07", "R022-bench"]
    assert [r["video_id"] for r in rows(root, "nfi")] == ["R014-desk", "R014-desk"]


def test_video_ids_from_distinguishing_directories():
    ids = assign_video_ids([R014, R022, R022_ABS, "lab_07.mp4", "lab_08"])
    assert ids.of_ref == {R014: "R014-desk", R022: "R022-bench", R022_ABS: "R022-bench", "lab_07.mp4": "lab_07",
                          "lab_08": "lab_08"}
    assert ids.path_of["R022-bench"] == R022_ABS
    deep = assign_video_ids(["a/cam1/s1/V.mp4", "a/cam1/s2/V.mp4", "b/cam2/s1/V.mp4"]).of_ref
    assert deep == {"a/cam1/s1/V.mp4": "cam1-s1", "a/cam1/s2/V.mp4": "s2", "b/cam2/s1/V.mp4": "cam2-s1"}
    with pytest.raises(StreamGazeError, match="it may be R014-desk/Export_py/Video_pitchshift.mp4 or "
                                              "R022-bench/Export_py/Video_pitchshift.mp4"):
        assign_video_ids([R014, R022, "Export_py/Video_pitchshift.mp4"])
    with pytest.raises(StreamGazeError, match="two different videos get the id 'R014-desk'"):
        assign_video_ids([R014, R022, "R014-desk.mp4"])


def test_folder_layout_gives_the_same_dataset(fidelity, videos_cache, tmp_path):
    release = make_fidelity_release(tmp_path / "folder" / "release", videos_cache, holoassist="folder")
    out = tmp_path / "out" / "streamgaze"
    import_release(release, out, "1.0.0", progress=False)
    assert (out / "manifest.json").read_bytes() == (fidelity[1] / "manifest.json").read_bytes()


def test_import_twice_gives_an_identical_manifest(fidelity, tmp_path):
    out = tmp_path / "again" / "streamgaze"
    import_release(fidelity[0], out, "1.0.0", progress=False)
    assert (out / "manifest.json").read_bytes() == (fidelity[1] / "manifest.json").read_bytes()


def test_a_basename_that_stays_ambiguous_is_one_error(fidelity, videos_cache, tmp_path, capsys):
    # the evaluator's flat folder holds one Video_pitchshift.mp4 for two sessions
    release = tmp_path / "flat"
    shutil.copytree(fidelity[0] / "qa", release / "qa")
    flat = release / "videos" / "original_video"
    flat.mkdir(parents=True)
    shutil.copyfile(videos_cache / "original" / "lab_07.mp4", flat / "lab_07.mp4")
    shutil.copyfile(videos_cache / "original" / "R014-desk.mp4", flat / "Video_pitchshift.mp4")
    assert main(["import", "streamgaze", str(release), "--out", str(tmp_path / "o1"), "--version", "1.0.0"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("streamgaze import streamgaze:")]
    assert len(err) == 1 and "videos/original_video/Video_pitchshift.mp4" in err[0]
    assert R014 in err[0] and "R022-bench/Export_py/Video_pitchshift.mp4" in err[0]
    # two different files for one referenced name
    (flat / "Video_pitchshift.mp4").unlink()
    other = release / "videos" / "videos_egoexolearn_original" / "copy"
    other.mkdir(parents=True)
    shutil.copyfile(videos_cache / "original" / "R022-bench.mp4", other / "lab_07.mp4")
    with pytest.raises(StreamGazeError, match=r"ambiguous video lab_07.mp4: videos/original_video/lab_07.mp4 and "
                                              r"videos/videos_egoexolearn_original/copy/lab_07.mp4"):
        import_release(release, tmp_path / "o2", "1.0.0", progress=False)
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


# ---------------------------------------------------------------------------------------------- strict


def test_strict_turns_flags_into_errors(videos_cache, tmp_path):
    release = make_fidelity_release(tmp_path / "release", videos_cache, holoassist="folder")
    for name in ("past_non_fixated_object_identification.json", "present_object_identification_hard.json",
                 "proactive_gaze_triggered_alert.json"):
        entries = json.loads((release / "qa" / name).read_text())
        (release / "qa" / name).write_text(json.dumps(entries[:1]))
    out = tmp_path / "out" / "streamgaze"
    with pytest.raises(StreamGazeError, match=r"past_object_transition_prediction.json: entry 1: "
                                              r"answer_normalised: answer 'b' read as B"):
        import_release(release, out, "1.0.0", strict=True, progress=False)
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- gaze


def test_fixation_centres_reach_rows_and_text_prompts(fidelity):
    _release, root, _report = fidelity
    fix = rows(root, "fixations")
    assert [(r["video_id"], r["start"], r["end"]) for r in fix] == [
        ("R014-desk", 2.0, 4.0), ("R014-desk", 5.0, 8.5),
        ("lab_07", 1.0, 3.5), ("lab_07", 4.0, 6.0), ("lab_07", 9.0, 13.0), ("lab_07", 14.0, 15.0)]
    assert [(r["x"], r["y"]) for r in fix[:5]] == [(0.25, 0.75), (0.75, 0.25), (0.25, 0.4), (0.75, 0.5), (0.5, 0.25)]
    assert math.isnan(fix[5]["x"]) and math.isnan(fix[5]["y"])
    (oi, _) = rows(root, "oi_easy")  # lab_07 at t=5: the 4-6 s fixation is still running, left out
    assert oi["fixations"] == [{"start": 1.0, "end": 3.5, "x": 0.25, "y": 0.4}]
    gsm = rows(root, "gsm")[2]  # lab_07 at t=18
    assert [(f["start"], f["end"], f["x"], f["y"]) for f in gsm["fixations"]] == [
        (1.0, 3.5, 0.25, 0.4), (4.0, 6.0, 0.75, 0.5), (9.0, 13.0, 0.5, 0.25)]
    assert rows(root, "nfi")[0]["fixations"] == [{"start": 2.0, "end": 4.0, "x": 0.25, "y": 0.75},
                                                 {"start": 5.0, "end": 8.5, "x": 0.75, "y": 0.25}]
    docs = evaluation.load_docs("oi_easy", "text", root)
    prompt = evaluation.doc_prompt(docs[[d["video_id"] for d in docs].index("lab_07")])
    assert "Fixation 1 (1.0s-3.5s): Gaze(16, 19)" in prompt and "Fixation 2" not in prompt
    gta = [d for d in evaluation.load_docs("gta", "salience", root) if d["video_id"] == "R014-desk"]
    assert [(d["checkpoint_time"], len(d["fixations"])) for d in gta] == [(3.0, 0), (13.0, 2)]
    card = (root / "README.md").read_text()
    assert "| fixation list in the prompt | `_textgaze` | yes |" in card


def test_original_only_release_renders_overlays_from_gaze(videos_cache, tmp_path):
    release = make_fidelity_release(tmp_path / "release", videos_cache, holoassist="folder", overlays=False)
    root = tmp_path / "out" / "streamgaze"
    report = import_release(release, root, "1.0.0", progress=False)
    assert report.total_imported == 17
    assert report.notes["overlay_rendered"] == 2 and report.notes["no_overlay"] == 1
    videos = {v["video_id"]: v for v in rows(root, "videos")}
    assert videos["R022-bench"]["overlay_path"] == ""
    assert videos["R014-desk"]["overlay_path"] == "videos/overlay/R014-desk.mp4"
    with av.open(str(root / videos["R014-desk"]["overlay_path"])) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == DURATION["R014-desk"] * FPS
    r, g, b = (int(v) for v in frames[25][36, 16])  # t = 2.5 s: fixation 2-4 s at (0.25, 0.75) -> px (16, 36)
    assert g > 200 and r < 80 and b < 80  # the green gaze dot
    assert all(abs(int(v) - 120) < 12 for v in frames[45][36, 16])  # t = 4.5 s: between fixations, untouched
    docs = evaluation.load_docs("fap", "visual", root)  # R014 only
    assert [d["overlay_path"] for d in docs] == ["videos/overlay/R014-desk.mp4"]
    with pytest.raises(StreamGazeError, match=r"streamgaze_oi_easy: 1 video\(s\) of this task have no "
                                              r"gaze-overlay video .*run streamgaze_oi_easy_nogaze instead"):
        evaluation.load_docs("oi_easy", "visual", root)
    assert "visual no (1 video(s) without a gaze-overlay video)" in report.format()


def test_release_without_gaze_or_overlays_refuses_gaze_variants(videos_cache, tmp_path):
    release = make_fidelity_release(tmp_path / "release", videos_cache, holoassist="folder", overlays=False,
                                    gaze=False)
    root = tmp_path / "out" / "streamgaze"
    report = import_release(release, root, "1.0.0", progress=False)
    assert report.notes["no_overlay"] == 3 and report.variants == {
        "visual": "3 video(s) without a gaze-overlay video", "none": "",
        "text": "no gaze samples and no fixation centres", "salience": "no gaze samples and no fixation centres"}
    for gaze, task in (("text", "sr"), ("salience", "gta")):
        with pytest.raises(StreamGazeError, match=f"this dataset has no gaze .*the {gaze} gaze variant"):
            evaluation.load_docs(task, gaze, root)
    with pytest.raises(StreamGazeError, match="no gaze-overlay video"):
        evaluation.load_docs("sr", "visual", root)
    assert len(evaluation.load_docs("sr", "none", root)) == 2
    card = (root / "README.md").read_text()
    assert "| salience map image | `_salience` | no: no gaze samples and no fixation centres |" in card
    assert "| original video, no gaze | `_nogaze` | yes |" in card


# ---------------------------------------------------------------------------------------------- outputs


def test_official_outputs_are_rescored_into_a_submission(fidelity, tmp_path, capsys):
    release, root, _report = fidelity
    results = official_outputs(release, tmp_path / "results_viz")
    result = import_official_results(results, root, model_name="Qwen2.5-VL-7B (official harness)")
    sub = result.submission
    ours = {t: round(v["accuracy"], 4) for t, v in sub["scores"]["tasks"].items()}
    ref = {t: round(v["accuracy"], 4) for t, v in result.reference_scores["tasks"].items()}
    assert ours == {"nfi": 1.0, "otp": 1.0, "gsm": 0.6667, "sr": 1.0, "oi_easy": 0.5, "oi_hard": 1.0, "oar": 1.0,
                    "fap": 1.0, "gta": 0.75, "oaa": 0.8}
    assert ref == {**ours, "otp": 0.5, "gta": 1.0}  # "It's a clamp (B)" -> A; "I don't know" contains NO
    assert sub["scores"]["coverage"] == {"answered": 23, "expected": 23, "fraction": 1.0}
    assert sub["run"]["harness"] == "official-evaluator" and sub["settings"]["prompt_mode"] == "default"
    assert dict(result.matched) == {"otp": 2, "gsm": 3, "sr": 2, "nfi": 2, "oi_easy": 2, "oi_hard": 1, "oar": 1,
                                    "fap": 1, "gta": 4, "oaa": 5}
    reasons = sorted((u.file, u.entry, u.reason.split(" (")[0]) for u in result.unmatched)
    assert reasons == [
        ("past_non_fixated_object_identification_output.json", 2,
         "no dataset question with this video path, text and time_stamp"),
        ("present_object_identification_easy_output.json", 2,
         "no dataset question with this video path, text and time_stamp"),
        ("present_object_identification_hard_output.json", 0,
         "no dataset question with this video path, text and time_stamp"),
        ("present_object_identification_hard_output.json", 1,
         "no dataset question with this video path, text and time_stamp"),
        ("proactive_gaze_triggered_alert_output.json", 0, "test_info[1] is not a checkpoint of the dataset"),
        ("proactive_gaze_triggered_alert_output.json", 0, "test_info[3] is not a checkpoint of the dataset"),
        ("proactive_gaze_triggered_alert_output.json", 2,
         "no dataset question with this video path, text and time_stamp")]
    assert result.ignored_files == ["evaluation_notes_output.json"]
    # duplicates are told apart by their position; both are scored
    nfi = sub["answers"]["nfi"]
    assert sorted(a["response"] for a in nfi.values()) == ["C", "The answer is C"]
    # the CLI writes a submission that validates
    out = tmp_path / "sub.json"
    assert main(["import-official-results", str(results), "--dataset", str(root), "--model-name", "Qwen2.5-VL-7B",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Unmatched (not scored, not guessed): 7" in text and "  otp           2 / 2       100.00 |   50.00" in text
    report = validate_submission(out, root)
    assert report.scores["overall"] == pytest.approx(sum(ours.values()) / 10, abs=1e-4)


@pytest.mark.parametrize("name, task", [
    ("past_object_transition_prediction.json", "otp"), ("past_gaze_sequence_matching.json", "gsm"),
    ("egtea_past_next_after_group_tasks.json", "gsm"), ("vispeak_past_transition_pattern.json", "otp"),
    ("holo_object_transition_v2.json", "otp"), ("vispeak_future_remind_easy.json", "gta"),
    ("present_object_identification_hard.json", "oi_hard"), ("vispeak_present_ident.json", "oi_easy"),
    ("notes.json", None)])
def test_task_for_name(name, task):
    assert task_for_name(name) == task
