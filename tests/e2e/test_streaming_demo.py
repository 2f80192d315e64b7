"""Streaming evaluation on the demo dataset: no frame after the stream time (by the burnt-in frame
codes), the polling adapter reproduces the checkpoint protocol's prompts, frames and scores, runs
resume per video, and a run becomes a validated submission with a streaming table."""

import json
import re

import numpy as np
import pytest

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.benchmarks.streamgaze.streaming import PollingAdapter, StreamingModel
from streamgaze_hf.benchmarks.streamgaze.streaming.clip_models import RandomClipModel
from streamgaze_hf.benchmarks.streamgaze.streaming.results import compute_metrics, read_stream_run
from streamgaze_hf.benchmarks.streamgaze.streaming.runner import load_plan, run_plan
from streamgaze_hf.benchmarks.streamgaze.tasks import TASK_IDS, TASKS
from streamgaze_hf.cli import main
from streamgaze_hf.demo.timecode import read_frame_code
from streamgaze_hf.evaluation.baselines import random_answer
from streamgaze_hf.submission import validate_submission
from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.video.frame_reader import probe_video

pytestmark = pytest.mark.slow


class LeakChecker(StreamingModel):
    """Reads every pushed frame's burnt-in code and checks it against the stream time."""

    def __init__(self, fps):
        self.fps, self.checked, self.questions = fps, 0, 0

    def start(self, ctx):
        self.ctx, self.last, self.slots = ctx, None, set()

    def on_frame(self, frame):
        code = read_frame_code(frame.image)
        assert code == frame.index
        assert frame.time <= self.ctx.now + 1e-9
        assert self.frame_times[code] == pytest.approx(frame.time)  # the code's own time is the frame's
        assert self.last is None or code > self.last
        slot = int(np.floor(frame.time * self.fps + 1e-6))
        assert slot not in self.slots  # one frame per 1 / fps slot
        self.slots.add(slot)
        assert frame.gaze is not None and (len(frame.gaze) == 0 or frame.gaze.t.max() <= frame.time + 1e-9)
        self.last = code
        self.checked += 1
        return ()

    def on_question(self, q):
        assert self.ctx.now == q.time
        assert self.last is None or self.frame_times[self.last] <= q.time + 1e-9
        self.questions += 1
        return ()


def test_no_frame_after_the_stream_time(demo_dataset, tmp_path):
    plan = load_plan(demo_dataset, "salience")
    model = LeakChecker(fps=4.0)
    for vid, video in plan.videos.items():
        model.frame_times = probe_video(video.source).frame_times
        from streamgaze_hf.benchmarks.streamgaze.streaming.interface import StreamContext, run_stream
        from streamgaze_hf.benchmarks.streamgaze.streaming.runner import frames_of

        ctx = StreamContext(vid, video.width, video.height, video.fps, video.duration, 4.0, "salience", "default",
                            _prompter=video.prompt_at)
        run_stream(ctx, model, frames_of(video, 4.0, with_gaze=True), video.questions)
    n_questions = sum(len(v.questions) for v in plan.videos.values())
    assert model.questions == n_questions > 30
    durations = sum(v.duration for v in plan.videos.values())
    assert abs(model.checked - 4.0 * durations) <= 3 * len(plan.videos)


class RecordingClip(RandomClipModel):
    needs_frames = True

    def __init__(self, seed):
        super().__init__(seed)
        self.requests = {}

    def answer(self, req):
        self.requests[(req.question_id, req.checkpoint_index)] = (req.prompt, [f.index for f in req.frames])
        return super().answer(req)


