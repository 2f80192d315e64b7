"""The lmms-eval task files are generated from the one task table and committed in sync."""

from pathlib import Path

import yaml

from streamgaze_hf.benchmarks.streamgaze.evaluation import GAZE_VARIANTS
from streamgaze_hf.benchmarks.streamgaze.tasks import TASKS
from streamgaze_hf.cli import main
from streamgaze_hf.harness.task_files import committed_tasks_dir, render_task_files
from streamgaze_hf.registry import get_benchmark, task_index

TASKS_DIR = committed_tasks_dir()


def test_committed_task_files_match_the_task_table():
    files = render_task_files()
    for rel, text in files.items():
        assert (TASKS_DIR / rel).read_text() == text, f"{rel} is stale: run build_scripts/generate_lmms_tasks.py"
    on_disk = {str(p.relative_to(TASKS_DIR)) for p in TASKS_DIR.rglob("*") if p.suffix in (".yaml", ".json", ".py")}
    assert on_disk == set(files)


def test_the_task_index_is_what_the_task_files_define():
    """One index of lmms task names (registry.task_index): every task and group the committed YAMLs
    define, each task's config and documents' variant, each group's members; nothing else."""
    import re

    index = task_index()
    defined, groups = set(), {}
    for path in TASKS_DIR.rglob("*.yaml"):
        cfg = yaml.load(path.read_text(), Loader=_Loader)
        if "group" in cfg:
            groups[cfg["group"]] = tuple(cfg["task"])
            defined.add(cfg["group"])
        elif "task" in cfg:
            defined.add(cfg["task"])
            task = index.lmms_task(cfg["task"])
            assert task.task_id == cfg["dataset_name"] and cfg["process_docs"] == f"glue.process_docs{task.suffix}"
    assert defined == index.names and groups == index.groups
    assert index.leaves("streamgaze_past") == ["streamgaze_nfi", "streamgaze_otp", "streamgaze_gsm", "streamgaze_sr"]
    assert index.selection(["streamgaze_past", "streamgaze_nfi_nogaze", "egogazevqa_gazev", "mme"]) == {
        "streamgaze": [("nfi", "visual"), ("otp", "visual"), ("gsm", "visual"), ("sr", "visual"), ("nfi", "none")],
        "egogazevqa": [("spatial", "visual"), ("temporal", "visual"), ("causal", "visual")]}
    direction = index.lmms_task("streameqa_planning_backward_ext_gazetext")
    assert (direction.task_id, direction.gaze, direction.slice, direction.suffix) == (
        "planning", "text", ("direction", "backward"), "_backward_ext_gazetext")
    assert index.benchmark_name("vl4gaze") == "vl4gaze" and index.benchmark_name("mme") is None
    assert not [n for n in index.names if not re.fullmatch(r"[a-z0-9_]+", n)]


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def test_every_task_and_variant_names_its_dataset_config_and_variant():
    base = Path(TASKS_DIR) / "streamgaze"
    for suffix, gaze in GAZE_VARIANTS.items():
        for spec in TASKS:
            name = f"{spec.lmms_name}{suffix}"
            cfg = yaml.load((base / f"{name}.yaml").read_text(), Loader=_Loader)
            assert cfg["task"] == name
            assert cfg["dataset_name"] == spec.id and "dataset_kwargs" not in cfg
            assert cfg["process_docs"] == f"glue.process_docs{suffix}"
            task = task_index().lmms_task(name)
            assert (task.benchmark, task.task_id, task.gaze, task.reasoning, task.slice) == (
                "streamgaze", spec.id, gaze, "", None)
            metrics = {m["metric"] for m in cfg["metric_list"]}
            assert metrics == ({"accuracy", "precision", "recall", "f1", "fpr", "fnr"} if spec.checkpointed
                               else {"accuracy"})
    group = yaml.load((base / "_group_streamgaze.yaml").read_text(), Loader=_Loader)
    assert group["task"] == [t.lmms_name for t in TASKS]
    assert group["aggregate_metric_list"] == [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": False}]


def test_tasks_dir_command(capsys):
    assert main(["tasks-dir"]) == 0
    assert capsys.readouterr().out.strip() == str(TASKS_DIR)


def test_egogazevqa_folder_is_generated_from_the_registry():
    from streamgaze_hf.registry import task_index

    bench = get_benchmark("egogazevqa")
    base = Path(TASKS_DIR) / "egogazevqa"
    names = []
    for suffix, gaze in bench.gaze_variants.items():
        for spec in bench.tasks:
            name = f"egogazevqa_{spec.id}{suffix}"
            names.append(name)
            cfg = yaml.load((base / f"{name}.yaml").read_text(), Loader=_Loader)
            assert cfg["task"] == name and cfg["include"] == "_egogazevqa_template.yaml"
            assert cfg["dataset_name"] == spec.id and "dataset_kwargs" not in cfg
            assert (task_index().lmms_task(name).task_id, task_index().lmms_task(name).gaze) == (spec.id, gaze)
            assert [m["metric"] for m in cfg["metric_list"]] == ["accuracy"]
        group = yaml.load((base / f"_group_egogazevqa{suffix}.yaml").read_text(), Loader=_Loader)
        assert group["task"] == [f"egogazevqa_{t}{suffix}" for t in ("spatial", "temporal", "causal")]
    assert len(names) == 12 and set(bench.gaze_variants) == {"", "_gazet", "_gazev", "_gazes"}
    template = yaml.load((base / "_egogazevqa_template.yaml").read_text(), Loader=_Loader)
    assert template["dataset_path"] == "egogazevqa" and "process_docs" not in template
    assert template["doc_to_text"] == "lmms_tasks.utils.doc_to_text"
    streamgaze = yaml.load((Path(TASKS_DIR) / "streamgaze" / "_streamgaze_template.yaml").read_text(), Loader=_Loader)
    assert streamgaze["dataset_path"] == "streamgaze"
    assert not list(Path(TASKS_DIR).rglob("*.json"))  # no placeholder files


def test_eval_skips_lmms_evals_own_task_index_only_for_our_tasks():
    """`streamgaze eval` tells lmms-eval not to index its ~3,400 built-in task YAMLs when every task
    asked for is ours (10-60 s of start-up); any other name keeps lmms-eval's defaults."""
    from streamgaze_hf.harness.run import only_our_tasks as _only_our_tasks

    names = task_index().names
    assert {"streamgaze", "streamgaze_oi_easy", "streamgaze_gta_salience", "streamgaze_past",
            "egogazevqa", "egogazevqa_spatial_gazev"} <= names
    assert "mme" not in names
    assert _only_our_tasks(["--model", "x", "--tasks", "streamgaze_oi_easy,streamgaze_gta"])
    assert _only_our_tasks(["--tasks=streamgaze,egogazevqa"])
    assert not _only_our_tasks(["--tasks", "streamgaze,mme"])
    assert not _only_our_tasks(["--tasks", "list"])
    assert not _only_our_tasks(["--model", "x"])


def test_glue_reads_the_named_config_and_derives_each_variants_documents(demo_dataset, monkeypatch):
    """A task's ``dataset_path`` (the benchmark's default root: the root chosen at run time, here
    $STREAMGAZE_ROOT; or a directory) and ``dataset_name`` are read through the toolkit's reader, and
    ``process_docs<suffix>`` (the folder's glue.py) derives that variant's documents from them (the benchmark's
    load_docs), handed the open dataset explicitly (TaskRows)."""
    from lmms_tasks import utils
    from streamgaze_hf.benchmarks.streamgaze.evaluation import load_docs
    from tests.fixtures.task_glue import folder_glue

    glue = folder_glue("streamgaze")
    monkeypatch.setenv("STREAMGAZE_ROOT", str(demo_dataset))
    # no clip prefetcher: one left running would fill the clip cache of whichever test comes next
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "0")
    rows = utils.read_task_rows("streamgaze", "oi_easy")
    root = rows.dataset.path
    assert root == demo_dataset.resolve() and utils.read_task_rows(str(demo_dataset), "oi_easy").dataset.path == root
    assert (rows.dataset.benchmark.name, rows.config) == ("streamgaze", "oi_easy")
    want = load_docs("oi_easy", "salience", root)
    docs = glue.process_docs_salience(rows)
    assert [(d["question_id"], d["gaze"]) for d in docs] == [(d["question_id"], "salience") for d in want]
    assert len(rows.rows) == len(want) > 0
    import dataclasses

    two = dataclasses.replace(rows, rows=rows.rows.select([0, 1]).flatten_indices())  # derived from the rows given
    assert [d["question_id"] for d in glue.process_docs_salience(two)] == [r["question_id"] for r in rows.rows][:2]
    reasoning = glue.process_docs_cot_visual(rows)
    assert {d["reasoning"] for d in reasoning} == {"visual"} and {d["gaze"] for d in reasoning} == {"visual"}


