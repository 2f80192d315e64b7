"""`streamgaze clips warm | stats | prune`: warming a whole evaluation (resumable), reporting and
bounding the clip cache (least recently used first, never half an entry)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.cli import main
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video import clips
from streamgaze_hf.video.cache_admin import cache_stats, parse_age, parse_size, prune_cache
from streamgaze_hf.video.clips import cached_clip, prepare_clip, read_sidecar, sidecar_path


def test_warm_then_everything_is_cached(demo_dataset, tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(cache))
    monkeypatch.delenv("STREAMGAZE_CLIP_FPS", raising=False)
    clips._clear_memos()
    docs = evaluation.load_docs("oi_easy", "visual", demo_dataset) + evaluation.load_docs("sr", "visual", demo_dataset)
    n_clips = len({evaluation.doc_clip_spec(d) for d in docs})
    assert main(["clips", "warm", str(demo_dataset), "--tasks", "oi_easy,sr", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert f"{n_clips} clips for {len(docs)} documents (oi_easy, sr; visual): {n_clips} built, 0 already cached" in out
    for d in docs:
        assert cached_clip(*evaluation.doc_clip_spec(d)) is not None
    # resumable: a second run builds nothing
    assert main(["clips", "warm", str(demo_dataset), "--tasks", "streamgaze_oi_easy", "sr"]) == 0
    assert f": 0 built, {n_clips} already cached" in capsys.readouterr().out
    assert main(["clips", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["clips"] == n_clips and stats["tmp_files"] == 0 and stats["salience_images"] == 0
    assert stats["clip_bytes"] == sum(p.stat().st_size for p in cache.rglob("*.mp4*"))
    assert sum(stats["clip_modes"].values()) == n_clips
    # nogaze and textgaze share the original video's clips; salience adds one image per document
    assert main(["clips", "warm", str(demo_dataset), "--tasks", "sr", "--variants", "nogaze", "textgaze",
                 "salience"]) == 0
    sr = evaluation.load_docs("sr", "none", demo_dataset)
    n_sr = len({evaluation.doc_clip_spec(d) for d in sr})  # some questions share a window
    assert f"{2 * n_sr} clips for {3 * len(sr)} documents" in capsys.readouterr().out
    assert cache_stats(cache)["salience_images"] == len({(d["video_id"], d["window_start"], d["window_end"])
                                                          for d in sr})


def test_warm_checks_names_before_work(demo_dataset, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STREAMGAZE_CLIP_CACHE", str(tmp_path / "cache"))
    assert main(["clips", "warm", str(demo_dataset), "--tasks", "oi_easy", "nope"]) == 2
    assert "unknown task 'nope'" in capsys.readouterr().err
    assert main(["clips", "warm", str(demo_dataset), "--variants", "overlay"]) == 2
    assert "unknown variant 'overlay'" in capsys.readouterr().err
    assert main(["clips", "warm", str(tmp_path / "missing")]) == 2
    assert str(tmp_path / "missing") in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()
    assert main(["clips", "prune"]) == 2
    assert "--max-bytes" in capsys.readouterr().err


def _entry(cache: Path, key: str, size: int, age_s: float, now: float) -> Path:
    clip = cache / key[:2] / f"{key}.mp4"
    clip.parent.mkdir(parents=True, exist_ok=True)
    clip.write_bytes(b"x" * size)
    sidecar_path(clip).write_text("{}")
    for p in (clip, sidecar_path(clip)):
        os.utime(p, (now - age_s, now - age_s))
    return clip


def test_prune_removes_least_recently_used_whole_entries(tmp_path):
    cache = tmp_path / "c"
    now = time.time()
    ages = {"aa" + "0" * 62: 50, "bb" + "0" * 62: 40, "cc" + "0" * 62: 30, "dd" + "0" * 62: 20}
    made = {k: _entry(cache, k, 1000, age * 3600, now) for k, age in ages.items()}
    (cache / "salience").mkdir()
    png = cache / "salience" / "s.png"
    png.write_bytes(b"p" * 500)
    os.utime(png, (now - 45 * 3600, now - 45 * 3600))
    old_tmp = cache / "aa" / ".x.mp4.123.tmp.mp4"
    old_tmp.write_bytes(b"t" * 300)
    os.utime(old_tmp, (now - 7200, now - 7200))
    new_tmp = cache / "aa" / ".y.mp4.456.tmp.mp4"  # a writer at work right now: kept
    new_tmp.write_bytes(b"t" * 300)
    orphan = cache / "ee" / ("ee" + "0" * 62 + ".mp4.json")  # a sidecar whose clip was never renamed in
    orphan.parent.mkdir()
    orphan.write_text("{}")
    os.utime(orphan, (now - 7200, now - 7200))
    total = cache_stats(cache)["bytes"]
    assert total == 4 * 1002 + 500 + 600 + 2

    dry = prune_cache(cache, max_bytes=2500, dry_run=True, now=now)
    assert dry["removed_entries"] == 3 and dry["dry_run"] and all(p.exists() for p in made.values())

    r = prune_cache(cache, max_bytes=2500, now=now)
    # the 300-byte stale temporary file goes; then oldest first: aa (50 h), the png (45 h), bb (40 h)
    assert r["removed_entries"] == 3 and r["removed_tmp"] == 1 and r["removed_orphans"] == 1
    assert [k[:2] for k, p in made.items() if p.exists()] == ["cc", "dd"]
    assert not png.exists() and not old_tmp.exists() and new_tmp.exists() and not orphan.exists()
    assert all(sidecar_path(p).exists() == p.exists() for p in made.values())  # never half an entry
    assert r["bytes_after"] == cache_stats(cache)["bytes"] == 2 * 1002 + 300 <= 2500

    r = prune_cache(cache, older_than=parse_age("25h"), now=now)
    assert r["removed_entries"] == 1 and [k[:2] for k, p in made.items() if p.exists()] == ["dd"]


def test_pruned_clips_are_rebuilt(tmp_path, monkeypatch, capsys):
    from ..fixtures.coded_clips import write_source

    src = write_source(tmp_path / "v.mp4", n=96, forced=())
    cache = tmp_path / "cache"
    clips._clear_memos()
    a = prepare_clip(src, 0.0, 2.0, cache_dir=cache)
    b = prepare_clip(src, 0.0, 3.0, cache_dir=cache)
    past = time.time() - 3 * 86400
    os.utime(a, (past, past))
    os.utime(sidecar_path(a), (past, past))
    assert main(["clips", "prune", "--cache", str(cache), "--older-than", "2d"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not a.exists() and b.exists()
    assert prepare_clip(src, 0.0, 2.0, cache_dir=cache) == a and read_sidecar(a)["n_frames"] == 49
    assert main(["clips", "prune", "--cache", str(cache), "--max-bytes", "0"]) == 0
    assert cache_stats(cache)["clips"] == 0
    assert main(["clips", "stats", "--cache", str(cache)]) == 0
    assert "clips: 0" in capsys.readouterr().out


def test_sizes_and_ages():
    assert parse_size("123") == 123 and parse_size("2K") == 2048 and parse_size("1.5G") == 1536 * 1024 ** 2
    assert parse_size("20GB") == parse_size("20GiB") == parse_size("20g") == 20 * 1024 ** 3
    assert parse_age("90") == 90 and parse_age("30m") == 1800 and parse_age("7d") == 7 * 86400
    assert parse_age("2w") == 14 * 86400 and parse_age("1.5h") == 5400
    for bad in ("", "ten", "5X", "-3"):
        with pytest.raises(StreamGazeError):
            parse_size(bad)
        with pytest.raises(StreamGazeError):
            parse_age(bad)


def test_prune_keeps_working_on_model_ready_clips_in_both_forms(tmp_path, capsys):
    """Model-ready clips raw (``.mov``) and compact (lossless ``.mp4``) are whole entries of the cache (issue 42):
    `clips stats` counts them, `clips prune` removes them least recently used first, and a pass's frames a killed
    process left behind (``passes/``) go as stale temporary files."""
    from streamgaze_hf.evaluation.model_frames import WRAPPERS, FramesSpec
    from streamgaze_hf.evaluation.ready import ready_clips, ready_sidecar

    from ..fixtures.coded_clips import write_source

    src = write_source(tmp_path / "v.mp4", n=96, forced=())
    cache = tmp_path / "cache"
    row = WRAPPERS["openai/simple"]
    spec = FramesSpec(row.key, tuple(sorted({**row.args, "max_frames_num": 4}.items())), "decord")
    clips._clear_memos()
    raw, _ = ready_clips(src, [(0.0, 3.0), (0.5, 3.5)], None, spec, cache_dir=cache)
    compact, _ = ready_clips(src, [(0.0, 3.0)], None, spec, cache_dir=cache, store="compact")
    assert [p.suffix for p in raw + compact] == [".mov", ".mov", ".mp4"]
    assert ready_sidecar(compact[0])["source_indices"] == ready_sidecar(raw[0])["source_indices"]
    assert compact[0].stat().st_size < raw[0].stat().st_size
    stale = cache / "passes" / "abc" / "u0.raw"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"f" * 100)
    past = time.time() - 3 * 86400
    os.utime(stale, (past, past))
    for p in (raw[0], compact[0]):
        os.utime(p, (past, past))
        os.utime(sidecar_path(p), (past, past))
    assert cache_stats(cache)["clips"] == 3
    assert main(["clips", "prune", "--cache", str(cache), "--older-than", "2d"]) == 0
    assert "removed 2 entries, 1 temporary files" in capsys.readouterr().out
    assert not raw[0].exists() and not compact[0].exists() and raw[1].exists() and not stale.exists()
