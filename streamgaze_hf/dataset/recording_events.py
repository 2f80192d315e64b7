"""What a recording had besides its gaze, kept in a built dataset: its action timeline, the device's own fixations
and the device's blinks (docs/datasets.md "Recording events").

One optional file, :data:`EVENTS_FILE` (``events/recording_events.json``), written by a raw build when at least one recording
had any of them (a kind is there only for the recordings whose source gave it: the demo world and ``actions.csv``
give actions; Neon and Pupil Cloud fixations and blinks)::

    {"format": 1,
     "videos": {"<video_id>": {"actions": [{"start": s, "end": s, "label": "..."}, ...],
                               "device_fixations": [{"start": s, "end": s, "x": f, "y": f, "n_samples": n}, ...],
                               "blinks": [{"start": s, "end": s}, ...]}}}

Times are seconds on the scene video's clock (the dataset's videos), x and y fractions of the frame (origin
top-left), as the readers give them (gaze/sources/base.py). Sorted keys: the same recordings give the same bytes.
``export-bids`` of the dataset writes them as physioevents (``action``, ``device_fixation``, ``blink``), which
``--source bids`` reads back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..gaze import Fixation

__all__ = ["EVENTS_FILE", "events_of_recording", "events_json", "read_recording_events", "actions_of",
           "device_fixations_of", "blinks_of"]

EVENTS_FILE = "events/recording_events.json"
FORMAT = 1


def events_of_recording(actions, device_fixations, device_blinks) -> dict:
    """One recording's entry: each kind it had (actions when there are any; the device's fixations and blinks
    when the source gives them, None meaning it does not)."""
    out: dict = {}
    if actions:
        out["actions"] = [{"start": float(a.start), "end": float(a.end), "label": str(a.label)} for a in actions]
    if device_fixations is not None:
        out["device_fixations"] = [{"start": float(f.start), "end": float(f.end), "x": float(f.x), "y": float(f.y),
                                    "n_samples": int(f.n_samples)} for f in device_fixations]
    if device_blinks is not None:
        out["blinks"] = [{"start": float(a), "end": float(b)} for a, b in device_blinks]
    return out


def events_json(by_video: Mapping[str, dict]) -> str | None:
    """The file's text for every recording's entry (video id -> :func:`recording_events`), None when no recording
    had any event (then the dataset has no such file)."""
    videos = {vid: entry for vid, entry in sorted(by_video.items()) if entry}
    if not videos:
        return None
    return json.dumps({"format": FORMAT, "videos": videos}, sort_keys=True, indent=1) + "\n"


def read_recording_events(dataset) -> dict[str, dict]:
    """video id -> its entry, from a dataset (a ``DatasetHandle``) that has the file; {} otherwise."""
    if EVENTS_FILE not in (dataset.manifest.get("files") or {}):
        return {}
    data = json.loads(dataset.file(EVENTS_FILE).read_text(encoding="utf-8"))
    return dict(data.get("videos") or {})


def actions_of(entry: dict) -> list[tuple[float, float, str]]:
    return [(a["start"], a["end"], a["label"]) for a in entry.get("actions", [])]


def device_fixations_of(entry: dict) -> list[Fixation] | None:
    if "device_fixations" not in entry:
        return None
    return [Fixation(f["start"], f["end"], f["x"], f["y"], f["n_samples"]) for f in entry["device_fixations"]]


def blinks_of(entry: dict) -> list[tuple[float, float]] | None:
    return None if "blinks" not in entry else [(b["start"], b["end"]) for b in entry["blinks"]]
