"""The Hub-facing ``previews`` config (streamgaze_hf/dataset/viewer.py, video/preview.py): what a visitor of
the dataset's page sees, and the card of every benchmark.

``load_dataset(root, "previews")`` must give one ``datasets.Video`` preview per video that decodes through
torchcodec (as the Hub's viewer and a visitor's loader do) at the preview's rate and size and shows the gaze
overlay; the previews are a few percent of the videos' bytes. Decoding needs FFmpeg's shared libraries
(scripts/install_ffmpeg_libs.sh): without them the decoding test skips, unless STREAMGAZE_REQUIRE_FFMPEG=1
(CI: .ci/run), where it fails. Datasets built before previews (a ``video_files`` config) keep loading and
validating. Each benchmark's card must hold what the Hub needs (publish.check_card) and declare ``previews``
exactly when the dataset has video files.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.dataset.card import render_card
from streamgaze_hf.dataset.files import config_names, data_file, read_manifest
from streamgaze_hf.dataset.publish import check_card
from streamgaze_hf.dataset.schema import VIDEO_FILE_FEATURES, VIDEO_FILES_CONFIG
from streamgaze_hf.dataset.stats import stats_from_files
from streamgaze_hf.dataset.viewer import PREVIEWS_CONFIG
from streamgaze_hf.dataset.writer import PARQUET_OPTIONS, dataset_files, render_manifest, verify_dataset
from streamgaze_hf.gaze.overlay import GREEN_BGR
from streamgaze_hf.registry import get_benchmark
from streamgaze_hf.video.frame_reader import probe_video
from streamgaze_hf.video.preview import DEFAULT_PREVIEW, preview_size
from streamgaze_hf.video.resample import frames_at_rate

REQUIRE_FFMPEG = os.environ.get("STREAMGAZE_REQUIRE_FFMPEG") == "1"


def _torchcodec_problem() -> str:
    """Why torchcodec cannot decode here ("" when it can)."""
    if importlib.util.find_spec("torchcodec") is None:
        return "torchcodec is not installed (the `video` extra)"
    try:
        from torchcodec.decoders import VideoDecoder  # noqa: F401  (loads FFmpeg's shared libraries)
    except (ImportError, OSError, RuntimeError) as exc:
        return f"torchcodec cannot load FFmpeg's shared libraries (scripts/install_ffmpeg_libs.sh): {exc}"
    return ""


def _videos(root):
    return pq.read_table(data_file(root, "videos")).sort_by("video_id").to_pylist()


def _load(root, config, tmp_path):
    return datasets.load_dataset(str(root), config, split="test", cache_dir=str(tmp_path / "cache"))


def test_previews_decode_through_torchcodec_and_show_the_gaze(demo_dataset, tmp_path):
    problem = _torchcodec_problem()
    if problem:
        if REQUIRE_FFMPEG:
            pytest.fail(f"STREAMGAZE_REQUIRE_FFMPEG=1 but {problem}")
        pytest.skip(problem)
    root = demo_dataset
    ds = _load(root, PREVIEWS_CONFIG, tmp_path)
    assert isinstance(ds.features["preview"], datasets.Video)
    videos = _videos(root)
    assert ds["video_id"] == [v["video_id"] for v in videos] and ds["shows"] == ["overlay"] * 3
    gaze = pq.read_table(data_file(root, "gaze")).to_pandas()
    green_rgb = np.array(GREEN_BGR[::-1])
    for i, video in enumerate(videos):
        decoder = ds[i]["preview"]  # a torchcodec VideoDecoder, as the viewer's loader gets it
        info = probe_video(root / video["overlay_path"])
        keep = frames_at_rate(info.frame_times, DEFAULT_PREVIEW.fps)
        meta = decoder.metadata
        assert (meta.width, meta.height) == preview_size(video["width"], video["height"], 144) == (192, 144)
        assert meta.num_frames == len(keep) == int(info.frame_times[-1] * 2) + 1  # one frame every 0.5 s
        assert meta.average_fps == pytest.approx(2.0)
        frames = decoder.get_frames_at(indices=list(range(meta.num_frames)))
        assert frames.data.shape == (len(keep), 3, 144, 192)
        np.testing.assert_allclose(frames.pts_seconds.numpy(), info.frame_times[keep], atol=1e-6)  # source times
        # the gaze the overlay drew at each preview frame: the latest sample at or before the frame time
        g = gaze[gaze.video_id == video["video_id"]]
        at = np.searchsorted(g.t.to_numpy(), frames.pts_seconds.numpy() + 1e-6, side="right") - 1
        fresh = (at >= 0) & (frames.pts_seconds.numpy() - g.t.to_numpy()[at] < 0.05)
        shown = fresh & g.valid.to_numpy()[at] & g.in_frame.to_numpy()[at]
        assert shown.sum() > len(keep) // 2
        for k in np.flatnonzero(shown):
            x = min(191, int(g.x.to_numpy()[at[k]] * 192))
            y = min(143, int(g.y.to_numpy()[at[k]] * 144))
            pixel = frames.data[k, :, y, x].numpy().astype(int)
            assert np.abs(pixel - green_rgb).max() < 80, (video["video_id"], k, pixel)  # the green gaze dot


def test_previews_are_a_few_percent_of_the_videos(demo_dataset, tmp_path):
    root = demo_dataset
    raw = _load(root, PREVIEWS_CONFIG, tmp_path).cast_column("preview", datasets.Video(decode=False))
    videos = _videos(root)
    video_bytes = sum((root / rel).stat().st_size for rel in dataset_files(root) if rel.startswith("videos/"))
    preview_bytes = 0
    for row, video in zip(raw, videos, strict=True):
        assert row["preview"]["path"] == f"{video['video_id']}.mp4" and row["preview"]["bytes"][4:8] == b"ftyp"
        preview_bytes += len(row["preview"]["bytes"])
    parquet_bytes = data_file(root, PREVIEWS_CONFIG).stat().st_size
    assert preview_bytes < parquet_bytes < preview_bytes + 20_000  # the previews are stored once, uncompressed
    assert 0.01 < parquet_bytes / video_bytes < 0.04  # measured 2.9 % (docs/datasets.md)


def test_previews_are_declared_listed_and_recorded_but_not_a_toolkit_config(demo_dataset):
    root = demo_dataset
    manifest = read_manifest(root)
    assert manifest["previews"] == {"config": PREVIEWS_CONFIG, **DEFAULT_PREVIEW.as_dict()}
    assert manifest["previews"] == {"config": "previews", "fps": 2.0, "short_side": 144, "crf": 32, "gop": 20,
                                    "codec": "h264", "preset": "medium"}
    rel = data_file(root, PREVIEWS_CONFIG).relative_to(root).as_posix()
    assert rel in manifest["files"] and not any("video_files" in f or "preview" in f.split("/")[-1]
                                                 for f in manifest["files"] if f != rel)
    assert PREVIEWS_CONFIG not in config_names(get_benchmark("streamgaze"))
    meta = check_card(root, "0.1.0", set(dataset_files(root)))
    entry = next(c for c in meta["configs"] if c["config_name"] == PREVIEWS_CONFIG)
    assert entry["data_files"] == [{"split": "test", "path": f"data/{PREVIEWS_CONFIG}/test-*.parquet"}]
    assert meta["configs"][-1] is entry  # after the toolkit's configs; the first stays the default
    info = next(i for i in meta["dataset_info"] if i["config_name"] == PREVIEWS_CONFIG)
    assert {f["name"]: f.get("dtype") for f in info["features"]} == {"video_id": "string", "preview": "video",
                                                                      "shows": "string"}
    assert info["splits"][0]["num_examples"] == 3
    assert pq.ParquetFile(data_file(root, PREVIEWS_CONFIG)).metadata.num_row_groups == 3  # one per video
    assert "`previews` is what the dataset viewer shows" in (root / "README.md").read_text()


def test_a_dataset_with_the_older_video_files_config_keeps_loading_and_validating(demo_dataset, tmp_path):
    """A dataset built before previews has ``video_files`` (every video whole, bytes embedded) and no
    ``previews``: its card still declares it, it validates, and ``load_dataset`` reads it."""
    root = tmp_path / "streamgaze"
    shutil.copytree(demo_dataset, root)
    shutil.rmtree(root / "data" / PREVIEWS_CONFIG)
    videos = _videos(root)
    rows = [{"video_id": v["video_id"],
             **{col: {"bytes": (root / v[src]).read_bytes(), "path": v[src]}
                for col, src in (("video", "video_path"), ("overlay", "overlay_path"))}} for v in videos]
    path = data_file(root, VIDEO_FILES_CONFIG)
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=VIDEO_FILE_FEATURES.arrow_schema), path, row_group_size=1,
                   compression="none", use_dictionary=False, version=PARQUET_OPTIONS["version"])
    old = read_manifest(root)
    stats = stats_from_files(root, "0.1.0", get_benchmark("streamgaze"))
    (root / "README.md").write_text(render_card(root, "0.1.0", stats), encoding="utf-8")
    (root / "manifest.json").write_text(render_manifest(root, "0.1.0", old["build"], stats), encoding="utf-8")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest.pop("previews")  # an older manifest has no such key
    (root / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n", encoding="utf-8")

    assert verify_dataset(root) == []
    from streamgaze_hf.cli import main

    assert main(["doctor", str(root), "--no-decode"]) == 0  # every file against the manifest, every parquet file
    meta = check_card(root, "0.1.0", set(dataset_files(root)))
    assert [c["config_name"] for c in meta["configs"]][-1] == VIDEO_FILES_CONFIG
    assert PREVIEWS_CONFIG not in {c["config_name"] for c in meta["configs"]}
    assert "`video_files` holds the same videos" in (root / "README.md").read_text()
    ds = _load(root, VIDEO_FILES_CONFIG, tmp_path)
    assert isinstance(ds.features["video"], datasets.Video) and isinstance(ds.features["overlay"], datasets.Video)
    raw = ds.cast_column("video", datasets.Video(decode=False)).cast_column("overlay", datasets.Video(decode=False))
    for row, video in zip(raw, videos, strict=True):
        assert row["overlay"]["bytes"] == (root / video["overlay_path"]).read_bytes()
    assert len(_load(root, "oi_easy", tmp_path)) > 0


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
    videos = [v for v in _videos(root) if v["video_path"] or v["overlay_path"]]
    assert (PREVIEWS_CONFIG in declared) == bool(videos) == data_file(root, PREVIEWS_CONFIG).is_file()
    assert VIDEO_FILES_CONFIG not in declared  # no longer written
    if videos:  # the overlay where a video has one, else the original
        shows = pq.read_table(data_file(root, PREVIEWS_CONFIG), columns=["video_id", "shows"]).to_pylist()
        assert shows == [{"video_id": v["video_id"], "shows": "overlay" if v["overlay_path"] else "original"}
                         for v in videos]


def test_the_previews_option_reaches_the_writer_and_is_recorded(tmp_path):
    """``--no-previews`` (the generic ``import`` handler: EgoGazeVQA) leaves the config out and the manifest says
    so; the default (StreamEQA's own handler) writes previews of the originals (StreamEQA has no overlays)."""
    from streamgaze_hf.cli import main

    from ..fixtures.egogazevqa_fixture import write_release as egogazevqa_release
    from ..fixtures.streameqa_fixture import write_release as streameqa_release

    off, on = tmp_path / "egogazevqa", tmp_path / "streameqa"
    assert main(["import", "egogazevqa", str(egogazevqa_release(tmp_path / "r1")), "--out", str(off),
                 "--version", "1.0.0", "--no-previews"]) == 0
    assert read_manifest(off)["previews"] is None and not data_file(off, PREVIEWS_CONFIG).exists()
    assert PREVIEWS_CONFIG not in {c["config_name"] for c in check_card(off, "1.0.0", set(dataset_files(off)))["configs"]}
    assert main(["import", "streameqa", str(streameqa_release(tmp_path / "r2")), "--out", str(on),
                 "--version", "1.0.0"]) == 0
    assert read_manifest(on)["previews"] == {"config": PREVIEWS_CONFIG, **DEFAULT_PREVIEW.as_dict()}
    shows = pq.read_table(data_file(on, PREVIEWS_CONFIG), columns=["shows"]).column("shows").to_pylist()
    assert shows == ["original"] * len(_videos(on)) and len(shows) == 2


def test_previews_are_the_same_bytes_when_built_again_in_worker_processes(demo_dataset, tmp_path):
    from streamgaze_hf.dataset.viewer import write_previews

    root = tmp_path / "streamgaze"
    shutil.copytree(demo_dataset, root)
    (root / "data" / PREVIEWS_CONFIG / "test-00000-of-00001.parquet").unlink()
    assert write_previews(root, PARQUET_OPTIONS, progress=False, workers=2)
    assert data_file(root, PREVIEWS_CONFIG).read_bytes() == data_file(demo_dataset, PREVIEWS_CONFIG).read_bytes()
    assert sorted(p.name for p in root.iterdir()) == sorted(p.name for p in demo_dataset.iterdir())
