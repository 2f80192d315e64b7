"""`streamgaze build`: the raw pipeline to a loadable, versioned, reproducible, resumable dataset."""

import json

import datasets
import pytest

from streamgaze_hf.benchmarks.streamgaze import build as build_mod
from streamgaze_hf.benchmarks.streamgaze.build import build_dataset
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS
from streamgaze_hf.cli import main

from ..fixtures.once import once_per_run


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    from streamgaze_hf.demo.world import generate_world

    return once_per_run(tmp_path_factory, "test_build.small_world",
                        lambda out: generate_world(out, n_videos=2, seed=5, duration=40)[0].parent)


@pytest.fixture(scope="module")
def built(small_world, tmp_path_factory):
    return once_per_run(tmp_path_factory, "test_build.built",
                        lambda parent: build_dataset(small_world, parent / "streamgaze", "1.0.0"))


def test_loads_with_load_dataset_by_name(built, monkeypatch, tmp_path):
    monkeypatch.chdir(built.parent)
    ds = datasets.load_dataset("streamgaze", "oi_easy", split="test", cache_dir=str(tmp_path / "c"))
    assert len(ds) > 0 and set(ds[0]) >= {"question_id", "options", "answer", "window_end", "overlay_path"}
    names = datasets.get_dataset_config_names("streamgaze")
    assert sorted(names) == sorted(list(TASK_IDS) + ["videos", "gaze", "fixations", "previews"])
    for task in TASK_IDS:
        for row in datasets.load_dataset("streamgaze", task, split="test", cache_dir=str(tmp_path / "c")):
            assert (built / row["video_path"]).is_file() and (built / row["overlay_path"]).is_file()


def test_manifest_and_card_carry_the_version(built):
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["version"] == "1.0.0"
    assert manifest["build"]["options"]["seed"] == 0
    assert "version: 1.0.0" in (built / "README.md").read_text()
    assert "## 1.0.0" in (built / "CHANGELOG.md").read_text()
    assert not (built.parent / ".streamgaze.work").exists()  # work dir removed after success


def test_building_twice_gives_identical_manifests(built, small_world, tmp_path):
    again = build_dataset(small_world, tmp_path / "streamgaze", "1.0.0")
    assert (again / "manifest.json").read_bytes() == (built / "manifest.json").read_bytes()


def test_same_version_refused_without_force(built, small_world, capsys):
    rc = main(["build", "--raw", str(small_world), "--out", str(built), "--version", "1.0.0"])
    err = capsys.readouterr().err
    assert rc == 2 and "already exists" in err and str(built) in err


def test_interrupted_build_leaves_nothing_and_resumes(small_world, tmp_path, monkeypatch):
    out = tmp_path / "streamgaze"
    real = build_mod.process_recording
    calls = []

    def flaky(rec, work, opts):
        calls.append(rec.video_id)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed while processing the second recording
        return real(rec, work, opts)

    monkeypatch.setattr(build_mod, "process_recording", flaky)
    with pytest.raises(KeyboardInterrupt):
        build_dataset(small_world, out, "2.0.0")
    assert not out.exists()
    work = tmp_path / ".streamgaze.work"
    finished = [p for p in work.rglob("result.json")]
    assert len(finished) == 1  # the first recording's results survive

    redone = []

    real_analyse = build_mod.analyse_recording

    def counting_analyse(rec, *args):
        redone.append(rec.video_id)
        return real_analyse(rec, *args)

    monkeypatch.setattr(build_mod, "analyse_recording", counting_analyse)
    monkeypatch.setattr(build_mod, "process_recording", real)
    root = build_dataset(small_world, out, "2.0.0")
    assert (root / "manifest.json").is_file()
    assert redone == [sorted(p.name for p in small_world.iterdir())[1]]  # only the unfinished recording


def test_bad_raw_inputs_give_one_clear_error(tmp_path, capsys):
    empty = tmp_path / "raw"
    empty.mkdir()
    assert main(["build", "--raw", str(empty), "--out", str(tmp_path / "o"), "--version", "1.0.0"]) == 2
    assert "no recordings found" in capsys.readouterr().err
    rec = empty / "v1"
    rec.mkdir()
    (rec / "video.mp4").write_text("not a video")
    (rec / "gaze.csv").write_text("t,x,y,valid\n0,0.5,0.5,1\n")
    assert main(["build", "--raw", str(empty), "--out", str(tmp_path / "o"), "--version", "1.0.0"]) == 2
    errors = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("streamgaze build streamgaze:")]
    assert len(errors) == 1 and str(rec / "video.mp4") in errors[0] and "cannot open video" in errors[0]
    assert not (tmp_path / "o").exists()
