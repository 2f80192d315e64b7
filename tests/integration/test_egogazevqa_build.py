"""`streamgaze build --benchmark egogazevqa` from the demo world (issue 13, deliverable 3): narrations
-> groups of nine keyframes with gaze -> QA by a stub VLM answering from the world's ground truth ->
our EgoGazeVQA layout -> evaluation and review pages."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from streamgaze_hf.benchmarks.egogazevqa import CATEGORIES
from streamgaze_hf.benchmarks.egogazevqa.build import EgoBuildOptions, build_egogazevqa
from streamgaze_hf.benchmarks.egogazevqa.evaluation import doc_target, load_docs, score_doc
from streamgaze_hf.benchmarks.egogazevqa.generation import generation_prompt, validate_generated
from streamgaze_hf.cli import main
from streamgaze_hf.objects.vlm_prompts import AnswerError
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.egogazevqa_world import (
    ASKED_FRAME,
    gazed_name,
    ground_truth_responder,
    truth_index,
    world_keyframes,
    write_narrated_world,
    write_world_as_ego4d,
    write_world_as_egoexo4d,
    write_world_as_egtea,
)
from ..fixtures.vlm_stub import VLMStub

SG = str(Path(sys.executable).with_name("streamgaze"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("egogazevqa") / "world"
    dirs = write_narrated_world(root)
    truth = {d.name: json.loads((d / "objects.json").read_text()) for d in dirs}
    keyframes = {d.name: world_keyframes(d) for d in dirs}
    groups = {d.name: [keyframes[d.name][i:i + 9] for i in range(0, len(keyframes[d.name]) - 8, 9)] for d in dirs}
    index = truth_index(dirs)
    return {"root": root, "dirs": dirs, "truth": truth, "keyframes": keyframes, "groups": groups, "index": index}


@pytest.fixture(scope="module")
def built(world, tmp_path_factory):
    """One build, then a rebuild into another directory with the same cache (no new request)."""
    tmp = tmp_path_factory.mktemp("built")
    cache = tmp / "vlm_cache"
    with VLMStub(ground_truth_responder(world["index"])) as stub:
        opts = EgoBuildOptions(source="world", vlm_url=stub.url, vlm_model="stub-vlm")
        mp = pytest.MonkeyPatch()
        mp.setenv("STREAMGAZE_VLM_CACHE", str(cache))
        try:
            root = build_egogazevqa(world["root"], tmp / "a", "1.0.0", options=opts, progress=False)
            first = stub.calls
            requests = list(stub.requests)
            again = build_egogazevqa(world["root"], tmp / "b", "1.0.0", options=opts, progress=False)
            second = stub.calls
        finally:
            mp.undo()
    return {"root": root, "again": again, "first": first, "second": second, "requests": requests, "tmp": tmp,
            "cache": cache}


def _rows(root, cat):
    return pq.read_table(root / "data" / cat / "test-00000-of-00001.parquet").to_pylist()


def test_groups_of_nine_keyframes_with_their_gaze(world, built):
    groups = world["groups"]
    assert {vid: len(g) for vid, g in groups.items()} == {"world_0_00": 1, "world_0_01": 1}
    n_groups = sum(len(g) for g in groups.values())
    for cat in CATEGORIES:
        rows = _rows(built["root"], cat)
        assert len(rows) == n_groups == 2
        for r in rows:
            want = groups[r["video_id"]][0]
            assert [f["frame"] for f in r["frames"]] == [k[0] for k in want]
            assert [f["caption"] for f in r["frames"]] == [k[3] for k in want]
            for f, k in zip(r["frames"], want):
                assert f["gaze_valid"] and f["gaze_x"] == pytest.approx(k[1], abs=1e-6)
                assert f["gaze_y"] == pytest.approx(k[2], abs=1e-6)
                assert f["time"] == pytest.approx(k[0] / 24.0, abs=1e-6)
                assert f["path"] == f"frames/world/{r['video_id']}/{k[0]:06d}.jpg"
                assert (built["root"] / f["path"]).is_file()
            assert r["window_start"] == r["frames"][0]["time"] and r["window_end"] == r["frames"][-1]["time"]
            assert r["source"] == "world" and r["task"] == r["category"] == cat and r["video_path"] == ""


def test_answers_come_from_the_frames_the_vlm_saw(world, built):
    # 2 groups x 3 categories = 6 questions; the first request was answered with prose and re-asked
    assert built["first"] == 7
    assert sum(r.retry for r in built["requests"]) == 1
    assert all(r.n_images == 9 for r in built["requests"])
    for cat in CATEGORIES:
        for r in _rows(built["root"], cat):
            truth = world["truth"][r["video_id"]]
            frame = r["frames"][ASKED_FRAME[cat]]["frame"]
            assert r["answer_text"] == f"The {gazed_name(truth, frame)}."
            assert len(r["options"]) == 5 and not r["options"][0].startswith("A:")  # labels stripped
            assert r["options"][ord(r["answer"]) - 65] == r["answer_text"]


def test_second_run_makes_no_request_and_is_byte_identical(built):
    assert built["second"] == built["first"]
    for cat in (*CATEGORIES, "videos", "gaze"):
        a = (built["root"] / "data" / cat / "test-00000-of-00001.parquet").read_bytes()
        b = (built["again"] / "data" / cat / "test-00000-of-00001.parquet").read_bytes()
        assert a == b, cat
    assert (built["root"] / "manifest.json").read_bytes() == (built["again"] / "manifest.json").read_bytes()
    manifest = json.loads((built["root"] / "manifest.json").read_text())
    assert manifest["name"] == "egogazevqa" and manifest["build"]["report"]["questions"] == \
        {"spatial": 2, "temporal": 2, "causal": 2}


def test_built_dataset_loads_through_the_evaluation(built, monkeypatch, tmp_path):
    from streamgaze_hf.benchmarks.egogazevqa.evaluation import doc_prompt, doc_visuals
    from streamgaze_hf.demo.timecode import read_frame_code

    monkeypatch.setenv("STREAMGAZE_PROMPT_MODE", "default")
    docs = load_docs("temporal", "text", built["root"])
    assert len(docs) == 2
    for d in docs:
        assert score_doc(d, f"The answer is {doc_target(d)}.")["correct"]
        assert not score_doc(d, "E" if doc_target(d) != "E" else "A")["correct"]
        last = d["frames"][8]
        assert f"Frame 9: Gaze({last['gaze_x']:.3f}, {last['gaze_y']:.3f})" in doc_prompt(d)
    (doc,) = [d for d in load_docs("spatial", "visual", built["root"]) if d["video_id"] == "world_0_01"]
    images = doc_visuals(doc, tmp_path / "cache")
    assert [read_frame_code(np.asarray(im)[:, :, ::-1]) for im in images] == [f["frame"] for f in doc["frames"]]


def test_review_pages_and_dropping_a_question(world, built, tmp_path, monkeypatch, capsys):
    from streamgaze_hf.review import export_review

    pages = export_review(built["root"], tmp_path / "review")
    assert [p.name for p in pages] == ["index.html", "world_0_00.html", "world_0_01.html"]
    html = pages[1].read_text()
    spatial = _rows(built["root"], "spatial")
    drop = next(r for r in spatial if r["video_id"] == "world_0_00")
    assert drop["question_id"] in html and html.count('class="kf"') == 27
    assert (tmp_path / "review" / drop["frames"][0]["path"]).is_file()
    csv_path = tmp_path / "verdicts.csv"
    csv_path.write_text("question_id,video_id,task,decision,failed_criteria,corrected_answer,note,annotator,source\n"
                        f"{drop['question_id']},world_0_00,spatial,drop,accuracy;fluency,,,ann1,world\n",
                        encoding="utf-8")
    assert main(["review", "import", str(csv_path)]) == 0
    out = capsys.readouterr().out
    assert "questions 1: kept 0, dropped 1" in out and "accuracy 1" in out and "fluency 1" in out
    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(built["cache"]))
    with VLMStub(ground_truth_responder(world["index"], garbage_first=False)) as stub:
        rc = main(["build", "egogazevqa", "--raw", str(world["root"]), "--source", "world",
                   "--out", str(tmp_path / "reviewed"), "--version", "1.0.1", "--vlm-url", stub.url,
                   "--vlm-model", "stub-vlm", "--review", str(csv_path)])
        assert rc == 0 and stub.calls == 0
    manifest = json.loads((tmp_path / "reviewed" / "manifest.json").read_text())
    assert manifest["build"]["human_verification"]["dropped"] == 1 and manifest["build"]["report"]["rejected"] == 1
    ids = [r["question_id"] for r in _rows(tmp_path / "reviewed", "spatial")]
    assert len(ids) == 1 and drop["question_id"] not in ids
    assert len(_rows(tmp_path / "reviewed", "causal")) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("question_id,decision,failed_criteria\nq1,drop,beauty\n", encoding="utf-8")
    with pytest.raises(StreamGazeError, match="row 2: unknown criteria beauty"):
        build_egogazevqa(world["root"], tmp_path / "x", "1.0.0",
                         options=EgoBuildOptions(vlm_url="http://127.0.0.1:9/v1", vlm_model="m", review=(str(bad),)))


def test_egoexo4d_take_builds_with_its_2d_gaze(world, tmp_path, monkeypatch):
    raw = tmp_path / "egoexo4d"
    gaze_csv = write_world_as_egoexo4d(world["dirs"][1], raw)
    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(tmp_path / "cache"))
    samples = [line.split(",") for line in gaze_csv.read_text().splitlines()[1:]]
    with VLMStub(ground_truth_responder({**world["index"]}, garbage_first=False)) as stub:
        # the same frames as the world build, so the world's ground truth still answers
        opts = EgoBuildOptions(source="egoexo4d_2d", vlm_url=stub.url, vlm_model="stub-vlm")
        root = build_egogazevqa(raw, tmp_path / "out", "1.0.0", options=opts, progress=False)
    rows = _rows(root, "spatial")
    assert len(rows) == 1
    r = rows[0]
    assert (r["source"], r["scenario"], r["video_id"]) == ("egoexo4d", "Cooking", "fair_cooking_05_2")
    for f in r["frames"]:
        k = int(math.floor(f["time"] * 10 + 1e-9))  # the 10 Hz sample at or before the keyframe
        assert f["gaze_x"] == pytest.approx(float(samples[k][2]) / 1408, abs=1e-9)
        assert f["gaze_y"] == pytest.approx(float(samples[k][3]) / 1408, abs=1e-9)


def test_ego4d_video_builds_from_its_narrations(world, tmp_path, monkeypatch):
    raw = tmp_path / "ego4d"
    write_world_as_ego4d(world["dirs"][0], raw)
    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(tmp_path / "cache"))
    with VLMStub(ground_truth_responder(world["index"], garbage_first=False)) as stub:
        opts = EgoBuildOptions(source="ego4d", vlm_url=stub.url, vlm_model="stub-vlm")
        root = build_egogazevqa(raw, tmp_path / "out", "1.0.0", options=opts, progress=False)
        assert stub.calls == 3
    (r,) = _rows(root, "causal")
    want = world["groups"]["world_0_00"][0]
    assert r["source"] == "ego4d" and [f["frame"] for f in r["frames"]] == [k[0] for k in want]
    assert [f["caption"] for f in r["frames"]] == [k[3] for k in want]  # "#C" tags removed
    assert [f["gaze_y"] for f in r["frames"]] == pytest.approx([k[2] for k in want], abs=2e-6)


def test_egtea_sessions_build_from_begaze_gaze_and_action_labels(world, tmp_path, monkeypatch):
    # the two world videos as EGTEA Gaze+ sessions, a BeGaze v1 and a v2 export (30 Hz samples tagged with
    # their 24 fps video frame); the second session gets three more labelled actions after its first nine
    # keyframes, material for a second group that EGTEA's default of one group per video leaves out
    raw = tmp_path / "egtea"
    s1, s2 = "OP01-R01-PastaSalad", "P16-R03-BaconAndEggs"
    written = {s1: write_world_as_egtea(world["dirs"][0], raw, s1, version=1),
               s2: write_world_as_egtea(world["dirs"][1], raw, s2, version=2,
                                        extra=((23.5, 24.0, "wash hands"), (24.5, 25.0, "dry hands"),
                                               (25.5, 26.0, "open drawer")))}
    with (raw / "raw_annotations" / "action_labels.csv").open("a", encoding="utf-8") as fh:  # another session
        fh.write("99; OP02-R05-Cheeseburger-1000-2500-F000024-F000060; OP02-R05-Cheeseburger; 1000; 2500; "
                 "Take bread; Take; bread\n")
    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(tmp_path / "cache"))
    with VLMStub(ground_truth_responder(world["index"], garbage_first=False)) as stub:
        opts = EgoBuildOptions(source="egtea", vlm_url=stub.url, vlm_model="stub-vlm")
        root = build_egogazevqa(raw, tmp_path / "out", "1.0.0", options=opts, progress=False)
        requests = list(stub.requests)
        assert stub.calls == 6  # 2 sessions x 1 group x 3 categories, each answered at once
    assert all(r.n_images == 9 and not r.retry for r in requests)
    # the captions the VLM got are the action labels, the gaze the BeGaze pixels over 1280x960 (frame 199:
    # the mean of its two samples, (192.48 + 196.25) / 2 / 1280 and (68.91 + 79.5) / 2 / 960)
    assert "Frame 5: Looks at the kitchen timer; Gaze:(0.152, 0.077)" in requests[0].prompt

    build = json.loads((root / "manifest.json").read_text())["build"]
    # narrations: the session's label rows (the Cheeseburger row is another session's); one label each
    # ends on a frame whose samples are all blinks (no gaze)
    assert build["inputs"] == {s1: {"narrations": 14, "keyframes": 13, "groups": 1},
                               s2: {"narrations": 19, "keyframes": 18, "groups": 1}}
    report = build["report"]
    assert (report["groups"], report["groups_dropped"], report["no_gaze"]) == (2, 1, 2)
    assert report["questions"] == {"spatial": 2, "temporal": 2, "causal": 2}

    frames = {s1: [44, 107, 141, 170, 199, 279, 372, 393, 467],  # ceil(end ms * 24 / 1000) of each label
              s2: [27, 70, 120, 205, 236, 256, 275, 293, 358]}
    captions = {s1: ["Looks at the kitchen timer", "Set kitchen timer", "Looks at the recipe book",
                     "Move recipe book", "Looks at the kitchen timer", "Looks at the teapot",
                     "Looks at the recipe book", "Close recipe book", "Looks at the white plate"],
                s2: ["Looks at the sandwich", "Cut sandwich", "Looks at the cutting board",
                     "Looks at the green bottle", "Open green bottle", "Looks at the pizza slice",
                     "Cut pizza slice", "Looks at the green bowl", "Looks at the wooden spoon"]}
    for vid, g in world["groups"].items():  # the frames of the world build: the world's truth answers
        assert [k[0] for k in g[0]] == frames[{"world_0_00": s1, "world_0_01": s2}[vid]]
    for cat in CATEGORIES:
        rows = _rows(root, cat)
        assert [r["video_id"] for r in rows] == [s1, s2]
        for r in rows:
            vid = r["video_id"]
            assert (r["source"], r["scenario"], r["activity"], r["task"]) == ("egtea", "Kitchen", "Cooking", cat)
            assert [f["frame"] for f in r["frames"]] == frames[vid]
            assert [f["caption"] for f in r["frames"]] == captions[vid]
            for f in r["frames"]:
                # the frame's BeGaze samples (one or two at 30 Hz), averaged, in pixels of 1280x960
                px = [(x, y) for _, x, y, frame, event in written[vid] if frame == f["frame"] and event == "Fixation"]
                assert 1 <= len(px) <= 2
                assert f["gaze_valid"] and f["gaze_x"] == pytest.approx(sum(p[0] for p in px) / len(px) / 1280, abs=1e-12)
                assert f["gaze_y"] == pytest.approx(sum(p[1] for p in px) / len(px) / 960, abs=1e-12)
                assert f["time"] == pytest.approx(f["frame"] / 24, abs=1e-9)
                assert f["path"] == f"frames/egtea/{vid}/{f['frame']:06d}.jpg" and (root / f["path"]).is_file()
            truth = world["truth"]["world_0_00" if vid == s1 else "world_0_01"]
            assert r["answer_text"] == f"The {gazed_name(truth, frames[vid][ASKED_FRAME[cat]])}."
    (r,) = [r for r in _rows(root, "spatial") if r["video_id"] == s1]
    f0, f4 = r["frames"][0], r["frames"][4]
    assert (f0["gaze_x"], f0["gaze_y"]) == pytest.approx((1000.79 / 1280, 412.32 / 960), abs=1e-12)
    assert (f4["gaze_x"], f4["gaze_y"]) == pytest.approx(((192.48 + 196.25) / 2 / 1280, (68.91 + 79.5) / 2 / 960),
                                                         abs=1e-12)  # frame 199: two samples

    videos = _rows(root, "videos")
    assert [(v["video_id"], v["source"], v["fps"], v["width"], v["height"], v["n_frames"]) for v in videos] == \
        [(s1, "egtea", 24.0, 320, 240, 720), (s2, "egtea", 24.0, 320, 240, 720)]
    gaze = _rows(root, "gaze")
    for vid in (s1, s2):  # one sample per video frame (every frame has a BeGaze row), at frame / 24
        ts = [g["t"] for g in gaze if g["video_id"] == vid]
        assert ts == pytest.approx([k / 24 for k in range(720)], abs=1e-9)


def test_arguments_are_checked_first(world, tmp_path, capsys):
    rc = main(["build", "egogazevqa", "--raw", str(world["root"]), "--out", str(tmp_path / "o"),
               "--version", "1.0.0"])
    assert rc == 2 and "--vlm-url URL and --vlm-model NAME" in capsys.readouterr().err
    rc = main(["build", "egogazevqa", "--raw", str(world["root"]), "--source", "holoassist",
               "--out", str(tmp_path / "o"), "--version", "1.0.0", "--vlm-url", "http://x", "--vlm-model", "m"])
    assert rc == 2 and "has no EgoGazeVQA build" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # StreamGaze's options are not build egogazevqa's (argparse: usage)
        main(["build", "egogazevqa", "--raw", str(world["root"]), "--objects", "oracle",
              "--out", str(tmp_path / "o"), "--version", "1.0.0", "--vlm-url", "http://x", "--vlm-model", "m"])
    assert exc.value.code == 2 and "unrecognized arguments: --objects oracle" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_too_few_narrations_is_an_error(world, tmp_path, monkeypatch):
    raw = tmp_path / "w"
    shutil.copytree(world["dirs"][0], raw / world["dirs"][0].name)
    (raw / world["dirs"][0].name / "actions.json").write_text("[]")
    with VLMStub(ground_truth_responder(world["index"])) as stub:
        with pytest.raises(StreamGazeError, match="no question generated: 0 keyframes from 0 narrations"):
            build_egogazevqa(raw, tmp_path / "o", "1.0.0", progress=False,
                             options=EgoBuildOptions(vlm_url=stub.url, vlm_model="m"))
        assert stub.calls == 0


def test_generation_prompt_and_answer_contract():
    text = generation_prompt("temporal", ["C cuts bread"] * 9, [(0.25, 0.5)] * 9)
    assert text.startswith("You are an expert in contextual temporal reasoning for videos.")
    assert "Frame 9: C cuts bread; Gaze:(0.250, 0.500)" in text and '"answer"' in text
    ok = validate_generated({"question": " Why? ", "options": ["A: a", "B. b", "(C) c", "d", "e"], "answer": "c."})
    assert (ok.question, ok.options, ok.answer) == ("Why?", ("a", "b", "c", "d", "e"), "C")
    for bad, why in [({"question": "q", "options": ["a", "b", "c", "d"], "answer": "A"}, "exactly 5"),
                     ({"question": "q", "options": ["a", "b", "c", "d", "A"], "answer": "A"}, "the same"),
                     ({"question": "q", "options": ["a", "b", "c", "d", "e"], "answer": "F"}, "one letter"),
                     ({"question": "", "options": ["a", "b", "c", "d", "e"], "answer": "A"}, "question")]:
        with pytest.raises(AnswerError, match=why):
            validate_generated(bad)


def test_group_rule_and_source_defaults():
    from streamgaze_hf.benchmarks.egogazevqa.build import Keyframe, frame_groups

    keys = [Keyframe(f, f / 24, 0.5, 0.5, str(f)) for f in range(30)]  # 30 keyframes: 3 full groups + 3 left
    assert [[k.frame for k in g][::8] for g in frame_groups(keys, 5)] == [[0, 8], [9, 17], [18, 26]]
    assert len(frame_groups(keys, 2)) == 2 and frame_groups(keys[:8], 3) == []
    assert [EgoBuildOptions(source=s).groups() for s in ("ego4d", "egoexo4d_2d", "egtea", "world")] == [3, 3, 1, 3]
    assert EgoBuildOptions(source="egtea", groups_per_video=2).groups() == 2


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_recordings_on_worker_processes_give_the_same_bytes_and_a_damaged_one_is_named(world, built, tmp_path):
    """`build egogazevqa --workers 2` (the executor seam, util/executors.py) through the installed script: each
    recording on a worker process of its own asks the VLM itself (a fresh answer cache), and the dataset is the
    in-process build's, byte for byte. A damaged recording fails once, named; the other finishes; nothing is
    written at the output, and no work directory is left."""
    raw = tmp_path / "raw" / world["root"].name  # the raw directory's name is in the manifest
    shutil.copytree(world["root"], raw)
    env = {**os.environ, "TQDM_DISABLE": "1", "STREAMGAZE_VLM_CACHE": str(tmp_path / "vlm_cache")}
    with VLMStub(ground_truth_responder(world["index"], garbage_first=False)) as stub:
        cmd = [SG, "build", "egogazevqa", "--raw", str(raw), "--source", "world", "--version", "1.0.0",
               "--vlm-url", stub.url, "--vlm-model", "stub-vlm", "--workers", "2"]
        proc = subprocess.run([*cmd, "--out", str(tmp_path / "p" / "a")], capture_output=True, text=True, env=env,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert stub.calls == 6  # 2 groups x 3 categories, asked from the workers
        assert _tree(tmp_path / "p" / "a") == _tree(built["root"])

        video = raw / "world_0_01" / "video.mp4"
        video.write_bytes(video.read_bytes()[:3000])  # truncated
        shutil.rmtree(tmp_path / "vlm_cache")
        proc = subprocess.run([*cmd, "--out", str(tmp_path / "d" / "a")], capture_output=True, text=True, env=env,
                              timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    [line] = [ln for ln in proc.stderr.splitlines() if "recordings failed" in ln]
    assert "1 of 2 recordings failed and were left out, nothing was written (a re-run asks the VLM nothing it " \
           "answered before: its answers are cached): world_0_01: " in line
    assert "world_0_00" not in line
    assert stub.calls == 9  # the other recording's 3 questions were asked
    assert list((tmp_path / "d").iterdir()) == []  # no output, no work directory
