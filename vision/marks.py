"""Read the jetons on the board and the fichets and pavillon in the rail holes.

Each jeton place (three at rest between the talons, and beside the fields 2, 4, 6, 7 and 12 of
each side, twice for the bredouille jeton) is compared with the jeton's colour and the empty
place's colour on the reference frame; each rail hole with an empty hole and a fichet's head;
beside each hole, the pavillon's flag with the bare rail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from tablier.engine import Color, Marks, Pavillon, PlayerMarks
from tablier.vision.board import VisionConfig

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class MarksReading:
    """Where the jetons, fichets and pavillon are seen."""

    jetons_at_rest: int
    """Jetons seen at rest between the talons, 0..3."""
    white_jetons: tuple[int, ...]
    """Spots (White's numbering) where White's jetons are seen; a spot twice = bredouille."""
    black_jetons: tuple[int, ...]
    """Spots (Black's numbering) where Black's jetons are seen."""
    white_pegs: tuple[int, ...]
    """Holes 0..12 of White's side holding a fichet (or the pavillon)."""
    black_pegs: tuple[int, ...]
    """Holes of Black's side holding a fichet (or the pavillon)."""
    pavillon: str
    """``"middle"``, ``"white"``, ``"black"`` or ``"out"`` (not seen in any hole)."""
    confidence: float
    """0..1, the least clear of the decisions."""

    def marks(self) -> Marks | None:
        """The engine's :class:`~tablier.engine.Marks` when the reading is consistent.

        Returns:
            The marks, or None when a player shows no fichet or several, or a jeton is missing
            or doubled without reason.

        Raises:
            Nothing.
        """
        if len(self.white_pegs) != 1 or len(self.black_pegs) != 1:
            return None
        placed = len(self.white_jetons) + len(self.black_jetons)
        if placed + self.jetons_at_rest != 3:
            return None

        def one(spots: tuple[int, ...], peg: int, carries: bool) -> PlayerMarks | None:
            if len(set(spots)) > 1:
                return None
            return PlayerMarks(token_spot=spots[0] if spots else 0,
                               bredouille_token=len(spots) == 2, peg_hole=peg, pavillon=carries)

        w = one(self.white_jetons, self.white_pegs[0], self.pavillon == "white")
        b = one(self.black_jetons, self.black_pegs[0], self.pavillon == "black")
        if w is None or b is None:
            return None
        return Marks(white=w, black=b, pavillon=Pavillon(self.pavillon))

    def to_json(self) -> dict[str, object]:
        """The reading as plain JSON data."""
        return {"jetons_at_rest": self.jetons_at_rest, "white_jetons": list(self.white_jetons),
                "black_jetons": list(self.black_jetons), "white_pegs": list(self.white_pegs),
                "black_pegs": list(self.black_pegs), "pavillon": self.pavillon,
                "confidence": round(self.confidence, 3)}


def _nearer(feats: F32, a: F32, b: F32) -> tuple[npt.NDArray[np.bool_], F32]:
    da = np.linalg.norm(feats - a, axis=-1)
    db = np.linalg.norm(feats - b, axis=-1)
    return da < db, (np.abs(da - db) / (da + db + 1e-3)).astype(np.float32)


def read_marks(cfg: VisionConfig, rectified: Image, *, gain: F32,
               dice_px: npt.ArrayLike = ()) -> MarksReading:
    """Read the jetons, fichets and pavillon of a rectified board.

    Args:
        cfg: the vision config.
        rectified: the rectified board, uint8 RGB.
        gain: the light gain of this frame (see :func:`~tablier.vision.checkers.light_gain`).
        dice_px: rectified pixel centres of dice; jeton places under a die read as empty.

    Returns:
        The reading.

    Raises:
        Nothing.
    """
    layout = cfg.layout
    prof = cfg.calibration.profile
    flat = rectified.reshape(-1, 3)
    dice = np.asarray(dice_px, np.float64).reshape(-1, 2)
    th = cfg.calibration.thresholds
    if len(dice):
        hidden = layout.jetons.near(dice, th.die_radius_mm * layout.scale)
        jf, share = layout.jetons.masked_means(flat, ~hidden)
    else:
        jf, share = layout.jetons.means(flat), np.ones(len(layout.jetons.index), np.float32)
    has_jeton, jconf = _nearer(jf * gain, np.array(prof.jeton, np.float32),
                               np.array(prof.jeton_empty, np.float32))
    covered = share < th.min_visible_share
    has_jeton &= ~covered
    # NOTE: there are always three jetons: one wholly under a die is counted there, taking
    # the places under dice in the order of the layout, until three are seen.
    for i in np.nonzero(covered)[0]:
        if has_jeton.sum() >= 3:
            break
        has_jeton[i] = True
        jconf[i] = 0.0
    rest = 0
    spots: dict[str, list[int]] = {"white": [], "black": []}
    for (who, spot, _), seen in zip(layout.jeton_keys, has_jeton):
        if not seen:
            continue
        if who == "rest":
            rest += 1
        else:
            spots[who].append(spot)
    hf = layout.holes.means(flat) * gain
    # NOTE: a small blurred peg head mixes with the rail; compare each hole with the empty
    # holes of this very frame (the median: at most four of 27 are filled).
    lum = hf.mean(axis=1)
    empty = float(np.median(lum))
    span = max(float(np.mean(prof.peg)) - empty, 20.0)
    score = (lum - empty) / span
    pegged = score > cfg.calibration.thresholds.peg_share
    hconf = np.clip(np.abs(score - cfg.calibration.thresholds.peg_share) * 2, 0, 1)
    ff = layout.flags.means(flat) * gain
    flagged, fconf = _nearer(ff, np.array(prof.pavillon, np.float32),
                             np.array(prof.flag_empty, np.float32))
    pegs: dict[str, list[int]] = {"white": [], "black": []}
    pavillon = "out"
    for (who, hole), peg, flag in zip(layout.hole_keys, pegged, flagged):
        if who == "pavillon":
            if flag:
                pavillon = "middle"
            continue
        if peg:
            pegs[who].append(hole)
            if flag and pavillon == "out":
                pavillon = who
    confidence = float(min(jconf.min(), hconf.min(), fconf.min()) * 2.0)
    return MarksReading(jetons_at_rest=rest, white_jetons=tuple(sorted(spots["white"])),
                        black_jetons=tuple(sorted(spots["black"])),
                        white_pegs=tuple(pegs["white"]), black_pegs=tuple(pegs["black"]),
                        pavillon=pavillon, confidence=min(1.0, confidence))


def marks_truth_reading(truth: dict[str, object]) -> MarksReading:
    """The reading a perfect reader would give for a renderer's ``marks`` truth.

    Args:
        truth: the ``marks`` entry of a rendered frame's truth.

    Returns:
        The expected reading.

    Raises:
        KeyError: if a field is missing.
    """
    t = truth
    def side(c: str) -> dict[str, object]:
        v = t[c]
        assert isinstance(v, dict)
        return v
    w, b = side(Color.WHITE.value), side(Color.BLACK.value)
    def jet(s: dict[str, object]) -> tuple[int, ...]:
        spot = int(s["token_spot"])  # type: ignore[call-overload]
        if spot == 0:
            return ()
        return (spot, spot) if s["bredouille_token"] else (spot,)
    return MarksReading(jetons_at_rest=int(t["jetons_at_rest"]),  # type: ignore[call-overload]
                        white_jetons=jet(w), black_jetons=jet(b),
                        white_pegs=(int(w["peg_hole"]),),  # type: ignore[call-overload]
                        black_pegs=(int(b["peg_hole"]),),  # type: ignore[call-overload]
                        pavillon=str(t["pavillon"]), confidence=1.0)
