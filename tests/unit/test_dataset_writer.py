"""The dataset writer, card, manifest, CHANGELOG, stats and loader (streamgaze_hf.dataset).

Everything is built from a small synthetic DatasetContent; loading goes through ``datasets`` offline,
with a fresh cache directory per test (hf_datasets_notes.md §6: the cache key ignores file contents).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from pathlib import Path

import datasets
import huggingface_hub.constants
import pyarrow.parquet as pq
import pytest
import yaml

from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.cli import main as cli_main
from streamgaze_hf.dataset import writer as writer_module
from streamgaze_hf.dataset.files import config_names, read_manifest, sha256_file
from streamgaze_hf.dataset.load import load_task, locate
from streamgaze_hf.dataset.stats import compute_stats, format_stats
from streamgaze_hf.dataset.writer import (
    DatasetContent,
    dataset_files,
    manifest_digest,
    verify_dataset,
)
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.dataset_content import BUILD, build, make_content

# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No network, and a fresh datasets cache per test."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture
def content(tmp_path) -> DatasetContent:
    return make_content(tmp_path)


@pytest.fixture
def root(tmp_path, content) -> Path:
    """A dataset of this test's own (tests that modify it)."""
    return build(tmp_path / "out" / "streamgaze", content)


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> tuple[Path, DatasetContent]:
    """One dataset for the read-only tests (writing takes most of a second)."""
    base = tmp_path_factory.mktemp("shared")
    content = make_content(base)
    return build(base / "out" / "streamgaze", content), content


def _load(root: Path, config: str, cache: Path) -> datasets.Dataset:
    return datasets.load_dataset(str(root), config, split="test", cache_dir=str(cache))


def _sorted(rows: list[dict], *keys: str) -> list[dict]:
    return sorted(rows, key=lambda r: tuple(r[k] for k in keys))


def _siblings(root: Path) -> list[str]:
    return sorted(p.name for p in root.parent.iterdir())


# ------------------------------------------------------------------------------------ loading


def test_loads_by_path_and_by_name_from_parent(shared, tmp_path, monkeypatch):
    root, content = shared
    ds = _load(root, "oi_easy", tmp_path / "c1")
    assert ds.to_list() == _sorted(content.qa["oi_easy"], "video_id", "query_time", "question_id")
    assert datasets.get_dataset_config_names(str(root)) == [*TASK_IDS, "videos", "gaze", "fixations"]  # no previews
    monkeypatch.chdir(root.parent)
    by_name = datasets.load_dataset("streamgaze", "oi_easy", split="test", cache_dir=str(tmp_path / "c2"))
    assert by_name.to_list() == ds.to_list()


def test_rows_round_trip_with_nested_fields(shared, tmp_path):
    root, content = shared
    gta = _load(root, "gta", tmp_path / "c").to_list()
    expected = _sorted(content.qa["gta"], "video_id", "query_time", "question_id")
    assert gta == expected
    assert isinstance(gta[0]["checkpoints"][0], dict) and json.loads(gta[0]["metadata"])["task"] == "gta"
    assert _load(root, "oar", tmp_path / "c").to_list()[0]["options"] == ["pot", "knife", "cup"]
    assert _load(root, "videos", tmp_path / "c").to_list() == _sorted(content.videos, "video_id")
    assert _load(root, "gaze", tmp_path / "c").to_list() == _sorted(content.gaze, "video_id", "t")
    assert _load(root, "fixations", tmp_path / "c").to_list() == _sorted(
        content.fixations, "video_id", "fixation_index"
    )


def test_load_task_helper_and_locate(shared, tmp_path, monkeypatch):
    root = shared[0]
    assert load_task("sr", root)[0]["task"] == "sr"
    monkeypatch.setenv("STREAMGAZE_ROOT", str(root))
    assert locate() == root.resolve()
    monkeypatch.delenv("STREAMGAZE_ROOT")
    monkeypatch.chdir(root.parent)
    assert locate() == root.resolve()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StreamGazeError, match=r"looked at \./streamgaze.*streamgaze build BENCH.*streamgaze import BENCH"):
        locate()
    with pytest.raises(StreamGazeError, match="unknown task"):
        load_task("nope", root)


def test_video_paths_exist_relative_to_root(shared):
    root, content = shared
    rows = [r for rows in content.qa.values() for r in rows] + content.videos
    for row in rows:
        assert (root / row["video_path"]).read_bytes() == content.files[row["video_path"]].read_bytes()
        assert (root / row["overlay_path"]).is_file()
    src = content.files["videos/overlay/holo_01.mp4"]
    assert (
        root / "videos/overlay/holo_01.mp4"
    ).stat().st_ino == src.stat().st_ino  # hard link, same filesystem


