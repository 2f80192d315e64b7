"""Smart cut: window clips of long-GOP, B-frame sources (camera-like files written here with PyAV) copy
whole GOPs (and the decodable run of the last one), re-encode only the partial GOP at the start and the
few B-frames at the end, and hold exactly the frames of a full decode."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import clip_frame_times, prepare_clip, read_sidecar
from streamgaze_hf.video.frame_reader import probe_video
from streamgaze_hf.video.packets import packet_index
from streamgaze_hf.video.smartcut import annexb_nals, avcc_parameter_sets, length_prefixed, plan_cut

from ..fixtures.coded_clips import H, W, check_clip, coded_frame, decode_index, decoded_clip, expected_indices
from ..fixtures.once import once_per_run

FPS = 24
N = 24 * 20  # 20 s
GOP = 5 * FPS  # 5 s GOPs: a camera-like long GOP at this test's scale


def write_camera_like(path: Path, *, bframes: int = 3, gop: int = GOP, open_gop: bool = False,
                      pix_fmt: str = "yuv420p", rate=FPS, n: int = N, time_base=None) -> Path:
    """An H.264 mp4 straight from PyAV/libx264: long fixed GOPs, B-frames (pyramid), no project writer."""
    with av.open(str(path), "w", format="mp4") as oc:
        s = oc.add_stream("libx264", rate=rate)
        s.width, s.height, s.pix_fmt = W, H, pix_fmt
        if time_base is not None:
            s.codec_context.time_base = time_base
        opts = {"g": str(gop), "keyint_min": str(gop), "sc_threshold": "0", "bf": str(bframes),
                "preset": "medium", "crf": "20"}
        if open_gop:
            opts["x264-params"] = "open-gop=1"
        s.options = opts
        for i in range(n):
            frame = av.VideoFrame.from_ndarray(coded_frame(i), format="bgr24").reformat(format=pix_fmt)
            frame.pts = None
            for p in s.encode(frame):
                oc.mux(p)
        for p in s.encode():
            oc.mux(p)
    return path


@pytest.fixture(scope="module")
def camera(tmp_path_factory) -> dict[str, Path]:
    return once_per_run(tmp_path_factory, "test_smartcut.camera", lambda d: {
        "bframes": write_camera_like(d / "bframes.mp4"),
        "nob": write_camera_like(d / "nob.mp4", bframes=0),
        "ntsc": write_camera_like(d / "ntsc.mp4", bframes=2, gop=48, rate=Fraction(30000, 1001), n=300),
        "fullrange": write_camera_like(d / "fullrange.mp4", bframes=2, pix_fmt="yuvj420p"),
        "opengop": write_camera_like(d / "opengop.mp4", open_gop=True),
    })


@pytest.fixture
def cache(tmp_path) -> Path:
    clips._clear_memos()
    return tmp_path / "cache"


def _index(p: Path):
    st = p.stat()
    return packet_index(str(p), st.st_size, st.st_mtime_ns)


def test_camera_sources_are_long_gop_with_bframes(camera):
    for name in ("bframes", "fullrange", "opengop", "ntsc"):
        idx = _index(camera[name])
        assert not idx.in_order, name  # B-frames: decode order != presentation order
        assert [decode_index(f.to_ndarray(format="bgr24")) for f in av.open(str(camera[name])).decode(video=0)] \
            == list(range(idx.n_frames)), name
    assert np.flatnonzero(_index(camera["bframes"]).keyframe).tolist() == [0, 120, 240, 360]
    assert _index(camera["nob"]).in_order


@pytest.mark.parametrize("name,start,end", [
    ("bframes", 2.3, 17.9),  # head + 2 whole GOPs + tail
    ("bframes", 5.0, 15.0),  # starts on a keyframe: no head; ends one frame into the last GOP
    ("bframes", 5.0, 15.0 - 1 / FPS),  # exactly two whole GOPs: all packets copied
    ("bframes", 0.0, 19.99),  # the whole video: copy to the end of the stream
    ("bframes", 3.1, 19.99),  # to the end of the stream with a head
    ("bframes", 1.0, 10.5),  # one whole GOP and part of the next copied, head and tail re-encoded
    ("nob", 2.3, 17.9),  # no B-frames: head re-encoded, then packets copied up to the end
    ("ntsc", 0.7, 8.1),
    ("fullrange", 1.2, 16.3),
])
def test_smart_cut_is_frame_exact(camera, cache, name, start, end):
    src = camera[name]
    clip = prepare_clip(src, start, end, cache_dir=cache)
    meta = read_sidecar(clip)
    assert meta["mode"] in ("smart", "copy")
    check_clip(src, clip, start, end)  # exact frames and source times, nothing after the end
    ft = probe_video(src).frame_times
    want = expected_indices(ft, start, end)
    idx = _index(src)
    if meta["mode"] == "smart":
        seg = meta["segments"]
        assert seg["encoded_head"][0] == want[0] and seg["encoded_tail"][1] == want[-1] + 1
        assert idx.keyframe[seg["copied"][0]]
        gop = int(np.diff(np.flatnonzero(idx.keyframe)).max())
        assert seg["encoded_head"][1] - seg["encoded_head"][0] < gop  # O(GOP): the partial GOP at the start
        assert seg["encoded_tail"][1] - seg["encoded_tail"][0] <= 3  # and the B-frames after the last copied anchor
        assert seg["copied"][1] - seg["copied"][0] >= len(want) - gop - 3


def test_the_cut_layout(camera, cache):
    src = camera["bframes"]
    idx = _index(src)
    meta = read_sidecar(prepare_clip(src, 2.3, 17.9, cache_dir=cache))
    # frames 56..429: head 56..119 re-encoded; GOPs 120..359 and the last GOP up to its last reference
    # frame at or before 429 copied (a decode-order run that shows exactly those frames); at most the
    # 3 B-frames after it re-encoded
    seg = meta["segments"]
    assert seg["encoded_head"] == [56, 120] and seg["copied"][0] == 120
    b = seg["copied"][1]
    assert seg["encoded_tail"] == [b, 430] and 430 - 4 < b <= 430
    da = int(idx.demux_position[120])
    assert np.array_equal(np.sort(idx.demux_pts[da:da + b - 120]), idx.frame_pts[120:b])
    assert not np.array_equal(np.sort(idx.demux_pts[da:da + b - 119]), idx.frame_pts[120:b + 1])  # longest
    meta = read_sidecar(prepare_clip(src, 5.0, 15.0 - 1 / FPS, cache_dir=cache))
    assert meta["mode"] == "copy" and meta["source_indices"] == list(range(120, 360))
    meta = read_sidecar(prepare_clip(camera["nob"], 2.3, 17.9, cache_dir=cache))
    assert meta["segments"] == {"encoded_head": [56, 120], "copied": [120, 430], "encoded_tail": [430, 430]}


def test_copied_gops_are_bit_identical(camera, cache):
    src = camera["bframes"]
    clip = prepare_clip(src, 2.3, 17.9, cache_dir=cache)
    codes, imgs = decoded_clip(clip)
    full = {i: f.to_ndarray(format="bgr24") for i, f in enumerate(av.open(str(src)).decode(video=0)) if 120 <= i < 360}
    for code, img in zip(codes, imgs):
        if code in full:
            assert np.array_equal(img, full[code])


@pytest.mark.parametrize("name,start,end", [("bframes", 0.4, 4.0), ("opengop", 2.3, 17.9)])
def test_no_whole_gop_or_open_gop_reencodes_exactly(camera, cache, name, start, end):
    src = camera[name]
    clip = prepare_clip(src, start, end, cache_dir=cache)
    assert read_sidecar(clip)["mode"] == "encode"
    check_clip(src, clip, start, end)


def test_decord_reads_smart_clips(camera, cache):
    decord = pytest.importorskip("decord")
    for name, start, end in [("bframes", 2.3, 17.9), ("nob", 2.3, 17.9), ("bframes", 1.0, 10.5)]:
        clip = prepare_clip(camera[name], start, end, cache_dir=cache)
        meta = read_sidecar(clip)
        vr = decord.VideoReader(str(clip))
        assert len(vr) == meta["n_frames"]
        got = [decode_index(f[:, :, ::-1]) for f in vr.get_batch(list(range(len(vr)))).asnumpy()]
        assert got == meta["source_indices"]
        # a uniform 8-frame sample, as model wrappers take it
        pick = np.linspace(0, len(vr) - 1, 8).round().astype(int).tolist()
        assert [decode_index(f[:, :, ::-1]) for f in vr.get_batch(pick).asnumpy()] \
            == [meta["source_indices"][i] for i in pick]
        assert clip_frame_times(clip)[-1] <= end + 1e-6


def test_plan_cut_declines_what_it_cannot_copy(camera):
    idx = _index(camera["bframes"])
    assert plan_cut(idx, 10, 100) is None  # no keyframe inside the window
    p = plan_cut(idx, 10, 130)  # a keyframe, then part of its GOP: copied up to a reference frame
    assert (p.lo, p.a, p.hi) == (10, 120, 130) and 127 < p.b <= 131
    p = plan_cut(idx, 10, 240)  # ends on a keyframe: nothing to re-encode at the end
    assert (p.lo, p.a, p.b, p.hi) == (10, 120, 241, 240)
    assert plan_cut(idx, 120, 239).mode == "copy"  # a whole GOP
    assert plan_cut(_index(camera["opengop"]), 10, 400) is None  # open GOP: leading pictures follow the keyframe


def test_annexb_and_avcc_helpers(camera):
    length_size, sets = avcc_parameter_sets(_index(camera["bframes"]).extradata)
    assert length_size == 4 and [s[0] & 0x1F for s in sets] == [7, 8]  # one SPS, one PPS
    nals = [b"\x67abc", b"\x68de", b"\x65" + b"\x00\x01" * 3]
    stream = b"\x00\x00\x00\x01" + nals[0] + b"\x00\x00\x01" + nals[1] + b"\x00\x00\x00\x01" + nals[2]
    assert annexb_nals(stream) == nals
    assert length_prefixed(nals[:2], 4) == b"\x00\x00\x00\x04\x67abc\x00\x00\x00\x03\x68de"
    assert avcc_parameter_sets(b"\x00\x00\x00\x01\x67") is None
