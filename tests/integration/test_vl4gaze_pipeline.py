"""The VL4Gaze §3 pipeline end to end on the synthetic world, with the oracle VLM stub, checked against
the world's ground truth; then the evaluation documents and scores of the built dataset."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

from streamgaze_hf import scoring
from streamgaze_hf.benchmarks.vl4gaze import evaluation, world
from streamgaze_hf.benchmarks.vl4gaze.build import build_dataset
from streamgaze_hf.benchmarks.vl4gaze.pipeline import build_questions
from streamgaze_hf.benchmarks.vl4gaze.prompts import CANNOT_IDENTIFY_ANSWERS, NO_SUCH_PERSON_ANSWERS
from streamgaze_hf.dataset.load import load_task
from streamgaze_hf.gaze.direction import direction_of
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.vl4gaze_fixture import SEED, build_world_dataset, client, oracle_stub, plain_vlm
from ..fixtures.vlm_stub import VLMStub

TASKS = ("god", "gdd", "gpl", "aqr")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vl4gaze")
    scenes, result, stub = build_world_dataset(tmp)
    rows = {t: load_task(t, result.root) for t in TASKS}
    return tmp, {s.id: s for s in scenes}, result, stub, rows


def _scene(scenes, row):
    return scenes[row["image_path"].rsplit("/", 1)[1].rsplit(".", 1)[0]]


def test_every_usable_person_gets_questions_and_the_wrong_annotation_is_dropped(built):
    _, scenes, result, stub, rows = built
    assert stub.errors == []
    people = [(s.id, p) for s in scenes.values() for p in s.people]
    wrong = [(sid, p.id) for sid, p in people if not p.sees_target]
    assert len(wrong) == 1
    asked = {(r["video_id"].split("__")[1], r["person"]) for r in rows["god"]}
    assert asked == {(sid, p.id) for sid, p in people if p.sees_target}  # all but the wrong annotation
    inside = sum(p.target is not None and p.sees_target for _, p in people)
    assert result.questions == {"god": len(asked), "gdd": inside, "gpl": len(asked), "aqr": len(asked)}
    dropped = next(pt for pt in result.texts if (pt.annotation.image[:-4], pt.annotation.person) == wrong[0])
    assert dropped.visible is False and not dropped.usable


def test_descriptions_match_the_right_person(built):
    _, scenes, result, _, rows = built
    for task in TASKS:
        for r in rows[task]:
            matches = world.matching_people(_scene(scenes, r), r["observer_description"])
            if r["description_kind"] == "unique":
                assert matches == [r["person"]], r["question"]
            elif r["description_kind"] == "general_existing":
                assert len(matches) >= 2 and r["person"] in matches
            else:
                assert matches == []
    # self-consistency validation dropped the "unique" proposals of the similar pairs ...
    similar = [pt for pt in result.texts if scenes[pt.annotation.image[:-4]].similar_pair]
    assert all(len(pt.rejected["unique description matches 2 people"]) == 1 for pt in similar)
    # ... and the forbidden-word filter the annotation artefact
    assert all(pt.rejected["forbidden word"] == ["the person in the red box"] for pt in result.texts)
    assert not any("box" in r["question"] for t in TASKS for r in rows[t])


def test_targets_directions_and_points_are_the_ground_truth(built):
    _, scenes, _, _, rows = built
    # rows to check, of both kinds: 14 people, 10 of whom look at an object (a direction each), 4 out of frame
    assert {t: len(rows[t]) for t in ("god", "gdd", "gpl")} == {"god": 14, "gdd": 10, "gpl": 14}
    assert sum(_scene(scenes, r).person(r["person"]).target is None for r in rows["god"]) == 4
    for r in rows["god"]:
        scene = _scene(scenes, r)
        p = scene.person(r["person"])
        if p.target is None:
            assert not r["inside"] and "out" in r["answer"].lower() and r["target_description"] == ""
        else:
            o = scene.object(p.target)
            assert o.name in r["answer"] and o.colour in r["answer"]
            assert r["answer"].startswith(p.pronoun.capitalize())
            assert r["target_description"] == f"the {o.phrase}"
    for r in rows["gdd"]:
        scene = _scene(scenes, r)
        p = scene.person(r["person"])
        o = scene.object(p.target)
        ex, ey = scene.eye(p)
        expected = direction_of((ex, ey), (o.x, o.y))  # in pixels, independently of the row's coordinates
        assert r["direction"] == expected and scoring.parse_direction(r["answer"]) == expected
    for r in rows["gpl"]:
        p = _scene(scenes, r).person(r["person"])
        if p.target is None:
            assert r["answer"] == "(-1, -1)" and (r["gaze_x"], r["gaze_y"]) == (-1, -1)
        else:
            o = _scene(scenes, r).object(p.target)
            assert r["answer"] == f"({o.x}, {o.y})"


def test_aqr_negatives_really_are_ambiguous(built):
    _, scenes, _, _, rows = built
    ambiguous = [r for r in rows["aqr"] if r["ambiguous"]]
    assert 0 < len(ambiguous) < len(rows["aqr"])  # both kinds present
    for r in ambiguous:
        assert len(world.matching_people(_scene(scenes, r), r["observer_description"])) != 1
        assert r["answer"] in CANNOT_IDENTIFY_ANSWERS + NO_SUCH_PERSON_ANSWERS
        assert scoring.parse_ambiguity(r["answer"]) is True
    for r in rows["aqr"]:
        if not r["ambiguous"]:
            assert scoring.parse_ambiguity(r["answer"]) is False


def test_questions_are_deterministic_under_the_seed(built):
    _, _, result, _, rows = built
    again = build_questions(result.texts, seed=SEED)
    assert {t: sorted(r["question_id"] + r["question"] + r["answer"] for r in again[t]) for t in TASKS} == \
           {t: sorted(r["question_id"] + r["question"] + r["answer"] for r in rows[t]) for t in TASKS}
    other = build_questions(result.texts, seed=SEED + 1)
    assert [r["question"] for r in other["god"]] != [r["question"] for r in again["god"]]
    # a subset gives the same questions for the annotations it keeps (per-annotation generators)
    half = build_questions(result.texts[::2], seed=SEED)
    by_id = {r["question_id"]: r for r in again["gpl"]}
    assert all(by_id[r["question_id"]] == r for r in half["gpl"])


def test_resumes_from_the_cache_after_a_crash(built, tmp_path):
    tmp, scenes_by_id, _, stub, _ = built
    scenes = list(scenes_by_id.values())
    oracle = world.OracleVLM(scenes)
    cache = tmp_path / "cache"
    anns = world.annotations(scenes)
    answered = 40

    def dies(req):
        return (400, json.dumps({"error": {"message": "model unloaded"}})) if req.index >= answered else \
            oracle.reply(req.prompt, req.images)

    with VLMStub(responder=dies) as broken, pytest.raises(StreamGazeError, match="model unloaded"):
        build_dataset(anns, tmp / "images", tmp_path / "out", "1.0.0", client(broken, cache), progress=False)
    assert not (tmp_path / "out").exists()
    with oracle_stub(scenes) as fresh:
        build_dataset(anns, tmp / "images", tmp_path / "out", "1.0.0", client(fresh, cache), progress=False)
    assert fresh.calls == stub.calls - answered  # only what was never answered is asked again
    with oracle_stub(scenes) as idle:
        c = client(idle, cache)
        build_dataset(anns, tmp / "images", tmp_path / "out2", "1.0.0", c, progress=False)
    assert idle.calls == 0 and c.cache_hits >= stub.calls  # (repeated questions hit the cache within a run too)
    same = [(tmp_path / d / "data" / t / "test-00000-of-00001.parquet").read_bytes()
            for d in ("out", "out2") for t in TASKS]
    assert same[:4] == same[4:]


def test_a_bad_json_answer_is_asked_again(tmp_path):
    scenes = world.make_world(1, seed=3)
    world.write_images(scenes, tmp_path / "images")
    oracle = world.OracleVLM(scenes)
    with VLMStub(responder=lambda r: "I see two people." if not r.retry and '"count"' in r.prompt
                 else oracle.reply(r.prompt, r.images)) as stub:
        result = build_dataset(world.annotations(scenes), tmp_path / "images", tmp_path / "out", "1.0.0",
                               client(stub, tmp_path / "cache"), progress=False)
    assert sum(r.retry for r in stub.requests) > 0 and result.questions["god"] >= 1


def test_oracle_answers_score_perfectly_and_wrong_ones_do_not(built, monkeypatch):
    _, _, result, _, _ = built
    monkeypatch.setenv("VL4GAZE_ROOT", str(result.root))
    for k in ("VL4GAZE_JUDGE_URL", "VL4GAZE_JUDGE_MODEL", "VL4GAZE_JUDGE_KEY"):
        monkeypatch.delenv(k, raising=False)
    all_docs = {t: evaluation.load_docs(t) for t in TASKS}
    for task, docs in all_docs.items():
        (img,) = evaluation.doc_visuals(docs[0])
        assert img.size == (world.WIDTH, world.HEIGHT) and img.mode == "RGB"
        assert docs[0]["question"] in evaluation.doc_prompt(docs[0])
        m = evaluation.task_metrics([evaluation.score_doc(d, evaluation.doc_target(d)) for d in docs])
        if task == "god":
            assert m["bleu"] == pytest.approx(100) and m["rouge_l"] == pytest.approx(1) and m["judge"] is None
        elif task == "gdd":
            assert (m["direction_acc"], m["angular_error"]) == (1.0, 0.0)
        elif task == "gpl":
            assert m["inout_acc"] == 1.0 and m["l2"] < 0.003  # pixel rounding only
        else:
            assert m["f1"] == 1.0
    gdd = all_docs["gdd"]
    wrong = evaluation.task_metrics([evaluation.score_doc(d, "I am not sure.") for d in gdd])
    assert (wrong["direction_acc"], wrong["angular_error"], wrong["n_unparsed"]) == (0.0, 180.0, len(gdd))
    scores = evaluation.leaderboard_scores(
        {t: [evaluation.score_doc(d, evaluation.doc_target(d)) for d in docs] for t, docs in all_docs.items()})
    values = scores["columns"]
    assert values["gdd_acc"] == 1.0 and values["aqr_f1"] == 1.0 and values["god_judge"] is None
    assert values["gdd_angle"] == 0.0 and values["god_bleu"] == pytest.approx(100) and scores["overall"] is None


def test_cli_builds_the_synthetic_world_with_the_builtin_oracle(tmp_path, capsys):
    from streamgaze_hf.cli import main as cli_main

    assert cli_main(["build", "vl4gaze", "--synthetic", "2", "--out", str(tmp_path / "ds"), "--version", "1.0.0"]) == 0
    people = [p for s in world.make_world(2, seed=0) for p in s.people]
    usable = sum(p.sees_target for p in people)
    inside = sum(p.sees_target and p.target is not None for p in people)
    assert (usable, inside) == (4, 3)  # one person looks out of the frame, one cannot see the target
    assert capsys.readouterr().out.strip().endswith(f"god {usable}, gdd {inside}, gpl {usable}, aqr {usable}")
    gpl = load_task("gpl", tmp_path / "ds")
    assert all((tmp_path / "ds" / r["image_path"]).is_file() for r in gpl)
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "- visual-question-answering" in card and "video-text-to-text" not in card
    # an image dataset: its statistics count images and have no durations (every "video" lasts 0 s)
    n_images = len(pq.read_table(tmp_path / "ds" / "data" / "videos").column("video_id"))
    assert n_images == 2 and "| Source | Images | Questions |" in card
    assert f"| total | {n_images} | {usable * 3 + inside} |" in card
    assert "Video durations" not in card and "Hours" not in card
    assert "| images (the `videos` config) | 2 |" in card
    capsys.readouterr()
    assert cli_main(["stats", str(tmp_path / "ds")]) == 0
    printed = capsys.readouterr().out
    assert "Images" in printed and "Video durations" not in printed and "Hours" not in printed
    assert re.search(r"^total +15 +- *$", printed, re.M)  # no task has checkpoints
    assert cli_main(["build", "vl4gaze", "--gazefollow", str(tmp_path), "--out", str(tmp_path / "x"),
                     "--version", "1.0.0"]) == 2
    assert "real annotations need a VLM" in capsys.readouterr().err


def test_paper_rows_are_the_main_table():
    from streamgaze_hf.registry import get_benchmark
    bench = get_benchmark("vl4gaze")
    rows = bench.leaderboard.reference_rows()
    assert len(rows) == 14
    keys = [c.key for c in bench.leaderboard.score_columns()]
    assert all(set(r) >= {"name", "group", "source", "gaze", "prompt_mode", "dataset", "tasks", "overall"} for r in rows)
    assert all(list(r["tasks"]) == keys and r["tasks"]["god_rouge_l"] is None for r in rows)
    gpt5 = next(r for r in rows if r["name"] == "GPT-5")
    assert gpt5["tasks"] == {"god_bleu": 42.95, "god_rouge_l": None, "god_judge": 0.644, "gdd_angle": 44.82,
                             "gdd_acc": 0.436, "gpl_l2": 0.217, "gpl_inout_acc": 0.928, "aqr_f1": 0.695}
    assert "1K" in gpt5["dataset"]
    ft = next(r for r in rows if r["name"] == "Qwen3-VL-2B-Instruct (fine-tuned)")
    assert (ft["tasks"]["god_bleu"], ft["tasks"]["gdd_angle"], ft["setting"]) == (57.54, 13.13, "sft")
    lower = {c.key for c in bench.leaderboard.score_columns() if not c.higher_is_better}
    assert lower == {"gdd_angle", "gpl_l2"} and bench.leaderboard.overall_column().label == "Overall"


def test_optional_vlm_judge_is_asked_once_and_cached(built, monkeypatch, tmp_path):
    _, _, result, _, _ = built
    monkeypatch.setenv("VL4GAZE_ROOT", str(result.root))
    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(tmp_path / "judge-cache"))
    docs = evaluation.load_docs("god")[:3]

    def judge(req):
        assert req.n_images == 1 and "Reference answer" in req.prompt
        return json.dumps({"score": 1.0 if "out of the frame" in req.prompt.split("Candidate answer:")[1] else 0.25})

    with VLMStub(responder=judge) as stub:
        monkeypatch.setenv("VL4GAZE_JUDGE_URL", stub.url)
        monkeypatch.setenv("VL4GAZE_JUDGE_MODEL", "judge-vl")
        evaluation._judge_client.cache_clear()
        recs = [evaluation.score_doc(d, "The person is looking out of the frame.") for d in docs]
        again = [evaluation.score_doc(d, "The person is looking out of the frame.") for d in docs]
    assert stub.calls == 3 and [r["judge"] for r in recs] == [r["judge"] for r in again] == [1.0] * 3
    assert evaluation.task_metrics(recs)["judge"] == 1.0
    evaluation._judge_client.cache_clear()


def test_both_annotation_formats_build_a_dataset(tmp_path):
    from streamgaze_hf.benchmarks.vl4gaze.annotation_files import read_gazefollow, read_videoattentiontarget

    from ..fixtures.vl4gaze_fixture import annotation_trees

    gf_file, gf, vat = annotation_trees(tmp_path)
    with VLMStub(responder=plain_vlm) as stub:
        a = build_dataset(read_gazefollow(gf_file, gf).annotations, gf, tmp_path / "a", "1.0.0",
                          client(stub, tmp_path / "cache"), progress=False)
        b = build_dataset(read_videoattentiontarget(vat / "annotations", vat / "images").annotations, vat / "images",
                          tmp_path / "b", "1.0.0", client(stub, tmp_path / "cache"), progress=False)
    assert a.questions == {"god": 2, "gdd": 1, "gpl": 2, "aqr": 2}
    gpl = {r["person"]: r for r in load_task("gpl", a.root)}
    assert gpl["p0"]["answer"] == "(150, 60)" and gpl["p1"]["answer"] == "(-1, -1)"  # 0.75 * 200, 0.6 * 100
    # eye (50, 20) px -> gaze (150, 60) px: (100, 40), -21.8 degrees: still "right" (lower right from -22.5)
    assert load_task("gdd", a.root)[0]["direction"] == "right"
    (row,) = load_task("gpl", b.root)
    assert row["image_path"] == "images/videoattentiontarget/Show A/1000_1100/00001.jpg"
    assert (b.root / row["image_path"]).is_file() and row["answer"] == "(300, 150)"