def test_force_rebuild_of_same_version_is_not_served_from_a_stale_cache(root, content, tmp_path):
    assert load_task("oi_easy", root)[0]["answer"] == "B"
    changed = copy.deepcopy(content)
    for row in changed.qa["oi_easy"]:
        row.update(answer="C", answer_text="cup")  # same row counts, same sizes
    build(root, changed, force=True)
    assert {r["answer"] for r in load_task("oi_easy", root)} == {"C"}


# ------------------------------------------------------------------------------------ determinism, manifest


def test_two_writes_are_byte_identical(content, tmp_path):
    a = build(tmp_path / "a" / "streamgaze", content)
    b = build(tmp_path / "b" / "streamgaze", copy.deepcopy(content))
    files = dataset_files(a)
    assert (
        files == dataset_files(b)
        and "README.md" in files
        and "data/gaze/test-00000-of-00001.parquet" in files
    )
    for rel in [*files, "manifest.json"]:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    assert manifest_digest(a) == manifest_digest(b) == sha256_file(a / "manifest.json")


def test_manifest_contents_and_verify(root, content):
    text = (root / "manifest.json").read_text()
    manifest = json.loads(text)
    assert (
        text.endswith("}\n")
        and text == json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    )
    assert (manifest["name"], manifest["version"], manifest["build"]) == ("streamgaze", "1.0.0", BUILD)
    assert manifest["previews"] is None  # built with previews=False: recorded as none
    assert set(manifest["files"]) == set(dataset_files(root)) and "manifest.json" not in manifest["files"]
    for rel, entry in manifest["files"].items():
        assert entry == {"sha256": sha256_file(root / rel), "bytes": (root / rel).stat().st_size}
    counts = manifest["counts"]
    assert counts["questions"] == {t: len(rows) for t, rows in content.qa.items()}
    assert counts["checkpoints"] == {"gta": 3 * len(content.qa["gta"]), "oaa": 3 * len(content.qa["oaa"])}
    assert (counts["videos"], counts["gaze_samples"], counts["fixations"]) == (3, 9, 6)
    assert counts["by_source"]["egtea"]["videos"] == 2 and counts["by_source"]["holoassist"]["videos"] == 1
    assert verify_dataset(root) == []
    (root / "videos/overlay/holo_01.mp4").write_bytes(b"tampered bytes of holo_01")
    (root / "data/extra.txt").write_text("x")
    (root / "CHANGELOG.md").unlink()
    problems = verify_dataset(root)
    size = len(b"tampered bytes of holo_01")
    listed = read_manifest(root)["files"]["videos/overlay/holo_01.mp4"]["bytes"]
    assert problems == [
        "CHANGELOG.md: missing (listed in manifest.json)",
        "data/extra.txt: not listed in manifest.json",
        f"videos/overlay/holo_01.mp4: {size:,} bytes, manifest.json says {listed:,} (truncated or changed)",
    ]


# ------------------------------------------------------------------------------------ versions, atomicity


def test_same_version_needs_force(root, content):
    digest = manifest_digest(root)
    with pytest.raises(StreamGazeError, match=r"dataset version 1\.0\.0 already exists at .*use --force"):
        build(root, content)
    assert manifest_digest(root) == digest
    build(root, content, force=True)
    assert manifest_digest(root) == digest and _siblings(root) == ["streamgaze"]


def test_failure_leaves_nothing_and_keeps_the_older_version(content, tmp_path, monkeypatch):
    broken = copy.deepcopy(content)
    broken.files["videos/original/egtea_01.mp4"] = tmp_path / "missing.mp4"
    fresh = tmp_path / "fresh" / "streamgaze"
    fresh.parent.mkdir()
    with pytest.raises(StreamGazeError, match="missing.mp4"):
        build(fresh, broken)
    assert _siblings(fresh) == []

    def fail_midway(*args, **kwargs):
        raise OSError("disk full while writing the card")

    with monkeypatch.context() as m:
        m.setattr(writer_module, "render_card", fail_midway)  # parquet and video files already written
        with pytest.raises(StreamGazeError, match=r"cannot write dataset version 1.0.0 \(disk full while writing "
                           r"the card\); nothing was written"):
            build(fresh, content)
    assert _siblings(fresh) == []

    root = build(tmp_path / "kept" / "streamgaze", content)
    before = {rel: (root / rel).read_bytes() for rel in [*dataset_files(root), "manifest.json"]}
    with pytest.raises(StreamGazeError, match="missing.mp4"):
        build(root, broken, version="1.1.0")
    monkeypatch.setattr(writer_module, "render_card", fail_midway)
    with pytest.raises(StreamGazeError, match=r"\(disk full while writing the card\); the previous version is unchanged"):
        build(root, content, version="1.1.0")
    assert _siblings(root) == ["streamgaze"]
    assert {rel: (root / rel).read_bytes() for rel in [*dataset_files(root), "manifest.json"]} == before
    assert read_manifest(root)["version"] == "1.0.0" and verify_dataset(root) == []


