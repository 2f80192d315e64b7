"""The annotation (metadata CSV) and VLM object back-ends; the VLM one against a loopback stub."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze.episode_objects import MetadataBackend
from streamgaze_hf.gaze.fixations import Fixation
from streamgaze_hf.gaze.fov import fov_radius_px
from streamgaze_hf.gaze.scanpath import FixationObjects
from streamgaze_hf.gaze.track import GazeTrack
from streamgaze_hf.objects.naming import BUILTIN_ATTRIBUTE_VALUES
from streamgaze_hf.objects.vlm import VLMBackend, cache_key
from streamgaze_hf.objects.vlm_prompts import (
    AnswerError,
    fov_prompt,
    out_prompt,
    parse_json_answer,
    validate_fov,
    validate_out,
)
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.writer import H264Writer

from ..fixtures.vlm_stub import PALETTE, VLMStub, object_answer

W, H, FPS, DURATION = 320, 240, 10, 12.0
SQUARES = {"cup": (0.2, 0.5), "plate": (0.5, 0.5), "bowl": (0.8, 0.5)}
HALF = 30  # square half-size, px
FIXATIONS = [
    Fixation(0.5, 2.5, 0.2, 0.5, 20),  # on the cup
    Fixation(3.0, 5.0, 0.5, 0.5, 20),  # on the plate
    Fixation(6.0, 8.0, 0.8, 0.5, 20),  # on the bowl
    Fixation(9.0, 11.0, 0.5, 0.15, 20),  # on the bare background above the plate
]
EXPECTED = [
    FixationObjects("cup", ("kitchen table",), ("plate", "bowl")),
    FixationObjects("plate", ("kitchen table",), ("cup", "bowl")),
    FixationObjects("bowl", ("kitchen table",), ("cup", "plate")),
    FixationObjects(None, ("kitchen table",), ("cup", "plate", "bowl")),
]


# ---------------------------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    """A 12 s 320x240 video: grey background, three flat squares in the stub's palette colours."""
    d = tmp_path_factory.mktemp("vlm_video") / "kitchen01"
    frame = np.full((H, W, 3), 128, np.uint8)
    for name, (x, y) in SQUARES.items():
        cx, cy = int(x * W), int(y * H)
        frame[cy - HALF:cy + HALF, cx - HALF:cx + HALF] = PALETTE[name][0]
    path = d / "kitchen01.mp4"
    with H264Writer(path, W, H, FPS, crf=10) as w:
        for _ in range(int(DURATION * FPS)):
            w.write(frame)
    return path


@pytest.fixture(scope="module")
def track() -> GazeTrack:
    return GazeTrack(np.array([0.0, 0.1]), np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([True, True]),
                     W, H, FPS)


def backend(stub: VLMStub, cache: Path, **kw) -> VLMBackend:
    kw.setdefault("retry_backoff", 0.0)
    return VLMBackend(stub.url, "stub-vl", cache_dir=cache, timeout=10, **kw)


# ------------------------------------------------------------------------------------ metadata back-end

CSV_HEADER = ["video_name", "episode_start_time", "episode_end_time", "duration", "representative_object",
              "other_objects_in_cropped_area", "other_objects_outside_fov"]


def write_csv(path: Path, rows: list[list[str]], header: list[str] = CSV_HEADER) -> Path:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def obj(name: str) -> dict:
    return {"object_identity": name, "detailed_caption": f"A {name}."}


GOOD_ROWS = [
    ["vid01", "00:00", "00:03", "3", repr(obj("Cutting_Board")),
     repr([obj("knife"), obj("Knife"), obj("cutting_board")]),
     repr([obj("Man_wearing_blue_shirt"), obj("knife"), obj("pan")])],
    ["vid01", "00:04", "00:10", "6", repr(obj("pan")), "[]", "[]"],
    ["other.mp4", "00:00", "01:00", "60", json.dumps(obj("cup")), "[]", "None"],
]


