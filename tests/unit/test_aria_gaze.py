"""The Aria MPS eye-gaze reader (``gaze/sources/aria_mps.py``): yaw/pitch in CPF projected into the
video's pixels through synthetic calibrations, checked against points computed by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from streamgaze_hf.gaze.sources import aria_mps
from streamgaze_hf.gaze.sources.aria_mps import (
    Calibration,
    Camera,
    gaze_track,
    project_gaze,
    read_calibration,
)
from streamgaze_hf.gaze.sources.registry import SOURCES
from streamgaze_hf.util.errors import GazeFormatError

EYE = np.eye(4)
PINHOLE = (500.0, 500.0, 320.0, 240.0)  # fx, fy, cx, cy of a 640x480 image


def calib(model="linear", params=PINHOLE, size=(640, 480), T_device_camera=EYE, T_device_cpf=EYE, rotation=0):
    return Calibration(Camera(model, size[0], size[1], tuple(params), np.asarray(T_device_camera, float)),
                       np.asarray(T_device_cpf, float), 0.0, rotation)


def one(c, yaw, pitch, depth=math.nan):
    x, y = project_gaze(c, np.array([yaw]), np.array([pitch]), np.array([depth]))
    return float(x[0]), float(y[0])


def translation(tx, ty, tz):
    m = np.eye(4)
    m[:3, 3] = (tx, ty, tz)
    return m


def test_pinhole_identity():
    # direction (0.2, -0.1, 1): u = 500 * 0.2 + 320 = 420, v = 500 * -0.1 + 240 = 190
    assert one(calib(), math.atan(0.2), math.atan(-0.1), 2.0) == pytest.approx((420 / 640, 190 / 480))
    assert one(calib(), 0.0, 0.0) == pytest.approx((0.5, 0.5))


def test_pinhole_extrinsics_translation_depth_and_rotation():
    cam = calib(T_device_camera=translation(0.1, 0.0, 0.0))  # camera 10 cm right of the CPF
    # straight ahead at the default 1 m: camera point (-0.1, 0, 1) -> u = 500 * -0.1 + 320 = 270
    assert one(cam, 0.0, 0.0) == pytest.approx((270 / 640, 0.5))
    assert one(cam, 0.0, 0.0, 0.0) == pytest.approx((270 / 640, 0.5))  # depth 0 -> the default 1 m
    # at 2 m: (-0.1, 0, 2) -> u = 500 * -0.05 + 320 = 295
    assert one(cam, 0.0, 0.0, 2.0) == pytest.approx((295 / 640, 0.5))
    # the CPF 5 cm above the device origin: (0, -0.05, 1) in the device -> v = 500 * -0.05 + 240 = 215
    up = calib(T_device_cpf=translation(0.0, -0.05, 0.0))
    assert one(up, 0.0, 0.0) == pytest.approx((0.5, 215 / 480))
    # camera turned 180 degrees about its z axis: (0.2, -0.1, 1) -> (-0.2, 0.1, 1) -> (220, 290)
    rz = np.diag([-1.0, -1.0, 1.0, 1.0])
    assert one(calib(T_device_camera=rz), math.atan(0.2), math.atan(-0.1)) == pytest.approx((220 / 640, 290 / 480))
    # camera looking backwards: the point is behind it -> NaN
    ry = np.diag([-1.0, 1.0, -1.0, 1.0])
    assert all(math.isnan(v) for v in one(calib(T_device_camera=ry), 0.1, 0.1))


def test_fisheye624_zero_distortion_is_equidistant():
    c = calib("fisheye624", [300.0, 352.0, 352.0] + [0.0] * 12, (704, 704))
    a, b = 0.2, -0.1
    r = math.sqrt(a * a + b * b)
    th = math.atan(r)  # 0.21998...
    u, v = 300 * th * a / r + 352, 300 * th * b / r + 352
    assert one(c, math.atan(a), math.atan(b)) == pytest.approx((u / 704, v / 704), abs=1e-12)
    assert one(c, 0.0, 0.0) == pytest.approx((0.5, 0.5))
    # the 16-parameter form (fx, fy) with fy = 2 fx doubles the vertical offset
    c16 = calib("fisheye624", [300.0, 600.0, 352.0, 352.0] + [0.0] * 12, (704, 704))
    assert one(c16, math.atan(a), math.atan(b)) == pytest.approx((u / 704, (600 * th * b / r + 352) / 704))


def test_fisheye624_radial_tangential_thin_prism():
    k0, p0, p1, s0, s3 = 0.5, 0.01, -0.02, 0.03, 0.04
    params = [300.0, 352.0, 352.0, k0, 0, 0, 0, 0, 0, p0, p1, s0, 0, 0, s3]
    c = calib("fisheye624", params, (704, 704))
    a, b = 0.3, 0.2
    r = math.hypot(a, b)
    th = math.atan(r)
    xr, yr = th * (1 + k0 * th ** 2) / r * a, th * (1 + k0 * th ** 2) / r * b
    q = xr ** 2 + yr ** 2
    xd = xr + 2 * (p0 * xr + p1 * yr) * xr + p0 * q + s0 * q
    yd = yr + 2 * (p0 * xr + p1 * yr) * yr + p1 * q + s3 * q * q
    assert one(c, math.atan(a), math.atan(b)) == pytest.approx(((300 * xd + 352) / 704, (300 * yd + 352) / 704),
                                                                abs=1e-12)


@pytest.mark.parametrize("rotation,expect", [(0, (0.65625, 190 / 480)), (90, (1 - 190 / 480, 0.65625)),
                                             (180, (1 - 0.65625, 1 - 190 / 480)), (270, (190 / 480, 1 - 0.65625))])
def test_video_rotation(rotation, expect):
    assert one(calib(rotation=rotation), math.atan(0.2), math.atan(-0.1)) == pytest.approx(expect)


def test_csv_reader_timing_formats_and_track(tmp_path):
    path = tmp_path / "general_eye_gaze.csv"
    path.write_text(
        "tracking_timestamp_us,left_yaw_rads_cpf,right_yaw_rads_cpf,pitch_rads_cpf,depth_m,session_uid\n"
        "900000,0.1,0.1,0.0,1.0,s\n"  # before the first frame: dropped
        f"1000000,{math.atan(0.1)},{math.atan(0.3)},0.0,,s\n"  # combined yaw: mean of the tangents -> tan 0.2
        "1000000,0.5,0.5,0.5,1.0,s\n"  # repeated timestamp: the first sample is kept
        "1100000,,,0.1,1.0,s\n"  # no yaw: invalid
        "1200000,0.0,0.0,0.0,1.0,s\n", encoding="utf-8")
    c = Calibration(Camera("linear", 640, 480, PINHOLE, EYE), EYE, 1_000_000.0, 0)
    track = gaze_track(path, c, 320, 240, 30.0)
    assert track.t.tolist() == pytest.approx([0.0, 0.1, 0.2])
    assert track.valid.tolist() == [True, False, True]
    # projectaria_tools' computeDepthAndCombinedGazeDirection: atan of the mean tangent (0.2), not the mean angle
    assert track.x[0] == pytest.approx((500 * 0.2 + 320) / 640) and track.y[0] == pytest.approx(0.5)
    assert (track.x[2], track.y[2]) == (0.5, 0.5)
    assert track.hfov_deg == pytest.approx(math.degrees(2 * math.atan(320 / 500)))
    path.write_text("tracking_timestamp_us,yaw_rads_cpf\n1,0.1\n", encoding="utf-8")
    with pytest.raises(GazeFormatError, match="pitch_rads_cpf") as e:
        gaze_track(path, c, 320, 240, 30.0)
    assert str(path) in str(e.value)


def test_calibration_file(tmp_path):
    good = {"camera": {"model": "fisheye624", "width": 704, "height": 704, "params": [300, 352, 352] + [0] * 12,
                       "T_device_camera": EYE.tolist()}, "T_device_cpf": EYE.tolist(),
            "first_frame_time_us": 5, "rotation_cw_deg": 90}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    c = read_calibration(path)
    assert (c.camera.model, c.camera.width, c.rotation_cw_deg, c.first_frame_time_us) == ("fisheye624", 704, 90, 5)
    for change, needle in [({"rotation_cw_deg": 45}, "rotation_cw_deg"), ({"T_device_cpf": [[1, 0]]}, "T_device_cpf"),
                           ({"camera": {**good["camera"], "params": [1, 2]}}, "needs 15 or 16 params"),
                           ({"camera": {**good["camera"], "model": "kb3"}}, "camera model 'kb3'")]:
        path.write_text(json.dumps({**good, **change}), encoding="utf-8")
        with pytest.raises(GazeFormatError, match=needle) as e:
            read_calibration(path)
        assert str(path) in str(e.value)
    assert aria_mps.SOURCE in SOURCES  # registered with the other gaze sources


def test_gen2_rows_without_a_real_vergence_fall_back_to_the_combined_yaw_at_1m(tmp_path):
    """projectaria_tools' getGazeVergencePoint refuses parallel rays (< 0.75 deg apart) and rays that meet
    behind the eyes; the row is then the combined yaw/pitch at the default depth (1 m)."""
    path = tmp_path / "general_eye_gaze.csv"
    eyes = "0.0325,0.0,0.0,-0.0325,0.0,0.0"
    path.write_text(
        "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,left_yaw_rads_cpf,right_yaw_rads_cpf,left_pitch_rads_cpf,"
        "right_pitch_rads_cpf,tx_left_eye_cpf,ty_left_eye_cpf,tz_left_eye_cpf,tx_right_eye_cpf,ty_right_eye_cpf,"
        "tz_right_eye_cpf\n"
        f"1000000,{math.atan(0.2)},{math.atan(-0.1)},0.1,0.1,0.0,0.0,{eyes}\n"  # parallel
        f"1100000,{math.atan(0.2)},{math.atan(-0.1)},0.2,-0.2,0.0,0.0,{eyes}\n"  # diverging: meet behind
        f"1200000,0.0,0.0,-0.0325,0.0325,0.0,0.0,{eyes}\n", encoding="utf-8")  # converge 1 m ahead
    rows = aria_mps.read_gaze_rows(path)
    assert np.isnan(rows.point_cpf[:2]).all()
    np.testing.assert_allclose(rows.point_cpf[2], [0.0, 0.0, 0.0325 / math.tan(0.0325)], atol=1e-12)
    c = Calibration(Camera("linear", 640, 480, PINHOLE, translation(0.1, 0.0, 0.0)), EYE, 1_000_000.0, 0)
    track = gaze_track(path, c, 640, 480, 30.0)
    # fallback: (0.2, -0.1, 1) normalised to 1 m, seen from a camera 10 cm to the right
    p = np.array([0.2, -0.1, 1.0]) / np.linalg.norm([0.2, -0.1, 1.0]) - [0.1, 0.0, 0.0]
    expect = ((500 * p[0] / p[2] + 320) / 640, (500 * p[1] / p[2] + 240) / 480)
    assert (track.x[0], track.y[0]) == pytest.approx(expect) and (track.x[1], track.y[1]) == pytest.approx(expect)
    z = 0.0325 / math.tan(0.0325)  # the vergence point straight ahead, not 1 m
    assert (track.x[2], track.y[2]) == pytest.approx(((500 * -0.1 / z + 320) / 640, 0.5))
