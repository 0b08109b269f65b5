"""Read the dice on a photograph of the board itself, placed by tablier's corner markers (or by
its four outer corners, given).

The dice reader (:mod:`tablier.vision.dice`) is made for any photograph: a dark round spot on a
bright body is a pip to it. A photograph of a whole trictrac board is full of such spots that are
no dice: the rails' holes (read as ones, two neighbours as a two) and the corners of the markers.
On the fifty-second round's tuning set 5164 (370 frames at 1640x1232) the whole picture gave
3,830 such reports and 283 of 740 dice right; at 1024x768 the dice, 16-20 pixels across, are
also too small for it (docs/vision.md, fifty-second round).

So where three or more of the corner markers are seen (or the corners are given: a board
without markers, :func:`board_from_corners`), the photograph is read as the board's own
reader (:class:`~tablier.vision.recognizer.Recognizer`) reads a camera frame, on a calibration
made from the photograph itself (:func:`photo_calibration`): the board placed by its markers
(the default :class:`~tablier.calibration.geometry.BoardGeometry`, no lens calibration), the
light taken from its own rails, the empty points' and the dames' colours found among the points
(:func:`~tablier.calibration.profile.build_profile` with ``start=False``). ``tablier dice`` takes
only the dice from that reading; :class:`OwnReader` (``tablier see --own``) the whole of it but
the marks. Where the recogniser cannot read the dice (it judges a
hand over the board, or the calibration cannot be made), the dice reader reads the picture with
everything but the playing surface, widened by :data:`SURFACE_MARGIN` (a die cocked against
the rail stays whole), painted out along with the markers, and drawn larger where a die would
span fewer than :data:`DIE_PX` pixels. Either way the JSON is the same, positions and sizes in
the input image's pixels. A die lying on a rail is off the playing surface (a bad throw by the
dice rules) and is not reported.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from tablier.calibration.calibration import Calibration, CalibrationError
from tablier.calibration.flow import calibrate_frame
from tablier.calibration.geometry import MARKER_IDS, BoardGeometry
from tablier.calibration.markers import MarkerFinder
from tablier.vision.dice import DiceConfig, DiceReading, Die, read_dice
from tablier.vision.errors import BoardNotFoundError, RecognitionError
from tablier.vision.recognizer import Observation, Recognizer

log = logging.getLogger(__name__)

MIN_MARKERS = 3
"""Least corner markers seen to place the board (the calibration's own ``min_markers``)."""
SURFACE_MARGIN = 5.0
"""How far past the playing surface's edge the picture is still read, mm. Without a lens
calibration the markers place the rails' inner edges a few pixels off, and a die against the
rail must stay whole; the holes begin 18 mm past the edge, the markers 3.5 mm. On the tuning
boards (fifty-second round) 0 mm read 130 of 153 flat dice and 10 mm 147, against 152 at 5."""
MARKER_PAINT = 1.3
"""Each marker seen is painted out over this many times its own size about its middle (its
white border and the corner block around it; corners of a marker read as ones otherwise)."""
DIE_PX = 40.0
"""A board whose die (16 mm) spans fewer pixels than this at the surface's middle is read
enlarged to it: the reader's error per die is about four times higher under 24 pixels than at
24-32 (forty-fourth round). Chosen on the tuning boards: 32 / 40 / 48 px read 264 / 261 / 266
of 347 flat dice at 1024x768 and 441 / 448 / 444 of 455 at 1640x1232."""
PAINT = 128
"""The grey painted over what is not read."""
WHITE_PERCENTILE = 98.0
"""A calibration's profile gives the recogniser a white dame's brightness, its measure of the
light for the dice (a pip is a spot this much darker than a body this bright). A photograph
of a game in progress has no white dame at a known place: the playing surface's 98th
percentile of grey stands for it."""


@dataclass(frozen=True)
class BoardInPhoto:
    """Where the board's playing surface lies on a photograph."""

    surface: NDArray[np.float64]
    """The playing surface widened by :data:`SURFACE_MARGIN`: 4x2 corners in image pixels
    (top-left, top-right, bottom-right, bottom-left as the board's sheet draws them)."""
    markers: dict[int, NDArray[np.float64]]
    """The corner markers seen: id -> 4x2 corners in image pixels."""
    die_px: float
    """How many image pixels a die's edge spans at the middle of the surface."""


def find_board(image: NDArray[np.uint8], *, geometry: BoardGeometry | None = None,
               finder: MarkerFinder | None = None) -> BoardInPhoto | None:
    """Place the board by its corner markers.

    Args:
        image: HxWx3 uint8 RGB or HxW uint8 grey.
        geometry: the board's dimensions (the default board when None).
        finder: a marker finder to reuse (a new one when None).

    Returns:
        The board's surface in the image, or None when fewer than :data:`MIN_MARKERS` markers
        are seen or they give no placement.

    Raises:
        Nothing.
    """
    g = geometry or BoardGeometry()
    found = (finder or MarkerFinder()).find(image)
    if len(found) < MIN_MARKERS:
        return None
    src = np.concatenate([g.marker_corners(MARKER_IDS.index(i)) for i in found])
    dst = np.concatenate(list(found.values()))
    h, _ = cv2.findHomography(src, dst, 0)
    return None if h is None else _placed(np.asarray(h, np.float64), g, found)


def board_from_corners(corners: Sequence[Sequence[float]], *,
                       geometry: BoardGeometry | None = None) -> BoardInPhoto:
    """Place a board without markers by its four outer corners.

    Args:
        corners: top-left, top-right, bottom-right, bottom-left (White's talon at the
            bottom-left) in image pixels.
        geometry: the board's dimensions (the default board when None).

    Returns:
        The board's surface in the image.

    Raises:
        ValueError: if the corners are not four points making a convex quadrilateral.
    """
    g = geometry or BoardGeometry()
    quad = np.asarray(corners, np.float64)
    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        raise ValueError(f"the board's corners must be four X,Y points, got {quad.tolist()}")
    edges = np.roll(quad, -1, axis=0) - quad
    nxt = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        raise ValueError("the board's corners do not make a convex quadrilateral "
                         "(give them as top-left, top-right, bottom-right, bottom-left)")
    h = cv2.getPerspectiveTransform(g.corners.astype(np.float32), quad.astype(np.float32))
    board = _placed(np.asarray(h, np.float64), g, {})
    if board is None:
        raise ValueError("the board's corners place no board")
    return board


def _placed(h: NDArray[np.float64], g: BoardGeometry,
            markers: dict[int, NDArray[np.float64]]) -> BoardInPhoto | None:
    """The board placed by a homography from board millimetres to image pixels."""
    x0, y0, x1, y1 = g.surface
    m = SURFACE_MARGIN
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    board = np.array([[x0 - m, y0 - m], [x1 + m, y0 - m], [x1 + m, y1 + m], [x0 - m, y1 + m],
                      [cx, cy], [cx + 1.0, cy], [cx, cy + 1.0]], np.float64)
    pts = np.asarray(cv2.perspectiveTransform(board.reshape(-1, 1, 2), h),
                     np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(pts)):
        return None
    ex, ey = pts[5] - pts[4], pts[6] - pts[4]
    px_per_mm = float(np.sqrt(abs(ex[0] * ey[1] - ex[1] * ey[0])))
    return BoardInPhoto(surface=pts[:4], markers=markers, die_px=g.die_size * px_per_mm)


def photo_calibration(image: NDArray[np.uint8], board: BoardInPhoto, *,
                      corners: Sequence[Sequence[float]] | None = None) -> Calibration:
    """A calibration made from a photograph of the board itself, for its dice alone.

    Args:
        image: HxWx3 uint8 RGB.
        board: where :func:`find_board` (or :func:`board_from_corners`) placed the board.
        corners: the board's outer corners for a board without markers (None: its markers).

    Returns:
        The calibration: the board placed by its markers, the light and colours taken from
        this photograph, a white dame's brightness from the surface (:data:`WHITE_PERCENTILE`).

    Raises:
        CalibrationError: if the board's markers (or corners) do not place it.
    """
    calibration = calibrate_frame(image, corners=corners, start=False)
    surface = _surface_mask(image.shape[:2], board)
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), np.uint8)
    level = float(np.percentile(grey[surface > 0], WHITE_PERCENTILE))
    profile = dataclasses.replace(calibration.profile, white=(level, level, level))
    return dataclasses.replace(calibration, profile=profile)


