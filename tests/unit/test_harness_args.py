"""What ``streamgaze eval`` hands lmms-eval: ``--tasks`` read once, names kept names."""

from __future__ import annotations

from streamgaze_hf.harness.checks import requested_tasks, tasks_arg
from streamgaze_hf.harness.run import names_not_folders


def test_tasks_are_read_in_both_spellings():
    assert tasks_arg(["--model", "m", "--tasks", "a, b,,c"]) == (3, ["a", "b", "c"])
    assert tasks_arg(["--tasks=a"]) == (0, ["a"])
    assert requested_tasks(["--model", "m"]) == [] and tasks_arg(["--tasks"]) is None


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
