"""The wrapper table of model-ready frames (streamgaze_hf/evaluation/model_frames.py), without models or
lmms-eval: its samplers' formulas, every plan's check, the spec's one-line form, what a run request keeps, and
the uncompressed clips the plans are written to. (Its samplers against lmms-eval's, qwen_vl_utils' and
transformers' own functions: tests/e2e/test_model_frames_equal.py, which imports them.)"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from streamgaze_hf.evaluation.model_frames import (
    WRAPPERS,
    FramesSpec,
    frames_request,
    resolve_spec,
    with_checkpoint_size,
)
from streamgaze_hf.evaluation.settings import RunSettings
from streamgaze_hf.util.errors import StreamGazeError

TOTALS = [2, 3, 5, 6, 7, 31, 32, 33, 64, 65, 239, 240, 241, 1441, 1442, 14401]
RATES = [24.0, 30000 / 1001, 25.0, 2.0, 0.5]


def test_llava_and_api_samplers_follow_the_wrappers_formulas():
    from streamgaze_hf.evaluation.model_frames import WRAPPERS as W

    for total in TOTALS:
        for m in (6, 10, 32):
            lin = np.linspace(0, total - 1, m, dtype=int).tolist()
            assert list(W["llava_hf/simple"].sample({"max_frames_num": m}, total, 24.0).picks) == lin
            assert list(W["batch_gpt4/simple"].sample({"max_frames_num": m}, total, 24.0).picks) == lin
            gpt = lin + ([total - 1] if total - 1 not in lin else [])
            assert list(W["gpt4v/simple"].sample({"max_frames_num": m}, total, 24.0).picks) == gpt
            ours = np.unique(np.linspace(0, total - 1, m).round().astype(int)).tolist()
            assert list(W["streamgaze_llava_hf/chat"].sample({"max_frames_num": m}, total, 24.0).picks) == ours


@pytest.mark.parametrize("key", sorted(WRAPPERS))
def test_every_plan_reads_back_as_the_full_rate_clip_does(key):
    """For every frame count and rate a window can have, the wrapper's sampler on the planned clip reaches exactly
    the frames it reaches on the full-rate clip (the check every plan passes before it is written)."""
    row = WRAPPERS[key]
    variants = [{}]
    if key.startswith("qwen2_5_vl"):
        variants += [{"max_num_frames": 5, "min_pixels": 3136, "max_pixels": 76800}, {"max_num_frames": 7}]
        if key.endswith("chat"):
            variants.append({"fps": 1.0})
    args_base = {"size_w": 384, "size_h": 384} if row.checkpoint_size else {}
    planned = 0
    for extra in variants:
        params = {**row.args, **row.requires, **args_base, **extra}
        spec = FramesSpec(key, tuple(sorted(params.items())), "decord")
        for total in TOTALS:
            for fps in RATES:
                try:
                    plan = spec.plan(total, fps, 1920, 1080)
                except ValueError:
                    try:
                        reading = row.sample(params, total, fps)
                    except ValueError:
                        continue  # the wrapper cannot read this full-rate clip either
                    # the one refusal: InternVL's sampler repeating frames of a clip shorter than num_frame
                    # (the document then keeps its full-rate clip)
                    assert key.startswith("internvl") and len(set(reading.picks)) < len(reading.picks), (total, fps)
                    continue
                planned += 1
                assert len(plan.order) <= total + 1  # (InternVL's and odd Qwen counts' one filler)
                assert set(plan.order) <= set(range(total))
                assert [plan.order[i] for i in row.sample(params, len(plan.order), float(plan.rate)).picks] == list(
                    plan.seen)
    assert planned


def test_a_qwen_odd_frame_count_gets_one_filler():
    spec = FramesSpec("qwen2_5_vl/simple", tuple(sorted({**WRAPPERS["qwen2_5_vl/simple"].args,
                                                         "max_num_frames": 5}.items())), "decord")
    plan = spec.plan(240, 24.0, 448, 252)
    assert len(plan.seen) == 5 and len(plan.order) == 6 and plan.rate == 2
    assert len(set(plan.order)) == 5


def test_qwen_chat_clip_rate_is_the_sampled_rate():
    spec = FramesSpec("qwen2_5_vl/chat", tuple(sorted(WRAPPERS["qwen2_5_vl/chat"].args.items())), "decord")
    plan = spec.plan(1441, 24.0, 1920, 1080)
    assert plan.rate == Fraction(32, 1441) * 24 and plan.timing == pytest.approx(32 / 1441 * 24)
    assert plan.size == (1008, 560)  # 1080p at the wrapper's default pixel budget (602112 per frame)


def test_internvl3_plans_a_composite_where_a_frame_is_several_tiles():
    """InternVL3's default tile budget (total_max_num 64 // 32 frames = 2) cuts a 16:9 frame into two tiles of an
    896x448 resize and a thumbnail: the plan is their 1344x448 composite; a 4:3 frame is one tile (448x448); the
    composite planned for a portrait frame is 896x896 (the 448x896 grid beside the thumbnail)."""
    from streamgaze_hf.video.resize import internvl_composite, internvl_tiles

    spec = FramesSpec("internvl3/simple", tuple(sorted({**WRAPPERS["internvl3/simple"].args,
                                                       "modality": "video"}.items())), "decord")
    assert spec.plan(1441, 24.0, 1920, 1080).size == (1344, 448)
    assert spec.plan(1441, 24.0, 640, 480).size == (448, 448)
    assert spec.plan(1441, 24.0, 1080, 1920).size == (896, 896)
    assert spec.plan(1441, 24.0, 1920, 1080).kernel == "internvl"
    same = spec.plan(1441, 24.0, 1344, 448)  # a 3:1 source as large as its composite: still a composite
    assert (same.size, same.kernel) == ((1344, 448), "internvl")
    one = FramesSpec("internvl3/simple", tuple(sorted({**WRAPPERS["internvl3/simple"].args, "modality": "video",
                                                      "num_frame": 64}.items())), "decord")
    assert one.plan(1441, 24.0, 1920, 1080).size == (448, 448)  # 64 // 64 = one tile a frame

    frame = np.arange(1080 * 1920 * 3, dtype=np.uint32).reshape(1080, 1920, 3).astype(np.uint8)
    composite = internvl_composite(frame, (2, 1))
    tiles = internvl_tiles(composite)
    assert composite.shape == (448, 1344, 3) and len(tiles) == 3
    assert np.array_equal(tiles[0], composite[:, :448]) and np.array_equal(tiles[1], composite[:, 448:896])
    assert np.array_equal(tiles[2], composite[:, 896:])  # the thumbnail last
    portrait = internvl_tiles(internvl_composite(frame.transpose(1, 0, 2), (1, 2)))
    assert [t.shape for t in portrait] == [(448, 448, 3)] * 3
    assert not portrait[2][448:].size  # the thumbnail is one tile; the column below it is padding, never a tile
    with pytest.raises(ValueError, match="not an InternVL composite"):
        internvl_tiles(np.zeros((448, 1000, 3), np.uint8))
    with pytest.raises(ValueError, match="no thumbnail"):
        internvl_tiles(np.zeros((448, 896, 3), np.uint8))  # one tile and a thumbnail: never made


def test_spec_round_trips_and_versions():
    spec = resolve_spec(frames_request("qwen2_5_vl", "chat", {"max_num_frames": 8, "api_key": "sk-secret"}),
                        {"FORCE_QWENVL_VIDEO_READER": "decord"})
    text = spec.describe()
    assert "sk-secret" not in text and "api_key" not in text
    assert FramesSpec.parse(text) == spec
    with pytest.raises(StreamGazeError, match="plan version"):
        FramesSpec.parse(text.rsplit(" ", 1)[0] + " v0")
    with pytest.raises(StreamGazeError):
        FramesSpec.parse("some_model/chat v1")


def test_requests_keep_only_what_the_table_reads(tmp_path):
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "processor_config.json").write_text(json.dumps({"video_processor": {
        "size": {"height": 384, "width": 384}, "resample": 3, "do_resize": True}}))
    req = frames_request("streamgaze_llava_hf", "chat", {"pretrained": str(ckpt), "max_frames_num": 16,
                                                         "token": "hf_secret", "device": "cuda"})
    assert req == {"wrapper": "streamgaze_llava_hf/chat", "args": {"max_frames_num": 16, "pretrained": str(ckpt)}}
    sized = with_checkpoint_size(req)
    assert sized["args"] == {"max_frames_num": 16, "size_w": 384, "size_h": 384}
    assert resolve_spec(sized).args == {"max_frames_num": 16, "size_h": 384, "size_w": 384}
    # a checkpoint that is not local: no size (the frames keep the source size, still the wrapper's frames)
    assert "size_w" not in with_checkpoint_size(frames_request("llava_hf", "simple", {"pretrained": "no/such"}))["args"]
    assert frames_request("openai_compatible", "simple", {})["wrapper"] == "openai/simple"
    assert frames_request("internvl3", "simple", {}) is None  # image modality: not a video run
    assert frames_request("internvl_hf", "chat", {"fps": 2}) is None
    assert frames_request("claude", "simple", {}) is None  # a wrapper the table does not know
    assert frames_request("sglang", "chat", {}) is None  # known, but its engine samples the frames itself
    assert frames_request("qwen3_vl", "chat", {})["wrapper"] == "qwen3_vl/chat"
    assert frames_request("streamgaze_random", "simple", {"seed": 3}) == {
        "wrapper": "streamgaze_random/simple", "args": {}, "video": False}  # reads no video: nothing is cut
    assert frames_request("streamgaze_random", "simple", {"check_visuals": "True"}) is None
    assert not RunSettings(model=json.dumps(frames_request("streamgaze_oracle", "simple", {}))).reads_video


def test_run_settings_carry_the_wrapper_through_the_environment():
    req = json.dumps(frames_request("gpt4v", "simple", {"max_frames_num": 4}))
    s = RunSettings.from_env({"STREAMGAZE_MODEL": req})
    assert s.frames == "model" and RunSettings.from_env(s.to_env()) == s
    assert s.record(("model_ready",))["model_ready"] == "gpt4v/simple max_frames_num=4 reader=decord v2"
    full = RunSettings.from_env({"STREAMGAZE_MODEL": req, "STREAMGAZE_FRAMES": "full"})
    assert full.record(("model_ready",)) == {"model_ready": ""}
    with pytest.raises(StreamGazeError, match="STREAMGAZE_FRAMES"):
        RunSettings.from_env({"STREAMGAZE_FRAMES": "fast"})
    with pytest.raises(StreamGazeError, match="STREAMGAZE_MODEL"):
        RunSettings.from_env({"STREAMGAZE_MODEL": "qwen"})


def _pyav_mov(path, frames, rate):
    """The clip as FFmpeg's mov muxer writes it through PyAV (the official rule for the bytes)."""
    import av

    with av.open(str(path), "w", format="mov") as c:
        s = c.add_stream("rawvideo", rate=rate)
        s.pix_fmt, s.height, s.width = "rgb24", frames.shape[1], frames.shape[2]
        for f in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path.read_bytes()