def _surface_mask(shape: tuple[int, ...], board: BoardInPhoto) -> NDArray[np.uint8]:
    """255 on the playing surface (with its margin), 0 elsewhere and on the markers."""
    keep = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(keep, np.round(board.surface).astype(np.int32), 255)
    for corners in board.markers.values():
        mid = corners.mean(axis=0)
        cv2.fillConvexPoly(keep, np.round(mid + MARKER_PAINT * (corners - mid)).astype(np.int32),
                           0)
    return keep


class OwnReader:
    """Reads each photograph of the board on a calibration made from itself
    (:func:`photo_calibration`): ``tablier see --own``, and ``tablier eval --own`` on a set.

    Where a calibration file knows the start's dames and surface, a photograph's own
    calibration takes each point's empty colour from the points of its colour that look alike
    all along, and the lighter dames for White's. Its surface is the photograph's own: a hand
    over the board is not seen as one. The jetons, fichets and pavillon are not reported
    (``marks`` is None): they are read against their places at a match's start.
    """

    def __init__(self, calibration: Calibration | None = None, *,
                 corners: Sequence[Sequence[float]] | None = None) -> None:
        """Set up the reader.

        Args:
            calibration: ignored (``tablier eval``'s sets hold one per session; the board's
                geometry is the default board's).
            corners: the board's outer corners for a board without markers (None: its
                markers).
        """
        self.corners = corners
        self.finder = MarkerFinder()
        self.recognizer: Recognizer | None = None
        """The last photograph's recogniser (``tablier see`` annotates with it)."""

    def recognize(self, image: NDArray[np.uint8], previous: object = None) -> Observation:
        """Read a photograph on its own calibration.

        Args:
            image: HxWx3 uint8 RGB.
            previous: ignored (each photograph stands alone).

        Returns:
            The observation.

        Raises:
            BoardNotFoundError: if fewer than :data:`MIN_MARKERS` markers are seen (and no
                corners were given).
            RecognitionError: if the calibration cannot be made; as
                :meth:`Recognizer.recognize`.
            ValueError: for corners that do not make a board.
        """
        board = (find_board(image, finder=self.finder) if self.corners is None
                 else board_from_corners(self.corners))
        if board is None:
            raise BoardNotFoundError(f"fewer than {MIN_MARKERS} of the board's corner markers "
                                     "seen: give its four outer corners (--corners)")
        try:
            calibration = photo_calibration(image, board, corners=self.corners)
        except CalibrationError as exc:
            raise RecognitionError(f"no calibration can be made from the photograph: {exc}"
                                   ) from None
        self.recognizer = Recognizer(calibration)
        # NOTE: the jetons, fichets and pavillon are read against their places at a match's
        # start, which a photograph of a game in progress does not show: not reported
        return dataclasses.replace(self.recognizer.recognize(image), marks=None)


