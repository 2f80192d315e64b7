"""The dataset card (``README.md``): YAML front matter that ``datasets`` reads, plus a generated prose body.

Front matter (hf_datasets_notes.md §2): ``pretty_name``, ``license``, ``task_categories``, ``tags``,
a custom top-level ``version:``, ``configs:`` (the benchmark's tasks in its task-table
order, ``default: true`` on the first, then ``videos``, ``gaze``, ``fixations`` and, when the dataset has
them, the Hub-facing ``previews`` (a small ``Video`` copy of each video for the dataset viewer; an older
dataset's ``video_files``), viewer.py), and a generated
``dataset_info:`` (features, split sizes) so ``load_dataset`` checks row counts. A config with no
rows (e.g. ``gaze`` of the official release) is left out of both: ``datasets`` cannot load a 0-row
split; its parquet file is still written and the prose lists it as empty.

Each config carries ``version: X.Y.Z`` and a ``description`` holding the sha256 prefix of its
parquet shard. Both are builder-config fields, so they enter the ``datasets`` cache key: a new
version, or a ``--force`` rebuild of the same version with different rows, never loads a stale
cached copy (notes §6.1; the row counts alone do not change when only answers change).

The statistics tables come from :mod:`.stats`, the same code behind ``streamgaze stats``.
Everything is derived from the files and the version only: same inputs, same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
from datasets import DatasetInfo
from datasets.info import DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

from ..registry import Benchmark, DatasetLayout, get_benchmark
from .files import config_features, config_names, config_rows, data_file, sha256_file
from .schema import PREVIEWS_CONFIG, VIDEO_FILES_CONFIG, VIEWER_FEATURES
from .stats import Stats, manifest_counts, markdown_tables
from .viewer import viewer_configs


def _benchmark(stats: Stats) -> Benchmark:
    """The benchmark the statistics are of (they name it)."""
    return get_benchmark(stats["benchmark"])


def _split_info(path: Path) -> tuple[int, int]:
    """(rows, in-memory arrow bytes) of one parquet shard, read batch by batch (bounded memory)."""
    pf = pq.ParquetFile(path)
    num_bytes = sum(batch.nbytes for batch in pf.iter_batches(batch_size=65536))
    return pf.metadata.num_rows, num_bytes


def declared_configs(stats: Stats) -> list[str]:
    """The configs the card declares, in card order: every config with at least one row.

    ``datasets`` 5.2 cannot load a 0-row split ("corresponds to no data"), so an empty config keeps
    its (row-group-free) parquet file but is left out of ``configs:`` and ``dataset_info:``.
    """
    rows = config_rows(manifest_counts(stats), _benchmark(stats))
    return [config for config in config_names(_benchmark(stats)) if rows[config] > 0]


def dataset_infos(root: str | os.PathLike[str], configs: list[str],
                  benchmark: Benchmark) -> DatasetInfosDict:
    """``dataset_info`` of ``configs``, measured from the parquet files under ``root``."""
    infos = DatasetInfosDict()
    for config in configs:
        path = data_file(root, config)
        rows, num_bytes = _split_info(path)
        splits = SplitDict()
        splits.add(SplitInfo(name="test", num_bytes=num_bytes, num_examples=rows))
        infos[config] = DatasetInfo(
            config_name=config,
            features=config_features(config, benchmark),
            splits=splits,
            download_size=path.stat().st_size,
            dataset_size=num_bytes,
        )
    return infos


def metadata_configs(root: str | os.PathLike[str], version: str, names: list[str],
                     pretty_name: str) -> MetadataConfigs:
    """The ``configs:`` entries of ``names`` (validated by ``datasets``); the first is the default."""
    configs = MetadataConfigs()
    for i, config in enumerate(names):
        digest = sha256_file(data_file(root, config))[:16]
        configs[config] = {
            "data_files": [{"split": "test", "path": f"data/{config}/test-*.parquet"}],
            "version": version,
            "description": f"{pretty_name} {version} {config} (data sha256 {digest})",
            **({"default": True} if i == 0 else {}),
        }
    return configs


def _size_category(n: int) -> str:
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return label
    return "1M<n<10M"


def card_data(root: str | os.PathLike[str], version: str, stats: Stats) -> DatasetCardData:
    """The YAML front matter as ``DatasetCardData``."""
    layout = _benchmark(stats).dataset
    data = DatasetCardData(
        pretty_name=layout.pretty_name,
        license=layout.license,
        language=["en"],
        task_categories=list(layout.task_categories),
        size_categories=[_size_category(stats["questions"])],
        tags=list(layout.tags),
        version=version,
    )
    names = declared_configs(stats) + viewer_configs(root)
    # datasets validates the data_files entries here, but writes the configs sorted by name:
    metadata_configs(root, version, names, layout.pretty_name).to_dataset_card_data(data)
    order = {name: i for i, name in enumerate((*config_names(_benchmark(stats)), *VIEWER_FEATURES))}
    data["configs"] = sorted(data["configs"], key=lambda c: order[c["config_name"]])  # back to card order
    dataset_infos(root, names, _benchmark(stats)).to_dataset_card_data(data)
    return data


def empty_note(stats: Stats) -> list[str]:
    declared = set(declared_configs(stats))
    empty = [c for c in config_names(_benchmark(stats)) if c not in declared]
    if not empty:
        return []
    return [
        f"Empty in this version (0 rows, so not declared as configs; their parquet files are present): "
        f"{', '.join(f'`{c}`' for c in empty)}.",
        "",
    ]


def loading_section(layout: DatasetLayout) -> list[str]:
    """The card's "Loading" section: its heading and the ``load_dataset`` code block of the layout's example
    config (``loading_example``) in a directory named after the dataset (lines; a benchmark's card goes on with
    its configs)."""
    return ["## Loading", "", "```python", "from datasets import load_dataset", "",
            f'ds = load_dataset("/path/to/{layout.dataset_name}", "{layout.loading_example}", split="test")', "```"]


def viewer_note(root: str | os.PathLike[str]) -> list[str]:
    """The card's paragraph on the Hub-facing configs (every benchmark's card; none without them)."""
    notes = []
    if PREVIEWS_CONFIG in viewer_configs(root):
        notes.append(f"`{PREVIEWS_CONFIG}` is what the dataset viewer shows: one small preview per video "
                     "(`preview`, a `datasets.Video` with the mp4 bytes embedded; `shows`: `overlay`, the video "
                     "with the wearer's gaze drawn as the models see it, or `original` for a video without an "
                     "overlay), at a low frame rate and resolution, a few percent of the videos' size. It is "
                     "for looking, not for evaluating: the questions' `video_path` / `overlay_path` name the "
                     "full-size files under `videos/`. Decoding needs `torchcodec` and FFmpeg; without them "
                     'load with `.cast_column("preview", Video(decode=False))` to get `{"path", "bytes"}`.')
    if VIDEO_FILES_CONFIG in viewer_configs(root):
        notes.append(f"`{VIDEO_FILES_CONFIG}` holds the same videos as `datasets.Video` columns (`video`: the "
                     "original, `overlay`: the gaze overlay, bytes embedded; the dataset viewer plays them). "
                     "Decoding needs `torchcodec` and FFmpeg; without them load with "
                     '`.cast_column("video", Video(decode=False))` to get `{"path", "bytes"}`.')
    return notes


def about_section(version: str, qa_order: tuple[str, ...]) -> str:
    return "\n".join(
        [
            "## Files, versions and integrity",
            "",
            f"- `CHANGELOG.md`: what changed in each version (this is {version}).",
            "- `manifest.json`: the version, the build inputs and options, row counts and the sha256 and "
            "size of every file. `streamgaze_hf.dataset.writer.verify_dataset(root)` re-checks the "
            "files; the sha256 of `manifest.json` itself pins an exact build (leaderboard submissions "
            "record it).",
            "- Rows are stored in a fixed order: questions by ("
            + ", ".join(f"`{k}`" for k in qa_order) + "), "
            "videos by `video_id`, gaze samples by (`video_id`, `t`), fixations by (`video_id`, "
            "`fixation_index`). The same inputs and options rebuild byte-identical files.",
        ]
    )


def license_section(license_id: str, note: str = "") -> str:
    """The card's licence section: ``note`` (a benchmark's own text), else the default text: the
    annotations under ``license_id``, the videos and recordings under their sources' terms."""
    if note:
        return "## License\n\n" + note
    return "\n".join(
        [
            "## License",
            "",
            "The annotations (questions, answers, gaze-derived tables) are released under "
            f"{license_id.upper()}. The videos and gaze recordings come from third-party egocentric "
            "datasets, which keep their own licences and terms of use: check them before using or "
            "redistributing the videos.",
        ]
    )


def render_card(root: str | os.PathLike[str], version: str, stats: Stats) -> str:
    """The full ``README.md`` text for the dataset files under ``root``: one skeleton for every benchmark,
    filled with its card texts (``DatasetLayout.card_intro`` and ``card_sections``)."""
    bench = _benchmark(stats)
    layout, plugin = bench.dataset, bench.plugin()
    body = "\n\n".join([f"# {layout.pretty_name} {version}", plugin.card_intro(stats, version),
                         *viewer_note(root),
                         *plugin.card_sections(stats, root), "## Statistics",
                         markdown_tables(stats, level="###"), about_section(version, layout.qa_sort_keys),
                         license_section(layout.license, layout.license_note)])
    return f"---\n{card_data(root, version, stats).to_yaml()}\n---\n\n{body}\n"
