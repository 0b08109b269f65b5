"""One player's score as the board shows it: points on the jeton, holes on the fichet.

The score-keeping rules (holes, bredouille, pavillon, tenir / s'en aller) build on this type.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from tablier.engine.base import HOLES_PER_MATCH, POINTS_PER_HOLE, Color, EngineError

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
    """True while his points in this hole are uninterrupted (he would win the hole double). At
    0 points it is True: his next points start a fresh run."""

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
        his opponent has points too (with the opponent at zero one jeton says it all). Seeds
        (Bredouille): "In this case the first player's jeton will not be at the start, so to
        note that the second player is now 'on lurch', a second jeton, the 'bredouille', is
        placed alongside the first."

        The scores should be those of one match (:attr:`MatchScore.white` and ``.black``): there
        is one bredouille jeton, and once both players have points only the second to mark can
        be in bredouille. Two hand-made scores that both claim it (``Score(8, 3)`` and
        ``Score(2, 1)``: ``bredouille`` defaults to True) would show two bredouille jetons; this
        function does not guess which is right.

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


class WinningsScheme(enum.Enum):
    """How the winner of a match is paid, in stakes (the three schemes of the seeds)."""

    OLDEST = "oldest"
    """1 stake; a grande bredouille pays 2."""
    BRIDGE = "bridge"
    """1 stake if the loser has crossed the bridge (reached the 7th hole), else 1½; a grande
    bredouille pays 2."""
    SIXTH_HOLE = "sixth_hole"
    """1 stake if the loser reached the 6th hole, else 2; a grande bredouille pays 3 with the
    pavillon (the winner was second to win a hole) and 4 without it (the loser never won one)."""


@dataclass(frozen=True)
class MatchScore:
    """Both players' scores, the pavillon and the winner: the whole score of a match.

    Immutable: :meth:`mark` and the other verbs return a new value. This is the pure score
    keeping; :class:`tablier.engine.match.Game` drives it from the events of a match.
    """

    white: Score = Score()
    """White's points, holes and bredouille."""
    black: Score = Score()
    """Black's."""
    pavillon: Pavillon = Pavillon.MIDDLE
    """Where the pavillon stands."""
    winner: Color | None = None
    """The player who reached the 12th hole, once the match is over."""

    def __getitem__(self, color: Color) -> Score:
        return self.white if color is Color.WHITE else self.black

    def _with(self, color: Color, score: Score) -> MatchScore:
        if color is Color.WHITE:
            return replace(self, white=score)
        return replace(self, black=score)

    def mark(self, color: Color, points: int) -> tuple[MatchScore, tuple[bool, ...]]:
        """Mark ``points`` for ``color``: holes, bredouille, erasing and the pavillon.

        Twelve points make a hole and the remainder is kept. The hole counts double when the
        player's points in it are uninterrupted (bredouille). Every hole erases the opponent's
        points, so the remainder starts a fresh, uninterrupted run: the later holes of one big
        gain are double. Marking while the opponent has points interrupts the opponent's run.

        Args:
            color: who marks.
            points: the points marked, even and >= 0.

        Returns:
            The new score and, for each hole won, whether it was won bredouille (2 holes).

        Raises:
            ScoreError: if ``points`` is odd, negative or not an int, or the match is over.

        >>> s, holes = MatchScore(white=Score(10, 0, False)).mark(Color.WHITE, 6)
        >>> s.white, holes
        (Score(points=4, holes=1, bredouille=True), (False,))
        """
        if isinstance(points, bool) or not isinstance(points, int) or points < 0 or points % 2:
            raise ScoreError(f"points are marked in twos: {points!r} is not even and >= 0")
        if self.winner is not None:
            raise ScoreError(f"the match is over: {self.winner.value} won")
        if points == 0:
            return self, ()
        me, other = self[color], self[color.other()]
        pavillon = self.pavillon
        if other.points > 0:
            other = replace(other, bredouille=False)
        total, double, holes = me.points + points, me.bredouille or me.points == 0, me.holes
        won: list[bool] = []
        winner: Color | None = None
        while total >= POINTS_PER_HOLE:
            total -= POINTS_PER_HOLE
            if holes == 0 and other.holes > 0 and pavillon is Pavillon.MIDDLE:
                pavillon = Pavillon(color.value)
            elif pavillon.value == color.other().value:
                pavillon = Pavillon.OUT
            holes = min(HOLES_PER_MATCH, holes + (2 if double else 1))
            won.append(double)
            other = Score(0, other.holes, True)
            double = True
            if holes == HOLES_PER_MATCH:
                winner, total = color, 0  # the match is over: the jeton goes home
                break
        mine = Score(total, holes, double if total else True)
        new = self._with(color, mine)._with(color.other(), other)
        return replace(new, pavillon=pavillon, winner=winner), tuple(won)

    def drop_points(self) -> MatchScore:
        """Both players lose their points (s'en aller); holes and pavillon stay.

        Returns:
            The new score.

        Raises:
            Nothing.
        """
        return replace(self, white=Score(0, self.white.holes, True),
                       black=Score(0, self.black.holes, True))

    def retract(self, color: Color, points: int) -> MatchScore:
        """Take ``points`` back off ``color``'s jeton (a school's correction).

        Args:
            color: whose jeton moves back.
            points: even, at most what his jeton shows.

        Returns:
            The new score; the player's run is unchanged.

        Raises:
            ScoreError: if ``points`` is odd, negative or more than the jeton shows (the
                points to take back were carried into a hole).
        """
        me = self[color]
        if isinstance(points, bool) or not isinstance(points, int) or points < 0 or points % 2:
            raise ScoreError(f"points are taken back in twos: {points!r} is not even and >= 0")
        if points > me.points:
            raise ScoreError(f"cannot take {points} points back from {color.value}: the jeton "
                             f"shows {me.points} (the rest went into a hole)")
        left = me.points - points
        return self._with(color, Score(left, me.holes, me.bredouille if left else True))

    @property
    def grande_bredouille(self) -> bool:
        """True when the winner won the match without the loser winning a hole since his first
        (pavillon in the middle or carried by the winner)."""
        if self.winner is None:
            return False
        return self.pavillon in (Pavillon.MIDDLE, Pavillon(self.winner.value))

    def winnings(self, scheme: WinningsScheme = WinningsScheme.SIXTH_HOLE) -> Fraction:
        """The winner's winnings in stakes under ``scheme``.

        Args:
            scheme: one of the three schemes of the seeds.

        Returns:
            The multiple of the stake; 0 while the match is not over.

        Raises:
            Nothing.

        >>> done = MatchScore(white=Score(0, 12), black=Score(0, 3), winner=Color.WHITE,
        ...                   pavillon=Pavillon.OUT)
        >>> [str(done.winnings(s)) for s in WinningsScheme]
        ['1', '3/2', '2']
        """
        if self.winner is None:
            return Fraction(0)
        loser = self[self.winner.other()]
        if self.grande_bredouille:
            if scheme is WinningsScheme.SIXTH_HOLE:
                return Fraction(4 if self.pavillon is Pavillon.MIDDLE else 3)
            return Fraction(2)
        if scheme is WinningsScheme.BRIDGE:
            return Fraction(1) if loser.holes >= 7 else Fraction(3, 2)
        if scheme is WinningsScheme.SIXTH_HOLE:
            return Fraction(1) if loser.holes >= 6 else Fraction(2)
        return Fraction(1)

    def marks(self) -> Marks:
        """Where every marker belongs for this score.

        Returns:
            The markers, as the LEDs and pegs show them.

        Raises:
            Nothing.
        """
        return Marks.from_scores(self.white, self.black, self.pavillon)

    def mirror(self) -> MatchScore:
        """The same score with the players' colours swapped.

        Returns:
            The mirrored score.

        Raises:
            Nothing.
        """
        swap = {Pavillon.WHITE: Pavillon.BLACK, Pavillon.BLACK: Pavillon.WHITE}
        return MatchScore(white=self.black, black=self.white,
                          pavillon=swap.get(self.pavillon, self.pavillon),
                          winner=None if self.winner is None else self.winner.other())

    def to_json(self) -> dict[str, Any]:
        """The answer of ``tablier marks --json`` (design.md).

        ``bredouille`` is true only while the player has points and they are uninterrupted.

        Returns:
            ``{"white": {"holes", "points", "bredouille"}, "black": {...}, "pavillon",
            "winner"}``.

        Raises:
            Nothing.

        >>> MatchScore().to_json()["white"]
        {'holes': 0, 'points': 0, 'bredouille': False}
        """
        def one(s: Score) -> dict[str, Any]:
            return {"holes": s.holes, "points": s.points,
                    "bredouille": s.points > 0 and s.bredouille}

        return {"white": one(self.white), "black": one(self.black),
                "pavillon": self.pavillon.value,
                "winner": None if self.winner is None else self.winner.value}