def _by_recognizer(image: NDArray[np.uint8], board: BoardInPhoto,
                   corners: Sequence[Sequence[float]] | None) -> DiceReading | None:
    """The dice as the board's recogniser reads them on the photograph's own calibration, or
    None when it cannot (no calibration, a hand over the board)."""
    rgb = image if image.ndim == 3 else np.dstack([image] * 3)
    try:
        calibration = photo_calibration(rgb, board, corners=corners)
        observation = Recognizer(calibration).recognize(rgb)
    except (CalibrationError, RecognitionError) as exc:
        log.info("the board's reader cannot read this photograph (%s): the dice reader reads "
                 "its playing surface", exc)
        return None
    if observation.occluded:
        log.info("the board's reader sees a hand over the board: the dice reader reads the "
                 "playing surface")
        return None
    log.info("board placed by %s: its dice read by the board's reader",
             "the corners given" if corners is not None else f"{len(board.markers)} markers")
    dice = tuple(sorted((Die(value=d.value, center=d.center, size=d.size,
                             confidence=d.confidence, reason=d.reason, tilt=d.tilt)
                         for d in observation.dice if d.reason != "off_board"),
                        key=lambda d: d.center[0]))
    h, w = image.shape[:2]
    return DiceReading(image_size=(w, h), dice=dice,
                       debug={"surface": [(float(x), float(y)) for x, y in board.surface],
                              "reader": "recognizer"})


