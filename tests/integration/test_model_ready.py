"""Model-ready clips (issues 36 and 42): made from the source in one pass per video for all its windows (each frame
decoded at most once, only what is needed), by the prefetcher's frame scheduler, the conversion check, the colour
description of re-encoded frames, and the reading-time figures of `streamgaze_hf/harness`."""

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


def source_frames(src, indices):
    """decord's decode of frames of the source itself (what a lossless cut of any window holds)."""
    import decord

    return decord.VideoReader(str(src)).get_batch(list(indices)).asnumpy()


@pytest.mark.parametrize("layout", ["ours", "camera"])
@pytest.mark.parametrize("key,params", [("llava_hf/simple", {"size_w": 64, "size_h": 64, "max_frames_num": 12}),
                                        ("qwen2_5_vl/chat", {"max_num_frames": 8, "max_pixels": 76800,
                                                             "min_pixels": 3136}),
                                        ("openai/simple", {"max_frames_num": 10})])
def test_one_pass_over_a_video_makes_each_windows_clip_from_the_source_decoding_every_frame_once(
        layout, key, params, tmp_path):
    from streamgaze_hf.evaluation.ready import plan_job
    from streamgaze_hf.video.one_pass import decoded_counts, reset_decoded_counts
    from streamgaze_hf.video.resize import resize_frames

    clips._clear_memos()
    src = (write_ours(tmp_path / "ours.mp4") if layout == "ours"
           else write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=30, gop_s=6))
    s = spec(key, **params)
    windows = [(0.0, t) for t in (6.3, 9.1, 14.7, 20.2, 25.5, 29.9)] + [(11.3, 25.9), (3.7, 12.1)]
    reset_decoded_counts()
    shared, stats = ready_clips(src, windows, None, s, cache_dir=tmp_path / "a")
    counts = decoded_counts()[str(src.resolve())]
    assert stats["built"] == len(windows) and stats["units"] >= 1
    assert max(counts.values()) == 1 and sum(counts.values()) == stats["decoded"]  # no frame decoded twice
    wanted = {i for clip in shared for i in ready_sidecar(clip)["source_indices"]}
    assert wanted <= set(counts) and stats["decoded"] < 720  # nothing after the last wanted frame of a GOP
    assert not (tmp_path / "a" / "passes").exists() or not any((tmp_path / "a" / "passes").iterdir())
    assert not list((tmp_path / "a").glob("??/*.mp4"))  # no full-rate clip was cut
    for (start, end), clip in zip(windows, shared):
        side = ready_sidecar(clip)
        job = plan_job(src, start, end, s, cache_dir=tmp_path / "b")
        assert side["source_indices"] == list(job.sources) and side["n_frames"] == len(job.sources)
        assert max(side["frame_times"]) <= end + 1e-6 and min(side["frame_times"]) >= start - 1e-6
        want = source_frames(src, side["source_indices"])  # the source is the truth
        if side["size"] != [want.shape[2], want.shape[1]]:
            want = resize_frames(want, tuple(side["size"]), s.row.kernel)
        assert np.array_equal(frames_of(clip), want), (start, end)
        alone = ready_clip(src, start, end, None, s, cache_dir=tmp_path / "b")
        assert {k: v for k, v in ready_sidecar(alone).items() if k != "source"} == {
            k: v for k, v in side.items() if k != "source"}
    again, stats = ready_clips(src, windows, None, s, cache_dir=tmp_path / "a")
    assert again == shared and stats["built"] == 0  # resumable: every clip found in the cache


