"""Find the board in a frame and straighten it into a top view.

``locate_board(cfg, image) -> BoardQuad`` finds the corner markers (or falls back on the
calibrated corners); ``rectify(cfg, image, quad)`` returns the board seen straight from above at
the calibration's scale. Run as ``python -m tablier.vision.board CALIBRATION IMAGE --debug OUT``
to write the rectified board.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.calibration import Calibration, CalibrationError
from tablier.calibration.geometry import MARKER_IDS
from tablier.calibration.layout import SampleLayout
from tablier.calibration.markers import MarkerFinder
from tablier.vision.errors import BadFrameError, BoardNotFoundError, RecognitionError

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class VisionConfig:
    """A calibration with everything derived from it once: probes, marker finder, arrays."""

    calibration: Calibration
    """The calibration."""
    layout: SampleLayout
    """Probes of the rectified board."""
    finder: MarkerFinder = field(repr=False)
    """The marker detector."""

    @classmethod
    def from_calibration(cls, calibration: Calibration) -> VisionConfig:
        """Derive the probes and detector from a calibration.

        Args:
            calibration: the calibration.

        Returns:
            The config.

        Raises:
            CalibrationError: if the profile does not fit this layout (a stale calibration).
        """
        layout = SampleLayout.build(calibration.geometry, calibration.scale)
        p = calibration.profile
        for name, have, need in (("slots", len(p.slots), len(layout.slots.index)),
                                 ("rings", len(p.rings), len(layout.rings.index)),
                                 ("rail_samples", len(p.rail_samples), len(layout.rail.index)),
                                 ("surface", len(p.surface), len(layout.surface.index)),
                                 ("jeton_empty", len(p.jeton_empty), len(layout.jetons.index)),
                                 ("flag_empty", len(p.flag_empty), len(layout.flags.index))):
            if have != need:
                raise CalibrationError(f"calibration profile has {have} {name} colours where "
                                       f"this tablier reads {need}: the calibration is stale, "
                                       "run tablier calibrate board again")
        return cls(calibration=calibration, layout=layout, finder=MarkerFinder())


@dataclass(frozen=True, eq=False)
class BoardQuad:
    """Where the board is in one frame."""

    homography: Matrix
    """Board millimetres -> undistorted frame pixels (3x3)."""
    quad: tuple[tuple[float, float], ...]
    """Outer corners TL, TR, BR, BL in frame pixels."""
    markers: tuple[int, ...]
    """Ids of the markers seen on this frame."""
    source: str
    """``"markers"``, ``"calibration"`` (corners of the calibration) or ``"previous"``."""


def board_pose(corners_mm: npt.ArrayLike, corners_px: npt.ArrayLike, matrix: npt.ArrayLike
               ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The camera's pose over the board (OpenCV's rvec, tvec) that best draws the board's
    corners (Nx2 mm, on the board's plane) where ``corners_px`` has them, through ``matrix``;
    None when no pose fits."""
    flat = np.asarray(corners_mm, np.float64).reshape(-1, 2)
    obj = np.hstack([flat, np.zeros((len(flat), 1))])
    ok, rvec, tvec = cv2.solvePnP(obj, np.asarray(corners_px, np.float64).reshape(-1, 2),
                                  np.asarray(matrix, np.float64), None,
                                  flags=cv2.SOLVEPNP_IPPE)
    if not ok:  # pragma: no cover - four corners of a convex quad always give a pose
        return None
    return np.asarray(rvec, np.float64), np.asarray(tvec, np.float64)


def camera_place(corners_mm: npt.ArrayLike, corners_px: npt.ArrayLike,
                 matrix: npt.ArrayLike) -> tuple[float, float, float] | None:
    """Where the camera is: the board point below it and its height above the board, mm.

    Args:
        corners_mm: the board's four corners on the board, Nx2 mm.
        corners_px: where the undistorted frame draws them, Nx2 pixels.
        matrix: the camera matrix (3x3).

    Returns:
        (x, y, height) in board millimetres, or None when no pose fits.

    Raises:
        Nothing.
    """
    pose = board_pose(corners_mm, corners_px, matrix)
    if pose is None:  # pragma: no cover - four corners of a convex quad always give a pose
        return None
    rvec, tvec = pose
    rot, _ = cv2.Rodrigues(rvec)
    c = (-rot.T @ tvec).ravel()
    # board axes: x right, y down, so z points into the board and the camera's z is < 0
    return float(c[0]), float(c[1]), abs(float(c[2]))


