"""What ``streamgaze eval`` hands lmms-eval: its arguments read once, as lmms-eval's argparse reads them
(``streamgaze_hf/harness/lmms_args.py``), names kept names."""

from __future__ import annotations

import pytest

from streamgaze_hf.harness.lmms_args import parse_lmms_args
from streamgaze_hf.harness.run import names_not_folders
from streamgaze_hf.util.errors import StreamGazeError


def test_tasks_are_read_in_both_spellings():
    assert parse_lmms_args(["--model", "m", "--tasks", "a, b,,c"]).tasks == ("a", "b", "c")
    assert parse_lmms_args(["--tasks=a"]).tasks == ("a",)
    assert parse_lmms_args(["--model", "m"]).tasks == ()
    with pytest.raises(StreamGazeError, match="expected one argument"):
        parse_lmms_args(["--tasks"])


def test_the_last_option_given_wins_as_in_lmms_eval():
    """lmms-eval's argparse keeps the last value of an option given twice, in either spelling."""
    a = parse_lmms_args(["--model", "a", "--tasks", "x", "--model=b", "--limit", "3", "--tasks=y,z", "--limit=0.5"])
    assert (a.model, a.tasks, a.limit) == ("b", ("y", "z"), 0.5)
    assert parse_lmms_args(["--model=a", "--model", "b"]).model == "b"


def test_every_option_the_toolkit_reads():
    a = parse_lmms_args(["eval", "--model", "qwen2_5_vl", "--model_args", "pretrained=p,fps=1", "--force_simple",
                         "--include_path", "/t", "--output_path=/o", "--gen_kwargs", "max_new_tokens=8",
                         "--batch_size", "1", "--log_samples", "--limit", "x"])
    assert (a.model, a.model_args, a.force_simple, a.include_path, a.output_path, a.gen_kwargs, a.limit) == (
        "qwen2_5_vl", "pretrained=p,fps=1", True, "/t", "/o", "max_new_tokens=8", None)
    assert a.argv[0] == "eval"  # lmms-eval's sub-command, read past, kept
    # a unique abbreviation stands for the option, as in argparse
    assert parse_lmms_args(["--model_a", "k=v"]).model_args == "k=v"
    assert not parse_lmms_args(["--model", "m"]).force_simple


def test_tasks_are_rewritten_in_their_own_spelling():
    a = parse_lmms_args(["--tasks", "a", "--model", "m", "--tasks", "b,c"])
    assert a.with_tasks(["d"]).argv == ("--tasks", "a", "--model", "m", "--tasks", "d")
    assert parse_lmms_args(["--tasks=b"]).with_tasks(["e", "f"]).argv == ("--tasks=e,f",)
    # the --tasks lmms-eval reads is an abbreviation after the spelt-out one: a new one is added after both
    b = parse_lmms_args(["--tasks", "a", "--task", "b"]).with_tasks(["c"])
    assert b.tasks == ("c",) and b.argv[-1] == "--tasks=c"
    assert parse_lmms_args(["--model", "m"]).with_option("--output_path", "/o").output_path == "/o"


def test_frames_are_made_for_the_model_lmms_eval_runs():
    """``--model a --model b``: lmms-eval runs b, so the frames are made for b (the plan's settings, the glue's)."""
    from streamgaze_hf.harness.plan import run_settings_for

    settings, wrapper = run_settings_for(["--model", "streamgaze_random", "--model", "qwen2_5_vl"])
    assert wrapper.model_id == "qwen2_5_vl" and '"wrapper": "qwen2_5_vl/chat"' in settings.model
    settings, wrapper = run_settings_for(["--model", "qwen2_5_vl", "--model=streamgaze_random"])
    assert wrapper.model_id == "streamgaze_random" and '"video": false' in settings.model


def test_a_task_name_that_is_also_a_folder_stays_a_name(tmp_path, monkeypatch):
    """lmms-eval takes `--tasks X` for a folder of YAMLs when ./X is a directory: `streamgaze eval -- --tasks
    streamgaze` beside the default dataset root ./streamgaze found no task. Ours are given as `X,X`."""
    monkeypatch.chdir(tmp_path)
    args = ["--model", "m", "--tasks", "streamgaze", "--limit", "2"]
    assert names_not_folders(args) == args  # no such folder here
    (tmp_path / "streamgaze").mkdir()
    (tmp_path / "mme").mkdir()
    assert names_not_folders(args) == ["--model", "m", "--tasks", "streamgaze,streamgaze", "--limit", "2"]
    assert names_not_folders(["--tasks=streamgaze"]) == ["--tasks=streamgaze,streamgaze"]
    assert names_not_folders(["--tasks", "mme"]) == ["--tasks", "mme"]  # not ours: lmms-eval's own reading
    assert names_not_folders(["--tasks", "streamgaze,streamgaze_nfi"]) == ["--tasks", "streamgaze,streamgaze_nfi"]
