"""Schools (écoles): the verdict on what a player marked against what he was owed.

The verdict is worked out from plain facts, so it does not depend on how the jans were found:
what was owed on the throw (objects with ``jan``, ``player`` and ``points``, such as the rules
engine's ``JanScore`` or :class:`tablier.engine.match.JanOwed`), what the player marked, and the
filling or preserving jans he was owed but did not carry out in his play.

The seeds' rules ("Schools", "Filling jans", "False hit"):

- **underscoring** (école par moins): he marked less than owed; the opponent marks the
  difference;
- **overscoring** (école par trop): he marked more; the opponent marks the excess and it comes
  back off the offender's jeton (he "loses points corresponding to the difference");
- **not filling / not preserving when able**: a false move (fausse case) as well; the opponent
  marks the points of the jan instead of the player (taken back off his jeton if he marked
  them);
- **false school**: a wrong claim; the claimant's improper points come back off his jeton, the
  accused's jeton is put back and he marks the same points for the false school;
- **school raise**: the first claim proved right after a "false school": the jetons go back to
  the first school and its points are doubled;
- **no school of schools**: a school is never compulsory; letting one go is no fault.

>>> from tablier.engine.match import JanOwed
>>> v = judge([JanOwed("true_hit_petit_jan", Color.WHITE, 4)], player=Color.WHITE, marked=2)
>>> v.kinds, v.points, v.retract
((<SchoolKind.UNDER: 'under'>,), 2, 0)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tablier.engine.base import Color
from tablier.engine.jans import Jan
from tablier.engine.match import School
from tablier.engine.position import Position
from tablier.engine.score import ScoreError

__all__ = ["JanLike", "SchoolKind", "Verdict", "broken_obligations", "false_school", "judge",
           "school_raise"]

# The quarter each filling / keeping jan is about, in the mover's own numbering (range bounds).
_QUARTER: dict[Jan, range] = {
    Jan.FILL_PETIT_JAN: range(1, 7), Jan.KEEP_PETIT_JAN: range(1, 7),
    Jan.FILL_GRAND_JAN: range(7, 13), Jan.KEEP_GRAND_JAN: range(7, 13),
    Jan.FILL_JAN_DE_RETOUR: range(19, 25), Jan.KEEP_JAN_DE_RETOUR: range(19, 25),
}
_FILLS = (Jan.FILL_PETIT_JAN, Jan.FILL_GRAND_JAN, Jan.FILL_JAN_DE_RETOUR)


class JanLike(Protocol):
    """Anything that says which jan, to whom, for how many points (``JanScore``, ``JanOwed``)."""

    @property
    def jan(self) -> Any:
        """The jan (an enum member or its name)."""

    @property
    def player(self) -> Color:
        """Who is owed the points."""

    @property
    def points(self) -> int:
        """How many."""


class SchoolKind(enum.Enum):
    """The four basic cases of the seeds."""

    UNDER = "under"
    """Marked fewer points than owed (école par moins)."""
    OVER = "over"
    """Marked more points than owed (école par trop)."""
    FILL = "fill"
    """Did not fill a quarter when able."""
    PRESERVE = "preserve"
    """Did not preserve a full quarter when able."""


def jan_name(jan: JanLike) -> str:
    """The jan's name as text (an enum's value, or the string itself).

    Args:
        jan: a jan owed.

    Returns:
        Its name.

    Raises:
        Nothing.
    """
    value = getattr(jan.jan, "value", jan.jan)
    return str(value)


@dataclass(frozen=True)
class Verdict:
    """What a player's marks on one throw earn his opponent."""

    player: Color
    """The player whose marks are judged."""
    owed: int
    """Points owed to him on the throw (every jan of his, filling and preserving included)."""
    entitled: int
    """What he may keep: ``owed`` less the jans he forfeited by not filling or preserving."""
    marked: int
    """What he marked."""
    kinds: tuple[SchoolKind, ...]
    """The schools he committed; empty when he marked right."""
    points: int
    """Points his opponent may mark for the school."""
    retract: int
    """Points that come back off his jeton."""
    false_move: bool
    """True when he also made a false move (did not fill or preserve when able); the opponent
    may leave the men or make him replay."""
    reasons: tuple[str, ...]
    """One sentence per finding, for people."""

    @property
    def is_school(self) -> bool:
        """True when the opponent may send him to school."""
        return bool(self.kinds)

    def to_event(self) -> School | None:
        """The school as a match event, or None when there is none.

        Returns:
            ``School(by=opponent, points, retract, reason)`` with the first kind as the reason.

        Raises:
            Nothing.
        """
        if not self.kinds:
            return None
        return School(self.player.other(), self.points, self.retract, self.kinds[0].value)

    def to_json(self) -> dict[str, Any]:
        """The verdict as plain JSON (``tablier school --json``).

        Returns:
            ``{"player", "owed", "entitled", "marked", "school", "kinds", "points",
            "retract", "to", "false_move", "reasons"}``.

        Raises:
            Nothing.
        """
        return {"player": self.player.value, "owed": self.owed, "entitled": self.entitled,
                "marked": self.marked, "school": self.is_school,
                "kinds": [k.value for k in self.kinds], "points": self.points,
                "retract": self.retract, "to": self.player.other().value,
                "false_move": self.false_move, "reasons": list(self.reasons)}