def check_image(image: object) -> Image:
    """Refuse anything but an HxWx3 uint8 image.

    Args:
        image: the candidate frame.

    Returns:
        The same array.

    Raises:
        BadFrameError: naming what is wrong with it.
    """
    if not isinstance(image, np.ndarray):
        raise BadFrameError(f"a frame must be a numpy array, not {type(image).__name__}")
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise BadFrameError(f"a frame must be HxWx3 uint8 RGB, not {image.shape} {image.dtype}")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise BadFrameError(f"frame of {image.shape[1]}x{image.shape[0]} pixels is too small")
    return image


def _undistort(cfg: VisionConfig, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    lens = cfg.calibration.lens
    if lens is None:
        return pts
    k, d = lens.arrays()
    out = cv2.undistortPoints(pts.reshape(-1, 1, 2), k, d, None, None, k)
    return np.asarray(out, np.float64).reshape(-1, 2)


def _distort(cfg: VisionConfig, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    lens = cfg.calibration.lens
    if lens is None:
        return pts
    k, d = lens.arrays()
    return distort_points(k, d, pts)


def distort_points(matrix: Matrix, dist: npt.NDArray[np.float64],
                   pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Where undistorted pixels are seen through the lens: OpenCV's model, as
    ``cv2.projectPoints`` computes it, without its Jacobians.

    Args:
        matrix: the 3x3 camera matrix (its skew is not used, as in OpenCV).
        dist: 4, 5, 8, 12 or 14 distortion coefficients (k1, k2, p1, p2[, k3[, k4, k5, k6[,
            s1, s2, s3, s4[, tx, ty]]]]).
        pts: Nx2 undistorted pixels.

    Returns:
        Nx2 pixels of the frame.

    Raises:
        Nothing.
    """
    # NOTE: cv2.projectPoints also works out the Jacobians, which nobody here reads: on the
    # bench's frames (thousands of grid points a straightened view) it took 3 ms a frame
    # under cProfile, this about 1.
    fx, fy, cx, cy = matrix[0, 0], matrix[1, 1], matrix[0, 2], matrix[1, 2]
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    c = np.zeros(14)
    c[:len(dist)] = np.ravel(dist)[:14]
    if c[12] or c[13]:  # a tilted sensor: rare enough to leave to OpenCV
        obj = np.hstack([(pts - (cx, cy)) / (fx, fy), np.ones((len(pts), 1))])
        img, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), matrix, dist)
        return np.asarray(img, np.float64).reshape(-1, 2)
    k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4 = c[:12]
    x = (pts[:, 0] - cx) / fx
    y = (pts[:, 1] - cy) / fy
    r2 = x * x + y * y
    r4 = r2 * r2
    radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
    xy2 = 2 * x * y
    xd = x * radial + p1 * xy2 + p2 * (r2 + 2 * x * x) + s1 * r2 + s2 * r4
    yd = y * radial + p1 * (r2 + 2 * y * y) + p2 * xy2 + s3 * r2 + s4 * r4
    return np.stack([xd * fx + cx, yd * fy + cy], axis=-1)


def project(cfg: VisionConfig, quad: BoardQuad, mm: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Board millimetres to frame pixels (lens distortion included).

    Args:
        cfg: the vision config.
        quad: where the board is.
        mm: Nx2 board points.

    Returns:
        Nx2 frame pixels.

    Raises:
        Nothing.
    """
    pts = np.asarray(mm, np.float64).reshape(-1, 1, 2)
    und = cv2.perspectiveTransform(pts, quad.homography).reshape(-1, 2)
    return _distort(cfg, np.asarray(und, np.float64))


def unproject(cfg: VisionConfig, quad: BoardQuad, px: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Frame pixels to board millimetres.

    Args:
        cfg: the vision config.
        quad: where the board is.
        px: Nx2 frame pixels.

    Returns:
        Nx2 board millimetres.

    Raises:
        Nothing.
    """
    und = _undistort(cfg, np.asarray(px, np.float64).reshape(-1, 2))
    inv = np.linalg.inv(quad.homography)
    return np.asarray(cv2.perspectiveTransform(und.reshape(-1, 1, 2), inv), np.float64).reshape(-1, 2)


def quad_from_corners(cfg: VisionConfig, corners: Sequence[Sequence[float]], source: str
                      ) -> BoardQuad:
    """A board placement from its four outer corners in frame pixels (TL, TR, BR, BL).

    Args:
        cfg: the vision config.
        corners: the four corners.
        source: where they come from.

    Returns:
        The placement.

    Raises:
        BoardNotFoundError: if the corners do not make a convex quadrilateral.
    """
    px = np.asarray(corners, np.float64).reshape(4, 2)
    und = _undistort(cfg, px)
    if not cv2.isContourConvex(und.astype(np.float32).reshape(-1, 1, 2)) or \
            cv2.contourArea(und.astype(np.float32)) < 100:
        raise BoardNotFoundError(f"board corners {px.round(1).tolist()} do not make a board")
    h = cv2.getPerspectiveTransform(cfg.calibration.geometry.corners.astype(np.float32),
                                    und.astype(np.float32))
    return BoardQuad(homography=np.asarray(h, np.float64),
                     quad=tuple((float(x), float(y)) for x, y in px), markers=(), source=source)


def _expected_markers(cfg: VisionConfig, prior: BoardQuad
                      ) -> dict[int, tuple[float, float, float]]:
    """Where each marker should be (x, y, side in pixels) if the board has not moved."""
    g = cfg.calibration.geometry
    out: dict[int, tuple[float, float, float]] = {}
    for k, mid in enumerate(MARKER_IDS):
        px = project(cfg, prior, g.marker_corners(k))
        c = px.mean(axis=0)
        side = float(np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[2] - px[1])) / 2
        out[mid] = (float(c[0]), float(c[1]), side)
    return out


def locate_board(cfg: VisionConfig, image: Image, *, previous: BoardQuad | None = None
                 ) -> BoardQuad:
    """Find the board: by its corner markers, else where it was, else where it was calibrated.

    Args:
        cfg: the vision config.
        image: HxWx3 uint8 RGB frame.
        previous: the placement found on an earlier frame, used when markers are hidden.

    Returns:
        The placement.

    Raises:
        BadFrameError: if ``image`` is not an HxWx3 uint8 array.
        BoardNotFoundError: if the board carries markers, too few are seen and there is no
            earlier placement to fall back on.
    """
    check_image(image)
    g = cfg.calibration.geometry
    found = {}
    if cfg.calibration.markers:
        prior = previous
        if prior is None:
            try:
                prior = quad_from_corners(cfg, cfg.calibration.quad, "calibration")
            except BoardNotFoundError:
                prior = None
        expected = None if prior is None else _expected_markers(cfg, prior)
        found = cfg.finder.find(image, expected=expected)
    need = cfg.calibration.thresholds.min_markers
    if len(found) >= need:
        src = np.concatenate([g.marker_corners(MARKER_IDS.index(i)) for i in found])
        dst = _undistort(cfg, np.concatenate(list(found.values())))
        h, _ = cv2.findHomography(src, dst, 0)
        if h is not None:
            corners = cv2.perspectiveTransform(g.corners.reshape(-1, 1, 2), h)
            outer = _distort(cfg, np.asarray(corners, np.float64).reshape(-1, 2))
            return BoardQuad(homography=np.asarray(h, np.float64),
                             quad=tuple((float(x), float(y)) for x, y in outer),
                             markers=tuple(sorted(found)), source="markers")
    if previous is not None:
        return BoardQuad(homography=previous.homography, quad=previous.quad,
                         markers=tuple(sorted(found)), source="previous")
    if cfg.calibration.markers and len(found) < 2:
        raise BoardNotFoundError(f"no board in the frame: {len(found)} of 4 corner markers seen")
    try:
        q = quad_from_corners(cfg, cfg.calibration.quad, "calibration")
    except BoardNotFoundError:
        raise BoardNotFoundError(f"no board in the frame: {len(found)} of 4 corner markers "
                                 "seen") from None
    return BoardQuad(homography=q.homography, quad=q.quad, markers=tuple(sorted(found)),
                     source="calibration")


CAMERA_FOCAL = 1.0
"""Focal length of a camera without lens calibration, as a share of the frame's width (a lens
of 53 degrees across), to place the camera above the board from the board's corners."""


def board_camera_place(cfg: VisionConfig, quad: BoardQuad, focal: float = CAMERA_FOCAL
                       ) -> tuple[float, float, float] | None:
    """The point of the board below the camera (mm) and the camera's height above it (mm).

    The pose that maps the board's corners to where ``quad`` draws them (:func:`camera_place`),
    through the lens's camera matrix or one of focal ``focal`` times the frame's width.
    """
    w, h = cfg.calibration.image_size
    if cfg.calibration.lens is not None:
        k = cfg.calibration.lens.arrays()[0]
    else:
        f = focal * w
        k = np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]])
    corners = cfg.calibration.geometry.corners.astype(np.float64)
    px = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), quad.homography)
    return camera_place(corners, px, k)