def test_a_unit_decodes_from_its_keyframe_to_its_last_wanted_frame_skipping_non_reference_pictures(tmp_path):
    """One GOP of the camera layout (6 s at 24 fps, 3 B-frames): wanting frame 100 of it decodes the reference
    pictures up to it and that frame, never the non-reference B-frames nobody wants, nothing after it."""
    import os

    from streamgaze_hf.video.one_pass import UnitDecoder, decode_units, decoded_counts, reset_decoded_counts
    from streamgaze_hf.video.packets import packet_index

    src = write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=12, gop_s=6)
    st = os.stat(src)
    idx = packet_index(str(src), st.st_size, st.st_mtime_ns)
    assert idx.reference is not None and not idx.reference.all()  # B-frames that are not references
    units = decode_units(idx, [100, 150, 200])
    assert [(u.key, u.wanted) for u in units] == [(0, (100,)), (144, (150, 200))]
    reset_decoded_counts()
    with UnitDecoder(src, idx) as dec:
        got = {i: f.to_ndarray(format="rgb24") for u in units for i, f in dec.run(u)}
    assert sorted(got) == [100, 150, 200]
    decoded = set(decoded_counts()[str(src.resolve())])
    assert max(decoded) < 208 and {100, 150, 200} <= decoded  # past 200 only what the decoder buffers to reorder
    skipped = [i for i in range(0, 100) if not idx.reference[i]]
    assert skipped and not decoded & set(skipped)
    assert len(decoded & set(range(0, 100))) == int(idx.reference[:100].sum())


def test_a_conversion_the_reader_does_not_confirm_falls_back_to_the_readers_own(tmp_path, monkeypatch):
    """The first unit of a pass checks the RGB conversion against the wrapper's reader; a mismatch (simulated)
    makes the video's clips the way a frame-rate-capped window's are: from the cut window, by the reader."""
    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.video import one_pass

    clips._clear_memos()
    ready._CHECKED.clear()
    src = write_ours(tmp_path / "ours.mp4", seconds=8)
    s = spec("openai/simple", max_frames_num=4)
    original = one_pass.reader_rgb
    monkeypatch.setattr(one_pass, "reader_rgb", lambda frame: np.minimum(original(frame).astype(int) + 1, 255)
                        .astype(np.uint8))
    out, _stats = ready_clips(src, [(0.0, 7.5), (2.0, 6.0)], None, s, cache_dir=tmp_path / "c")
    for clip in out:
        side = ready_sidecar(clip)
        assert np.array_equal(frames_of(clip), source_frames(src, side["source_indices"]))
    assert list((tmp_path / "c").glob("??/*.mp4"))  # made from the cut windows


def test_every_pass_driver_falls_back_the_same_way_on_a_mismatch(tmp_path, monkeypatch):
    """The fallback is the pass's own (``ready.VideoPass``, issue 52): on a thread pool (``run_passes``) and in the
    run's frame scheduler, a video whose conversion the reader does not confirm gets every clip the capped way,
    as ``ready_clips`` gives it, and the pass leaves no frames behind."""
    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.evaluation.schedule import FrameScheduler
    from streamgaze_hf.util.executors import threads
    from streamgaze_hf.video import one_pass

    clips._clear_memos()
    src = write_ours(tmp_path / "ours.mp4", seconds=8)
    s = spec("openai/simple", max_frames_num=4)
    original = one_pass.reader_rgb
    monkeypatch.setattr(one_pass, "reader_rgb", lambda frame: np.minimum(original(frame).astype(int) + 1, 255)
                        .astype(np.uint8))
    capped: list[tuple[float, float]] = []
    legacy = ready.legacy_ready_clip
    monkeypatch.setattr(ready, "legacy_ready_clip", lambda *a: capped.append(a[1:3]) or legacy(*a))
    windows = [(0.0, 7.5), (2.0, 6.0), (1.0, 3.0)]

    ready._CHECKED.clear()
    cache = tmp_path / "threads"
    jobs = [ready.find_or_plan(src, a, b, s, cache)[1] for a, b in windows]
    vp = ready.VideoPass(str(src.resolve()), jobs, cache)
    assert len(vp.plan.units) > 2
    made = ready.run_passes([vp], threads(2))
    assert vp.mismatch and sorted(capped) == sorted(windows) and not vp.store.root.exists()
    for job in jobs:
        side = ready_sidecar(made[job.key])
        assert np.array_equal(frames_of(made[job.key]), source_frames(src, side["source_indices"]))

    ready._CHECKED.clear()
    capped.clear()
    cache = tmp_path / "scheduler"
    sched = FrameScheduler(1, cache_dir=cache)
    try:
        sched.register([(w, (str(src), *w, s.describe()), i) for i, w in enumerate(windows)])
        assert sched.wait_idle(timeout=120)
        paths = [sched.path(w) for w in windows]
        assert sched.stats.legacy == 3 and sched.stats.clips == 0, sched.stats
    finally:
        sched.close(timeout=30)
    assert sorted(capped) == sorted(windows) and not list((cache / "passes").glob("*/*"))
    for path in paths:
        side = ready_sidecar(path)
        assert np.array_equal(frames_of(path), source_frames(src, side["source_indices"]))


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


