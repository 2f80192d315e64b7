"""Seek and identify: clips and proxies read the way model wrappers read them (decord ``get_batch`` of
k uniformly spaced frames, decord random access in reverse order, PyAV seeks to the first, middle and last
frame) and the way the streaming runner reads them give exactly the right frames and no decoder error.

Sources are camera-like H.264 files written here with libx264 (GOPs of 1, 2 and 10 s; with and without
B-frames; CABAC and CAVLC) whose pictures carry their frame index (demo/timecode.py); windows start at
several phases of a GOP, so most clips are smart cuts (re-encoded head, copied GOPs, re-encoded tail).
Issue 22: a decoder seeking into a copied GOP after the re-encoded head held the head's parameter sets.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.streaming.runner import VideoPlan, frames_of
from streamgaze_hf.demo.readcheck import read_videos, wrapper_reads
from streamgaze_hf.demo.timecode import burn_frame_code, read_frame_code
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import prepare_clip, read_sidecar
from streamgaze_hf.video.frame_reader import iter_frames, probe_video, read_frames_at
from streamgaze_hf.video.h264 import (
    annexb_nals,
    avcc_parameter_sets,
    avcc_with_sets,
    length_prefixed,
    packet_parameter_sets,
    parameter_set_key,
)
from streamgaze_hf.video.packets import packet_index
from streamgaze_hf.video.proxy import ProxySpec, build_proxy, proxy_frames

W, H = 320, 240  # issue 22 saw the failures at 1280x720; they reproduce at this size
FPS = 10
DURATIONS = {1: 8, 2: 14, 10: 30}  # source length (s) per GOP length (s): enough for the windows below
PROXY = ProxySpec(2.0, 448)


def write_source(path: Path, gop_s: int, bframes: int, cabac: bool) -> Path:
    """A textured scene panning across the frame, the frame index burnt into its corners; libx264 with fixed
    GOPs (no scene cuts), ``bframes`` B-frames, CABAC or CAVLC."""
    rng = np.random.default_rng(gop_s * 10 + bframes)
    big = cv2.GaussianBlur(rng.integers(0, 256, (2 * H, 2 * W, 3), dtype=np.uint8), (0, 0), 3)
    gop = gop_s * FPS
    with av.open(str(path), "w", format="mp4") as oc:
        s = oc.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        s.options = {"g": str(gop), "keyint_min": str(gop), "sc_threshold": "0", "bf": str(bframes),
                     "preset": "veryfast", "crf": "20", "coder": "cabac" if cabac else "cavlc"}
        for i in range(DURATIONS[gop_s] * FPS):
            x, y = int(W / 2 * (1 + np.sin(i / 37))), int(H / 2 * (1 + np.sin(i / 53)))
            img = burn_frame_code(np.ascontiguousarray(big[y:y + H, x:x + W]), i)
            for p in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                oc.mux(p)
        for p in s.encode():
            oc.mux(p)
    return path


def windows(gop_s: int) -> list[tuple[float, float]]:
    """Windows starting on a keyframe and at 0.35 and 0.8 of a GOP, each holding two GOP boundaries or more
    and ending mid-GOP."""
    first = 0 if gop_s == 10 else 1
    length = 21.0 if gop_s == 10 else 4.3 * gop_s
    return [(gop_s * (first + p), gop_s * (first + p) + length) for p in (0.0, 0.35, 0.8)]


def boundaries(idx, source_indices: list[int]) -> list[int]:
    """Clip positions either side of every keyframe and segment boundary: where seeks change GOP."""
    keys = [j for j, i in enumerate(source_indices) if idx.keyframe[i]]
    return sorted({j + d for j in keys for d in (-1, 0, 1)})


def streaming_problems(path: Path, expected: list[int], label: str) -> list[str]:
    """The streaming runner's reader (every frame, and 2 fps) and the library's seeking reader."""
    info = probe_video(path)
    plan = VideoPlan("v", path, info.width, info.height, info.fps, info.duration, [], {}, {}, None)
    out = []
    got = [read_frame_code(f.image) for f in frames_of(plan, 0.0)]
    if got != expected:
        out.append(f"{label}: streaming, every frame: {got[:8]}... != {expected[:8]}...")
    slots = np.floor(info.frame_times * 2 + 1e-6)
    firsts = [expected[i] for i in range(len(expected)) if i == 0 or slots[i] > slots[i - 1]]
    got = [read_frame_code(f.image) for f in frames_of(plan, 2.0)]
    if got != firsts:
        out.append(f"{label}: streaming at 2 fps: {got[:8]}... != {firsts[:8]}...")
    ends = [len(expected) - 1, (len(expected) - 1) // 2, 0]
    got = [read_frame_code(img) for _, img in read_frames_at(path, info.frame_times[ends])]
    if got != [expected[i] for i in ends]:
        out.append(f"{label}: read_frames_at last, middle, first: {got}")
    return out


CASES = [(g, b, c) for g in (1, 2, 10) for b in (3, 0) for c in (True, False)]
# the fast subset (CABAC and B-frames with short GOPs is where issue 22 was seen); the rest (about 3-8 s each
# on 2 cores: a source, 3 smart cuts, a proxy, ~45 decoder runs) is marked slow
FAST = {(1, 3, True)}


@pytest.mark.parametrize("gop_s,bframes,cabac", [
    pytest.param(*c, id=f"gop{c[0]}s-{'b' if c[1] else 'nob'}-{'cabac' if c[2] else 'cavlc'}",
                 marks=() if c in FAST else pytest.mark.slow) for c in CASES])
def test_wrapper_reads_of_clips_and_proxies_get_the_right_frames(tmp_path, gop_s, bframes, cabac):
    clips._clear_memos()
    src = write_source(tmp_path / "src.mp4", gop_s, bframes, cabac)
    st = src.stat()
    idx = packet_index(str(src), st.st_size, st.st_mtime_ns)
    assert (not idx.in_order) == bool(bframes)
    assert np.flatnonzero(idx.keyframe).tolist() == list(range(0, DURATIONS[gop_s] * FPS, gop_s * FPS))
    cache = tmp_path / "cache"
    jobs, expected, labels, modes = [], {}, {}, []
    for start, end in windows(gop_s):
        clip = prepare_clip(src, start, end, cache_dir=cache)
        meta = read_sidecar(clip)
        modes.append(meta["mode"])
        jobs.append((clip, wrapper_reads(meta["n_frames"], boundaries(idx, meta["source_indices"]))))
        expected[str(clip)] = meta["source_indices"]
        labels[str(clip)] = f"clip [{start:g}, {end:g}] ({meta['mode']}, {meta.get('segments')})"
    assert "smart" in modes  # windows starting mid-GOP are smart cuts
    proxy = build_proxy(src, tmp_path / "proxy.mp4", PROXY)
    pidx = proxy_frames(probe_video(src).frame_times, PROXY.fps).tolist()
    start, end = windows(gop_s)[1]
    pclip = prepare_clip(proxy, start, end, cache_dir=cache)
    for path, want, label in ((proxy, pidx, "proxy"),
                              (pclip, [pidx[i] for i in read_sidecar(pclip)["source_indices"]], "proxy clip")):
        jobs.append((path, wrapper_reads(len(want))))
        expected[str(path)] = want
        labels[str(path)] = label
    problems = []
    for (path, reads), report in zip(jobs, read_videos(jobs)):
        problems += report.problems(expected[str(path)], reads, labels[str(path)])
    for path, want in expected.items():
        problems += streaming_problems(Path(path), want, labels[path])
    assert not problems, f"{len(problems)} problems (modes {modes}):\n" + "\n".join(problems)



def _encode_part(frames: range, options: dict) -> list[tuple[int, int, bool, list[bytes]]]:
    """libx264 packets (pts, dts, keyframe, NAL units; Annex B, so the SPS/PPS are in-band on every IDR)."""
    enc = av.CodecContext.create("libx264", "w")
    enc.width, enc.height, enc.pix_fmt = W, H, "yuv420p"
    enc.time_base, enc.framerate = Fraction(1, FPS), FPS
    enc.options = {"sc_threshold": "0", "preset": "veryfast", "crf": "20", **options}
    big = cv2.GaussianBlur(np.random.default_rng(1).integers(0, 256, (2 * H, 2 * W, 3), dtype=np.uint8), (0, 0), 3)
    out = []
    for i in [*frames, None]:
        if i is None:
            packets = enc.encode(None)
        else:
            x, y = int(W / 2 * (1 + np.sin(i / 37))), int(H / 2 * (1 + np.sin(i / 53)))
            frame = av.VideoFrame.from_ndarray(burn_frame_code(np.ascontiguousarray(big[y:y + H, x:x + W]), i),
                                               format="bgr24")
            frame.pts = i
            packets = enc.encode(frame)
        out += [(p.pts, p.dts, p.is_keyframe, annexb_nals(bytes(p))) for p in packets]
    return out


def write_spliced(path: Path, tmp: Path, parts: list[tuple[range, dict]], in_avcc: list[int],
                  inband_at: set[int]) -> Path:
    """An mp4 joined from libx264 encodes with different settings: the ``avcC`` record holds the parameter
    sets of the parts ``in_avcc``; in-band, only the first packet of each part in ``inband_at`` keeps its
    sets (a camera that changes its settings mid-recording), every other packet is stripped of them."""
    encoded = [_encode_part(frames, opts) for frames, opts in parts]
    # a template stream of the right size (its own sets are replaced below)
    with av.open(str(tmp), "w", format="mp4") as oc:
        s = oc.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        for p in [*s.encode(av.VideoFrame(W, H, "yuv420p")), *s.encode()]:
            oc.mux(p)
    sets = [[n for n in encoded[k][0][3] if n[0] & 0x1F in (7, 8)] for k in range(len(parts))]
    with av.open(str(tmp)) as ic, av.open(str(path), "w", format="mp4") as oc:
        o = oc.add_stream_from_template(ic.streams.video[0])
        o.time_base = Fraction(1, FPS)
        o.codec_context.extradata = avcc_with_sets(bytes(ic.streams.video[0].codec_context.extradata),
                                                   [n for k in in_avcc for n in sets[k]])
        for k, packets in enumerate(encoded):
            for j, (pts, dts, key, nals) in enumerate(packets):
                keep = j == 0 and k in inband_at
                p = av.Packet(length_prefixed([n for n in nals if keep or n[0] & 0x1F not in (7, 8)], 4))
                p.pts, p.dts, p.duration, p.is_keyframe = pts, dts, 1, key
                p.time_base, p.stream = Fraction(1, FPS), o
                oc.mux(p)
    return path


@pytest.mark.parametrize("kind", ["two ids", "changed sets"])
def test_sources_with_several_or_changing_parameter_sets(tmp_path, kind):
    """Two parts of 6 s (1 s GOPs): CABAC with B-frames, then CAVLC without. ``two ids``: the parts use SPS/PPS
    ids 0 and 1, both in the avcC record. ``changed sets``: both use id 0; the avcC record holds the first
    part's, the second part's arrive in-band on its first packet only, so a clip of the second part must
    take them from there."""
    clips._clear_memos()
    first = {"g": str(FPS), "bf": "3", "coder": "cabac"}
    second = {"g": str(FPS), "bf": "0", "coder": "cavlc", "x264-params": "sps-id=1" if kind == "two ids" else ""}
    parts = [(range(0, 60), first), (range(60, 120), second)]
    if kind == "two ids":
        src = write_spliced(tmp_path / "src.mp4", tmp_path / "t.mp4", parts, [0, 1], set())
    else:
        src = write_spliced(tmp_path / "src.mp4", tmp_path / "t.mp4", parts, [0], {1})
    assert [read_frame_code(img) for _, _, img in iter_frames(src)] == list(range(120))
    st = src.stat()
    idx = packet_index(str(src), st.st_size, st.st_mtime_ns)
    assert len(idx.inband_sets) == (0 if kind == "two ids" else 1)
    jobs, expected, labels = [], {}, {}
    # across the change (smart); inside the second part (smart; a copy: it starts on a keyframe, no B-frames)
    for start, end, mode in [(2.5, 9.3, "smart"), (7.5, 11.2, "smart"), (7.0, 10.5, "copy")]:
        clip = prepare_clip(src, start, end, cache_dir=tmp_path / "cache")
        meta = read_sidecar(clip)
        assert meta["mode"] == mode
        codes = [read_frame_code(img) for _, _, img in iter_frames(clip)]
        assert codes == meta["source_indices"], (start, end)  # frame-exact read straight through
        jobs.append((clip, wrapper_reads(meta["n_frames"], boundaries(idx, meta["source_indices"]))))
        expected[str(clip)] = meta["source_indices"]
        labels[str(clip)] = f"{kind} clip [{start:g}, {end:g}] {mode} {meta.get('segments')}"
        with av.open(str(clip)) as c:  # the clip's avcC: the source's sets in force (and the re-encode's)
            ls, sets = avcc_parameter_sets(bytes(c.streams.video[0].codec_context.extradata))
        ids = sorted(parameter_set_key(n) for n in sets)
        if kind == "two ids":  # the re-encode takes id 2; a plain copy keeps the source's avcC
            assert ids == [(7, 0), (7, 1), (7, 2), (8, 0), (8, 1), (8, 2)] if mode == "smart" \
                else [(7, 0), (7, 1), (8, 0), (8, 1)]
        else:  # the sets in force at the first copied packet (id 0; in the second part: from in-band), the
            # re-encode's under id 1
            assert ids == ([(7, 0), (7, 1), (8, 0), (8, 1)] if mode == "smart" else [(7, 0), (8, 0)])
            in_force = list(idx.inband_sets[0][1]) if start >= 6 else avcc_parameter_sets(idx.extradata)[1]
            assert [n for n in sets if parameter_set_key(n)[1] == 0] == in_force
    problems = []
    for (path, reads), report in zip(jobs, read_videos(jobs)):
        problems += report.problems(expected[str(path)], reads, labels[str(path)])
    assert not problems, "\n".join(problems)


def test_every_keyframe_of_a_smart_clip_carries_its_parameter_sets(tmp_path):
    """The structure behind the reads above: in a smart clip every keyframe packet starts with an SPS and a
    PPS; the copied ones with the source's (id 0, as in its avcC), the re-encoded ones with the re-encoder's
    under id 1, which the source does not use; the clip's avcC holds both."""
    clips._clear_memos()
    src = write_source(tmp_path / "src.mp4", 1, 3, True)
    with av.open(str(src)) as c:
        _, src_sets = avcc_parameter_sets(bytes(c.streams.video[0].codec_context.extradata))
    clip = prepare_clip(src, 1.35, 5.65, cache_dir=tmp_path / "cache")
    meta = read_sidecar(clip)
    assert meta["segments"] == {"encoded_head": [14, 20], "copied": [20, 55], "encoded_tail": [55, 57]}
    with av.open(str(clip)) as c:
        s = c.streams.video[0]
        length_size, clip_sets = avcc_parameter_sets(bytes(s.codec_context.extradata))
        packets = [(p.is_keyframe, bytes(p)) for p in c.demux(s) if p.size]
    assert sorted(parameter_set_key(n) for n in clip_sets) == [(7, 0), (7, 1), (8, 0), (8, 1)]
    assert [n for n in clip_sets if parameter_set_key(n)[1] == 0] == src_sets
    keys = [packet_parameter_sets(data, length_size) for key, data in packets if key]
    # decode order: the head's keyframe, the copied GOPs' keyframes (source frames 20, 30, 40, 50), the tail's
    assert [[parameter_set_key(n) for n in sets] for sets in keys] == \
        [[(7, 1), (8, 1)]] + [[(7, 0), (8, 0)]] * 4 + [[(7, 1), (8, 1)]]
    assert all(list(sets) == src_sets for sets in keys[1:5])
    assert all(not packet_parameter_sets(data, length_size) for key, data in packets if not key)
