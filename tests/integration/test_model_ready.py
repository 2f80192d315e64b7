"""Model-ready clips ahead of a run (issue 36): one pass over a video for all its windows, `streamgaze clips warm
--model`, the colour description of re-encoded frames, and the reading-time figures of `streamgaze_hf/harness`."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from streamgaze_hf.evaluation.model_frames import WRAPPERS, FramesSpec
from streamgaze_hf.evaluation.ready import ready_clip, ready_clips, ready_sidecar
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import prepare_clip, read_sidecar
from streamgaze_hf.video.writer import H264Writer

from ..fixtures.wrapper_equality import write_camera_source

pytest.importorskip("torchvision")


def spec(key: str, **params) -> FramesSpec:
    row = WRAPPERS[key]
    return FramesSpec(key, tuple(sorted({**row.args, **row.requires, **params}.items())), "decord")


def write_ours(path, seconds=30, fps=24, size=(160, 120)):
    """Our layout: 1 s GOPs, no B-frames; a moving gradient so frames differ."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w]
    with H264Writer(path, w, h, fps) as wr:
        for i in range(int(seconds * fps)):
            wr.write(np.stack([(xx * 2 + i) % 256, (yy * 3 + 2 * i) % 256, (xx + yy + i) % 256], -1).astype(np.uint8))
    return path


def frames_of(path):
    import decord

    vr = decord.VideoReader(str(path))
    return vr.get_batch(list(range(len(vr)))).asnumpy()


@pytest.mark.parametrize("layout", ["ours", "camera"])
@pytest.mark.parametrize("key,params", [("llava_hf/simple", {"size_w": 64, "size_h": 64, "max_frames_num": 12}),
                                        ("qwen2_5_vl/chat", {"max_num_frames": 8, "max_pixels": 76800,
                                                             "min_pixels": 3136})])
def test_one_pass_over_a_video_makes_the_same_clips_as_one_read_each(layout, key, params, tmp_path):
    clips._clear_memos()
    src = (write_ours(tmp_path / "ours.mp4") if layout == "ours"
           else write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=30, gop_s=6))
    s = spec(key, **params)
    windows = [(0.0, t) for t in (6.3, 9.1, 14.7, 20.2, 25.5, 29.9)] + [(11.3, 25.9)]
    shared, stats = ready_clips(src, windows, None, s, cache_dir=tmp_path / "a")
    assert stats["built"] == len(windows) and stats["shared"]
    assert stats["decoded_estimate"] < stats["separate_estimate"]
    modes = set()
    for (start, end), clip in zip(windows, shared):
        alone = ready_clip(src, start, end, None, s, cache_dir=tmp_path / "b")
        assert clip.suffix == alone.suffix == ".mov"
        a, b = ready_sidecar(clip), ready_sidecar(alone)
        assert {k: v for k, v in a.items() if k != "clip_size"} == {k: v for k, v in b.items() if k != "clip_size"}
        assert np.array_equal(frames_of(clip), frames_of(alone)), (start, end)
        modes.add(read_sidecar(prepare_clip(src, start, end, cache_dir=tmp_path / "b"))["mode"])
    # prefixes of our layout are packet copies; its mid-GOP window and the camera's windows smart cuts
    assert "smart" in modes and ("copy" in modes or layout == "camera")
    again, stats = ready_clips(src, windows, None, s, cache_dir=tmp_path / "a")
    assert again == shared and stats["built"] == 0  # resumable: every clip found in the cache


def test_re_encoded_frames_keep_the_sources_colour_description(tmp_path):
    """A BT.709 source's re-encoded frames (a smart cut's head and tail, an encode-mode clip) declare BT.709, so
    readers convert them with the same matrix as the copied ones (they declared nothing before issue 36)."""
    import av
    import decord

    clips._clear_memos()
    src = write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=12, gop_s=6)
    ft_frames = frames_of(src)
    for fps_cap, mode in ((None, "smart"), (3.0, "encode")):
        clip = prepare_clip(src, 2.3, 9.7, fps_cap, cache_dir=tmp_path / "cache")
        side = read_sidecar(clip)
        assert side["mode"] == mode
        with av.open(str(clip)) as c:
            frames = list(c.decode(video=0))
        assert {(f.colorspace, f.color_range) for f in frames} == {(1, 1)}  # BT.709, limited: every frame
        got = decord.VideoReader(str(clip)).get_batch(list(range(len(frames)))).asnumpy().astype(int)
        want = ft_frames[side["source_indices"]].astype(int)
        assert np.abs(got - want).mean() < 3.0  # re-encoding error only (the BT.601 reading was 8 levels off)