def surface_homography(cfg: VisionConfig, quad: BoardQuad, focal: float = CAMERA_FOCAL
                       ) -> Matrix | None:
    """Board millimetres on a sunk playing surface -> undistorted frame pixels.

    The markers lie on the rails' top; the playing surface lies ``surface_depth`` (the
    calibration's geometry) below it, so from a camera at height ``H`` above the rails a point
    ``p`` of the surface is seen where the rails' plane would show ``b + (p - b) H / (H + d)``,
    ``b`` the point below the camera (placed from the board's corners through the lens's
    matrix, or one of focal ``focal`` times the frame's width).

    Returns:
        The homography, or None when the surface lies in the rails' plane (depth 0) or no
        camera place fits.
    """
    g = cfg.calibration.geometry
    if g.surface_depth <= 0:
        return None
    place = board_camera_place(cfg, quad, focal)
    if place is None:  # pragma: no cover - four corners of a convex quad always give a pose
        return None
    bx, by, height = place
    s = height / (height + g.surface_depth)
    shrink = np.array([[s, 0.0, (1 - s) * bx], [0.0, s, (1 - s) * by], [0.0, 0.0, 1.0]])
    return np.asarray(quad.homography @ shrink, np.float64)


def surface_quad(cfg: VisionConfig, quad: BoardQuad, focal: float = CAMERA_FOCAL) -> BoardQuad:
    """Where the playing surface is: ``quad`` itself when the surface lies in the rails'
    plane, else ``quad`` with the sunk surface's homography (:func:`surface_homography`).

    Only the homography changes: the corners (``quad.quad``) stay the board's outer corners in
    the rails' plane, so scales taken from them (the recogniser's camera pixels per mm) are
    the rails'."""
    sunk = surface_homography(cfg, quad, focal)
    return quad if sunk is None else replace(quad, homography=sunk)


