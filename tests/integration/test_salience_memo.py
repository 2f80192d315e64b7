"""The salience variant reads a video's gaze once (memoised), not once per document."""

from __future__ import annotations

import hashlib

import pyarrow.parquet as pq

from streamgaze_hf.benchmarks.streamgaze import evaluation
from streamgaze_hf.evaluation import visuals as shared_evaluation


def test_salience_reads_each_videos_gaze_once(demo_dataset, tmp_path, monkeypatch):
    docs = evaluation.load_docs("fap", "salience", demo_dataset) + evaluation.load_docs("sr", "salience", demo_dataset)
    by_video: dict[str, list[dict]] = {}
    for d in docs:
        by_video.setdefault(d["video_id"], []).append(d)
    assert all(len(v) >= 2 for v in by_video.values())
    shared_evaluation.video_gaze_track.cache_clear()
    reads = []
    real = pq.read_table

    def counting(source, *a, **k):
        if "gaze" in str(source):
            reads.append(k.get("filters"))
        return real(source, *a, **k)

    monkeypatch.setattr(pq, "read_table", counting)
    images = {}
    for vid, vdocs in sorted(by_video.items()):
        for d in vdocs:
            images[(vid, d["window_start"], d["window_end"])] = shared_evaluation.salience_image(d, tmp_path / "memo")
    assert len(reads) == len(by_video)  # one gaze read per video, whatever the number of documents
    assert all(f == [("video_id", "in", [vid])] for f, vid in zip(reads, sorted(by_video)))
    # the same images as without the memo
    shared_evaluation.video_gaze_track.cache_clear()
    monkeypatch.setattr(shared_evaluation, "video_gaze_track", lambda data, vid, w, h: shared_evaluation.gaze_tracks(
        data, {vid}, {vid: {"width": w, "height": h, "fps": 30.0}}).get(vid))
    for (vid, start, end), path in images.items():
        d = next(x for x in by_video[vid] if (x["window_start"], x["window_end"]) == (start, end))
        again = shared_evaluation.salience_image(d, tmp_path / "fresh")
        assert hashlib.sha256(again.read_bytes()).digest() == hashlib.sha256(path.read_bytes()).digest()
    assert len({p.read_bytes() for p in images.values()}) > 1  # different windows, different maps
