"""Model-ready clips give lmms-eval's own wrappers exactly the input the source gives them (issues 36 and 42).

The source is the truth: for every wrapper of the table (``streamgaze_hf/evaluation/model_frames.py``), on
windows of the demo dataset (our layout: 1 s GOPs, keyframes at window starts) and of a camera-layout source (10 s
GOPs, three B-frames, BT.709-tagged, windows starting mid-GOP), what the wrapper makes of a lossless, frame-exact
cut of the window (``lossless_cut`` of tests/fixtures/wrapper_equality.py) and of the model-ready clip is
compared: its
processor's tensors (pixel values, grids, timing, token ids: Qwen3-VL's and Qwen3.5's ``<t seconds>`` prompts
included), what its reading function returns, or what a serving wrapper sends its (stand-in) server. Every output
must be bit-identical. A changed lmms-eval sampler (simulated per row) must make the comparison fail. The
full-rate clip (``--frames full``) is measured against the same cuts: identical where it is a packet copy, within a
stated error where a smart cut re-encoded frames.
"""

from __future__ import annotations

import os

import pytest

from streamgaze_hf.evaluation.model_frames import (
    WRAPPERS,
    FramesSpec,
    frames_request,
    internvl_grid,
    internvl_index,
    is_composite,
    qwen_indices,
    qwen_smart_nframes,
    qwen_smart_resize,
    resolve_spec,
    unmatched_reason,
)
from streamgaze_hf.evaluation.ready import ready_clip, ready_sidecar
from streamgaze_hf.evaluation.settings import RunSettings
from streamgaze_hf.evaluation.visuals import doc_clip_spec, window_clip
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import prepare_clip, read_sidecar

from ..fixtures.tiny_checkpoints import tiny_checkpoints
from ..fixtures.wrapper_equality import (
    Case,
    all_identical,
    changed_sampler,
    compare,
    lossless_cut,
    wrapper_output,
    write_camera_source,
)

pytestmark = pytest.mark.slow

SAMPLER_TOTALS = [2, 3, 5, 6, 7, 31, 32, 33, 64, 65, 239, 240, 241, 1441, 1442, 14401]
SAMPLER_RATES = [24.0, 30000 / 1001, 25.0, 2.0, 0.5]
QWEN_SMALL = {"max_pixels": 76800, "min_pixels": 3136}
CASES = [
    Case("qwen2_5_vl chat, 6 frames", "qwen2_5_vl", "chat", {"max_num_frames": 6, **QWEN_SMALL}, checkpoint="qwen2_5_vl"),
    Case("qwen2_5_vl chat, 32 frames, default pixels", "qwen2_5_vl", "chat", {}, checkpoint="qwen2_5_vl"),
    Case("qwen2_5_vl chat, fps=1", "qwen2_5_vl", "chat", {"fps": 1.0, **QWEN_SMALL}, checkpoint="qwen2_5_vl"),
    Case("qwen2_5_vl simple, 6 frames", "qwen2_5_vl", "simple", {"max_num_frames": 6, **QWEN_SMALL},
         checkpoint="qwen2_5_vl"),
    Case("qwen2_5_vl simple, 5 frames (odd)", "qwen2_5_vl", "simple", {"max_num_frames": 5, **QWEN_SMALL},
         checkpoint="qwen2_5_vl"),
    Case("llava_hf simple", "llava_hf", "simple", {"max_frames_num": 6}, checkpoint="llava_onevision"),
    Case("streamgaze_llava_hf", "streamgaze_llava_hf", "chat", {"max_frames_num": 6}, checkpoint="llava_onevision"),
    Case("internvl_hf chat", "internvl_hf", "chat", {"num_frames": 6}, checkpoint="internvl_hf"),
    Case("internvl2 (load_video)", "internvl2", "simple", {"num_frame": 6, "modality": "video"},
         entry="internvl_load_video"),
    Case("internvl3 (load_video), 8 frames: tiles", "internvl3", "simple", {"num_frame": 8, "modality": "video"},
         entry="internvl_load_video"),
    Case("internvl3_5 (load_video), 64 frames: one tile", "internvl3_5", "simple",
         {"num_frame": 64, "modality": "video"}, entry="internvl_load_video"),
    Case("llava_onevision (load_video)", "llava_onevision", "simple", {"max_frames_num": 6},
         entry="llava_onevision_load_video"),
    Case("openai simple (encode_video)", "openai", "simple", {"max_frames_num": 10}, entry="encode_video"),
    Case("gpt4v (encode_video)", "gpt4v", "simple", {"max_frames_num": 10}, entry="encode_video"),
    Case("batch_gpt4 (encode_video)", "batch_gpt4", "simple", {"max_frames_num": 10}, entry="encode_video"),
    Case("qwen3_vl simple, 6 frames", "qwen3_vl", "simple", {"max_num_frames": 6, **QWEN_SMALL}, checkpoint="qwen3_vl"),
    Case("qwen3_vl chat, 6 frames", "qwen3_vl", "chat", {"max_num_frames": 6, **QWEN_SMALL}, checkpoint="qwen3_vl"),
    Case("qwen3_vl chat, fps=1", "qwen3_vl", "chat", {"fps": 1.0, "max_num_frames": 12, **QWEN_SMALL},
         checkpoint="qwen3_vl"),
    Case("qwen3_5 simple, 2 fps, at most 8 frames", "qwen3_5", "simple", {"max_num_frames": 8, **QWEN_SMALL},
         checkpoint="qwen3_5"),
    Case("qwen3_5 chat, 2 fps, at most 8 frames", "qwen3_5", "chat", {"max_num_frames": 8, **QWEN_SMALL},
         checkpoint="qwen3_5"),
    Case("llava_onevision1_5 simple (its processor)", "llava_onevision1_5", "simple",
         {"max_num_frames": 6, **QWEN_SMALL}, entry="processor_stand_in"),
    Case("llava_onevision1_5 chat (its processor)", "llava_onevision1_5", "chat", {"max_num_frames": 6, **QWEN_SMALL},
         entry="processor_stand_in"),
    Case("openai chat (sent frames)", "openai", "chat", {"max_frames_num": 6}),
    Case("vllm chat (sent frames)", "vllm", "chat", {"nframes": 6, "max_pixels": 76800}),
    Case("vllm chat, Qwen3-VL timestamps (sent frames)", "vllm", "chat",
         {"nframes": 6, "max_pixels": 76800, "is_qwen3_vl": True}),
    Case("async_openai chat, Qwen3-VL timestamps (sent frames)", "async_openai", "chat",
         {"nframes": 6, "is_qwen3_vl": True}),
]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    return tiny_checkpoints(tmp_path_factory, "qwen2_5_vl", "llava_onevision", "internvl_hf", "qwen3_vl", "qwen3_5")


