"""Window clips: exact frames (no future leakage), copy vs. encode path, fps_cap, edge windows, cache."""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing as mp
import os
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.util.errors import StreamGazeError, VideoError
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import (
    clip_cache_dir,
    clip_frame_times,
    prepare_clip,
    read_sidecar,
    select_frames,
    sidecar_path,
)
from streamgaze_hf.video.frame_reader import iter_frames, probe_video, read_frames_at

from ..fixtures.coded_clips import (
    FORCED_KEYS,
    N_FRAMES,
    check_clip,
    decode_index,
    decoded_clip,
    expected_indices,
    write_source,
)


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("clipsrc")
    return {"plain": write_source(d / "plain.mp4"),
            "bframes": write_source(d / "bframes.mp4", fps=Fraction(30000, 1001), bframes=2)}


@pytest.fixture
def cache(tmp_path) -> Path:
    clips._clear_memos()
    return tmp_path / "cache"


def test_source_fixture_is_what_the_tests_assume(sources):
    for name, src in sources.items():
        assert [decode_index(img) for _, _, img in iter_frames(src)] == list(range(N_FRAMES)), name
    idx = clips._packet_index(str(sources["plain"]), *_size_mtime(sources["plain"]))
    assert idx.in_order and all(idx.keyframe[k] for k in FORCED_KEYS)
    assert np.array_equal(idx.frame_pts, probe_video(sources["plain"]).frame_pts)
    bidx = clips._packet_index(str(sources["bframes"]), *_size_mtime(sources["bframes"]))
    assert not bidx.in_order  # B-frames: decode order != presentation order


def _size_mtime(p: Path) -> tuple[int, int]:
    st = p.stat()
    return st.st_size, st.st_mtime_ns


@pytest.mark.parametrize("start,end", [(0.0, 0.5), (0.0, 3.3), (0.0, 9.99), (0.0, 60.0), (37 / 24, 6.2),
                                       (100 / 24 - 1e-7, 8.0), (173 / 24, 173 / 24 + 1.0), (1.0, 2.5)])
def test_copy_path_is_frame_exact_and_bit_identical(sources, cache, start, end):
    src = sources["plain"]
    clip = prepare_clip(src, start, end, cache_dir=cache)
    assert read_sidecar(clip)["mode"] == "copy"
    check_clip(src, clip, start, end)
    _, imgs = decoded_clip(clip)
    ref = read_frames_at(src, clip_frame_times(clip))
    assert len(ref) == len(imgs)
    for (_, a), b in zip(ref, imgs):
        assert np.array_equal(a, b)  # packets copied, not re-encoded


@pytest.mark.parametrize("start,end,mode", [(1.3, 4.1, "smart"), (0.0, 2.0, "smart"),
                                            (2.0 + 1e-3, 2.0 + 5e-3, "encode"), (5.5, 9.0, "smart")])
def test_bframes_source_is_cut_exactly(sources, cache, start, end, mode):
    # B-frames: whole GOPs are copied, the partial ones at the ends re-encoded (video/smartcut.py); a
    # window holding no whole GOP is re-encoded
    src = sources["bframes"]
    clip = prepare_clip(src, start, end, cache_dir=cache)
    assert read_sidecar(clip)["mode"] == mode
    check_clip(src, clip, start, end)


@pytest.mark.parametrize("start,end,mode", [(1.01, 2.5, "smart"), (38 / 24, 5.0, "smart"),
                                            (4.2, 4.2 + 1 / 24, "encode")])
def test_window_starting_mid_gop_is_cut_exactly(sources, cache, start, end, mode):
    # the frames before the window's first keyframe are re-encoded, the rest copied (smart cut); a
    # window without a keyframe is re-encoded
    src = sources["plain"]
    clip = prepare_clip(src, start, end, cache_dir=cache)
    assert read_sidecar(clip)["mode"] == mode
    check_clip(src, clip, start, end)


@pytest.mark.parametrize("cap", [0.3, 1.0, 2.0, 5.0, 7.0, 24.0])
@pytest.mark.parametrize("name,start,end", [("plain", 0.0, 9.0), ("plain", 1.37, 6.02), ("bframes", 2.1, 7.77)])
def test_fps_cap(sources, cache, cap, name, start, end):
    src = sources[name]
    ft = probe_video(src).frame_times
    clip = prepare_clip(src, start, end, fps_cap=cap, cache_dir=cache)
    codes, _ = decoded_clip(clip)
    times = clip_frame_times(clip)
    assert codes == [int(np.argmin(np.abs(ft - t))) for t in times]  # the recorded frames are the ones shown
    assert len(codes) <= math.ceil((end - start) * cap) + 1
    assert codes[-1] == expected_indices(ft, start, end)[-1]  # always the window's last frame
    assert all(start - 1e-6 <= t <= end + 1e-6 for t in times)
    assert np.all(np.diff(times) >= 1 / cap - 1e-6)
    assert codes == sorted(codes)
    meta = read_sidecar(clip)
    assert meta["fps_cap"] == cap
    if len(codes) < len(expected_indices(ft, start, end)):
        assert meta["mode"] == "encode"


