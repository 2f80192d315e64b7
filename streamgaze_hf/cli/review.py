"""Human verification (paper A.5): annotator pages out, their CSVs in."""

from __future__ import annotations

import argparse

from ..util.errors import StreamGazeError
from .base import Handler, add_dataset, command, dataset_reference, note


def review_kinds() -> dict[str, str]:
    """The kind of review CSVs each benchmark's pages write (``Benchmark.review``): fixation corrections or
    question verdicts."""
    from ..registry import benchmarks

    return {b.name: b.review for b in benchmarks() if b.review}


def _review_benchmark(a: argparse.Namespace, question_csvs: list, data) -> str:
    """The benchmark of ``review import``'s CSVs: ``--benchmark``, else the ``--dataset``'s (``data``, open, or
    None), else (deprecated) guessed from the CSVs' columns. CSVs of the other kind are refused."""
    from ..registry import get_benchmark

    bench = a.benchmark or (data.benchmark.name if data is not None else None)
    kinds = review_kinds()
    if bench is None:
        bench = _guess_benchmark(kinds, "questions" if question_csvs else "fixations")
        note(f"'review import' guessing the benchmark is deprecated; use 'review import --benchmark {bench}'")
    kind = kinds.get(bench)
    if kind is None:
        raise StreamGazeError(f"{get_benchmark(bench).title} has no review CSVs (review import takes "
                              f"{', '.join(kinds)})", a.dataset)
    wrong = question_csvs if kind == "fixations" else [c for c in a.csv if c not in question_csvs]
    if wrong:
        what = "question-verification" if kind == "fixations" else "fixation-review"
        raise StreamGazeError(f"a {what} CSV, not a review CSV of {bench}", wrong[0])
    return bench


def _guess_benchmark(kinds: dict[str, str], kind: str) -> str:
    """The one benchmark whose review pages write CSVs of ``kind`` (the deprecated guess of ``review import``)."""
    found = [name for name, k in kinds.items() if k == kind]
    if len(found) != 1:
        raise StreamGazeError(f"which benchmark are these review CSVs of? give --benchmark "
                              f"({', '.join(found or kinds)})")
    return found[0]


@command("review", "human verification (paper A.5): export annotator pages, import their CSVs (Table 5 ratios)")
def _review(p: argparse.ArgumentParser) -> Handler:
    sub = p.add_subparsers(dest="review_command", required=True, metavar="{export,import}")
    ex = sub.add_parser("export", help="write one self-contained HTML review page per video (+ index.html, videos/)",
                        description="Write DIR/<video_id>.html per video, DIR/index.html and copies of the overlay "
                                    "videos under DIR/videos/ (zip DIR and send it to the annotators).")
    add_dataset(ex)
    ex.add_argument("--out", required=True, help="output directory")
    ex.add_argument("--link", action="store_true",
                    help="link the dataset's overlay videos (relative paths) instead of copying them")
    ex.add_argument("--video", action="append", default=None, metavar="VIDEO_ID",
                    help="only this video (repeatable; default: all)")
    im = sub.add_parser("import", help="validate review CSVs and print the inclusion / modified ratios",
                        description="Validate the CSVs exported by the review pages and print paper Table 5's "
                                    "ratios. The corrections are applied at build time: "
                                    "`streamgaze build ... --review CSV...`.")
    im.add_argument("csv", nargs="+", help="review CSV files (one per annotator and video, or merged)")
    im.add_argument("--out", default=None, help="also write the statistics as JSON here")
    im.add_argument("--dataset", default=None,
                    help="dataset root: its manifest says which benchmark the CSVs are of; take each video's "
                         "source from it and check that the videos exist")
    im.add_argument("--benchmark", default=None, choices=list(review_kinds()),
                    help="whose review CSVs they are (default: the --dataset's benchmark)")

    def run(a: argparse.Namespace) -> int:
        if a.review_command == "export":
            from ..review import export_review

            paths = export_review(dataset_reference(a), a.out, link=a.link, video_ids=a.video)
            print(f"{paths[0]} ({len(paths) - 1} video page(s))")
            return 0
        import json

        from ..review import format_stats, load_corrections, verification_stats
        from ..review.qa_review import is_qa_csv
        from ..util.fsutil import write_text_atomic

        data = None
        if a.dataset:
            from ..dataset import open_dataset

            data = open_dataset(a.dataset)
        bench = _review_benchmark(a, [c for c in a.csv if is_qa_csv(c)], data)
        if review_kinds()[bench] == "questions":
            return _review_import_questions(a)
        corrections = load_corrections(a.csv)
        sources = None
        if data is not None:
            videos = data.read_config("videos", ["video_id", "source"]).to_pylist()
            sources = {v["video_id"]: v["source"] for v in videos}
            unknown = [v for v in corrections.video_ids if v not in sources]
            if unknown:
                raise StreamGazeError(f"review CSVs name video(s) not in the dataset: {', '.join(unknown)}", data.path)
        stats = verification_stats(corrections, sources)
        print(format_stats(stats))
        if a.out:
            write_text_atomic(a.out, json.dumps(stats, indent=2, sort_keys=True) + "\n")
        return 0

    return run


def _review_import_questions(a: argparse.Namespace) -> int:
    """``review import`` of question-verification CSVs (EgoGazeVQA): kept / dropped and failures per criterion."""
    import json

    from ..review.qa_review import load_qa_verdicts, qa_verdict_stats
    from ..util.fsutil import write_text_atomic

    stats = qa_verdict_stats(load_qa_verdicts(a.csv))
    print(f"questions {stats['questions']}: kept {stats['kept']}, dropped {stats['dropped']} "
          f"({100 * stats['keep_ratio']:.1f} % kept; {stats['verdicts']} verdicts by {stats['annotators']} annotators)")
    print("failed criteria: " + ", ".join(f"{c} {n}" for c, n in stats["failed_criteria"].items()))
    if a.out:
        write_text_atomic(a.out, json.dumps(stats, indent=2, sort_keys=True) + "\n")
    return 0
