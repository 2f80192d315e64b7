"""Proxy videos of a dataset being built or imported (``--proxy-fps`` / ``--proxy-size``; video/proxy.py).

One proxy per stored video (original and overlay), at ``videos/proxy/<spec>/<original|overlay>/<file>``,
recorded in the manifest (``build.proxy``) and hashed like every dataset file. Built in a process
pool over videos; an output that already exists is reused (builds resume per video).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tqdm import tqdm

from ..video import ProxySpec, build_proxy, proxy_rel_path

VIDEO_DIRS = ("videos/original/", "videos/overlay/")


def _one(job: tuple[Path, Path, ProxySpec]) -> Path:
    src, out, spec = job
    if out.is_file():  # written atomically: an existing file is complete
        return out
    return build_proxy(src, out, spec)


def build_proxies(files: dict[str, Path], spec: ProxySpec, out_of: dict[str, Path], workers: int = 1,
                  progress: bool = True) -> dict[str, Path]:
    """Proxies of the dataset's videos: ``files`` maps dataset paths to source files, ``out_of`` maps the
    same dataset paths to where each proxy is built. Returns {proxy dataset path: built file}."""
    rels = sorted(r for r in files if r.startswith(VIDEO_DIRS))
    jobs = [(files[r], out_of[r], spec) for r in rels]
    bar = tqdm(total=len(jobs), desc=f"proxies {spec.name}", unit="video", disable=not progress)
    done: list[Path] = []
    try:
        if workers > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for p in pool.map(_one, jobs):
                    done.append(p)
                    bar.update()
        else:
            for job in jobs:
                done.append(_one(job))
                bar.update()
    finally:
        bar.close()
    return {proxy_rel_path(r, spec): p for r, p in zip(rels, done)}
