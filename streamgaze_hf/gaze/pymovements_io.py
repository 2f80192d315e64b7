"""An ``export-bids`` recording in pymovements (the ``bids`` extra): its physio file loaded with pymovements' own
CSV reader, placed in pixels and degrees of the scene camera, ready for its detectors (I-VT, I-DT, ...).

Head-mounted glasses have no screen: the scene camera's image is one. Its pixels are the sidecar's
``SceneVideo`` size; its physical size is that of a pinhole camera's image plane at ``distance_cm`` whose
width spans the camera's horizontal field of view (``width_cm = 2 distance tan(hfov / 2)``), so pymovements'
pixel-to-degree conversion gives the angle from the camera's axis. The field of view: ``hfov_deg`` when given,
else the vendor's specification for the sidecar's ``ManufacturersModelName`` (:data:`SCENE_HFOV`), else the
toolkit's default (gaze/fov.py, 90°). Samples the device marked invalid have no position (null), so no detector
uses them. pymovements' I-DT needs whole-number timestamps: time is in milliseconds, rounded (the samples of
the glasses here are at least 4 ms apart).
"""

from __future__ import annotations

import math
from pathlib import Path

from .bids import read_sidecar
from .fov import DEFAULT_HFOV_DEG

#: the scene camera's horizontal field of view (degrees) of the glasses whose specification gives it
SCENE_HFOV = {"Neon": 103.0, "Tobii Pro Glasses 2": 82.0, "Tobii Pro Glasses 3": 95.0}


def scene_hfov(meta: dict, hfov_deg: float | None = None) -> float:
    """The horizontal field of view used for a physio sidecar (module docstring)."""
    return float(hfov_deg or SCENE_HFOV.get(str(meta.get("ManufacturersModelName", "")), DEFAULT_HFOV_DEG))


def physio_gaze(sidecar: str | Path, hfov_deg: float | None = None, distance_cm: float = 60.0,
                smoothing_ms: float = 40.0):
    """The ``_physio.tsv.gz`` beside ``sidecar`` as a ``pymovements.Gaze`` with ``pixel``, ``position`` (degrees)
    and ``velocity`` (degrees per second: a Savitzky-Golay derivative over about ``smoothing_ms``, at least 5
    samples, as pymovements offers for noisy data) columns, time in integer milliseconds."""
    import polars as pl
    import pymovements as pm

    sidecar = Path(sidecar)
    meta = read_sidecar(sidecar)
    width, height = int(meta["SceneVideo"]["Width"]), int(meta["SceneVideo"]["Height"])
    width_cm = 2.0 * distance_cm * math.tan(math.radians(scene_hfov(meta, hfov_deg)) / 2.0)
    experiment = pm.Experiment(screen_width_px=width, screen_height_px=height, screen_width_cm=width_cm,
                               screen_height_cm=width_cm * height / width, distance_cm=distance_cm,
                               origin="upper left", sampling_rate=float(meta["SamplingFrequency"]))
    loaded = pm.gaze.from_csv(str(sidecar).removesuffix(".json") + ".tsv.gz", experiment=experiment,
                              time_column="timestamp", time_unit="s",
                              # the file's coordinates as its one component (fractions of the frame: scaled to
                              # pixels below); without one pymovements warns that none could be inferred
                              pixel_columns=["x_coordinate", "y_coordinate"],
                              read_csv_kwargs={"separator": "\t", "has_header": False,
                                               "new_columns": list(meta["Columns"]), "null_values": ["n/a"]})
    tracked = pl.col("valid") == 1 if "valid" in meta["Columns"] else pl.lit(True)
    samples = loaded.samples.select(
        pl.col("time").round(0).cast(pl.Int64).alias("time"),
        pl.when(tracked).then(pl.col("pixel").list.get(0) * width).alias("x_px"),
        pl.when(tracked).then(pl.col("pixel").list.get(1) * height).alias("y_px"))
    gaze = pm.Gaze(samples=samples, experiment=experiment, pixel_columns=["x_px", "y_px"], time_column="time",
                   time_unit="ms")
    gaze.pix2deg()
    rate = float(meta["SamplingFrequency"])
    window = max(5, int(round(smoothing_ms * rate / 1000.0)) | 1)
    gaze.pos2vel(method="savitzky_golay", degree=2, window_length=window)
    return gaze


def fixations(gaze, method: str, minimum_duration_ms: float = 100.0, **params) -> list[tuple[float, float]]:
    """(onset, offset) in seconds of the fixations pymovements' ``idt`` or ``ivt`` finds in ``gaze``, on the
    samples' own times. Both run on the sample index (pymovements' I-DT needs a constant interval; the glasses'
    intervals jitter by a few hundred microseconds), so ``minimum_duration_ms`` becomes a number of samples at
    the recording's median interval; ``params``: the detector's own (``dispersion_threshold`` in degrees,
    ``velocity_threshold`` in degrees per second)."""
    import numpy as np
    import pymovements as pm

    t = gaze.samples["time"].to_numpy()
    period = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    n = max(1, int(round(minimum_duration_ms / period)))
    if method == "idt":
        events = pm.events.idt(positions=gaze.samples["position"], minimum_duration=n, **params)
    elif method == "ivt":
        events = pm.events.ivt(velocities=gaze.samples["velocity"], minimum_duration=n, **params)
    else:
        raise ValueError(f"unknown pymovements detector {method!r} (idt, ivt)")
    return [(float(t[a]) / 1000.0, float(t[b]) / 1000.0) for a, b in events.frame.select("onset", "offset").rows()]
