"""VL4Gaze's `build` options (``RAW``/``RELEASE``: hooks of the ``cli`` part, ``Plugin.importer_options``)."""

from __future__ import annotations

import argparse

from ...cli.base import Handler, note, vlm_key_arg
from ...registry import provide
from ...util.errors import StreamGazeError
from . import BENCHMARK


def _raw(p: argparse.ArgumentParser) -> Handler:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--gazefollow", metavar="FILE", help="a GazeFollow annotation file (e.g. test_annotations_release.txt)")
    src.add_argument("--videoattentiontarget", metavar="DIR",
                     help="VideoAttentionTarget annotations (<show>/<clip>/<person>.txt below it)")
    src.add_argument("--synthetic", type=int, metavar="N", help="N scenes of the synthetic gaze-following world")
    p.add_argument("--images", help="image root of the annotations (GazeFollow: the dataset directory; "
                   "VideoAttentionTarget: its images/ directory)")
    p.add_argument("--out", required=True, help="dataset root to write (e.g. ./vl4gaze)")
    p.add_argument("--version", required=True, help="semantic version X.Y.Z of this dataset")
    p.add_argument("--vlm-url", default=None, help="OpenAI-compatible API root, e.g. http://localhost:8000/v1 "
                   "(--synthetic without it: the built-in oracle)")
    p.add_argument("--vlm-model", default=None, help="model name sent to the VLM")
    vlm_key_arg(p)
    p.add_argument("--vlm-key", default=None, help=argparse.SUPPRESS)  # deprecated: the key on the command line
    p.add_argument("--cache", default=None, help="VLM answer cache (default $STREAMGAZE_VLM_CACHE or ~/.cache/streamgaze/vlm)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N annotations")
    p.add_argument("--frame-step", type=int, default=1, help="VideoAttentionTarget: keep every n-th frame")
    p.add_argument("--seed", type=int, default=0, help="seed of the QA sampling (default 0)")
    p.add_argument("--force", action="store_true", help="overwrite an existing dataset of the same version")

    def run(a: argparse.Namespace) -> int:
        import os
        import tempfile
        from pathlib import Path

        from ...dataset import dataset_destination
        from ...objects.vlm import ChatJSONClient, api_key_from_env
        from ...util.preflight import existing_dir, existing_file, positive
        from ...util.secrets import register
        from . import annotation_files as ann
        from . import world

        dataset_destination(a.out, a.version, a.force)
        positive(a.limit, "--limit", integer=True)
        positive(a.frame_step, "--frame-step", integer=True)
        if bool(a.vlm_url) != bool(a.vlm_model):
            raise StreamGazeError("--vlm-url and --vlm-model go together")
        if not a.vlm_url and a.synthetic is None:
            raise StreamGazeError("real annotations need a VLM: --vlm-url URL --vlm-model NAME")
        key = api_key_from_env(a.vlm_api_key_env or ("OPENAI_API_KEY" if os.environ.get("OPENAI_API_KEY") else ""))
        if a.vlm_key:
            register(a.vlm_key)
            note("--vlm-key is deprecated: a key on the command line shows in `ps` and shell histories; export it and "
                 "give --vlm-api-key-env VAR")
            key = a.vlm_key
        client = (ChatJSONClient(a.vlm_url, a.vlm_model, api_key=key, cache_dir=a.cache, image_format="png")
                  if a.vlm_url else None)
        with tempfile.TemporaryDirectory(prefix=".vl4gaze-world-") as tmp:
            if a.synthetic is not None:
                positive(a.synthetic, "--synthetic", integer=True)
                scenes = world.make_world(a.synthetic, seed=a.seed)
                images = Path(tmp)
                world.write_images(scenes, images)
                found = world.annotations(scenes)
                client = client or world.OracleClient(scenes)
            elif a.gazefollow:
                existing_file(a.gazefollow, "GazeFollow annotation file")
                images = existing_dir(a.images, "--images (GazeFollow image root)")
                found = ann.read_gazefollow(a.gazefollow, images).annotations
            else:
                existing_dir(a.videoattentiontarget, "VideoAttentionTarget annotation directory")
                images = existing_dir(a.images, "--images (VideoAttentionTarget images/)")
                found = ann.read_videoattentiontarget(a.videoattentiontarget, images, a.frame_step).annotations
            if a.limit:
                found = found[:a.limit]
            build = BENCHMARK.importer("raw")
            result = build(found, images, a.out, a.version, client, seed=a.seed, force=a.force)
        print(f"{result.root}: " + ", ".join(f"{t} {n}" for t, n in result.questions.items()))
        return 0

    return run


RAW = ("gaze-following annotations (GazeFollow, VideoAttentionTarget or the synthetic world) through the "
       "paper's §3 VLM pipeline (docs/vl4gaze.md)", _raw)
provide(__name__, RAW=RAW)