@pytest.mark.parametrize("n,h,w,rate", [
    (3, 4, 6, Fraction(24)),  # one chunk
    (5, 384, 384, Fraction(768, 1441)),  # 442,368-byte frames: chunks of 2, then 1 (the 1 MiB rule)
    (7, 2, 2, Fraction(960000, 1442441)),  # a timescale over 10,000 kept as it is
    (4, 3, 6, Fraction(7, 100000)),  # a timescale of 7 doubled to 14,336; 4 x 204,800,000 ticks
    (2, 1080, 1920, Fraction(2)),  # one frame over 1 MiB: a chunk each
    (3, 3, 5, Fraction(5)),  # odd width: FFmpeg pads each row, so PyAV writes it
])
def test_an_uncompressed_clip_is_byte_for_byte_what_ffmpegs_mov_muxer_writes(tmp_path, n, h, w, rate):
    from streamgaze_hf.video.lossless import RawLayout, write_rgb_clip

    frames = np.random.default_rng(n).integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    ours = write_rgb_clip(tmp_path / "ours.mov", list(frames), rate).read_bytes()
    assert ours == _pyav_mov(tmp_path / "pyav.mov", frames, rate)
    layout = RawLayout(n, h, w, rate)
    assert layout.fits == (w % 2 == 0)
    if layout.fits:  # frame k where the layout says, the index after the last
        k = n - 1
        assert ours[layout.offset(k):layout.offset(k) + layout.frame_bytes] == frames[k].tobytes()
        assert ours[layout.end:] == layout.tail() and ours[:layout.HEAD] == layout.head()
    assert RawLayout(4, 1080, 1920, Fraction(24)).fits
    assert not RawLayout(700, 1080, 1920, Fraction(24)).fits  # 4.4 GB of frames: FFmpeg's 64-bit fields
    assert not RawLayout(2, 2, 2, Fraction(1, 10**6)).fits  # a track of 2^31 ticks or more