def test_changelog_carries_entries_across_versions(content, tmp_path):
    root = build(tmp_path / "cl" / "streamgaze", content, changelog="First release.")
    build(root, content, version="1.1.0", changelog="Second release.\n\n## not a version heading")
    build(root, content, version="1.1.0", changelog="Second release, rebuilt.", force=True)
    text = (root / "CHANGELOG.md").read_text()
    assert text == "# Changelog\n\n## 1.1.0\n\nSecond release, rebuilt.\n\n## 1.0.0\n\nFirst release.\n"
    assert read_manifest(root)["version"] == "1.1.0" and _siblings(root) == ["streamgaze"]
    other = build(tmp_path / "default" / "streamgaze", content)
    default = (other / "CHANGELOG.md").read_text()
    assert default.startswith("# Changelog\n\n## 1.0.0\n\nBuilt with streamgaze-toolkit")
    assert f"{sum(map(len, content.qa.values()))} questions (nfi 2, otp 3," in default


# ------------------------------------------------------------------------------------ card, stats


def _front_matter(root: Path) -> dict:
    text = (root / "README.md").read_text()
    return yaml.safe_load(text.split("---\n", 2)[1])


def _card_table(root: Path, title: str) -> list[list[str]]:
    text = (root / "README.md").read_text()
    block = text.split(f"### {title}\n\n", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]


def test_card_front_matter(shared):
    root = shared[0]
    meta = _front_matter(root)
    assert meta["version"] == "1.0.0" and meta["license"] == "cc-by-4.0"
    assert meta["task_categories"] == ["video-text-to-text"] and "gaze" in meta["tags"]
    configs = meta["configs"]
    assert [c["config_name"] for c in configs] == list(config_names(get_benchmark("streamgaze")))  # previews=False: no Hub config
    assert configs[0].get("default") is True and not any(c.get("default") for c in configs[1:])
    assert all(c["version"] == "1.0.0" for c in configs)
    assert configs[4]["data_files"] == [{"split": "test", "path": "data/oi_easy/test-*.parquet"}]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    assert set(infos) == set(config_names(get_benchmark("streamgaze"))) and infos["gaze"]["splits"][0]["num_examples"] == 9
    body = (root / "README.md").read_text()
    assert "# StreamGaze 1.0.0" in body and "CHANGELOG.md" in body and "manifest.json" in body
    assert 'load_dataset("streamgaze", "oi_easy", split="test")' in body and "[max(0, t - 60), t]" in body
    assert "own" in body and "licences" in body


def test_stats_match_card_and_cli(shared, capsys):
    root, content = shared
    stats = compute_stats(root)
    n_questions = sum(len(rows) for rows in content.qa.values())
    assert stats["version"] == "1.0.0" and stats["questions"] == n_questions
    assert {t["task"]: t["questions"] for t in stats["tasks"]} == {t: len(r) for t, r in content.qa.items()}
    assert {s["source"]: s["videos"] for s in stats["sources"]} == {"egtea": 2, "holoassist": 1}
    d = stats["durations"]
    assert (d["min_s"], d["median_s"], d["max_s"]) == (90.5, 120.0, 200.0)
    assert math.isclose(d["total_hours"], 410.5 / 3600)

    card_tasks = _card_table(root, "Questions per task")
    assert [r[0] for r in card_tasks] == [*TASK_IDS, "total"]
    assert {r[0]: int(r[3]) for r in card_tasks[:-1]} == {t["task"]: t["questions"] for t in stats["tasks"]}
    assert card_tasks[TASK_IDS.index("gta")][4] == str(3 * len(content.qa["gta"])) and card_tasks[0][4] == "-"
    card_sources = _card_table(root, "Sources")
    assert card_sources[0][:2] == ["egtea", "2"] and card_sources[-1][:2] == ["total", "3"]
    assert _card_table(root, "Video durations") == [["3", "0.11", "90.5", "120.0", "200.0"]]

    assert cli_main(["stats", str(root)]) == 0
    out = capsys.readouterr().out
    assert out == format_stats(stats) + "\n" and "StreamGaze dataset 1.0.0" in out
    for table in ("Questions per task", "Sources", "Video durations"):
        for row in _card_table(root, table):
            assert re.search(r"\s+".join(re.escape(c) for c in row if c), out), row