def judge(owed: Sequence[JanLike], *, player: Color, marked: int,
          not_filled: Sequence[JanLike] = (), not_preserved: Sequence[JanLike] = ()) -> Verdict:
    """Judge what ``player`` marked on one throw.

    ``owed`` holds every jan of the throw (both players'); only ``player``'s count. The
    filling and preserving jans he was owed but did not carry out in his play are forfeited:
    his opponent marks them instead (and they come back off his jeton if he marked them).

    Args:
        owed: the jans owed on the throw.
        player: whose marks are judged.
        marked: the points he marked (even, >= 0).
        not_filled: his filling jans (among ``owed``) that his play did not make.
        not_preserved: his preserving jans (among ``owed``) that his play broke.

    Returns:
        The verdict.

    Raises:
        ScoreError: if ``marked`` is odd or negative, or a forfeited jan is not his, not
            among the jans owed, not a filling (keeping) jan of the engine in ``not_filled``
            (``not_preserved``), or forfeited twice.

    >>> from tablier.engine.match import JanOwed
    >>> full = JanOwed("preserve_grand_jan", Color.BLACK, 4)
    >>> v = judge([full], player=Color.BLACK, marked=4, not_preserved=[full])
    >>> v.kinds, v.points, v.retract, v.false_move
    ((<SchoolKind.PRESERVE: 'preserve'>,), 4, 4, True)
    """
    if isinstance(marked, bool) or not isinstance(marked, int) or marked < 0 or marked % 2:
        raise ScoreError(f"marked points go in twos: {marked!r} is not even and >= 0")
    mine = [j for j in owed if j.player is player]
    total = sum(j.points for j in mine)
    forfeits: list[tuple[SchoolKind, JanLike]] = []
    lists = ((SchoolKind.FILL, "not_filled", not_filled),
             (SchoolKind.PRESERVE, "not_preserved", not_preserved))
    for kind, field, jans in lists:
        for jan in jans:
            if jan.player is not player or not any(_same(jan, j) for j in mine):
                raise ScoreError(f"{field}: {jan_name(jan)!r} is not a jan owed to "
                                 f"{player.value} on this throw")
            other_kind = _kind_of(jan)
            if other_kind is not None and other_kind is not kind:
                want = "filling" if kind is SchoolKind.FILL else "keeping"
                raise ScoreError(f"{field}: {jan_name(jan)!r} is not a {want} jan")
            if any(_same(jan, f) for _, f in forfeits):
                raise ScoreError(f"{field}: {jan_name(jan)!r} is forfeited twice")
            forfeits.append((kind, jan))
    forfeited = sum(j.points for _, j in forfeits)
    entitled = total - forfeited
    kinds: list[SchoolKind] = []
    reasons: list[str] = []
    who, other = player.value, player.other().value
    for kind, jan in forfeits:
        verb = "fill" if kind is SchoolKind.FILL else "preserve"
        kinds.append(kind)
        reasons.append(f"{who} could {verb} ({jan_name(jan)}, {jan.points} points) and did "
                       f"not: a false move, and {other} marks those {jan.points} points "
                       f"instead of him")
    short = max(0, entitled - marked)
    excess = max(0, marked - total)
    if short:
        kinds.append(SchoolKind.UNDER)
        reasons.append(f"{who} marked {marked} of the {entitled} points he was owed: {other} "
                       f"marks the {short} he left")
    if excess:
        kinds.append(SchoolKind.OVER)
        reasons.append(f"{who} marked {marked} where {total} were owed: the {excess} too many "
                       f"come off his jeton and {other} marks them")
    retract = max(0, marked - entitled)
    if forfeits and retract > excess:
        reasons.append(f"the {retract - excess} points he marked for the jan he broke come off "
                       f"his jeton")
    points = forfeited + short + excess
    if not kinds:
        reasons.append(f"{who} marked {marked}, exactly what he was owed: no school")
    else:
        reasons.append(f"{other} may claim it or let it go (there is no school of schools)")
    return Verdict(player=player, owed=total, entitled=entitled, marked=marked,
                   kinds=tuple(kinds), points=points, retract=retract,
                   false_move=bool(forfeits), reasons=tuple(reasons))