@pytest.fixture(scope="module")
def camera_source(tmp_path_factory):
    return write_camera_source(tmp_path_factory.mktemp("camera") / "camera.mp4")


@pytest.fixture(scope="module")
def demo_docs(demo_dataset):
    """One document per category of the demo dataset: a past window [0, t], a present window [t - 60, t] and a
    proactive checkpoint [0, r]."""
    from streamgaze_hf.benchmarks.streamgaze.evaluation import load_docs

    return [load_docs(task, "visual", demo_dataset)[0] for task in ("nfi", "oi_easy", "gta")]


@pytest.fixture
def qwen_reader(request, monkeypatch):
    """qwen_vl_utils' video reader for this test (it reads $FORCE_QWENVL_VIDEO_READER once, at import)."""
    import qwen_vl_utils.vision_process as vp

    backend = getattr(request, "param", "decord")
    monkeypatch.setenv("FORCE_QWENVL_VIDEO_READER", backend)
    monkeypatch.setattr(vp, "FORCE_QWENVL_VIDEO_READER", backend)
    vp.get_video_reader_backend.cache_clear()
    yield backend
    vp.get_video_reader_backend.cache_clear()


def spec_of(case: Case, checkpoints) -> FramesSpec:
    args = dict(case.args)
    if case.checkpoint:
        args["pretrained"] = str(checkpoints[case.checkpoint])
    request = frames_request(case.model, case.kind, args)
    assert request is not None, case.name
    spec = resolve_spec(request)
    assert spec is not None, case.name
    return spec


CAMERA_WINDOWS = [(3.3, 17.1), (0.0, 12.7), (11.2, 19.9)]  # mid-GOP starts (smart cuts) and a prefix


