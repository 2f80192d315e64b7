"""One style for argument errors on every verb (issue 38.3): the verb's usage on one line, then one error line
``streamgaze VERB: error: ...``, exit 2. A bad choice names the choices and the closest one; lmms-eval's
arguments given to ``eval`` without ``--`` get the hint; an error raised while a verb runs has the same form."""

from __future__ import annotations

import argparse

import pytest

from streamgaze_hf.cli import build_parser, main

from ..fixtures.cli_entry import streamgaze

SOURCES = ("world, egtea, egoexolearn, holoassist, ego4d, egoexo4d_2d, aria_mps, neon, pupil_cloud, pupil_core, "
           "tobii_g3, tobii_g2, bids")
BUILD_USAGE = "usage: streamgaze build streamgaze --raw RAW --out OUT --version VERSION [options]"

#: verb -> (arguments with a bad choice, or an unknown option where the verb has no choice; the error's reason)
BAD = {
    "": (["evl"], "COMMAND: 'evl' is not one of world, overlay, gaze, build, import, stats, doctor, export-bids, review, "
                  "tasks-dir, "
                  "eval, report, stream-eval, export-sft, submit, push-submission, validate, compare, leaderboard, "
                  "leaderboard init, leaderboard sync, leaderboard flag, leaderboard unflag, leaderboard serve, "
                  "leaderboard space, import-official-results, request-eval, leaderboard run-request, clips, publish; "
                  "did you mean eval?"),
    "world": (["--out", "w", "--videos", "three"], "--videos: invalid int value: 'three'"),
    "overlay": (["v.mp4", "g.csv", "--out", "o.mp4", "--hfov", "wide"], "--hfov: invalid float value: 'wide'"),
    "gaze": (["x", "--out", "y", "--source", "pupilcloud"],
             f"--source: 'pupilcloud' is not one of {SOURCES}; did you mean pupil_cloud?"),
    "build": (["streamgaz"], "BENCH: 'streamgaz' is not one of streamgaze, egogazevqa, vl4gaze; did you mean streamgaze?"),
    "build streamgaze": (["--source", "pupil-cloud"], f"--source: 'pupil-cloud' is not one of {SOURCES}; did you mean "
                                                     "pupil_cloud?"),
    "build egogazevqa": (["--source", "Neon"], f"--source: 'Neon' is not one of {SOURCES}; did you mean neon?"),
    "build vl4gaze": (["--synthetic", "2", "--out", "o", "--version", "1.0.0", "--nosuch"], "unrecognized arguments: --nosuch"),
    "import": (["egogaze"], "BENCH: 'egogaze' is not one of streamgaze, egogazevqa, streameqa; did you mean egogazevqa?"),
    "import streamgaze": (["src", "--out", "o", "--version", "1.0.0", "--nosuch"], "unrecognized arguments: --nosuch"),
    "import egogazevqa": (["src", "--out", "o", "--version", "1.0.0", "--nosuch"], "unrecognized arguments: --nosuch"),
    "import streameqa": (["src", "--out", "o", "--version", "1.0.0", "--nosuch"], "unrecognized arguments: --nosuch"),
    "stats": (["--nosuch"], "unrecognized arguments: --nosuch"),
    "doctor": (["--nosuch"], "unrecognized arguments: --nosuch"),
    "export-bids": (["src", "--out", "o", "--source", "tobii-g2"],
                    f"--source: 'tobii-g2' is not one of {SOURCES}; did you mean tobii_g2?"),
    "review": (["exprt"], "{export,import}: 'exprt' is not one of export, import; did you mean export?"),
    "review export": (["root", "--out", "o", "--nosuch"], "unrecognized arguments: --nosuch"),
    "review import": (["x.csv", "--benchmark", "egogaze"],
                      "--benchmark: 'egogaze' is not one of streamgaze, egogazevqa; did you mean egogazevqa?"),
    "tasks-dir": (["--nosuch"], "unrecognized arguments: --nosuch"),
    "eval": (["--prompt-mode", "referenc"], "--prompt-mode: 'referenc' is not one of default, reference; did you mean "
                                            "reference?"),
    "report": (["egogazevq", "run"], "BENCH: 'egogazevq' is not one of egogazevqa, streameqa; did you mean egogazevqa?"),
    "report egogazevqa": (["run", "--nosuch"], "unrecognized arguments: --nosuch"),
    "report streameqa": (["run", "--nosuch"], "unrecognized arguments: --nosuch"),
    "stream-eval": (["--out", "o", "--gaze", "overlay"], "--gaze: 'overlay' is not one of visual, none, text, salience"),
    "export-sft": (["--out", "o", "--format", "lava"], "--format: 'lava' is not one of llava, qwen; did you mean llava?"),
    "submit": (["run", "--model-name", "m", "--out", "s.json", "--benchmark", "StreamGaze"],
               "--benchmark: 'StreamGaze' is not one of streamgaze, egogazevqa, streameqa, vl4gaze; did you mean "
               "streamgaze?"),
    "push-submission": (["s.json", "--requests", "o/r", "--nosuch"], "unrecognized arguments: --nosuch"),
    "import-official-results": (["r", "--model-name", "m", "--out", "s.json", "--gaze", "txt"],
                                "--gaze: 'txt' is not one of visual, none, text, salience; did you mean text?"),
    "validate": (["s.json", "--nosuch"], "unrecognized arguments: --nosuch"),
    "compare": (["a.json", "b.json", "--level", "high"], "--level: invalid float value: 'high'"),
    "leaderboard": (["s.json", "--out", "site", "--nosuch"], "unrecognized arguments: --nosuch"),
    "leaderboard sync": (["--requests", "o/r", "--results", "o/s", "--dataset", "d", "--timeout", "soon"],
                         "--timeout: invalid float value: 'soon'"),
    "leaderboard serve": (["--port", "http"], "--port: invalid int value: 'http'"),
    "leaderboard space": (["--out", "s", "--nosuch"], "unrecognized arguments: --nosuch"),
    "leaderboard init": (["--requests", "o/r", "--results", "o/s", "--nosuch"], "unrecognized arguments: --nosuch"),
    "leaderboard flag": (["12", "--results", "o/s", "--reason", "r", "--discussion", "u", "--nosuch"],
                         "unrecognized arguments: --nosuch"),
    "leaderboard unflag": (["12", "--results", "o/s", "--nosuch"], "unrecognized arguments: --nosuch"),
    "leaderboard run-request": (["--requests", "o/r", "--request", "p", "--commit", "c", "--pr", "one", "--out", "o"],
                                "--pr: invalid int value: 'one'"),
    "request-eval": (["o/m", "--revision", "main", "--lmms-model", "m", "--requests", "o/r", "--dataset", "d",
                      "--nosuch"], "unrecognized arguments: --nosuch"),
    "clips": (["warn"], "{warm,stats,prune}: 'warn' is not one of warm, stats, prune; did you mean warm?"),
    "clips warm": (["--workers", "many"], "--workers: invalid int value: 'many'"),
    "clips stats": (["--nosuch"], "unrecognized arguments: --nosuch"),
    "clips prune": (["--nosuch"], "unrecognized arguments: --nosuch"),
    "publish": (["root", "--repo", "o/d", "--nosuch"], "unrecognized arguments: --nosuch"),
}