def test_metadata_backend_maps_episodes_to_fixations(tmp_path, track):
    csv_path = write_csv(tmp_path / "egtea.csv", GOOD_ROWS)
    be = MetadataBackend(csv_path)
    fixations = [
        Fixation(0.5, 2.5, 0.5, 0.5, 10),  # inside episode 1
        Fixation(2.5, 5.0, 0.5, 0.5, 10),  # 0.5 s in episode 1, 1.0 s in episode 2 -> episode 2
        Fixation(11.0, 12.0, 0.5, 0.5, 10),  # after every episode -> empty
        Fixation(3.0, 3.5, 0.5, 0.5, 10),  # touches episode 1 at one instant only -> empty
        Fixation(2.9, 3.95, 0.5, 0.5, 10),  # 0.1 s in episode 1 only -> episode 1
    ]
    first = FixationObjects("cutting board", ("knife",), ("man wearing blue shirt", "pan"))
    second = FixationObjects("pan", (), ())
    # Looked up by the video file's stem ...
    objs = be.describe(tmp_path, tmp_path / "vid01.mp4", track, fixations)
    assert objs.per_fixation == [first, second, FixationObjects(), FixationObjects(), first]
    assert objs.attributes == {} and objs.visible is None and objs.glimpsed is None
    assert objs.fixated is None and objs.gaze_on is None
    # ... or by the recording directory's name (raw-pipeline layout: <video id>/video.mp4).
    objs = be.describe(tmp_path / "VID01", tmp_path / "VID01" / "video.mp4", track, fixations[:1])
    assert objs.per_fixation == [first]
    # A video column holding a file name; "None" out-of-FOV cell.
    other = be.describe(tmp_path, tmp_path / "other.mp4", track, [Fixation(10, 20, 0.5, 0.5, 10)])
    assert other.per_fixation == [FixationObjects("cup", (), ())]
    with pytest.raises(StreamGazeError, match="no episodes for video 'missing'") as err:
        be.describe(tmp_path, tmp_path / "missing.mp4", track, fixations)
    assert "egtea.csv" in str(err.value)


def test_metadata_backend_reads_a_directory(tmp_path, track):
    write_csv(tmp_path / "meta" / "a.csv", GOOD_ROWS[:1])
    write_csv(tmp_path / "meta" / "b.csv", GOOD_ROWS[1:])
    be = MetadataBackend(tmp_path / "meta")
    objs = be.describe(tmp_path, tmp_path / "vid01.mp4", track, [Fixation(5, 6, 0.5, 0.5, 10)])
    assert objs.per_fixation == [FixationObjects("pan", (), ())]
    with pytest.raises(StreamGazeError, match="no metadata"):
        MetadataBackend(tmp_path)  # the CSVs are in tmp_path/meta, not here
    with pytest.raises(StreamGazeError, match="not found"):
        MetadataBackend(tmp_path / "absent.csv")


@pytest.mark.parametrize("header, row, message", [
    (CSV_HEADER[:4] + CSV_HEADER[5:], GOOD_ROWS[0][:4] + GOOD_ROWS[0][5:],
     "missing columns: representative_object"),
    (CSV_HEADER[1:], GOOD_ROWS[0][1:], "missing columns: one of video_name"),
    (CSV_HEADER, GOOD_ROWS[0][:5] + ["[{'object_identity': 'knife'"] + GOOD_ROWS[0][6:],
     "line 2: cannot parse other_objects_in_cropped_area"),
    (CSV_HEADER, GOOD_ROWS[0][:4] + ["{'object_identity': 'pan', "] + GOOD_ROWS[0][5:],
     "line 2: cannot parse representative_object"),
    (CSV_HEADER, GOOD_ROWS[0][:1] + ["soon"] + GOOD_ROWS[0][2:], "line 2: bad time"),
    (CSV_HEADER, GOOD_ROWS[0][:1] + ["00:05", "00:01"] + GOOD_ROWS[0][3:], "line 2: episode ends"),
])
def test_metadata_backend_errors_name_the_csv(tmp_path, header, row, message):
    csv_path = write_csv(tmp_path / "broken_meta.csv", [row], header)
    with pytest.raises(StreamGazeError, match=message) as err:
        MetadataBackend(csv_path)
    assert "broken_meta.csv" in str(err.value)


