"""Writes the official projections into the real-file corpus (``official/aria_mps/``, see
tests/fixtures/real_corpus.py): every row of the real Aria MPS eye-gaze excerpts in the corpus's ``raw/aria_mps/``, read by projectaria-tools' own reader (``mps.read_eyegaze``) and projected
onto the real RGB calibration by its own ``get_gaze_vector_reprojection`` (depth: ``eye_gaze.depth or 1.0``,
as in its tutorials). Not part of the test run (projectaria-tools is no dependency of this project); run
it in an environment of its own::

    python -m venv /tmp/pat && /tmp/pat/bin/pip install projectaria-tools==2.3.0
    STREAMGAZE_REAL_CORPUS=/path/to/real_corpus /tmp/pat/bin/python tests/data/real/make_aria_reference.py

Columns: the row, its device time, the camera image size, projectaria-tools' yaw, pitch, depth and
spatial_gaze_point_valid for the row, the projected pixel (empty when projectaria-tools returns None:
outside the camera's valid area) and the same pixel without the camera's validity checks.
"""

import os
from pathlib import Path

import numpy as np
from projectaria_tools.core import calibration, mps
from projectaria_tools.core.mps.utils import get_gaze_vector_reprojection

CORPUS = Path(os.environ.get("STREAMGAZE_REAL_CORPUS") or Path(__file__).resolve().parents[4] / "shared" / "real_corpus")
RAW = CORPUS / "raw" / "aria_mps"
HERE = CORPUS / "official" / "aria_mps"
CALIBRATIONS = {"gen1": RAW / "gen1_aea_recording_calibration.json", "gen2": RAW / "gen2_unit_test_calibration.json"}


def reference(calibration_json: Path, gaze_csv: Path, out: Path) -> None:
    dc = calibration.device_calibration_from_json_string(calibration_json.read_text())
    cam = dc.get_camera_calib("camera-rgb")
    width, height = (int(v) for v in cam.get_image_size())
    T_camera_cpf = dc.get_transform_device_sensor("camera-rgb").inverse() @ dc.get_transform_device_cpf()
    lines = ["row,tracking_timestamp_us,width,height,yaw,pitch,depth,spatial_gaze_point_valid,u,v,"
             "u_unchecked,v_unchecked"]
    for i, g in enumerate(mps.read_eyegaze(str(gaze_csv))):
        depth = g.depth or 1.0
        uv = get_gaze_vector_reprojection(g, "camera-rgb", dc, cam, depth)
        if g.spatial_gaze_point_valid:
            p_cpf = np.asarray(g.spatial_gaze_point_in_cpf, dtype=float)
        else:
            p_cpf = mps.get_eyegaze_point_at_depth(g.yaw, g.pitch, depth)
        free = cam.project_no_checks((T_camera_cpf @ p_cpf).reshape(3))
        t_us = int(round(g.tracking_timestamp.total_seconds() * 1e6))
        u, v = ("", "") if uv is None else (repr(float(uv[0])), repr(float(uv[1])))
        lines.append(f"{i},{t_us},{width},{height},{g.yaw!r},{g.pitch!r},{g.depth!r},"
                     f"{int(g.spatial_gaze_point_valid)},{u},{v},{float(free[0])!r},{float(free[1])!r}")
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    for gaze_csv in sorted(RAW.glob("gen*_*gaze*.csv")):
        generation = gaze_csv.name.split("_", 1)[0]
        reference(CALIBRATIONS[generation], gaze_csv, HERE / f"{gaze_csv.stem}.projectaria_tools_2.3.0.csv")
        print(gaze_csv.name)