def test_select_frames_caps_without_looping_forever():
    ft = np.arange(100) / 24
    assert select_frames(ft, 0, 10, fps_cap=1e12).tolist() == list(range(100))
    assert select_frames(ft, 0, 10, fps_cap=1e-3).tolist() == [99]
    assert select_frames(ft, 1.0, 2.0, fps_cap=1.0).tolist() == [24, 48]


def test_edge_windows(sources, cache):
    src = sources["plain"]
    ft = probe_video(src).frame_times
    cases = {
        (0.0, 0.0): [0],
        (5.0, 1000.0): list(range(120, N_FRAMES)),  # end past the video: clamped to the last frame
        (float(ft[50]), float(ft[50])): [50],  # start == end at a frame time
        (float(ft[50]) + 0.01, float(ft[50]) + 0.02): [50],  # between two frames: the frame on screen
        (float(ft[37]) + 0.01, float(ft[38]) - 0.01): [37],
        (500.0, 600.0): [N_FRAMES - 1],  # after the video: its last frame
    }
    for (start, end), want in cases.items():
        clip = prepare_clip(src, start, end, cache_dir=cache)
        assert decoded_clip(clip)[0] == want, (start, end)
        assert clip_frame_times(clip) == pytest.approx(ft[want].tolist(), abs=1e-9)
        assert max(clip_frame_times(clip)) <= end + 1e-6


