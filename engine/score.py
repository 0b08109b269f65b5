"""One player's score as the board shows it: points on the jeton, holes on the fichet.

The score-keeping rules (holes, bredouille, pavillon, tenir / s'en aller) build on this type.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tablier.engine.base import HOLES_PER_MATCH, POINTS_PER_HOLE, EngineError

# Jeton spot on the player's own side for each even point count (design.md): 0 = by the talons
# on the end rail, 2/4/6 = fields 2/4/6, 8 = field 7 (across the bar), 10 = field 12.
TOKEN_SPOTS: dict[int, int] = {0: 0, 2: 2, 4: 4, 6: 6, 8: 7, 10: 12}


class ScoreError(EngineError, ValueError):
    """A score or a gain is out of range (odd points, negative gains, ...)."""


class Pavillon(enum.Enum):
    """Where the pavillon (grande bredouille flag) stands."""

    MIDDLE = "middle"
    """Between the two fichets: nobody has won a hole yet."""
    WHITE = "white"
    """White carries it: he may still win the match grande bredouille."""
    BLACK = "black"
    """Black carries it."""
    OUT = "out"
    """Laid beside the board: nobody can win grande bredouille any more."""


@dataclass(frozen=True)
class Score:
    """One player's score between throws."""

    points: int = 0
    """Points on the jeton: even, 0..10."""
    holes: int = 0
    """Holes on the fichet, 0..12."""
    bredouille: bool = True
    """True while his points in this hole are uninterrupted (he would win the hole double)."""

    def __post_init__(self) -> None:
        if not (isinstance(self.points, int) and 0 <= self.points < POINTS_PER_HOLE
                and self.points % 2 == 0):
            raise ScoreError(f"points must be even and 0..10, not {self.points!r}")
        if not (isinstance(self.holes, int) and 0 <= self.holes <= HOLES_PER_MATCH):
            raise ScoreError(f"holes must be 0..{HOLES_PER_MATCH}, not {self.holes!r}")

    @property
    def token_spot(self) -> int:
        """The field (own side) where the jeton stands; 0 = by the talons."""
        return TOKEN_SPOTS[self.points]


@dataclass(frozen=True)
class PlayerMarks:
    """Where one player's markers belong on the board (what the LEDs and pegs show)."""

    token_spot: int
    """Field (own side) of his jeton: 0 (by the talons), 2, 4, 6, 7 or 12."""
    bredouille_token: bool
    """True when the bredouille jeton stands beside his jeton."""
    peg_hole: int
    """The hole of his fichet, 0 (start) .. 12."""
    pavillon: bool
    """True when he carries the pavillon."""


@dataclass(frozen=True)
class Marks:
    """The target state of every marker on the board, for both players."""

    white: PlayerMarks
    """White's jeton, bredouille jeton, fichet and pavillon."""
    black: PlayerMarks
    """Black's."""
    pavillon: Pavillon
    """Where the pavillon stands."""

    @classmethod
    def from_scores(cls, white: Score, black: Score,
                    pavillon: Pavillon = Pavillon.MIDDLE) -> Marks:
        """Derive the markers from both scores.

        The bredouille jeton is out beside a player's jeton when he is still in bredouille while
        his opponent has points too (with the opponent at zero one jeton says it all).

        Args:
            white: White's score.
            black: Black's score.
            pavillon: where the pavillon stands.

        Returns:
            The markers.

        Raises:
            Nothing.

        >>> m = Marks.from_scores(Score(4, 1, False), Score(2, 0, True))
        >>> m.white.token_spot, m.black.bredouille_token, m.white.peg_hole
        (4, True, 1)
        """
        def one(me: Score, other: Score, carries: bool) -> PlayerMarks:
            return PlayerMarks(
                token_spot=me.token_spot,
                bredouille_token=me.bredouille and me.points > 0 and other.points > 0,
                peg_hole=me.holes,
                pavillon=carries,
            )

        return cls(
            white=one(white, black, pavillon is Pavillon.WHITE),
            black=one(black, white, pavillon is Pavillon.BLACK),
            pavillon=pavillon,
        )
