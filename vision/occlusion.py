"""Hands, arms, dice cups and motion: when a frame must not be read.

An arm reaching over the board always crosses a rail, and nothing else ever covers a rail but a
die (small), a fichet (in its hole, which is not probed) or the pavillon's flag (a small group
by one hole; by its middle hole, where the reference frame has it, the rail it hid there too).
So rail probes far from the reference colour mean a hand, an arm or a cup. Surface probes whose
colour matches none of the known colours (the empty board there, a dame, a jeton, a die) back
this up; a probe at least as light as a white dame in every channel is white, and so is one of
a white dame's tint a little darker (a white dame in shade). Motion compares a small grey
thumbnail of the rectified board with the previous frame's.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt
from tablier.vision.board import VisionConfig
from tablier.vision.groups import components

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
THUMB = (60, 56)
"""Width and height of the motion thumbnail."""
SURFACE_CONNECTIVITY = 4
"""Odd surface probes are one group when they are grid neighbours side by side (4), not also
corner to corner (8). Where white dames lie in rows and piles, the probes on their rims see
dame and point mixed, a colour like none known, and such probes meet corner to corner
around the dames. A hand or a cup covers a solid block of probes. On the tuning boards
(nineteenth round; 5,600 frames of seeds 5069, 5070, 5074, 5077, 5080, 5084, 5085, 5091,
5092, 5051, 5055, 5060, 5089, 5090, 5094; throwaway ``out/occgrid.py``), the largest group
in a frame with nothing over the board was 6 probes in 3 frames and 8 in one with 8
neighbours (4 frames judged occluded), 6 in 2 frames with 4 (2 judged so); the occluded
frames that only the surface probes flagged (12 of 416) had groups of 8-41 probes either
way."""
WHITE_SHADE = 0.6
"""A surface probe of a white dame's tint (:data:`WHITE_TINT`) and at least this share of its
brightness is a white dame in shade, not a hand. The rails' gain brings back the board's mean
light, not a lamp's fall across it nor the shade between dames in a pile: on tuning board 5152
(s22 frame_007, a dim left edge) a pile's white dames read (145, 142, 149) to (179, 177, 176)
against the reference (234, 224, 218), 7 odd probes side by side, the one frame of 4,565
with nothing over the board judged occluded (fiftieth round; 4,960 tuning frames of 5150-5164,
throwaway ``out/r50/oan.py``). A hand's skin and the cups are of other tints (or darker). At 0.6
and 0.03, of the 11,499 odd probes on the 395 frames with a hand or a cup, 608 count as white
now (white dames in the hand's or the cup's shadow), and no such frame's judgement changed (one
group fell from 38 probes to 37 on a frame whose rails see fewer than 6 odd probes); on the
frames with nothing over the board the largest odd group fell from 7 to 5. Set once, not tuned:
0.5 and 0.05, or 0.7 and 0.02, judge every frame alike."""
WHITE_TINT = 0.03
"""How far (chromaticity, each channel's share of the sum) a probe's tint may lie from the
white dames' to count as one in shade (:data:`WHITE_SHADE`)."""
PAVILLON_HOLE_BARE = True
"""Leave out a group of odd rail probes lying wholly within :data:`FLAG_REACH` of where the
pavillon's flag shows beside its middle hole, whatever its colour (:func:`detect_occlusion`).
On the tuning boards of the fiftieth round (4,960 frames of 5150-5164, throwaway
``out/r50/ran.py``, ``ran4.py``) the largest odd rail group on a frame with nothing over the
board fell, with :data:`FLAG_REACH`, from 3-5 probes on 3,393 frames to 3 on 94 (6 make a
frame occluded); on the 395 frames with a hand or a cup only groups of 3-4 probes, in frames
judged by their surface or missed either way, were left out."""
FLAG_REACH = 22.0
"""How far (mm) the centre of a rail probe the pavillon's flag touches may lie from where the
flag shows beside its hole (``Layout.flags``: 14 mm out from the hole, on the flag's side).
The flag is 22 mm long, its shadow 2 mm more, a probe's disc 2.5 mm. On the fiftieth round's
tuning boards the flag's odd probes lay up to 19.2 mm from there; until that round the reach
was 30 mm from the hole itself, which 11 groups of up to 5 probes by the pavillon's hole
passed (30.4-32.3 mm; 6 probes make a frame occluded). Set once above what was seen, not
tuned; 20 and 25 judge every tuning frame alike."""


@dataclass(frozen=True)
class OcclusionReading:
    """Whether something is over the board."""

    occluded: bool
    """True when a hand, arm or cup covers part of the board."""
    rail_anomalies: int
    """Size of the largest group of neighbouring rail probes that do not look like the rail."""
    surface_anomalies: int
    """Size of the largest cluster of surface probes that match no known colour."""
    motion: float | None
    """Mean grey change since the previous frame (None without one)."""
    moving: bool
    """True when ``motion`` is above the threshold."""
    odd_mm: tuple[tuple[float, float], ...] = ()
    """Board millimetres of the rail probes unlike the reference there (the groups the flag's
    reach leaves out among them) and of the surface probes unlike anything known there. The
    annotated picture marks them on an occluded frame, so a user can see what the test saw:
    an arm, or a lamp's colour or a cloth it should not have taken for one. Not in
    :meth:`to_json`."""

    def to_json(self) -> dict[str, object]:
        """The reading as plain JSON data."""
        return {"occluded": self.occluded, "rail_anomalies": self.rail_anomalies,
                "surface_anomalies": self.surface_anomalies,
                "motion": None if self.motion is None else round(self.motion, 2),
                "moving": self.moving}


def _within(group: npt.NDArray[np.float64], centres: npt.NDArray[np.float64],
            reach: float) -> bool:
    """Whether every point of ``group`` lies within ``reach`` of one of ``centres``."""
    far = np.hypot(*(group[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)).max(axis=0)
    return bool(far.min() <= reach)


def _largest_cluster(points: npt.NDArray[np.float64], reach: float,
                     marks: npt.NDArray[np.float64] | None = None, mark_reach: float = 0.0,
                     marked: npt.NDArray[np.bool_] | None = None,
                     bare: npt.NDArray[np.float64] | None = None) -> int:
    """Size of the largest group of points linked by steps shorter than ``reach``; a group
    holding a ``marked`` point and lying wholly within ``mark_reach`` of one of ``marks`` is
    left out, and so is a group lying wholly within ``mark_reach`` of one of ``bare``, whatever
    it holds."""
    n = len(points)
    if n == 0:
        return 0
    d = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    best = 0
    near_i, near_j = np.nonzero(np.triu(d < reach, 1))
    for members in components(n, zip(near_i.tolist(), near_j.tolist())):
        group = points[members]
        if (marks is not None and len(marks) and marked is not None and marked[members].any()
                and _within(group, marks, mark_reach)):
            continue
        if bare is not None and len(bare) and _within(group, bare, mark_reach):
            continue
        best = max(best, len(group))
    return best


def _places(*groups: npt.NDArray[np.float64]) -> tuple[tuple[float, float], ...]:
    """The points of ``groups`` (each Nx2, millimetres) as one tuple of pairs."""
    return tuple((float(x), float(y)) for g in groups for x, y in g)


def thumbnail(rectified: Image, gain: F32) -> npt.NDArray[np.float32]:
    """A small grey, light-corrected picture of the rectified board for motion tests.

    Args:
        rectified: the rectified board, uint8 RGB.
        gain: the light gain of this frame.

    Returns:
        ``THUMB`` float32 grey image.

    Raises:
        Nothing.
    """
    small = cv2.resize(rectified, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)
    return np.asarray((small * gain).mean(axis=2), np.float32)


def detect_occlusion(cfg: VisionConfig, rectified: Image, *, gain: F32,
                     dice_px: npt.ArrayLike = (),
                     previous: npt.NDArray[np.float32] | None = None,
                     thumb: npt.NDArray[np.float32] | None = None,
                     rail: F32 | None = None) -> OcclusionReading:
    """Decide whether a hand, an arm or a dice cup is over the board, and whether it moves.

    Args:
        cfg: the vision config.
        rectified: the rectified board, uint8 RGB.
        gain: the light gain of this frame.
        dice_px: rectified pixel centres of dice (their probes are ignored).
        previous: the previous frame's :func:`thumbnail`, if any.
        thumb: this frame's thumbnail (computed when None).
        rail: the rail probes' mean colours on this frame (taken when None).

    Returns:
        The reading.

    Raises:
        Nothing.
    """
    layout = cfg.layout
    prof = cfg.calibration.profile
    th = cfg.calibration.thresholds
    flat = rectified.reshape(-1, 3)
    dice = np.asarray(dice_px, np.float64).reshape(-1, 2)
    radius = 1.6 * th.die_radius_mm * layout.scale
    rail = (layout.rail.means(flat) if rail is None else rail) * gain
    ref = np.array(prof.rail_samples, np.float32)
    d_rail = np.linalg.norm(rail - ref, axis=1)
    chroma = rail / np.maximum(rail.sum(axis=1, keepdims=True), 1.0)
    ref_chroma = ref / np.maximum(ref.sum(axis=1, keepdims=True), 1.0)
    d_chroma = np.linalg.norm(chroma - ref_chroma, axis=1)
    bad_rail = (d_rail > th.rail_distance) | (d_chroma > th.rail_chroma)
    surf = layout.surface.means(flat) * gain
    known = np.array([prof.black, prof.jeton, prof.peg], np.float32)
    d_known = np.linalg.norm(surf[:, None, :] - known[None, :, :], axis=2).min(axis=1)
    # NOTE: a white dame is only too dark to be one: the gain is taken from the rails (dark
    # wood, little blue), and in dim or coloured light it can lift white dames past the
    # reference in some channel (tuning seed 5056: a dim frame's white dames read
    # (273, 264, 312) and made it occluded). A hand or a cup falls short of white somewhere.
    white = np.array(prof.white, np.float32)
    short = np.linalg.norm(np.maximum(white - surf, 0.0), axis=1)
    white_sum = max(float(white.sum()), 1.0)
    level = surf.sum(axis=1) / white_sum
    tint = surf / np.maximum(surf.sum(axis=1, keepdims=True), 1.0) - white / white_sum
    shaded = (level >= WHITE_SHADE) & (np.linalg.norm(tint, axis=1) < WHITE_TINT)
    d_known = np.minimum(d_known, np.where(shaded, 0.0, short))
    d_empty = np.linalg.norm(surf - np.array(prof.surface, np.float32), axis=1)
    bad_surf = np.minimum(d_known, d_empty) > th.surface_distance
    if len(dice):
        bad_rail &= ~layout.rail.near(dice, radius).any(axis=1)
        bad_surf &= ~layout.surface.near(dice, radius).any(axis=1)
    # NOTE: the pavillon's flag reaches past its hole over the rail (the probes keep only
    # 11 mm from the holes): a group of odd rail probes, one of them the flag's colour, all
    # within the flag's reach of where it shows beside one hole is the flag (``FLAG_REACH``);
    # an arm is wider (seed 7 at 640x480: a flag made 6 neighbouring rail probes unlike the
    # rail, as many as an arm).
    # NOTE: the reference frame has the pavillon in its middle hole, so the rail probes its
    # flag covered then are odd once it has gone to a player's hole: a group within the flag's
    # reach of the middle hole's flag is the flag or the rail it hid (``PAVILLON_HOLE_BARE``).
    places = layout.flags.mm
    middle = places[layout.hole_keys.index(("pavillon", 0))][None, :]
    flag = np.linalg.norm(rail - np.array(prof.pavillon, np.float32), axis=1) < th.rail_distance
    n_rail = _largest_cluster(layout.rail.mm[bad_rail], 13.0, places, FLAG_REACH,
                              flag[bad_rail], bare=middle if PAVILLON_HOLE_BARE else None)
    grid = bad_surf.reshape(layout.surface_grid).astype(np.uint8)
    n_surf = 0
    if grid.any():
        # NOTE: side by side only, not corner to corner (``SURFACE_CONNECTIVITY``).
        _count, labels = cv2.connectedComponents(grid, connectivity=SURFACE_CONNECTIVITY)
        n_surf = int(np.bincount(labels.ravel())[1:].max())
    motion = None
    if previous is not None:
        now = thumb if thumb is not None else thumbnail(rectified, gain)
        if previous.shape == now.shape:
            motion = float(np.abs(now - previous).mean())
    occluded = bool(n_rail >= th.rail_anomalies or n_surf >= th.surface_anomalies)
    return OcclusionReading(occluded=occluded, rail_anomalies=n_rail, surface_anomalies=n_surf,
                            motion=motion, moving=motion is not None and motion > th.motion,
                            odd_mm=_places(layout.rail.mm[bad_rail], layout.surface.mm[bad_surf]))
