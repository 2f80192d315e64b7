"""The versioned dataset: the one opener (DatasetHandle), its files, reader, schema, writer, card, checks,
statistics, proxies, previews, publishing and the BIDS export. docs/architecture.md "The tree" names each module's
job."""

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from .bids_export import export_bids
    from .card import empty_note, loading_section
    from .doctor import dataset_problems
    from .eval_yaml import EVAL_YAML, EVALUATION_FRAMEWORK, allow_list_request, eval_task_ids, eval_yaml
    from .files import data_file
    from .import_report import ImportReport, Problem, ProblemSink, kind_section, snippet
    from .load import DatasetHandle, dataset_at, locate, missing_dataset, open_dataset
    from .mc_rules import validate_mc_options
    from .proxies import build_proxies
    from .publish import publish_dataset
    from .recording_events import EVENTS_FILE, events_json, events_of_recording
    from .recording_jobs import RecordingsFailed, run_recordings
    from .rows import gaze_row, gaze_rows, gaze_tracks, video_row
    from .schema import LETTERS, dump_metadata, letter, letter_index
    from .stats import compute_stats, format_stats
    from .variants import has_gaze, variant_support, variants_markdown
    from .writer import (
        DatasetContent,
        check_destination,
        check_version,
        dataset_destination,
        manifest_digest,
        write_dataset,
    )

#: public name -> the module of the package that defines it
_FACE = {
    "export_bids": "bids_export",
    "empty_note": "card",
    "loading_section": "card",
    "dataset_problems": "doctor",
    "EVAL_YAML": "eval_yaml",
    "EVALUATION_FRAMEWORK": "eval_yaml",
    "allow_list_request": "eval_yaml",
    "eval_task_ids": "eval_yaml",
    "eval_yaml": "eval_yaml",
    "data_file": "files",
    "ImportReport": "import_report",
    "Problem": "import_report",
    "ProblemSink": "import_report",
    "kind_section": "import_report",
    "snippet": "import_report",
    "DatasetHandle": "load",
    "dataset_at": "load",
    "locate": "load",
    "missing_dataset": "load",
    "open_dataset": "load",
    "validate_mc_options": "mc_rules",
    "build_proxies": "proxies",
    "publish_dataset": "publish",
    "EVENTS_FILE": "recording_events",
    "events_json": "recording_events",
    "events_of_recording": "recording_events",
    "RecordingsFailed": "recording_jobs",
    "run_recordings": "recording_jobs",
    "gaze_row": "rows",
    "gaze_rows": "rows",
    "gaze_tracks": "rows",
    "video_row": "rows",
    "LETTERS": "schema",
    "dump_metadata": "schema",
    "letter": "schema",
    "letter_index": "schema",
    "compute_stats": "stats",
    "format_stats": "stats",
    "has_gaze": "variants",
    "variant_support": "variants",
    "variants_markdown": "variants",
    "DatasetContent": "writer",
    "check_destination": "writer",
    "check_version": "writer",
    "dataset_destination": "writer",
    "manifest_digest": "writer",
    "write_dataset": "writer",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
}
__all__ = [
    "DatasetContent", "DatasetHandle", "EVALUATION_FRAMEWORK", "EVAL_YAML", "EVENTS_FILE", "ImportReport", "LETTERS",
    "Problem", "ProblemSink", "RecordingsFailed", "allow_list_request", "build_proxies", "check_destination", "check_version",
    "compute_stats", "data_file", "dataset_at", "dataset_destination", "dataset_problems", "dump_metadata",
    "empty_note", "eval_task_ids", "eval_yaml", "events_json", "events_of_recording", "export_bids", "format_stats",
    "gaze_row", "gaze_rows", "gaze_tracks", "has_gaze", "kind_section", "letter", "letter_index", "loading_section",
    "locate", "manifest_digest", "missing_dataset", "open_dataset", "publish_dataset", "run_recordings", "snippet",
    "validate_mc_options",
    "variant_support", "variants_markdown", "video_row", "write_dataset",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
