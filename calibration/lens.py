"""Optional lens calibration from photographs of a ChArUco sheet (for wide lenses).

Print :func:`charuco_sheet`, photograph it flat from a dozen angles with the camera that watches
the board, and pass the photographs to :func:`calibrate_lens`. The result goes into the board
calibration (``tablier calibrate board --lens lens.json``) so frames are straightened through
the lens model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.calibration import CalibrationError, Lens

from tablier.files import write_durably

SQUARES = (7, 5)
"""Chessboard squares across and down the ChArUco sheet."""
SQUARE_MM = 30.0
"""Side of one square, mm."""
MARKER_MM = 22.0
"""Side of the ArUco marker inside a white square, mm."""
CHARUCO_DICT = cv2.aruco.DICT_5X5_100
"""The dictionary of the sheet (another than the board's, so they are never confused)."""

Image = npt.NDArray[np.uint8]


def charuco_board() -> cv2.aruco.CharucoBoard:
    """The ChArUco board of the printed sheet."""
    dictionary = cv2.aruco.getPredefinedDictionary(CHARUCO_DICT)
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM / 1000.0, MARKER_MM / 1000.0, dictionary)


def charuco_sheet(*, dpi: int = 200) -> Image:
    """The printable sheet, true size at ``dpi``.

    Args:
        dpi: printer resolution.

    Returns:
        HxW uint8 grey image.

    Raises:
        ValueError: if ``dpi`` is below 72.
    """
    if dpi < 72:
        raise ValueError(f"dpi must be at least 72, not {dpi!r}")
    px = dpi / 25.4
    size = (int(SQUARES[0] * SQUARE_MM * px), int(SQUARES[1] * SQUARE_MM * px))
    img = charuco_board().generateImage(size, marginSize=0)
    return np.asarray(cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255),
                      np.uint8)


def calibrate_lens(images: Sequence[Image], *, min_views: int = 5) -> Lens:
    """Estimate the camera matrix and distortion from photographs of the ChArUco sheet.

    Args:
        images: HxWx3 uint8 RGB (or HxW grey) photographs, all the same size.
        min_views: views with enough corners needed.

    Returns:
        The lens, with its reprojection error.

    Raises:
        CalibrationError: if the images differ in size or too few show the sheet.
    """
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts: list[npt.NDArray[np.float32]] = []
    img_pts: list[npt.NDArray[np.float32]] = []
    size: tuple[int, int] | None = None
    for img in images:
        grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        h, w = grey.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(f"lens photographs differ in size: {size} and {(w, h)}")
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < 6:
            continue
        o, i = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        obj_pts.append(np.asarray(o, np.float32))
        img_pts.append(np.asarray(i, np.float32))
    if size is None or len(obj_pts) < min_views:
        raise CalibrationError(f"only {len(obj_pts)} photograph(s) show the ChArUco sheet well "
                               f"enough; {min_views} are needed")
    rms, k, d, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return Lens(matrix=tuple(tuple(float(v) for v in row) for row in k),
                dist=tuple(float(v) for v in np.ravel(d)[:5]), rms=float(rms))


def save_lens(lens: Lens, path: Path) -> None:
    """Write a lens as JSON.

    Args:
        lens: the lens.
        path: the file.

    Raises:
        OSError: naming the file, if it cannot be written (an old file there is kept).
    """
    write_durably(path, json.dumps({"format": "tablier-lens",
                                    "matrix": [list(r) for r in lens.matrix],
                                    "dist": list(lens.dist), "rms": lens.rms}, indent=1) + "\n")


def load_lens(path: Path) -> Lens:
    """Read a lens written by :func:`save_lens`.

    Args:
        path: the file.

    Returns:
        The lens.

    Raises:
        CalibrationError: if the file is missing or malformed.
    """
    try:
        data = json.loads(path.read_text())
        matrix = tuple(tuple(float(v) for v in row) for row in data["matrix"])
        dist = tuple(float(v) for v in data["dist"])
    except FileNotFoundError:
        raise CalibrationError(f"no lens file {str(path)!r}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CalibrationError(f"lens file {str(path)!r} is malformed: {exc!r}") from None
    if len(matrix) != 3 or any(len(r) != 3 for r in matrix) or not 4 <= len(dist) <= 14:
        raise CalibrationError(f"lens file {str(path)!r}: matrix must be 3x3 and dist 4..14 "
                               "numbers")
    return Lens(matrix=matrix, dist=dist, rms=float(data.get("rms", 0.0)))