# ------------------------------------------------------------------------------------ prompts and parser

def test_prompts_follow_the_paper_figures():
    p1 = fov_prompt(4, 2.0, ["cup", "plate"])
    for needle in ("red dot", '"scene_caption"', '"exact_gaze_object"', '"object_identity"',
                   '"detailed_caption"', '"other_objects_in_cropped_area"', '"attributes"', '"color"',
                   '"material"', '"shape"', '"texture"', "person wearing [clothing description]",
                   "Known objects in this video: cup, plate", "Return only the JSON object"):
        assert needle in p1, needle
    p2 = out_prompt(4, 2.0, ["cup", "kitchen table"])
    for needle in ("black disk", "OUTSIDE", '"other_objects"', '"attributes"',
                   "Do NOT include these objects, already identified in the gaze area: cup, kitchen table"):
        assert needle in p2, needle
    assert "Known objects" not in p2 and "Do NOT include" not in out_prompt(4, 2.0, [])


def test_answer_parser_is_strict():
    good = {"other_objects": [{"object_identity": "Cup", "detailed_caption": "A cup.",
                               "attributes": {"color": "Grey", "material": "unknown", "shape": "round",
                                              "texture": "smooth"}}]}
    ans = validate_out(parse_json_answer("```json\n" + json.dumps(good) + "\n```"))
    assert ans.objects[0].name == "cup"
    assert ans.objects[0].attributes == {"color": "gray", "shape": "round", "texture": "smooth"}
    no_gaze = {"scene_caption": "x", "exact_gaze_object": None, "other_objects_in_cropped_area": []}
    assert validate_fov(parse_json_answer(json.dumps(no_gaze))).gazed is None
    bad_texts = ["", "Sure! " + json.dumps(good), "[1, 2]", '{"other_objects": [', "```json\n{}\n``` extra"]
    for text in bad_texts:
        with pytest.raises(AnswerError):
            validate_out(parse_json_answer(text))
    attrs = good["other_objects"][0]["attributes"]
    bad_answers = [
        {},
        {"other_objects": {}},
        {"other_objects": [{"object_identity": " ", "detailed_caption": "", "attributes": attrs}]},
        {"other_objects": [{"object_identity": "cup", "detailed_caption": "A cup."}]},
        {"other_objects": [{"object_identity": "cup", "detailed_caption": "x",
                            "attributes": {"color": "red"}}]},  # attributes incomplete
        {"other_objects": [{"object_identity": 3, "detailed_caption": "x", "attributes": {}}]},
    ]
    for answer in bad_answers:
        with pytest.raises(AnswerError):
            validate_out(answer)
    with pytest.raises(AnswerError, match="scene_caption"):
        validate_fov({"exact_gaze_object": None, "other_objects_in_cropped_area": []})
    with pytest.raises(AnswerError, match="exact_gaze_object"):
        validate_fov({"scene_caption": "x", "other_objects_in_cropped_area": []})


# ------------------------------------------------------------------------------------------ VLM back-end