@pytest.mark.parametrize("rate", [Fraction(2), Fraction(768000, 1442441), Fraction(24000, 1001), Fraction(3, 5)])
def test_uncompressed_clips_read_back_exactly_in_every_reader(tmp_path, rate):
    import av
    import decord

    from streamgaze_hf.video.lossless import write_rgb_clip
    from streamgaze_hf.video.wrapper_reads import clip_metadata, read_frames

    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (7, 50, 70, 3), dtype=np.uint8)
    path = write_rgb_clip(tmp_path / "c.mov", frames, rate)
    meta = clip_metadata(path, "decord")
    assert (meta.n_frames, meta.width, meta.height) == (7, 70, 50)
    assert meta.fps == float(rate)
    assert np.array_equal(read_frames(path, list(range(7)), "decord"), frames)
    assert np.array_equal(decord.VideoReader(str(path)).get_batch([6, 0]).asnumpy(), frames[[6, 0]])
    with av.open(str(path)) as c:
        assert c.streams.video[0].frames == 7
        assert np.array_equal(np.stack([f.to_ndarray(format="rgb24") for f in c.decode(video=0)]), frames)
    try:
        tc = clip_metadata(path, "torchcodec")
    except Exception:  # torchcodec without the system FFmpeg libraries (scripts/install_ffmpeg_libs.sh)
        return
    assert tc.n_frames == 7 and np.float32(tc.fps) == np.float32(rate)
    assert np.array_equal(read_frames(path, list(range(7)), "torchcodec"), frames)