def test_doc_to_messages_gives_the_salience_map_the_clip_and_the_prompt_in_order(demo_dataset, monkeypatch):
    """Chat models get one user turn: the salience map (image), the window clip (video), the prompt
    (text: the same as doc_to_text's); simple models keep doc_to_visual (the same two visuals)."""
    from PIL import Image

    from lmms_tasks import utils
    from tests.fixtures.task_glue import folder_glue

    glue = folder_glue("streamgaze")
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "0")  # no prefetcher left running (see the test above)
    rows = utils.read_task_rows(str(demo_dataset), "oi_easy")
    doc = glue.process_docs_salience(rows)[0]
    kw = {"pre_prompt": "P: ", "post_prompt": " :Q"}
    (turn,) = utils.doc_to_messages(doc, kw)
    assert turn["role"] == "user" and [c["type"] for c in turn["content"]] == ["image", "video", "text"]
    image, video, text = turn["content"]
    assert isinstance(image["url"], Image.Image) and image["url"].size[0] > 0
    assert video["url"].endswith(".mp4") and Path(video["url"]).is_file()
    assert text["text"] == utils.doc_to_text(doc, kw) and text["text"].startswith("P: ") and text["text"].endswith(" :Q")
    visuals = utils.doc_to_visual(doc)
    assert isinstance(visuals[0], Image.Image) and visuals[1] == video["url"]
    plain = glue.process_docs(rows)[0]  # the main (visual) setting: the clip and the prompt only
    assert [c["type"] for c in utils.doc_to_messages(plain)[0]["content"]] == ["video", "text"]


