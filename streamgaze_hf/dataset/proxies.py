"""Proxy videos of a dataset being built or imported (``--proxy-fps`` / ``--proxy-size``; video/proxy.py).

One proxy per stored video (original and overlay), at ``videos/proxy/<spec>/<original|overlay>/<file>``,
recorded in the manifest (``build.proxy``) and hashed like every dataset file. Built over videos on the
command's workers (util/executors.py: processes or a Ray cluster's tasks); an output that already exists is reused
(builds resume per video; each is written atomically).
"""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from ..util.executors import SMALL_VIDEO, Workers, as_workers, map_ordered
from ..video import ProxySpec, build_proxy, proxy_rel_path

VIDEO_DIRS = ("videos/original/", "videos/overlay/")


def _one(src: Path, out: Path, spec: ProxySpec) -> str:
    if out.is_file():  # written atomically: an existing file is complete
        return str(out)
    return str(build_proxy(src, out, spec))


def build_proxies(files: dict[str, Path], spec: ProxySpec, out_of: dict[str, Path], workers: int | Workers = 1,
                  progress: bool = True) -> dict[str, Path]:
    """Proxies of the dataset's videos: ``files`` maps dataset paths to source files, ``out_of`` maps the
    same dataset paths to where each proxy is built. Returns {proxy dataset path: built file}."""
    rels = sorted(r for r in files if r.startswith(VIDEO_DIRS))
    jobs = [(files[r], out_of[r], spec) for r in rels]
    with tqdm(total=len(jobs), desc=f"proxies {spec.name}", unit="video", disable=not progress) as bar:
        done = map_ordered(as_workers(workers).open(SMALL_VIDEO, len(jobs)), _one, jobs, bar)
    return {proxy_rel_path(r, spec): Path(p) for r, p in zip(rels, done)}
