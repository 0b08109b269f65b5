"""A synthetic camera view of a trictrac board, with its ground truth.

The board is drawn top-down on a texture in millimetres (see
:class:`tablier.calibration.geometry.BoardGeometry`): rails with their holes, two halves of twelve
flèches, the dames in rows and piles, jetons, fichets, pavillon, two dice (drawn by
:mod:`tablier.vision.render_dice`), an optional hand, arm or dice cup, and four
ArUco markers on the corner blocks. The texture is then seen by a camera: a homography (height,
tilt, turn), radial lens distortion, uneven light of some colour, blur, noise and JPEG.

Every frame comes with a JSON-ready ground truth (see :func:`render_frame`). Whole games are
rendered by :func:`render_game` from a list of :class:`GameStep`.

Run as a module to write a few frames::

    python -m tablier.vision.render OUT_DIR --seed 1 --count 4
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import (
    JETON_REST,
    MARKER_IDS,
    BoardGeometry,
    white_field,
)
from tablier.engine import Color, Marks, Pavillon
from tablier.vision.board import board_pose, camera_place

RGB = tuple[int, int, int]
Image = npt.NDArray[np.uint8]
ARUCO_DICT = cv2.aruco.DICT_4X4_50
"""The ArUco dictionary of the corner markers."""
_MARGIN_MM = 260.0
_DAME_THICKNESS = 7.0
"""Thickness of a dame, mm: a die lying on a pile is raised by this much per dame."""
_PILE_STEP = 1.3
"""How far each dame of a pile is drawn up and to the left of the one below it, mm."""
_SLOT_JITTER = ((-1.5, 1.5), (-0.8, 0.4))
"""How far a stack of dames is drawn from its slot's centre, mm: x range, y range."""


# Appearance ---------------------------------------------------------------------------------

_FIELD_PAIRS: tuple[tuple[RGB, RGB], ...] = (
    ((28, 84, 52), (150, 36, 34)),     # green / red
    ((110, 30, 40), (88, 110, 50)),    # burgundy / olive
    ((32, 44, 96), (186, 148, 96)),    # navy / tan
    ((82, 52, 30), (196, 160, 110)),   # brown / light wood
    ((20, 70, 78), (170, 84, 40)),     # teal / rust
)
LOOK_ALIKE_STYLE = (3, 1)
"""The field pair and the black dames (indices into the palettes above) whose dark points are
the black dames' brown: about one board in fifteen draws them. The dames reader tells a dame by
its colour and may misread fields there (``tablier render --look-alike`` draws only them)."""
_SURFACES: tuple[RGB, ...] = ((44, 100, 64), (150, 108, 64), (120, 40, 36), (60, 70, 110),
                              (170, 140, 96))
_RAILS: tuple[RGB, ...] = ((110, 66, 34), (140, 92, 52), (84, 50, 28), (160, 118, 72))
_WHITES: tuple[RGB, ...] = ((238, 234, 222), (232, 220, 186), (244, 240, 232))
_BLACKS: tuple[RGB, ...] = ((34, 32, 32), (64, 38, 26), (22, 24, 30))
_JETONS: tuple[RGB, ...] = ((214, 170, 40), (200, 40, 40), (40, 150, 200))
_PAVILLONS: tuple[RGB, ...] = ((220, 30, 40), (30, 60, 200))
_SKINS: tuple[RGB, ...] = ((232, 190, 160), (200, 150, 110), (150, 100, 70), (96, 64, 46))
_SLEEVES: tuple[RGB, ...] = ((40, 50, 120), (200, 200, 200), (60, 60, 60), (150, 30, 30))
_CUPS: tuple[RGB, ...] = ((70, 40, 24), (30, 28, 28), (120, 70, 40))
_TABLES: tuple[RGB, ...] = ((180, 160, 130), (90, 70, 55), (200, 200, 196), (60, 60, 64))


def _pick(rng: np.random.Generator, items: Sequence[RGB]) -> RGB:
    return items[int(rng.integers(len(items)))]


def _jitter(rng: np.random.Generator, color: RGB, amount: float = 10.0) -> RGB:
    c = np.clip(np.array(color) + rng.normal(0.0, amount, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


@dataclass(frozen=True)
class BoardStyle:
    """The colours of one physical board and its pieces (RGB)."""

    fields: tuple[RGB, RGB] = _FIELD_PAIRS[0]
    """The two alternating flèche colours (bottom-left flèche first)."""
    surface: RGB = _SURFACES[0]
    """The playing surface between the flèches."""
    rail: RGB = _RAILS[0]
    """The wooden rails and bridge."""
    white: RGB = _WHITES[0]
    """The white (or ivory) dames."""
    black: RGB = _BLACKS[0]
    """The black (or dark) dames."""
    jeton: RGB = _JETONS[0]
    """The jetons."""
    peg: RGB = (236, 222, 180)
    """The heads of the fichets."""
    pavillon: RGB = _PAVILLONS[0]
    """The pavillon's flag."""
    table: RGB = _TABLES[0]
    """The table around the board."""

    @classmethod
    def random(cls, rng: np.random.Generator, *, look_alike: bool = False) -> BoardStyle:
        """A random but plausible board.

        Args:
            rng: the source of randomness.
            look_alike: draw the brown / light wood points with the brown black dames
                (:data:`LOOK_ALIKE_STYLE`). The same draws are made as without it, so only
                those colours change, and the surface where it would be the points' colour.

        Returns:
            The style.

        Raises:
            Nothing.
        """
        def clash(surface: RGB, pair: tuple[RGB, RGB]) -> bool:
            return bool(min(np.abs(np.array(surface) - np.array(p)).sum() for p in pair) < 60)

        pair = _FIELD_PAIRS[int(rng.integers(len(_FIELD_PAIRS)))]
        flip = rng.random() < 0.5
        surface = _pick(rng, _SURFACES)
        while clash(surface, pair):
            surface = _pick(rng, _SURFACES)
        if look_alike:
            pair = _FIELD_PAIRS[LOOK_ALIKE_STYLE[0]]
            if clash(surface, pair):
                # NOTE: the first surface that parts from the points, drawing nothing more
                surface = next(c for c in _SURFACES if not clash(c, pair))
        if flip:
            pair = (pair[1], pair[0])
        fields = (_jitter(rng, pair[0]), _jitter(rng, pair[1]))
        surface = _jitter(rng, surface)
        rail = _jitter(rng, _pick(rng, _RAILS))
        white = _jitter(rng, _pick(rng, _WHITES), 4)
        black = _pick(rng, _BLACKS)
        if look_alike:
            black = _BLACKS[LOOK_ALIKE_STYLE[1]]
        return cls(fields=fields, surface=surface, rail=rail, white=white,
                   black=_jitter(rng, black, 4),
                   jeton=_pick(rng, _JETONS), pavillon=_pick(rng, _PAVILLONS),
                   table=_jitter(rng, _pick(rng, _TABLES), 15))

    def field_color(self, field: int) -> RGB:
        """The colour of White's field ``field`` (opposite flèches differ, neighbours alternate)."""
        column = field - 1 if field <= 12 else 24 - field
        return self.fields[(column + (0 if field <= 12 else 1)) % 2]


@dataclass(frozen=True)
class Camera:
    """Where the camera sees the board: a homography plus radial lens distortion."""

    width: int
    """Frame width, pixels."""
    height: int
    """Frame height, pixels."""
    corners: tuple[tuple[float, float], ...]
    """The board's outer corners (TL, TR, BR, BL) in the undistorted image, pixels."""
    k1: float = 0.0
    """Radial distortion coefficient (OpenCV's k1, on a focal length of the frame width)."""
    k2: float = 0.0
    """Second radial coefficient."""

    @property
    def matrix(self) -> npt.NDArray[np.float64]:
        """The camera matrix: focal length = frame width, principal point at the centre."""
        f = float(self.width)
        return np.array([[f, 0.0, self.width / 2], [0.0, f, self.height / 2], [0.0, 0.0, 1.0]])

    @property
    def dist(self) -> npt.NDArray[np.float64]:
        """OpenCV's distortion vector (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def homography(self, geometry: BoardGeometry) -> npt.NDArray[np.float64]:
        """Board millimetres to undistorted frame pixels."""
        h = cv2.getPerspectiveTransform(geometry.corners.astype(np.float32),
                                        np.array(self.corners, np.float32))
        return np.asarray(h, np.float64)

    def viewpoint(self, geometry: BoardGeometry) -> tuple[float, float, float]:
        """Where the camera is: the board point below it and its height, mm.

        The pose that maps the board's corners to ``corners`` through ``matrix``. A die at p on
        the board is seen leaning outward by ``(p - below) / height`` per mm of its height:
        its top is drawn away from the point below the camera, and the side faces facing that
        point show.
        """
        place = camera_place(geometry.corners, self.corners, self.matrix)
        if place is None:  # pragma: no cover - four corners of a convex quad always give a pose
            raise ValueError("no camera pose fits the board's corners")
        return place

    def project(self, geometry: BoardGeometry, points: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Map board millimetres to (distorted) frame pixels.

        Args:
            geometry: the board.
            points: Nx2 board points, mm.

        Returns:
            Nx2 frame pixels.

        Raises:
            Nothing.
        """
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        und = cv2.perspectiveTransform(pts, self.homography(geometry)).reshape(-1, 2)
        if self.k1 == 0.0 and self.k2 == 0.0:
            return np.asarray(und, np.float64)
        k = self.matrix
        norm = (und - k[:2, 2]) / k[0, 0]
        obj = np.hstack([norm, np.ones((len(norm), 1))]).reshape(-1, 1, 3)
        img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), k, self.dist)
        return np.asarray(img.reshape(-1, 2), np.float64)

    @classmethod
    def random(cls, rng: np.random.Generator, width: int, height: int, *,
               geometry: BoardGeometry | None = None, distortion: bool = True) -> Camera:
        """A camera above the board at a random height, tilt and turn, the board in view.

        Args:
            rng: the source of randomness.
            width: frame width, pixels.
            height: frame height, pixels.
            geometry: the board (default dimensions when None).
            distortion: False for a perfect lens.

        Returns:
            The camera.

        Raises:
            Nothing.
        """
        g = geometry or BoardGeometry()
        bw, bh = g.size
        fill = rng.uniform(0.72, 0.92)
        scale = min(width * fill / bw, height * fill / bh)
        angle = math.radians(rng.uniform(-6.0, 6.0))
        c = g.corners - np.array([bw / 2, bh / 2])
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        pts = (c @ rot.T) * scale
        # NOTE: tilt is a keystone: the edge nearer the camera's foot is drawn larger.
        tilt = rng.uniform(0.0, 0.12)
        side = int(rng.integers(4))
        axis = 1 if side in (0, 2) else 0
        sign = -1.0 if side in (0, 3) else 1.0
        coord = pts[:, axis] / (np.abs(pts[:, axis]).max() + 1e-9)
        pts = pts * (1.0 + sign * tilt * coord / 2)[:, None]
        span = pts.max(axis=0) - pts.min(axis=0)
        fit = min(1.0, (width * 0.96) / span[0], (height * 0.96) / span[1])
        pts, span = pts * fit, span * fit
        room = np.array([width, height]) - span
        centre = np.array([width / 2, height / 2]) + rng.uniform(-0.4, 0.4, 2) * np.maximum(room, 0) / 2
        pts = pts - (pts.max(axis=0) + pts.min(axis=0)) / 2 + centre
        k1 = float(rng.uniform(-0.18, 0.06)) if distortion else 0.0
        camera = cls(width=width, height=height,
                     corners=tuple((float(x), float(y)) for x, y in pts), k1=k1, k2=0.0)
        return camera.posed(g, *camera.pose(g))

    def pose(self, geometry: BoardGeometry) -> tuple[npt.NDArray[np.float64],
                                                     npt.NDArray[np.float64]]:
        """The camera's rotation and translation (OpenCV's rvec, tvec) that best draw the
        board's corners where ``corners`` puts them, through ``matrix``."""
        pose = board_pose(geometry.corners, self.corners, self.matrix)
        if pose is None:  # pragma: no cover - four corners of a convex quad always give a pose
            raise ValueError("no camera pose fits the board's corners")
        return pose

    def posed(self, geometry: BoardGeometry, rvec: npt.NDArray[np.float64],
              tvec: npt.NDArray[np.float64], *, turn: float = 0.0,
              shift: tuple[float, float] = (0.0, 0.0)) -> Camera:
        """The same camera with the board's corners drawn exactly as a pinhole at that pose
        sees them, the board first turned ``turn`` degrees about its middle and moved by
        ``shift`` mm on the table.

        A camera drawn from four corners picked at will is no pinhole (no pose draws them
        exactly), and the two poses that come near then place the camera far apart (the
        planar pose's mirror ambiguity): the point below the camera, which the parallax of
        dice and a sunk surface is drawn from, would jump between frames of one session.
        """
        g = geometry
        mid = np.array(g.size, np.float64) / 2
        a = math.radians(turn)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        board = (g.corners - mid) @ rot.T + mid + np.array(shift, np.float64)
        obj = np.hstack([board, np.zeros((4, 1))]).astype(np.float64)
        px, _ = cv2.projectPoints(obj, rvec, tvec, self.matrix, None)
        return replace(self, corners=tuple((float(x), float(y)) for x, y in px.reshape(-1, 2)))


