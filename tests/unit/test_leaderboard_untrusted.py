"""Submissions are untrusted input (issue 31 item 5): paths, sizes, nesting depth and the text of comments."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from streamgaze_hf.leaderboard.service.untrusted import (
    MAX_SUBMISSION_BYTES,
    check_size,
    comment_text,
    model_slug,
    parse_submission_path,
    submission_path,
)
from streamgaze_hf.submission.strictjson import MAX_DEPTH, StrictJSONError, loads_strict, nesting_depth
from streamgaze_hf.util.errors import StreamGazeError


def test_submission_paths_are_built_from_a_slug_and_checked():
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert submission_path("streamgaze", "Qwen2.5-VL 7B (ours)", when) == \
        "submissions/streamgaze/qwen2-5-vl-7b-ours/20260102T030405Z.json"
    assert model_slug("../../etc/passwd") == "etc-passwd" and model_slug("<>") == "model"
    assert model_slug("x" * 300) == "x" * 80
    ok = parse_submission_path("submissions/egogazevqa/my-model/20260102T030405Z.json")
    assert (ok.benchmark, ok.slug, ok.timestamp) == ("egogazevqa", "my-model", "20260102T030405Z")
    for bad in ("submissions/streamgaze/../x/20260102T030405Z.json", "submissions/nosuch/m/20260102T030405Z.json",
                "submissions/streamgaze/My-Model/20260102T030405Z.json", "submissions/streamgaze/m/2026.json",
                "README.md", "/submissions/streamgaze/m/20260102T030405Z.json",
                "submissions/streamgaze/m/20260102T030405Z.json/x", "submissions/streamgaze/-m/20260102T030405Z.json"):
        assert parse_submission_path(bad) is None, bad


def test_size_and_depth_are_checked_before_parsing():
    check_size(MAX_SUBMISSION_BYTES)
    with pytest.raises(StreamGazeError, match="at most 33,554,432 bytes"):
        check_size(MAX_SUBMISSION_BYTES + 1)
    assert nesting_depth('{"a": [1, {"b": "[[[[[[ \\" {{{{"}], "c": {}}') == 3
    deep = "[" * 100_000 + "]" * 100_000  # would exhaust the parser's recursion
    assert nesting_depth(deep) == 100_000
    with pytest.raises(StrictJSONError, match=f"nested 100000 levels deep: at most {MAX_DEPTH}"):
        loads_strict(deep)
    assert loads_strict("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


def test_comment_text_is_literal_markdown():
    text = comment_text("<img src=x onerror=alert(1)> [link](http://x) *b* | @everyone `code`\nnext line")
    assert "<" not in text and ">" not in text and "@" not in text and "\n" not in text
    assert "\\[link\\]" in text and "\\*b\\*" in text and "\\|" in text and "\\`code\\`" in text
    assert len(comment_text("x" * 5000)) == 300
