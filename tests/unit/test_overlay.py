"""Gaze-overlay videos: exact frame count and timestamps, mark colours and positions, no future gaze,
decodability (PyAV and decord), and clean failures."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

import streamgaze_hf.gaze.overlay as ov
from streamgaze_hf.cli import main
from streamgaze_hf.gaze.fov import fov_radius_px
from streamgaze_hf.gaze.io import write_gaze_csv
from streamgaze_hf.gaze.overlay import (
    bgr_to_yuv601,
    gaze_max_age,
    overlay_positions,
    render_overlay,
    render_overlay_files,
)
from streamgaze_hf.gaze.track import GazeTrack
from streamgaze_hf.util.errors import GazeFormatError, StreamGazeError, VideoError
from streamgaze_hf.video.frame_reader import iter_frames, probe_video, read_frames_at
from streamgaze_hf.video.writer import H264Writer

W, H = 320, 240


def textured(i: int, w: int = W, h: int = H) -> np.ndarray:
    """A mid-grey frame with a soft, slowly moving, slightly coloured texture (BGR)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = 128 + 30 * np.sin((xx + 2 * i) / 9.0) * np.cos((yy + i) / 11.0)
    img = np.stack([base, base + 6 * np.sin(xx / 23.0), base - 6 * np.cos(yy / 17.0)], axis=-1)
    return np.clip(img, 0, 255).astype(np.uint8)


def write_video(path: Path, n: int, w: int = W, h: int = H, fps: float | Fraction = 24.0,
                time_base: Fraction | None = None, pts: list[int] | None = None) -> Path:
    with H264Writer(path, w, h, fps, time_base=time_base) as wr:
        for i in range(n):
            wr.write(textured(i, w, h), None if pts is None else pts[i])
    return path


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("src")
    rng = np.random.default_rng(3)
    vfr_pts = (137 + np.concatenate([[0], np.cumsum(rng.integers(25, 60, 47))])).tolist()  # ms, irregular
    return {
        "24fps": write_video(d / "grey24.mp4", 72),
        "ntsc": write_video(d / "ntsc.mp4", 60, 160, 120, Fraction(30000, 1001), Fraction(1, 30000),
                            [i * 1001 for i in range(60)]),
        "vfr": write_video(d / "vfr.mp4", 48, 160, 120, 24.0, Fraction(1, 1000), vfr_pts),
    }


def track_for(info, t, x, y, valid=None) -> GazeTrack:
    t = np.asarray(t, float)
    valid = np.ones(len(t), bool) if valid is None else np.asarray(valid, bool)
    return GazeTrack(t, np.asarray(x, float), np.asarray(y, float), valid, info.width, info.height, info.fps)


def expected_sample(track: GazeTrack, t: float) -> int:
    """Independent reference: the latest sample at or before t (-1 if none)."""
    before = np.nonzero(track.t <= t + 1e-9)[0]
    return int(before[-1]) if len(before) else -1


def px(track: GazeTrack, i: int) -> tuple[int, int]:
    return (min(int(np.floor(track.x[i] * track.width)), track.width - 1),
            min(int(np.floor(track.y[i] * track.height)), track.height - 1))


def is_green(bgr) -> bool:
    b, g, r = (int(v) for v in bgr)
    return g > 200 and r < 70 and b < 70


def is_red(bgr) -> bool:
    b, g, r = (int(v) for v in bgr)
    return r > 190 and g < 70 and b < 70


# --------------------------------------------------------------------------- units

def test_bt601_colours():
    assert bgr_to_yuv601((0, 255, 0)) == (145, 54, 34)
    assert bgr_to_yuv601((0, 0, 255)) == (81, 90, 240)
    assert bgr_to_yuv601((0, 0, 0)) == (16, 128, 128)
    assert bgr_to_yuv601((255, 255, 255)) == (235, 128, 128)


