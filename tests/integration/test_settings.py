"""Explicit run settings (issue 25 item 5): one frozen ``RunSettings`` read from the environment only by
``RunSettings.from_env`` (the edges call it), passed to the library, and recorded in every document and
sample record exactly as the environment-driven code recorded it."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
from pathlib import Path

import pytest

from streamgaze_hf.evaluation.settings import ENV_VARIABLES, RunSettings, env_variables, with_flags
from streamgaze_hf.registry import benchmarks
from streamgaze_hf.util.errors import StreamGazeError

PACKAGE_DIRS = [Path(__file__).resolve().parents[2] / d for d in ("streamgaze_hf", "lmms_tasks")]

# ---- parsing the environment ------------------------------------------------------------------------


def test_an_empty_environment_gives_the_defaults(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    s = RunSettings.from_env({})
    assert s == RunSettings()
    assert (s.prompt_mode, s.clip_fps, s.protocol, s.proxy, s.prefetch, s.prefetch_ahead) == \
        ("default", None, "default", "", 2, 0)
    assert (s.option("egogazevqa_visuals"), s.option("vl4gaze_judge_url"), s.option("vl4gaze_judge_key")) == \
        ("images", "", "")


def test_every_variable_is_read_with_its_meaning():
    env = {"STREAMGAZE_PROMPT_MODE": "reference", "STREAMGAZE_CLIP_FPS": " 1.5 ",
           "STREAMGAZE_PROTOCOL": " paper_qwen2_5_vl", "STREAMGAZE_PROXY": " auto ", "STREAMGAZE_PREFETCH": "0",
           "STREAMGAZE_PREFETCH_AHEAD": "16", "EGOGAZEVQA_VISUALS": "clip", "VL4GAZE_JUDGE_URL": "http://j/v1",
           "VL4GAZE_JUDGE_MODEL": "judge-7b", "VL4GAZE_JUDGE_KEY": "sk-secret", "UNRELATED": "x"}
    s = RunSettings.from_env(env)
    assert (s.prompt_mode, s.clip_fps, s.protocol, s.proxy, s.prefetch, s.prefetch_ahead) == \
        ("reference", 1.5, "paper_qwen2_5_vl", "auto", 0, 16)
    assert s.option("egogazevqa_visuals") == "clip"
    assert [s.option(f"vl4gaze_judge_{k}") for k in ("url", "model", "key")] == ["http://j/v1", "judge-7b", "sk-secret"]
    assert "sk-secret" not in repr(s)  # the key never reaches a log line
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.prompt_mode = "default"  # type: ignore[misc]
    # to_env hands the same settings to another process, whatever that process inherited
    assert RunSettings.from_env({"STREAMGAZE_CLIP_FPS": "9", **s.to_env()}) == s
    assert RunSettings.from_env(RunSettings().to_env()) == RunSettings()
    assert set(s.to_env()) == set(env_variables()) == set(ENV_VARIABLES) | {
        "EGOGAZEVQA_VISUALS", "VL4GAZE_JUDGE_URL", "VL4GAZE_JUDGE_MODEL", "VL4GAZE_JUDGE_KEY"}
    # the benchmarks' own options are declared by them, checked like the shared ones
    with pytest.raises(StreamGazeError, match=r"\$EGOGAZEVQA_VISUALS='video'; expected one of images, clip"):
        RunSettings.from_env({"EGOGAZEVQA_VISUALS": "video"})
    with pytest.raises(KeyError, match="unknown run option 'nope'"):
        RunSettings().option("nope")


@pytest.mark.parametrize("env, message", [
    ({"STREAMGAZE_PROMPT_MODE": "fancy"}, "$STREAMGAZE_PROMPT_MODE='fancy'; expected one of default, reference"),
    ({"STREAMGAZE_PROMPT_MODE": ""}, "$STREAMGAZE_PROMPT_MODE=''; expected one of default, reference"),
    ({"STREAMGAZE_CLIP_FPS": "fast"}, "$STREAMGAZE_CLIP_FPS='fast' is not a number"),
    ({"STREAMGAZE_CLIP_FPS": "0"}, "$STREAMGAZE_CLIP_FPS must be > 0, got 0"),
    ({"STREAMGAZE_CLIP_FPS": "-1"}, "$STREAMGAZE_CLIP_FPS must be > 0, got -1"),
    ({"STREAMGAZE_PROTOCOL": "paper_llama"}, "$STREAMGAZE_PROTOCOL: unknown protocol 'paper_llama'; expected one of "
                                             "default, paper_qwen2_5_vl, paper_api, paper_internvl"),
    ({"STREAMGAZE_PREFETCH": "many"}, "$STREAMGAZE_PREFETCH='many' is not a whole number"),
    ({"STREAMGAZE_PREFETCH": "-2"}, "$STREAMGAZE_PREFETCH must be >= 0, got -2"),
    ({"STREAMGAZE_PREFETCH_AHEAD": "1.5"}, "$STREAMGAZE_PREFETCH_AHEAD='1.5' is not a whole number"),
])
def test_bad_values_keep_their_messages(env, message):
    with pytest.raises(StreamGazeError) as e:
        RunSettings.from_env(env)
    assert str(e.value) == message


def test_flags_stand_for_their_variables():
    env = {"STREAMGAZE_PROMPT_MODE": "reference", "STREAMGAZE_CLIP_FPS": "bad", "STREAMGAZE_PROXY": "auto"}
    s = with_flags(env, prompt_mode="default", clip_fps=2.0, proxy=None, protocol="paper_api")
    assert (s.prompt_mode, s.clip_fps, s.proxy, s.protocol) == ("default", 2.0, "auto", "paper_api")
    with pytest.raises(StreamGazeError, match=r"^\$STREAMGAZE_PROMPT_MODE='x'"):
        with_flags({}, prompt_mode="x")


def test_the_object_checks_its_own_values():
    with pytest.raises(StreamGazeError, match="prompt mode 'fancy'"):
        RunSettings(prompt_mode="fancy")
    with pytest.raises(StreamGazeError, match="unknown protocol 'x'"):
        RunSettings(protocol="x")
    with pytest.raises(StreamGazeError, match="clip fps must be > 0"):
        RunSettings(clip_fps=0.0)


def test_the_record_and_the_proxy_it_resolves(tmp_path):
    s = RunSettings(prompt_mode="reference", clip_fps=None, protocol="paper_api", options={"egogazevqa_visuals": "clip"})
    assert list(s.record(("protocol", "prompt_mode", "clip_fps"))) == ["protocol", "prompt_mode", "clip_fps"]
    assert s.record(("prompt_mode", "clip_fps", "protocol", "proxy", "visual_form"), tmp_path) == {
        "prompt_mode": "reference", "clip_fps": 0.0, "protocol": "paper_api", "proxy": "", "visual_form": "clip"}
    (tmp_path / "videos" / "proxy" / "2fps-448px").mkdir(parents=True)
    assert RunSettings(proxy="auto").record(("proxy",), tmp_path) == {"proxy": "2fps-448px"}
    assert RunSettings(proxy="2fps-448px").proxy_for(tmp_path) == "2fps-448px"
    with pytest.raises(StreamGazeError, match=r"\$STREAMGAZE_PROXY=1fps-448px: the dataset has no 1fps-448px proxies"):
        RunSettings(proxy="1fps-448px").proxy_for(tmp_path)
    with pytest.raises(ValueError, match="give its root"):
        RunSettings(proxy="auto").record(("proxy",))


# ---- one reader of the variables --------------------------------------------------------------------

#: the modules (last two path parts) that read or write the process environment, and why they may
PROCESS_ENV_READERS = {
    "hub/reference.py": "RANK/WORLD_SIZE/MASTER_ADDR of torch launchers; the Hub pins handed to child processes",
    "hub/fetch.py": "HF_HUB_DISABLE_PROGRESS_BARS, the Hub library's own switch",
    "harness/process.py": "prepares the lmms-eval process (git ceiling, progress bars)",
    "streaming/clip_models.py": "OPENAI_API_KEY as an API client's default key",
    "vl4gaze/cli.py": "OPENAI_API_KEY as an API client's default key",
    "objects/vlm.py": "--vlm-api-key-env VAR: the key is read from the variable the user names",
    "util/fsutil.py": "user_cache_dir: where this user's caches live (the clip, VLM, scene and verification "
                      "caches' $STREAMGAZE_..._CACHE)",
    "evaluation/prefetch.py": "RANK/WORLD_SIZE of torch launchers (this rank's shard)",
    "evaluation/ready.py": "$STREAMGAZE_READY_STORE: the clip cache's storage form of model-ready clips (like the "
                           "cache's location, a property of this machine's cache that changes no frame)",
    "dataset/load.py": "$STREAMGAZE_ROOT and the other benchmarks' roots: where the data is (the one opener)",
    "leaderboard/site.py": "a benchmark's root variable (is a dataset given?)",
    "lmms_tasks/models.py": "RANK/WORLD_SIZE of torch launchers",
    "demo/readcheck.py": "the environment of a child process it starts",
    "util/process_env.py": "the one place that sets variables (libraries read them) and builds a child's environment",
    "evaluation/settings.py": "RunSettings.from_env: the one reader of the run settings",
    "util/secrets.py": "the values of secret-named variables (HF_TOKEN, ..._API_KEY): redacted from every output",
    "util/wheel.py": "the environment of the child process that builds the toolkit's wheel",
    "service/uploads.py": "GRADIO_TEMP_DIR: the leaderboard app's own upload folder, set before Gradio reads it",
    "service/job_run.py": "the environment of the leaderboard job's `streamgaze eval` child, without the token",
    "evaluation/model_frames.py": "FORCE_QWENVL_VIDEO_READER: qwen_vl_utils' own, read as it reads it",
    "wrappers/qwen.py": "MODEL_SEQ_LEN: qwen_vl_utils' own, read as it reads it",
    "harness/backends.py": "FORCE_QWENVL_VIDEO_READER, LMMS_VIDEO_DECODE_BACKEND, DECORD_EOF_RETRY_MAX: the readers a "
                           "run gives the wrappers",
    "util/allocator.py": "GLIBC_TUNABLES and MALLOC_*_: glibc's own malloc settings, which win over the toolkit's",
    "harness/head_start.py": "WORLD_SIZE of torch launchers (no head start for several ranks)",
    "util/executors.py": "RAY_ADDRESS: Ray's own variable for the cluster to join (--ray-address's default)",
    "util/ray_tasks.py": "the STREAMGAZE_* variables handed to the cluster's tasks (nothing else crosses)",
}


def _modules():
    for base in PACKAGE_DIRS:
        for path in sorted(base.rglob("*.py")):
            yield path, "/".join(path.parts[-2:])


def _code_strings(tree: ast.AST) -> set[str]:
    """String constants of the code, docstrings left out."""
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings}


def _touches_environment(tree: ast.AST) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr in ("environ", "getenv", "putenv") \
                and isinstance(n.value, ast.Name) and n.value.id == "os":
            return True
    return False


def test_only_the_settings_module_names_the_run_setting_variables():
    offenders = {}
    for path, name in _modules():
        if name == "evaluation/settings.py":
            continue
        named = sorted(_code_strings(ast.parse(path.read_text(encoding="utf-8"))) & set(env_variables()))
        if name.endswith("/__init__.py") and "benchmarks" in path.parts:  # a benchmark declares its own
            own = {o.env for b in benchmarks() if path.parent.name == b.name for o in b.run_options}
            named = [n for n in named if n not in own]
        if named:
            offenders[name] = named
    assert offenders == {}, f"modules that read run settings from the environment themselves: {offenders}"


def test_every_module_that_touches_the_environment_is_a_documented_exception():
    readers = {name for path, name in _modules() if _touches_environment(ast.parse(path.read_text(encoding="utf-8")))}
    assert readers <= set(PROCESS_ENV_READERS), f"undocumented readers: {sorted(readers - set(PROCESS_ENV_READERS))}"
    assert "evaluation/settings.py" in readers


# ---- documents and records: explicit settings = the environment's, byte for byte -------------------

COMBOS = {
    "default": ({}, RunSettings()),
    "reference": ({"STREAMGAZE_PROMPT_MODE": "reference"}, RunSettings(prompt_mode="reference")),
    "clip_fps": ({"STREAMGAZE_CLIP_FPS": "1.5", "STREAMGAZE_PROTOCOL": "paper_api"},
                 RunSettings(clip_fps=1.5, protocol="paper_api")),
    "visuals": ({"EGOGAZEVQA_VISUALS": "clip"}, RunSettings(options={"egogazevqa_visuals": "clip"})),
}


def _dump(docs, records) -> str:
    """Documents and records as JSON, key order kept (lmms-eval logs them in this order) and sorted."""
    return json.dumps([[list(d) for d in docs], docs, [list(r) for r in records], records], default=str) + \
        json.dumps([docs, records], sort_keys=True, default=str)


@pytest.fixture(scope="module")
def ego_root(tmp_path_factory):
    from streamgaze_hf.benchmarks.egogazevqa.release import import_release

    from ..fixtures.egogazevqa_fixture import write_release

    base = tmp_path_factory.mktemp("settings_ego")
    import_release(write_release(base / "release"), base / "egogazevqa", "1.0.0", progress=False)
    return base / "egogazevqa"


@pytest.mark.parametrize("combo", sorted(COMBOS))
def test_documents_and_records_are_those_of_the_environment(combo, demo_dataset, ego_root, monkeypatch):
    from streamgaze_hf.registry import get_benchmark

    env, explicit = COMBOS[combo]
    for name in env_variables():
        monkeypatch.delenv(name, raising=False)
    cases = [("streamgaze", demo_dataset, task, gaze) for task in ("oi_easy", "gta") for gaze in ("visual", "text")]
    cases += [("egogazevqa", ego_root, "spatial", gaze) for gaze in ("none", "text")]
    for bench_name, root, task, gaze in cases:
        ev = get_benchmark(bench_name).plugin()
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        from_env = ev.load_docs(task, gaze, root)
        env_records = [ev.score_doc(d, "A") for d in from_env]
        for k in env:
            monkeypatch.delenv(k)
        docs = ev.load_docs(task, gaze, root, settings=explicit)
        assert docs and _dump(docs, [ev.score_doc(d, "A") for d in docs]) == _dump(from_env, env_records)
        recorded = explicit.record(get_benchmark(bench_name).recorded_settings, root)
        for d in docs:  # each document records the settings, and its record copies them
            assert {k: d[k] for k in recorded} == recorded
    # the values recorded are the settings' own
    if combo == "clip_fps":
        assert (docs[0]["prompt_mode"], from_env[0]["visual_form"]) == ("default", "images")
        doc = get_benchmark("streamgaze").plugin().load_docs("oi_easy", "visual", demo_dataset,
                                                             settings=explicit)[0]
        assert (doc["clip_fps"], doc["protocol"], doc["proxy"]) == (1.5, "paper_api", "")
