"""The synthetic demo world: files, determinism, scenes and cuts, and the oculomotor ground truth."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest

from streamgaze_hf.cli import main
from streamgaze_hf.demo import generate_world
from streamgaze_hf.demo.catalog import CATALOG
from streamgaze_hf.gaze.io import read_gaze_csv
from streamgaze_hf.video.frame_reader import probe_video, read_frames_at
from streamgaze_hf.video.writer import cpu_flags

from ..fixtures.once import once_per_run

RATE = 30.0
FILES = ("video.mp4", "gaze.csv", "actions.json", "objects.json")


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> dict[str, Path]:
    """Two 20 s videos (seed 3, the CLI test's arguments) and one 95 s video with three scenes."""
    def generate(out):
        dirs = generate_world(out / "a", n_videos=2, seed=3, duration=20, progress=False)
        dirs += generate_world(out / "b", n_videos=1, seed=8, duration=95, width=160, height=120, fps=12.0,
                               progress=False)
        return {d.name: d for d in dirs}

    return once_per_run(tmp_path_factory, "test_world.world", generate)


VIDEOS = ["world_3_00", "world_3_01", "world_8_00"]


class Video:
    """One generated video's ground truth and gaze, with small helpers for the checks."""

    def __init__(self, d: Path):
        self.dir = d
        self.truth = json.loads((d / "objects.json").read_text())
        self.actions = json.loads((d / "actions.json").read_text())
        t = self.truth
        self.gaze = read_gaze_csv(d / "gaze.csv", t["width"], t["height"], t["fps"])
        self.aspect = t["height"] / t["width"]
        self.names = {o["id"]: o["name"] for o in t["objects"]}
        self.ids = {o["name"]: o["id"] for o in t["objects"]}

    def dist(self, x0, y0, x1, y1):
        return np.hypot(np.asarray(x1) - x0, (np.asarray(y1) - y0) * self.aspect)

    def samples(self, start: float, end: float) -> np.ndarray:
        return np.flatnonzero((self.gaze.t >= start - 1e-6) & (self.gaze.t <= end + 1e-6))

    def flick_mask(self) -> np.ndarray:
        m = np.zeros(len(self.gaze), bool)
        for f in self.truth["flicks"]:
            m[self.samples(f["start"], f["end"])] = True
        return m


@pytest.fixture(scope="session")
def videos(world) -> dict[str, Video]:
    return {name: Video(d) for name, d in world.items()}


def test_files_and_video_geometry(world, videos):
    assert sorted(world) == VIDEOS
    for name, d in world.items():
        assert all((d / f).is_file() for f in FILES)
        t = videos[name].truth
        info = probe_video(d / "video.mp4")
        assert info.codec == "h264"
        assert (info.width, info.height) == (t["width"], t["height"])
        assert info.n_frames == t["n_frames"] == round(t["duration"] * t["fps"]) == len(t["frames"]["t"])
        assert info.fps == pytest.approx(t["fps"])
        assert np.allclose(info.frame_times, t["frames"]["t"], atol=1e-4)
        assert t["video_id"] == name and t["hfov_deg"] == 90.0 and t["gaze_rate"] == 30.0
    assert videos["world_3_00"].truth["n_frames"] == 480 and videos["world_8_00"].truth["n_frames"] == 1140
    assert not list(world["world_3_00"].parent.glob(".*")), "staging directory left behind"


def test_gaze_is_sampled_at_30_hz_independent_of_fps(videos):
    for v in videos.values():
        n = len(v.gaze)
        assert np.allclose(v.gaze.t, np.arange(n) / RATE, atol=1e-6)
        assert v.gaze.t[-1] < v.truth["duration"] <= v.gaze.t[-1] + 1 / RATE + 1e-6


def test_same_arguments_give_identical_bytes_and_cli_runs(world, tmp_path, capsys):
    out = tmp_path / "cli"
    (out / "world_3_00").mkdir(parents=True)
    (out / "world_3_00" / "stale.txt").write_text("left over from an older world")
    assert main(["world", "--out", str(out), "--videos", "1", "--seed", "3", "--duration", "20"]) == 0
    assert str(out / "world_3_00") in capsys.readouterr().out
    assert sorted(p.name for p in (out / "world_3_00").iterdir()) == sorted(FILES)  # replaced, not merged
    for f in FILES:  # video 0 does not depend on how many videos were asked for
        assert (out / "world_3_00" / f).read_bytes() == (world["world_3_00"] / f).read_bytes(), f


# glibc fills every block malloc returns with the complement of this byte (0xfe): memory a program reads
# without writing it first then holds what a long-lived process's heap may hold, not the zeros of fresh pages.
GARBAGE_HEAP = {"MALLOC_PERTURB_": "1"}
SHORT = {"n_videos": 1, "seed": 3, "duration": 15, "fps": 6, "progress": False}  # 90 frames of 320x240


def _world_process(out: Path, env: dict[str, str], prelude: str = "") -> subprocess.Popen:
    """``generate_world(out, **SHORT)`` in a new process (the library, not the CLI: `streamgaze` imports
    much more) with ``env`` added to its environment; ``prelude``: Python run first in that process."""
    code = f"{prelude}\nimport sys\nfrom streamgaze_hf.demo import generate_world\ngenerate_world(sys.argv[1], **{SHORT!r})"
    return subprocess.Popen([sys.executable, "-c", code, str(out)], env={**os.environ, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finished(proc: subprocess.Popen, out: Path) -> Path:
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    return out / "world_3_00"


def test_bytes_do_not_depend_on_heap_contents_or_parallel_renders(tmp_path):
    """The byte-reproducibility flake of issue 30: x264's AVX-512 mbtree code read never-written padding,
    so a render in a test worker whose heap held old data could differ from one in a fresh process
    (video/writer.py ``x264_asm``). A render in this process, then at once: two renders in threads here and
    two new processes (one with garbage-filled malloc memory): all the same bytes."""
    (quiet,) = generate_world(tmp_path / "quiet", **SHORT)
    procs = [(_world_process(tmp_path / f"proc{k}", env), tmp_path / f"proc{k}") for k, env in enumerate([GARBAGE_HEAP, {}])]
    with ThreadPoolExecutor(2) as pool:
        threads = list(pool.map(lambda k: generate_world(tmp_path / f"thread{k}", **SHORT)[0], range(2)))
    others = {"thread 1": threads[0], "thread 2": threads[1], "process, garbage heap": _finished(*procs[0]),
              "process": _finished(*procs[1])}
    for f in FILES:
        expected = (quiet / f).read_bytes()
        assert [name for name, d in others.items() if (d / f).read_bytes() != expected] == [], f


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to compare with one")
def test_overlay_bytes_do_not_depend_on_the_number_of_cpus(tmp_path):
    """x264 left to choose its thread count takes 1.5 x the CPUs it may use, and its output depends on the
    count: the same overlay had other bytes on one CPU than on two. Writers use a fixed count
    (video/writer.py DEFAULT_THREADS), so a dataset build gives the same bytes on every machine."""
    from ..fixtures.cli_entry import script

    (d,) = generate_world(tmp_path / "w", **SHORT)
    outs = {}
    for cpus in ({0}, set(sorted(os.sched_getaffinity(0))[:2])):
        out = tmp_path / f"overlay_{len(cpus)}.mp4"
        proc = subprocess.run([script(), "overlay", str(d / "video.mp4"), str(d / "gaze.csv"), "--out", str(out)],
                              capture_output=True, text=True, timeout=300,
                              preexec_fn=lambda c=cpus: os.sched_setaffinity(0, c))
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs[len(cpus)] = out.read_bytes()
    assert outs[1] == outs[2]


@pytest.mark.skipif("avx512f" not in cpu_flags() or platform.libc_ver()[0] != "glibc",
                    reason="shows x264's AVX-512 overread: needs an AVX-512 CPU and glibc's MALLOC_PERTURB_")
def test_without_the_avx512_hold_heap_contents_change_the_video(tmp_path):
    """What the hold in video/writer.py prevents, shown: with x264 free to use AVX-512, the same world
    rendered with garbage-filled malloc memory gets another video (the other files stay the same). If this
    fails, the bundled x264 no longer reads what it never wrote and ``x264_asm`` may go."""
    free = "import streamgaze_hf.video.writer as w\nw._host_asm = lambda: None"
    clean = _world_process(tmp_path / "clean", {}, free)
    garbage = _world_process(tmp_path / "garbage", GARBAGE_HEAP, free)
    clean, garbage = _finished(clean, tmp_path / "clean"), _finished(garbage, tmp_path / "garbage")
    assert [f for f in FILES if (clean / f).read_bytes() != (garbage / f).read_bytes()] == ["video.mp4"]


def test_different_seed_gives_a_different_world(world, tmp_path):
    (d,) = generate_world(tmp_path, n_videos=1, seed=4, duration=20, progress=False)
    for f in ("gaze.csv", "actions.json", "objects.json"):
        assert (d / f).read_bytes() != (world["world_3_00"] / f).read_bytes()
    assert (world["world_3_00"] / "gaze.csv").read_bytes() != (world["world_3_01"] / "gaze.csv").read_bytes()


def test_bad_arguments_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="duration"):
        generate_world(tmp_path, duration=5, progress=False)
    with pytest.raises(ValueError, match="even"):
        generate_world(tmp_path, width=321, progress=False)
    assert not list(tmp_path.iterdir())


def test_catalogue_objects_look_different():
    looks = [(o.shape, o.color, o.texture) for o in CATALOG]
    assert len(set(looks)) == len(looks)
    assert len({o.name for o in CATALOG}) == len(CATALOG)


@pytest.mark.parametrize("name", VIDEOS)
def test_objects_are_distinct_and_attributes_varied(videos, name):
    t = videos[name].truth
    objs = t["objects"]
    assert len(objs) >= 12
    assert [o["id"] for o in objs] == list(range(len(objs)))
    assert len({o["name"] for o in objs}) == len(objs)
    keys = {"color", "shape", "material", "texture", "size", "state"}
    assert all(set(o["attributes"]) == keys for o in objs)
    looks = {(o["attributes"]["shape"], o["attributes"]["color"], o["attributes"]["texture"]) for o in objs}
    assert len(looks) == len(objs)
    for scene in t["scenes"]:
        here = [o for o in objs if o["scene"] == scene["id"]]
        assert len(here) >= 12
        values = {k: {o["attributes"][k] for o in here} for k in keys}
        assert len(values["color"]) >= 4 and len(values["material"]) >= 3
        assert len(values["texture"]) >= 3 and len(values["shape"]) >= 3
    # Consecutive scenes share kinds of things (categories), never objects.
    cats = [{o["category"] for o in objs if o["scene"] == s["id"]} for s in t["scenes"]]
    assert all(len(a & b) >= 2 for a, b in zip(cats, cats[1:]))


def _hs_hist(img: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    h = cv2.calcHist([hsv], [0, 1], None, [50, 60], [0, 180, 0, 256])
    return h / h.sum()


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return cv2.compareHist(_hs_hist(a), _hs_hist(b), cv2.HISTCMP_CORREL)


@pytest.mark.parametrize("name", VIDEOS)
def test_scene_cuts_by_hue_saturation_histograms(videos, name):
    v = videos[name]
    t = v.truth
    cuts = t["scene_cuts"]
    assert len(cuts) == len(t["scenes"]) - 1 >= 1
    assert len(cuts) == (2 if t["duration"] >= 90 else 1)
    assert [s["start"] for s in t["scenes"][1:]] == cuts == [s["end"] for s in t["scenes"][:-1]]
    assert len({s["name"] for s in t["scenes"]}) == len(t["scenes"])
    frame_t = np.array(t["frames"]["t"])
    assert all(np.any(np.isclose(frame_t, c, atol=1e-6)) for c in cuts)  # a cut is a frame time
    # Within a scene: frames 0.5 s apart, every 0.5 s (pans included).
    starts = np.arange(0.0, t["duration"] - 0.5, 0.5)
    times = sorted(set(np.round(np.concatenate([starts, starts + 0.5]), 6)))
    frames = dict(zip(times, (f for _, f in read_frames_at(v.dir / "video.mp4", times))))
    scene_of = lambda x: int(np.searchsorted(cuts, x + 1e-9, side="right"))  # noqa: E731
    within = [_corr(frames[round(a, 6)], frames[round(a + 0.5, 6)]) for a in starts
              if scene_of(a) == scene_of(a + 0.5)]
    assert min(within) >= 0.95
    # Across each cut: the last frame of a scene against the first frames of the next.
    for c in cuts:
        (_, before), *after = read_frames_at(v.dir / "video.mp4", [c - 1 / t["fps"], c, c + 0.5])
        assert all(_corr(before, f) < 0.5 for _, f in after)


@pytest.mark.parametrize("name", VIDEOS)
def test_objects_enter_and_leave_the_view(videos, name):
    t = videos[name].truth
    visible = [frozenset(b[0] for b in boxes) for boxes in t["frames"]["visible"]]
    changes = sum(a != b for a, b in zip(visible, visible[1:]))
    assert changes >= 4
    seen = set().union(*visible)
    assert len(seen) >= 10  # the camera shows far more than one frame's worth of objects
    for boxes in t["frames"]["visible"]:
        for _, x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        for i, a in enumerate(boxes):  # objects never overlap
            for b in boxes[i + 1:]:
                assert a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
    scene_ids = {o["id"]: o["scene"] for o in t["objects"]}
    cuts = t["scene_cuts"]
    for ft, boxes in zip(t["frames"]["t"], t["frames"]["visible"]):
        scene = t["scenes"][int(np.searchsorted(cuts, ft + 1e-9, side="right"))]["id"]
        assert all(scene_ids[b[0]] == scene for b in boxes)


@pytest.mark.parametrize("name", VIDEOS)
def test_fixation_ground_truth(videos, name):
    v = videos[name]
    fix = v.truth["fixations"]
    flick = v.flick_mask()
    assert len(fix) >= v.truth["duration"] / 8
    assert all(a["end"] < b["start"] for a, b in zip(fix, fix[1:]))
    for f in fix:
        assert 1.0 <= f["end"] - f["start"] <= 6.0
        assert f["object"] is None or f["object"] in v.ids
        idx = v.samples(f["start"], f["end"])
        regular = idx[v.gaze.valid[idx] & ~flick[idx]]
        assert v.gaze.valid[idx[0]] and v.gaze.valid[idx[-1]]
        assert f["x"] == pytest.approx(v.gaze.x[regular].mean(), abs=2e-6)
        assert f["y"] == pytest.approx(v.gaze.y[regular].mean(), abs=2e-6)
        # Drift of the image position over the whole fixation, and dispersion around the centroid.
        head, tail = regular[:5], regular[-5:]
        drift = v.dist(v.gaze.x[head].mean(), v.gaze.y[head].mean(), v.gaze.x[tail].mean(), v.gaze.y[tail].mean())
        assert drift <= 0.04
        assert v.dist(f["x"], f["y"], v.gaze.x[regular], v.gaze.y[regular]).max() <= 0.04
    for a, b in zip(fix, fix[1:]):  # a detector with radius 0.08 separates consecutive fixations
        assert v.dist(a["x"], a["y"], b["x"], b["y"]) >= 0.2
        assert 1 / RATE < b["start"] - a["end"] <= 1.5 + 1e-6 + (2 / RATE)
        between = v.samples(a["end"] + 0.01, b["start"] - 0.01)
        between = between[v.gaze.in_frame[between]]
        for f in (a, b):
            assert (v.dist(f["x"], f["y"], v.gaze.x[between], v.gaze.y[between]) > 0.09).all()


@pytest.mark.parametrize("name", VIDEOS)
def test_exactly_one_fixation_spans_a_cut(videos, name):
    t = videos[name].truth
    spanning = [f for f in t["fixations"] if f["spans_cut"]]
    assert len(spanning) == 1
    f = spanning[0]
    assert f["end"] - f["start"] >= 3.0
    assert sum(f["start"] < c <= f["end"] for c in t["scene_cuts"]) == 1
    for g in t["fixations"]:
        if not g["spans_cut"]:
            assert not any(g["start"] < c <= g["end"] for c in t["scene_cuts"])
    # The eye stays still across the cut.
    v = videos[name]
    idx = v.samples(f["start"], f["end"])
    assert v.dist(f["x"], f["y"], v.gaze.x[idx], v.gaze.y[idx]).max() < 0.02


@pytest.mark.parametrize("name", VIDEOS)
def test_flicks_are_short_excursions_inside_fixations(videos, name):
    v = videos[name]
    flicks = v.truth["flicks"]
    assert flicks
    for fl in flicks:
        assert 0 <= fl["end"] - fl["start"] < 0.2 - 1 / RATE  # 1-4 samples: the gaze is away < 200 ms
        (host,) = [f for f in v.truth["fixations"] if f["start"] < fl["start"] and fl["end"] < f["end"]]
        idx = v.samples(fl["start"], fl["end"])
        assert v.gaze.valid[idx].all()
        assert v.dist(host["x"], host["y"], v.gaze.x[idx], v.gaze.y[idx]).min() >= 0.15
        back = idx[-1] + 1  # and back to the target
        assert v.dist(host["x"], host["y"], v.gaze.x[back], v.gaze.y[back]) <= 0.04


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of every run of True."""
    d = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1))


@pytest.mark.parametrize("name", VIDEOS)
def test_blinks_and_off_frame_looks(videos, name):
    v = videos[name]
    g = v.gaze
    invalid = ~g.valid
    off = g.valid & ~g.in_frame
    assert invalid.any() and off.any()
    assert np.isnan(g.x[invalid]).all() and np.isnan(g.y[invalid]).all()
    inside = np.zeros(len(g), bool)
    for f in v.truth["fixations"]:
        inside[v.samples(f["start"], f["end"])] = True
    assert not (off & inside).any()
    runs = _runs(invalid)
    for a, b in runs:
        n = b - a + 1
        if inside[a:b + 1].any():
            assert inside[a:b + 1].all() and n <= 4  # short blink, under 200 ms
    assert any(b - a + 1 >= 8 for a, b in runs), "no long blink (250-500 ms) between fixations"
    assert any(inside[a] for a, b in runs), "no short blink inside a fixation"


@pytest.mark.parametrize("name", VIDEOS)
def test_gaps_hold_no_hidden_fixations(videos, name):
    """Between fixations, no 0.5 s of in-frame gaze stays within 0.08 of its centroid."""
    v = videos[name]
    g = v.gaze
    inside = np.zeros(len(g), bool)
    for f in v.truth["fixations"]:
        inside[v.samples(f["start"], f["end"])] = True
    win = int(0.5 * RATE)
    for a, b in _runs(~inside):
        for s in range(a, b - win + 2):
            w = np.arange(s, s + win)
            if not g.in_frame[w].all():
                continue
            cx, cy = g.x[w].mean(), g.y[w].mean()
            assert v.dist(cx, cy, g.x[w], g.y[w]).max() > 0.08


@pytest.mark.parametrize("name", VIDEOS)
def test_gazed_object_matches_fixation_object(videos, name):
    v = videos[name]
    t = v.truth
    frame_t = np.array(t["frames"]["t"])
    gazed = np.array(t["frames"]["gazed"])
    flick = v.flick_mask()
    for f in t["fixations"]:
        want = -1 if f["object"] is None else v.ids[f["object"]]
        k = int(np.searchsorted(frame_t, (f["start"] + f["end"]) / 2 + 1e-9, side="right")) - 1
        while True:  # skip frames whose latest gaze sample is a flick or a short blink
            s = int(v.gaze.index_at(frame_t[k])[0])
            if v.gaze.valid[s] and not flick[s]:
                break
            k += 1
        assert gazed[k] == want, (f, k)
        assert any(b[0] == want for b in t["frames"]["visible"][k]) or want == -1
    # The gazed object is always one that is visible in that frame.
    for k, obj in enumerate(gazed):
        assert obj == -1 or any(b[0] == obj for b in t["frames"]["visible"][k])
    assert (gazed >= 0).mean() > 0.3


@pytest.mark.parametrize("name", VIDEOS)
def test_action_timeline(videos, name):
    v = videos[name]
    acts = v.actions
    assert acts
    assert [a["start"] for a in acts] == sorted(a["start"] for a in acts)
    for a, b in zip(acts, acts[1:]):
        assert a["end"] <= b["start"]
    for a in acts:
        assert set(a) == {"start", "end", "label", "verb", "noun"}
        assert a["label"] == f"{a['verb']} {a['noun']}"
        assert a["noun"] in v.ids
        assert 0 <= a["start"] < a["end"] <= v.truth["duration"]
        assert not any(a["start"] < c < a["end"] for c in v.truth["scene_cuts"])


def test_objects_json_is_stable_text(world):
    text = (world["world_3_00"] / "objects.json").read_text()
    data = json.loads(text)
    assert list(data) == ["video_id", "width", "height", "fps", "n_frames", "duration", "hfov_deg", "seed",
                          "gaze_rate", "scene_cuts", "scenes", "objects", "fixations", "flicks", "frames"]
    assert list(data["frames"]) == ["t", "visible", "gazed"]
    for f in data["fixations"]:
        assert list(f) == ["start", "end", "x", "y", "object", "spans_cut"]
        assert all(not isinstance(f[k], float) or math.isclose(f[k], round(f[k], 6)) for k in f)


@pytest.mark.parametrize("name", VIDEOS)
def test_pipeline_recovers_the_ground_truth(videos, name):
    """The paper's fixation extraction (r = 0.08, 200 ms interruptions, here with a 1 s minimum) finds
    exactly the true fixations, and the scene-consistency check rejects exactly the one spanning a cut."""
    fixations = pytest.importorskip("streamgaze_hf.gaze.fixations")
    scene = pytest.importorskip("streamgaze_hf.gaze.scene")
    v = videos[name]
    found = fixations.extract_fixations(v.gaze, fixations.FixationParams(r_thresh=0.08, min_duration=1.0))
    truth = v.truth["fixations"]
    assert len(found) == len(truth)
    for f, g in zip(found, truth):
        assert abs(f.start - g["start"]) <= 0.1 and abs(f.end - g["end"]) <= 0.1
        assert v.dist(f.x, f.y, g["x"], g["y"]) <= 0.01
    scores = scene.scene_scores(v.dir / "video.mp4", found)
    assert [s < 0.9 for s in scores] == [g["spans_cut"] for g in truth]


def test_every_frame_carries_its_index(tmp_path):
    from streamgaze_hf.demo.timecode import read_frame_code
    from streamgaze_hf.demo.world import generate_world
    from streamgaze_hf.video.frame_reader import iter_frames

    (d,) = generate_world(tmp_path, n_videos=1, seed=2, duration=16, progress=False)
    codes = [read_frame_code(img) for _, _, img in iter_frames(d / "video.mp4")]
    assert codes == list(range(len(codes)))


def test_bad_cli_arguments_give_one_clear_error(tmp_path, capsys):
    from streamgaze_hf.cli import main

    assert main(["world", "--out", str(tmp_path / "w"), "--duration", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["usage: streamgaze world --out OUT [options]",
                   "streamgaze world: error: duration must be at least 15 s (room for a scene cut), got 5.0"]
    assert not (tmp_path / "w").exists()


def test_the_smallest_frame_size_renders(tmp_path):
    """64x48 (the smallest size allowed): objects reaching past the frame edge are clipped, not a crash."""
    (vdir,) = generate_world(tmp_path / "w", n_videos=1, seed=0, duration=15, width=64, height=48, fps=4.0)
    info = probe_video(Path(vdir) / "video.mp4")
    assert (info.width, info.height, info.n_frames) == (64, 48, 60)
