"""`streamgaze import-release`: the official release layout → our dataset, with no loss and a report."""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import tarfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import datasets  # noqa: E402

from perf.shared.release_fixture import (  # noqa: E402
    BAD_COUNTS,
    BAD_ENTRIES,
    BAD_FLAGS,
    BAD_NOTES,
    CLAMPED,
    FLAGGED,
    QA_FILES,
    SOURCES,
    TEXT_DISAGREES,
    UNKNOWN_FILE,
    make_release_fixture,
)
from streamgaze_hf.benchmarks.streamgaze.release import import_release  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.release_metadata import parse_repr, read_metadata_dir, video_id_from  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.release_parse import (  # noqa: E402
    normalise_source,
    parse_time,
    release_question_id,
    strip_labels,
    task_from_text,
)
from streamgaze_hf.benchmarks.streamgaze.release_videos import ORIGINAL, locate_videos  # noqa: E402
from streamgaze_hf.benchmarks.streamgaze.tasks import (  # noqa: E402
    PRESENT_WINDOW_S,
    TASK_IDS,
    get_task,
    task_for_release_file,
)
from streamgaze_hf.cli import main  # noqa: E402
from streamgaze_hf.util.errors import StreamGazeError  # noqa: E402

# ---------------------------------------------------------------------------------------------- helpers


