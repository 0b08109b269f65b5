"""The calibration file (load, save, validation), the calibration flow and the lens step."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tablier.calibration.calibration import VERSION, Calibration, CalibrationError
from tablier.calibration.flow import calibrate_frame, draw_overlay
from tablier.calibration.lens import calibrate_lens, charuco_sheet, load_lens, save_lens
from tablier.calibration.markers import marker_sheet
from tablier.vision.imageio import read_image
from tablier.vision.render import random_scene, render_frame


def test_save_load_round_trip(tmp_path: Path, small_session: Path) -> None:
    cal = Calibration.load(small_session / "calibration.json")
    cal.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json") == cal


def _doc(small_session: Path) -> dict[str, object]:
    data = json.loads((small_session / "calibration.json").read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(version=VERSION - 1), "stale"),
    (lambda d: d.update(version=str(VERSION)), "stale"),
    (lambda d: d.pop("version"), "stale"),
    (lambda d: d.update(version=VERSION + 1), "newer tablier"),
    (lambda d: d.update(format="other"), "not a tablier calibration"),
    (lambda d: d.pop("quad"), "'quad'"),
    (lambda d: d.update(quad=[[0, 0], [1, 1]]), "quad"),
    (lambda d: d.update(image_size=["640", 480]), "image_size"),
    (lambda d: d["profile"].pop("white"), "white"),
    (lambda d: d.update(scale=9.0), "scale"),
    (lambda d: d["geometry"].update(rail=-3), "rail"),
])
def test_load_refuses_a_bad_file_with_one_clear_message(tmp_path: Path, small_session: Path,
                                                       change: object, message: str) -> None:
    data = _doc(small_session)
    change(data)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)


def test_load_refuses_missing_and_non_json(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="no calibration file"):
        Calibration.load(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        Calibration.load(tmp_path / "x.json")


def test_check_frame_refuses_another_size() -> None:
    cal = Calibration.example()
    cal.check_frame(640, 480)
    with pytest.raises(CalibrationError, match="1640x1232"):
        cal.check_frame(1640, 1232)


def test_profile_reads_the_start_of_a_match(small_session: Path) -> None:
    cal = Calibration.load(small_session / "calibration.json")
    p = cal.profile
    assert np.mean(p.white) > np.mean(p.black) + 100
    assert np.mean(p.peg) > np.mean(p.hole) + 60
    assert len(p.slots) == 24 * cal.geometry.slots


def test_calibrate_refuses_a_frame_that_is_not_a_start(small_session: Path) -> None:
    # black dames on White's talon: the colours would be learnt backwards
    scene = random_scene(np.random.default_rng(1), dice=False)
    swapped = render_frame(type(scene)(white={24: 15}, black={24: 15}), seed=1, width=640,
                           height=480)
    with pytest.raises(CalibrationError, match="start of a match"):
        calibrate_frame(swapped.image)


def test_calibrate_refuses_a_frame_without_board() -> None:
    with pytest.raises(CalibrationError, match="board not found"):
        calibrate_frame(np.full((480, 640, 3), 120, np.uint8))


def test_manual_corners_give_the_same_board(small_session: Path) -> None:
    ref = read_image(small_session / "reference.jpg")
    by_markers = Calibration.load(small_session / "calibration.json")
    truth = json.loads((small_session / "reference.json").read_text())
    manual = calibrate_frame(ref, corners=truth["quad"], lens=by_markers.lens)
    assert not manual.markers
    assert np.allclose(manual.profile.white, by_markers.profile.white, atol=12)
    assert np.allclose(manual.quad, truth["quad"], atol=0.5)


def test_overlay_draws_on_the_frame(small_session: Path) -> None:
    cal = Calibration.load(small_session / "calibration.json")
    ref = read_image(small_session / "reference.jpg")
    out = draw_overlay(cal, ref)
    assert out.shape == ref.shape
    assert (out != ref).any(axis=2).mean() > 0.02


def test_marker_and_charuco_sheets() -> None:
    sheet = marker_sheet(dpi=100)
    assert sheet.ndim == 2 and sheet.min() == 0 and sheet.max() == 255
    assert charuco_sheet(dpi=100).ndim == 2


def test_lens_calibration_recovers_a_known_camera(tmp_path: Path) -> None:
    import cv2
    from tablier.calibration.lens import charuco_board
    board = charuco_board()
    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    dist = np.array([-0.1, 0.0, 0, 0, 0])
    flat = board.generateImage((700, 500), marginSize=20)
    views = []
    rng = np.random.default_rng(0)
    w_mm, h_mm = 0.21, 0.15
    for _ in range(8):
        rvec = rng.normal(0, 0.25, 3)
        tvec = np.array([-w_mm / 2 + rng.normal(0, 0.01), -h_mm / 2 + rng.normal(0, 0.01),
                         0.35 + rng.normal(0, 0.03)])
        obj = np.array([[0, 0, 0], [w_mm, 0, 0], [w_mm, h_mm, 0], [0, h_mm, 0]], np.float64)
        img_pts, _ = cv2.projectPoints(obj, rvec, tvec, k, np.zeros(5))
        src = np.float32([[20, 20], [680, 20], [680, 480], [20, 480]])
        hmg = cv2.getPerspectiveTransform(src, img_pts.reshape(4, 2).astype(np.float32))
        view = cv2.warpPerspective(flat, hmg, (640, 480), borderValue=128)
        # apply the radial distortion to the pinhole view
        xs, ys = np.meshgrid(np.arange(640, dtype=np.float32), np.arange(480, dtype=np.float32))
        pts = np.stack([xs, ys], -1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(pts, k, dist, None, None, k).reshape(480, 640, 2)
        views.append(cv2.remap(view, und[..., 0], und[..., 1], cv2.INTER_LINEAR))
    lens = calibrate_lens(views)
    assert lens.rms < 1.0
    assert abs(lens.matrix[0][0] - 600) < 30
    assert abs(lens.dist[0] - dist[0]) < 0.05
    save_lens(lens, tmp_path / "lens.json")
    assert load_lens(tmp_path / "lens.json") == lens
    with pytest.raises(CalibrationError, match="ChArUco"):
        calibrate_lens(views[:2])


def test_a_profile_that_does_not_fit_the_layout_is_stale(tmp_path: Path,
                                                         small_session: Path) -> None:
    from tablier.vision.recognizer import Recognizer
    data = _doc(small_session)
    profile = data["profile"]
    assert isinstance(profile, dict)
    profile["slots"] = profile["slots"][:-5]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="stale"):
        Recognizer(Calibration.load(path))


@pytest.mark.parametrize(("count", "tilted"),
                         [(4, False), (5, False), (8, False), (12, False), (14, False), (14, True)])
def test_points_are_distorted_as_opencv_projects_them(count: int, tilted: bool) -> None:
    import cv2
    from tablier.vision.board import distort_points
    rng = np.random.default_rng(count)
    k = np.array([[1500.0, 0, 810], [0, 1530.0, 605], [0, 0, 1]])
    dist = rng.normal(0, 0.05, count)
    if count == 14:
        dist[12:] = (0.01, -0.02) if tilted else 0.0
    pts = rng.uniform((-100, -100), (1740, 1330), (400, 2))
    rays = np.hstack([(pts - k[:2, 2]) / (k[0, 0], k[1, 1]), np.ones((len(pts), 1))])
    want, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
    got = distort_points(k, dist, pts)
    assert got.shape == pts.shape
    assert np.abs(got - want.reshape(-1, 2)).max() < 1e-6
