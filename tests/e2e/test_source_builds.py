"""Every raw source in its native layout builds into a dataset that `load_dataset` opens
(issue: raw-source pipeline). Objects come from an official-format episode metadata CSV written
for the fixture's planned fixations (the metadata back-end)."""

import csv

import datasets
import pytest

from streamgaze_hf.benchmarks.streamgaze.build import BuildOptions, build_dataset
from streamgaze_hf.cli import main

from ..fixtures.source_fixtures import write_raw

pytestmark = pytest.mark.slow
POOL = ["mug", "knife", "bowl", "cutting board", "jar", "spoon", "kettle", "plate", "towel", "bottle",
        "pan", "sponge"]


def write_metadata(fixture, path):
    """One episode per planned fixation: a distinct gazed object, one more inside the FOV, four outside."""
    rows = []
    for vid, planned in fixture.fixations.items():
        for k, f in enumerate(planned):
            gazed = POOL[k % len(POOL)]
            fov = POOL[(k + 5) % len(POOL)]
            out = [o for o in POOL if o not in (gazed, fov)][k % 3:k % 3 + 4]
            rows.append([vid, f.start, f.end, f.end - f.start,
                         repr({"object_identity": gazed, "detailed_caption": f"a {gazed}"}),
                         repr([{"object_identity": fov, "detailed_caption": f"a {fov}"}]),
                         repr([{"object_identity": o, "detailed_caption": f"a {o}"} for o in out])])
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["video_name", "episode_start_time", "episode_end_time", "duration", "representative_object",
                    "other_objects_in_cropped_area", "other_objects_outside_fov"])
        w.writerows(rows)
    return path


@pytest.mark.parametrize("source", ["egtea", "egoexolearn", "holoassist", "ego4d"])
def test_native_layout_builds_into_a_loadable_dataset(source, tmp_path):
    fixture = write_raw(source, tmp_path / "raw", duration=20)
    meta = write_metadata(fixture, tmp_path / "metadata.csv")
    opts = BuildOptions(source=source, objects="metadata", metadata=str(meta))
    root = build_dataset(fixture.raw, tmp_path / "streamgaze", "1.0.0", options=opts)
    names = datasets.get_dataset_config_names(str(root))
    assert {"videos", "fixations", "gaze"} <= set(names)
    videos = datasets.load_dataset(str(root), "videos", split="test", cache_dir=str(tmp_path / "c"))
    assert sorted(videos["video_id"]) == sorted(fixture.ids) and set(videos["source"]) == {source}
    # previews holds Video() cells for the Hub's viewer (decoding needs torchcodec): not a task
    tasks = [n for n in names if n not in ("videos", "gaze", "fixations", "previews")]
    assert tasks, "no questions generated"
    for task in tasks:
        rows = datasets.load_dataset(str(root), task, split="test", cache_dir=str(tmp_path / "c"))
        for r in rows:
            assert (root / r["video_path"]).is_file() and (root / r["overlay_path"]).is_file()
            assert r["source"] == source


def test_non_world_source_needs_an_object_backend(tmp_path, capsys):
    fixture = write_raw("ego4d", tmp_path / "raw", duration=20)
    rc = main(["build", "--raw", str(fixture.raw), "--source", "ego4d", "--out", str(tmp_path / "o"),
               "--version", "1.0.0"])
    assert rc == 2 and "needs an object back-end" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_vlm_backed_build_pays_each_request_once(tmp_path, monkeypatch):
    """`build --objects vlm` against the loopback stub: a rebuild (after the successful first build
    removed its work directory) makes no request at all: the response cache outlives the build."""
    from ..fixtures.vlm_stub import VLMStub

    monkeypatch.setenv("STREAMGAZE_VLM_CACHE", str(tmp_path / "vlm_cache"))
    fixture = write_raw("egoexolearn", tmp_path / "raw", duration=20)
    with VLMStub() as stub:
        args = ["build", "--raw", str(fixture.raw), "--source", "egoexolearn", "--objects", "vlm",
                "--vlm-url", stub.url, "--vlm-model", "stub-vlm", "--version", "1.0.0"]
        assert main([*args, "--out", str(tmp_path / "a")]) == 0
        first = stub.calls
        assert first > 0
        assert main([*args, "--out", str(tmp_path / "b")]) == 0
        assert stub.calls == first
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()
