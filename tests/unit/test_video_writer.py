"""The x264 settings of every encoder: x264 held below AVX-512 on a CPU that has it (video/writer.py
``x264_asm``: its AVX-512 mbtree code reads memory nothing wrote, the byte-reproducibility flake of
issue 30), and the level names x264 is given are ones it knows."""

from __future__ import annotations

import platform
from fractions import Fraction

import av
import av.logging
import numpy as np
import pytest

from streamgaze_hf.video.writer import X264_LEVELS, H264Writer, cpu_flags, x264_asm, x264_params

AVX2_CPU = frozenset("fpu sse sse2 pni ssse3 sse4_1 sse4_2 popcnt avx fma abm bmi1 bmi2 avx2".split())
AVX512 = frozenset("avx512f avx512dq avx512cd avx512bw avx512vl".split())


def test_asm_is_held_below_avx512_only_on_a_cpu_with_it():
    assert x264_asm(frozenset()) is None  # no /proc/cpuinfo: x264 detects the CPU itself
    assert x264_asm(AVX2_CPU) is None  # x264 would not use AVX-512 anyway
    assert x264_asm(AVX2_CPU | AVX512) == "AVX2"
    assert x264_asm(AVX2_CPU - {"bmi2"} | AVX512) == "AVX"  # never a level the CPU lacks a part of
    assert x264_asm(frozenset({"sse2", "pni", "ssse3"}) | AVX512) == "SSSE3"
    assert x264_asm(frozenset({"avx512f"})) == "0"


def test_params_join_the_hold_and_the_callers_pairs():
    asm = x264_asm(cpu_flags())
    assert x264_params("sps-id=3") == {"x264-params": ("" if asm is None else f"asm={asm}:") + "sps-id=3"}
    assert x264_params() == ({} if asm is None else {"x264-params": f"asm={asm}"})


def _x264_log(run) -> list[str]:
    """x264's messages (through FFmpeg's log) while ``run()`` opens an encoder."""
    old = av.logging.get_level()
    av.logging.set_level(av.logging.INFO)
    try:
        with av.logging.Capture() as logs:
            run()
    finally:
        av.logging.set_level(old)
    return [text.strip() for _, name, text in logs if name == "libx264"]


def _capabilities(log: list[str]) -> list[str]:
    (line,) = [m for m in log if m.startswith("using cpu capabilities:")]
    return line.split(":", 1)[1].split()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86 instruction-set names")
def test_every_level_this_cpu_has_is_a_name_x264_knows():
    flags = cpu_flags()
    levels = [name for name, needs in X264_LEVELS if needs <= flags]  # only what this CPU can run
    assert levels, "this x86-64 CPU has not even SSE2 in /proc/cpuinfo"
    for name in levels:
        def open_encoder(name=name):
            enc = av.CodecContext.create("libx264", "w")
            enc.width, enc.height, enc.pix_fmt, enc.time_base = 64, 48, "yuv420p", Fraction(1, 24)
            enc.options = {"preset": "veryfast", "x264-params": f"asm={name}"}
            enc.open()
        log = _x264_log(open_encoder)
        assert not [m for m in log if "rror" in m], log  # an unknown name: x264 would run without assembly
        assert _capabilities(log)[-1] == name


def test_the_writer_encoder_never_uses_avx512(tmp_path):
    frame = np.full((48, 64, 3), 128, np.uint8)

    def encode():
        with H264Writer(tmp_path / "v.mp4", 64, 48, 24) as w:
            w.write(frame)
    caps = _capabilities(_x264_log(encode))
    assert "AVX512" not in caps
    if "avx512f" in cpu_flags():
        assert caps[-1] == "AVX2"
