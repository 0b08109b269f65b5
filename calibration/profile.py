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
        start: the frame shows the start of a match (checked); False takes a frame of any
            position (a photograph of a game in progress, ``tablier dice`` and ``tablier see
            --own``), best evenly lit (``calibrate_frame(start=False)`` takes the light's slope
            out): each slot's empty colour is the one the points of its colour that look alike
            all along show (:func:`_empty_by_kind`), the dames' colours those of the slots far
            from it (:func:`_dames_seen`), and the surface probes are as seen (a start's talons
            and resting jetons are not taken away).

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
    rings = layout.rings.means(flat).reshape(24, n, 3).astype(np.float64)
    if not start:
        empty, ring_empty = _empty_by_kind(slots), _empty_by_kind(rings)
        white, black, white_ring, black_ring = _dames_seen(slots, rings, empty)
        rings = ring_empty
    else:
        white = slots[0, 0].copy()
        black = slots[23, 0].copy()
        if white.mean() < black.mean() + 40:
            raise CalibrationError("the reference frame must show the start of a match: white "
                                   "dames on the talon at White's bottom-left, black ones at the "
                                   f"top-left (white talon reads {white.round()}, black "
                                   f"{black.round()})")
        empty = slots.copy()
        empty[0] = slots[2]    # White's talon looks like field 3 (same flèche colour)
        empty[23] = slots[21]  # Black's talon like White's field 22
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


KIND_REACH = 20.0
"""Colour distance (RGB, 0-255) within which two slots of a frame of any position are taken to
show the same colour (:func:`_empty_by_kind`)."""
DAME_REACH = 25.0
"""Colour distance from a slot's empty colour beyond which it is taken to hold a dame
(:func:`_dames_seen`). At 40, on dark boards the black dames lay nearer the points' colour and
went unseen: `tablier eval --own` on the fifty-third round's tuning sets 5173 and 5172 read
99.73 % and 99.86 % of fields' colours right, against 100.00 % and 99.91 % at 25 and at 20."""


def _empty_by_kind(seen: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each slot's empty colour, from a frame of any position (24 x slots x 3, as seen).

    The fields alternate two colours, and a slot's empty colour depends on its field's colour
    and its place along the point alone (the fifty-third round's tuning sessions: the start's
    profiles alike within a grey level over all twelve fields of a colour). Dames fill a point
    from its base, so an empty point shows its empty colour at every slot, and points with
    dames seldom look alike all along. Of the twelve points of a colour, those alike at every
    slot to the most others are taken, less the points of the other colour whose base looks
    like theirs: a point with dames has one on its base, and a dame may stand on either colour.
    Where no two points of a colour look alike, each slot takes the colour most of its twelve
    show, less those of the other colour's same slots that show it.
    """
    out = np.empty_like(seen)
    for kind in (0, 1):
        mine, others = seen[kind::2], seen[1 - kind::2]
        near = np.linalg.norm(mine[:, None] - mine[None], axis=3) <= KIND_REACH
        across = np.linalg.norm(mine[:, None] - others[None], axis=3) <= KIND_REACH
        alike = near.all(axis=2)
        # NOTE: a point with dames has one on its base: a colour on the other points' bases
        # is a dame's
        best = _commonest(alike, across[:, :, 0])
        if alike[best].sum() >= 2:
            out[kind::2] = np.median(mine[alike[best]], axis=0)
            continue
        for k in range(seen.shape[1]):
            best = _commonest(near[:, :, k], across[:, :, k])
            out[kind::2, k] = np.median(mine[near[best, :, k], k], axis=0)
    return out


def _commonest(near: npt.NDArray[np.bool_], across: npt.NDArray[np.bool_]) -> int:
    """Of points (or slots) of one colour, the one most of them look alike to, less those of
    the other colour that do; of two as often alike, the more common (a board whose two colours
    are alike)."""
    support = near.sum(axis=1)
    return int(np.argmax(support - across.sum(axis=1) + support / 100.0))


def _dames_seen(slots: npt.NDArray[np.float64], rings: npt.NDArray[np.float64],
                empty: npt.NDArray[np.float64]
                ) -> tuple[npt.NDArray[np.float64], ...]:
    """The white and black dames' colours on a frame of any position, and their rings': the
    slots far from their empty colour, parted into the lighter and the darker by two means of
    their grey. Dames all of one grey are white where lighter than the empty slots' mean, else
    black. A colour no slot shows is white (255) or black (0)."""
    taken = np.linalg.norm(slots - empty, axis=2) > DAME_REACH
    grey = slots.mean(axis=2)
    light = np.zeros_like(taken)
    if taken.any():
        lo, hi = float(grey[taken].min()), float(grey[taken].max())
        if hi - lo < DAME_REACH:
            light = taken if lo > float(empty.mean()) else light
        else:
            for _ in range(8):
                light = taken & (np.abs(grey - hi) < np.abs(grey - lo))
                lo, hi = float(grey[taken & ~light].mean()), float(grey[light].mean())
    dark = taken & ~light
    out = []
    for mask, none in ((light, 255.0), (dark, 0.0)):
        out += ([np.median(slots[mask], axis=0), np.median(rings[mask], axis=0)] if mask.any()
                else [np.full(3, none), np.full(3, none)])
    return out[0], out[2], out[1], out[3]


def _empty_surface(layout: SampleLayout, flat: Image) -> npt.NDArray[np.float64]:
    """Surface probe colours with the talons and the resting jetons taken away.

    The first two columns (the talons' flèches and the jetons at rest) take the colour of the
    columns two fields further on, which look the same when empty.
    """
    rows, cols = layout.surface_grid
    surf = layout.surface.means(flat).astype(np.float64).reshape(rows, cols, 3)
    surf[:, 0:2] = surf[:, 4:6]
    return np.asarray(surf.reshape(-1, 3), np.float64)
