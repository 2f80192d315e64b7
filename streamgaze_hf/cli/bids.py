"""Gaze in the field's formats: ``export-bids`` (a built dataset, or one raw recording, as BIDS eye tracking).
Reading BIDS back is a raw source like any other (``gaze``/``build --source bids``)."""

from __future__ import annotations

import argparse

from .base import Handler, command, video_assumptions


@command("export-bids", "write gaze as a BIDS 1.11 eye-tracking dataset (physio + physioevents per recording, the "
         "scene videos in stimuli/): a built dataset of any benchmark, or one raw recording with --source")
def _export_bids(p: argparse.ArgumentParser) -> Handler:
    from ..gaze import SOURCES

    p.add_argument("source", metavar="SOURCE", help="a built dataset (folder or hf://datasets/ORG/NAME@REV), or one "
                   "raw recording (its folder or gaze file) with --source")
    p.add_argument("--out", required=True, help="the BIDS dataset's folder to write")
    p.add_argument("--source", dest="raw_source", default=None, choices=SOURCES, metavar="RAW_SOURCE",
                   help=f"SOURCE is one raw recording in this layout: {', '.join(SOURCES)} (default: SOURCE is a "
                        "built dataset)")
    p.add_argument("--video", default=None, help="a raw recording's scene video (size, rate and frames; default: "
                   "looked up in the source's native layout)")
    p.add_argument("--no-videos", action="store_true", help="do not write the scene videos into stimuli/ (then "
                   "`--source bids` needs them given back)")
    p.add_argument("--force", action="store_true", help="replace an existing --out")

    def run(a: argparse.Namespace) -> int:
        from ..dataset import export_bids

        with video_assumptions():
            done = export_bids(a.source, a.out, raw_source=a.raw_source, video=a.video,
                               copy_videos=not a.no_videos, force=a.force)
        print(f"{a.out}: {len(done)} recording(s) as BIDS eye tracking", flush=True)
        return 0

    return run