@dataclass(frozen=True)
class Lighting:
    """The light and the sensor: what varies from frame to frame."""

    intensity: float = 1.0
    """Overall brightness factor."""
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """Per-channel gain of the light (R, G, B)."""
    gradient: tuple[float, float] = (0.0, 0.0)
    """Linear fall-off of the light across the frame (x, y), fraction per frame width."""
    blur: float = 0.0
    """Gaussian blur sigma, pixels."""
    noise: float = 0.0
    """Gaussian noise sigma, grey levels."""
    jpeg_quality: int = 90
    """JPEG quality of the stored frame."""

    @classmethod
    def random(cls, rng: np.random.Generator) -> Lighting:
        """Random light and sensor conditions.

        Args:
            rng: the source of randomness.

        Returns:
            The lighting.

        Raises:
            Nothing.
        """
        warm = rng.uniform(-0.15, 0.15)
        return cls(intensity=float(rng.uniform(0.6, 1.2)),
                   color=(float(1 + warm + rng.normal(0, 0.03)), float(1 + rng.normal(0, 0.03)),
                          float(1 - warm + rng.normal(0, 0.03))),
                   gradient=(float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))),
                   blur=float(rng.uniform(0.0, 1.4)), noise=float(rng.uniform(0.0, 6.0)),
                   jpeg_quality=int(rng.integers(55, 96)))


# What is on the board ----------------------------------------------------------------------

@dataclass(frozen=True)
class DieSpec:
    """One die lying on the board."""

    value: int
    """The face that points up, 1..6."""
    center: tuple[float, float]
    """Where it lies, board millimetres."""
    rotation: float = 0.0
    """Turn about the vertical, degrees."""
    cocked: float = 0.0
    """Tilt away from lying flat, degrees (a cocked die leans on a dame or the rail)."""
    cock_direction: float = 0.0
    """Board direction toward which a cocked die's top leans, degrees (0 = +x, 90 = +y)."""
    on_dame: bool = False
    """Lying flat on the dames of the slot nearest its centre: drawn on top of that pile,
    raised by its height and moved with its top (see :func:`random_scene`'s ``on_dames``)."""
    on_die: bool = False
    """Resting on the scene's other die (a bad throw): drawn after it, raised by a die's
    height; ``center`` is the point of the board under its own centre."""


@dataclass(frozen=True)
class Scene:
    """Everything that stands on the board in one frame."""

    white: Mapping[int, int]
    """White's dames: field (his numbering 1..24) -> count."""
    black: Mapping[int, int]
    """Black's dames: field (his numbering 1..24) -> count."""
    dice: tuple[DieSpec, ...] = ()
    """The dice on the board (none while they are in the cup)."""
    marks: Marks | None = None
    """Jetons, fichets and pavillon; None draws the start of a match."""
    occluder: str | None = None
    """``"hand"``, ``"cup"`` (a hand holding the dice cup) or None."""

    @classmethod
    def start(cls) -> Scene:
        """The start of a relevé: fifteen dames on each talon, no dice."""
        return cls(white={1: 15}, black={1: 15})


def _piles(rng: np.random.Generator, count: int, slots: int, *, talon: bool) -> list[int]:
    """Split ``count`` dames into stacks standing in the row's first slots."""
    if count <= 0:
        return []
    low = max(1, math.ceil(count / 5))
    if talon and count >= 6:
        stacks = int(rng.integers(max(low, 3), min(slots, count) + 1))
    elif count <= slots and rng.random() < 0.8:
        stacks = count
    else:
        stacks = int(rng.integers(low, min(slots, count) + 1))
    sizes = [1] * stacks
    for _ in range(count - stacks):
        sizes[int(rng.integers(stacks))] += 1
    return sorted(sizes, reverse=True)


def _default_marks() -> Marks:
    from tablier.engine import Score
    return Marks.from_scores(Score(), Score())