def test_polling_adapter_reproduces_the_checkpoint_protocol(demo_dataset, tmp_path, monkeypatch):
    monkeypatch.delenv("STREAMGAZE_PROMPT_MODE", raising=False)
    plan = load_plan(demo_dataset, "text")
    clip = RecordingClip(seed=3)
    metrics = run_plan(plan, tmp_path / "run", PollingAdapter(clip), settings={"model": "recording"}, progress=False)
    n_items = 0
    for spec in TASKS:
        docs = evaluation.load_docs(spec.id, "text", demo_dataset)
        records = []
        for doc in docs:
            item = (doc["question_id"], int(doc["checkpoint_index"]))
            prompt, frames = clip.requests[item]
            assert prompt == evaluation.doc_prompt(doc), item  # text gaze: fixations known at the checkpoint
            ft = probe_video(demo_dataset / doc["video_path"]).frame_times
            start, end = evaluation.doc_window(doc)
            assert frames == np.flatnonzero((ft >= start - 1e-6) & (ft <= end + 1e-6)).tolist(), item
            records.append(evaluation.score_doc(doc, random_answer(3, item[0], item[1], spec.checkpointed, len(doc["options"]))))
        n_items += len(docs)
        expected = evaluation.task_metrics(records)
        got = metrics["checkpoint"]["tasks"][spec.id]
        assert {k: got[k] for k in expected if k != "n_unparsed"} == {k: v for k, v in expected.items()
                                                                      if k != "n_unparsed"}, spec.id
        assert got["n_missing"] == 0
    assert len(clip.requests) == n_items and metrics["checkpoint"]["coverage"]["fraction"] == 1.0
    # alerts = the checkpoints answered Yes; every proactive question is scored
    s = metrics["streaming"]["gta"]
    recs = read_stream_run(tmp_path / "run").records
    assert s["n_alerts"] == sum(1 for r in recs if r["task"] == "gta" and r["response"] == "Yes")
    assert s["n"] == len({d["question_id"] for d in evaluation.load_docs("gta", "text", demo_dataset)})


class Interrupt(Exception):
    pass


def test_runs_resume_per_video_and_refuse_other_settings(demo_dataset, tmp_path):
    tasks = ("oi_easy", "gta")
    plan = load_plan(demo_dataset, "none", tasks=tasks)
    videos = sorted(plan.videos)
    assert len(videos) == 3

    class Counting(PollingAdapter):
        started = []

        def start(self, ctx):
            self.started.append(ctx.video_id)
            super().start(ctx)

    def stop_after_first(vid):
        if vid == videos[0]:
            raise Interrupt

    settings = {"model": "random", "poll": "checkpoints"}
    out = tmp_path / "run"
    with pytest.raises(Interrupt):
        run_plan(plan, out, Counting(RandomClipModel(1)), fps=2.0, settings=settings, on_video=stop_after_first,
                 progress=False)
    assert sorted(p.stem for p in (out / "videos").iterdir()) == videos[:1] and not (out / "metrics.json").exists()
    Counting.started.clear()
    resumed = run_plan(plan, out, Counting(RandomClipModel(1)), fps=2.0, settings=settings, progress=False)
    assert Counting.started == videos[1:]
    fresh = run_plan(plan, tmp_path / "fresh", PollingAdapter(RandomClipModel(1)), fps=2.0, settings=settings,
                     progress=False)
    for vid in videos:
        assert (out / "videos" / f"{vid}.jsonl").read_bytes() == (tmp_path / "fresh" / "videos" / f"{vid}.jsonl").read_bytes()
    assert resumed == fresh
    assert json.loads((out / "metrics.json").read_text()) == fresh
    with pytest.raises(StreamGazeError, match="another dataset build, model or settings"):
        run_plan(plan, out, PollingAdapter(RandomClipModel(1)), fps=1.0, settings=settings, progress=False)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.txt").write_text("x")
    with pytest.raises(StreamGazeError, match="not a stream-eval output directory"):
        run_plan(plan, tmp_path / "junk", PollingAdapter(RandomClipModel(1)), settings=settings, progress=False)
    assert compute_metrics(read_stream_run(out), demo_dataset) == fresh


