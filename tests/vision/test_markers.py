"""The corner markers' search around where they were."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import MARKER_IDS
from tablier.calibration.markers import ARUCO_DICT, MarkerFinder


def _canvas(markers: list[tuple[int, int, int, int]]) -> npt.NDArray[np.uint8]:
    """A light grey frame with the given markers (id, x, y, side: top-left corner and size),
    each on its white margin, and small dark patches about."""
    frame = np.full((400, 400), 190, np.uint8)
    rng = np.random.default_rng(1038)
    for _ in range(40):
        x, y = (int(v) for v in rng.integers(5, 385, 2))
        frame[y:y + 6, x:x + 6] = 30
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for mid, x, y, side in markers:
        margin = side // 6
        frame[y - margin:y + side + margin, x - margin:x + side + margin] = 255
        frame[y:y + side, x:x + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)
    return frame


def _corners(x: int, y: int, side: int) -> npt.NDArray[np.float64]:
    # NOTE: ArUco's corners are those of the marker's outer black square, in pixel-edge
    # coordinates shifted by half a pixel: within a pixel of these.
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float64)


def test_a_marker_is_found_near_where_it_was_among_small_dark_patches() -> None:
    mid = MARKER_IDS[0]
    frame = _canvas([(mid, 120, 140, 60)])
    found = MarkerFinder().find(frame, expected={mid: (150.0, 170.0, 60.0)})
    assert list(found) == [mid]
    assert np.abs(found[mid] - _corners(120, 140, 60)).max() <= 1.0
    # and by the search around its place, not by the search of the whole frame after it
    crop = frame[170 - 96:170 + 96, 150 - 96:150 + 96]
    near = MarkerFinder()._search(crop, 60.0)
    assert list(near) == [mid]


def test_the_search_near_a_marker_leaves_out_markers_far_smaller_than_it() -> None:
    big, small = MARKER_IDS[0], MARKER_IDS[1]
    frame = _canvas([(big, 120, 140, 60), (small, 200, 210, 20)])
    crop = frame[170 - 96:170 + 96, 150 - 96:150 + 96]
    finder = MarkerFinder()
    assert sorted(finder._search(crop, None)) == sorted([big, small])
    assert list(finder._search(crop, 60.0)) == [big]
