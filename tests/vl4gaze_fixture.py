"""A VL4Gaze dataset built from the synthetic world by the §3 pipeline, against the oracle VLM stub
(``world.OracleVLM`` behind the loopback OpenAI-compatible ``VLMStub``)."""

from __future__ import annotations

from pathlib import Path

from streamgaze_hf.benchmarks.vl4gaze import world
from streamgaze_hf.benchmarks.vl4gaze.build import BuildResult, build_dataset
from streamgaze_hf.objects.vlm import ChatJSONClient

from .vlm_stub import VLMStub

N_SCENES = 6
SEED = 0


def oracle_stub(scenes: list[world.Scene], **kw) -> VLMStub:
    oracle = world.OracleVLM(scenes)
    return VLMStub(responder=lambda req: oracle.reply(req.prompt, req.images), **kw)


def client(stub: VLMStub, cache: Path, **kw) -> ChatJSONClient:
    return ChatJSONClient(stub.url, "oracle-vl", cache_dir=cache, image_format="png", timeout=10, retry_backoff=0, **kw)


def build_world_dataset(tmp: Path, version: str = "1.0.0") -> tuple[list[world.Scene], BuildResult, VLMStub]:
    """The world's images under ``tmp/images``, the VLM cache under ``tmp/cache``, the dataset at
    ``tmp/vl4gaze``."""
    scenes = world.make_world(N_SCENES, seed=SEED)
    world.write_images(scenes, tmp / "images")
    with oracle_stub(scenes) as stub:
        result = build_dataset(world.annotations(scenes), tmp / "images", tmp / "vl4gaze", version,
                               client(stub, tmp / "cache"), seed=SEED, progress=False)
    return scenes, result, stub