def test_stream_eval_cli_to_submission_and_streaming_leaderboard(demo_dataset, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["stream-eval", str(demo_dataset), "--out", str(out), "--model", "random", "--model-args", "seed=2",
                 "--fps", "2", "--gaze", "none"]) == 0
    printed = capsys.readouterr().out
    assert "checkpoint protocol overall" in printed and "gta" in printed and "latency" in printed
    records = read_stream_run(out).records
    assert all(r["stream_time"] >= r["query_time"] for r in records)
    sub_path = tmp_path / "sub.json"
    assert main(["submit", str(out), "--dataset", str(demo_dataset), "--model-name", "Random (stream)",
                 "--out", str(sub_path)]) == 0
    sub = json.loads(sub_path.read_text())
    assert sub["run"]["harness"] == "streamgaze-stream" and sub["run"]["model"] == "streamgaze_random"
    assert sub["scores"]["coverage"]["fraction"] == 1.0
    metrics = json.loads((out / "metrics.json").read_text())
    assert sub["scores"]["overall"] == pytest.approx(metrics["checkpoint"]["overall"])
    assert sub["streaming"]["scores"] == metrics["streaming"]
    assert main(["validate", str(sub_path), "--dataset", str(demo_dataset)]) == 0
    assert "streaming alerts" in capsys.readouterr().out
    # a forged streaming score is caught
    forged = json.loads(sub_path.read_text())
    forged["streaming"]["scores"]["gta"]["tolerances"]["2"]["f1"] = 0.99
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(forged))
    assert main(["validate", str(bad), "--dataset", str(demo_dataset)]) == 2
    assert "streaming.scores.gta.tolerances.2.f1" in capsys.readouterr().err
    site = tmp_path / "site"
    assert main(["leaderboard", str(sub_path), "--dataset", str(demo_dataset), "--out", str(site)]) == 0
    md = (site / "streaming.md").read_text()
    assert "Random (stream)" in md and "GTA F1@2s" in md
    assert '<table id="streaming">' in (site / "index.html").read_text()
    rows = (site / "streaming.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("Random (stream),")
    assert set(TASK_IDS) == set(sub["scores"]["tasks"])


def test_openai_endpoint_through_the_polling_adapter_sees_only_past_frames(demo_dataset, tmp_path):
    """The adapter's OpenAI client against the loopback stub, which answers with the burnt-in codes of
    the images it received: each request holds at most max_frames frames, all inside its window and at
    or before its stream time, the last one being the last frame pushed by then."""
    from ..fixtures.openai_stub_server import stub_server

    out = tmp_path / "run"
    with stub_server(tmp_path) as url:
        assert main(["stream-eval", str(demo_dataset), "--out", str(out), "--model", "openai", "--model-args",
                     f"base_url={url},model=stub,max_frames=4,api_key=stub", "--fps", "1", "--gaze", "none",
                     "--tasks", "oar", "gta"]) == 0
    plan = load_plan(demo_dataset, "none", tasks=("oar", "gta"))
    records = read_stream_run(out).records
    assert len(records) == len(plan.docs)
    for r in records:
        ft = probe_video(plan.videos[r["video_id"]].source).frame_times
        codes = [int(c) for c in r["response"].removeprefix("frames: ").split(",")]
        doc = plan.docs[(r["question_id"], r["checkpoint_index"])]
        assert 1 <= len(codes) <= 4 and codes == sorted(codes)
        assert r["stream_time"] == pytest.approx(doc["window_end"])
        assert all(doc["window_start"] - 1e-6 <= ft[c] <= r["stream_time"] + 1e-6 for c in codes)
        pushed = [i for i, t in enumerate(ft) if t <= r["stream_time"] + 1e-6]
        last_slot = np.floor(ft[pushed[-1]] + 1e-6)
        assert codes[-1] == min(i for i in pushed if np.floor(ft[i] + 1e-6) == last_slot)


def test_realtime_clock_and_field_scores_through_the_installed_script(demo_dataset, tmp_path):
    """`stream-eval --poll 1 --seconds-per-call 3` (the installed script): fewer looks and later alerts than with
    unlimited time, both in one run; `submit` carries the new scores, `validate` re-scores them and refuses a
    tampered timing score like a tampered accuracy, and `leaderboard` shows the headline ones."""
    from ..fixtures.cli_entry import streamgaze

    out = tmp_path / "rt"
    p = streamgaze("stream-eval", demo_dataset, "--out", out, "--model", "random", "--model-args", "seed=2", "--fps",
                   "1", "--gaze", "none", "--poll", "1", "--seconds-per-call", "3", "--tasks", "gta", "oaa", tmp=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "real time (declared 3 s per call): real-time factor" in p.stdout and "StreamingBench +-2 s" in p.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    rt, records = metrics["realtime"], read_stream_run(out).records
    assert all(r["seconds"] == 3.0 for r in records) and rt["calls"] == len(records) > 100
    assert rt["looks"] < len(records) / 2  # at most one look in 3 s where there were polls every 1 s
    durations = json.loads((out / "stream_run.json").read_text())["durations"]
    assert rt["stream_seconds"] == pytest.approx(sum(durations.values()))
    assert rt["rtf"] == pytest.approx(3.0 * len(records) / rt["stream_seconds"]) and rt["rtf"] > 1
    unlimited = {}
    for r in records:
        if r["alert"]:
            unlimited.setdefault(r["question_id"], []).append(r["stream_time"])
    sub_path = tmp_path / "sub.json"
    p = streamgaze("submit", out, "--dataset", demo_dataset, "--model-name", "Random (3 s per call)", "--out",
                   sub_path, tmp=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    sub = json.loads(sub_path.read_text())
    clock_alerts = {q: a for t in ("gta", "oaa") for q, a in sub["streaming"]["realtime"]["alerts"][t].items() if a}
    assert clock_alerts and all(min(a) >= min(unlimited[q]) + 3.0 - 1e-6 for q, a in clock_alerts.items())
    assert sub["streaming"]["scores"] == metrics["streaming"]
    assert sub["streaming"]["realtime"]["scores"]["streaming"] == rt["streaming"]
    assert sub["streaming"]["realtime"]["scores"]["rtf"] == pytest.approx(rt["rtf"])
    assert streamgaze("validate", sub_path, "--dataset", demo_dataset, tmp=tmp_path).returncode == 0
    # a tampered timing score is refused like a tampered accuracy (the first through the script, the rest in-process)
    tamper = [(("streaming", "realtime", "scores", "streaming", "gta", "streamingbench", "accuracy"), 0.77),
              (("streaming", "scores", "oaa", "streamgaze_window", "accuracy"), 0.77),
              (("streaming", "realtime", "scores", "rtf"), 0.5),
              (("streaming", "scores", "gta", "f1_curve", "area"), 0.3),
              (("streaming", "realtime", "scores", "streaming", "oaa", "duplicates", "rate"), 0.01),
              (("scores", "tasks", "gta", "accuracy"), 0.99)]
    cache = {}
    for i, (path, value) in enumerate(tamper):
        forged = json.loads(sub_path.read_text())
        obj = forged
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
        bad = tmp_path / f"forged{i}.json"
        bad.write_text(json.dumps(forged))
        message = f"reported score {'.'.join(path)} = {value} differs from the recomputed"
        if i == 0:
            p = streamgaze("validate", bad, "--dataset", demo_dataset, tmp=tmp_path)
            assert p.returncode == 2 and message in p.stderr, p.stderr[-2000:]
        else:
            with pytest.raises(StreamGazeError, match=re.escape(message)):
                validate_submission(bad, demo_dataset, key_cache=cache)
    site = tmp_path / "site"
    p = streamgaze("leaderboard", sub_path, "--dataset", demo_dataset, "--out", site, tmp=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    header = (site / "streaming.md").read_text().splitlines()[4]
    assert "GTA SB ±2s" in header and "OAA SG win" in header and "RTF" in header and "OAA Dup." in header
    row = (site / "streaming.md").read_text().splitlines()[6]
    assert row.startswith("| Random (3 s per call) |") and f"| {rt['rtf']:.2f} |" in row
    _streaming_table_fits_1280(site / "index.html")


def _streaming_table_fits_1280(page_file):
    """The streaming table at a 1280 px wide window: no horizontal scrolling, each header on one line (skipped
    without Chromium unless STREAMGAZE_REQUIRE_BROWSER=1)."""
    from ..fixtures.browser import CHROMIUM, CHROMIUM_ARGS, PROBLEM, REQUIRED

    if PROBLEM:
        assert not REQUIRED, PROBLEM
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(page_file.as_uri())
        got = page.evaluate("""() => { const t = document.getElementById('streaming');
          const heads = Array.from(t.tHead.querySelectorAll('th'));
          const lines = h => { const r = document.createRange(); r.selectNodeContents(h); return r.getClientRects().length; };
          return {width: t.scrollWidth, box: t.closest('.wrap').clientWidth, page: document.documentElement.scrollWidth,
                  n: heads.length, twoLines: heads.filter(h => lines(h) !== 1).map(h => h.innerText)}; }""")
        browser.close()
    assert got["n"] == 20 and got["width"] <= got["box"] and got["page"] <= 1280, got  # 18 columns, 2 task headers
    assert got["twoLines"] == [], got
