"""``streamgaze eval`` checks lmms-eval's ``--model`` and the ``--tasks`` names before lmms-eval starts (issue 38.1),
through the installed console script: a typo is the verb's usage line and one error line with the closest names,
exit 2; a task of another benchmark names that benchmark and where its dataset is looked for. lmms-eval never
starts (it logs to stdout, and the output folder is never made)."""

from __future__ import annotations

from ..fixtures.cli_entry import one_error_line, streamgaze


def _checked_before_lmms_eval(proc, out) -> str:
    line = one_error_line(proc)
    assert proc.stdout == "" and not out.exists(), proc.stdout[-2000:]
    return line


def test_a_model_name_typo_is_one_line_with_the_closest_names(demo_dataset, tmp_path):
    out = tmp_path / "run"
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_randm", "--tasks",
                      "streamgaze_oi_easy", "--output_path", out, tmp=tmp_path)
    assert _checked_before_lmms_eval(proc, out) == (
        "streamgaze eval: error: --model: 'streamgaze_randm' is not a model lmms-eval knows (133 names in its registry "
        "and installed entry points; `lmms-eval models` lists them); did you mean streamgaze_random or "
        "streamgaze_oracle or streamgaze_llava_hf?")
    # an alias of lmms-eval's registry and a model of an installed entry point pass the check (no dataset here:
    # the next error is the missing dataset's, not the model's)
    for model in ("openai_compatible", "streamgaze_oracle"):
        proc = streamgaze("eval", "--root", tmp_path / "nowhere", "--", f"--model={model}", "--tasks",
                          "streamgaze_oi_easy", tmp=tmp_path)
        assert "no dataset here" in one_error_line(proc)


def test_a_task_name_typo_names_the_closest_tasks(demo_dataset, tmp_path):
    out = tmp_path / "run"
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--tasks",
                      "streamgaze_oi_eazy,streamgaze_nfi", "--output_path", out, tmp=tmp_path)
    assert _checked_before_lmms_eval(proc, out) == (
        "streamgaze eval: error: unknown task 'streamgaze_oi_eazy': no task or group of that name (`streamgaze "
        "tasks-dir` prints the folder of our task YAMLs); did you mean streamgaze_oi_easy or streamgaze_oar or "
        "streamgaze_oaa?")


def test_a_task_of_another_benchmark_names_it_and_where_its_dataset_is_looked_for(demo_dataset, tmp_path):
    out = tmp_path / "run"
    env = {"EGOGAZEVQA_ROOT": ""}
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--tasks", "egogazevqa",
                      "--output_path", out, tmp=tmp_path, env=env, cwd=tmp_path)
    assert _checked_before_lmms_eval(proc, out) == (
        f"streamgaze eval: error: task 'egogazevqa' is a task of egogazevqa, not of streamgaze (the benchmark of "
        f"--dataset {demo_dataset}); egogazevqa's dataset is looked for at $EGOGAZEVQA_ROOT (unset), else "
        "./egogazevqa, which holds no dataset: run it as `streamgaze eval egogazevqa --dataset ROOT -- ... --tasks "
        "egogazevqa`")
    proc = streamgaze("eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--tasks",
                      "streamgaze_oi_easy,vl4gaze_gpl", tmp=tmp_path, env={"VL4GAZE_ROOT": str(tmp_path)},
                      cwd=tmp_path)
    assert one_error_line(proc) == (
        f"streamgaze eval: error: task 'vl4gaze_gpl' is a task of vl4gaze, not of streamgaze (the benchmark "
        f"of --dataset {demo_dataset}); vl4gaze's dataset is looked for at $VL4GAZE_ROOT ({tmp_path}), which holds "
        "no dataset: run it as `streamgaze eval vl4gaze --dataset ROOT -- ... --tasks vl4gaze_gpl`")
    # no dataset given: the benchmark every task belongs to is the run's, and its dataset is looked for
    proc = streamgaze("eval", "--", "--model", "streamgaze_random", "--tasks", "egogazevqa", tmp=tmp_path, env=env,
                      cwd=tmp_path)
    assert one_error_line(proc) == (
        f"streamgaze eval: error: {tmp_path / 'egogazevqa'}: no dataset here: looked at ./egogazevqa (no "
        "root given and $EGOGAZEVQA_ROOT unset), which does not exist; build one with `streamgaze build BENCH --raw "
        f"RAW_DIR --out {tmp_path / 'egogazevqa'} --version X.Y.Z` or `streamgaze import BENCH RELEASE_DIR --out "
        f"{tmp_path / 'egogazevqa'} --version X.Y.Z`")