def seconds(text: str) -> float:
    """Independent MM:SS / HH:MM:SS parser for the expectations."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return float(total)


@functools.cache
def _load(root: str, config: str, cache: str) -> tuple[dict, ...]:
    return tuple(datasets.load_dataset(root, config, split="test", cache_dir=cache))


def load(root: Path, config: str, cache: Path) -> list[dict]:
    """Rows of one config through ``datasets.load_dataset`` (memoised: loading is slow)."""
    return [dict(r) for r in _load(str(root), config, str(cache))]


def fixture_questions(release: Path, skip_bad: bool = True):
    """(file, entry index, question index, entry, question, task) of every importable fixture question."""
    for name in QA_FILES:
        for i, entry in enumerate(json.loads((release / "qa" / name).read_text())):
            if skip_bad and (name, i) in BAD_ENTRIES:
                continue
            for j, q in enumerate(entry["questions"]):
                yield name, i, j, entry, q, task_for_release_file(name).id


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("world")


@pytest.fixture(scope="module")
def good(tmp_path_factory, world):
    base = tmp_path_factory.mktemp("good")
    release = make_release_fixture(base / "release", world)
    report = import_release(release, base / "out" / "streamgaze", "1.0.0", progress=False)
    return release, base / "out" / "streamgaze", report, base / "cache"


@pytest.fixture(scope="module")
def bad(tmp_path_factory, world):
    base = tmp_path_factory.mktemp("bad")
    release = make_release_fixture(base / "release", world, bad=True)
    report = import_release(release, base / "out" / "streamgaze", "1.0.0", progress=False)
    return release, base / "out" / "streamgaze", report, base / "cache"


# ---------------------------------------------------------------------------------------------- parsing units


@pytest.mark.parametrize("text, expected", [
    ("13:20", 800.0), ("75:03", 4503.0), ("01:02:03", 3723.0), ("00:00:21", 21.0), ("42", 42.0), ("7.5", 7.5),
    (12, 12.0), (3.25, 3.25), (" 02:22 ", 142.0),
])
def test_parse_time(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["", "1:2:3:4", "ab:cd", "-1", "01:-2", None, True, [1], float("nan")])
def test_parse_time_rejects(text):
    with pytest.raises(ValueError):
        parse_time(text)


def test_strip_labels_only_strips_the_label():
    stripped = strip_labels(["A. cup", "B. B. plate", "C. knife.", "D.  jar"])
    assert stripped == ["cup", "B. plate", "knife.", " jar"]
    assert strip_labels(["cup", "plate"]) == ["cup", "plate"]
    assert strip_labels(["{a,b}>{c}", "{c}>{a,b}"]) == ["{a,b}>{c}", "{c}>{a,b}"]
    with pytest.raises(ValueError):
        strip_labels(["A. cup", "C. plate"])
    with pytest.raises(ValueError):
        strip_labels(["A. cup", "plate"])


@pytest.mark.parametrize("category, source", [
    ("EGTEA", "egtea"), ("EGOEXO", "egoexolearn"), ("EgoExoLearn", "egoexolearn"),
    ("HOLOASSIST", "holoassist"), ("HoloAssist", "holoassist"), ("EGO4D", "ego4d"), ("", ""),
    ("Other Set", "otherset"),
])
def test_normalise_source(category, source):
    assert normalise_source(category) == source


def test_task_from_text():
    otp = "What object does the user gaze at next after looking at the {cup, plate}?"
    assert task_from_text(otp) == "otp"
    assert task_from_text("Which transition best matches the user's gaze pattern?") == "gsm"
    assert task_from_text("What is this?") is None


def test_question_id_is_stable():
    a = release_question_id("sr", "v1", "past_scene_recall.json", 3, 0)
    assert a == release_question_id("sr", "v1", "past_scene_recall.json", 3, 0)
    assert re.fullmatch(r"sr-v1-[0-9a-f]{10}", a)
    assert a != release_question_id("sr", "v1", "past_scene_recall.json", 4, 0)


def test_parse_repr_variants():
    assert parse_repr('{"object_identity": "cup"}') == {"object_identity": "cup"}
    assert parse_repr("{'object_identity': 'cup'}") == {"object_identity": "cup"}
    assert parse_repr("{'object_identity': \"user's cup\"}") == {"object_identity": "user's cup"}
    assert parse_repr("None") is None and parse_repr("") is None
    assert parse_repr("cup") == "cup"
    assert video_id_from("/d/OP01-R01/OP01-R01_fixation_merged_filtered_v2.csv") == "OP01-R01"
    assert video_id_from("OP01-R01-PastaSalad.mp4") == "OP01-R01-PastaSalad"


def test_metadata_csv_rows(tmp_path):
    meta = tmp_path / "metadata"
    meta.mkdir()
    (meta / "egoexolearn.csv").write_text(
        "video_id,episode_start_time,episode_end_time,duration,representative_object,"
        "other_objects_in_cropped_area,other_objects_outside_fov\n"
        "v1,1.5,3.0,1.5,\"{'object_identity': 'cup'}\","
        "\"[{'object_identity': 'plate'}]\",\"['jar', 'pan']\"\n"
        "v1,4.0,6.0,2.0,None,[],[]\n"
        "v1,oops,6.0,2.0,None,[],[]\n"
        "v2,0.0,2.0,2.0,\"{'object_identity': 'kettle'}\",[],[]\n")
    rows, problems = read_metadata_dir(meta)
    assert [(r["video_id"], r["fixation_index"], r["episode_index"]) for r in rows] == [
        ("v1", 0, 0), ("v1", 1, 1), ("v2", 0, 0)]
    assert rows[0]["gazed_object"] == "cup" and rows[0]["fov_objects"] == ["plate"]
    assert rows[0]["out_objects"] == ["jar", "pan"] and rows[1]["gazed_object"] == ""
    assert all(r["kept"] and r["x"] != r["x"] for r in rows)  # x is NaN
    assert [(p.kind, p.entry) for p in problems] == [("malformed_metadata", 2)]
    assert read_metadata_dir(tmp_path / "nope") == ([], [])


def test_tar_members_never_escape_the_temporary_directory(tmp_path):
    videos = tmp_path / "release" / "videos"
    videos.mkdir(parents=True)
    with tarfile.open(videos / "videos_egtea_original.tar.gz", "w:gz") as tf:
        members = (("../../evil.mp4", b"evil"), ("/abs/evil2.mp4", b"evil2"), ("deep/dir/good.mp4", b"ok"))
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link.mp4")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(link)
    tmp = tmp_path / "work" / "tmp"
    tmp.mkdir(parents=True)
    lookup = locate_videos(videos, {"evil.mp4", "evil2.mp4", "good.mp4", "link.mp4"}, tmp, progress=False)
    found = lookup.found[ORIGINAL]
    assert sorted(found) == ["evil.mp4", "evil2.mp4", "good.mp4"]  # the symlink is not a regular file
    assert [h.member for h in found["evil2.mp4"]] == ["abs/evil2.mp4"]
    for hits in found.values():
        (hit,) = hits
        assert hit.path.resolve().is_relative_to(tmp.resolve()) and hit.source == "egtea"
    assert found["good.mp4"][0].path.read_bytes() == b"ok" and found["good.mp4"][0].member == "deep/dir/good.mp4"
    inside = tmp.resolve()
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and not p.resolve().is_relative_to(inside)]
    assert [p.name for p in outside] == ["videos_egtea_original.tar.gz"]
    assert not Path("/abs/evil2.mp4").exists()


# ---------------------------------------------------------------------------------------------- round trip


def test_round_trip_keeps_every_question(good):
    release, root, report, cache = good
    rows = {t: {r["question_id"]: r for r in load(root, t, cache)} for t in report.imported}
    expected = list(fixture_questions(release))
    assert sum(len(v) for v in rows.values()) == len(expected) == report.total_imported == 20
    for name, i, j, entry, q, task in expected:
        video_id = Path(entry.get("video_path") or entry["video"]).stem
        row = rows[task].pop(release_question_id(task, video_id, name, i, j))
        spec = get_task(task)
        assert (row["task"], row["category"], row["video_id"]) == (task, spec.category, video_id)
        assert row["question"] == q["question"]
        t = seconds(q["time_stamp"])
        assert row["query_time"] == t
        meta = json.loads(row["metadata"])
        assert meta["time_stamp"] == q["time_stamp"] and meta["release_file"] == name
        assert (meta["release_entry"], meta["release_question"]) == (i, j)
        assert meta["response_time"] == entry["response_time"]
        assert meta["video_categories"] == entry["video_categories"]
        for key, value in q.items():
            if key not in ("question", "options", "answer"):
                assert meta[key] == value, key
        assert row["fixations"] == []
        if spec.checkpointed:
            assert row["options"] == [] and row["answer"] == ""
            assert [(c["time"], c["label"]) for c in row["checkpoints"]] == [
                (seconds(c["realtime"]), "Yes" if c["type"] == 1 else "No") for c in q["test_info"]]
            assert (row["window_start"], row["window_end"]) == (0.0, seconds(q["test_info"][-1]["realtime"]))
        else:
            assert row["options"] == [re.sub(r"^[A-Z]\. ", "", o) for o in q["options"]]
            assert [f"{chr(65 + k)}. {o}" for k, o in enumerate(row["options"])] == q["options"]
            assert row["answer"] == q["answer"]
            assert row["answer_text"] == row["options"][ord(q["answer"]) - 65]
            start = max(0.0, t - PRESENT_WINDOW_S) if spec.category == "present" else 0.0
            assert (row["window_start"], row["window_end"]) == (start, t)
    assert all(not left for left in rows.values())


def test_fixture_covers_the_schema_variants(good):
    release = good[0]
    qs = list(fixture_questions(release))
    assert any("video" in e and "video_path" not in e for _, _, _, e, _, _ in qs)
    assert any(q["time_stamp"].count(":") == 2 for _, _, _, _, q, _ in qs)
    assert any(len(q.get("options", [])) == 5 for _, _, _, _, q, _ in qs)
    assert all((release / "qa" / f).is_file() for f in QA_FILES)


def test_videos_config_files_and_sources(good):
    release, root, report, cache = good
    videos = load(root, "videos", cache)
    assert len(videos) == report.videos == 2
    by_id = {v["video_id"]: v for v in videos}
    for k, vid in enumerate(sorted(by_id)):
        v = by_id[vid]
        # past files hard-code "EGTEA": the source comes from the archive / folder the video was in
        assert v["source"] == SOURCES[k]
        assert (v["width"], v["height"], v["fps"]) == (320, 240, 24.0)
        assert v["n_frames"] == 720 and v["duration"] == pytest.approx(30.0)
        assert v["video_path"] == f"videos/original/{vid}.mp4"
        assert v["overlay_path"] == f"videos/overlay/{vid}.mp4"
    for task in report.imported:
        for row in load(root, task, cache):
            assert (root / row["video_path"]).is_file() and (root / row["overlay_path"]).is_file()
            assert row["source"] == by_id[row["video_id"]]["source"]
    assert not list(root.parent.glob(".streamgaze-release-*"))  # temporary extraction removed


def test_fixations_config_from_metadata(good):
    release, root, report, cache = good
    rows = load(root, "fixations", cache)
    assert len(rows) == report.fixations == 4
    first = [r for r in rows if r["video_id"].endswith("_00")]
    assert [r["fixation_index"] for r in first] == [0, 1, 2] == [r["episode_index"] for r in first]
    assert [(r["start"], r["end"]) for r in first] == [(2.0, 4.5), (6.25, 9.0), (12.0, 15.5)]
    assert first[1]["gazed_object"] == "" and first[2]["gazed_object"] == "user's cup"
    assert len(first[0]["fov_objects"]) == 2 and len(first[0]["out_objects"]) == 1
    assert all(r["kept"] for r in rows)


def test_manifest_build_info_is_relative_and_counts(good):
    _release, root, report, _cache = good
    build = json.loads((root / "manifest.json").read_text())["build"]
    assert build["road"] == "official-release" and build["release_dir"] == "release"
    assert build["options"] == {"strict": False, "reencode": False}
    assert build["report"] == report.counts() and build["report"]["skipped"] == {}
    assert "/" not in build["release_dir"] and all(not k.startswith("/") for k in build["inputs"])


def test_import_is_reproducible(good, tmp_path):
    release, root, _report, _cache = good
    again = tmp_path / "streamgaze"
    import_release(release, again, "1.0.0", progress=False)
    assert (again / "manifest.json").read_bytes() == (root / "manifest.json").read_bytes()


# ---------------------------------------------------------------------------------------------- bad rows


def test_bad_rows_are_reported_and_skipped(bad):
    release, root, report, cache = bad
    assert dict(report.skipped) == BAD_COUNTS
    assert dict(report.flags) == BAD_FLAGS
    assert dict(report.notes) == BAD_NOTES
    for kind, examples in report.examples.items():
        assert examples and all(e.kind == kind for e in examples)
    bad_locations = {(e.file.split("/")[-1], e.entry)
                     for kind in BAD_ENTRIES.values() for e in report.examples[kind]}
    assert bad_locations == set(BAD_ENTRIES)
    flagged = {(e.file.split("/")[-1], e.entry, e.kind) for kind in BAD_FLAGS for e in report.examples[kind]}
    assert flagged == {(f, i, k) for (f, i), k in FLAGGED.items()}
    assert report.examples["unknown_file"][0].file == f"qa/{UNKNOWN_FILE}"
    seen = set()
    for task in report.imported:
        for row in load(root, task, cache):
            meta = json.loads(row["metadata"])
            seen.add((meta["release_file"], meta["release_entry"], row["task"]))
    assert not {(f, i) for f, i, _ in seen} & set(BAD_ENTRIES)
    assert {(f, i) for f, i, _ in seen} >= set(FLAGGED)  # flagged rows are imported
    assert ("past_gaze_sequence_matching.json", 2, "gsm") in seen  # the file decides, not the text
    assert len(seen) == report.total_imported == 24
    assert all(f in QA_FILES for f, _, _ in seen)
    # per task: rows in the files = imported + skipped; the flagged ones are among the imported
    rows = report.counts()["rows"]
    assert rows["nfi"] == {"in_files": 3, "imported": 3, "flagged": 1, "skipped": 0}
    assert rows["sr"] == {"in_files": 3, "imported": 2, "flagged": 0, "skipped": 1}
    assert rows["gsm"] == {"in_files": 3, "imported": 3, "flagged": 0, "skipped": 0}
    assert rows["fap"] == {"in_files": 3, "imported": 3, "flagged": 1, "skipped": 0}
    assert all(r["in_files"] == r["imported"] + r["skipped"] for r in rows.values())
    assert report.counts()["task_text_disagrees"] == {"qa/past_gaze_sequence_matching.json": 1}
    assert report.counts()["checkpoints"]["oaa"] == {"in_files": 13, "imported": 13, "dropped": 0}


def test_time_past_the_video_end_is_clamped(bad):
    _release, root, _report, cache = bad
    (name, entry), late = next(iter(CLAMPED.items()))
    rows = [r for r in load(root, "oaa", cache) if json.loads(r["metadata"])["release_entry"] == entry]
    assert len(rows) == 1
    times = [c["time"] for c in rows[0]["checkpoints"]]
    assert times == [1.0, 11.0, 21.0, 29.0, 30.0] and rows[0]["window_end"] == 30.0
    assert [c["label"] for c in rows[0]["checkpoints"]] == ["No", "No", "Yes", "Yes", "No"]
    kept = json.loads(rows[0]["metadata"])["test_info"]  # the official list stays in the metadata
    assert [seconds(c["realtime"]) for c in kept] == times[:-1] + [late]
    (nfi,) = [r for r in load(root, "nfi", cache) if json.loads(r["metadata"])["release_entry"] == 2]
    assert (nfi["query_time"], nfi["window_start"], nfi["window_end"]) == (30.0, 0.0, 30.0)
    assert json.loads(nfi["metadata"])["time_stamp"] == "05:00"


def test_report_format_lists_tasks_and_kinds(bad):
    text = bad[2].format()
    assert "Imported 24 questions" in text
    assert "rows in the files / imported / imported with a flag / skipped" in text
    assert re.search(r"^\s+nfi\s+3\s+3\s+1\s+0$", text, re.M)
    assert re.search(r"^\s+sr\s+3\s+2\s+0\s+1$", text, re.M)
    for task in TASK_IDS:
        assert re.search(rf"^\s+{task}(\s+\d+){{4}}$", text, re.M)
    for kind, n in {**BAD_COUNTS, **BAD_FLAGS, **BAD_NOTES}.items():
        assert re.search(rf"^\s+{kind}\s+{n}\s", text, re.M)
    assert "past_scene_recall.json entry 2" in text
    assert "qa/past_gaze_sequence_matching.json: 1 of 3 questions" in text
    name, entry = next(iter(TEXT_DISAGREES))
    assert f"{name} entry {entry}: question text is OTP, file is GSM" in text


def test_hostile_archive_member_stays_inside(bad):
    release, root, _report, _cache = bad
    name = sorted(p.name for p in (root / "videos" / "original").iterdir())[0]
    assert not (release.parent / name).exists() and not (root.parent.parent / name).exists()
    assert not (root.parent / name).exists()


def test_strict_fails_on_first_bad_row_and_writes_nothing(bad, tmp_path):
    release = bad[0]
    out = tmp_path / "strict" / "streamgaze"
    with pytest.raises(StreamGazeError) as exc:
        import_release(release, out, "1.0.0", strict=True, progress=False)
    # files and entries are checked before any video is touched: the OI-hard answer "E" comes first
    assert "qa/present_object_identification_hard.json" in str(exc.value) and "entry 2" in str(exc.value)
    assert "answer_not_in_options" in str(exc.value)
    assert str(release) in str(exc.value)
    assert not out.exists() and not out.parent.exists()
    assert main(["import", "streamgaze", str(release), "--out", str(out), "--version", "1.0.0", "--strict"]) == 2
    assert not out.exists()


def test_missing_qa_dir_is_an_error(tmp_path):
    with pytest.raises(StreamGazeError, match="no qa/"):
        import_release(tmp_path, tmp_path / "out", "1.0.0", progress=False)


def test_cli_import_release_prints_report(bad, tmp_path, capsys):
    release = bad[0]
    out = tmp_path / "cli" / "streamgaze"
    assert main(["import", "streamgaze", str(release), "--out", str(out), "--version", "1.2.0"]) == 0
    text = capsys.readouterr().out
    assert "Imported 24 questions" in text and "missing_video" in text and "duplicate" in text
    assert json.loads((out / "manifest.json").read_text())["version"] == "1.2.0"
    assert main(["import", "streamgaze", str(release), "--out", str(out), "--version", "1.2.0"]) == 2  # exists
    assert main(["import", "streamgaze", str(release), "--out", str(out), "--version", "1.2.0", "--force"]) == 0


def test_evaluator_flat_layout_takes_source_from_categories(good, world, tmp_path):
    """``videos/original_video`` + ``gaze_viz_video`` (no source in the name): video_categories decide,
    ignoring the past files' hard-coded "EGTEA"."""
    release = tmp_path / "flat"
    shutil.copytree(good[0] / "qa", release / "qa")
    for d in sorted(p for p in world.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for folder, src in (("original_video", "video.mp4"), ("gaze_viz_video", "overlay.mp4")):
            (release / "videos" / folder).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(d / src, release / "videos" / folder / f"{d.name}.mp4")
    report = import_release(release, tmp_path / "out", "1.0.0", progress=False)
    assert report.total_imported == 20 and report.fixations == 0 and not report.skipped
    assert report.notes == {"source_from_categories": 2}
    videos = load(tmp_path / "out", "videos", tmp_path / "cache")
    assert [v["source"] for v in sorted(videos, key=lambda v: v["video_id"])] == list(SOURCES)


def test_reencode_stores_videos_whose_window_clips_are_packet_copies(good, tmp_path, monkeypatch):
    """--reencode: the stored videos have no B-frames and a keyframe at every window start, so every
    evaluation clip of the imported dataset is a frame-exact packet copy."""
    from streamgaze_hf.benchmarks.streamgaze import evaluation
    from streamgaze_hf.cli import main
    from streamgaze_hf.video.clips import read_sidecar

    release, plain_root, _, _ = good
    root = tmp_path / "streamgaze"
    assert main(["import", "streamgaze", str(release), "--out", str(root), "--version", "1.0.0", "--reencode"]) == 0
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    modes = []
    for task in ("oi_easy", "fap", "nfi", "gta"):
        for doc in evaluation.load_docs(task, "visual", root):
            modes.append(read_sidecar(evaluation.doc_visuals(doc)[-1])["mode"])
    assert modes and set(modes) == {"copy"}
    import json

    import av
    import numpy as np

    for task in ("oi_easy", "fap"):
        for r in load(root, task, tmp_path / "c0"):
            for rel in (r["video_path"], r["overlay_path"]):
                with av.open(str(root / rel)) as c:
                    pk = [(p.pts, p.is_keyframe) for p in c.demux(c.streams.video[0]) if p.pts is not None]
                    tb = float(c.streams.video[0].time_base)
                pts = [p for p, _ in pk]
                assert pts == sorted(pts)  # no B-frames: decode order is presentation order
                times = (np.array(pts) - pts[0]) * tb
                first = int(np.searchsorted(times, r["window_start"] - 1e-6))
                assert pk[first][1], (rel, r["window_start"])

    assert json.loads((root / "manifest.json").read_text())["build"]["options"]["reencode"] is True
    # the same questions as the plain import
    for task in ("oi_easy", "gta"):
        a = load(root, task, tmp_path / "c1")
        b = load(plain_root, task, tmp_path / "c2")
        assert [r["question_id"] for r in a] == [r["question_id"] for r in b]
