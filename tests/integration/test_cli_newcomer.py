"""What a newcomer trips over (issue 12): exit codes and one-line messages, arguments checked before
any work starts, a closed stdout, `--version`, the gaze export of a recording directory, progress
bars in logs, and the toolkit's own version fields."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from streamgaze_hf import __version__
from streamgaze_hf.cli import main
from streamgaze_hf.cli.termio import SIGPIPE_STATUS, LogLines

from ..fixtures.cli_entry import usage_and_error

REPO = Path(__file__).resolve().parents[2]


def cli(capsys, *args) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def one_error(err: str) -> str:
    """The stderr of a failed command: the verb's usage line and one error line (the README's format)."""
    assert "Traceback" not in err
    return usage_and_error(err)


@pytest.fixture()
def no_work(monkeypatch):
    """Every step that does work in build / import-release fails the test if it is reached."""
    from streamgaze_hf.benchmarks.streamgaze import build, release

    calls = []

    def forbidden(name):
        def fail(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} ran before the arguments were checked")
        return fail

    monkeypatch.setattr(build, "find_recordings", forbidden("find_recordings"))
    monkeypatch.setattr(build, "process_recording", forbidden("process_recording"))
    monkeypatch.setattr(release, "read_release_questions", forbidden("read_release_questions"))
    monkeypatch.setattr(release, "read_metadata_dir", forbidden("read_metadata_dir"))
    return calls


@pytest.fixture()
def raw_dir(tmp_path) -> Path:
    """A raw directory whose recordings would be found (nothing in it may be read)."""
    raw = tmp_path / "raw"
    (raw / "rec0").mkdir(parents=True)
    (raw / "rec0" / "video.mp4").write_bytes(b"not read")
    (raw / "rec0" / "gaze.csv").write_text("t,x,y,valid\n")
    return raw


# ---- 1. every argument checked before any work -----------------------------------------------------

BUILD_CASES = {
    "version": (["--version", "1.0"], "version '1.0' is not a semantic version X.Y.Z"),
    "workers": (["--version", "1.0.0", "--workers", "0"], "--workers must be a positive integer, got 0"),
    "hfov": (["--version", "1.0.0", "--hfov", "200"], "--hfov (degrees) must be in (0, 180), got 200"),
    "metadata": (["--version", "1.0.0", "--source", "egtea", "--objects", "metadata", "--metadata", "MISSING"],
                 "MISSING: metadata CSV not found"),
    "vlm": (["--version", "1.0.0", "--source", "egtea", "--objects", "vlm", "--vlm-model", "m"],
            "the vlm object back-end needs --vlm-url and --vlm-model"),
    "vlm-url": (["--version", "1.0.0", "--source", "egtea", "--objects", "vlm", "--vlm-url", "ftp://x",
                 "--vlm-model", "m"], "--vlm-url must be an http(s) URL, got 'ftp://x'"),
    "oracle": (["--version", "1.0.0", "--source", "egtea", "--objects", "oracle"],
               "the oracle object back-end reads the demo world's objects.json"),
}


@pytest.mark.parametrize("case", sorted(BUILD_CASES))
def test_build_checks_every_argument_before_any_work(case, raw_dir, tmp_path, capsys, no_work):
    args, message = BUILD_CASES[case]
    if case == "metadata":
        message = message.replace("MISSING", str(tmp_path / "missing.csv"))
        args = [a.replace("MISSING", str(tmp_path / "missing.csv")) for a in args]
    out = tmp_path / "streamgaze"
    start = time.perf_counter()
    rc, printed, err = cli(capsys, "build", "streamgaze", "--raw", raw_dir, "--out", out, *args)
    assert rc == 2 and printed == ""
    assert message in one_error(err)
    assert no_work == [] and time.perf_counter() - start < 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw"]  # no dataset, no work directory


def test_build_refuses_an_existing_version_and_a_missing_raw_dir_before_work(raw_dir, tmp_path, capsys, no_work):
    out = tmp_path / "streamgaze"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"version": "1.0.0"}))
    rc, _, err = cli(capsys, "build", "streamgaze", "--raw", raw_dir, "--out", out, "--version", "1.0.0")
    assert rc == 2 and "dataset version 1.0.0 already exists" in one_error(err)
    rc, _, err = cli(capsys, "build", "--raw", tmp_path / "nowhere", "--out", tmp_path / "new", "--version", "1.0.0")
    assert rc == 2 and one_error(err) == (f"streamgaze build streamgaze: error: {tmp_path / 'nowhere'}: raw directory "
                                          "(--source world) not found")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep")
    rc, _, err = cli(capsys, "build", "streamgaze", "--raw", raw_dir, "--out", precious, "--version", "1.0.0")
    assert rc == 2 and "is not a dataset of this toolkit" in one_error(err)
    assert no_work == [] and (precious / "thesis.tex").read_text() == "keep"


def test_import_release_checks_version_and_output_before_reading(tmp_path, capsys, no_work):
    release = tmp_path / "release"
    (release / "qa").mkdir(parents=True)
    rc, printed, err = cli(capsys, "import", "streamgaze", release, "--out", tmp_path / "ds", "--version", "1.0")
    assert rc == 2 and printed == ""
    assert "version '1.0' is not a semantic version X.Y.Z" in one_error(err)
    (tmp_path / "file").write_text("x")
    rc, _, err = cli(capsys, "import", "streamgaze", release, "--out", tmp_path / "file", "--version", "1.0.0")
    assert rc == 2 and "exists and is not a directory" in one_error(err)
    rc, _, err = cli(capsys, "import", "streamgaze", tmp_path / "nowhere", "--out", tmp_path / "ds", "--version", "1.0.0")
    assert rc == 2 and one_error(err) == (f"streamgaze import streamgaze: error: {tmp_path / 'nowhere'}: release "
                                          "directory not found")
    assert no_work == [] and not (tmp_path / "ds").exists()


def test_other_commands_check_their_arguments_first(tmp_path, capsys):
    video, gaze = tmp_path / "v.mp4", tmp_path / "g.csv"
    rc, _, err = cli(capsys, "overlay", video, gaze, "--out", tmp_path / "o.mp4")
    assert rc == 2 and one_error(err) == f"streamgaze overlay: error: {video}: video not found"
    video.write_bytes(b"x")
    gaze.write_text("t,x,y,valid\n")
    rc, _, err = cli(capsys, "overlay", video, gaze, "--out", tmp_path / "o.mp4", "--hfov", "0")
    assert rc == 2 and "--hfov (degrees) must be in (0, 180), got 0" in one_error(err)
    rc, _, err = cli(capsys, "overlay", video, gaze, "--out", tmp_path)
    assert rc == 2 and "is a directory: --out is the file to write" in one_error(err)
    rc, _, err = cli(capsys, "submit", tmp_path / "no_run", "--model-name", "M", "--out", tmp_path / "s.json")
    assert rc == 2 and one_error(err) == (f"streamgaze submit: error: {tmp_path / 'no_run'}: lmms-eval output "
                                          "directory not found")
    rc, _, err = cli(capsys, "submit", tmp_path, "--model-name", "M", "--out", tmp_path)
    assert rc == 2 and "is a directory: --out is the file to write" in one_error(err)
    first = tmp_path / "first.json"
    first.write_text("{}")
    rc, _, err = cli(capsys, "leaderboard", first, tmp_path / "second.json", "--out", tmp_path / "site")
    assert rc == 2 and one_error(err) == (f"streamgaze leaderboard: error: {tmp_path / 'second.json'}: submission "
                                          "file not found")
    assert not (tmp_path / "site").exists()


def test_eval_checks_clip_fps_before_starting(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("STREAMGAZE_CLIP_FPS", raising=False)
    rc, _, err = cli(capsys, "eval", "--clip-fps", "-2", "--", "--tasks", "streamgaze")
    assert rc == 2 and "--clip-fps must be a positive number, got -2" in one_error(err)
    assert "STREAMGAZE_CLIP_FPS" not in os.environ


# ---- 2. eval without the [eval] extra ---------------------------------------------------------------

def test_eval_without_lmms_eval_names_the_extra():
    code = ("import sys; sys.modules['lmms_eval'] = None; from streamgaze_hf.cli import main; "
            "sys.exit(main(['eval', '--', '--model', 'streamgaze_random', '--tasks', 'streamgaze']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert one_error(proc.stderr) == ("streamgaze eval: error: streamgaze eval needs lmms_eval, which is not installed: "
                                      "install the [eval] extra: pip install -e '.[eval]' (or: make setup)")


# ---- 3. gaze: a recording directory, --source defaulting as in build -------------------------------

@pytest.fixture(scope="module")
def tiny_recording(tmp_path_factory) -> Path:
    from streamgaze_hf.demo.world import generate_world

    return generate_world(tmp_path_factory.mktemp("tiny_world"), n_videos=1, seed=3, duration=15.0, width=96,
                          height=72, fps=4.0, progress=False)[0]


def test_gaze_accepts_a_recording_directory_with_the_default_source(tiny_recording, tmp_path, capsys):
    by_dir, by_file = tmp_path / "by_dir.csv", tmp_path / "by_file.csv"
    rc, printed, err = cli(capsys, "gaze", tiny_recording, "--out", by_dir)
    assert rc == 0, err
    assert printed.strip() == str(by_dir)
    rc, _, err = cli(capsys, "gaze", tiny_recording / "gaze.csv", "--source", "world", "--out", by_file)
    assert rc == 0, err
    text = by_dir.read_text()
    assert text == by_file.read_text()
    assert text.splitlines()[0] == "t,x,y,valid,in_frame"
    n_samples = len((tiny_recording / "gaze.csv").read_text().strip().splitlines()) - 1
    assert len(text.strip().splitlines()) - 1 == n_samples > 0


def test_gaze_directory_without_gaze_csv_is_one_clear_error(tmp_path, capsys):
    empty = tmp_path / "not_a_recording"
    empty.mkdir()
    rc, _, err = cli(capsys, "gaze", empty, "--out", tmp_path / "g.csv")
    assert rc == 2
    assert one_error(err).startswith(f"streamgaze gaze: error: {empty}: not a recording directory: no gaze.csv")
    rc, _, err = cli(capsys, "gaze", empty, "--source", "nosuch", "--out", tmp_path / "g.csv")
    assert rc == 2 and one_error(err) == ("streamgaze gaze: error: --source: 'nosuch' is not one of world, "
                                          "egtea, egoexolearn, holoassist, ego4d, egoexo4d_2d, aria_mps, neon, "
                                          "pupil_cloud, pupil_core, tobii_g3, tobii_g2, bids")


# ---- 4. a closed stdout, --version ----------------------------------------------------------------------

def _run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`head`) has already gone
    try:
        return subprocess.run([sys.executable, "-m", "streamgaze_hf", *args], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=REPO)
    finally:
        os.close(write_end)


def test_closed_stdout_ends_quietly(tmp_path):
    from ..fixtures.dataset_content import build, make_content

    root = build(tmp_path / "streamgaze", make_content(tmp_path))
    proc = _run_into_closed_pipe(["stats", str(root)])
    assert proc.returncode == SIGPIPE_STATUS
    assert proc.stderr == ""
    proc = _run_into_closed_pipe(["--version"])
    assert (proc.returncode, proc.stderr) == (SIGPIPE_STATUS, "")


def test_closed_stdout_through_head(tmp_path):
    """The issue's own command line, `streamgaze stats ROOT | head` (with pipefail: 141), with the reader gone
    before the command writes: ``head`` reads nothing and the pipe's read end is closed before ``stats`` starts
    (it waits for the mark), so its first write always meets the closed pipe: status 141, nothing on stderr."""
    from ..fixtures.dataset_content import build, make_content

    root = build(tmp_path / "streamgaze", make_content(tmp_path))
    closed, err = tmp_path / "closed", tmp_path / "err"
    script = (f"set -o pipefail; {{ until [ -e {closed} ]; do sleep 0.01; done; "
              f"{sys.executable} -m streamgaze_hf stats {root} 2>{err}; }} "
              f"| (head -c 0 >/dev/null; exec 0<&-; touch {closed}); echo rc=$?")
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert err.read_text() == ""
    assert proc.stdout.strip() == f"rc={SIGPIPE_STATUS}"


def test_version_names_the_toolkit_and_its_commit(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"streamgaze-toolkit {__version__}")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True)
    if head.returncode == 0:  # a clone: the commit is named
        assert f"(commit {head.stdout.strip()}" in out


# ---- 9. progress bars in logs ----------------------------------------------------------------------

def test_progress_redraws_collapse_to_their_final_line():
    import io

    from tqdm import tqdm

    target = io.StringIO()
    log = LogLines(target)
    print("starting", file=log)
    with tqdm(total=40, desc="build", unit="video", file=log, mininterval=0, ascii=True) as bar:
        bar.start_t -= 12  # as if it had run for 12 s
        bar.update(40)
    for _ in tqdm(range(5), desc="transient", file=log, mininterval=0, leave=False):
        pass
    for _ in tqdm(range(24), desc="quick", file=log, mininterval=0):  # done within a second: no line
        pass
    log.write("partial line\rfinal state")
    log.finish()
    lines = target.getvalue().splitlines()
    assert "\r" not in target.getvalue()
    assert lines[0] == "starting" and lines[-1] == "final state" and len(lines) == 3
    assert lines[1].startswith("build: 100%|##########| 40/40 [00:12<00:00")


def test_cli_progress_in_a_log_file_has_no_carriage_returns(tmp_path):
    log = tmp_path / "world.log"
    with log.open("w") as fh:
        proc = subprocess.run([sys.executable, "-m", "streamgaze_hf", "world", "--out", str(tmp_path / "w"),
                               "--videos", "1", "--duration", "15", "--width", "96", "--height", "72", "--fps", "4"],
                              stdout=subprocess.PIPE, stderr=fh, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0
    text = log.read_text()
    assert "\r" not in text
    lines = text.splitlines()
    # one bar, in its final state (15 s at 4 fps = 60 frames), or none when it took under a second
    assert len(lines) <= 1 and all("100%" in ln and "60/60 [" in ln for ln in lines), text