def test_the_prefetcher_makes_every_window_of_a_video_in_one_pass(demo_dataset, tmp_path, monkeypatch):
    from streamgaze_hf.benchmarks.streamgaze.evaluation import load_docs
    from streamgaze_hf.evaluation import prefetch, schedule
    from streamgaze_hf.evaluation.model_frames import frames_request
    from streamgaze_hf.evaluation.settings import RunSettings
    from streamgaze_hf.evaluation.visuals import cached_window_clip
    from streamgaze_hf.video.one_pass import decoded_counts, reset_decoded_counts

    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    settings = RunSettings(model=json.dumps(frames_request("gpt4v", "simple", {"max_frames_num": 6})))
    by_task = {task: load_docs(task, "none", demo_dataset, settings=settings) for task in ("nfi", "oi_easy", "gta")}
    text = load_docs("nfi", "text", demo_dataset, settings=settings)  # another gaze variant showing the same video
    prefetch.stop_prefetch()
    reset_decoded_counts()
    try:
        names = {f"streamgaze_{t}_nogaze" for t in by_task} | {"streamgaze_nfi_textgaze"}
        for task, docs in by_task.items():
            prefetch.start_prefetch(docs, settings, task=f"streamgaze_{task}_nogaze", expected=names)
            assert not schedule.running()._sealed  # planned once every task of the run is known
        prefetch.start_prefetch(text, settings, task="streamgaze_nfi_textgaze", expected=names)
        scheduler = schedule.running()
        assert scheduler._sealed
        docs = [d for ds in by_task.values() for d in ds] + text
        asked = prefetch.prefetched_visuals(docs[-1])  # the model asks: its clip first, with this thread's help
        assert asked[-1].endswith(".mov")
        assert scheduler.wait_idle(timeout=600)
        for d in docs:
            clip = cached_window_clip(d)
            assert clip is not None and clip.suffix == ".mov"
            assert prefetch.prefetched_visuals(d)[-1] == str(clip)
        counts = decoded_counts()
        assert counts and all(max(c.values()) == 1 for c in counts.values())  # every frame decoded once at most
        assert scheduler.stats.late == 0 and scheduler.stats.clips == len({prefetch.scheduled_window(d)
                                                                          for d in docs})
        assert not list((tmp_path / "clips").glob("??/*.mp4"))  # no full-rate clip was cut
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


def _scheduler_source(tmp_path, seconds: int) -> tuple[str, str]:
    """A camera-layout source of 6 s GOPs (its real path, as the scheduler keys videos) and a small LLaVA frame
    spec's text, with the clip memos cleared."""
    import os

    clips._clear_memos()
    src = write_camera_source(tmp_path / "camera.mp4", 160, 120, seconds=seconds, gop_s=6)
    return os.path.realpath(src), spec("llava_hf/simple", size_w=32, size_h=32, max_frames_num=3).describe()


def test_the_scheduler_makes_what_the_model_asks_for_first_then_the_rest_in_the_predicted_order(tmp_path):
    """Windows of one video in different GOPs: with no worker thread, asking for one makes exactly its units (on
    the asking thread); running the rest takes them by predicted rank (a smaller order first)."""
    from streamgaze_hf.evaluation.schedule import FrameScheduler

    video, s = _scheduler_source(tmp_path, seconds=30)
    windows = {f"w{k}": (video, 6.0 * k + 0.5, 6.0 * k + 5.5, s) for k in range(5)}  # one GOP each
    sch = FrameScheduler(0, cache_dir=tmp_path / "cache")
    sch.register([(key, w, -float(i)) for i, (key, w) in enumerate(windows.items())])  # predicted: w4 first
    clip = sch.path("w3")  # the model asks for w3 first
    assert clip.suffix == ".mov" and sch.stats.units == 1 and sch.stats.helped == 1 and sch.stats.clips == 1
    order = []
    original = sch._run

    def run(p, u, helper=False):
        order.append(u)
        original(p, u, helper)

    sch._run = run
    while (nxt := sch._take()) is not None:
        sch._run(*nxt)
    assert order == [576, 288, 144, 0]  # the GOPs (6 s, 144 frames) of w4, w2, w1, w0: by rank, not by time
    assert all(sch.path(k).suffix == ".mov" for k in windows) and sch.stats.clips == 5