def rectify(cfg: VisionConfig, image: Image, quad: BoardQuad,
            surface: BoardQuad | None = None) -> Image:
    """The board straight from above, rails included, at the calibration's scale.

    Args:
        cfg: the vision config.
        image: HxWx3 uint8 RGB frame.
        quad: where the board is.
        surface: where the playing surface is (:func:`surface_quad`); found from ``quad``
            when not given.

    A playing surface sunk below the rails (the geometry's ``surface_depth``) is straightened
    on its own plane (:func:`surface_homography`), the rails on theirs.

    Returns:
        The rectified board, ``layout.shape`` x 3 uint8 RGB.

    Raises:
        Nothing.
    """
    hh, ww = cfg.layout.shape
    out = _rectify(cfg, image, quad.homography, (0, 0, ww, hh))
    surface = surface_quad(cfg, quad) if surface is None else surface
    if surface is not quad:
        s = cfg.layout.scale
        box = tuple(round(v * s) for v in cfg.calibration.geometry.surface)
        x0, y0, x1, y1 = box
        out[y0:y1, x0:x1] = _rectify(cfg, image, surface.homography, (x0, y0, x1, y1))
    return out


def _rectify(cfg: VisionConfig, image: Image, homography: Matrix,
             box: tuple[int, int, int, int]) -> Image:
    """The part ``box`` (x0, y0, x1, y1 rectified pixels) of the board straightened by
    ``homography`` (board millimetres -> undistorted frame pixels)."""
    bx, by, bx1, by1 = box
    ww, hh = bx1 - bx, by1 - by
    s = cfg.layout.scale
    to_mm = np.array([[1 / s, 0, bx / s], [0, 1 / s, by / s], [0, 0, 1]])
    m = homography @ to_mm
    if cfg.calibration.lens is None:
        return np.asarray(cv2.warpPerspective(image, m, (ww, hh),
                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                              borderMode=cv2.BORDER_REPLICATE), np.uint8)
    step = 8
    # NOTE: frame positions are found on a coarse grid and spread to every pixel by a plain
    # resize, which puts grid point i at pixel (i + 0.5) * step - 0.5.
    gx = (np.arange(ww // step + 2, dtype=np.float64) + 0.5) * step - 0.5
    gy = (np.arange(hh // step + 2, dtype=np.float64) + 0.5) * step - 0.5
    xx, yy = np.meshgrid(gx, gy)
    grid = np.stack([xx, yy], axis=-1).reshape(-1, 1, 2)
    und = cv2.perspectiveTransform(grid, m).reshape(-1, 2)
    src = _distort(cfg, np.asarray(und, np.float64)).reshape(len(gy), len(gx), 2).astype(np.float32)
    big = (len(gx) * step, len(gy) * step)
    maps = [np.ascontiguousarray(cv2.resize(src[..., c], big,
                                            interpolation=cv2.INTER_LINEAR)[:hh, :ww])
            for c in (0, 1)]
    fixed, frac = cv2.convertMaps(maps[0], maps[1], cv2.CV_16SC2)
    return np.asarray(cv2.remap(image, fixed, frac, cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE), np.uint8)


def main(argv: Sequence[str] | None = None) -> int:
    """Locate and rectify one image; write ``rectified.png`` into the debug folder.

    Args:
        argv: ``CALIBRATION IMAGE --debug OUT``.

    Returns:
        0 when the board was found, 1 when not, 2 when the calibration or the image cannot be
        read or the picture not written.

    Raises:
        SystemExit: on bad arguments.
    """
    from tablier.vision.errors import stage_failed
    from tablier.vision.imageio import read_image, write_image
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.board")
    parser.add_argument("calibration", type=Path)
    parser.add_argument("image", type=Path)
    parser.add_argument("--debug", type=Path, default=Path("out"))
    args = parser.parse_args(argv)
    try:
        cfg = VisionConfig.from_calibration(Calibration.load(args.calibration))
        image = read_image(args.image)
    except (CalibrationError, RecognitionError) as exc:
        return stage_failed(parser.prog, exc)
    try:
        quad = locate_board(cfg, image)
    except BoardNotFoundError as exc:
        print(exc.reason)
        return 1
    try:
        args.debug.mkdir(parents=True, exist_ok=True)
        write_image(args.debug / "rectified.png", rectify(cfg, image, quad))
    except OSError as exc:
        return stage_failed(parser.prog, exc)
    print(f"board found by {quad.source}, markers {list(quad.markers)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
