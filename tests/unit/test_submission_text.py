"""Submission texts without a run: secrets redacted from model arguments, strict JSON (no NaN/Infinity,
duplicate keys reported). Moved out of tests/e2e/test_submission.py, whose other tests share its
lmms-eval runs."""

from __future__ import annotations

import pytest

from streamgaze_hf.submission import redact_model_args
from streamgaze_hf.submission.strictjson import StrictJSONError, loads_strict


def test_model_args_secrets_are_redacted():
    got = redact_model_args("pretrained=org/Model-7B,api_key=sk-abc123,hf_token=hf_xyz,password=p,"
                            "temperature=0,base_url=http://x,extra=sk-live-999,ghp_abcdef")
    assert got == ("pretrained=org/Model-7B,api_key=<redacted>,hf_token=<redacted>,password=<redacted>,"
                   "temperature=0,base_url=http://x,extra=<redacted>,<redacted>")
    assert redact_model_args({"model": "gpt-4o", "access_token": "t"}) == "model=gpt-4o,access_token=<redacted>"
    assert redact_model_args(None) == ""
    assert redact_model_args("base_url=https://u:pw@host/v1") == "base_url=<redacted>"


def test_strict_json():
    with pytest.raises(StrictJSONError, match="NaN"):
        loads_strict('{"a": NaN}')
    with pytest.raises(StrictJSONError, match="-Infinity"):
        loads_strict('{"a": -Infinity}')
    with pytest.raises(StrictJSONError, match="line 1 column"):
        loads_strict('{"a": }')
    assert loads_strict('{"a": 1, "a": 2}').duplicates == ["a"]