def test_positions_max_age_and_frame_edges():
    tr = GazeTrack(np.array([0.0, 0.1, 0.2, 0.3, 1.0]), np.array([1.0, 0.5, 1.2, 0.5, 0.0]),
                   np.array([1.0, 0.5, 0.5, np.nan, 0.0]), np.array([1, 0, 1, 1, 1], bool), 640, 480, 24.0)
    assert gaze_max_age(tr, 24.0) == pytest.approx(0.15)  # 1.5 x median interval (0.1 s) > 1.5 / 24
    draw, xy = overlay_positions(tr, np.array([0.0, 0.12, 0.25, 0.34, 0.6, 1.0]), 640, 480, 24.0)
    # x = y = 1 is the last pixel; invalid, out-of-frame and NaN samples draw nothing; 0.6 s is 0.3 s
    # after the last sample (older than max_age) -> nothing; 1.0 exactly at a sample -> that sample.
    assert draw.tolist() == [True, False, False, False, False, True]
    assert xy[0].tolist() == [639, 479] and xy[5].tolist() == [0, 0]


# --------------------------------------------------------------------------- timestamps

@pytest.mark.parametrize("name", ["24fps", "ntsc", "vfr"])
def test_frame_count_and_timestamps_equal_the_source(videos, name, tmp_path):
    src = videos[name]
    info = probe_video(src)
    t = np.arange(0, info.duration + 1, 1 / 30)
    tr = track_for(info, t, 0.5 + 0.3 * np.sin(t), 0.5 + 0.3 * np.cos(t))
    out = render_overlay(src, tr, tmp_path / "out.mp4", progress=False)
    o = probe_video(out)
    assert o.n_frames == info.n_frames
    np.testing.assert_allclose(o.frame_times, info.frame_times, rtol=0, atol=1e-6)
    assert (o.width, o.height, o.codec) == (info.width, info.height, "h264")
    if name == "ntsc":
        assert o.fps == pytest.approx(30000 / 1001)
        assert o.time_base == info.time_base
    if name == "vfr":
        assert len(set(np.round(np.diff(o.frame_times), 3))) > 5  # really variable, and kept