def test_reading_time_counts_the_wrappers_reads_only(tmp_path):
    """The wrapper's reads are timed per question; the toolkit's own (prefetch threads, the hand-over of a
    document's clip) are not."""
    import decord

    from streamgaze_hf.harness import video_time

    clip = write_ours(tmp_path / "v.mp4", seconds=4)
    decord_only = video_time.TARGETS[:1]  # (the others import lmms-eval and transformers: the e2e runs use them)
    video_time.reset()
    video_time.install(decord_only)
    try:
        video_time.run_started()
        for _ in range(3):
            video_time.mark_question()
            with video_time.harness_work():
                decord.VideoReader(str(clip)).get_batch([0, 1])  # the toolkit's: not counted
            decord.VideoReader(str(clip)).get_batch(list(range(0, 90, 3)))
        worker = threading.Thread(target=lambda: decord.VideoReader(str(clip)).get_batch([5]),
                                  name="streamgaze-prefetch-0")
        worker.start()
        worker.join()
        video_time.run_finished()
        s = video_time.summary()
    finally:
        video_time.uninstall()
    assert s["questions"] == 3 and s["video_read_s"] > 0 and s["prepare_s"] > 0
    assert 0 < s["video_read_share"] <= 1 and s["video_read_median_ms"] > 0
    assert video_time.format_summary(s).startswith("streamgaze: video: the model wrapper spent")
    assert "decord.video_reader.VideoReader.get_batch" in video_time.install(decord_only)
    video_time.uninstall()


def test_the_prefetcher_makes_the_windows_of_one_video_in_one_pass(demo_dataset, tmp_path, monkeypatch):
    from streamgaze_hf.benchmarks.streamgaze.evaluation import load_docs
    from streamgaze_hf.evaluation import prefetch, ready
    from streamgaze_hf.evaluation.model_frames import frames_request
    from streamgaze_hf.evaluation.settings import RunSettings
    from streamgaze_hf.evaluation.visuals import cached_window_clip

    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    passes = []
    original = ready.ready_clips
    monkeypatch.setattr(ready, "ready_clips", lambda video, windows, *a, **k: passes.append(len(windows)) or
                        original(video, windows, *a, **k))
    settings = RunSettings(model=json.dumps(frames_request("gpt4v", "simple", {"max_frames_num": 6})))
    docs = [d for task in ("nfi", "gta") for d in load_docs(task, "visual", demo_dataset, settings=settings)]
    prefetch.stop_prefetch()
    try:
        p = prefetch.start_prefetch(docs, settings)
        assert p.wait_idle(timeout=600)
        assert passes and max(passes) > 1 and sum(passes) <= len(docs)  # several windows of a video at a time
        for d in docs:
            clip = cached_window_clip(d)
            assert clip is not None and clip.suffix == ".mov"
            assert prefetch.prefetched_visuals(d)[-1] == str(clip)
        assert p.stats.prepared == len({prefetch.doc_key(d) for d in docs}) and p.stats.failed == 0
    finally:
        prefetch.stop_prefetch()


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_an_open_decord_reader_stops_decoding_after_its_frames(tmp_path):
    """decord's decoder thread goes on decoding the whole file into memory after a batch while the reader is
    open (a clips warm worker was killed for 20 GB on a 1080p source); ClipReader stops it after each batch.
    Without the stop, this 60 s 320x240 clip (1,440 frames, 330 MB decoded) grows the process by hundreds of MB
    within the second."""
    import time

    from streamgaze_hf.video.wrapper_reads import ClipReader

    src = write_ours(tmp_path / "long.mp4", seconds=60, size=(320, 240))
    reader = ClipReader(src, "decord")
    frames = reader.frames([0, 30, 700])
    assert frames.shape == (3, 240, 320, 3)
    before = _rss_mb()
    time.sleep(1.0)
    grown = _rss_mb() - before
    assert grown < 60, f"the process grew by {grown:.0f} MB while the reader sat open"
    again = reader.frames([700, 1439])  # the reader still reads after the stop
    assert np.array_equal(again[0], frames[2]) and again.shape == (2, 240, 320, 3)