def _die_place(rng: np.random.Generator, g: BoardGeometry,
               taken: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """A random place on the playing surface, off the bridge and clear of other dice, mm."""
    x0, y0, x1, y1 = g.surface
    bar = g.bridge_x
    while True:
        c = (float(rng.uniform(x0 + 15, x1 - 15)), float(rng.uniform(y0 + 15, y1 - 15)))
        if all(math.dist(c, t) > 30 for t in taken) and abs(c[0] - bar) > 25:
            return c


def _lean_against(rng: np.random.Generator, g: BoardGeometry, held: Mapping[int, int],
                  others: Sequence[tuple[float, float]], die: DieSpec
                  ) -> tuple[tuple[float, float], float, float] | None:
    """Where a cocked die rests against a dame or the rail, and which way its top leans.

    A die does not stay tilted on its own: an edge is on the board and the die rests on what is
    beside it. A dame is low (a few mm), so the die's bottom face rests on the rim of a dame
    (the first of a field's row, which is always there) and its top leans away from the dame.
    The rail is a wall higher than a die, so a die leans against it as a book against a
    bookend: its top toward the rail, its upper edge touching it (up to 1 mm short).

    Args:
        rng: the source of randomness.
        g: the board.
        held: fields holding dames (White's numbering) -> how many.
        others: the other dice' centres, mm.
        die: the cocked die (its face, turn and tilt decide how far it reaches).

    Returns:
        The die's centre (mm), the board direction of its lean (degrees) and its turn
        (degrees), or None when no place was found clear of other dames and dice.
    """
    x0, y0, x1, y1 = g.surface
    bar = g.bridge_x
    r = g.checker_diameter / 2
    dames = [c for wf, n in held.items() for c in g.slot_centers(wf)[:min(n, g.slots)]]
    fields = sorted(held)
    for _ in range(60):
        turn = die.rotation
        if fields and rng.random() < 0.7:
            support = g.slot_centers(fields[int(rng.integers(len(fields)))])[0]
            phi = float(rng.uniform(0.0, 2 * math.pi))
            gap = r + float(rng.uniform(3.0, 8.0))
            c = (support[0] + gap * math.cos(phi), support[1] + gap * math.sin(phi))
        else:
            side = int(rng.integers(4))
            phi = [-math.pi / 2, math.pi / 2, math.pi, 0.0][side]
            # NOTE: turned so that an edge lies along the rail (a die does not lean on a corner).
            reach, turn = min((_reach(g, replace(die, rotation=float(t)), phi), float(t))
                              for t in range(0, 90, 3))
            turn += float(rng.uniform(-3.0, 3.0))
            reach = _reach(g, replace(die, rotation=turn), phi)
            gap = reach + float(rng.uniform(0.0, 1.0))
            c = _rail_point(g, side, float(rng.uniform(0.0, 1.0)), gap)
        if not (x0 + 4 <= c[0] <= x1 - 4 and y0 + 4 <= c[1] <= y1 - 4) or abs(c[0] - bar) < 25:
            continue
        if any(math.dist(c, o) < 30 for o in others):
            continue
        # NOTE: clear of every dame but the one it rests on (at r + 3 mm or more).
        if any(math.dist(c, d) < r + 2.9 for d in dames):
            continue
        return c, math.degrees(phi), turn
    return None


def _reach(g: BoardGeometry, die: DieSpec, toward: float) -> float:
    """How far (mm) a die's corners reach from its centre toward a board direction (radians),
    the die leaning that way by its tilt."""
    # NOTE: imported here, not at the top: ``tablier.vision`` imports this module, and
    # ``python -m tablier.vision.render_dice`` warns when the package has loaded it already.
    from tablier.vision.render_dice import CUBE_CORNERS, die_pose

    pose = die_pose(die.value, die.rotation, die.cocked, math.degrees(toward))
    corners = pose @ (CUBE_CORNERS.T * g.die_size / 2)
    return float(np.max(math.cos(toward) * corners[0] + math.sin(toward) * corners[1]))


def _rail_point(g: BoardGeometry, side: int, u: float, gap: float) -> tuple[float, float]:
    """The point ``gap`` mm inside the playing surface from one of its sides (0: y0, 1: y1,
    2: x0, 3: x1), at fraction ``u`` along it."""
    x0, y0, x1, y1 = g.surface
    return [(x0 + u * (x1 - x0), y0 + gap), (x0 + u * (x1 - x0), y1 - gap),
            (x0 + gap, y0 + u * (y1 - y0)), (x1 - gap, y0 + u * (y1 - y0))][side]


def _by_rail(rng: np.random.Generator, g: BoardGeometry, die: DieSpec,
             others: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """Where a flat die rests against the rail, as a die thrown against it often does.

    A side of the die touches the rail or stops short of it by up to 1.5 mm; how far its centre
    lies from the rail depends on the die's turn. Its place along the rail is anywhere clear of
    the bridge and of the other dice.

    Args:
        rng: the source of randomness.
        g: the board.
        die: the die (its turn).
        others: the other dice' centres, mm.

    Returns:
        The die's centre (mm), or None when no place was found clear of the other dice.
    """
    turn = math.radians(die.rotation)
    half = g.die_size / 2 * (abs(math.cos(turn)) + abs(math.sin(turn)))
    for _ in range(30):
        gap = half + float(rng.uniform(0.0, 1.5))
        u = float(rng.uniform(0.05, 0.95))
        c = _rail_point(g, int(rng.integers(4)), u, gap)
        if abs(c[0] - g.bridge_x) < 25 or any(math.dist(c, o) < 30 for o in others):
            continue
        return c
    return None


def _dame_stacks(g: BoardGeometry, held: Mapping[int, int]
                 ) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Where the dames of the held fields may be drawn, before their piles are chosen.

    A field of ``n`` dames fills its first slots with stacks, the tallest first, so the k-th
    slot's stack has at most ``n / (k + 1)`` dames; each dame of a stack is drawn a step up and
    to the left of the one below it. Returned per slot that may hold dames: the segment its
    discs' centres may lie on (the slot's centre and the tallest stack's top), mm.
    """
    out = []
    for wf, n in held.items():
        for k, c in enumerate(g.slot_centers(wf)[:min(n, g.slots)]):
            top = max(0, n // (k + 1) - 1) * _PILE_STEP
            out.append((c, (c[0] - top, c[1] - top)))
    return out


def _crosses_dames(g: BoardGeometry, die: DieSpec,
                   stacks: Sequence[tuple[tuple[float, float], tuple[float, float]]]) -> bool:
    """Whether a flat die's footprint would cross a dame that may be drawn (see
    :func:`_dame_stacks`), allowing for how far a stack is drawn from its slot."""
    a = math.radians(die.rotation)
    ca, sa, half = math.cos(a), math.sin(a), g.die_size / 2
    reach = g.checker_diameter / 2 + max(map(abs, (*_SLOT_JITTER[0], *_SLOT_JITTER[1])))
    for base, top in stacks:
        if math.dist(die.center, base) > reach + half * math.sqrt(2) + math.dist(base, top):
            continue
        steps = max(1, math.ceil(math.dist(base, top)))
        for i in range(steps + 1):
            px = base[0] + (top[0] - base[0]) * i / steps - die.center[0]
            py = base[1] + (top[1] - base[1]) * i / steps - die.center[1]
            # the disc's centre in the die's own axes, then its distance to the die's square
            u, v = ca * px + sa * py, -sa * px + ca * py
            if math.hypot(max(abs(u) - half, 0.0), max(abs(v) - half, 0.0)) < reach:
                return True
    return False


def _dames_hold_dice(rng: np.random.Generator, g: BoardGeometry, held: Mapping[int, int],
                     dice: Sequence[DieSpec], rate: float, along_rail: set[int]
                     ) -> list[DieSpec]:
    """Dice as they lie among dames on a real board, never through one.

    A die that falls on a dame lies on top of it (a flat die resting on a man is good, WR
    "Dice throws"); one that would lie half over a dame at board level cannot. Each die is put
    on the first pile of a random held field with probability ``rate`` (within 3 mm of the
    slot's centre, so it lies wholly on the pile's top; drawn raised by the pile and moved with
    its top, see :func:`_draw_dice`). Every other die whose footprint would cross a dame is
    placed again, clear of the dames and the other dice (by the rail again if it lay there);
    when no such place is found it is put on the nearest pile clear of the other dice.

    Args:
        rng: the source of randomness.
        g: the board.
        held: fields holding dames (White's numbering) -> how many.
        dice: the dice as thrown.
        rate: probability that a die lies on a dame.
        along_rail: indices of the dice laid against the rail.

    Returns:
        The dice.
    """
    out = list(dice)
    stacks = _dame_stacks(g, held)
    fields = sorted(held)
    for k, die in enumerate(out):
        others = [o.center for i, o in enumerate(out) if i != k]
        if fields and rng.random() < rate:
            base = g.slot_centers(fields[int(rng.integers(len(fields)))])[0]
            c = (base[0] + float(rng.uniform(-3.0, 3.0)), base[1] + float(rng.uniform(-3.0, 3.0)))
            if all(math.dist(c, o) >= 30 for o in others):
                out[k] = replace(die, center=c, on_dame=True)
                continue
        if not _crosses_dames(g, die, stacks):
            continue
        for _ in range(60):
            at = (_by_rail(rng, g, die, others) if k in along_rail
                  else _die_place(rng, g, others))
            if at is not None and not _crosses_dames(g, replace(die, center=at), stacks):
                out[k] = replace(die, center=at)
                break
        else:
            free = [b for b, _ in stacks if all(math.dist(b, o) >= 30 for o in others)]
            if free:
                base = min(free, key=lambda b: math.dist(b, die.center))
                out[k] = replace(die, center=base, on_dame=True)
    return out


def _touching(rng: np.random.Generator, g: BoardGeometry, die: DieSpec
              ) -> tuple[tuple[float, float], float] | None:
    """Where a second die lies flat against ``die``, and its turn: beside one of its four
    faces, slid along it by up to half a die, turned up to 10 degrees from it, 0.2-2 mm
    apart where they are nearest; None when that place is off the surface or by the bridge."""
    s = g.die_size
    turn = float(rng.uniform(-10.0, 10.0))
    side = math.radians(die.rotation + 90.0 * int(rng.integers(4)))
    # NOTE: a square turned by ``turn`` reaches s/2 (cos + sin) toward its neighbour
    d = math.radians(abs(turn))
    reach = s / 2 + s / 2 * (math.cos(d) + math.sin(d)) + float(rng.uniform(0.2, 2.0))
    slide = float(rng.uniform(-0.5, 0.5)) * s
    x = die.center[0] + reach * math.cos(side) - slide * math.sin(side)
    y = die.center[1] + reach * math.sin(side) + slide * math.cos(side)
    x0, y0, x1, y1 = g.surface
    if not (x0 + 12 < x < x1 - 12 and y0 + 12 < y < y1 - 12) or abs(x - g.bridge_x) < 25:
        return None
    return (x, y), die.rotation + turn


def random_scene(rng: np.random.Generator, *, dice: bool = True,
                 occluder_rate: float = 0.0, cocked_rate: float = 0.0,
                 cocked_against: bool = True, by_rail: float = 0.0,
                 on_dames: float = 0.0, on_die: float = 0.0, touching: float = 0.0,
                 on_die_reach: float = 1 / 3) -> Scene:
    """A random mid-game board: 15 dames a side spread over plausible fields.

    Fields hold one colour each (a field is never shared), the talons keep a pile, and the
    jetons, fichets and pavillon stand somewhere plausible.

    Args:
        rng: the source of randomness.
        dice: whether two dice lie on the board.
        occluder_rate: probability of a hand or dice cup over the board.
        cocked_rate: probability that one die is cocked, leaning 20 to 45 degrees (on a
            dame's edge, about 25, or against the rail). At 0 nothing more is drawn from
            ``rng``, so sets rendered before this option are rendered alike.
        cocked_against: a cocked die is moved to rest against a dame (leaning away from it)
            or the rail (leaning toward it; see :func:`_lean_against`); False leans it where it
            fell, any way (how sets with cocked dice were rendered before 2026-11-24's sixth
            round). In the sixth round's sets (seeds 5041, 8090) a die by the rail leaned
            away from it, 5-9 mm from it: render those from commit d552952.
        by_rail: probability that a die lies flat against the rail (see :func:`_by_rail`),
            drawn for each die before one may be cocked. At 0 nothing more is drawn from
            ``rng``: before this option (2026-11-24's seventh round) a die's centre was always
            at least 15 mm from the rail.
        on_dames: above 0, dice lie as on a real board: each die lies flat on the top of the
            first pile of a random field holding dames with this probability, and every other
            die is moved clear of the dames (see :func:`_dames_hold_dice`). At 0 nothing more
            is drawn from ``rng`` and a flat die may be drawn through a dame at board level,
            as in every set rendered before 2026-11-24's eighth round.
        on_die: probability that the second die rests on the first (its centre within
            ``on_die_reach`` of a die of the first's along each axis, turned anyway), drawn
            after ``on_dames`` (not on a die lying on a pile) and before ``cocked_rate`` (no
            die is then cocked). At 0 nothing more is drawn from ``rng``.
        touching: probability that the two dice lie flat side by side, touching or nearly
            (see :func:`_touching`), when no die rests on the other.
        on_die_reach: how far off the die below the top die of a stack may lie, in dice
            along each axis (default a third; smaller draws nearly centred stacks, for
            teaching the stack net; ``render_frame``'s ``hide_below`` draws the top die where
            it hides the die below from the camera).

    Returns:
        The scene.

    Raises:
        Nothing.
    """
    from tablier.engine import Score
    taken: dict[int, Color] = {}
    men: dict[Color, dict[int, int]] = {Color.WHITE: {}, Color.BLACK: {}}
    for color in (Color.WHITE, Color.BLACK):
        left = 15
        talon = int(rng.integers(0, 14)) if rng.random() < 0.8 else 0
        if talon and white_field(color, 1) not in taken:
            men[color][1] = talon
            taken[white_field(color, 1)] = color
            left -= talon
        while left > 0:
            f = int(rng.integers(1, 25))
            wf = white_field(color, f)
            if taken.get(wf, color) is not color:
                continue
            n = int(min(left, rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5, 6])))
            men[color][f] = men[color].get(f, 0) + n
            taken[wf] = color
            left -= n
    specs: list[DieSpec] = []
    along_rail: set[int] = set()
    g = BoardGeometry()
    if dice:
        x0, y0, x1, y1 = g.surface
        while len(specs) < 2:
            c = (float(rng.uniform(x0 + 15, x1 - 15)), float(rng.uniform(y0 + 15, y1 - 15)))
            if any(math.dist(c, s.center) < 30 for s in specs) or abs(c[0] - g.bridge_x) < 25:
                continue
            specs.append(DieSpec(value=int(rng.integers(1, 7)), center=c,
                                 rotation=float(rng.uniform(0, 90))))
        for k in range(len(specs) if by_rail > 0 else 0):
            if rng.random() < by_rail:
                at = _by_rail(rng, g, specs[k], [o.center for i, o in enumerate(specs) if i != k])
                if at is not None:
                    specs[k] = replace(specs[k], center=at)
                    along_rail.add(k)
    held = {white_field(c, f): n for c in (Color.WHITE, Color.BLACK)
            for f, n in men[c].items() if n > 0}
    if specs and on_dames > 0:
        specs = _dames_hold_dice(rng, g, held, specs, on_dames, along_rail)
    paired = False  # the dice laid as a pair (one on the other, or side by side): none cocked
    if len(specs) == 2 and on_die > 0 and rng.random() < on_die and not specs[0].on_dame:
        reach = g.die_size * on_die_reach
        at = (specs[0].center[0] + float(rng.uniform(-reach, reach)),
              specs[0].center[1] + float(rng.uniform(-reach, reach)))
        specs[1] = replace(specs[1], center=at, on_dame=False, on_die=True)
        paired = True
    if (len(specs) == 2 and touching > 0 and rng.random() < touching and not paired
            and not any(d.on_dame for d in specs)):
        beside = _touching(rng, g, specs[0])
        if beside is not None:
            specs[1] = replace(specs[1], center=beside[0], rotation=beside[1])
            paired = True  # NOTE: a die leaning on the other is not drawn
    if specs and cocked_rate > 0 and rng.random() < cocked_rate and not paired:
        k = int(rng.integers(len(specs)))
        specs[k] = replace(specs[k], cocked=float(rng.uniform(20.0, 45.0)),
                           cock_direction=float(rng.uniform(0.0, 360.0)))
        if cocked_against:
            rest = _lean_against(rng, g, held,
                                 [o.center for i, o in enumerate(specs) if i != k], specs[k])
            if rest is not None:
                specs[k] = replace(specs[k], center=rest[0], cock_direction=rest[1],
                                   rotation=rest[2], on_dame=False)

    def score() -> Score:
        return Score(points=int(rng.choice([0, 2, 4, 6, 8, 10])), holes=int(rng.integers(0, 12)),
                     bredouille=bool(rng.random() < 0.5))
    pav = Pavillon(rng.choice(["middle", "white", "black", "out"]))
    white, black = score(), score()
    if white.bredouille and black.bredouille and white.points and black.points:
        # NOTE: only one player can be in bredouille once both have points (three jetons).
        black = Score(points=black.points, holes=black.holes, bredouille=False)
    marks = Marks.from_scores(white, black, pav)
    occ = None
    if rng.random() < occluder_rate:
        occ = "cup" if rng.random() < 0.4 else "hand"
    return Scene(white=men[Color.WHITE], black=men[Color.BLACK], dice=tuple(specs), marks=marks,
                 occluder=occ)


# Drawing ------------------------------------------------------------------------------------

_SHIFT = 4
_ONE = 1 << _SHIFT


class _Painter:
    """Draws in board millimetres onto a texture of ``scale`` pixels per millimetre."""

    def __init__(self, geometry: BoardGeometry, scale: float, background: RGB) -> None:
        self.g = geometry
        self.s = scale
        w, h = geometry.size
        self.origin = _MARGIN_MM
        size = (int((h + 2 * _MARGIN_MM) * scale), int((w + 2 * _MARGIN_MM) * scale))
        self.img = np.empty((*size, 3), np.uint8)
        self.img[:] = background

    @classmethod
    def over(cls, other: _Painter, img: Image) -> _Painter:
        """A painter like ``other`` drawing onto ``img`` (an image of the same size)."""
        p = cls.__new__(cls)
        p.g, p.s, p.origin, p.img = other.g, other.s, other.origin, img
        return p

    def px(self, p: tuple[float, float]) -> tuple[int, int]:
        return (round((p[0] + self.origin) * self.s * _ONE),
                round((p[1] + self.origin) * self.s * _ONE))

    def pts(self, poly: npt.ArrayLike) -> npt.NDArray[np.int32]:
        arr = (np.asarray(poly, np.float64) + self.origin) * self.s * _ONE
        return np.round(arr).astype(np.int32).reshape(-1, 1, 2)

    def circle(self, c: tuple[float, float], r: float, color: RGB, thickness: float = -1) -> None:
        t = -1 if thickness < 0 else max(1, round(thickness * self.s))
        cv2.circle(self.img, self.px(c), round(r * self.s * _ONE), color, t,
                   cv2.LINE_AA, _SHIFT)

    def poly(self, poly: npt.ArrayLike, color: RGB) -> None:
        cv2.fillPoly(self.img, [self.pts(poly)], color, cv2.LINE_AA, _SHIFT)

    def rect(self, x0: float, y0: float, x1: float, y1: float, color: RGB) -> None:
        self.poly([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], color)

    def shade(self, poly: npt.ArrayLike, alpha: float) -> None:
        """Darken inside a polygon, with a soft edge (a shadow)."""
        pts = self.pts(poly)
        pad = int(3 * self.s) + 2
        lo = pts.reshape(-1, 2).min(axis=0) // _ONE - pad
        hi = pts.reshape(-1, 2).max(axis=0) // _ONE + pad + 1
        x0, y0 = max(0, int(lo[0])), max(0, int(lo[1]))
        x1, y1 = min(self.img.shape[1], int(hi[0])), min(self.img.shape[0], int(hi[1]))
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [pts - np.array([x0, y0], np.int32) * _ONE], 255, cv2.LINE_AA, _SHIFT)
        m = cv2.GaussianBlur(mask, (0, 0), 1.5 * self.s).astype(np.float32) / 255
        roi = self.img[y0:y1, x0:x1].astype(np.float32)
        self.img[y0:y1, x0:x1] = (roi * (1 - alpha * m[..., None])).astype(np.uint8)


def _circle_poly(c: tuple[float, float], r: float, n: int = 28) -> npt.NDArray[np.float64]:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], axis=1)


def _shade_rgb(color: RGB, f: float) -> RGB:
    return (int(min(255, color[0] * f)), int(min(255, color[1] * f)), int(min(255, color[2] * f)))


def _draw_board(p: _Painter, style: BoardStyle) -> None:
    g = p.g
    w, h = g.size
    x0, y0, x1, y1 = g.surface
    p.shade([[6.0, 8.0], [w + 6.0, 8.0], [w + 6.0, h + 8.0], [6.0, h + 8.0]], 0.35)
    p.rect(0, 0, w, h, style.rail)
    # wood grain: thin darker lines along the rails
    for k in range(0, int(h), 9):
        p.rect(0, k, w, k + 0.6, _shade_rgb(style.rail, 0.93))
    p.rect(x0, y0, x1, y1, style.surface)
    bx = x0 + 6 * g.field_width
    p.rect(bx, y0, bx + g.bar, y1, style.rail)
    for f in range(1, 25):
        p.poly(g.field_triangle(f), style.field_color(f))
    # inner edge of the rails
    for quad in ([[x0, y0], [x1, y0], [x1, y0 + 1.5], [x0, y0 + 1.5]],
                 [[x0, y0], [x0 + 1.5, y0], [x0 + 1.5, y1], [x0, y1]]):
        p.shade(quad, 0.4)
    holes = [g.hole_center(c, k) for c in (Color.WHITE, Color.BLACK) for k in range(13)]
    holes += [g.pavillon_hole(), *g.spare_holes()]
    for hc in holes:
        p.circle(hc, g.hole_diameter / 2 + 0.8, _shade_rgb(style.rail, 0.7))
        p.circle(hc, g.hole_diameter / 2, (22, 16, 12))
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for i, mid in enumerate(MARKER_IDS):
        cx, cy = g.marker_center(i)
        pad = (g.rail - 1.0) / 2
        p.rect(cx - pad, cy - pad, cx + pad, cy + pad, (242, 242, 238))
        side = g.marker_size
        n = max(6, round(side * p.s))
        marker = cv2.aruco.generateImageMarker(dictionary, mid, n)
        a, b = p.px((cx - side / 2, cy - side / 2))
        a, b = a // _ONE, b // _ONE
        patch = np.where(marker[..., None] > 127, np.array([240, 240, 236], np.uint8),
                         np.array([18, 18, 18], np.uint8))
        p.img[b:b + n, a:a + n] = patch


def _expanded(g: BoardGeometry, eye: tuple[float, float, float], depth: float
              ) -> npt.NDArray[np.float64]:
    """The playing surface's corners moved out from the point below the camera by as much as
    the surface, ``depth`` below the rails, is later shrunk toward it (see :func:`_sunk`)."""
    x0, y0, x1, y1 = g.surface
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    below = np.array(eye[:2])
    return np.asarray(below + (corners - below) * (eye[2] + depth) / eye[2], np.float64)


def _draw_walls(p: _Painter, style: BoardStyle, eye: tuple[float, float, float],
                depth: float) -> None:
    """The rails' inner walls as the camera sees them, drawn round the playing surface.

    A wall shows where the camera looks down on it: on each side whose rail lies beyond the
    point below the camera. Drawn in the surface's texture, between the surface's edge and
    where the rails' edge falls once the surface is shrunk (see :func:`_sunk`); the light comes
    from the top left, so the walls facing it (right and bottom) are the lighter.
    """
    x0, y0, x1, y1 = p.g.surface
    inner = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    outer = _expanded(p.g, eye, depth)
    bx, by = eye[0], eye[1]
    sides = ((0, 1, by > y0, 0.62), (1, 2, bx < x1, 0.82), (2, 3, by < y1, 0.86),
             (3, 0, bx > x0, 0.58))
    for a, b, seen, shade in sides:
        if seen:
            p.poly([inner[a], inner[b], outer[b], outer[a]], _shade_rgb(style.rail, shade))


def _sunk(p: _Painter, rails: Image, eye: tuple[float, float, float], depth: float) -> float:
    """Shrink the drawn surface toward the point below the camera, as a surface ``depth`` below
    the rails is seen in the rails' plane, and lay the rails (``rails``) over it; in place.

    ``eye`` is the camera's place over the surface (its height above the surface). Returns the
    factor the surface was shrunk by.
    """
    k = (eye[2] - depth) / eye[2]
    bx, by = (eye[0] + p.origin) * p.s, (eye[1] + p.origin) * p.s
    m = np.array([[k, 0.0, (1 - k) * bx], [0.0, k, (1 - k) * by]])
    h, w = p.img.shape[:2]
    surface = cv2.warpAffine(p.img, m, (w, h), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
    x0, y0, x1, y1 = p.g.surface
    a, b = p.px((x0, y0))
    c, d = p.px((x1, y1))
    a, b, c, d = (round(v / _ONE) for v in (a, b, c, d))
    p.img[:] = rails
    p.img[b:d, a:c] = surface[b:d, a:c]
    return k


def _draw_checker(p: _Painter, c: tuple[float, float], color: RGB, level: int,
                  dark: bool) -> None:
    r = p.g.checker_diameter / 2
    off = (-_PILE_STEP * level, -_PILE_STEP * level)
    cc = (c[0] + off[0], c[1] + off[1])
    if level == 0:
        p.shade(_circle_poly((c[0] + 2.0, c[1] + 2.5), r), 0.45)
    edge = _shade_rgb(color, 1.6 if dark else 0.72)
    p.circle(cc, r, edge)
    p.circle(cc, r - 1.2, color)
    p.circle(cc, r * 0.62, _shade_rgb(color, 1.35 if dark else 0.9), thickness=0.5)
    p.circle((cc[0] - r * 0.3, cc[1] - r * 0.3), r * 0.18, _shade_rgb(color, 1.25 if dark else 1.04))


Stack = tuple[tuple[float, float], tuple[float, float], int]
"""A stack of dames as drawn: its slot's centre and its top dame's centre (mm), how many."""


def _draw_checkers(p: _Painter, style: BoardStyle, scene: Scene, rng: np.random.Generator
                   ) -> tuple[list[dict[str, Any]], list[Stack]]:
    g = p.g
    truth: list[dict[str, Any]] = []
    stacks: list[Stack] = []
    owner: dict[int, tuple[Color, int]] = {}
    for color, men in ((Color.WHITE, scene.white), (Color.BLACK, scene.black)):
        for f, n in men.items():
            if n <= 0:
                continue
            wf = white_field(color, int(f))
            if wf in owner:
                raise ValueError(f"field {wf} (White's numbering) holds both colours")
            owner[wf] = (color, int(n))
    for wf in range(1, 25):
        held = owner.get(wf)
        piles: list[int] = []
        if held is not None:
            color, n = held
            piles = _piles(rng, n, g.slots, talon=white_field(color, 1) == wf)
            rgb = style.white if color is Color.WHITE else style.black
            centers = g.slot_centers(wf)
            for k, size in enumerate(piles):
                jx, jy = rng.uniform(*_SLOT_JITTER[0]), rng.uniform(*_SLOT_JITTER[1])
                base = (centers[k][0] + jx, centers[k][1] + jy)
                for level in range(size):
                    _draw_checker(p, base, rgb, level, color is Color.BLACK)
                top = (base[0] - _PILE_STEP * (size - 1), base[1] - _PILE_STEP * (size - 1))
                stacks.append((centers[k], top, size))
        truth.append({"field": wf, "color": None if held is None else held[0].value,
                      "count": 0 if held is None else held[1], "visible": len(piles),
                      "piles": piles})
    return truth, stacks


def _draw_marks(p: _Painter, style: BoardStyle, marks: Marks) -> dict[str, Any]:
    g = p.g
    # jetons
    at_rest = 3
    placed: list[tuple[float, float]] = []
    for color, pm in ((Color.WHITE, marks.white), (Color.BLACK, marks.black)):
        if pm.token_spot != JETON_REST:
            placed.append(g.jeton_center(color, pm.token_spot, 0))
            at_rest -= 1
            if pm.bredouille_token:
                placed.append(g.jeton_center(color, pm.token_spot, 1))
                at_rest -= 1
    placed += [g.jeton_center(Color.WHITE, JETON_REST, i) for i in range(max(0, at_rest))]
    r = g.jeton_diameter / 2
    for c in placed:
        p.shade(_circle_poly((c[0] + 1.2, c[1] + 1.5), r), 0.4)
        p.circle(c, r, _shade_rgb(style.jeton, 0.7))
        p.circle(c, r - 1.0, style.jeton)
        p.circle(c, r * 0.45, _shade_rgb(style.jeton, 1.2))
    # fichets and pavillon
    def peg(c: tuple[float, float]) -> None:
        p.shade(_circle_poly((c[0] + 1.5, c[1] + 2.0), 5.5), 0.45)
        p.circle(c, 5.5, _shade_rgb(style.peg, 0.75))
        p.circle(c, 4.6, style.peg)

    def pavillon(c: tuple[float, float], toward: tuple[float, float]) -> None:
        peg(c)
        dx, dy = toward
        flag = [[c[0], c[1]], [c[0] + 22 * dx - 7 * dy, c[1] + 22 * dy + 7 * dx],
                [c[0] + 22 * dx + 7 * dy, c[1] + 22 * dy - 7 * dx]]
        p.shade(np.array(flag) + 2.0, 0.35)
        p.poly(flag, style.pavillon)

    for color, pm in ((Color.WHITE, marks.white), (Color.BLACK, marks.black)):
        c = g.hole_center(color, pm.peg_hole)
        if pm.pavillon:
            pavillon(c, (1.0, 0.0) if pm.peg_hole else (0.0, 1.0))
        else:
            peg(c)
    if marks.pavillon is Pavillon.MIDDLE:
        pavillon(g.pavillon_hole(), (0.0, 1.0))
    return {
        color.value: {"token_spot": pm.token_spot, "bredouille_token": pm.bredouille_token,
                      "peg_hole": pm.peg_hole, "pavillon": pm.pavillon}
        for color, pm in ((Color.WHITE, marks.white), (Color.BLACK, marks.black))
    } | {"pavillon": marks.pavillon.value, "jetons_at_rest": max(0, at_rest)}


def _draw_dice(p: _Painter, dice: Sequence[DieSpec],
               viewpoint: tuple[float, float, float] | None = None,
               stacks: Sequence[Stack] = (), hide_below: bool = False) -> list[dict[str, Any]]:
    # NOTE: imported here, not at the top (see _reach)
    from tablier.vision.render_dice import render_die as render

    out: list[dict[str, Any]] = []
    # NOTE: the dice lying on the board keep from each other's shadows (their tops are as
    # high); a die resting on the other is drawn after it, its shadow on the lower one.
    bodies = np.zeros(p.img.shape[:2], np.float32)
    for d in sorted(dice, key=lambda d: d.on_die):
        stand = 0.0
        if d.on_dame and stacks:
            # on the pile whose slot is nearest: moved with its top, raised by its height
            slot, top, size = min(stacks, key=lambda s: math.dist(s[0], d.center))
            d = replace(d, center=(d.center[0] + top[0] - slot[0],
                                   d.center[1] + top[1] - slot[1]))
            stand = size * _DAME_THICKNESS * p.s
        if hide_below and d.on_die and viewpoint is not None:
            # moved toward the point below the camera by a die's height times the ray's lean:
            # its top is drawn over the top of the die below, which it hides
            bx, by, height = viewpoint
            d = replace(d, center=(d.center[0] - (d.center[0] - bx) / height * p.g.die_size,
                                   d.center[1] - (d.center[1] - by) / height * p.g.die_size))
        x, y = p.px(d.center)
        lean = (0.0, 0.0)
        if viewpoint is not None:
            # the texture is the board seen straight down: a die stands up toward the camera,
            # so its top is drawn outward from the point below the camera (parallax)
            bx, by, height = viewpoint
            lean = ((d.center[0] - bx) / height, (d.center[1] - by) / height)
        if stand:
            # NOTE: the dames are drawn without parallax (each one a fixed step up and left), so
            # the die's foot is drawn where the pile's top is drawn, not leaning out with it.
            x -= round(lean[0] * stand * _ONE)
            y -= round(lean[1] * stand * _ONE)
        t = render(p.img, value=d.value, center=(x / _ONE, y / _ONE), size=p.g.die_size * p.s,
                   rotation=d.rotation, cocked=d.cocked, cock_direction=d.cock_direction,
                   lean=lean, stand=stand,
                   elevation=p.g.die_size * p.s if d.on_die else 0.0,
                   bodies=None if d.on_die else bodies)
        c = t.center
        out.append({"value": t.value, "reason": t.reason,
                    "center_mm": [c[0] / p.s - p.origin, c[1] / p.s - p.origin]})
        if t.outline:
            # the whole die as seen (its top face and any side face), on the same plane
            out[-1]["outline_mm"] = [[x / p.s - p.origin, y / p.s - p.origin]
                                     for x, y in t.outline]
        if d.cocked:
            out[-1]["tilt"] = round(d.cocked, 1)
        if stand:
            out[-1]["on_dame"] = True
        if d.on_die and out[:-1]:
            # NOTE: the die under it cannot be read either: the throw is bad
            out[0].update(value=None, reason="on_die")
    return out


def _draw_occluder(p: _Painter, kind: str, rng: np.random.Generator) -> None:
    g = p.g
    w, h = g.size
    x0, y0, x1, y1 = g.surface
    target = np.array([rng.uniform(x0 + 40, x1 - 40), rng.uniform(y0 + 40, y1 - 40)])
    side = int(rng.integers(4))
    start = [np.array([target[0] + rng.uniform(-80, 80), -_MARGIN_MM]),
             np.array([w + _MARGIN_MM, target[1] + rng.uniform(-80, 80)]),
             np.array([target[0] + rng.uniform(-80, 80), h + _MARGIN_MM]),
             np.array([-_MARGIN_MM, target[1] + rng.uniform(-80, 80)])][side]
    d = target - start
    d = d / np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    skin = _jitter(rng, _pick(rng, _SKINS), 8)
    sleeve = _pick(rng, _SLEEVES)
    wrist = target - d * 70
    arm = [start + n * 55, wrist + n * 38, wrist - n * 38, start - n * 55]
    cuff = wrist - d * rng.uniform(80.0, 220.0)
    fore = [cuff + n * 44, target - d * 20 + n * 34, target - d * 20 - n * 34, cuff - n * 44]
    p.shade(np.array(arm) + 14, 0.5)
    p.poly(fore, skin)
    p.poly([start + n * 56, cuff + n * 46, cuff - n * 46, start - n * 56], sleeve)
    palm = _circle_poly(tuple(target), 48)
    p.poly(palm, skin)
    if kind == "cup":
        cup = target + d * 30
        p.shade(_circle_poly((cup[0] + 12, cup[1] + 14), 46), 0.5)
        color = _pick(rng, _CUPS)
        p.circle((cup[0], cup[1]), 46, _shade_rgb(color, 0.6))
        p.circle((cup[0], cup[1]), 40, color)
        p.circle((cup[0], cup[1]), 30, _shade_rgb(color, 0.4))
    else:
        for k in range(4):
            base = target + n * (k - 1.5) * 18 + d * 30
            tip = base + d * rng.uniform(45, 70)
            p.poly([base + n * 8, tip + n * 7, tip - n * 7, base - n * 8], _shade_rgb(skin, 0.97))
            p.circle((tip[0], tip[1]), 7, _shade_rgb(skin, 0.97))


# The camera ---------------------------------------------------------------------------------

def _look(texture: Image, camera: Camera, geometry: BoardGeometry, scale: float,
          background: RGB) -> Image:
    w, h = camera.width, camera.height
    step = 8
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    xx, yy = np.meshgrid(gx, gy)
    grid = np.stack([xx, yy], axis=-1).reshape(-1, 1, 2)
    if camera.k1 or camera.k2:
        k = camera.matrix
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-3)
        # NOTE: OpenCV 4 takes the stopping criteria in undistortPointsIter, OpenCV 5 in
        # undistortPoints itself (and has no undistortPointsIter).
        if hasattr(cv2, "undistortPointsIter"):
            found = cv2.undistortPointsIter(grid, k, camera.dist, None, k, crit)
        else:
            found = cv2.undistortPoints(grid, k, camera.dist, None, None, k, crit)
        grid = np.asarray(found, np.float64)
    inv = np.linalg.inv(camera.homography(geometry))
    mm = cv2.perspectiveTransform(grid.astype(np.float64), inv).reshape(len(gy), len(gx), 2)
    tex = ((mm + _MARGIN_MM) * scale).astype(np.float32)
    full_w, full_h = len(gx) * step, len(gy) * step
    mapx = cv2.resize(tex[..., 0], (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    mapy = cv2.resize(tex[..., 1], (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    # NOTE: cv2.resize maps pixel centres, so shift by half a step to line the grid up.
    off = (step - 1) / 2
    sx = np.array([[1.0, 0.0, off], [0.0, 1.0, off]])
    mapx = cv2.warpAffine(mapx, sx, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    mapy = cv2.warpAffine(mapy, sx, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(cv2.remap(texture, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=background), np.uint8)


def _expose(frame: Image, light: Lighting, rng: np.random.Generator) -> Image:
    h, w = frame.shape[:2]
    img = frame.astype(np.float32)
    if light.blur > 0.05:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), light.blur), np.float32)
    xs = np.linspace(-0.5, 0.5, w, dtype=np.float32)
    ys = np.linspace(-0.5, 0.5, h, dtype=np.float32) * (h / w)
    ramp = 1.0 + light.gradient[0] * xs[None, :] + light.gradient[1] * ys[:, None]
    gain = np.array(light.color, np.float32) * light.intensity
    img = img * ramp[..., None] * gain[None, None, :]
    if light.noise > 0:
        img += rng.normal(0.0, light.noise, img.shape).astype(np.float32)
    return np.asarray(np.clip(img, 0, 255), np.uint8)


@dataclass(frozen=True)
class Rendered:
    """One rendered frame."""

    image: Image = field(repr=False)
    """The frame as stored (after JPEG), HxWx3 uint8 RGB."""
    jpeg: bytes = field(repr=False)
    """The JPEG file's bytes."""
    truth: dict[str, Any]
    """The ground truth (JSON-ready); see :func:`render_frame`."""


def render_frame(scene: Scene, *, style: BoardStyle | None = None, camera: Camera | None = None,
                 lighting: Lighting | None = None, seed: int = 0,
                 geometry: BoardGeometry | None = None, width: int = 1640,
                 height: int = 1232, parallax: bool = True, depth: float = 0.0,
                 hide_below: bool = False) -> Rendered:
    """Render one camera frame of the board.

    Args:
        scene: what stands on the board.
        style: the board's colours (random from ``seed`` when None).
        camera: the camera (random from ``seed`` when None).
        lighting: light and sensor (random from ``seed`` when None).
        seed: seeds the random parts (pile arrangement, jitter, noise, and any None above).
        geometry: the board's dimensions.
        width: frame width when ``camera`` is None, pixels.
        height: frame height when ``camera`` is None, pixels.
        parallax: draw the dice as the camera sees them from its place (side faces facing
            the point below the camera show, the top drawn outward); False draws them
            straight down, as every set rendered before 2026-11-24's fourth round was.
        depth: how far the playing surface lies below the rails' top, mm (a real board's
            rails are walls round a sunk surface). The markers, holes, fichets and pavillon
            stay in the rails' plane; the surface, jetons, dames and dice are seen from the
            camera's place that much farther away, and the rails' inner walls show where the
            camera looks down on them. 0 (the default, and every set rendered before
            2026-11-24's eighth round) draws the whole board in one plane. A die's
            ``center_mm`` is where its top face is seen on the surface's plane (in the rails'
            plane for sets rendered before 2026-11-25's eleventh round); its ``center`` is
            the frame pixel where that top is drawn.
        hide_below: a die resting on the other (``DieSpec.on_die``) is moved toward the point
            below the camera by its height times the ray's lean, so that the camera sees its
            top over the top of the die below, which it hides (with ``parallax`` only).

    Returns:
        The frame and its truth: ``image`` ``[w, h]``; ``quad`` (outer corners in frame pixels,
        TL TR BR BL); ``markers`` (id -> 4 corners); ``white`` / ``black`` (field in that
        player's numbering -> count, as the engine counts); ``fields`` (24 entries in White's
        numbering: ``color``, ``count``, ``visible`` = stacks seen from above, ``piles``);
        ``dice`` (``value`` or None with ``reason``, ``center`` in pixels, ``center_mm``,
        ``outline_mm``: the whole die's convex outline as seen, on the plane of ``center_mm``);
        ``marks`` (per player ``token_spot``, ``bredouille_token``, ``peg_hole``,
        ``pavillon``; ``pavillon``; ``jetons_at_rest``); ``occluded``; ``camera``; ``light``.

    Raises:
        ValueError: if a field holds both colours.
    """
    rng = np.random.default_rng(seed)
    g = geometry or BoardGeometry()
    style = style or BoardStyle.random(rng)
    camera = camera or Camera.random(rng, width, height, geometry=g)
    lighting = lighting or Lighting.random(rng)
    quad_px = camera.project(g, g.corners)
    px_per_mm = float(np.linalg.norm(quad_px[1] - quad_px[0]) / g.size[0])
    scale = min(4.0, max(1.0, 1.25 * px_per_mm))
    painter = _Painter(g, scale, style.table)
    _draw_board(painter, style)
    marks = scene.marks or _default_marks()
    eye = camera.viewpoint(g) if parallax or depth else None
    rails: Image | None = None
    if depth and eye is not None:
        # the rails' top (holes, fichets, pavillon, markers) stays in the markers' plane; the
        # playing surface lies `depth` lower and is drawn into the same texture first
        rails = painter.img.copy()
        _draw_marks(_Painter.over(painter, rails), style, marks)
        _draw_walls(painter, style, eye, depth)
        eye = (eye[0], eye[1], eye[2] + depth)
    marks_truth = _draw_marks(painter, style, marks)
    fields, stacks = _draw_checkers(painter, style, scene, rng)
    dice = _draw_dice(painter, scene.dice, eye if parallax else None, stacks, hide_below)
    # where each die's top is seen in the rails' plane (the markers' plane the camera draws)
    seen_at = [list(d["center_mm"]) for d in dice]
    if rails is not None and eye is not None:
        k = _sunk(painter, rails, eye, depth)
        seen_at = [[eye[0] + (x - eye[0]) * k, eye[1] + (y - eye[1]) * k] for x, y in seen_at]
    if scene.occluder:
        _draw_occluder(painter, scene.occluder, rng)
    frame = _look(painter.img, camera, g, scale, style.table)
    frame = _expose(frame, lighting, rng)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, lighting.jpeg_quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid array
        raise RuntimeError("JPEG encoding failed")
    jpeg = buf.tobytes()
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None
    image = np.asarray(cv2.cvtColor(decoded, cv2.COLOR_BGR2RGB), np.uint8)
    for d, at in zip(dice, seen_at):
        c = camera.project(g, [at])[0]
        d["center"] = [round(float(c[0]), 2), round(float(c[1]), 2)]
        d["center_mm"] = [round(v, 2) for v in d["center_mm"]]
        if "outline_mm" in d:
            d["outline_mm"] = [[round(x, 1), round(y, 1)] for x, y in d["outline_mm"]]
    truth = {
        "image": [camera.width, camera.height],
        "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad_px],
        "markers": {str(mid): [[round(float(x), 2), round(float(y), 2)]
                               for x, y in camera.project(g, g.marker_corners(i))]
                    for i, mid in enumerate(MARKER_IDS)},
        "white": {str(f): n for f, n in sorted(scene.white.items()) if n > 0},
        "black": {str(f): n for f, n in sorted(scene.black.items()) if n > 0},
        "fields": fields,
        "dice": dice,
        "marks": marks_truth,
        "occluded": scene.occluder is not None,
        "occluder": scene.occluder,
        "camera": {"corners": [list(c) for c in camera.corners], "k1": camera.k1,
                   "k2": camera.k2},
        "light": {"intensity": lighting.intensity, "color": list(lighting.color),
                  "gradient": list(lighting.gradient), "blur": lighting.blur,
                  "noise": lighting.noise, "jpeg_quality": lighting.jpeg_quality},
        "seed": seed,
    }
    return Rendered(image=image, jpeg=jpeg, truth=truth)


# Whole games --------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameStep:
    """One moment of a game to render: a relevé's position with or without dice."""

    white: Mapping[int, int]
    """White's dames (his numbering -> count)."""
    black: Mapping[int, int]
    """Black's dames (his numbering -> count)."""
    dice: tuple[int, int] | None = None
    """The dice lying on the board, or None while they are in the cup."""
    marks: Marks | None = None
    """Jetons, fichets and pavillon after this moment."""
    phase: str = "settled"
    """``"throw"`` (hand and cup over the board), ``"settled"`` (dice lie still),
    ``"play"`` (a hand moves dames), ``"after"`` (the play is made)."""
    label: str = ""
    """Free text kept in the manifest (e.g. the play made)."""


def render_game(steps: Sequence[GameStep], *, seed: int = 0, width: int = 820,
                height: int = 616, style: BoardStyle | None = None,
                camera: Camera | None = None, frames_per_step: int = 1,
                parallax: bool = True) -> Iterator[Rendered]:
    """Render the frames of a whole game, one camera on one board, as a recording would.

    The camera stays put apart from a little drift (boards get nudged), the light drifts
    slowly, and the dice lie where they were thrown until the next throw.

    Args:
        steps: the moments to render, in order.
        seed: seeds everything random.
        width: frame width, pixels.
        height: frame height, pixels.
        style: the board's colours (random from ``seed`` when None).
        camera: the camera (random from ``seed`` when None).
        frames_per_step: still frames rendered for every step (hand frames get one).
        parallax: see :func:`render_frame`.

    Yields:
        The frames in order; each truth also has ``step`` (index) and ``phase``.

    Raises:
        ValueError: if a step puts both colours on one field.
    """
    rng = np.random.default_rng(seed)
    g = BoardGeometry()
    style = style or BoardStyle.random(rng)
    base = camera or Camera.random(rng, width, height, geometry=g)
    light = Lighting.random(rng)
    light = replace(light, blur=min(light.blur, 0.8), noise=min(light.noise, 3.0),
                    jpeg_quality=max(light.jpeg_quality, 80))
    dice_specs: tuple[DieSpec, ...] = ()
    last_dice: tuple[int, int] | None = None
    for index, step in enumerate(steps):
        if step.dice is not None and step.dice != last_dice or (step.dice and not dice_specs):
            assert step.dice is not None
            placed: list[DieSpec] = []
            for v in step.dice:
                c = _die_place(rng, g, [spec.center for spec in placed])
                placed.append(DieSpec(value=v, center=c, rotation=float(rng.uniform(0, 90))))
            dice_specs = tuple(placed)
        if step.dice is None:
            dice_specs = ()
        last_dice = step.dice
        occluder = {"throw": "cup", "play": "hand"}.get(step.phase)
        count = 1 if occluder else frames_per_step
        for _ in range(count):
            drift = rng.normal(0.0, 0.6, (4, 2))
            cam = replace(base, corners=tuple((float(x), float(y))
                                              for x, y in np.array(base.corners) + drift))
            light = replace(light, intensity=float(np.clip(light.intensity + rng.normal(0, 0.02),
                                                           0.6, 1.2)))
            scene = Scene(white=step.white, black=step.black, dice=dice_specs, marks=step.marks,
                          occluder=occluder)
            frame = render_frame(scene, style=style, camera=cam, lighting=light,
                                 seed=int(rng.integers(2**31)), geometry=g, parallax=parallax)
            frame.truth.update({"step": index, "phase": step.phase, "label": step.label})
            yield frame


def render_reference(*, seed: int = 0, width: int = 820, height: int = 616,
                     style: BoardStyle | None = None, camera: Camera | None = None) -> Rendered:
    """Render the calibration reference frame: the start of a match, no dice, even light.

    Args:
        seed: seeds the style and camera when they are None.
        width: frame width, pixels.
        height: frame height, pixels.
        style: the board's colours.
        camera: the camera.

    Returns:
        The frame.

    Raises:
        Nothing.
    """
    rng = np.random.default_rng(seed)
    g = BoardGeometry()
    style = style or BoardStyle.random(rng)
    camera = camera or Camera.random(rng, width, height, geometry=g)
    return render_frame(Scene.start(), style=style, camera=camera, lighting=Lighting(),
                        seed=seed, geometry=g)


def write_frame(rendered: Rendered, directory: Path, name: str) -> Path:
    """Write ``name.jpg`` and ``name.json`` (the truth) into ``directory``.

    Args:
        rendered: the frame.
        directory: where to write (created if missing).
        name: the file stem.

    Returns:
        The JPEG's path.

    Raises:
        OSError: if the files cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.jpg"
    path.write_bytes(rendered.jpeg)
    (directory / f"{name}.json").write_text(json.dumps(rendered.truth, indent=1) + "\n")
    return path


def nudge(camera: Camera, rng: np.random.Generator, *, shift: float = 0.015,
          turn: float = 1.0, geometry: BoardGeometry | None = None) -> Camera:
    """The same camera after the board was nudged a little on the table.

    Args:
        camera: the camera.
        rng: the source of randomness.
        shift: largest move, as a share of the frame width.
        turn: largest turn, degrees.
        geometry: the board (default dimensions when None).

    Returns:
        The moved camera.

    Raises:
        Nothing.
    """
    g = geometry or BoardGeometry()
    a = float(rng.uniform(-turn, turn))
    move = rng.uniform(-shift, shift, 2) * camera.width
    # the board moves on the table under a camera that stays put
    px_per_mm = float(np.linalg.norm(np.subtract(camera.corners[1], camera.corners[0]))) / g.size[0]
    return camera.posed(g, *camera.pose(g), turn=a, shift=(float(move[0]) / px_per_mm,
                                                            float(move[1]) / px_per_mm))


def render_set(out: Path, *, seed: int = 0, sessions: int = 4, frames: int = 25,
               width: int = 1640, height: int = 1232, occluder_rate: float = 0.08,
               dice: bool = True, cocked_rate: float = 0.0, cocked_against: bool = True,
               by_rail: float = 0.0, on_dames: float = 0.0, parallax: bool = True,
               depth: float = 0.0, on_die: float = 0.0, touching: float = 0.0,
               on_die_reach: float = 1 / 3, hide_below: bool = False, look_alike: bool = False,
               progress: Callable[[Path, int, int], None] | None = None) -> list[Path]:
    """Render a fixture set: sessions of one board and camera, each with its calibration.

    Each session has its own board style, camera and lens; its ``reference.jpg`` (the start of a
    match, even light) is calibrated by :func:`tablier.calibration.flow.calibrate_frame` into
    ``calibration.json``, exactly as ``tablier calibrate`` would. When the lens distorts
    noticeably (|k1| > 0.05) the calibration carries the true intrinsics, standing in for a
    ChArUco lens calibration; milder distortion is left uncorrected. Every frame then has a new
    random position, light, blur, noise and JPEG; the board is nudged a little on most frames
    and the camera moved anywhere on some (the markers are found again on every frame).

    Args:
        out: the set folder (sessions go in ``s00``, ``s01``, ...).
        seed: seeds everything.
        sessions: number of sessions.
        frames: frames per session.
        width: frame width, pixels.
        height: frame height, pixels.
        occluder_rate: share of frames with a hand or cup over the board.
        dice: whether frames show two dice.
        cocked_rate: share of frames with a cocked die (see :func:`random_scene`).
        cocked_against: see :func:`random_scene`.
        by_rail: share of dice lying flat against the rail (see :func:`random_scene`).
        on_dames: share of dice lying flat on a pile of dames (see :func:`random_scene`).
        parallax: see :func:`render_frame`.
        depth: how far the playing surface lies below the rails' top, mm (see
            :func:`render_frame`); the reference frame too.
        on_die: share of frames whose second die rests on the first (see
            :func:`random_scene`).
        touching: share of frames whose two dice lie flat side by side, touching or nearly
            (see :func:`random_scene`).
        on_die_reach: see :func:`random_scene`.
        hide_below: see :func:`render_frame`.
        look_alike: every board brown / light wood with brown black dames
            (:meth:`BoardStyle.random`).
        progress: called after each session with its folder, how many sessions are written
            and how many there are.

    Returns:
        The session folders.

    Raises:
        CalibrationError: if a reference frame cannot be calibrated.
        OSError: if files cannot be written.
    """
    from tablier.calibration.calibration import Lens
    from tablier.calibration.flow import calibrate_frame
    rng = np.random.default_rng(seed)
    g = BoardGeometry()
    folders: list[Path] = []
    for s in range(sessions):
        folder = out / f"s{s:02d}"
        style = BoardStyle.random(rng, look_alike=look_alike)
        cam = Camera.random(rng, width, height, geometry=g)
        ref = render_frame(Scene.start(), style=style, camera=cam, lighting=Lighting(),
                           seed=int(rng.integers(2**31)), geometry=g, depth=depth)
        write_frame(ref, folder, "reference")
        lens: Lens | None = None
        if abs(cam.k1) > 0.05:
            lens = Lens(matrix=tuple(tuple(float(v) for v in row) for row in cam.matrix),
                        dist=tuple(float(v) for v in cam.dist))
        # the calibration knows the surface's depth, as `tablier calibrate --surface-depth`
        known = replace(g, surface_depth=depth) if depth else g
        calibrate_frame(ref.image, lens=lens, geometry=known).save(folder / "calibration.json")
        for i in range(frames):
            if rng.random() < 0.15:
                # the camera or the board was moved: the markers are searched afresh
                pose = replace(Camera.random(rng, width, height, geometry=g), k1=cam.k1,
                               k2=cam.k2)
            else:
                pose = nudge(cam, rng, geometry=g)
            scene = random_scene(rng, dice=dice, occluder_rate=occluder_rate,
                                 cocked_rate=cocked_rate, cocked_against=cocked_against,
                                 by_rail=by_rail, on_dames=on_dames, on_die=on_die,
                                 touching=touching, on_die_reach=on_die_reach)
            r = render_frame(scene, style=style, camera=pose, seed=int(rng.integers(2**31)),
                             geometry=g, parallax=parallax, depth=depth, hide_below=hide_below)
            write_frame(r, folder, f"frame_{i:03d}")
        folders.append(folder)
        if progress is not None:
            progress(folder, s + 1, sessions)
    return folders


def parse_size(text: str) -> tuple[int, int]:
    """A frame size given as ``WxH``, each side 64..8000 pixels.

    Args:
        text: such as ``1640x1232``.

    Returns:
        (width, height).

    Raises:
        ValueError: naming ``--size`` and what is wrong.

    >>> parse_size("1024x768")
    (1024, 768)
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must be WxH, not {text!r}") from None
    if not (64 <= w <= 8000 and 64 <= h <= 8000):
        raise ValueError(f"--size {text!r} out of range 64..8000")
    return w, h


def main(argv: Sequence[str] | None = None) -> int:
    """Write random frames with their truth.

    Args:
        argv: command-line arguments (``OUT_DIR --seed N --count K --size WxH``).

    Returns:
        0.

    Raises:
        SystemExit: on bad arguments.
    """
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.render")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--size", default="1640x1232")
    args = parser.parse_args(argv)
    try:
        w, h = parse_size(args.size)
    except ValueError as exc:
        parser.error(str(exc))
    if args.count < 1:
        parser.error("give --count at least 1")
    rng = np.random.default_rng(args.seed)
    for i in range(args.count):
        scene = random_scene(rng, occluder_rate=0.1)
        r = render_frame(scene, seed=int(rng.integers(2**31)), width=w, height=h)
        write_frame(r, args.out, f"frame_{i:03d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
