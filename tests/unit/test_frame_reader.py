from fractions import Fraction

import numpy as np
import pytest

from streamgaze_hf.util.errors import VideoError
from streamgaze_hf.video.frame_reader import iter_frames, probe_video, read_frames_at
from streamgaze_hf.video.writer import H264Writer


def coded_frame(i: int, w: int = 64, h: int = 48) -> np.ndarray:
    """A frame whose index is readable after lossy coding: 8 bit-blocks along the top row."""
    img = np.full((h, w, 3), 40, np.uint8)
    for b in range(8):
        if (i >> b) & 1:
            img[:8, b * 8:(b + 1) * 8] = 220
    return img


def decode_index(img: np.ndarray) -> int:
    return sum(1 << b for b in range(8) if img[2:6, b * 8 + 2:b * 8 + 6].mean() > 128)


@pytest.fixture(scope="module")
def coded_video(tmp_path_factory):
    p = tmp_path_factory.mktemp("vid") / "coded.mp4"
    with H264Writer(p, 64, 48, Fraction(30000, 1001), gop=15) as w:
        for i in range(150):
            w.write(coded_frame(i))
    return p


def test_probe_and_sequential_decode(coded_video):
    info = probe_video(coded_video)
    assert (info.width, info.height, info.n_frames, info.codec) == (64, 48, 150, "h264")
    assert info.fps == pytest.approx(30000 / 1001)
    assert np.allclose(np.diff(info.frame_times), 1001 / 30000, atol=1e-6)
    idx = [decode_index(img) for _, _, img in iter_frames(coded_video)]
    assert idx == list(range(150))


def test_read_frames_at_returns_the_frame_on_screen(coded_video):
    info = probe_video(coded_video)
    ft = info.frame_times
    times = [3.0, 0.0, ft[40], ft[40] - 1e-4, 4.9, 1.234, ft[149] + 5.0, -1.0, ft[7]]
    got = read_frames_at(coded_video, times)
    expect = [int(np.searchsorted(ft, t + 1e-6, side="right") - 1) for t in times]
    expect = [max(0, e) for e in expect]
    assert [decode_index(img) for _, img in got] == expect
    for (tf, _), e, t in zip(got, expect, times):
        assert tf == pytest.approx(ft[e])
        if t >= 0:
            assert tf <= t + 1e-6  # never a frame after the requested time


def test_unreadable_video_errors(tmp_path):
    missing = tmp_path / "nope.mp4"
    with pytest.raises(VideoError, match="not found") as e:
        probe_video(missing)
    assert str(missing) in str(e.value)
    junk = tmp_path / "junk.mp4"
    junk.write_text("this is not a video")
    with pytest.raises(VideoError, match="cannot open video") as e:
        probe_video(junk)
    assert str(junk) in str(e.value)


def test_writer_is_atomic(tmp_path):
    out = tmp_path / "x.mp4"
    with pytest.raises(RuntimeError):
        with H264Writer(out, 64, 48, 24) as w:
            w.write(coded_frame(0))
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