def _kind_of(jan: JanLike) -> SchoolKind | None:
    """FILL for a filling jan, PRESERVE for a keeping one, None for an unknown name; any
    other jan of the engine (a hit, a rare jan...) can be neither."""
    try:
        known = Jan(jan_name(jan))
    except ValueError:
        return None
    if known in _FILLS:
        return SchoolKind.FILL
    if known in _QUARTER:
        return SchoolKind.PRESERVE
    return SchoolKind.UNDER  # neither: never a forfeit


def _same(a: JanLike, b: JanLike) -> bool:
    return jan_name(a) == jan_name(b) and a.player is b.player


def false_school(claim: School) -> School:
    """The answer to a wrong claim: the accused sends the claimant to school.

    The claimant's improper points come back off his jeton, the accused's jeton is put back
    (what the claim took off him) and he marks the same points for the false school.

    Args:
        claim: the school that was wrongly claimed.

    Returns:
        The false school, scored by the accused.

    Raises:
        Nothing.

    >>> false_school(School(Color.WHITE, 4, 2, "over"))
    School(by=<Color.BLACK: 'black'>, points=6, retract=4, reason='false_school')
    """
    return School(claim.by.other(), claim.points + claim.retract, claim.points, "false_school")


def school_raise(claim: School) -> School:
    """The school raise: the first claim was right after all.

    The jetons go back to the state of the first school and its points are doubled; the
    claimant must say why (if wrong again, :func:`false_school` applies one last time).

    Args:
        claim: the first school, that was answered with a false school.

    Returns:
        The raise, scored by the first claimant.

    Raises:
        Nothing.

    >>> school_raise(School(Color.WHITE, 4, 2, "over"))
    School(by=<Color.WHITE: 'white'>, points=8, retract=6, reason='raise')
    """
    answered = false_school(claim)
    return School(claim.by, 2 * claim.points, answered.points, "raise")


def broken_obligations(position: Position, play: Sequence[tuple[int, int]],
                       owed: Sequence[JanLike]) -> tuple[tuple[JanLike, ...],
                                                         tuple[JanLike, ...]]:
    """The filling and keeping jans owed to the mover that his play did not carry out.

    A filling (keeping) jan is owed when the throw can fill (keep) the quarter; the play
    carries it out when the quarter is full after it.

    Args:
        position: the position at the throw (the mover to move).
        play: his moves, ``(from, to)`` in his own numbering (0 = borne off); checked against
            the board only, so a false move can be judged.
        owed: the jans of the throw (the engine's ``jans()``).

    Returns:
        ``(not_filled, not_preserved)``.

    Raises:
        IllegalMoveError: if a move is impossible on the board (no man there, a field held by
            the opponent, backwards).
    """
    mover = position.to_move
    men = position.apply(tuple(play)).men(mover)
    not_filled: list[JanLike] = []
    not_preserved: list[JanLike] = []
    for jan in owed:
        kind = jan.jan if isinstance(jan.jan, Jan) else Jan(jan_name(jan))
        if jan.player is not mover or kind not in _QUARTER:
            continue
        if all(men.get(f, 0) >= 2 for f in _QUARTER[kind]):
            continue
        (not_filled if kind in _FILLS else not_preserved).append(jan)
    return tuple(not_filled), tuple(not_preserved)