def test_stats_of_missing_or_non_dataset_root(tmp_path, capsys):
    with pytest.raises(StreamGazeError) as missing:
        compute_stats(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(missing.value)
    with pytest.raises(StreamGazeError, match="manifest.json"):
        compute_stats(tmp_path)
    assert cli_main(["stats", str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ rejected input


def test_an_undecodable_video_fails_the_previews_naming_its_file(content, tmp_path):
    """With previews on (the default) every video is decoded for its preview: a file that is no video is one
    error naming the source file, and nothing is written."""
    out = tmp_path / "out" / "streamgaze"
    out.parent.mkdir()
    with pytest.raises(StreamGazeError, match=r"egtea_01\.overlay\.mp4"):
        build(out, content, previews=True)
    assert not out.exists() and _siblings(out) == []



@pytest.mark.parametrize("version", ["1.0", "v1.0.0", "1.0.0-rc1", "01.0.0", ""])
def test_bad_version_is_rejected(content, tmp_path, version):
    with pytest.raises(StreamGazeError, match="not a semantic version X.Y.Z"):
        build(tmp_path / "streamgaze", content, version=version)
    assert not (tmp_path / "streamgaze").exists()


def _mutate(content: DatasetContent, task_id: str, changes: dict) -> tuple[DatasetContent, str]:
    bad = copy.deepcopy(content)
    bad.qa[task_id][0].update(changes)
    return bad, bad.qa[task_id][0]["question_id"]


@pytest.mark.parametrize(
    ("task", "changes", "message"),
    [
        ("oi_easy", {"answer": "E"}, "answer 'E' is not among the option letters"),
        ("nfi", {"options": ["pot"]}, "1 options, need at least 2"),
        ("sr", {"query_time": 500.0, "window_end": 500.0}, "beyond the video"),
        ("gta", {"checkpoints": []}, "without checkpoints"),
        ("fap", {"task": "oar"}, "does not match its config 'fap'"),
        ("otp", {"overlay_path": "videos/overlay/unknown.mp4"}, "not among the dataset files"),
        ("gsm", {"video_id": "nope"}, "unknown video_id 'nope'"),
    ],
)
def test_invalid_question_is_rejected_with_its_id(content, tmp_path, task, changes, message):
    bad, qid = _mutate(content, task, changes)
    with pytest.raises(StreamGazeError, match=re.escape(message)) as err:
        build(tmp_path / "streamgaze", bad)
    assert qid in str(err.value) and not (tmp_path / "streamgaze").exists()


def test_other_bad_content_is_rejected(content, tmp_path):
    out = tmp_path / "streamgaze"
    dup = copy.deepcopy(content)
    dup.qa["nfi"].append(copy.deepcopy(dup.qa["otp"][0]) | {"task": "nfi", "category": "past"})
    with pytest.raises(StreamGazeError, match="duplicate question_id"):
        build(out, dup)
    missing_col = copy.deepcopy(content)
    del missing_col.gaze[0]["valid"]
    with pytest.raises(StreamGazeError, match="missing: valid"):
        build(out, missing_col)
    bad_path = copy.deepcopy(content)
    bad_path.files["../escape.mp4"] = next(iter(content.files.values()))
    with pytest.raises(StreamGazeError, match="bad dataset file path"):
        build(out, bad_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("mine")
    with pytest.raises(StreamGazeError, match="not a dataset of this toolkit"):
        build(tmp_path / "notes", content)
    assert (tmp_path / "notes" / "keep.txt").read_text() == "mine" and not out.exists()


def test_empty_configs_are_written_but_not_declared(content, tmp_path):
    sparse = copy.deepcopy(content)
    sparse.qa["nfi"], sparse.gaze = [], []
    del sparse.qa["otp"]  # a missing task id counts as empty
    root = build(tmp_path / "sparse" / "streamgaze", sparse)
    names = datasets.get_dataset_config_names(str(root))
    assert names == [c for c in config_names(get_benchmark("streamgaze")) if c not in ("nfi", "otp", "gaze")]
    configs = _front_matter(root)["configs"]
    assert configs[0]["config_name"] == "gsm" and configs[0]["default"] is True
    assert "Empty in this version" in (root / "README.md").read_text()
    assert pq.read_table(root / "data/gaze/test-00000-of-00001.parquet").num_rows == 0
    assert (
        compute_stats(root)["tasks"][0]["questions"] == 0
        and read_manifest(root)["counts"]["gaze_samples"] == 0
    )
    with pytest.raises(StreamGazeError, match="task 'otp' has no questions in dataset version"):
        load_task("otp", root)
    assert len(load_task("gsm", root)) == 2
    nothing = copy.deepcopy(content)
    nothing.qa = {}
    with pytest.raises(StreamGazeError, match="at least one video and one question"):
        build(tmp_path / "nothing" / "streamgaze", nothing)


def test_root_directory_is_not_left_private(shared):
    root = shared[0]
    umask = os.umask(0o022)
    os.umask(umask)
    assert root.stat().st_mode & 0o777 == 0o777 & ~umask
