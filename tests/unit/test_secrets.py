"""The one rule for secrets (streamgaze_hf/util/secrets.py): which names and shapes are secrets, and what is not."""

from __future__ import annotations

from streamgaze_hf.util.secrets import redact, secret_name, secret_values


def test_names_that_hold_secrets():
    assert [n for n in ("HF_TOKEN", "OPENAI_API_KEY", "MY_VLM_KEY", "api_key", "apikey", "access_token", "password",
                        "AWS_SECRET", "Authorization", "hf_token") if not secret_name(n)] == []
    assert [n for n in ("max_new_tokens", "tokenizer", "token_counts", "key", "keyframe", "PWD", "SSH_AUTH_SOCK",
                        "monkey", "pretrained") if secret_name(n)] == []


def test_redact_values_shapes_and_pairs():
    env = {"HF_TOKEN": "hf_not_shaped_but_named", "MY_VLM_KEY": "vlm-key-123456", "PWD": "/work/dir",
           "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1"}
    secrets = secret_values(env)
    assert sorted(secrets) == ["hf_not_shaped_but_named", "vlm-key-123456"]
    text = ("Evaluation tracker args: {'output_path': '/work/dir/out', 'token': 'x'} key vlm-key-123456 "
            "seed=0,api_key=abc,max_new_tokens=32 lmms-eval's [REDACTED]: api_key=[REDACTED] "
            '{"hf_token": "y", "tokenizer": "Qwen/Qwen2.5"} https://user:pw@host/v1 sk-abcdefghijklmnop1234')
    assert redact(text, secrets) == (
        "Evaluation tracker args: {'output_path': '/work/dir/out', 'token': '<redacted>'} key <redacted> "
        "seed=0,api_key=<redacted>,max_new_tokens=32 lmms-eval's [REDACTED]: api_key=[REDACTED] "
        '{"hf_token": "<redacted>", "tokenizer": "Qwen/Qwen2.5"} https://<redacted>@host/v1 <redacted>')
