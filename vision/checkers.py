"""Read the dames on a rectified board: which colour holds each field and how many show.

Dames stand in a row from the base of a flèche outwards; more than a row holds are piled. Seen
from above a pile is one disc, so a field reports the number of *visible* stacks, not the number
of dames: the tracker counts piles by following the legal plays. Each slot of a row is compared
with three colours: the empty slot on the reference frame, a white dame and a black dame, all
corrected for the light of this frame by the rails' colour, and for the light's slope across the
board by how it changes along the rails. The dames' colours are then taken again from this
frame's dames that stand clear of their points' colour, and every slot read again.

Run as ``python -m tablier.vision.checkers CALIBRATION IMAGE`` to print the fields.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import white_field
from tablier.engine import Color
from tablier.vision.board import VisionConfig

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class FieldReading:
    """What one field shows from above."""

    field: int
    """The field in White's numbering, 1..24."""
    color: Color | None
    """The colour of the dames there, None when empty."""
    visible: int
    """How many stacks of dames are seen (a pile counts once), 0..slots."""
    confidence: float
    """0..1: how clearly the slots were told apart."""
    covered: bool = False
    """True when a die hid part of the field (the reading was completed from its neighbours)."""

    def to_json(self) -> dict[str, object]:
        """The reading as plain JSON data."""
        return {"field": self.field, "color": None if self.color is None else self.color.value,
                "visible": self.visible, "confidence": round(self.confidence, 3),
                "covered": self.covered}


@dataclass(frozen=True)
class FieldCounts:
    """The 24 fields in White's numbering."""

    fields: tuple[FieldReading, ...]
    """One reading per field, White's field 1 first."""

    def men(self, color: Color) -> dict[int, int]:
        """Visible stacks of ``color`` per field in that player's own numbering.

        Args:
            color: whose dames.

        Returns:
            Field (his numbering) -> visible stacks, for fields he holds.

        Raises:
            Nothing.
        """
        return {white_field(color, r.field): r.visible for r in self.fields
                if r.color is color and r.visible > 0}


RAIL_DARK = 8.0
"""A channel of the rails darker than this on the reference frame (grey levels: a board's rail
that hardly reflects it) says nothing of the light: its gain is that of the other channels
(their geometric mean)."""


def light_gain(cfg: VisionConfig, flat: Image, *, rail: F32 | None = None) -> F32:
    """Per-channel gain that brings this frame's light back to the reference frame's.

    Args:
        cfg: the vision config.
        flat: the rectified frame as (H*W)x3.
        rail: the rail probes' mean colours on this frame (``cfg.layout.rail.means(flat)``,
            taken when None).

    Returns:
        Three gains (R, G, B).

    Raises:
        Nothing.
    """
    now = np.median(cfg.layout.rail.means(flat) if rail is None else rail, axis=0)
    ref = np.array(cfg.calibration.profile.rail, np.float32)
    gain = ref / np.maximum(now, 1.0)
    seen = ref >= RAIL_DARK
    if not seen.all():
        # NOTE: a red rail may have no blue at all: 0.2 grey levels on the reference frame and
        # 0.9 now made a gain of 0.25 that turned the navy points of measuring seed 8200's
        # board (session s00) as dark as its brown dames.
        gain[~seen] = float(np.exp(np.log(gain[seen]).mean())) if seen.any() else 1.0
    return np.asarray(np.clip(gain, 0.25, 4.0), np.float32)


LIGHT_SLOPE = True
"""Whether the dames are read under the light's slope across the board (:func:`light_slope`)
as well as its mean colour (:func:`light_gain`)."""
SLOPE_SPREAD = 4.0
"""Rail probes whose gain lies further from the fitted slope than this many times the median
distance (and 3 %) are left out of the fit: a hand, a die or the pavillon's flag on the rail."""
SLOPE_PROBES = 12
"""The fewest rail probes the slope is fitted on; with fewer the light is taken as even."""
SLOPE_LIMIT = (0.7, 1.4)
"""The most the slope may lighten or darken a place against the board's mean."""


