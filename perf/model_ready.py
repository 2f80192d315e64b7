"""Frames to the model, per question and per wrapper: the model-ready clip against today's full-rate clip.

    python perf/model_ready.py [--sizes 640x480,1920x1080] [--layouts ours,camera] [--windows 60,600]
                               [--wrappers all] [--runs 5] [--full-runs 1] [--questions 40] [--sources DIR]
                               [--out results.json]

For every wrapper of the table (``streamgaze_hf/evaluation/model_frames.py``; ``internvl3_5`` reads exactly as
``internvl3`` and is measured as it), with its default ``--model_args`` (the Hugging Face processors' sizes of
their public checkpoints: 384 px for LLaVA-OneVision, 448 px for InternVL3.5-HF), on 640x480 and 1920x1080
sources in two layouts (``ours``: 1 s GOPs, a keyframe at the window start; ``camera``: 10 s GOPs, 3 B-frames,
BT.709; both as perf/frames_to_model.py writes them) and 60 s and 600 s windows (``[540, 600]`` and ``[0, 600]``; the camera 60 s
window starts mid-GOP at 543.3 s), at 24 fps, in one run:

``critical``  the critical path under the default settings: the model-ready clip found in the clip cache (what
              ``doc_to_visual`` does when the prefetcher got there first) and read by the wrapper's own reader up
              to its decoded frames (qwen_vl_utils' ``fetch_video`` as the Qwen wrappers call it; decord as the
              LLaVA, InternVL and API wrappers call it; transformers' ``load_video`` with torchcodec for
              ``internvl_hf``), ``--runs`` times;
``full``      today's full-rate path: the full-rate window clip's cache hit and the same reader on it
              (``--full-runs`` times: at 1080p it takes seconds to minutes);
``floor``     the in-memory floor, for reference: the same frames loaded as an array (``np.load`` of a ``.npy``);
``build``     the background work per question once the full-rate clip is cached: the model-ready clip made
              from it (the picks decoded by the reader, resized, written), once; and ``cut``, the full-rate
              clip's cut on an empty cache (copy or smart cut), once;
``pass``      per source, for one wrapper (``--pass-wrapper``): 8 past windows ``[0, t]`` made in one pass over
              the video (``ready.ready_clips``: ``clips warm`` and the prefetcher) against one read each, per window.

Times are CPU seconds of this process (all threads) and wall seconds; medians. Every read is checked: the
frames the reader returns from the model-ready clip must equal its frames from the full-rate clip (the same
frames, bit for bit; resized where the wrapper resizes). Targets (exit 1 when missed): ``critical`` at most
30 ms CPU for the wrappers whose frames are at most 448 px on the long side (LLaVA-OneVision through
``llava_hf``/``streamgaze_llava_hf``, InternVL through ``internvl_hf``/``internvl2``); ``critical`` at least 20x
below ``full`` at 1080p for every wrapper; ``critical`` of the 600 s window within 20 % of the 60 s one. The
cores it takes to keep up with a 0.61 s model are ``(cut + build) / 0.61``.

Sources take long to encode at 1080p (10 minutes of video per layout); ``--sources DIR`` keeps them for the next
run. About an hour on the 2-core development machine with the sources made.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from streamgaze_hf.evaluation.model_frames import WRAPPERS, frames_request, resolve_spec
from streamgaze_hf.evaluation.ready import ready_clip, ready_sidecar
from streamgaze_hf.video import clips
from streamgaze_hf.video.clips import prepare_clip, read_sidecar

MODEL_S = 0.61
CRITICAL_LIMIT_MS = 30.0
MIN_SPEEDUP = 20.0
FLAT = 0.20
SMALL_SIDE = 448
MAX_HELD_BYTES = 3 * 2**30
FPS = 24
#: the video-processor size of each Hugging Face checkpoint family's public checkpoints (a local processor config
#: with only that size is written, as the real checkpoint's would be read)
CHECKPOINT_SIZES = {"llava_hf": 384, "streamgaze_llava_hf": 384, "internvl_hf": 448}
#: the wrappers measured (internvl3_5 reads exactly as internvl3)
DEFAULT_WRAPPERS = ("qwen2_5_vl/chat", "qwen2_5_vl/simple", "llava_hf/simple", "streamgaze_llava_hf/chat",
                    "llava_onevision/simple", "internvl_hf/chat", "internvl2/simple", "internvl3/simple",
                    "openai/simple", "gpt4v/simple", "batch_gpt4/simple", "qwen3_vl/chat", "qwen3_5/chat",
                    "llava_onevision1_5/chat", "openai/chat", "vllm/chat", "async_openai/chat")
#: window length -> (ours start, camera start); every window ends at or before 603.3 s
WINDOWS = {60: (540.0, 543.3), 600: (0.0, 0.0)}


def _frames_to_model():
    """perf/frames_to_model.py (its sources: the same scene, our layout and the camera layout)."""
    spec = importlib.util.spec_from_file_location("perf_frames_to_model", Path(__file__).resolve().parent /
                                                  "frames_to_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source(dir_: Path, layout: str, w: int, h: int, seconds: float) -> Path:
    path = dir_ / f"{layout}_{w}x{h}_{int(seconds)}s.mp4"
    if not path.is_file():
        t0 = time.perf_counter()
        ftm, n = _frames_to_model(), int(seconds * FPS)
        tmp = path.with_name(f".{path.name}.tmp.mp4")
        if layout == "ours":
            ftm.write_ours(tmp, w, h, FPS, n, [s for s, _ in WINDOWS.values()])
        else:
            ftm.write_camera(tmp, w, h, FPS, n, bt709=True)
        tmp.rename(path)
        print(f"  wrote {path.name} in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


def checkpoint_dirs(work: Path) -> dict[str, str]:
    """A processor config of each Hugging Face checkpoint family's real size (what resolve_spec reads)."""
    out = {}
    for wrapper, size in CHECKPOINT_SIZES.items():
        d = work / f"checkpoint-{wrapper}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "processor_config.json").write_text(json.dumps({"video_processor": {
            "size": {"height": size, "width": size}, "resample": 3, "do_resize": True}}))
        out[wrapper] = str(d)
    return out