def windows(demo_docs, camera_source, spec: FramesSpec, cache):
    """(label, the lossless cut of the window, its full-rate clip, its model-ready clip) of every window: the demo
    documents' through ``window_clip`` (the path ``doc_to_visual`` takes), the camera source's through
    ``ready_clip``."""
    out = []
    for doc in demo_docs:
        doc = {**doc, "model_ready": spec.describe()}
        video, start, end, _fps = doc_clip_spec(doc)
        out.append((f"demo {doc['task']} [{start}, {end}]", _cut(video, start, end, cache),
                    prepare_clip(video, start, end, cache_dir=cache), window_clip(doc, cache)))
    for start, end in CAMERA_WINDOWS:
        out.append((f"camera [{start}, {end}]", _cut(camera_source, start, end, cache),
                    prepare_clip(camera_source, start, end, cache_dir=cache),
                    ready_clip(camera_source, start, end, None, spec, cache_dir=cache)))
    return out


def _cut(video, start, end, cache):
    out = cache / "lossless" / f"{video.stem}-{start}-{end}.mp4"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        lossless_cut(video, start, end, out)
    return out


def _output(case, clip, checkpoints):
    """What the wrapper makes of ``clip``, or why it raised (a model-ready clip refuses another sampler)."""
    try:
        return wrapper_output(case, clip, checkpoints)
    except (ValueError, RuntimeError) as exc:
        return {"raised": f"{type(exc).__name__}: {exc}"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_model_ready_clip_gives_the_wrapper_what_the_source_gives_it(case, checkpoints, demo_docs, camera_source,
                                                                     tmp_path, qwen_reader):
    clips._clear_memos()
    spec = spec_of(case, checkpoints)
    for label, truth, full, ready in windows(demo_docs, camera_source, spec, tmp_path / "cache"):
        assert ready != full and ready.suffix == ".mov", (label, "no model-ready clip was made")
        side, full_side = ready_sidecar(ready), read_sidecar(full)
        assert side["n_frames"] < full_side["n_frames"], label
        assert set(side["source_indices"]) <= set(full_side["source_indices"])  # never a frame the window lacks
        if case.name == "internvl3 (load_video), 8 frames: tiles":  # the tiles, not the source frame, are stored
            assert is_composite("internvl", side["size"]), (label, side["size"])
        result = compare(wrapper_output(case, truth, checkpoints), wrapper_output(case, ready, checkpoints))
        assert all_identical(result), (case.name, label, result)


FULL_RATE_CASES = [c for c in CASES if c.name in ("llava_hf simple", "qwen2_5_vl chat, 6 frames",
                                                  "openai simple (encode_video)")]


@pytest.mark.parametrize("case", FULL_RATE_CASES, ids=[c.name for c in FULL_RATE_CASES])
def test_the_full_rate_clip_against_the_source(case, checkpoints, demo_docs, camera_source, tmp_path, qwen_reader):
    """``--frames full``: a packet-copy clip (our layout's windows, a camera prefix ending on a GOP) gives the
    wrapper exactly the source's input; a smart cut re-encodes its partial GOPs (x264 at the project's crf), so a
    window that picks a re-encoded frame differs by the re-encoding error, stated in docs/performance.md (measured
    here: every such difference has a PSNR above 30 dB)."""
    clips._clear_memos()
    spec = spec_of(case, checkpoints)
    modes = {}
    for label, truth, full, _ready in windows(demo_docs, camera_source, spec, tmp_path / "cache"):
        mode = read_sidecar(full)["mode"]
        result = compare(wrapper_output(case, truth, checkpoints), wrapper_output(case, full, checkpoints))
        modes[label] = (mode, result)
        if mode == "copy":
            assert all_identical(result), (case.name, label, result)
        else:
            for k, v in result.items():
                assert v == "identical" or (isinstance(v, dict) and v["psnr"] > 30), (case.name, label, k, v)
    assert {"copy", "smart"} <= {m for m, _ in modes.values()}, modes


@pytest.mark.parametrize("qwen_reader", ["torchcodec"], indirect=True)
@pytest.mark.parametrize("case", [c for c in CASES if c.name in ("qwen2_5_vl chat, 6 frames", "qwen2_5_vl simple, 6 frames")],
                         ids=lambda c: c.name)
def test_qwen_with_the_torchcodec_reader(case, checkpoints, demo_docs, camera_source, tmp_path, qwen_reader):
    """qwen_vl_utils' default reader where torchcodec loads: its own frame count and rate."""
    pytest.importorskip("torchcodec")
    clips._clear_memos()
    spec = spec_of(case, checkpoints)
    assert spec.reader == "torchcodec"
    for label, truth, _full, ready in windows(demo_docs, camera_source, spec, tmp_path / "cache"):
        result = compare(wrapper_output(case, truth, checkpoints), wrapper_output(case, ready, checkpoints))
        assert all_identical(result), (case.name, label, result)


def test_qwen_samplers_are_qwen_vl_utils_own():
    vp = pytest.importorskip("qwen_vl_utils.vision_process")
    import torch

    for total in SAMPLER_TOTALS:
        for fps in SAMPLER_RATES:
            for ele in ({}, {"fps": 1.0}, {"nframes": min(total, 32) // 2 * 2 or 2}):
                try:
                    want = vp.smart_nframes(ele, total_frames=total, video_fps=fps)
                except ValueError:
                    with pytest.raises(ValueError):
                        qwen_smart_nframes(total, fps, nframes=ele.get("nframes"), fps=ele.get("fps"))
                    continue
                assert qwen_smart_nframes(total, fps, nframes=ele.get("nframes"), fps=ele.get("fps")) == want
                assert qwen_indices(total, want) == torch.linspace(0, total - 1, want).round().long().tolist()
    for h, w in ((480, 640), (1080, 1920), (252, 448), (240, 320), (1920, 1080)):
        for lo, hi in ((3136, 76800), (200704, 602112), (200704, 235200)):
            assert qwen_smart_resize(h, w, 28, lo, hi) == vp.smart_resize(h, w, 28, lo, hi)


def test_internvl_samplers_are_lmms_evals_and_transformers_own():
    iv3 = pytest.importorskip("lmms_eval.models.simple.internvl3")
    iv2 = pytest.importorskip("lmms_eval.models.simple.internvl2")
    from transformers import InternVLVideoProcessor
    from transformers.video_utils import VideoMetadata

    proc = InternVLVideoProcessor()
    hf = WRAPPERS["internvl_hf/chat"]
    for total in SAMPLER_TOTALS[3:]:
        for n in (6, 8, 32):
            want = iv3.get_index(None, 24.0, total - 1, first_idx=0, num_segments=n).tolist()
            assert internvl_index(total, n) == want == iv2.get_index(None, 24.0, total - 1, 0, n).tolist()
            if n <= total:
                got = proc.sample_frames(VideoMetadata(total_num_frames=total, fps=24.0), num_frames=n)
                assert list(hf.sample({"num_frames": n}, total, 24.0).picks) == [int(i) for i in got]


def test_internvl3_composites_hold_dynamic_preprocess_own_tiles():
    """The composite frame of InternVL3's tiles (``video/resize.py``), cut again, gives exactly the tiles lmms-eval's
    ``dynamic_preprocess`` makes of the source frame, for frames of many shapes (ties of its aspect-ratio rule
    included) and tile budgets."""
    iv3 = pytest.importorskip("lmms_eval.models.simple.internvl3")
    import numpy as np
    from PIL import Image

    from streamgaze_hf.video.resize import internvl_composite_size, internvl_tiles, resize_frames

    rng = np.random.default_rng(0)
    shapes = [(1920, 1080), (1080, 1920), (640, 480), (320, 240), (896, 504), (1344, 448), (448, 448), (900, 450),
              (224, 448), (1000, 250), (2688, 1344)]  # the last: its aspect ties 2x1 with 4x2, and its area decides
    for width, height in shapes:
        frame = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        for max_num in (1, 2, 3, 4, 8, 12):
            want = iv3.dynamic_preprocess(Image.fromarray(frame), image_size=448, use_thumbnail=True, max_num=max_num)
            grid = internvl_grid(width, height, max_num)
            if grid[0] * grid[1] == 1:
                got = [resize_frames(frame[None], (448, 448), "internvl")[0]]
            else:
                got = internvl_tiles(resize_frames(frame[None], internvl_composite_size(grid), "internvl")[0])
            assert len(got) == len(want), (width, height, max_num)
            for a, b in zip(got, want):
                assert np.array_equal(a, np.asarray(b)), (width, height, max_num)


def test_internvl3_reader_fix_reads_composites_only_for_the_arguments_they_were_made_for(checkpoints, camera_source,
                                                                                          tmp_path):
    """The glue's fix of InternVL3's ``load_video`` cuts a composite clip into 8 frames of 7 tiles (a 320x240 frame
    with InternVL3's budget for 8 frames, 64 // 8 = 8 tiles: a 3x2 grid and the thumbnail) and refuses it to a
    call with another frame count, tile budget, tile size or a bound; a source clip still reaches the original."""
    iv3 = pytest.importorskip("lmms_eval.models.simple.internvl3")
    from lmms_tasks.wrappers import install_reader_fixes

    install_reader_fixes()
    clips._clear_memos()
    case = next(c for c in CASES if c.name == "internvl3 (load_video), 8 frames: tiles")
    clip = str(ready_clip(camera_source, 0.0, 12.7, None, spec_of(case, checkpoints), cache_dir=tmp_path))
    assert ready_sidecar(clip)["size"] == [1792, 896]
    pixels, patches = iv3.load_video(clip, num_segments=8, max_num=8)
    assert patches == [7] * 8 and tuple(pixels.shape) == (56, 3, 448, 448)
    for other in ({"num_segments": 9, "max_num": 8}, {"num_segments": 8, "max_num": 2},
                  {"num_segments": 8, "max_num": 8, "input_size": 224}, {"num_segments": 8, "max_num": 8, "bound": (0, 5)}):
        with pytest.raises(ValueError, match="this model-ready clip holds InternVL tiles"):
            iv3.load_video(clip, **other)
    source_pixels, source_patches = iv3.load_video(str(camera_source), num_segments=8, max_num=8)
    assert source_patches == [7] * 8 and tuple(source_pixels.shape) == (56, 3, 448, 448)


SAMPLER_CASES = [c for c in CASES if c.name in ("qwen2_5_vl chat, 6 frames", "qwen2_5_vl simple, 6 frames",
                                                "llava_hf simple", "streamgaze_llava_hf", "internvl_hf chat",
                                                "internvl3 (load_video), 8 frames: tiles", "llava_onevision (load_video)",
                                                "gpt4v (encode_video)", "qwen3_vl simple, 6 frames",
                                                "qwen3_vl chat, 6 frames", "qwen3_5 chat, 2 fps, at most 8 frames",
                                                "llava_onevision1_5 simple (its processor)",
                                                "llava_onevision1_5 chat (its processor)", "openai chat (sent frames)",
                                                "vllm chat, Qwen3-VL timestamps (sent frames)",
                                                "async_openai chat, Qwen3-VL timestamps (sent frames)")]


@pytest.mark.parametrize("case", SAMPLER_CASES, ids=[c.name for c in SAMPLER_CASES])
def test_a_changed_lmms_eval_sampler_fails_the_comparison(case, checkpoints, demo_docs, camera_source, tmp_path,
                                                          qwen_reader):
    clips._clear_memos()
    spec = spec_of(case, checkpoints)
    label, truth, _full, ready = windows(demo_docs, camera_source, spec, tmp_path / "cache")[0]
    assert all_identical(compare(_output(case, truth, checkpoints), _output(case, ready, checkpoints)))
    with changed_sampler(case):
        result = compare(_output(case, truth, checkpoints), _output(case, ready, checkpoints))
    assert not all_identical(result), (case.name, label, "a changed sampler went unnoticed")


def test_documents_record_the_model_frames_and_fall_back_for_unknown_wrappers(demo_dataset, checkpoints):
    from streamgaze_hf.benchmarks.streamgaze.evaluation import load_docs, score_doc

    request = frames_request("streamgaze_llava_hf", "chat",
                             {"max_frames_num": 8, "pretrained": str(checkpoints["llava_onevision"])})
    import json

    settings = RunSettings(model=json.dumps(request))
    doc = load_docs("nfi", "visual", demo_dataset, settings=settings)[0]
    assert doc["model_ready"].startswith("streamgaze_llava_hf/chat max_frames_num=8 size_h=112 size_w=112")
    assert score_doc(doc, "A")["model_ready"] == doc["model_ready"]
    assert load_docs("nfi", "visual", demo_dataset, settings=RunSettings(model=json.dumps(request), frames="full"))[0][
        "model_ready"] == ""
    assert frames_request("claude", "simple", {}) is None  # not in the table: full-rate clips
    assert frames_request("sglang", "chat", {}) is None and unmatched_reason("sglang", "chat", {})
    assert frames_request("openai", "chat", {"pass_video_url": True}) is None
    assert unmatched_reason("openai", "chat", {"pass_video_url": True}).startswith("with pass_video_url")
    assert frames_request("openai", "simple", {"video_fps": 1}) is None  # a sampler mode the table does not cover
    assert os.environ.get("STREAMGAZE_FRAMES", "model") == "model"
