"""No secret is ever printed or written (issue 38.2), through the installed ``streamgaze`` script: with ``HF_TOKEN``
and API keys in the environment (as the leaderboard and VLM docs tell a user to set them) and a key in lmms-eval's
``--model_args``, an ``eval`` (the real lmms-eval, at its default INFO log level), a ``build`` whose VLM endpoint
needs a key (``--vlm-api-key-env``), and a ``submit --push`` to the Hub stand-in print none of them on stdout or
stderr, and no file they write (the run's results and samples, the dataset, the caches, the submission, the pull
request's file) holds one."""

from __future__ import annotations

import pytest

from perf.shared.hub_stub import HubStub, hub_env
from streamgaze_hf.demo.world import generate_world

from ..fixtures.leaderboard_hub import USERS, run_sg
from ..fixtures.vlm_stub import VLMStub, rotating_answer

pytestmark = pytest.mark.slow

HF_TOKEN = "hf_Zq8XwT3kLmN5pR7sV9yB2cD4fG6hJ1aQ0e"  # shaped like a Hub token
OPENAI_KEY = "sk-proj-T0pS3cr3tKeyForTheEvalTest12"  # shaped like an OpenAI key
VLM_KEY = "vlm-lab-key-4f1c9e2b7a"  # no known shape: only its variable's name marks it
MODEL_ARG_KEY = "model-arg-secret-8d3e"  # given in --model_args api_key=...: only its argument's name marks it
SECRETS = (HF_TOKEN, OPENAI_KEY, VLM_KEY, MODEL_ARG_KEY)
REQUESTS = "org/requests"


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def test_no_secret_is_printed_or_written(demo_dataset, tmp_path):
    printed: list[str] = []

    def sg(env, *args, timeout=600):
        proc = run_sg(env, *args, timeout=timeout)
        printed.extend([proc.stdout, proc.stderr])
        return proc

    with HubStub() as stub:
        stub.token_users.update({**USERS, HF_TOKEN: "alice"})
        stub.put_files(REQUESTS, {"README.md": b"# Submissions\n"})
        env = hub_env(stub, tmp_path / "home", HF_TOKEN, OPENAI_API_KEY=OPENAI_KEY, MY_VLM_KEY=VLM_KEY)
        offline = {**env, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

        # 1. an evaluation: lmms-eval logs its tracker's arguments (the token among them) and records model_args
        run = tmp_path / "run"
        proc = sg(offline, "eval", "--root", demo_dataset, "--", "--model", "streamgaze_random", "--model_args",
                  f"seed=0,api_key={MODEL_ARG_KEY}", "--tasks", "streamgaze_oi_easy", "--log_samples", "--output_path",
                  run, "--timezone", "UTC")
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Evaluation tracker args:" in proc.stdout and "'token': '<redacted>'" in proc.stdout
        results = next(run.rglob("*_results.json")).read_text()
        assert "api_key=[REDACTED]" in results  # lmms-eval's own mark (model_args, hf_hub_log_args)
        assert list(run.rglob("*_samples_streamgaze_oi_easy.jsonl"))

        # 2. a build whose VLM endpoint needs a key: read from the variable, sent as the Bearer token, nowhere else
        world = generate_world(tmp_path / "world", n_videos=1, seed=2, duration=60.0, progress=False)[0].parent
        with VLMStub(rotating_answer, api_key=VLM_KEY) as vlm:
            proc = sg(offline, "build", "streamgaze", "--raw", world, "--objects", "vlm", "--vlm-url", vlm.url,
                      "--vlm-model", "stub-vlm", "--vlm-api-key-env", "MY_VLM_KEY", "--out", tmp_path / "built",
                      "--version", "0.1.0")
            assert proc.returncode == 0, proc.stderr[-3000:]
            assert vlm.calls > 0 and {r.authorization for r in vlm.requests} == {f"Bearer {VLM_KEY}"}

        # 3. the run as a submission, pushed with the token: a pull request on the stand-in
        proc = sg(env, "submit", run, "--dataset", demo_dataset, "--model-name", "Random", "--out",
                  tmp_path / "sub.json", "--push", REQUESTS)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert stub.discussion(REQUESTS, 1).author == "alice"
        pushed = list(stub.files(REQUESTS, "refs/pr/1").values())

    assert [(i, _leaks(text)) for i, text in enumerate(printed) if _leaks(text)] == []
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    names = {p.name for p in written}
    # the run, the built dataset, the caches, the submission (the random baseline reads no video: no clips)
    assert len(written) > 30 and {"sub.json", "manifest.json", "README.md"} <= names
    assert any(n.endswith("_results.json") for n in names) and any(n.endswith(".parquet") for n in names)
    assert [(str(p), _leaks(p.read_bytes().decode("latin-1"))) for p in written
            if _leaks(p.read_bytes().decode("latin-1"))] == []
    assert [_leaks(b.decode("latin-1")) for b in pushed if _leaks(b.decode("latin-1"))] == []