def wrapper_reader(key: str, args: dict):
    """The wrapper's own read of a clip up to its decoded frames: path -> (N, H, W, 3) uint8 array."""
    model = key.split("/")[0]
    row = WRAPPERS[key]
    if row.ele is not None:  # through qwen_vl_utils' fetch_video (the glue's reader fix for model-ready clips)
        import decord
        import torch
        from qwen_vl_utils import fetch_video

        from lmms_tasks.wrappers import install_reader_fixes

        install_reader_fixes()
        p = {**row.args, **args}
        patch = 8 if model in ("qwen3_vl", "qwen3_5") else 7  # fetch_video's image_patch_size: 16 or 14

        def fetch(path):
            ele = {"type": "video", "video": path, **row.ele(p, len(decord.VideoReader(path)))}
            video = fetch_video(ele, image_patch_size=2 * patch)
            if key == "llava_onevision1_5/simple":  # the wrapper keeps max_num_frames of them, the last included
                idx = np.linspace(0, video.shape[0] - 1, int(p["max_num_frames"]), dtype=int)
                video = video[idx if video.shape[0] - 1 in idx else np.append(idx, video.shape[0] - 1)]
            return video.to(dtype=torch.uint8).permute(0, 2, 3, 1).numpy()

        return fetch
    if model == "qwen2_5_vl":
        import decord
        from qwen_vl_utils import fetch_video

        p = {**WRAPPERS[key].args, **args}

        def qwen(path):
            ele = {"type": "video", "video": path, "max_pixels": p["max_pixels"], "min_pixels": p["min_pixels"]}
            if key.endswith("/chat"):
                n = len(decord.VideoReader(path))  # the chat wrapper's probe
                ele["nframes"] = max(2, (min(p["max_num_frames"], n) // 2) * 2)
                video = fetch_video(ele)
            else:
                decord.VideoReader(path)[0].asnumpy()  # the simple wrapper reads frame 0 of every video
                video = fetch_video(ele)
                nq = video.shape[0]
                idx = np.unique(np.linspace(0, nq - 1, p["max_num_frames"], dtype=int))
                if nq - 1 not in idx:
                    idx = np.unique(np.append(idx, nq - 1))
                video = video[idx]
            return video.to(dtype=__import__("torch").uint8).permute(0, 2, 3, 1).numpy()

        return qwen
    if model in ("llava_hf", "llava_onevision"):
        from lmms_eval.models.simple.llava_hf import LlavaHf

        count = int(args.get("max_frames_num", 32))
        return lambda path: LlavaHf.load_video(None, [path], count)
    if model == "streamgaze_llava_hf":
        from lmms_tasks.wrappers import uniform_frames

        count = int(args.get("max_frames_num", 32))
        return lambda path: uniform_frames(path, count)
    if model == "internvl_hf":
        import torch
        from transformers.video_utils import load_video

        n = int(args.get("num_frames", 32))

        def sample(metadata, **_kw):  # InternVLVideoProcessor.sample_frames
            total = metadata.total_num_frames
            return torch.arange(total / n / 2, total, total / n).int().tolist()

        return lambda path: np.asarray(load_video(path, backend="torchcodec", sample_indices_fn=sample)[0]).transpose(
            0, 2, 3, 1)  # (T, C, H, W) as it decodes -> (T, H, W, C)
    if model in ("internvl2", "internvl3", "internvl3_5"):
        from decord import VideoReader, cpu
        from lmms_eval.models.simple.internvl3 import get_index
        from PIL import Image

        n = int(args.get("num_frame", 32))

        def internvl(path):
            vr = VideoReader(path, ctx=cpu(0), num_threads=1)
            idx = get_index(None, float(vr.get_avg_fps()), len(vr) - 1, first_idx=0, num_segments=n)
            return np.stack([np.asarray(Image.fromarray(vr[i].asnumpy()).convert("RGB")) for i in idx])

        return internvl
    if model in ("openai", "gpt4v", "batch_gpt4"):
        from decord import VideoReader, cpu

        spec_sample = WRAPPERS[key].sample
        p = {**WRAPPERS[key].args, **args}

        def api(path):
            vr = VideoReader(path, ctx=cpu(0))
            picks = sorted(set(spec_sample(p, len(vr), 0.0).picks)) if model == "openai" else list(
                spec_sample(p, len(vr), 0.0).picks)
            return vr.get_batch(picks).asnumpy()

        return api
    raise ValueError(key)


def timed(fn, *args):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, time.process_time() - c0, out


def warm_up(video: Path, cache: Path) -> None:
    """Imports and first calls (torch, torchvision, decord, qwen_vl_utils) outside every timed figure."""
    from streamgaze_hf.video.resize import resize_frames

    clip = prepare_clip(video, 0.0, 2.0, None, cache)
    frames = wrapper_reader("llava_hf/simple", {"max_frames_num": 4})(str(clip))
    for kernel in ("qwen", "hf", "pil"):
        resize_frames(frames, (64, 48), kernel)
    wrapper_reader("qwen2_5_vl/chat", {})(str(clip))


def measure(key: str, args: dict, video: Path, start: float, end: float, cache: Path, work: Path, runs: int,
            full_runs: int) -> dict:
    request = frames_request(*key.split("/"), args)
    spec = resolve_spec(request)
    full = prepare_clip(video, start, end, None, cache)
    ready = ready_clip(video, start, end, None, spec, cache)
    assert ready.suffix == ".mov", f"{key}: no model-ready clip for [{start}, {end}]"
    side = ready_sidecar(ready)
    read = wrapper_reader(key, args)
    res = {"frames": side["n_frames"], "size": side["size"], "full_frames": side["full_frames"],
           "mode": read_sidecar(full)["mode"], "bytes": ready.stat().st_size}

    def path_times(clip_fn, n):
        walls, cpus, out = [], [], None
        for _ in range(n):
            w, c, clip = timed(clip_fn)
            w2, c2, out = timed(read, str(clip))
            walls.append(w + w2)
            cpus.append(c + c2)
        return statistics.median(walls), statistics.median(cpus), out

    crit_wall, crit_cpu, small = path_times(lambda: ready_clip(video, start, end, None, spec, cache), runs)
    w, h = side["full_size"]
    held = side.get("decoded", side["n_frames"]) * w * h * 3
    if key == "qwen2_5_vl/simple":  # qwen_vl_utils holds every frame it decodes (2 fps of the window), then resizes
        from streamgaze_hf.evaluation.model_frames import qwen_smart_nframes

        tw, th = side["size"]
        held = qwen_smart_nframes(side["full_frames"], side["full_fps"]) * (w * h * 3 + tw * th * 3 * 4)
    if held > MAX_HELD_BYTES:
        print(f"  {key}: the full-rate path is not run: the wrapper would hold {held / 2**30:.1f} GiB of frames "
              "(more than this shared machine can spare)", flush=True)
        full_wall = full_cpu = float("nan")
    else:
        full_wall, full_cpu, big = path_times(lambda: prepare_clip(video, start, end, None, cache), full_runs)
        expected = _expected(big, side, key)
        if res["mode"] == "copy" and (small.shape != expected.shape or not np.array_equal(small, expected)):
            raise AssertionError(f"{key} on {video.name} [{start}, {end}]: the model-ready frames differ from the "
                                 f"full-rate clip's ({small.shape} vs {expected.shape})")
    npy = work / "floor.npy"
    np.save(npy, small)
    floor = [timed(np.load, npy)[:2] for _ in range(runs)]
    res.update(critical=(crit_wall, crit_cpu), full=(full_wall, full_cpu),
               floor=(statistics.median(f[0] for f in floor), statistics.median(f[1] for f in floor)))
    return res


def background_windows(n: int, seconds: float = 600.0) -> list[tuple[float, float]]:
    """``n`` windows of one video as a run asks for them: half past ``[0, t]``, half present ``[t - 60, t]``, ``t``
    spread from 60 s to the video's end."""
    ts = np.linspace(60.0, seconds, max(1, n // 2) + 1)[1:]
    past = [(0.0, float(t)) for t in ts]
    present = [(float(t) - 60.0, float(t)) for t in ts - 7.3]
    return (past + present)[:n]


def measure_background(key: str, args: dict, video: Path, work: Path, n: int, floor_cpu: float) -> dict:
    """The background per question of ``n`` windows of ``video`` made in one pass (``ready.ready_clips``) on an empty
    cache, against the decode floor (``floor_cpu``: the whole video decoded once), and the bytes it writes."""
    from streamgaze_hf.evaluation.ready import ready_clips

    spec = resolve_spec(frames_request(*key.split("/"), args))
    cache = work / f"bg-{video.stem}-{key.replace('/', '-')}"
    shutil.rmtree(cache, ignore_errors=True)
    clips._clear_memos()
    wall, cpu, (out, stats) = timed(ready_clips, video, background_windows(n), None, spec, cache)
    written = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    shutil.rmtree(cache, ignore_errors=True)
    return {"questions": n, "cpu_per_question": cpu / n, "wall_per_question": wall / n,
            "floor_per_question": floor_cpu / n, "vs_floor": cpu / max(floor_cpu, 1e-9),
            "bytes_per_question": written / n, "decoded": stats["decoded"], "units": stats["units"],
            "model_ready": sum(p.suffix == ".mov" for p in out)}


def decode_floor(video: Path) -> float:
    """CPU seconds of decoding every frame of ``video`` once (PyAV, one thread, no conversion)."""
    import av

    t0 = time.process_time()
    with av.open(str(video)) as c:
        s = c.streams.video[0]
        s.codec_context.thread_count = 1
        s.codec_context.thread_type = "NONE"
        for _frame in c.decode(s):
            pass
    return time.process_time() - t0


def _expected(full_frames: np.ndarray, side: dict, key: str) -> np.ndarray:
    """The frames the wrapper's reader returns from the full-rate clip, resized to the model-ready size where the
    wrapper resizes after reading (its processor; the reader's own output is compared as it is otherwise)."""
    w, h = side["size"]
    if full_frames.shape[1:3] == (h, w):
        return full_frames
    from streamgaze_hf.evaluation.model_frames import WRAPPERS as rows
    from streamgaze_hf.video.resize import resize_frames

    return resize_frames(full_frames, (w, h), rows[key].kernel)


def wrapper_args(key: str, ckpt: dict[str, str]) -> dict:
    """The ``--model_args`` a wrapper is measured with: its defaults, the public checkpoints' processor sizes."""
    model = key.split("/")[0]
    args = {"pretrained": ckpt[model]} if model in ckpt else {}
    if model in ("internvl2", "internvl3", "internvl3_5"):
        args["modality"] = "video"
    return args


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="640x480,1920x1080")
    ap.add_argument("--layouts", default="ours,camera")
    ap.add_argument("--windows", default="60,600", help="window lengths in seconds (60 and/or 600)")
    ap.add_argument("--wrappers", default=",".join(DEFAULT_WRAPPERS))
    ap.add_argument("--runs", type=int, default=5, help="runs of the critical path and the floor (default 5)")
    ap.add_argument("--full-runs", type=int, default=1, help="runs of the full-rate path (default 1: seconds each)")
    ap.add_argument("--sources", type=Path, default=None, help="keep the generated sources here (reused)")
    ap.add_argument("--questions", type=int, default=40,
                    help="windows of each source made in one pass for the background figures (0 = none)")
    ap.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    a = ap.parse_args(argv)
    from streamgaze_hf.harness.backends import choose_backends

    print(f"decode backends (as streamgaze eval sets them): {choose_backends()}", flush=True)
    import logging

    logging.getLogger("qwen_vl_utils.vision_process").setLevel(logging.ERROR)  # its max_pixels warning per read
    sizes = [tuple(int(v) for v in s.split("x")) for s in a.sizes.split(",") if s]
    lengths = [int(v) for v in a.windows.split(",") if v]
    wrappers = [k for k in a.wrappers.split(",") if k]
    unknown = [k for k in wrappers if k not in WRAPPERS] + [n for n in lengths if n not in WINDOWS]
    if unknown:
        ap.error(f"unknown wrappers or window lengths: {unknown}")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="model-ready-") as tmp:
        work = Path(tmp)
        src_dir = a.sources or work
        src_dir.mkdir(parents=True, exist_ok=True)
        ckpt = checkpoint_dirs(work)
        for w, h in sizes:
            for layout in a.layouts.split(","):
                video = source(src_dir, layout, w, h, 610.0)
                warm_up(video, work / "cache-warm-up")
                for n in lengths:
                    start = WINDOWS[n][0 if layout == "ours" else 1]
                    end = start + n
                    cache = work / f"cache-{video.stem}-{n}"
                    for key in wrappers:
                        r = measure(key, wrapper_args(key, ckpt), video, start, end, cache, work, a.runs, a.full_runs)
                        name = f"{w}x{h} {layout} {n}s {key}"
                        results[name] = r
                        print(f"{name}: {r['frames']} of {r['full_frames']} frames at {r['size'][0]}x{r['size'][1]} "
                              f"({r['mode']}); critical {1e3 * r['critical'][1]:.1f} ms CPU "
                              f"({1e3 * r['critical'][0]:.1f} wall), full {1e3 * r['full'][1]:.0f} ms CPU, floor "
                              f"{1e3 * r['floor'][1]:.2f} ms", flush=True)
                if a.questions:
                    floor_cpu = decode_floor(video)
                    for key in wrappers:
                        r = measure_background(key, wrapper_args(key, ckpt), video, work, a.questions, floor_cpu)
                        results[f"{w}x{h} {layout} background {key}"] = r
                        print(f"{w}x{h} {layout} {key}: background {r['cpu_per_question']:.3f} s CPU a question "
                              f"({a.questions} windows, one pass) = {r['vs_floor']:.2f} x the decode floor "
                              f"{r['floor_per_question']:.3f} s; {r['bytes_per_question'] / 1e6:.1f} MB a question",
                              flush=True)
    ok = report(results, sizes, lengths, wrappers, a.layouts.split(","))
    if a.out:
        a.out.write_text(json.dumps(results, indent=1) + "\n")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def report(results: dict, sizes, lengths, wrappers, layouts) -> bool:
    ok = True
    print("\n| source | window | wrapper | frames | size | critical ms CPU (wall) | per frame | full-rate ms CPU | "
          "x | floor ms |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    for w, h in sizes:
        for layout in layouts:
            for n in lengths:
                for key in wrappers:
                    r = results[f"{w}x{h} {layout} {n}s {key}"]
                    crit, full = r["critical"][1], r["full"][1]
                    print(f"| {w}x{h} {layout} | {n} s | {key} | {r['frames']} | {r['size'][0]}x{r['size'][1]} | "
                          f"{1e3 * crit:.1f} ({1e3 * r['critical'][0]:.1f}) | {1e3 * crit / r['frames']:.2f} | "
                          f"{1e3 * full:.0f} | {full / max(crit, 1e-9):.0f} | {1e3 * r['floor'][1]:.2f} |")
    print("\n| source | wrapper | background s CPU a question | decode floor s a question | x floor | "
          "cache MB a question | cores for 0.61 s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for w, h in sizes:
        for layout in layouts:
            for key in wrappers:
                r = results.get(f"{w}x{h} {layout} background {key}")
                if r is None:
                    continue
                print(f"| {w}x{h} {layout} | {key} | {r['cpu_per_question']:.3f} | {r['floor_per_question']:.3f} | "
                      f"{r['vs_floor']:.2f} | {r['bytes_per_question'] / 1e6:.1f} | "
                      f"{r['cpu_per_question'] / MODEL_S:.2f} |")
    print()
    for w, h in sizes:
        for layout in layouts:
            for key in wrappers:
                for n in lengths:
                    r = results[f"{w}x{h} {layout} {n}s {key}"]
                    crit = r["critical"][1] * 1e3
                    if max(r["size"]) <= SMALL_SIDE and crit > CRITICAL_LIMIT_MS:
                        ok = False
                        print(f"MISSED {w}x{h} {layout} {n}s {key}: critical {crit:.1f} ms CPU > {CRITICAL_LIMIT_MS:g}")
                    if h >= 1080 and not np.isnan(r["full"][1]) and r["full"][1] / max(r["critical"][1], 1e-9) < MIN_SPEEDUP:
                        ok = False
                        print(f"MISSED {w}x{h} {layout} {n}s {key}: {r['full'][1] / r['critical'][1]:.1f}x below the "
                              f"full-rate path (need {MIN_SPEEDUP:g}x)")
                if {60, 600} <= set(lengths):
                    a, b = (results[f"{w}x{h} {layout} {n}s {key}"]["critical"][1] for n in (60, 600))
                    if b > (1 + FLAT) * a:
                        ok = False
                        print(f"MISSED {w}x{h} {layout} {key}: 600 s window {1e3 * b:.1f} ms vs 60 s {1e3 * a:.1f} ms "
                              f"(more than {100 * FLAT:.0f} % above)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
