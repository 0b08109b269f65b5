"""A playing surface sunk below the rails: rendered, calibrated and straightened on its plane."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tablier.calibration.calibration import Calibration
from tablier.calibration.flow import calibrate_frame, draw_overlay
from tablier.calibration.geometry import BoardGeometry
from tablier.engine import Color
from tablier.vision.board import (
    VisionConfig,
    locate_board,
    rectify,
    surface_homography,
    surface_quad,
)
from tablier.vision.render import Camera, Lighting, Scene, render_frame


def _edge_contrast(cal: Calibration, image: np.ndarray, side: int) -> float:
    """How much the strip 3 mm inside the surface's edge differs from the strip 12 mm inside,
    over the empty fields of the right half (colour distance, grey levels)."""
    cfg = VisionConfig.from_calibration(cal)
    rect = rectify(cfg, image, locate_board(cfg, image)).astype(np.float64)
    g, s = cal.geometry, cfg.layout.scale
    x0, y0, x1, y1 = g.surface
    xs = np.arange(x0 + 6 * g.field_width + g.bar + 8, x1 - 8, 1.0)
    if side == 0:
        near, far = y0 + 3, y0 + 12
    else:
        near, far = y1 - 3, y1 - 12
    a = rect[round(near * s), np.round(xs * s).astype(int)]
    b = rect[round(far * s), np.round(xs * s).astype(int)]
    return float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)))


@pytest.mark.parametrize("seed", [3, 11])
def test_the_surface_is_straightened_on_its_own_plane(seed: int) -> None:
    depth = 30.0
    g = BoardGeometry()
    cam = Camera.random(np.random.default_rng(seed), 1640, 1232, geometry=g)
    _bx, by, _height = cam.viewpoint(g)
    ref = render_frame(Scene.start(), camera=cam, lighting=Lighting(), seed=seed, depth=depth)
    told = calibrate_frame(ref.image, geometry=replace(g, surface_depth=depth))
    untold = calibrate_frame(ref.image, geometry=g)
    assert told.geometry.surface_depth == depth
    assert Calibration.from_json(told.to_json()).geometry.surface_depth == depth
    # the rail farther from the point below the camera hides the least of its wall
    _, y0, _, y1 = g.surface
    side = 0 if by - y0 > y1 - by else 1
    # not told, the wall (rail-coloured) shows inside the surface's edge; told, the strip by
    # the edge is the fields' colour, as 12 mm in
    assert _edge_contrast(untold, ref.image, side) > 3 * _edge_contrast(told, ref.image, side)
    assert _edge_contrast(told, ref.image, side) < 12
    # the overlay the user checks draws the fields where the surface is seen, the holes as before
    a, b = draw_overlay(told, ref.image), draw_overlay(untold, ref.image)
    assert (a != b).any(axis=2).sum() > 500
    hole = np.round(cam.project(g, [g.hole_center(Color.WHITE, 6)])[0]).astype(int)
    x, y = hole
    assert np.array_equal(a[y - 8:y + 9, x - 8:x + 9], b[y - 8:y + 9, x - 8:x + 9])


def test_a_surface_in_the_rails_plane_keeps_one_homography() -> None:
    g = BoardGeometry()
    cam = Camera.random(np.random.default_rng(3), 820, 616, geometry=g)
    ref = render_frame(Scene.start(), camera=cam, lighting=Lighting(), seed=3, width=820,
                       height=616)
    cal = calibrate_frame(ref.image, geometry=g)
    cfg = VisionConfig.from_calibration(cal)
    assert surface_homography(cfg, locate_board(cfg, ref.image)) is None
    with pytest.raises(ValueError, match="surface_depth"):
        BoardGeometry.from_dict({**g.to_dict(), "surface_depth": -2.0})


def test_dice_on_a_sunk_surface_are_placed_on_its_plane() -> None:
    import math

    from tablier.vision.recognizer import Recognizer
    from tablier.vision.render import DieSpec

    depth = 30.0
    g = BoardGeometry()
    x0, y0, x1, y1 = g.surface
    cam = Camera.random(np.random.default_rng(4), 1640, 1232, geometry=g)
    bx, by, height = cam.viewpoint(g)
    # two dice far from the point below the camera, where the surface's plane and the
    # rails' plane differ most (about depth / height of the way to that point: 10 mm here)
    fx = x0 + 40.0 if bx > (x0 + x1) / 2 else x1 - 40.0
    fy = y0 + 30.0 if by > (y0 + y1) / 2 else y1 - 30.0
    dice = (DieSpec(value=5, center=(fx, fy)), DieSpec(value=2, center=(fx, (y0 + y1) / 2)))
    scene = Scene(white={1: 15}, black={1: 15}, dice=dice)
    shot = render_frame(scene, camera=cam, lighting=Lighting(), seed=5, depth=depth)
    cal = calibrate_frame(render_frame(Scene.start(), camera=cam, lighting=Lighting(), seed=5,
                                       depth=depth).image,
                          geometry=replace(g, surface_depth=depth))
    rec = Recognizer(cal)
    cfg = VisionConfig.from_calibration(cal)
    quad = locate_board(cfg, shot.image)
    # the camera is placed over the surface's plane that much higher
    eye, rails = rec._camera_place(surface_quad(cfg, quad)), rec._camera_place(quad)
    assert eye is not None and rails is not None
    assert math.dist(eye[:2], (bx, by)) < 0.02 * height
    assert eye[2] - rails[2] == pytest.approx(depth, abs=1.0)
    obs = rec.recognize(shot.image)
    assert sorted(d.value for d in obs.dice) == [2, 5]
    for d in obs.dice:
        (truth,) = [t for t in shot.truth["dice"] if t["value"] == d.value]
        far = math.dist(truth["center_mm"], (bx, by))
        assert far * depth / height > 6  # the two planes are that far apart there
        assert math.dist(d.center_mm, truth["center_mm"]) < 2.0
        assert math.dist(d.center, truth["center"]) < 2.0 * rec._native(quad)
