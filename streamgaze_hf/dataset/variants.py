"""Which gaze-input variants (paper Table 3) a built dataset can serve, read from its files.

* ``visual`` (the default tasks): every video has a gaze-overlay video (``overlay_path``);
* ``text`` (``_textgaze``) and ``salience`` (``_salience``): the dataset has gaze, as gaze samples
  (the ``gaze`` config) or fixation centres (finite x/y in the ``fixations`` config);
* ``none`` (``_nogaze``): always.

One rule for the dataset card, the import report and :func:`streamgaze_hf.benchmarks.streamgaze.evaluation.load_docs`
(which refuses an unsupported variant with one clear error instead of prompts without gaze).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .files import config_file
from .load import DatasetHandle
from .reader import parquet_rows, read_parquet
from .schema import CONFIG_FEATURES

#: an open dataset (its files as the handle verified them, the manifest read once at the edge), or the directory
#: of a dataset being written (its card and import report)
Source = DatasetHandle | str | os.PathLike[str]

#: gaze mode -> task-name suffix (evaluation.GAZE_VARIANTS inverted; kept here to avoid an import cycle)
SUFFIX = {"visual": "", "none": "_nogaze", "text": "_textgaze", "salience": "_salience"}


def _rows(path: Path, columns: list[str]) -> list[dict]:
    if not path.is_file():
        return []
    config = path.parent.name
    return read_parquet(path, f"parquet file of config {config!r}", CONFIG_FEATURES[config], columns).to_pylist()


def _config(source: Source, config: str) -> Path:
    return source.config_file(config) if isinstance(source, DatasetHandle) else config_file(source, config)


def has_gaze(root: Source) -> bool:
    """Whether the dataset holds any gaze: a gaze sample or a fixation with a centre."""
    gaze = _config(root, "gaze")
    if gaze.is_file() and parquet_rows(gaze, "parquet file of config 'gaze'", CONFIG_FEATURES["gaze"]) > 0:
        return True
    return any(math.isfinite(r["x"]) and math.isfinite(r["y"])
               for r in _rows(_config(root, "fixations"), ["x", "y"]))


def videos_without_overlay(root: Source) -> list[str]:
    """Ids of the videos that have no gaze-overlay video."""
    return sorted(r["video_id"] for r in _rows(_config(root, "videos"), ["video_id", "overlay_path"])
                  if not r["overlay_path"])


def variant_support(root: str | os.PathLike[str]) -> dict[str, str]:
    """Gaze mode -> "" when the dataset supports it, else the reason it does not (card order)."""
    no_overlay = videos_without_overlay(root)
    gaze = has_gaze(root)
    no_gaze = "no gaze samples and no fixation centres"
    return {
        "visual": f"{len(no_overlay)} video(s) without a gaze-overlay video" if no_overlay else "",
        "none": "",
        "text": "" if gaze else no_gaze,
        "salience": "" if gaze else no_gaze,
    }


def variants_markdown(root: str | os.PathLike[str]) -> str:
    """The card's "Gaze variants" section."""
    support = variant_support(root)
    lines = ["## Gaze variants", "",
             "Which gaze-input settings (paper Table 3; lmms-eval task suffixes) this dataset supports:", "",
             "| Setting | Task suffix | Supported |", "| --- | --- | --- |"]
    names = {"visual": "gaze overlay video + gaze instruction", "none": "original video, no gaze",
             "text": "fixation list in the prompt", "salience": "salience map image"}
    for mode, why in support.items():
        suffix = f"`{SUFFIX[mode]}`" if SUFFIX[mode] else "(none)"
        lines.append(f"| {names[mode]} | {suffix} | {'yes' if not why else 'no: ' + why} |")
    return "\n".join(lines)