def _verbs(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """Every verb the parser takes (nested ones too), but the hidden ones that only refuse."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            shown = {a.dest for a in action._choices_actions}
            for name, child in action.choices.items():
                if name in shown:
                    out += [f"{prefix}{name}", *_verbs(child, f"{prefix}{name} ")]
    return out


def _two_lines(err: str) -> tuple[str, str]:
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    return lines[0], lines[1]


def test_every_verb_answers_a_bad_argument_with_its_usage_line_and_one_error_line(capsys):
    assert sorted(BAD) == sorted(["", *_verbs(build_parser())])  # every verb is walked
    for verb, (args, reason) in BAD.items():
        with pytest.raises(SystemExit) as exc:
            main([*verb.split(), *args])
        usage, error = _two_lines(capsys.readouterr().err)
        prog = f"streamgaze {verb}".strip()
        assert exc.value.code == 2, verb
        assert usage.startswith(f"usage: {prog} ") and len(usage) < 160, (verb, usage)
        assert error == f"{prog}: error: {reason}", verb


def test_an_error_while_a_verb_runs_has_the_same_two_lines(tmp_path, capsys):
    rc = main(["build", "streamgaze", "--raw", str(tmp_path), "--out", str(tmp_path / "o"), "--version", "1.0"])
    assert rc == 2
    assert _two_lines(capsys.readouterr().err) == (
        BUILD_USAGE, "streamgaze build streamgaze: error: version '1.0' is not a semantic version X.Y.Z (e.g. 1.0.0)")


def test_the_console_script_prints_the_same(tmp_path):
    proc = streamgaze("build", "streamgaze", "--source", "pupil-cloud", tmp=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert _two_lines(proc.stderr) == (BUILD_USAGE, "streamgaze build streamgaze: error: --source: 'pupil-cloud' is "
                                                    f"not one of {SOURCES}; did you mean pupil_cloud?")
    proc = streamgaze("gaze", tmp_path, "--source", "pupilcloud", "--out", tmp_path / "g.csv", tmp=tmp_path)
    assert proc.returncode == 2
    assert _two_lines(proc.stderr) == ("usage: streamgaze gaze --out OUT [options] path",
                                       f"streamgaze gaze: error: --source: 'pupilcloud' is not one of {SOURCES}; did "
                                       "you mean pupil_cloud?")
    # lmms-eval's arguments without `--`: the hint, before anything is read or started
    proc = streamgaze("eval", "--root", tmp_path / "nowhere", "--model", "x", tmp=tmp_path)
    assert proc.returncode == 2
    assert _two_lines(proc.stderr) == (
        "usage: streamgaze eval [options] [BENCH] [-- ARGS]",
        "streamgaze eval: error: unrecognized arguments: --model; lmms-eval's arguments go after --: streamgaze eval "
        "[BENCH] [--dataset ROOT] -- --model MODEL --tasks TASKS")


def test_gaze_help_names_every_source_that_takes_a_directory(tmp_path):
    proc = streamgaze("gaze", "--help", tmp=tmp_path)
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert ("the recording's gaze file in its native format, or its recording directory (world, holoassist, neon, "
            "pupil_cloud, pupil_core, tobii_g3, tobii_g2, bids)") in text
