"""The colour profile of a board, taken from a rectified reference frame of a match's start.

The reference frame shows the start of a match: fifteen dames on each talon, the three jetons at
rest between the talons, both fichets in their start holes, the pavillon in the middle hole and
no dice. Every other place is empty there, so its colour is the "empty" colour of that place.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from tablier.calibration.calibration import CalibrationError, ColourProfile
from tablier.calibration.layout import SampleLayout

Image = npt.NDArray[np.uint8]
RGB = tuple[float, float, float]


LOOK_ALIKE = 20.0
"""Colour distance (RGB, 0-255) under which an empty dame slot looks like a dame
(:func:`look_alike`). The dames reader tells a dame from an empty slot by colour alone
(:func:`tablier.vision.checkers.count_checkers`): on a board whose dark points are the black
dames' brown it reads empty points as black dames and black dames there as empty. On the
board tuning sessions looked at in the forty-seventh round (docs/vision.md), nine of 224 had
empty slots nearer the black dames' colour than 20; fields were misread in three of them
(nearest 8.3, 16 and 19.7 levels off: 7 fields in 8 frames, 4 in 50, 4 in 50), none in the
other six (11-19.2 off). `tablier calibrate board` and `tablier watch` warn under 20
(:func:`look_alike_warnings`). Since the forty-eighth round the reader also follows the light's
slope across the board (:func:`tablier.vision.checkers.light_slope`): on the 60 tuning
sessions of such boards of that round (``tablier render --look-alike``) fields were misread in
3 of the 4 sessions under 7 levels off (1-2 fields in 8 frames), seldom above (one field in 8
frames in 3 of 28 sessions 9-25 off); 20 was kept. The same round takes the dames' colours
from each frame too, which mends more (docs/vision.md)."""


def look_alike(profile: ColourProfile, limit: float = LOOK_ALIKE) -> dict[str, list[int]]:
    """The fields where an empty slot's colour lies within ``limit`` of a dame colour.

    Args:
        profile: the board's colour profile.
        limit: the colour distance (RGB, 0-255).

    Returns:
        ``{"white": [...], "black": [...]}``: the fields (1-24, White's numbering) whose empty
        slots look like the white or the black dames; empty lists on a board that parts them.

    Raises:
        Nothing.

    >>> from dataclasses import replace
    >>> from tablier.calibration.calibration import Calibration
    >>> grey = Calibration.example().profile
    >>> look_alike(grey)
    {'white': [], 'black': []}
    >>> look_alike(replace(grey, black=(120.0, 130.0, 125.0)))["black"] == list(range(1, 25))
    True
    """
    slots = np.asarray(profile.slots, np.float64).reshape(24, -1, 3)
    out: dict[str, list[int]] = {}
    for name, dame in (("white", profile.white), ("black", profile.black)):
        d = np.linalg.norm(slots - np.asarray(dame, np.float64), axis=2).min(axis=1)
        out[name] = [int(f) + 1 for f in np.flatnonzero(d < limit)]
    return out


def look_alike_warnings(profile: ColourProfile) -> list[str]:
    """One warning line for each colour of dames :func:`look_alike` finds on empty points.

    Args:
        profile: the board's colour profile.

    Returns:
        The lines, none on a board whose points and dames differ in colour.

    Raises:
        Nothing.
    """
    return [f"warning: on fields {', '.join(map(str, fields))} the empty points are the colour "
            f"of the {color} dames, and tablier tells a dame from an empty point by its colour: "
            f"{color} dames there may be misread. Dames or points of another colour avoid it"
            for color, fields in look_alike(profile).items() if fields]


def _rgb(v: npt.ArrayLike) -> RGB:
    a = np.asarray(v, np.float64).reshape(3)
    return (round(float(a[0]), 2), round(float(a[1]), 2), round(float(a[2]), 2))


def _rgbs(a: npt.ArrayLike) -> tuple[RGB, ...]:
    return tuple(_rgb(r) for r in np.asarray(a, np.float64).reshape(-1, 3))


def build_profile(layout: SampleLayout, rectified: Image, *, start: bool = True) -> ColourProfile:
    """Measure every colour of the profile on a rectified reference frame.

    Args:
        layout: the probes.
        rectified: the reference frame rectified to ``layout.shape``, uint8 RGB.
        start: the frame shows the start of a match (checked); False takes any frame as it
            is, its dames' colours then meaningless (``tablier dice`` on a photograph of a
            game in progress reads only the dice with it) and its surface probes as seen (a
            start's talons and resting jetons are not taken away).

    Returns:
        The profile.

    Raises:
        CalibrationError: if ``start`` and the frame does not look like the start of a match
            (the white talon must be clearly lighter than the black one).
    """
    if rectified.shape[:2] != layout.shape:
        raise CalibrationError(f"rectified reference is {rectified.shape[:2]}, "
                               f"expected {layout.shape}")
    flat = rectified.reshape(-1, 3)
    n = layout.geometry.slots
    slots = layout.slots.means(flat).reshape(24, n, 3).astype(np.float64)
    white = slots[0, 0].copy()
    black = slots[23, 0].copy()
    if start and white.mean() < black.mean() + 40:
        raise CalibrationError("the reference frame must show the start of a match: white dames "
                               "on the talon at White's bottom-left, black ones at the top-left "
                               f"(white talon reads {white.round()}, black {black.round()})")
    empty = slots.copy()
    empty[0] = slots[2]    # White's talon looks like field 3 (same flèche colour)
    empty[23] = slots[21]  # Black's talon like White's field 22
    rings = layout.rings.means(flat).reshape(24, n, 3).astype(np.float64)
    white_ring, black_ring = rings[0, 0].copy(), rings[23, 0].copy()
    rings[0], rings[23] = rings[2].copy(), rings[21].copy()
    jet = layout.jetons.means(flat).astype(np.float64)
    rest = [i for i, k in enumerate(layout.jeton_keys) if k[0] == "rest"]
    others = [i for i, k in enumerate(layout.jeton_keys) if k[0] != "rest"]
    jeton = np.median(jet[rest], axis=0)
    jet_empty = jet.copy()
    jet_empty[rest] = np.median(jet[others], axis=0)
    holes = layout.holes.means(flat).astype(np.float64)
    at_start = [i for i, k in enumerate(layout.hole_keys) if k[1] == 0 and k[0] != "pavillon"]
    pav = [i for i, k in enumerate(layout.hole_keys) if k[0] == "pavillon"]
    free = [i for i, k in enumerate(layout.hole_keys) if k[1] > 0]
    flags = layout.flags.means(flat).astype(np.float64)
    rail_samples = layout.rail.means(flat).astype(np.float64)
    rail = np.median(rail_samples, axis=0)
    flag_empty = flags.copy()
    flag_empty[pav] = rail
    return ColourProfile(
        rail=_rgb(rail), rail_samples=_rgbs(rail_samples), slots=_rgbs(empty),
        rings=_rgbs(rings), white=_rgb(white), black=_rgb(black),
        white_ring=_rgb(white_ring), black_ring=_rgb(black_ring), jeton=_rgb(jeton), jeton_empty=_rgbs(jet_empty),
        hole=_rgb(np.median(holes[free], axis=0)), peg=_rgb(np.median(holes[at_start], axis=0)),
        pavillon=_rgb(flags[pav[0]]), flag_empty=_rgbs(flag_empty),
        surface=_rgbs(_empty_surface(layout, flat) if start
                      else layout.surface.means(flat).astype(np.float64)))


def _empty_surface(layout: SampleLayout, flat: Image) -> npt.NDArray[np.float64]:
    """Surface probe colours with the talons and the resting jetons taken away.

    The first two columns (the talons' flèches and the jetons at rest) take the colour of the
    columns two fields further on, which look the same when empty.
    """
    rows, cols = layout.surface_grid
    surf = layout.surface.means(flat).astype(np.float64).reshape(rows, cols, 3)
    surf[:, 0:2] = surf[:, 4:6]
    return np.asarray(surf.reshape(-1, 3), np.float64)
