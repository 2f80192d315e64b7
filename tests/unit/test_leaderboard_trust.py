"""The pieces of a leaderboard people can trust (issue 37), each on its own: numbers bounded before any
conversion, the bounded child (any exception, the memory bound, a signal), look-alike names, the quota's
date, the listed answer keys, the Space's submitter line, the Hub model's id and size, the Space README.
The whole loop through the Hub stand-in: tests/e2e/test_leaderboard_trust.py."""

from __future__ import annotations

import os
import re
import signal
from datetime import datetime, timedelta, timezone

import pytest

from streamgaze_hf.leaderboard.service.bounded import run_bounded
from streamgaze_hf.leaderboard.service.identity import description_of, space_description, submitter_of
from streamgaze_hf.leaderboard.service.model_checks import hub_model_id, parse_params
from streamgaze_hf.leaderboard.service.names import name_key
from streamgaze_hf.leaderboard.service.pinning import ListedDataset, scoring_target
from streamgaze_hf.leaderboard.service.quota import over_quota
from streamgaze_hf.submission.strictjson import StrictJSONError, loads_strict
from streamgaze_hf.util.errors import StreamGazeError


@pytest.mark.parametrize(("text", "reason"), [
    ("1" + "0" * 5000, "a number of 5,001 characters (100000000000...): at most 40 (checked before it is converted)"),
    ("-" + "9" * 400, "a number of 401 characters (-99999999999...): at most 40 (checked before it is converted)"),
    ("1e400", "number 1e400 is out of range (at most 1e+15 in magnitude)"),
    ("[0.5, 2e15]", "number 2e15 is out of range (at most 1e+15 in magnitude)"),
    ("1" + "0" * 30, "number 1" + "0" * 30 + " is out of range (at most 1e+15 in magnitude)"),
])
def test_numbers_are_bounded_before_conversion(text, reason):
    with pytest.raises(StrictJSONError) as err:
        loads_strict(text)
    assert str(err.value) == reason


def test_numbers_in_range_are_read_as_before():
    assert loads_strict('{"a": [0, -3, 0.25, 1e15, 123456789012345]}') == {"a": [0, -3, 0.25, 1e15, 123456789012345]}


def _raises_overflow():
    return float(10 ** 400)


def _kills_itself():
    os.kill(os.getpid(), signal.SIGKILL)


def _allocates(n: int):
    return len(bytearray(n))


def _sleeps():
    import time

    time.sleep(30)


def _answers(x):
    return {"x": x, "list": [1, None, "a"]}


def test_the_bounded_child_turns_anything_into_one_line():
    with pytest.raises(StreamGazeError, match=r"^could not be re-scored: OverflowError: int too large to convert to float$"):
        run_bounded(_raises_overflow, (), timeout_s=60)
    with pytest.raises(StreamGazeError, match=r"^re-scoring stopped without an answer \(killed by SIGKILL: out of memory\?\)$"):
        run_bounded(_kills_itself, (), timeout_s=60)
    with pytest.raises(StreamGazeError, match=r"^re-scoring needed more than 256 MiB of memory: stopped$"):
        run_bounded(_allocates, (2 * 1024 ** 3,), timeout_s=60, memory_mib=256)
    with pytest.raises(StreamGazeError, match=r"^re-scoring took longer than 0.5 s: stopped"):
        run_bounded(_sleeps, (), timeout_s=0.5)
    assert run_bounded(_answers, ("ok",), timeout_s=60) == {"x": "ok", "list": [1, None, "a"]}


@pytest.mark.parametrize("name", ["Gaze-7B", "GAZE-7b", "gaze-7b", "Gaze-7\u0412", "\uff27\uff41\uff5a\uff45-7B",
                                  "Gaze\u20107B", "Gaze 7B", "Gaze_7B", "Gaze-\u200b7B", "G\u0430ze-7B", "Gaze-7\u0392"])
def test_look_alike_names_share_one_key(name):
    assert name_key(name) == name_key("Gaze-7B")


@pytest.mark.parametrize("name", ["Gaze-8B", "Gaze-70B", "Gaze-7B-Instruct", "Gaze", "Gaza-7B"])
def test_other_names_keep_their_own_key(name):
    assert name_key(name) != name_key("Gaze-7B")


def test_the_quota_says_from_when_it_would_be_accepted():
    now = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)
    times = [now - timedelta(days=d) for d in (6.5, 5, 3, 2, 1)]
    assert over_quota("erin", times[1:], now, 5) is None  # 4 in the window
    assert over_quota("erin", times, now, 5) == (
        "over the quota: @erin has 5 submission(s) accepted or pending in the last 7 days (at most 5); it would be "
        "accepted from 2026-03-11 00:00 UTC: open it again then")  # the oldest leaves the window
    assert over_quota("erin", [now - timedelta(days=8)] * 9, now, 5) is None  # older than the window


def _listed(commit: str = "a" * 40) -> dict:
    return {"streamgaze": [ListedDataset("hf://datasets/org/sg@v1", "streamgaze", "org/sg", "v1", commit, "f" * 64,
                                         f"hf://datasets/org/sg@{commit}")]}