def test_the_first_unit_of_a_process_keeps_freed_memory_for_the_next_frame(tmp_path):
    """``run_unit`` raises glibc's malloc thresholds before the first frame (util/allocator.py; its own tests show
    what that does to page faults): in a fresh process, nothing is set before the pass and they are set after."""
    import os
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc's malloc thresholds")
    src = write_ours(tmp_path / "ours.mp4", seconds=3)
    code = (
        "import json, sys\n"
        "from streamgaze_hf.evaluation.model_frames import FramesSpec\n"
        "from streamgaze_hf.evaluation.ready import ready_clips\n"
        "from streamgaze_hf.util import allocator\n"
        "before = allocator._STATE\n"
        "clips, stats = ready_clips(sys.argv[1], [(0.0, 2.0)], None, FramesSpec.parse(sys.argv[2]), cache_dir=sys.argv[3])\n"
        "print(json.dumps([before, allocator._STATE, stats['built'], stats['decoded']]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES" and not k.startswith("MALLOC_")}
    s = spec("llava_hf/simple", size_w=64, size_h=64, max_frames_num=8)
    out = subprocess.run([sys.executable, "-c", code, str(src), s.describe(), str(tmp_path / "cache")], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, built, decoded = json.loads(out.stdout.strip().splitlines()[-1])
    assert (before, after, built) == (None, "set", 1)
    assert decoded > 0


def test_a_pass_makes_the_same_bytes_on_every_executor(tmp_path):
    """The executor seam (``util/executors.py``) decides only where a pass's units run: inline, on threads
    and in processes, the same windows give byte-identical clips, every unit run once, no frames left behind."""
    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.util.executors import Inline, chunks, processes, threads

    clips._clear_memos()
    src = write_ours(tmp_path / "ours.mp4", seconds=8)
    s = spec("llava_hf/simple", size_w=64, size_h=64, max_frames_num=6)
    windows = [(0.0, 7.5), (2.0, 6.0), (1.0, 3.0)]
    made = {}
    for name, executor in (("inline", Inline()), ("threads", threads(2)), ("processes", processes(2))):
        cache = tmp_path / name
        jobs = [ready.find_or_plan(src, a, b, s, cache)[1] for a, b in windows]
        vp = ready.VideoPass(str(src.resolve()), jobs, cache)
        out = ready.run_passes([vp], executor)
        assert not vp.mismatch and vp.units_run == len(vp.plan.units) and not vp.store.root.exists(), name
        made[name] = [out[j.key].read_bytes() for j in jobs]
    assert made["threads"] == made["inline"] and made["processes"] == made["inline"]
    assert chunks([], 3) == [] and chunks([1, 2, 3, 4, 5], 2) == [[1, 2, 3], [4, 5]]


def test_a_unit_reports_where_its_cpu_went(tmp_path):
    """``run_unit``'s costs: the decoder, the frames' conversion and resize, the writes; each measured, and
    together the thread's CPU for the unit."""
    import time

    from streamgaze_hf.evaluation.ready import UnitCosts, find_or_plan, pass_store, plan_pass, run_unit

    clips._clear_memos()
    src = write_ours(tmp_path / "ours.mp4", seconds=4, size=(320, 240))
    s = spec("llava_hf/simple", size_w=64, size_h=64, max_frames_num=12)
    _hit, job = find_or_plan(src, 0.0, 3.9, s, tmp_path / "cache")
    pp = plan_pass(str(src.resolve()), [job])
    store = pass_store(pp, tmp_path / "pass")
    costs = UnitCosts()
    t0 = time.thread_time()
    decoded = sum(run_unit(pp, unit, store, None, str(tmp_path / "cache"), costs) for unit in pp.units)
    spent = time.thread_time() - t0
    assert decoded > 0 and len(pp.units) == 4  # 1 s GOPs
    assert min(costs.decode_s, costs.frames_s, costs.write_s) > 0, costs
    total = costs.decode_s + costs.frames_s + costs.write_s
    assert total <= spent and total >= 0.9 * spent, (costs, spent)


def test_frames_are_made_in_runs_of_held_frames_and_the_clips_are_the_same(tmp_path, monkeypatch):
    """``ready.HOLD_BYTES``: a unit's wanted frames are decoded in runs of that many bytes of decoded frames, then
    made; how many are held changes no byte of any clip."""
    import itertools

    import av

    from streamgaze_hf.evaluation import ready
    from streamgaze_hf.video.one_pass import UnitDecoder

    src = write_ours(tmp_path / "ours.mp4", seconds=3)
    with av.open(str(src)) as c:  # a decoded frame's bytes (the unit of HOLD_BYTES)
        frame_bytes = ready.frame_bytes(next(c.decode(video=0)))
    s = spec("llava_hf/simple", size_w=64, size_h=64, max_frames_num=30)
    events: list[str] = []
    run, variant_frames = UnitDecoder.run, ready._variant_frames

    def logged_run(self, unit):
        for item in run(self, unit):
            events.append("d")
            yield item

    def logged_variant_frames(*args):
        events.append("m")
        return variant_frames(*args)

    monkeypatch.setattr(UnitDecoder, "run", logged_run)
    monkeypatch.setattr(ready, "_variant_frames", logged_variant_frames)
    made = {}
    for hold in (1, 4):
        monkeypatch.setattr(ready, "HOLD_BYTES", hold * frame_bytes)
        clips._clear_memos()
        events.clear()
        (clip,), stats = ready_clips(src, [(0.0, 2.5)], None, s, cache_dir=tmp_path / f"hold{hold}")
        made[hold] = (clip.read_bytes(), "".join(events), stats["units"])
    assert made[1][1] == "dm" * 30  # 30 wanted frames, each made as it leaves the decoder
    runs = [(k, len(list(g))) for k, g in itertools.groupby(made[4][1])]
    decoded = [n for k, n in runs if k == "d"]
    assert [n for k, n in runs if k == "m"] == decoded and sum(decoded) == 30  # each run made once it is held
    assert max(decoded) == 4 and 8 <= len(decoded) <= 30 // 4 + made[4][2]  # runs of 4; a unit's last may be short
    assert made[1][0] == made[4][0]


def test_a_full_disk_is_a_clear_error_naming_the_clip_cache(tmp_path, monkeypatch):
    """A frame that cannot be written into its clip (here the disk is full: ``pwrite`` fails as the kernel fails it)
    is the toolkit's error naming the pass's directory in the cache, not a bare OSError, and nothing is in the
    cache."""
    import errno
    import os

    from streamgaze_hf.util.errors import StreamGazeError

    clips._clear_memos()
    src = write_ours(tmp_path / "ours.mp4", seconds=3)

    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    cache = tmp_path / "cache"
    with pytest.raises(StreamGazeError, match=r"cannot write to the clip cache \(No space left on device\)") as err:
        ready_clips(src, [(0.0, 2.5)], None, spec("llava_hf/simple", size_w=64, size_h=64, max_frames_num=8),
                    cache_dir=cache)
    assert str(cache / "passes") in str(err.value)
    assert not list(cache.glob("ready/*/*.mov"))


@pytest.mark.parametrize("late", [False, True], ids=["while-sealing", "late-registration"])
def test_an_ask_for_a_window_being_planned_waits_for_its_plan(tmp_path, monkeypatch, late):
    """A window registered on one thread and still being planned there (the head start's seal; a late
    registration) is asked for on another (the model's): the ask waits for the plan and gets the clip, never
    "not a registered window" (perf/model_wait.py's second cold run raised it)."""
    from streamgaze_hf.evaluation import schedule
    from streamgaze_hf.evaluation.schedule import FrameScheduler

    video, s = _scheduler_source(tmp_path, seconds=12)
    planning, release = threading.Event(), threading.Event()
    original = schedule.find_or_plan

    def slow_plan(*args, **kwargs):
        planning.set()
        assert release.wait(30)
        return original(*args, **kwargs)

    sch = FrameScheduler(0, cache_dir=tmp_path / "cache")
    if late:
        sch.register([("w0", (video, 0.5, 5.5, s), 0.0)])
        sch.seal()
    monkeypatch.setattr(schedule, "find_or_plan", slow_plan)
    key = "w1" if late else "w0"
    planner = threading.Thread(target=(lambda: sch.register([(key, (video, 6.5, 11.5, s), 1.0)])) if late
                               else (lambda: (sch.register([(key, (video, 0.5, 5.5, s), 0.0)]), sch.seal())))
    planner.start()
    assert planning.wait(30)  # the planner holds the window: registered, not planned
    got: list = []
    asker = threading.Thread(target=lambda: got.append(sch.path(key)), daemon=True)
    asker.start()
    asker.join(1.0)
    assert asker.is_alive() and not got  # waiting, not failed
    release.set()
    planner.join(30)
    asker.join(30)
    assert len(got) == 1 and got[0].suffix == ".mov"
    assert sch.stats.clips == 1 and sch.stats.helped == 1  # the asked window only: no worker thread


def test_an_ask_that_finds_its_clip_entry_before_its_pass_runs_the_pass_itself(tmp_path, monkeypatch):
    """The planner has made the window's clip entry but not yet added its pass when the model asks. With no
    worker thread the asking thread must run the units itself once the pass is there; before, it found no unit
    to take and waited for a clip nothing would make (CI's hang in the test above, a race there)."""
    from streamgaze_hf.evaluation import schedule
    from streamgaze_hf.evaluation.schedule import FrameScheduler

    video, s = _scheduler_source(tmp_path, seconds=12)
    adding, release = threading.Event(), threading.Event()
    original = schedule.VideoPass

    def slow_pass(*args, **kwargs):
        adding.set()  # the entries exist (``_plan_timed`` made them before adding the pass)
        assert release.wait(30)
        return original(*args, **kwargs)

    monkeypatch.setattr(schedule, "VideoPass", slow_pass)
    sch = FrameScheduler(0, cache_dir=tmp_path / "cache")
    sch.register([("w0", (video, 0.5, 5.5, s), 0.0)])
    planner = threading.Thread(target=sch.seal, daemon=True)
    planner.start()
    assert adding.wait(30)
    got: list = []
    asker = threading.Thread(target=lambda: got.append(sch.path("w0")), daemon=True)
    asker.start()
    asker.join(1.0)
    assert asker.is_alive() and not got
    release.set()
    planner.join(30)
    asker.join(30)
    assert not asker.is_alive() and len(got) == 1 and got[0].suffix == ".mov"
    assert sch.stats.units == 1 and sch.stats.helped == 1 and sch.stats.clips == 1


def test_a_pass_that_cannot_be_planned_fails_its_asks_instead_of_hanging(tmp_path, monkeypatch):
    """Planning the pass itself raises (on the thread that seals): an ask for its window then raises the same
    error; before, the window's clip entry waited for a pass that never came."""
    from streamgaze_hf.evaluation import schedule
    from streamgaze_hf.evaluation.schedule import FrameScheduler

    video, s = _scheduler_source(tmp_path, seconds=12)

    def broken_pass(*args, **kwargs):
        raise OSError("the pass store cannot be made")

    monkeypatch.setattr(schedule, "VideoPass", broken_pass)
    sch = FrameScheduler(0, cache_dir=tmp_path / "cache")
    sch.register([("w0", (video, 0.5, 5.5, s), 0.0)])
    with pytest.raises(OSError, match="pass store"):
        sch.seal()
    got: list = []

    def ask():
        try:
            sch.path("w0")
        except OSError as exc:
            got.append(exc)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    asker.join(10)
    assert not asker.is_alive() and len(got) == 1 and "pass store" in str(got[0])