def test_vlm_backend_against_the_stub_then_from_the_cache(tmp_path, video, track):
    cache = tmp_path / "cache"
    with VLMStub(api_key="sk-test") as stub:
        be = backend(stub, cache, api_key="sk-test")
        objs = be.describe(video.parent, video, track, FIXATIONS)
        assert not stub.errors
        assert objs.per_fixation == EXPECTED
        # Two requests per fixation, FOV first, four frames each.
        assert stub.calls == 2 * len(FIXATIONS) == be.calls
        assert [r.stage for r in stub.requests] == ["fov", "out"] * len(FIXATIONS)
        assert all(r.n_images == 4 and not r.retry for r in stub.requests)
        assert all(r.authorization == "Bearer sk-test" for r in stub.requests)
        assert all(r.payload["model"] == "stub-vl" for r in stub.requests)
        radius = fov_radius_px(W)
        for k, f in enumerate(FIXATIONS):
            crop_req, out_req = stub.requests[2 * k], stub.requests[2 * k + 1]
            for img in crop_req.images:  # circular crop, red dot at the centre, black outside the circle
                assert img.shape == (2 * radius + 1, 2 * radius + 1, 3)
                b, g, r = (int(v) for v in img[radius, radius])
                assert r > 150 and r > g + 80 and r > b + 80, (k, img[radius, radius])
                for y, x in ((0, 0), (0, 2 * radius), (2 * radius, 0), (2 * radius, 2 * radius)):
                    assert int(img[y, x].max()) < 30
            cx, cy = int(f.x * W), int(f.y * H)
            for img in out_req.images:  # full frame, black disk on the fixation, the rest untouched
                assert img.shape == (H, W, 3)
                assert int(img[cy, cx].max()) < 30 and int(img[cy, min(W - 1, cx + radius - 4)].max()) < 30
                assert abs(int(img[5, 5].mean()) - 128) < 12
            # Stage 2 excludes what stage 1 found; later prompts offer the names seen so far.
            stage1 = ", ".join(n for n in (EXPECTED[k].gazed, *EXPECTED[k].fov) if n)
            exclusion = f"Do NOT include these objects, already identified in the gaze area: {stage1}."
            assert exclusion in out_req.prompt
        assert "Known objects" not in stub.requests[0].prompt
        assert "Known objects in this video: cup, kitchen table, plate, bowl." in stub.requests[2].prompt
        # Attributes voted over the answers (normalised), vocabulary = seen values + the built-in lists.
        assert objs.attributes["cup"] == {"color": "blue", "material": "ceramic", "shape": "round",
                                          "texture": "smooth"}
        table = {"color": "brown", "material": "wood", "shape": "rectangular"}  # texture "unknown" dropped
        assert objs.attributes["kitchen table"] == table
        for kind, values in BUILTIN_ATTRIBUTE_VALUES.items():
            assert set(values) <= set(objs.attribute_vocabulary[kind])
        assert objs.attribute_vocabulary["material"].count("ceramic") == 1
        assert objs.visible is None and objs.fixated is None
        # The cache: one atomically written JSON file per request, <cache>/<key[:2]>/<key>.json.
        files = sorted(cache.rglob("*.json"))
        assert len(files) == 2 * len(FIXATIONS)
        assert all(p.parent.name == p.stem[:2] and len(p.stem) == 64 for p in files)
        assert not list(cache.rglob("*.tmp*"))
        record = json.loads(files[0].read_text())
        assert {"format", "stage", "model", "answer", "raw", "attempts"} <= set(record)

    # A second run (new instance, same cache dir) makes zero calls: the stub now refuses everything.
    with VLMStub(responder=lambda req: (500, "down")) as stub2:
        be2 = backend(stub2, cache, api_key="sk-test")
        again = be2.describe(video.parent, video, track, FIXATIONS)
        assert stub2.calls == 0 and be2.calls == 0 and be2.cache_hits == 2 * len(FIXATIONS)
        assert again == objs


def test_cache_key_covers_model_prompt_and_images():
    base = cache_key("m", "p", [b"a", b"b"])
    assert base == cache_key("m", "p", [b"a", b"b"])
    assert len({base, cache_key("m2", "p", [b"a", b"b"]), cache_key("m", "p2", [b"a", b"b"]),
                cache_key("m", "p", [b"ab"]), cache_key("m", "p", [b"a", b"c"])}) == 5


