"""Calibrate from one reference frame, and draw the overlay that shows what was found.

``calibrate_frame`` finds the board (markers, or four corners clicked/typed by the user), reads
the colour profile and returns a :class:`~tablier.calibration.calibration.Calibration`;
``draw_overlay`` draws every field outline, hole and jeton spot as found onto the frame.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.calibration import Calibration, CalibrationError, Lens, Thresholds
from tablier.calibration.geometry import JETON_SPOTS, BoardGeometry
from tablier.calibration.layout import SampleLayout
from tablier.calibration.profile import _rgb, build_profile
from tablier.engine import Color

if TYPE_CHECKING:
    from tablier.vision.board import VisionConfig

Image = npt.NDArray[np.uint8]


def calibrate_frame(frame: Image, *, corners: Sequence[Sequence[float]] | None = None,
                    lens: Lens | None = None, geometry: BoardGeometry | None = None,
                    scale: float = 0.8, thresholds: Thresholds | None = None,
                    start: bool = True) -> Calibration:
    """Calibrate from a reference frame of the start of a match.

    Args:
        frame: HxWx3 uint8 RGB frame showing the start of a match (no dice, no hands).
        corners: the board's four outer corners (TL, TR, BR, BL, White's talon at the
            bottom-left) in frame pixels, for a board without markers; None to find the markers.
        lens: lens intrinsics from :func:`~tablier.calibration.lens.calibrate_lens`, if any.
        geometry: the board's dimensions.
        scale: rectified pixels per millimetre.
        thresholds: decision thresholds (the tuned defaults when None).
        start: check that the frame shows a match's start; False takes a frame of any
            position, its light's slope across the board taken out first (a profile is of
            the board evenly lit; see :func:`build_profile`).

    Returns:
        The calibration.

    Raises:
        CalibrationError: if the board is not found or the frame is not a match's start.
    """
    from tablier.vision.board import (
        VisionConfig,
        check_image,
        locate_board,
        quad_from_corners,
        rectify,
    )
    from tablier.vision.errors import BadFrameError, BoardNotFoundError
    try:
        check_image(frame)
    except BadFrameError as exc:
        raise CalibrationError(exc.reason) from None
    g = geometry or BoardGeometry()
    h, w = frame.shape[:2]
    draft = Calibration(image_size=(w, h), quad=((0.0, 0.0),) * 4,
                        profile=Calibration.example().profile, geometry=g, scale=scale, lens=lens,
                        markers=corners is None, thresholds=thresholds or Thresholds())
    # NOTE: the draft's profile is a placeholder, so its config is built without the check.
    from tablier.calibration.markers import MarkerFinder
    cfg = VisionConfig(calibration=draft, layout=SampleLayout.build(g, scale),
                       finder=MarkerFinder())
    try:
        if corners is None:
            quad = locate_board(cfg, frame)
            if quad.source != "markers":
                raise BoardNotFoundError("too few corner markers seen")
        else:
            quad = quad_from_corners(cfg, corners, "manual")
    except BoardNotFoundError as exc:
        raise CalibrationError(f"board not found on the reference frame: {exc.reason}; "
                               "check that all four markers are in view, or give the corners "
                               "by hand (--corners)") from None
    rectified = rectify(cfg, frame, quad)
    if not start:
        rectified = _evenly_lit(cfg, rectified)
    profile = build_profile(cfg.layout, rectified, start=start)
    return Calibration(image_size=(w, h), quad=quad.quad, profile=profile, geometry=g,
                       scale=scale, lens=lens, markers=corners is None,
                       thresholds=draft.thresholds)


def _evenly_lit(cfg: VisionConfig, rectified: Image) -> Image:
    """The rectified frame with its light's slope across the board taken out, as the dames
    reader takes it out of a frame against its calibration's even light
    (:func:`tablier.vision.checkers.light_slope`, on a reference whose rails are all alike)."""
    from tablier.vision.board import VisionConfig
    from tablier.vision.checkers import light_slope
    flat = rectified.reshape(-1, 3)
    rail = cfg.layout.rail.means(flat)
    level = np.median(rail, axis=0)
    even = dataclasses.replace(cfg.calibration.profile, rail=_rgb(level),
                               rail_samples=(_rgb(level),) * len(rail))
    flat_cfg = VisionConfig(calibration=dataclasses.replace(cfg.calibration, profile=even),
                            layout=cfg.layout, finder=cfg.finder)
    h, w = rectified.shape[:2]
    s = cfg.layout.scale
    xs, ys = (np.arange(n, dtype=np.float64) / s for n in (w, h))
    mid_x, mid_y = xs[w // 2], ys[h // 2]
    # NOTE: the slope is a plane in the light's logarithm: the gain at (x, y) is the gain
    # along the middle row at x times the one along the middle column at y, over the middle's.
    at = np.vstack([np.column_stack([xs, np.full(w, mid_y)]),
                    np.column_stack([np.full(h, mid_x), ys])])
    along, down = np.split(light_slope(flat_cfg, flat, at, rail=rail), [w])
    gain = np.outer(down, along) / max(float(along[w // 2]), 1e-6)
    out = rectified.astype(np.float32) * gain[..., None]
    return np.asarray(np.clip(np.round(out), 0, 255), np.uint8)


def draw_overlay(calibration: Calibration, frame: Image) -> Image:
    """Draw every field outline, slot, hole and jeton spot where the calibration puts them.

    Args:
        calibration: the calibration.
        frame: HxWx3 uint8 RGB frame from the calibrated camera.

    Returns:
        A copy of the frame with the overlay drawn.

    Raises:
        CalibrationError: if the board cannot be found on the frame.
    """
    from tablier.vision.board import VisionConfig, locate_board, project, surface_quad
    from tablier.vision.errors import RecognitionError
    cfg = VisionConfig.from_calibration(calibration)
    try:
        quad = locate_board(cfg, frame)
    except RecognitionError as exc:
        raise CalibrationError(exc.reason) from None
    g = calibration.geometry
    out = frame.copy()
    surface = surface_quad(cfg, quad)
    x0, y0, x1, y1 = g.surface

    def project_mm(mm: npt.ArrayLike) -> npt.NDArray[np.float64]:
        # NOTE: a point on the playing surface (edge included) is drawn in the surface's plane
        pts = np.asarray(mm, np.float64).reshape(-1, 2)
        on = ((pts[:, 0] >= x0 - 1e-6) & (pts[:, 0] <= x1 + 1e-6)
              & (pts[:, 1] >= y0 - 1e-6) & (pts[:, 1] <= y1 + 1e-6))
        return np.where(on[:, None], project(cfg, surface, pts), project(cfg, quad, pts))

    def poly(mm: npt.ArrayLike, color: tuple[int, int, int], closed: bool = True) -> None:
        px = project_mm(mm)
        cv2.polylines(out, [np.round(px * 4).astype(np.int32).reshape(-1, 1, 2)], closed, color,
                      1, cv2.LINE_AA, 2)

    def ring(c: tuple[float, float], r: float, color: tuple[int, int, int]) -> None:
        a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        poly(np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], axis=1), color)

    poly(g.corners, (255, 255, 0))
    poly([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], (255, 255, 0))
    for f in range(1, 25):
        poly(g.field_triangle(f), (0, 255, 0))
        for c in g.slot_centers(f):
            ring(c, 0.3 * g.checker_diameter, (0, 200, 255))
        x, yb, d = g.field_axis(f)
        px = project_mm([[x, yb + d * 8]])[0]
        cv2.putText(out, str(f), (int(px[0]) - 6, int(px[1]) + 4), cv2.FONT_HERSHEY_SIMPLEX,
                    0.35, (255, 255, 255), 1, cv2.LINE_AA)
    for color in (Color.WHITE, Color.BLACK):
        for k in range(13):
            ring(g.hole_center(color, k), g.hole_diameter / 2, (255, 0, 255))
        for spot in JETON_SPOTS:
            ring(g.jeton_center(color, spot), g.jeton_diameter / 2, (255, 160, 0))
    for i in range(3):
        ring(g.jeton_center(Color.WHITE, 0, i), g.jeton_diameter / 2, (255, 160, 0))
    ring(g.pavillon_hole(), g.hole_diameter / 2, (255, 0, 0))
    return out
