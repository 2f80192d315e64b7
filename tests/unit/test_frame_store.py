"""Where a pass's frames wait (video/frame_store.py): uncompressed clips get each frame written straight into place,
in any order, by any thread; the finished file is the clip the writer makes of the same frames."""

from __future__ import annotations

import threading
from fractions import Fraction

import numpy as np
import pytest

from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.frame_store import ClipPlacement
from streamgaze_hf.video.lossless import RawLayout, write_rgb_clip


def _frames(n, h=6, w=8):
    return {f"{i}/rgb": np.random.default_rng(i).integers(0, 256, (h, w, 3), dtype=np.uint8) for i in range(n)}


def test_frames_placed_in_any_order_make_the_clip_the_writer_makes(tmp_path):
    frames = _frames(10)
    clips = {  # two clips sharing frames, one holding a frame twice (a filler frame)
        "a": (("0/rgb", "3/rgb", "5/rgb", "9/rgb"), RawLayout(4, 6, 8, Fraction(2))),
        "b": (("3/rgb", "4/rgb", "4/rgb", "8/rgb", "9/rgb"), RawLayout(5, 6, 8, Fraction(24000, 1001))),
    }
    store = ClipPlacement(tmp_path / "pass", clips)
    units = {0: ["0/rgb", "1/rgb"], 1: ["3/rgb", "4/rgb"], 2: ["5/rgb", "6/rgb", "7/rgb"], 3: ["8/rgb", "9/rgb"]}
    threads = [threading.Thread(target=store.put, args=(u, {n: frames[n] for n in names}))
               for u, names in sorted(units.items(), reverse=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for clip, (names, layout) in clips.items():
        want = write_rgb_clip(tmp_path / f"{clip}.mov", [frames[n] for n in names], layout.rate).read_bytes()
        assert store.finish(clip).read_bytes() == want
    # frames no clip holds wait in the frame store, per unit
    assert np.array_equal(store.get(0, "1/rgb"), frames["1/rgb"])
    assert np.array_equal(store.get(2, "7/rgb"), frames["7/rgb"])
    store.remove()
    assert not (tmp_path / "pass").exists()


def test_without_space_reservation_the_clip_is_the_same(tmp_path, monkeypatch):
    """Where ``os.posix_fallocate`` does not exist (macOS), frames allocate as they are written."""
    import os

    monkeypatch.delattr(os, "posix_fallocate", raising=False)
    frames = _frames(3)
    layout = RawLayout(3, 6, 8, Fraction(1))
    store = ClipPlacement(tmp_path / "pass", {"c": (("2/rgb", "0/rgb", "1/rgb"), layout)})
    store.put(1, {"2/rgb": frames["2/rgb"]})
    store.put(0, {"0/rgb": frames["0/rgb"], "1/rgb": frames["1/rgb"]})
    want = write_rgb_clip(tmp_path / "w.mov", [frames[n] for n in ("2/rgb", "0/rgb", "1/rgb")], Fraction(1))
    assert store.finish("c").read_bytes() == want.read_bytes()


def test_a_clip_with_a_frame_never_written_is_not_finished(tmp_path):
    frames = _frames(3, 64, 64)
    clips = {"c": (("0/rgb", "1/rgb", "2/rgb"), RawLayout(3, 64, 64, Fraction(1)))}
    store = ClipPlacement(tmp_path / "pass", clips)
    store.put(0, {"0/rgb": frames["0/rgb"], "2/rgb": frames["2/rgb"]})
    with pytest.raises(StreamGazeError, match="missing frames"):
        store.finish("c")  # the hole where frame 1 goes (file systems that report holes)
    short = ClipPlacement(tmp_path / "short", clips)
    short.put(0, {"0/rgb": frames["0/rgb"]})
    with pytest.raises(StreamGazeError, match="missing frames"):
        short.finish("c")


def test_a_frame_of_another_size_than_its_clip_is_refused(tmp_path):
    store = ClipPlacement(tmp_path / "pass", {"c": (("0/rgb",), RawLayout(1, 6, 8, Fraction(1)))})
    with pytest.raises(StreamGazeError, match=r"holds \(6, 8, 3\) uint8"):
        store.put(0, {"0/rgb": np.zeros((6, 10, 3), np.uint8)})