def light_slope(cfg: VisionConfig, flat: Image, at_mm: npt.ArrayLike, *,
                rail: F32 | None = None) -> F32:
    """The gain each place of the board needs beside :func:`light_gain`'s, for light that falls
    unevenly (a lamp to one side): a plane fitted to the rail probes' brightness against the
    reference frame's, leaving out probes something covers.

    Args:
        cfg: the vision config.
        flat: the rectified frame as (H*W)x3.
        at_mm: Nx2 places, board millimetres.
        rail: the rail probes' mean colours on this frame (taken when None).

    Returns:
        N gains about 1 (1 on average over every rail probe, as :func:`light_gain` takes
        their median): above 1 where the light is dimmer than on the board as a whole. All 1
        when :data:`LIGHT_SLOPE` is off, when the rails are too dark to tell the light by, or
        when too few probes agree.

    Raises:
        Nothing.
    """
    layout = cfg.layout
    at = np.asarray(at_mm, np.float64).reshape(-1, 2)
    even = np.ones(len(at), np.float32)
    if not LIGHT_SLOPE:
        return even
    prof = cfg.calibration.profile
    seen = np.asarray(prof.rail) >= RAIL_DARK  # the channels light_gain reads the light by
    if not seen.any():
        return even
    now = (layout.rail.means(flat) if rail is None else rail).astype(np.float64)
    ref = np.asarray(prof.rail_samples, np.float64)
    gain = np.log(np.maximum(ref[:, seen].sum(axis=1), 1.0)
                  / np.maximum(now[:, seen].sum(axis=1), 1.0))
    size = np.array(cfg.calibration.geometry.size, np.float64)
    uv = layout.rail.mm / size - 0.5
    x = np.column_stack([np.ones(len(uv)), uv])
    keep = np.ones(len(uv), bool)
    for _ in range(3):
        coef = np.linalg.lstsq(x[keep], gain[keep], rcond=None)[0]
        off = np.abs(gain - x @ coef)
        keep = off <= max(SLOPE_SPREAD * float(np.median(off[keep])), 0.03)
        if keep.sum() < SLOPE_PROBES:
            return even
    slope = coef[1:]
    level = float((uv @ slope).mean())
    return np.asarray(np.clip(np.exp((at / size - 0.5) @ slope - level), *SLOPE_LIMIT),
                      np.float32)


def count_checkers(cfg: VisionConfig, rectified: Image, *, gain: F32 | None = None,
                   dice_px: npt.ArrayLike = (), rail: F32 | None = None) -> FieldCounts:
    """Read every field of a rectified board.

    Args:
        cfg: the vision config.
        rectified: the board from :func:`~tablier.vision.board.rectify`, uint8 RGB.
        gain: the light gain (computed from the rails when None); the light's slope
            (:func:`light_slope`) is applied on top of it.
        dice_px: Nx2 rectified pixel centres of dice lying on the board; their pixels are
            left out of the slots they cover.
        rail: the rail probes' mean colours on this frame (taken when None).

    Returns:
        The 24 readings.

    Raises:
        Nothing.
    """
    layout = cfg.layout
    prof = cfg.calibration.profile
    th = cfg.calibration.thresholds
    n = layout.geometry.slots
    flat = rectified.reshape(-1, 3)
    if rail is None:
        rail = layout.rail.means(flat)
    if gain is None:
        gain = light_gain(cfg, flat, rail=rail)
    dice = np.asarray(dice_px, np.float64).reshape(-1, 2)
    radius = th.die_radius_mm * layout.scale
    if len(dice):
        feats, share = layout.slots.masked_means(flat, ~layout.slots.near(dice, radius))
    else:
        feats, share = layout.slots.means(flat), np.ones(len(layout.slots.index), np.float32)
    local = light_slope(cfg, flat, layout.slots.mm, rail=rail)[:, None]
    seen = feats * gain * local
    empty = np.array(prof.slots, np.float32)
    white, black = np.array(prof.white, np.float32), np.array(prof.black, np.float32)
    occ_flat, white_flat, conf_flat = _classify(seen, empty, white, black, th.occupied_margin)
    # NOTE: read again with the dames' colours as this frame shows them, taken from the dames
    # read at first on points of another colour (no die touching them)
    white, black = _frame_dames(seen, empty, white, black, occ_flat & (share >= 1.0),
                                white_flat)
    occ_flat, white_flat, conf_flat = _classify(seen, empty, white, black, th.occupied_margin)
    covered = share < th.min_visible_share
    touched = share < 1.0
    if touched.any():
        # NOTE: a slot a die covers or touches is read by the ring around it, where enough of
        # the ring is in view: what is left of the slot's middle may be mostly the die's side
        # faces or its shadow (a phantom dame on a dark point, a dame under a die read empty,
        # on the tuning boards), while the ring lies on a dame's outer part. Reading the ring
        # only where it was surer than the slot kept two such phantoms at depth 25.
        rows = np.flatnonzero(touched)
        rings = layout.rings.subset(rows)
        ring, ring_share = rings.masked_means(flat, ~rings.near(dice, radius))
        # NOTE: the rings' dame colours move as the slots' did on this frame
        o, w, c = _classify(ring * gain * local[rows], np.array(prof.rings, np.float32)[rows],
                            np.array(prof.white_ring, np.float32) + white - prof.white,
                            np.array(prof.black_ring, np.float32) + black - prof.black,
                            th.occupied_margin)
        c = c * 0.8
        use = ring_share >= th.min_visible_share
        sel = rows[use]
        occ_flat[sel], white_flat[sel], conf_flat[sel] = o[use], w[use], c[use]
        covered[sel] = False
    occupied = occ_flat.reshape(24, n)
    is_white = white_flat.reshape(24, n)
    conf = conf_flat.reshape(24, n)
    covered = covered.reshape(24, n)
    touched = touched.reshape(24, n)
    readings: list[FieldReading] = []
    for i in range(24):
        occ = occupied[i].copy()
        cov = covered[i].copy()
        c = conf[i].copy()
        if cov.any():
            # NOTE: a die hides this slot; dames fill a row from the base, so the slot is taken
            # exactly when a slot further out is taken.
            for k in np.nonzero(cov)[0]:
                occ[k] = bool(occ[k + 1:].any()) if k + 1 < n else bool(occ[:k].all() and occ[k])
                c[k] = 0.3
        # NOTE: a slot a die only touches yields to the row where its reading breaks it (what
        # is seen of it may be the die's side faces or shadow): read empty with a slot further
        # out taken, it is taken (a die on the row's first dame); read taken with an empty slot
        # nearer the base that no die touches, it is empty (a die's shadow on a dark point).
        for k in np.nonzero(touched[i] & ~cov)[0]:
            if occ[k] and (~occ[:k] & ~touched[i, :k]).any():
                occ[k], cov[k], c[k] = False, True, 0.3
            elif not occ[k] and occ[k + 1:].any():
                occ[k], cov[k], c[k] = True, True, 0.3
        visible = int(occ.sum())
        color: Color | None = None
        confidence = float(c.min()) if n else 1.0
        if visible:
            whites = int((is_white[i] & occ & ~cov).sum())
            blacks = int((~is_white[i] & occ & ~cov).sum())
            color = Color.WHITE if whites >= blacks else Color.BLACK
            if whites and blacks:
                confidence *= 0.3
            if not occ[:visible].all():
                confidence *= 0.5
        readings.append(FieldReading(field=i + 1, color=color, visible=visible,
                                     confidence=round(min(1.0, 2.0 * confidence), 4),
                                     covered=bool(cov.any())))
    return FieldCounts(fields=tuple(readings))