def test_malformed_answer_is_reasked_with_the_error(tmp_path, video, track):
    def responder(req):
        if req.index == 0:
            return '```json\n{"scene_caption": "A counter.", "exact_gaze_object": {"object_identity"\n```'
        return object_answer(req)

    with VLMStub(responder=responder) as stub:
        objs = backend(stub, tmp_path / "cache").describe(video.parent, video, track, FIXATIONS[:1])
    assert objs.per_fixation == EXPECTED[:1]
    assert stub.calls == 3 and [r.retry for r in stub.requests] == [False, True, False]
    retry_msgs = stub.requests[1].payload["messages"]
    assert len(retry_msgs) == 3 and retry_msgs[1]["role"] == "assistant"
    assert "not valid JSON" in retry_msgs[2]["content"]
    assert stub.requests[1].n_images == 4  # the re-ask repeats the images


def test_garbage_answers_fail_with_a_clear_error(tmp_path, video, track):
    with VLMStub(responder=lambda req: "I can see a cup and a plate on the table.") as stub:
        be = backend(stub, tmp_path / "cache", max_retries=2)
        with pytest.raises(StreamGazeError) as err:
            be.describe(video.parent, video, track, FIXATIONS)
    msg = str(err.value)
    assert "kitchen01.mp4" in msg and "fixation 0" in msg and "FOV request" in msg
    assert "after 3 attempts" in msg and "not valid JSON" in msg
    assert stub.calls == 3
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_http_errors_retry_or_fail(tmp_path, video, track):
    # A transient 503 is retried.
    with VLMStub(responder=lambda req: (503, "busy") if req.index == 0 else object_answer(req)) as stub:
        objs = backend(stub, tmp_path / "a").describe(video.parent, video, track, FIXATIONS[:1])
    assert objs.per_fixation == EXPECTED[:1] and stub.calls == 3
    # A wrong API key is not retried, and the error says what the server said.
    with VLMStub(api_key="sk-right") as stub:
        with pytest.raises(StreamGazeError, match="HTTP 401: bad api key") as err:
            backend(stub, tmp_path / "b", api_key="sk-wrong").describe(video.parent, video, track, FIXATIONS)
    assert "kitchen01.mp4" in str(err.value) and stub.calls == 0  # refused before it is counted


def test_interrupted_run_resumes_without_repeating_calls(tmp_path, video, track):
    cache = tmp_path / "cache"
    done = 2  # fixations answered before the "crash"

    def dies(req):
        return (400, json.dumps({"error": {"message": "quota exhausted"}})) if req.index >= 2 * done \
            else object_answer(req)

    with VLMStub(responder=dies) as stub:
        with pytest.raises(StreamGazeError, match="quota exhausted"):
            backend(stub, cache).describe(video.parent, video, track, FIXATIONS)
    assert stub.calls == 2 * done + 1
    with VLMStub() as stub:
        be = backend(stub, cache)
        objs = be.describe(video.parent, video, track, FIXATIONS)
    assert objs.per_fixation == EXPECTED
    assert stub.calls == 2 * (len(FIXATIONS) - done) and be.cache_hits == 2 * done
    assert [r.stage for r in stub.requests] == ["fov", "out"] * (len(FIXATIONS) - done)


def test_short_fixations_send_distinct_frames_and_png_is_lossless(tmp_path, video, track):
    with VLMStub() as stub:
        be = backend(stub, tmp_path / "cache", frames_per_fixation=8, image_format="png")
        objs = be.describe(video.parent, video, track, [Fixation(3.0, 3.2, 0.5, 0.5, 3)])
    assert objs.per_fixation == [FixationObjects("plate", ("kitchen table",), ("cup", "bowl"))]
    assert [r.n_images for r in stub.requests] == [2, 2]  # 8 sample times, 2 distinct frames at 10 fps
    radius = fov_radius_px(W)
    assert tuple(stub.requests[0].images[0][radius, radius]) == (0, 0, 255)  # exact red dot