def read_photo(cfg: DiceConfig, image: NDArray[np.uint8], *, whole: bool = False,
               finder: MarkerFinder | None = None, recognizer: bool = True,
               corners: Sequence[Sequence[float]] | None = None) -> DiceReading:
    """Read the dice on a photograph: where the board's markers are seen, by the board's
    recogniser on the photograph's own calibration, or on the playing surface alone; else (or
    with ``whole``) on the whole picture as :func:`read_dice` does.

    Args:
        cfg: the dice reader's settings (``DiceConfig()`` for the defaults), for every reading
            but the recogniser's.
        image: HxWx3 uint8 RGB or HxW uint8 grey.
        whole: read the whole picture even where the board is found.
        finder: a marker finder to reuse (a new one when None).
        recognizer: let the board's recogniser read a photograph of the board (False: the
            dice reader on the playing surface alone).
        corners: the board's outer corners (top-left, top-right, bottom-right, bottom-left;
            White's talon at the bottom-left) for a board without markers; None to look for
            the markers.

    Returns:
        The reading, in the input image's pixels; ``debug["surface"]`` holds the surface's four
        corners when the board was found, ``debug["reader"]`` is ``"recognizer"`` when the
        recogniser read it.

    Raises:
        ValueError: as :func:`read_dice`, for an image that is not one; for corners that do
            not make a board (:func:`board_from_corners`) or given with ``whole``.
    """
    if corners is not None and whole:
        raise ValueError("the board's corners and a reading of the whole picture exclude "
                         "each other")
    board = None
    is_image = (isinstance(image, np.ndarray) and image.dtype == np.uint8
                and image.ndim in (2, 3) and min(image.shape[:2]) >= 16)
    if corners is not None and is_image:
        board = board_from_corners(corners)
    elif not whole and is_image:
        board = find_board(image, finder=finder)
    if board is None:
        if not whole:
            log.info("no board markers seen: the whole picture is read")
        return read_dice(cfg, image)
    if recognizer:
        reading = _by_recognizer(image, board, corners)
        if reading is not None:
            return reading
    h, w = image.shape[:2]
    painted = image.copy()
    painted[_surface_mask(image.shape, board) == 0] = PAINT
    zoom = max(1.0, DIE_PX / board.die_px) if board.die_px > 0 else 1.0
    if zoom > 1.0:
        # NOTE: the whole picture is enlarged, not a crop of it: the reader's perspective
        # works from the picture's middle and its longer side.
        size = (round(w * zoom), round(h * zoom))
        painted = np.asarray(cv2.resize(painted, size, interpolation=cv2.INTER_CUBIC), np.uint8)
        cfg = dataclasses.replace(cfg, work_side=max(cfg.work_side, max(size)))
    reading = read_dice(cfg, painted)
    return _scaled(reading, (w, h), 1.0 / zoom, board.surface)


def _scaled(reading: DiceReading, image_size: tuple[int, int], f: float,
            surface: NDArray[np.float64]) -> DiceReading:
    """The reading with every position and size multiplied by ``f``, for an image of
    ``image_size``, and the surface added to its debug."""
    dice = tuple(dataclasses.replace(d, center=(d.center[0] * f, d.center[1] * f), size=d.size * f)
                 for d in reading.dice)
    pips = reading.debug.get("pips", [])
    faces = reading.debug.get("faces", [])
    dames = reading.debug.get("dames", [])
    assert isinstance(pips, list) and isinstance(faces, list) and isinstance(dames, list)
    debug: dict[str, object] = {
        "pips": [(x * f, y * f, r * f, ratio) for x, y, r, ratio in pips],
        "faces": [(v, cx * f, cy * f, ratio, misfit, [(x * f, y * f) for x, y in members])
                  for v, cx, cy, ratio, misfit, members in faces],
        "dames": [(x * f, y * f, d1 * f, d2 * f, angle) for x, y, d1, d2, angle in dames],
        "surface": [(float(x), float(y)) for x, y in surface],
    }
    return DiceReading(image_size=image_size, dice=dice, debug=debug)
