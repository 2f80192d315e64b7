"""The Hub-facing ``video_files`` config (streamgaze_hf/dataset/viewer.py) and the card of every benchmark.

``load_dataset(root, "video_files")`` must give ``datasets.Video`` columns holding exactly the dataset's
video files; decoding works with torchcodec and FFmpeg, and without them ``Video(decode=False)`` gives the
path and bytes. Each benchmark's card must hold what the Hub needs (publish.check_card) and declare
``video_files`` exactly when the dataset has video files.
"""

from __future__ import annotations

import importlib.util

import datasets
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.dataset.load import config_names, data_file, read_manifest
from streamgaze_hf.dataset.viewer import VIDEO_FILES_CONFIG
from streamgaze_hf.dataset.writer import dataset_files
from streamgaze_hf.publish import check_card


def _torchcodec_decodes() -> bool:
    if importlib.util.find_spec("torchcodec") is None:
        return False
    try:
        from torchcodec.decoders import VideoDecoder  # noqa: F401  (loads FFmpeg's shared libraries)
    except (ImportError, OSError, RuntimeError):
        return False
    return True


def _videos(root):
    return pq.read_table(data_file(root, "videos")).sort_by("video_id").to_pylist()


def test_video_files_load_as_video_features(demo_dataset, tmp_path):
    root = demo_dataset
    ds = datasets.load_dataset(str(root), VIDEO_FILES_CONFIG, split="test", cache_dir=str(tmp_path / "cache"))
    assert isinstance(ds.features["video"], datasets.Video) and isinstance(ds.features["overlay"], datasets.Video)
    videos = _videos(root)
    assert len(ds) == len(videos) == 3
    raw = ds.cast_column("video", datasets.Video(decode=False)).cast_column("overlay", datasets.Video(decode=False))
    for row, video in zip(raw, videos, strict=True):
        assert row["video_id"] == video["video_id"]
        for column, source in (("video", "video_path"), ("overlay", "overlay_path")):
            assert row[column]["path"] == video[source]
            assert row[column]["bytes"] == (root / video[source]).read_bytes()
    if _torchcodec_decodes():
        decoder = ds[0]["video"]
        assert decoder.metadata.num_frames == videos[0]["n_frames"]
    else:  # what a user without torchcodec (or without FFmpeg's libraries) gets
        with pytest.raises(ImportError, match="torchcodec"):
            ds[0]


def test_video_files_is_declared_and_listed_but_not_a_toolkit_config(demo_dataset):
    root = demo_dataset
    rel = data_file(root, VIDEO_FILES_CONFIG).relative_to(root).as_posix()
    assert rel in read_manifest(root)["files"]
    assert VIDEO_FILES_CONFIG not in config_names()
    meta = check_card(root, "0.1.0", set(dataset_files(root)))
    entry = next(c for c in meta["configs"] if c["config_name"] == VIDEO_FILES_CONFIG)
    assert entry["data_files"] == [{"split": "test", "path": f"data/{VIDEO_FILES_CONFIG}/test-*.parquet"}]
    assert meta["configs"][-1] is entry  # after the toolkit's configs; the first stays the default
    info = next(i for i in meta["dataset_info"] if i["config_name"] == VIDEO_FILES_CONFIG)
    assert {f["name"]: f.get("dtype") for f in info["features"]} == {"video_id": "string", "video": "video",
                                                                      "overlay": "video"}
    assert info["splits"] == [{"name": "test", "num_bytes": info["splits"][0]["num_bytes"], "num_examples": 3}]
    assert pq.ParquetFile(data_file(root, VIDEO_FILES_CONFIG)).metadata.num_row_groups == 3  # one per video


def _egogazevqa(base):
    from streamgaze_hf.benchmarks.egogazevqa.release import import_release

    from ..fixtures.egogazevqa_fixture import write_release

    import_release(write_release(base / "release"), base / "egogazevqa", "1.0.0", progress=False)
    return base / "egogazevqa", "1.0.0"


def _streameqa(base):
    from streamgaze_hf.benchmarks.streameqa.release import import_release

    from ..fixtures.streameqa_fixture import write_release

    import_release(write_release(base / "release"), base / "streameqa", "1.0.0", progress=False)
    return base / "streameqa", "1.0.0"


def _vl4gaze(base):
    from ..fixtures.vl4gaze_fixture import build_world_dataset

    build_world_dataset(base)
    return base / "vl4gaze", "1.0.0"


@pytest.mark.parametrize("build", [None, _egogazevqa, _streameqa, _vl4gaze],
                         ids=["streamgaze", "egogazevqa", "streameqa", "vl4gaze"])
def test_every_benchmark_card_is_ready_for_the_hub(build, demo_dataset, tmp_path):
    root, version = (demo_dataset, "0.1.0") if build is None else build(tmp_path)
    files = set(dataset_files(root))
    meta = check_card(root, version, files)  # licence, task_categories, configs matching files, dataset_info
    assert meta["license"] and meta["task_categories"] and meta["pretty_name"]
    declared = [c["config_name"] for c in meta["configs"]]
    assert {i["config_name"] for i in meta["dataset_info"]} == set(declared)
    assert sum(bool(c.get("default")) for c in meta["configs"]) == 1 and meta["configs"][0].get("default")
    for cfg in meta["configs"]:  # every declared config has its one shard, and is loadable by that name
        assert [d["path"] for d in cfg["data_files"]] == [f"data/{cfg['config_name']}/test-*.parquet"]
        assert data_file(root, cfg["config_name"]).relative_to(root).as_posix() in files
    has_videos = any(v["video_path"] or v["overlay_path"] for v in _videos(root))
    assert (VIDEO_FILES_CONFIG in declared) == has_videos == data_file(root, VIDEO_FILES_CONFIG).is_file()
