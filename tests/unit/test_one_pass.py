"""The one-pass decoder's plan (issue 42): decode units per GOP, and which pictures may be skipped."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from streamgaze_hf.video.h264 import packet_is_reference
from streamgaze_hf.video.one_pass import decode_units, units_decode_estimate
from streamgaze_hf.video.packets import PacketIndex


def index(n: int, keys: list[int], reference: list[bool] | None = None) -> PacketIndex:
    pts = np.arange(n, dtype=np.int64) * 512
    key = np.zeros(n, dtype=bool)
    key[keys] = True
    ref = None if reference is None else np.asarray(reference, dtype=bool)
    return PacketIndex(Fraction(1, 12288), 64, 48, Fraction(24), pts, key, True, pts, reference=ref)


def test_wanted_frames_are_grouped_by_the_keyframe_before_them():
    idx = index(100, [0, 24, 48, 72])
    units = decode_units(idx, [3, 30, 25, 71, 99, 30, 0])
    assert [(u.key, u.wanted) for u in units] == [(0, (0, 3)), (24, (25, 30)), (48, (71,)), (72, (99,))]
    assert decode_units(index(10, [4]), [2]) == decode_units(index(10, [0, 4]), [2])  # no keyframe first: from 0
    with pytest.raises(ValueError):
        decode_units(idx, [100])


def test_the_estimate_counts_the_reference_pictures_up_to_each_units_last_wanted_frame():
    ref = [i % 4 == 0 for i in range(48)]  # a P-frame every 4th, B-frames between
    idx = index(48, [0, 24], ref)
    units = decode_units(idx, [10, 13, 30])
    # unit 0: references 0, 4, 8, 12 and the wanted B-frames 10 and 13; unit 24: 24, 28 and the B-frame 30
    assert units_decode_estimate(idx, units) == 6 + 3
    assert units_decode_estimate(index(48, [0, 24]), units) == 14 + 7  # unknown references: every frame


def nal(kind: int, ref_idc: int, payload: bytes = b"\x88\x84") -> bytes:
    return bytes([(ref_idc << 5) | kind]) + payload


def packet(*nals: bytes, length_size: int = 4) -> bytes:
    return b"".join(len(n).to_bytes(length_size, "big") + n for n in nals)


def test_a_picture_is_a_reference_when_any_slice_says_so():
    assert packet_is_reference(packet(nal(5, 3)), 4)  # IDR
    assert packet_is_reference(packet(nal(1, 2)), 4)  # a reference P/B slice
    assert not packet_is_reference(packet(nal(1, 0)), 4)  # a non-reference B slice
    assert not packet_is_reference(packet(nal(6, 0), nal(1, 0), nal(1, 0)), 4)  # SEI + two non-reference slices
    assert packet_is_reference(packet(nal(1, 0), nal(1, 1)), 4)
    assert packet_is_reference(packet(nal(6, 0)), 4)  # no slice: never skipped
    assert packet_is_reference(b"\x00\x00\x00\x09\x01", 4)  # a truncated packet: never skipped
    assert not packet_is_reference(packet(nal(1, 0), length_size=2), 2)