def test_output_decodes_the_same_in_pyav_and_decord(videos, tmp_path):
    decord = pytest.importorskip("decord")
    src = videos["24fps"]
    info = probe_video(src)
    tr = track_for(info, np.arange(0, 3.1, 0.05), np.full(62, 0.5), np.full(62, 0.5))
    out = render_overlay(src, tr, tmp_path / "o.mp4", progress=False)
    with av.open(str(out)) as c:
        s = c.streams.video[0]
        assert s.codec_context.name == "h264" and s.codec_context.pix_fmt == "yuv420p"
        n_av = sum(1 for _ in c.decode(s))
    vr = decord.VideoReader(str(out))
    assert n_av == len(vr) == info.n_frames
    rgb = vr[10].asnumpy()
    assert is_green(rgb[H // 2, W // 2, ::-1])
    # +faststart: the moov atom precedes the media data.
    head = out.read_bytes()[:4096]
    assert head.find(b"moov") != -1 and (head.find(b"mdat") == -1 or head.find(b"moov") < head.find(b"mdat"))


# --------------------------------------------------------------------------- drawing

def test_marks_are_drawn_where_the_gaze_is_and_nowhere_else(videos, tmp_path):
    src = videos["24fps"]
    info = probe_video(src)  # 72 frames, 3 s
    # 30 Hz gaze: a slow sweep, then invalid (1.0-1.5 s), out of frame (1.5-2.0 s), a gap (2.0-2.5 s:
    # no samples, longer than max_age), then valid again at odd/even pixel positions.
    t = np.concatenate([np.arange(0, 2.0, 1 / 30), np.arange(2.5, 3.1, 1 / 30)])
    x = np.where(t < 1.5, 0.3 + 0.1 * t, np.where(t < 2.0, 1.3, 0.55))
    y = np.where(t < 2.5, 0.5 - 0.05 * t, 0.3)
    valid = ~((t >= 1.0) & (t < 1.5))
    tr = track_for(info, t, x, y, valid)
    out = render_overlay_files(src, _csv(tr, tmp_path), tmp_path / "o.mp4", hfov_deg=90.0)
    r = fov_radius_px(W, 90.0)
    drawn = 0
    for (i, ts, a), (_, _, b) in zip(iter_frames(src), iter_frames(out)):
        k = expected_sample(tr, ts)
        should_draw = k >= 0 and ts - tr.t[k] <= gaze_max_age(tr, info.fps) and bool(tr.in_frame[k])
        diff = np.abs(a.astype(int) - b.astype(int)).mean()
        if not should_draw:
            assert diff < 2.5, (i, ts, diff)
            continue
        drawn += 1
        cx, cy = px(tr, k)
        assert is_green(b[cy, cx]), (i, b[cy, cx])
        assert is_red(b[cy, cx + r]) and is_red(b[cy, cx - r]) and is_red(b[cy + r, cx]), i
        assert int(b[cy, cx + 10].astype(int).sum()) < 160  # the black ring (chroma shared with the dot)
        assert diff > 2.5
    assert 30 < drawn < 72


def test_non_yuv420p_source_is_converted_and_coloured_right(tmp_path):
    src = tmp_path / "yuv444.mp4"
    with av.open(str(src), "w") as c:
        s = c.add_stream("libx264", rate=25)
        s.width, s.height, s.pix_fmt = 160, 120, "yuv444p"
        for i in range(25):
            f = av.VideoFrame.from_ndarray(textured(i, 160, 120), format="bgr24").reformat(format="yuv444p")
            f.pts = i
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    info = probe_video(src)
    tr = track_for(info, [0.0, 0.5], [0.25, 0.75], [0.5, 0.5])
    out = render_overlay(src, tr, tmp_path / "o.mp4", progress=False)
    assert probe_video(out).n_frames == 25
    (_, early), (_, late) = read_frames_at(out, [0.2, 0.6])
    assert is_green(early[60, 40]) and not is_green(early[60, 120])
    assert is_green(late[60, 120]) and not is_green(late[60, 40])


def test_never_draws_a_gaze_sample_from_after_the_frame(videos, tmp_path):
    """10 Hz gaze alternating between two far-apart points: every frame shows the sample at or before
    it; the next sample (up to 0.1 s later, a different point) never appears early."""
    src = videos["24fps"]
    info = probe_video(src)
    t = np.arange(31) / 10.0
    x = np.where(np.arange(31) % 2 == 0, 0.25, 0.75)
    tr = track_for(info, t, x, np.full(31, 0.5))
    out = render_overlay(src, tr, tmp_path / "o.mp4", progress=False)
    left, right = (W // 4, H // 2), (3 * W // 4, H // 2)
    checked_exact = False
    for i, ts, img in iter_frames(out):
        k = expected_sample(tr, ts)
        here, there = (left, right) if k % 2 == 0 else (right, left)
        assert is_green(img[here[1], here[0]]), (i, ts)
        assert not is_green(img[there[1], there[0]]), (i, ts)  # the future sample is not drawn
        checked_exact |= abs(ts - tr.t[k]) < 1e-9  # frames exactly at a sample time use that sample
    assert checked_exact


def test_ntsc_frames_use_the_sample_at_or_before(videos, tmp_path):
    """30 Hz gaze on a 29.97 fps video: frame k (at k * 1.001 / 30 s) lies just after sample k."""
    src = videos["ntsc"]
    info = probe_video(src)
    n = info.n_frames
    t = np.arange(n + 5) / 30.0
    x = np.where(np.arange(n + 5) % 2 == 0, 0.25, 0.75)
    tr = track_for(info, t, x, np.full(n + 5, 0.5))
    out = render_overlay(src, tr, tmp_path / "o.mp4", progress=False)
    for i, ts, img in iter_frames(out):
        k = expected_sample(tr, ts)
        assert k == i
        here, there = ((40, 60), (120, 60)) if i % 2 == 0 else ((120, 60), (40, 60))
        assert is_green(img[here[1], here[0]]) and not is_green(img[there[1], there[0]]), i


def test_progress_bar_on_stderr(videos, tmp_path, capsys):
    info = probe_video(videos["ntsc"])
    render_overlay(videos["ntsc"], track_for(info, [0.0], [0.5], [0.5]), tmp_path / "o.mp4", progress=True)
    assert "frame" in capsys.readouterr().err


# --------------------------------------------------------------------------- failures

def _csv(track: GazeTrack, d: Path) -> Path:
    p = d / "gaze.csv"
    write_gaze_csv(track, p)
    return p


@pytest.fixture()
def good_gaze(videos, tmp_path) -> Path:
    info = probe_video(videos["24fps"])
    return _csv(track_for(info, [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]), tmp_path)


@pytest.mark.parametrize("case", ["missing_video", "text_as_mp4", "wrong_columns", "non_monotonic"])
def test_bad_inputs_fail_cleanly_through_the_cli(case, videos, good_gaze, tmp_path, capsys):
    video, gaze = videos["24fps"], good_gaze
    if case == "missing_video":
        video = bad = tmp_path / "nope.mp4"
    elif case == "text_as_mp4":
        video = bad = tmp_path / "notes.mp4"
        bad.write_text("this is not a video\n" * 20)
    elif case == "wrong_columns":
        gaze = bad = tmp_path / "cols.csv"
        bad.write_text("time,gx,gy,ok\n0.0,0.5,0.5,1\n")
    else:
        gaze = bad = tmp_path / "order.csv"
        bad.write_text("t,x,y,valid\n0.0,0.5,0.5,1\n0.2,0.5,0.5,1\n0.1,0.5,0.5,1\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "overlay.mp4"
    rc = main(["overlay", str(video), str(gaze), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 2 and err[0].startswith("usage: streamgaze overlay "), err
    assert err[1].startswith("streamgaze overlay: error: ") and str(bad) in err[1], err
    assert not out.exists() and list(out_dir.iterdir()) == []


def test_library_errors_name_the_file(videos, tmp_path):
    info = probe_video(videos["24fps"])
    with pytest.raises(VideoError) as e:
        render_overlay(tmp_path / "missing.mp4", track_for(info, [0.0], [0.5], [0.5]), tmp_path / "o.mp4")
    assert e.value.path == str(tmp_path / "missing.mp4")
    bad = tmp_path / "g.csv"
    bad.write_text("t,x,y,valid\n0.0,0.5,0.5,1\n0.0,0.5,0.5,1\n")
    with pytest.raises(GazeFormatError) as e:
        render_overlay_files(videos["24fps"], bad, tmp_path / "o.mp4")
    assert e.value.path == str(bad)
    with pytest.raises(StreamGazeError):
        render_overlay(videos["24fps"], track_for(info, [0.0], [0.5], [0.5]), tmp_path / "o.mp4", hfov_deg=200)
    assert list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("exc", [VideoError("boom"), KeyboardInterrupt()])
def test_failure_mid_render_leaves_nothing_behind(videos, tmp_path, monkeypatch, exc):
    calls = {"n": 0}
    real = ov.draw_overlay_yuv420p

    def failing(*a, **k):
        calls["n"] += 1
        if calls["n"] == 20:
            raise exc
        return real(*a, **k)

    monkeypatch.setattr(ov, "draw_overlay_yuv420p", failing)
    info = probe_video(videos["24fps"])
    tr = track_for(info, np.arange(0, 3.1, 0.1), np.full(31, 0.5), np.full(31, 0.5))
    out = tmp_path / "new" / "sub" / "o.mp4"  # directories that do not exist yet
    with pytest.raises(type(exc)):
        render_overlay(videos["24fps"], tr, out, progress=False)
    assert calls["n"] == 20
    assert list(tmp_path.iterdir()) == []


def test_cli_renders_with_hfov(videos, tmp_path, capsys):
    info = probe_video(videos["24fps"])
    gaze = _csv(track_for(info, np.arange(0, 3.1, 0.1), np.full(31, 0.5), np.full(31, 0.5)), tmp_path)
    out = tmp_path / "cli" / "overlay.mp4"
    assert main(["overlay", str(videos["24fps"]), str(gaze), "--out", str(out), "--hfov", "60"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    (_, img), = read_frames_at(out, [1.0])
    r = fov_radius_px(W, 60.0)  # 80 px
    assert r == 80 and is_red(img[H // 2, W // 2 + r]) and is_green(img[H // 2, W // 2])
    assert sorted(p.name for p in out.parent.iterdir()) == ["overlay.mp4"]


def test_fused_pass_writes_exactly_the_two_separate_outputs(videos, tmp_path):
    """reencode_with_overlay decodes once and encodes twice: byte for byte what reencode_video and
    render_overlay write separately, keyframes at the requested times included."""
    from streamgaze_hf.gaze.overlay import reencode_video, reencode_with_overlay

    info = probe_video(videos["24fps"])
    tr = track_for(info, np.arange(0, 3.1, 0.1), np.linspace(0.2, 0.8, 31), np.full(31, 0.4))
    plain, overlay = reencode_with_overlay(videos["24fps"], tr, tmp_path / "a" / "plain.mp4",
                                           tmp_path / "a" / "overlay.mp4", keyframe_times=[1.3], progress=False)
    ref_plain = reencode_video(videos["24fps"], tmp_path / "b" / "plain.mp4", keyframe_times=[1.3], progress=False)
    ref_overlay = render_overlay(videos["24fps"], tr, tmp_path / "b" / "overlay.mp4", keyframe_times=[1.3],
                                 progress=False)
    assert plain.read_bytes() == ref_plain.read_bytes()
    assert overlay.read_bytes() == ref_overlay.read_bytes()
    assert plain.read_bytes() != overlay.read_bytes()
    (_, img), = read_frames_at(overlay, [1.0])
    assert is_green(img[int(0.4 * H), int(np.floor((0.2 + 0.6 * 10 / 30) * W))])
    (_, img), = read_frames_at(plain, [1.0])
    assert not is_green(img[int(0.4 * H), int(np.floor((0.2 + 0.6 * 10 / 30) * W))])
    with av.open(str(plain)) as c:
        keys = [round(float(p.pts * p.time_base), 3) for p in c.demux(c.streams.video[0]) if p.is_keyframe]
    assert keys == [0.0, 1.0, 1.333, 2.333]  # every second from the last keyframe (gop 24) + the forced one


def test_fused_pass_failure_leaves_neither_output(videos, tmp_path, monkeypatch):
    from streamgaze_hf.gaze.overlay import reencode_with_overlay

    calls = {"n": 0}
    real = ov.draw_overlay_yuv420p

    def failing(*a, **k):
        calls["n"] += 1
        if calls["n"] == 30:
            raise RuntimeError("boom")
        return real(*a, **k)

    monkeypatch.setattr(ov, "draw_overlay_yuv420p", failing)
    info = probe_video(videos["24fps"])
    tr = track_for(info, np.arange(0, 3.1, 0.1), np.full(31, 0.5), np.full(31, 0.5))
    with pytest.raises(RuntimeError, match="boom"):
        reencode_with_overlay(videos["24fps"], tr, tmp_path / "o" / "plain.mp4", tmp_path / "o" / "overlay.mp4",
                              progress=False)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(StreamGazeError, match="different output paths"):
        reencode_with_overlay(videos["24fps"], tr, tmp_path / "x.mp4", tmp_path / "x.mp4", progress=False)
