"""The board straightened through a lens."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tablier.calibration.calibration import Lens
from tablier.calibration.flow import calibrate_frame
from tablier.calibration.geometry import BoardGeometry
from tablier.vision.board import VisionConfig, locate_board, project, rectify
from tablier.vision.render import Camera, Lighting, Scene, render_frame

PERIOD = 40.0
"""Frame pixels of one wave of the test pattern."""


def _wave(v: np.ndarray) -> np.ndarray:
    return 127.5 + 120.0 * np.sin(2 * np.pi * v / PERIOD)


@pytest.mark.parametrize("dist", [(-0.25, 0.08, 0.001, -0.001, 0.0), (0.1, 0.0, 0.0, 0.0, 0.0)])
def test_each_straightened_pixel_is_taken_from_where_project_puts_its_board_point(
        dist: tuple[float, ...]) -> None:
    w, h = 820, 616
    g = BoardGeometry()
    cam = Camera.random(np.random.default_rng(3), w, h, geometry=g)
    ref = render_frame(Scene.start(), camera=cam, lighting=Lighting(), seed=3, width=w, height=h)
    lens = Lens(matrix=((700.0, 0.0, w / 2), (0.0, 700.0, h / 2), (0.0, 0.0, 1.0)), dist=dist)
    cfg = VisionConfig.from_calibration(replace(calibrate_frame(ref.image, geometry=g),
                                                lens=lens))
    quad = locate_board(cfg, ref.image)
    # a pattern whose red says x and green y, to within a fraction of a pixel
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    frame = np.round(np.stack([_wave(xx), _wave(yy), np.zeros_like(xx)], axis=-1)
                     ).astype(np.uint8)
    rect = rectify(cfg, frame, quad)
    s = cfg.layout.scale
    rng = np.random.default_rng(1039)
    rows, cols = rect.shape[:2]
    ys, xs = rng.integers(4, rows - 4, 300), rng.integers(4, cols - 4, 300)
    px = project(cfg, quad, np.stack([xs / s, ys / s], axis=1))
    inside = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    assert inside.sum() > 250
    got = rect[ys, xs].astype(np.float64)[inside]
    want = np.stack([_wave(px[inside, 0]), _wave(px[inside, 1])], axis=1)
    # NOTE: a shift of a straightened pixel (1.25 mm at 0.8 px/mm) moves the frame point by
    # a pixel or more here: tens of grey levels on this pattern
    assert np.abs(got[:, :2] - want).max() < 4.0
