"""The leaderboard service's pieces through the installed ``streamgaze`` script, quick (issue 31; the whole
loop through the Hub stand-in is tests/e2e/test_leaderboard_hub.py): hostile files refused before any long
work or upload, the time bound, the Space folder, and the old ``leaderboard FILE ...`` usage beside the new
sub-verbs."""

from __future__ import annotations

import json

import pytest

from perf.shared.synthetic import synthetic_submission
from streamgaze_hf.util.errors import StreamGazeError

from ..fixtures.cli_entry import one_error_line, streamgaze


def test_hostile_files_are_refused_before_parsing_or_upload(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    line = one_error_line(streamgaze("validate", deep, tmp=tmp_path))
    assert line == f"streamgaze validate: error: {deep}: nested 50000 levels deep: at most 32 (checked before parsing)"
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(40 * 1024 * 1024)
    # the requests dataset is never contacted (offline: any request would fail with another message)
    line = one_error_line(streamgaze("push-submission", big, "--requests", "org/requests", tmp=tmp_path))
    assert line == (f"streamgaze push-submission: error: {big}: 41,943,040 bytes: a submission may have at most 33,554,432 bytes "
                    "(checked before it is read)")


def test_rescoring_is_time_bound(demo_dataset, tmp_path):
    from streamgaze_hf.leaderboard.service.bounded import rescore_bounded
    from streamgaze_hf.submission.answer_key import load_answer_key

    sub = synthetic_submission(load_answer_key(demo_dataset), tmp_path / "s.json", "S", 0.5)
    assert rescore_bounded(sub, demo_dataset, timeout_s=60).scores["coverage"]["fraction"] == 1.0
    with pytest.raises(StreamGazeError, match=r"re-scoring took longer than 0\.001 s: stopped"):
        rescore_bounded(sub, demo_dataset, timeout_s=0.001)
    bad = json.loads(sub.read_text())
    bad["scores"]["overall"] = 1.0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(StreamGazeError, match="reported score scores.overall = 1.0 differs") as err:
        rescore_bounded(tmp_path / "bad.json", demo_dataset)
    assert err.value.path == str(tmp_path / "bad.json")


def test_space_folder(tmp_path):
    out = tmp_path / "space"
    proc = streamgaze("leaderboard", "space", "--out", out, "--results", "org/results", "--requests", "org/requests",
                      "--dataset", "hf://datasets/org/sg@v1.0.0", tmp=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == str(out), proc.stderr[-2000:]
    from streamgaze_hf import __version__

    wheel = f"streamgaze_toolkit-{__version__}-py3-none-any.whl"  # the toolkit is on no index: the Space carries it
    assert sorted(p.name for p in out.iterdir()) == ["Dockerfile", "README.md", "app.py", "requirements.txt", wheel]
    assert (out / "requirements.txt").read_text().splitlines()[-1] == f"./{wheel}[leaderboard]"
    readme = (out / "README.md").read_text()
    assert readme.startswith("---\ntitle: Gaze benchmarks leaderboard\n") and "sdk: docker\napp_port: 7860\n" in readme
    assert "app_file: app.py\n" in readme
    app = (out / "app.py").read_text()
    assert 'os.environ.get("RESULTS", "org/results")' in app and "hf://datasets/org/sg@v1.0.0" in app
    compile(app, "app.py", "exec")
    line = one_error_line(streamgaze("leaderboard", "space", "--out", out, tmp=tmp_path))
    assert line == f"streamgaze leaderboard space: error: {out}: exists and is not empty: the Space folder goes into a new or empty directory"


def test_old_leaderboard_usage_and_sub_verbs_coexist(tmp_path):
    # `leaderboard FILE ...` is still the static site's command: a missing file is its own error
    line = one_error_line(streamgaze("leaderboard", tmp_path / "none.json", "--out", tmp_path / "site", tmp=tmp_path))
    assert "none.json" in line and "submission file" in line
    proc = streamgaze("leaderboard", "sync", "--help", tmp=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: streamgaze leaderboard sync")