def test_the_runs_task_files_hand_the_glue_its_dataset_and_settings(demo_dataset, tmp_path, monkeypatch):
    """``streamgaze eval``'s task folder (harness/run.py: run_task_folder) names the dataset its plan opened and
    its settings under the templates' ``metadata``; the glue's task loader reads them from the task config, with
    no state of the harness: the documents are those of that dataset with those settings, whatever the
    environment says."""
    import types

    import yaml

    from lmms_tasks import utils
    from streamgaze_hf.evaluation.settings import RunSettings
    from streamgaze_hf.harness.task_files import (
        RUN_METADATA,
        run_task_files,
        settings_metadata,
        write_task_files,
    )
    from tests.fixtures.task_glue import folder_glue

    chosen = RunSettings(prompt_mode="reference", clip_fps=2.0, prefetch=0)
    write_task_files(tmp_path / "tasks", run_task_files(str(demo_dataset), "streamgaze", settings_metadata(chosen)))

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)

    def metadata(bench):
        text = (tmp_path / "tasks" / bench / f"_{bench}_template.yaml").read_text()
        return yaml.load(text, Loader=Loader)["metadata"]

    meta = metadata("streamgaze")
    assert meta["version"] == 1.0 and meta[RUN_METADATA]["dataset"] == str(demo_dataset)
    assert "dataset" not in metadata("egogazevqa")[RUN_METADATA]  # another benchmark's: its own dataset
    monkeypatch.setenv("STREAMGAZE_ROOT", str(tmp_path / "nowhere"))  # the task files say which dataset
    monkeypatch.setenv("STREAMGAZE_PREFETCH", "0")
    config = types.SimpleNamespace(process_docs=folder_glue("streamgaze").process_docs, dataset_path="streamgaze",
                                   dataset_name="oi_easy", test_split="test", metadata=meta)
    task = types.SimpleNamespace(config=config)
    utils._download(lambda *a, **k: None)(task)
    docs = list(task.dataset["test"])
    assert docs and {(d["prompt_mode"], d["clip_fps"]) for d in docs} == {("reference", 2.0)}
    assert config.dataset_path == str(demo_dataset.resolve())
    assert utils.read_task_rows("streamgaze", "oi_easy", meta[RUN_METADATA]).settings == chosen
