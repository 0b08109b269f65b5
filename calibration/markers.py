"""The four ArUco markers stuck on the board's corner blocks: detection and the printable sheet.

Markers come from OpenCV's ``DICT_4X4_50``; ids 0, 1, 2, 3 go on the top-left, top-right,
bottom-right and bottom-left corner blocks as seen from above with White at the bottom (White's
talon is at the bottom-left).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import MARKER_IDS, BoardGeometry

ARUCO_DICT = cv2.aruco.DICT_4X4_50
"""The ArUco dictionary of the corner markers."""
DETECT_WIDTH = 960
"""Frames wider than this are searched at reduced size, then corners are refined in full."""

NEAR_SIDE = 48.0
"""In a search around where a marker was, the crop is scaled so that the marker's side is this
many pixels."""

NEAR_PERIMETER = 0.5
"""In a search around where a marker was, least outline of a marker as a share of the crop's
longer side. The crop is 3.2 markers wide (80 px at least), so the marker's outline is about
1.25 of it; a marker of under 40 % of its expected side is left to the search of the whole
frame. ArUco's default (0.03) has it decode every small dark patch of the crop too: on 4,350
rendered frames of 87 sessions the same corners were found, the search in 4.3 ms a frame
against 8.9 (throwaway ``out/mkeq.py``)."""

Corners = dict[int, npt.NDArray[np.float64]]


def _detector(*, relaxed: bool = False, near: bool = False) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    if near:
        params.minMarkerPerimeterRate = NEAR_PERIMETER
    if relaxed:
        # NOTE: blurred, low-contrast markers (small frames, poor JPEG) pass with a lower
        # threshold offset and a looser polygon fit; tried only when the first pass misses.
        params.adaptiveThreshConstant = 3
        params.polygonalApproxAccuracyRate = 0.06
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


def _grey(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    if image.ndim == 2:
        return np.ascontiguousarray(image)
    return np.asarray(cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY), np.uint8)


class MarkerFinder:
    """Finds the board's corner markers in grey frames (build once, call per frame)."""

    def __init__(self) -> None:
        self._detector = _detector()
        self._relaxed = _detector(relaxed=True)
        self._near = (_detector(near=True), _detector(relaxed=True, near=True))

    def find(self, image: npt.NDArray[np.uint8], *,
             expected: dict[int, tuple[float, float, float]] | None = None) -> Corners:
        """Find the corner markers.

        Args:
            image: HxW uint8 grey or HxWx3 uint8 RGB frame.
            expected: marker id -> (x, y, side) where each marker should be (pixels), e.g.
                from the previous frame: those places are searched first, and the whole frame
                only when too few markers are found there.

        Returns:
            Marker id -> 4x2 corners (ArUco order: clockwise from the marker's top-left) in
            frame pixels, for the ids of :data:`MARKER_IDS` that were seen once.

        Raises:
            Nothing.
        """
        if expected:
            found: Corners = {}
            h, w = image.shape[:2]
            for mid, (x, y, side) in expected.items():
                r = int(max(1.6 * side, 40))
                x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
                x1, y1 = min(w, int(x) + r), min(h, int(y) + r)
                if x1 - x0 < 16 or y1 - y0 < 16:
                    continue
                got = self._search(_grey(image[y0:y1, x0:x1]), side)
                if mid in got:
                    found[mid] = got[mid] + np.array([x0, y0], np.float64)
            if len(found) == len(expected):
                return found
        return self._search(_grey(image), None)

    def _search(self, gray: npt.NDArray[np.uint8], side: float | None) -> Corners:
        h, w = gray.shape[:2]
        f = min(1.0, DETECT_WIDTH / w) if side is None else min(1.0, NEAR_SIDE / max(side, 1.0))
        small = gray if f == 1.0 else cv2.resize(gray, (round(w * f), round(h * f)),
                                                 interpolation=cv2.INTER_AREA)
        found: Corners = {}
        for detector in (self._detector, self._relaxed) if side is None else self._near:
            corners, ids, _ = detector.detectMarkers(small)
            if ids is not None:
                seen = [int(i) for i in ids.ravel()]
                for c, i in zip(corners, seen):
                    if i in MARKER_IDS and seen.count(i) == 1 and i not in found:
                        found[i] = np.asarray(c, np.float64).reshape(4, 2) / f
            if len(found) == len(MARKER_IDS) or (side is not None and found):
                break
        if not found:
            return found
        if found and f < 1.0:
            pts = np.concatenate(list(found.values())).astype(np.float32).reshape(-1, 1, 2)
            win = max(2, round(1.5 / f))
            crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 10, 0.05)
            pts = np.asarray(cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), crit),
                             np.float32).reshape(-1, 4, 2)
            for k, i in enumerate(list(found)):
                found[i] = pts[k].astype(np.float64)
        return found


def marker_sheet(geometry: BoardGeometry | None = None, *, dpi: int = 300) -> npt.NDArray[np.uint8]:
    """The printable sheet of the four markers at their true size, with their places written.

    Args:
        geometry: the board (its ``marker_size`` sets the printed size).
        dpi: printer resolution.

    Returns:
        An A4-portrait HxW uint8 grey image.

    Raises:
        ValueError: if ``dpi`` is below 72.
    """
    if dpi < 72:
        raise ValueError(f"dpi must be at least 72, not {dpi!r}")
    g = geometry or BoardGeometry()
    mm = dpi / 25.4
    sheet = np.full((int(297 * mm), int(210 * mm)), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    side = round(g.marker_size * mm)
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    for k, mid in enumerate(MARKER_IDS):
        col, row = k % 2, k // 2
        x = int((25 + col * 95) * mm)
        y = int((40 + row * 110) * mm)
        sheet[y:y + side, x:x + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)
        cv2.putText(sheet, f"id {mid}: {names[k]} corner", (x, y + side + int(8 * mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.9 * dpi / 300, 0, max(1, dpi // 150))
    cv2.putText(sheet, f"tablier board markers, {g.marker_size:g} mm squares; White's talon "
                       "at the bottom-left", (int(15 * mm), int(20 * mm)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.8 * dpi / 300, 0, max(1, dpi // 150))
    return sheet