FRAME_DAMES = 3
"""The fewest dames of a colour, clearly read, whose colour on this frame replaces the
calibration's for that colour (:func:`_frame_dames`); 0 keeps the calibration's."""
CLEAR_OF_EMPTY = 40.0
"""A dame is clearly read on a slot whose empty colour lies further than this (RGB) from the
dames' colour: a black dame on a light point, a white one on a dark point."""


def _frame_dames(seen: F32, empty: F32, white: F32, black: F32,
                 occupied: npt.NDArray[np.bool_], is_white: npt.NDArray[np.bool_]
                 ) -> tuple[F32, F32]:
    """The white and the black dames' colours as this frame shows them: the median of the
    dames read on slots whose empty colour is far from theirs, where there are
    :data:`FRAME_DAMES` of them, else the calibration's.

    The calibration takes each colour from the talon's piles on the reference frame, which may
    read a few levels off a lone dame (8, 4 and 3 levels lighter on tuning session 5153 s13):
    enough, on a point nearly the dames' colour, to read it the wrong way.
    """
    out = []
    for ref, mine in ((white, is_white), (black, ~is_white)):
        clear = occupied & mine & (np.linalg.norm(empty - ref, axis=1) > CLEAR_OF_EMPTY)
        if FRAME_DAMES and clear.sum() >= FRAME_DAMES:
            ref = np.median(seen[clear], axis=0).astype(np.float32)
        out.append(ref)
    return out[0], out[1]


def _classify(feats: F32, empty: F32, white: F32, black: F32, margin: float
              ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], F32]:
    """Occupied?, white?, and a confidence for each probe by its nearest reference colour."""
    d_e = np.linalg.norm(feats - empty, axis=1)
    d_w = np.linalg.norm(feats - white, axis=1)
    d_b = np.linalg.norm(feats - black, axis=1)
    d_m = np.minimum(d_w, d_b)
    conf = np.abs(d_e - d_m) / (d_e + d_m + 1e-3)
    return d_m + margin < d_e, d_w < d_b, conf.astype(np.float32)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the fields of one image.

    Args:
        argv: ``CALIBRATION IMAGE``.

    Returns:
        0, or 2 when the calibration or the image cannot be read or no board is found.

    Raises:
        SystemExit: on bad arguments.
    """
    from tablier.calibration.calibration import Calibration, CalibrationError
    from tablier.vision.board import locate_board, rectify
    from tablier.vision.errors import RecognitionError, stage_failed
    from tablier.vision.imageio import read_image
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.checkers")
    parser.add_argument("calibration", type=Path)
    parser.add_argument("image", type=Path)
    args = parser.parse_args(argv)
    try:
        cfg = VisionConfig.from_calibration(Calibration.load(args.calibration))
        image = read_image(args.image)
        counts = count_checkers(cfg, rectify(cfg, image, locate_board(cfg, image)))
    except (CalibrationError, RecognitionError) as exc:
        return stage_failed(parser.prog, exc)
    for r in counts.fields:
        print(r.field, r.color.value if r.color else "-", r.visible, r.confidence)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