def test_only_listed_commits_are_answer_keys():
    listed = _listed()
    assert scoring_target("streamgaze", {"repo": "org/sg", "commit": "a" * 40}, listed).commit == "a" * 40
    assert scoring_target("streamgaze", {"manifest_sha256": "f" * 64}, listed).revision == "v1"  # a local copy
    refusals = {
        "b" * 40: "made on commit bbbbbbbbbbbb of org/sg, which this leaderboard does not score: it scores only the "
                  "commits its maintainer listed (org/sg@v1 = aaaaaaaaaaaa)",
        "main": "pins the dataset revision 'main' of org/sg, which is not a commit: this leaderboard scores only the "
                "commits its maintainer listed (org/sg@v1 = aaaaaaaaaaaa)",
        "refs/pr/1": "pins the dataset revision 'refs/pr/1' of org/sg, which is not a commit: this leaderboard scores "
                     "only the commits its maintainer listed (org/sg@v1 = aaaaaaaaaaaa)"}
    for commit, reason in refusals.items():
        with pytest.raises(StreamGazeError) as err:
            scoring_target("streamgaze", {"repo": "org/sg", "commit": commit}, listed)
        assert err.value.reason == reason
    with pytest.raises(StreamGazeError, match=r"^made on the dataset evil/sg, not on this leaderboard's"):
        scoring_target("streamgaze", {"repo": "evil/sg", "commit": "a" * 40}, listed)
    with pytest.raises(StreamGazeError, match=r"^made on a local dataset whose manifest matches none"):
        scoring_target("streamgaze", {"manifest_sha256": "0" * 64}, listed)
    with pytest.raises(StreamGazeError, match=r"^this leaderboard scores no egogazevqa submissions"):
        scoring_target("egogazevqa", {"repo": "org/sg", "commit": "a" * 40}, listed)


def test_the_space_names_its_submitter_and_only_the_space_is_believed():
    text = space_description("alice")
    assert text.startswith("Submitted by @alice via the Space.\n")
    assert submitter_of("space-bot", text, {"space-bot"}) == "alice"
    assert submitter_of("mallory", text, {"space-bot"}) == "mallory"  # anyone else is their own author
    with pytest.raises(StreamGazeError, match="opened by the Space's account space-bot without the signed-in submitter"):
        submitter_of("space-bot", "hello", {"space-bot"})
    with pytest.raises(StreamGazeError):
        space_description("al ice")


def test_a_pull_requests_description_is_its_authors_first_comment():
    """The one rule the sync and the app's quota read a Space pull request's submitter by: the first comment,
    when the pull request's author wrote it (huggingface_hub's event objects)."""
    from datetime import datetime, timezone

    from huggingface_hub.community import DiscussionComment, DiscussionStatusChange

    def event(kind, author, content=""):
        common = {"id": "e", "type": kind, "created_at": datetime.now(timezone.utc), "author": author, "_event": {}}
        if kind == "comment":
            return DiscussionComment(**common, content=content, edited=False, hidden=False)
        return DiscussionStatusChange(**common, new_status="open")

    class Details:
        def __init__(self, author, events):
            self.author, self.events = author, events

    said = space_description("alice")
    assert description_of(Details("space-bot", [event("comment", "space-bot", said)])) == said
    assert description_of(Details("space-bot", [event("status-change", "space-bot"),
                                                event("comment", "space-bot", said)])) == said
    # someone else's comment first (a pull request whose author wrote none): it names nobody
    assert description_of(Details("space-bot", [event("comment", "mallory", space_description("mallory"))])) == ""
    assert description_of(Details("space-bot", [])) == ""


def test_hub_model_ids_and_sizes():
    assert hub_model_id("https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct") == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert hub_model_id("https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct/tree/main") == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert hub_model_id("https://huggingface.co/gpt2") == "gpt2"
    assert hub_model_id("https://huggingface.co/datasets/org/sg") == ""
    assert hub_model_id("https://github.com/org/model") == ""
    assert (parse_params("7B"), parse_params("0.5b"), parse_params("500M"), parse_params("adaptive")) == (
        7e9, 5e8, 5e8, None)


def test_the_space_readme_enables_sign_in_and_discovery():
    from streamgaze_hf.leaderboard.service.space import space_files

    readme = space_files("org/results", "org/requests", ["hf://datasets/org/sg@v1.0.0"])["README.md"]
    meta = readme.split("---")[1]
    assert "\nhf_oauth: true\n" in meta
    assert "tags:\n- leaderboard\n- submission:automatic\n- test:public\n" in meta


def test_the_app_shows_flags_and_filters_them():
    from streamgaze_hf.leaderboard.service.app import FLAG_FILTERS, tables_html
    from streamgaze_hf.leaderboard.service.results import paper_result_rows, with_flags
    from streamgaze_hf.registry import get_benchmark

    bench = get_benchmark("streamgaze")
    template = dict(paper_result_rows(bench)[1])
    rows = []
    for i, name in enumerate(("Kept", "Flagged $" + "{x}")):
        r = dict(template, model_name=name, reported=False, source="submission", submitter="alice", pr_number=i + 1,
                 pr_url=f"https://huggingface.co/datasets/org/requests/discussions/{i + 1}", run=i + 1, coverage=1.0)
        rows.append(r)
    rows = with_flags({"streamgaze": rows}, {"2": {"reason": "trained on <test>", "discussion": "https://x.org/d/1"}})
    shown = tables_html(bench, rows["streamgaze"])
    assert shown.count('<tr class="submission flagged">') == 1 and 'href="https://x.org/d/1"' in shown
    assert "flagged: trained on &lt;test&gt;" in shown and "<test>" not in shown
    assert "Flagged &#36;&#123;x&#125;" in shown and "${" not in shown  # Gradio's template characters escaped
    assert "run 2 (resubmitted)" in shown and 'href="https://huggingface.co/datasets/org/requests/discussions/1"' in shown
    names = lambda html: re.findall(r'<span class="name">(.*?)</span>', html)  # noqa: E731
    assert names(tables_html(bench, rows["streamgaze"], flagged=FLAG_FILTERS[1])) == ["Kept"]
    assert names(tables_html(bench, rows["streamgaze"], flagged=FLAG_FILTERS[2])) == ["Flagged &#36;&#123;x&#125;"]
