"""Proxy videos: low-rate, scaled, all-keyframe copies whose frames are exact source frames at their
source times; a dataset built with them, evaluated through them, never leaks a frame after the window."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.demo.timecode import read_frame_code
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import clip_frame_times, prepare_clip, read_sidecar
from streamgaze_hf.video.frame_reader import iter_frames, probe_video
from streamgaze_hf.video.packets import packet_index
from streamgaze_hf.video.proxy import (
    ProxySpec,
    build_proxy,
    proxy_frames,
    proxy_rel_path,
    proxy_size,
    proxy_spec,
)

from ..fixtures.coded_clips import decode_index, write_source

SPEC = ProxySpec(2.0, 448)


def test_proxy_frames_are_the_frames_on_screen_at_k_over_fps():
    ft = np.arange(240) / 24
    assert proxy_frames(ft, 2.0).tolist() == list(range(0, 240, 12))
    assert proxy_frames(ft, 0.5).tolist() == [0, 48, 96, 144, 192]
    # never a frame twice; the last frame (9.958 s) is not on screen at any k / 100 <= its time but 9.95 s
    assert proxy_frames(ft, 100.0).tolist() == list(range(239))
    irregular = np.array([0.0, 0.3, 0.45, 1.2, 1.26, 2.9])
    # on screen at 0, 0.5, 1.0, 1.5, 2.0, 2.5: frames 0, 2, 2, 4, 4, 4
    assert proxy_frames(irregular, 2.0).tolist() == [0, 2, 4]
    assert proxy_size(1920, 1080, 448) == (448, 252) and proxy_size(640, 480, 448) == (448, 336)
    assert proxy_size(320, 240, 448) == (320, 240)  # never enlarged
    assert proxy_size(1080, 1920, 768) == (432, 768)
    assert ProxySpec.parse("2fps-448px") == SPEC and SPEC.name == "2fps-448px"
    assert ProxySpec(0.5, 768).name == "0.5fps-768px"
    assert proxy_spec(None, None) is None and proxy_spec(1.0, None) == ProxySpec(1.0, 448)
    assert proxy_spec(None, 768) == ProxySpec(2.0, 768)
    assert proxy_rel_path("videos/overlay/a.mp4", SPEC) == "videos/proxy/2fps-448px/overlay/a.mp4"
    for bad in ("2fps", "fast", "2fps-448"):
        with pytest.raises(StreamGazeError):
            ProxySpec.parse(bad)
    with pytest.raises(StreamGazeError):
        ProxySpec(0.0, 448)


@pytest.mark.parametrize("bframes,rate", [(0, 24), (2, Fraction(30000, 1001))])
def test_a_proxy_is_exact_source_frames_all_keyframes(tmp_path, bframes, rate):
    src = write_source(tmp_path / "src.mp4", fps=rate, bframes=bframes, forced=())
    out = build_proxy(src, tmp_path / "proxy.mp4", SPEC)
    ft = probe_video(src).frame_times
    keep = proxy_frames(ft, 2.0)
    assert [decode_index(img) for _, _, img in iter_frames(out)] == keep.tolist()
    pinfo = probe_video(out)
    assert np.array_equal(pinfo.frame_times, ft[keep])  # exact source times, bit for bit
    st = out.stat()
    idx = packet_index(str(out), st.st_size, st.st_mtime_ns)
    assert idx.in_order and idx.keyframe.all()
    small = build_proxy(src, tmp_path / "small.mp4", ProxySpec(2.0, 64))
    assert (probe_video(small).width, probe_video(small).height) == (64, 48)
    assert np.array_equal(probe_video(small).frame_times, ft[keep])


def test_proxy_clips_are_packet_copies_without_leakage(tmp_path):
    clips._clear_memos()
    src = write_source(tmp_path / "src.mp4", bframes=2, forced=())
    proxy = build_proxy(src, tmp_path / "proxy.mp4", SPEC)
    ft = probe_video(src).frame_times
    rng = np.random.default_rng(0)
    for _ in range(25):
        a, b = sorted(rng.uniform(0, 10.5, 2))
        clip = prepare_clip(proxy, a, b, cache_dir=tmp_path / "cache")
        meta = read_sidecar(clip)
        assert meta["mode"] == "copy"
        times = np.asarray(clip_frame_times(clip))
        assert times.max() <= b + 1e-6  # no proxy frame later than the window end
        assert np.isin(times, ft).all()  # proxy frame times are exact source times
        codes = [decode_index(img) for _, _, img in iter_frames(clip)]
        assert codes == [int(np.flatnonzero(ft == t)[0]) for t in times]
        inside = proxy_frames(ft, 2.0)
        inside = inside[(ft[inside] >= a - 1e-6) & (ft[inside] <= b + 1e-6)]
        assert codes == (inside.tolist() or [int(proxy_frames(ft, 2.0)[ft[proxy_frames(ft, 2.0)] <= b + 1e-6][-1])])


@pytest.fixture(scope="module")
def proxy_dataset(demo_world, demo_build_work, tmp_path_factory):
    """The demo dataset built again with proxies: the build resumes from a copy of the demo build's work directory
    (the recordings' pipeline results are done; the proxies are made in the work directory)."""
    from streamgaze_hf.benchmarks.streamgaze.build import build_dataset

    raw = demo_world[0].parent
    base = tmp_path_factory.mktemp("proxyds")
    shutil.copytree(demo_build_work, base / ".streamgaze.work")
    return build_dataset(raw, base / "streamgaze", "0.1.0", proxy=SPEC)


@pytest.mark.slow
def test_every_proxy_clip_of_every_doc_is_inside_its_window(proxy_dataset, tmp_path, monkeypatch):
    root = proxy_dataset
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["build"]["proxy"] == {"name": "2fps-448px", "fps": 2.0, "max_side": 448}
    assert any(f.startswith("videos/proxy/2fps-448px/overlay/") for f in manifest["files"])
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    monkeypatch.setenv("STREAMGAZE_PROXY", "auto")
    n = 0
    for gaze in ("visual", "none"):
        for spec in TASKS:
            for doc in evaluation.load_docs(spec.id, gaze, root):
                assert doc["proxy"] == "2fps-448px"
                clip = evaluation.doc_visuals(doc)[-1]
                full = root / (doc["overlay_path"] if gaze == "visual" else doc["video_path"])
                ft = probe_video(full).frame_times
                start, end = evaluation.doc_window(doc)
                times = np.asarray(clip_frame_times(clip))
                assert times.max() <= end + 1e-6, doc["question_id"]
                assert np.isin(times, ft).all()
                keep = proxy_frames(ft, 2.0)
                want = keep[(ft[keep] >= start - 1e-6) & (ft[keep] <= end + 1e-6)]
                assert np.array_equal(times, ft[want])
                assert read_sidecar(clip)["mode"] == "copy"
                if n % 25 == 0:  # the pixels are those source frames (demo frames carry their index)
                    (_, _, last), = list(iter_frames(clip))[-1:]
                    assert read_frame_code(last) == int(want[-1])
                rec = evaluation.score_doc(doc, "A")
                assert rec["proxy"] == "2fps-448px"
                n += 1
    assert n > 500
    monkeypatch.setenv("STREAMGAZE_PROXY", "3fps-448px")
    with pytest.raises(StreamGazeError, match="no 3fps-448px proxies"):
        evaluation.load_docs("sr", "visual", root)
    monkeypatch.delenv("STREAMGAZE_PROXY")
    assert evaluation.load_docs("sr", "visual", root)[0]["proxy"] == ""


def test_proxy_setting_needs_the_proxies(demo_dataset, monkeypatch):
    monkeypatch.setenv("STREAMGAZE_PROXY", "auto")
    with pytest.raises(StreamGazeError, match="0 proxy kinds") as e:
        evaluation.load_docs("sr", "visual", demo_dataset)
    assert str(demo_dataset) in str(e.value)
    monkeypatch.setenv("STREAMGAZE_PROXY", "fast")
    with pytest.raises(StreamGazeError, match="not a proxy name"):
        evaluation.load_docs("sr", "visual", demo_dataset)


def test_fps_capped_proxy_clips_are_packet_copies(tmp_path):
    clips._clear_memos()
    src = write_source(tmp_path / "src.mp4", forced=())
    proxy = build_proxy(src, tmp_path / "proxy.mp4", ProxySpec(4.0, 448))
    ft = probe_video(src).frame_times
    for cap in (0.5, 1.0, 3.0):
        clip = prepare_clip(proxy, 0.7, 9.6, fps_cap=cap, cache_dir=tmp_path / "cache")
        meta = read_sidecar(clip)
        assert meta["mode"] == "copy"  # every proxy frame is a keyframe: any selection is a packet copy
        times = np.asarray(clip_frame_times(clip))
        assert times.max() <= 9.6 + 1e-6 and np.isin(times, ft).all()
        assert np.all(np.diff(times) >= 1 / cap - 1e-6)
        assert [decode_index(img) for _, _, img in iter_frames(clip)] == \
            [int(np.flatnonzero(ft == t)[0]) for t in times]
