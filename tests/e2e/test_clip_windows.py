"""Property test over every document of the demo dataset and every gaze variant: the clip a model
gets holds exactly the window's frames (issue: lmms-eval plugin, window clipping)."""

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.demo.timecode import read_frame_code
from streamgaze_hf.video.clips import clip_frame_times, read_sidecar
from streamgaze_hf.video.frame_reader import probe_video, read_frames_at

pytestmark = pytest.mark.slow


def test_every_clip_of_every_doc_and_variant_is_exactly_its_window(demo_dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    checked = set()
    n_docs = 0
    for gaze in evaluation.GAZE_VARIANTS.values():
        for spec in TASKS:
            for doc in evaluation.load_docs(spec.id, gaze, demo_dataset):
                n_docs += 1
                visuals = evaluation.doc_visuals(doc)
                clip = visuals[-1]
                if gaze == "salience":
                    assert visuals[0].endswith(".png")
                if clip in checked:
                    continue
                checked.add(clip)
                source = demo_dataset / (doc["overlay_path"] if gaze == "visual" else doc["video_path"])
                ft = probe_video(source).frame_times
                start, end = evaluation.doc_window(doc)
                times = np.asarray(clip_frame_times(clip))
                expect = ft[(ft >= start - 1e-6) & (ft <= end + 1e-6)]
                assert np.array_equal(times, expect), (doc["question_id"], start, end)
                assert read_sidecar(clip)["mode"] == "copy"  # dataset windows start on keyframes
                info = probe_video(clip)
                assert info.n_frames == len(times)
                (_, first), (_, last) = read_frames_at(clip, [0.0, info.frame_times[-1]])
                (_, src_first), (_, src_last) = read_frames_at(source, [times[0], times[-1]])
                assert np.array_equal(first, src_first) and np.array_equal(last, src_last)
                i_last = int(np.searchsorted(ft, end + 1e-6, side="right") - 1)
                assert read_frame_code(last) == i_last  # the frame on screen at the window end
                assert read_frame_code(first) == int(np.searchsorted(ft, start - 1e-6))
    assert n_docs > 1000 and len(checked) > 300


def test_every_streameqa_clip_is_exactly_its_window(tmp_path, monkeypatch):
    """The same property for StreamEQA's windows [max(0, t - 64), t] (issue 14), every level and gaze
    variant (the overlay variant clips the gaze-overlay video), windows of 1 s or less and a query time
    past the video's end included; the sources start no window on a keyframe on purpose."""
    from streamgaze_hf.benchmarks.streameqa import LEVELS
    from streamgaze_hf.benchmarks.streameqa import evaluation as eqa
    from streamgaze_hf.benchmarks.streameqa.release import import_release

    from ..fixtures.streameqa_fixture import write_release

    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    release = write_release(tmp_path / "release", gaze=True)
    root = tmp_path / "streameqa"
    import_release(release, root, "1.0.0", gaze_dir=release / "gaze", progress=False)
    checked, n_docs, n_short = set(), 0, 0
    for gaze in ("none", "visual", "text"):
        for level in LEVELS:
            for doc in eqa.load_docs(level, gaze, root):
                n_docs += 1
                n_short += doc["short_window"]
                clip = eqa.doc_visuals(doc)[0]
                if clip in checked:
                    continue
                checked.add(clip)
                source = root / (doc["overlay_path"] if gaze == "visual" else doc["video_path"])
                ft = probe_video(source).frame_times
                start, end = doc["window_start"], doc["window_end"]
                assert end <= doc["query_time"] and start == max(0.0, doc["query_time"] - 64.0)
                times = np.asarray(clip_frame_times(clip))
                assert np.array_equal(times, ft[(ft >= start - 1e-6) & (ft <= end + 1e-6)]), (doc["question_id"],)
                info = probe_video(clip)
                assert info.n_frames == len(times)
                (_, first), (_, last) = read_frames_at(clip, [0.0, info.frame_times[-1]])
                assert read_frame_code(last) == int(np.searchsorted(ft, end + 1e-6, side="right") - 1)
                assert read_frame_code(first) == int(np.searchsorted(ft, start - 1e-6))
    assert n_docs == 3 * 48 and n_short == 3 * 3 and len(checked) >= 2 * 8


MODEL_READY = {  # a resizing wrapper (Qwen2.5-VL chat, small pixel budget) and one at the source size (OpenAI)
    "qwen2_5_vl/chat": {"max_num_frames": 6, "max_pixels": 76800, "min_pixels": 3136},
    "openai/simple": {"max_frames_num": 10},
}


@pytest.mark.parametrize("wrapper", sorted(MODEL_READY))
def test_every_model_ready_clip_holds_only_frames_of_its_window(wrapper, demo_dataset, tmp_path, monkeypatch):
    """No future leakage in model-ready clips (issue 36): for every document and variant, each frame of the clip
    a known wrapper is handed is a source frame inside the window (its sidecar's times, and the demo world's
    frame code burnt into the pixels themselves), and the wrapper's picks of the full-rate clip in its order."""
    import json

    import cv2
    import decord

    from streamgaze_hf.evaluation.model_frames import frames_request
    from streamgaze_hf.evaluation.ready import ready_sidecar
    from streamgaze_hf.evaluation.settings import RunSettings
    from streamgaze_hf.evaluation.warm import warm_clips

    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "clips"))
    monkeypatch.setenv("FORCE_QWENVL_VIDEO_READER", "decord")
    settings = RunSettings(model=json.dumps(frames_request(*wrapper.split("/"), MODEL_READY[wrapper])))
    # made as a run makes them: one pass per source video (`clips warm`, the frame scheduler's passes), not a
    # decode per window
    warmed = warm_clips(demo_dataset, variants=sorted(set(evaluation.GAZE_VARIANTS.values())), progress=False,
                        settings=settings)
    assert warmed["passes"]["clips"] > 300 and warmed["passes"]["units"] > 0
    checked, n_docs = set(), 0
    for gaze in evaluation.GAZE_VARIANTS.values():
        for spec in TASKS:
            for doc in evaluation.load_docs(spec.id, gaze, demo_dataset, settings=settings):
                n_docs += 1
                assert doc["model_ready"].startswith(wrapper)
                clip = evaluation.doc_visuals(doc)[-1]
                if clip in checked:
                    continue
                checked.add(clip)
                assert clip.endswith(".mov"), (doc["question_id"], clip)
                side = ready_sidecar(clip)
                source = demo_dataset / (doc["overlay_path"] if gaze == "visual" else doc["video_path"])
                ft = probe_video(source).frame_times
                start, end = evaluation.doc_window(doc)
                window = np.flatnonzero((ft >= start - 1e-6) & (ft <= end + 1e-6))
                times = np.asarray(side["frame_times"])
                assert times.max() <= end + 1e-6 and times.min() >= start - 1e-6, (doc["question_id"], start, end)
                assert set(side["source_indices"]) <= set(window.tolist())
                assert np.array_equal(ft[side["source_indices"]], times)
                vr = decord.VideoReader(clip)
                assert len(vr) == side["n_frames"]
                h, w = int(doc["frame_height"]), int(doc["frame_width"])
                for k in (0, len(vr) - 1):  # the pixels are those source frames
                    img = vr[k].asnumpy()[..., ::-1]
                    if img.shape[:2] != (h, w):
                        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
                    assert read_frame_code(img) == side["source_indices"][k], (doc["question_id"], k)
    assert n_docs > 1000 and len(checked) == warmed["passes"]["clips"]