def test_sidecar_records_the_clip(sources, cache):
    src = sources["plain"]
    clip = prepare_clip(src, 1.0, 2.0, cache_dir=cache)
    assert clip.parent.parent == cache and clip.suffix == ".mp4"
    assert sidecar_path(clip) == clip.with_name(clip.name + ".json")
    meta = json.loads(sidecar_path(clip).read_text())
    assert meta["source"] == os.path.realpath(src)
    assert meta["source_sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert meta["window"] == [1.0, 2.0] and meta["fps_cap"] is None and meta["mode"] == "copy"
    assert meta["source_indices"] == list(range(24, 49))
    assert meta["clip_size"] == clip.stat().st_size


def test_cache_hits_are_fast_and_keys_differ(sources, cache):
    src = sources["plain"]
    first = prepare_clip(src, 0.0, 7.5, cache_dir=cache)
    mtime = first.stat().st_mtime_ns
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        again = prepare_clip(src, 0.0, 7.5, cache_dir=cache)
        times.append(time.perf_counter() - t0)
        assert again == first
    assert min(times) < 0.005
    assert first.stat().st_mtime_ns == mtime  # not rebuilt
    # a new process (no in-memory memo) still hits the cache, using the on-disk digest index
    assert list((cache / "sources").glob("*.json"))
    times = []
    for _ in range(5):
        clips._clear_memos()
        t0 = time.perf_counter()
        assert prepare_clip(src, 0.0, 7.5, cache_dir=cache) == first
        times.append(time.perf_counter() - t0)
    assert min(times) < 0.005
    assert first.stat().st_mtime_ns == mtime
    others = {prepare_clip(src, 0.0, 7.5, fps_cap=2.0, cache_dir=cache), prepare_clip(src, 0.0, 7.0, cache_dir=cache),
              prepare_clip(src, 0.5, 7.5, cache_dir=cache), prepare_clip(src, 0.0, 7.5, fps_cap=1.0, cache_dir=cache)}
    assert len(others) == 4 and first not in others
    assert list(cache.rglob("*.tmp*")) == []


def test_cache_key_follows_content_not_path(sources, cache, tmp_path):
    src = sources["plain"]
    a = prepare_clip(src, 0.0, 2.0, cache_dir=cache)
    copy = tmp_path / "renamed.mp4"
    copy.write_bytes(src.read_bytes())
    assert prepare_clip(copy, 0.0, 2.0, cache_dir=cache) == a
    other = write_source(tmp_path / "other.mp4", n=72, forced=())
    assert prepare_clip(other, 0.0, 2.0, cache_dir=cache) != a


def test_damaged_clips_are_rebuilt(sources, cache):
    src = sources["plain"]
    clip = prepare_clip(src, 0.0, 4.0, cache_dir=cache)
    good = clip.read_bytes()
    # a truncated clip without its sidecar (e.g. copied by hand) is absent
    sidecar_path(clip).unlink()
    clip.write_bytes(good[: len(good) // 3])
    assert prepare_clip(src, 0.0, 4.0, cache_dir=cache) == clip
    assert sidecar_path(clip).is_file() and clip.read_bytes() == good
    check_clip(src, clip, 0.0, 4.0)
    # a clip whose size does not match its sidecar is rebuilt too
    clip.write_bytes(good[:100])
    assert prepare_clip(src, 0.0, 4.0, cache_dir=cache) == clip
    check_clip(src, clip, 0.0, 4.0)
    # a sidecar rewritten by another tool (no fast-path head) is still read; a wrong key is not a hit
    meta = json.loads(sidecar_path(clip).read_text())
    sidecar_path(clip).write_text(json.dumps(dict(reversed(list(meta.items()))), indent=1))
    clips._clear_memos()
    mtime = clip.stat().st_mtime_ns
    assert prepare_clip(src, 0.0, 4.0, cache_dir=cache) == clip
    assert clip.stat().st_mtime_ns == mtime
    sidecar_path(clip).write_text(json.dumps({**meta, "key": "0" * 64}))
    clips._clear_memos()
    assert prepare_clip(src, 0.0, 4.0, cache_dir=cache) == clip
    assert read_sidecar(clip)["key"] == meta["key"]
    # a sidecar without its clip (a writer died between the two renames)
    clip.unlink()
    assert prepare_clip(src, 0.0, 4.0, cache_dir=cache) == clip
    check_clip(src, clip, 0.0, 4.0)


def _prepare_in_process(src: str, cache: str, start: float, end: float, fps_cap, barrier, out) -> None:
    barrier.wait(timeout=60)
    try:
        out.put(("ok", str(prepare_clip(src, start, end, fps_cap=fps_cap, cache_dir=cache))))
    except BaseException as exc:  # report to the parent
        out.put(("error", repr(exc)))


@pytest.mark.parametrize("start,end,fps_cap", [(0.0, 9.5, None), (1.3, 8.0, None), (0.0, 9.0, 3.0)])
def test_concurrent_preparation(sources, cache, start, end, fps_cap):
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_prepare_in_process,
                         args=(str(sources["plain"]), str(cache), start, end, fps_cap, barrier, out))
             for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert [r[0] for r in results] == ["ok", "ok"], results
    assert results[0][1] == results[1][1]
    clip = Path(results[0][1])
    if fps_cap is None:
        check_clip(sources["plain"], clip, start, end)
    else:
        assert decoded_clip(clip)[0] == read_sidecar(clip)["source_indices"]
    assert list(cache.rglob("*.tmp*")) == []
    clips._clear_memos()
    assert prepare_clip(sources["plain"], start, end, fps_cap=fps_cap, cache_dir=cache) == clip


def test_decord_and_pyav_read_copy_clips(sources, cache):
    decord = pytest.importorskip("decord")
    src = sources["plain"]
    for start, end in [(0.0, 6.0), (37 / 24, 9.0), (0.0, 0.0)]:
        clip = prepare_clip(src, start, end, cache_dir=cache)
        assert read_sidecar(clip)["mode"] == "copy"
        n = len(read_sidecar(clip)["frame_times"])
        vr = decord.VideoReader(str(clip))
        assert len(vr) == n
        assert [decode_index(f[:, :, ::-1]) for f in vr.get_batch(list(range(n))).asnumpy()] \
            == read_sidecar(clip)["source_indices"]
        assert len(list(iter_frames(clip))) == n


def test_bad_inputs_name_the_file(tmp_path, sources, cache):
    missing = tmp_path / "nope.mp4"
    with pytest.raises(VideoError, match="not found") as e:
        prepare_clip(missing, 0.0, 1.0, cache_dir=cache)
    assert str(missing) in str(e.value)
    junk = tmp_path / "junk.mp4"
    junk.write_text("not a video")
    with pytest.raises(VideoError) as e:
        prepare_clip(junk, 0.0, 1.0, cache_dir=cache)
    assert str(junk) in str(e.value)
    src = sources["plain"]
    for start, end, cap in [(2.0, 1.0, None), (-1.0, 1.0, None), (0.0, -0.5, None), (0.0, float("nan"), None),
                            (0.0, 1.0, 0.0), (0.0, 1.0, -2.0)]:
        with pytest.raises(StreamGazeError) as e:
            prepare_clip(src, start, end, fps_cap=cap, cache_dir=cache)
        assert str(src) in str(e.value)
    with pytest.raises(VideoError, match="sidecar"):
        clip_frame_times(tmp_path / "whatever.mp4")
    assert not list(cache.rglob("*.mp4"))


def test_clip_cache_dir_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "cc"))
    assert clip_cache_dir() == tmp_path / "cc"
    monkeypatch.delenv("STREAMGAZE_CLIP_CACHE")
    assert clip_cache_dir() == Path.home() / ".cache" / "streamgaze" / "clips"
