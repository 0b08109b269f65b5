"""Legal plays for one throw, with every rule of movement and every obligation of the seeds.

Rules are computed for the player to move, in his own numbering (see ``docs/rules.md`` for each
rule and its source):

- each die moves one man, or one man moves by both (tout d'une) through an open rest field
  (an empty rest corner of either player may serve as the rest); a doublet is two numbers;
- a man never stops on a field the opponent holds, nor on the opponent's rest corner;
- the own rest corner is taken by two men at once, by effect or by power (par puissance: two
  men that could reach the opponent's empty corner go to one's own empty corner instead, only
  when it cannot be taken by effect), and its last two men leave together;
- return-run passage: no man enters a quarter the opponent can still fill;
- both numbers are played if possible, else the higher, else the lower;
- a quarter (petit jan, grand jan, jan de retour) is filled if possible and a filled one kept
  if possible;
- bearing off by the quick (Paris) method, or the provincial method as an option.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tablier.engine.base import Color, Dice, IllegalMoveError
from tablier.engine.position import Position

Own = tuple[int, ...]
"""The mover's men: index 1..24 = his fields, index 25 = borne off, index 0 unused."""
Opp = tuple[int, ...]
"""The opponent's men in the MOVER's numbering: index 1..24, index 0 unused."""
RawPlay = tuple[tuple[int, int], ...]
"""A play as ``((from, to), ...)`` in the mover's numbering, ``to`` 0 = borne off."""

# Quarters as index ranges of Own: petit jan 1-6, grand jan 7-12, jan de retour 19-24.
QUARTERS: tuple[tuple[int, int], ...] = ((1, 7), (7, 13), (19, 25))
PETIT, GRAND, RETOUR = 1, 2, 4
"""Bits of a filled-quarters mask, in the order of QUARTERS."""


class CheckerMove(NamedTuple):
    """One man moved, in the mover's own numbering (a tuple, so that plays hash and compare
    cheaply)."""

    from_field: int
    """The field he leaves, 1..24."""
    to_field: int
    """The field he reaches, 1..24, or 0 when he is borne off."""

    def __str__(self) -> str:
        return f"{self.from_field}-{self.to_field if self.to_field else 'off'}"


@dataclass(frozen=True)
class RuleOptions:
    """Rules that players agree on before a match."""

    provincial_bearing_off: bool = False
    """Bear off by the slow provincial method instead of the quick Paris method."""
    rencontre: bool = False
    """Score the obsolete jan de rencontre (needs ``opening_dice`` in :func:`jans`)."""
    margot: bool = False
    """Score the obsolete Margot la fendue (to the opponent)."""
    pile_de_misere: bool = False
    """Score the obsolete pile de misère."""

    @classmethod
    def with_obsolete_jans(cls, *, provincial_bearing_off: bool = False) -> RuleOptions:
        """All three obsolete jans switched on.

        Args:
            provincial_bearing_off: the bearing-off method.

        Returns:
            The options.

        Raises:
            Nothing.
        """
        return cls(provincial_bearing_off, True, True, True)


DEFAULT_OPTIONS = RuleOptions()


def mover_view(position: Position) -> tuple[Own, Opp]:
    """The position as the player to move sees it.

    Args:
        position: any position.

    Returns:
        ``(own, opp)``: his men (index 1..24, 25 = off) and the opponent's men on his fields.

    Raises:
        Nothing.
    """
    if position.to_move is Color.WHITE:
        return ((0,) + position.white + (position.off_white,), (0,) + position.black[::-1])
    return ((0,) + position.black + (position.off_black,), (0,) + position.white[::-1])


def result_position(position: Position, own: Own) -> Position:
    """The position after the mover's men became ``own``, the opponent to throw.

    Args:
        position: the position before the play.
        own: the mover's men after it (as :func:`mover_view`).

    Returns:
        The new position.

    Raises:
        Nothing.
    """
    if position.to_move is Color.WHITE:
        return Position._raw(own[1:25], position.black, Color.BLACK, own[25], position.off_black)
    return Position._raw(position.white, own[1:25], Color.WHITE, position.off_white, own[25])


def opponent_can_fill(opp: Opp) -> tuple[bool, bool]:
    """Whether the opponent can still fill his petit jan and his grand jan.

    Reading (docs/rules.md, "passage"): he can while he has at least 12 men on or before the
    quarter (his fields 1..6, resp. 1..12), since men never move backwards.

    Args:
        opp: the opponent's men in the mover's numbering.

    Returns:
        ``(petit, grand)``.

    Raises:
        Nothing.
    """
    return sum(opp[19:25]) >= 12, sum(opp[13:25]) >= 12


def filled_mask(own: Own, quarters: int = PETIT | GRAND | RETOUR) -> int:
    """Which quarters hold at least two men on each of their six fields.

    Args:
        own: the mover's men.
        quarters: the bits to look at.

    Returns:
        A mask of ``PETIT``, ``GRAND``, ``RETOUR``.

    Raises:
        Nothing.
    """
    mask = 0
    if quarters & PETIT and min(own[1:7]) >= 2:
        mask |= PETIT
    if quarters & GRAND and min(own[7:13]) >= 2:
        mask |= GRAND
    if quarters & RETOUR and min(own[19:25]) >= 2:
        mask |= RETOUR
    return mask


def generate(own: Own, opp: Opp, a: int, b: int, *,
             provincial: bool = False) -> tuple[int, dict[Own, RawPlay]]:
    """Every distinct legal result of a throw for the mover, obligations applied.

    Args:
        own: the mover's men (see :func:`mover_view`).
        opp: the opponent's men in the mover's numbering.
        a: one die.
        b: the other die.
        provincial: bear off by the provincial method.

    Returns:
        ``(dice_played, results)``: how many numbers the legal plays use (2, 1 or 0) and, for
        each resulting ``own``, one play that reaches it. With no playable number the only
        result is ``own`` itself with the empty play.

    Raises:
        Nothing.
    """
    can_petit, can_grand = opponent_can_fill(opp)
    # lands[s][t]: may a man from s stop on t (1..24) for good? Never on a field the opponent
    # holds nor on his corner; the passage rules close the quarters he can still fill.
    free = [False] + [not opp[t] for t in range(1, 25)]
    free[13] = False
    low = free[:]
    if can_petit:
        low[13:25] = [False] * 12
    elif can_grand:
        low[13:19] = [False] * 6
    mid = free[:]
    if can_petit:
        mid[19:25] = [False] * 6
    lands = [free] + [low] * 12 + [mid] * 6 + [free] * 6

    def land_ok(s: int, t: int) -> bool:
        return lands[s][t]

    def off_ok(cur: list[int] | Own, s: int, t: int) -> bool:
        # A man from s is borne off by a die reaching t >= 25.
        if any(cur[1:19]):
            return False
        if provincial:
            if t != 25:
                return False
            if cur[s] >= 3 and min(cur[19:25]) >= 2:
                return True  # privilege: a surcase of a filled jan de retour
            d = t - s
            for s2 in range(19, 25 - d):
                if cur[s2] and land_ok(s2, s2 + d):
                    return False  # the number can be played on the board first
            return True
        return t == 25 or not any(cur[19:s])

    results: dict[Own, RawPlay] = {}
    srcs = [s for s in range(1, 25) if own[s]]
    orders = ((a, b),) if a == b else ((a, b), (b, a))
    for d1, d2 in orders:
        for s1 in srcs:
            t1 = s1 + d1
            if t1 <= 24:
                rest = not opp[t1]
                fin = lands[s1][t1]
            else:
                rest = False
                fin = off_ok(own, s1, t1)
            if not (rest or fin):
                continue
            cur = list(own)
            cur[s1] -= 1
            if t1 <= 24:
                cur[t1] += 1
                m1 = (s1, t1)
                seconds = srcs if (own[t1] or not rest) else sorted((*srcs, t1))
            else:
                cur[25] += 1
                m1 = (s1, 0)
                seconds = srcs
            for s2 in seconds:
                if not cur[s2]:
                    continue
                t2 = s2 + d2
                if s2 == t1:
                    # the man who just arrived (tout d'une) or another man already there
                    if t2 <= 24:
                        ok = ((fin and own[t1] > 0 and lands[t1][t2])
                              or (rest and lands[s1][t2]))
                    else:
                        ok = (fin and own[t1] > 0 or rest) and off_ok(cur, t1, t2)
                elif not fin:
                    continue
                elif t2 <= 24:
                    ok = lands[s2][t2]
                else:
                    ok = off_ok(cur, s2, t2)
                if not ok:
                    continue
                t2i = t2 if t2 <= 24 else 25
                cur[s2] -= 1
                cur[t2i] += 1
                if cur[12] != 1:
                    key = tuple(cur)
                    if key not in results:
                        results[key] = (m1, (s2, t2 if t2 <= 24 else 0))
                cur[s2] += 1
                cur[t2i] -= 1
    # the rest corner by power (par puissance)
    if not own[12] and not opp[13]:
        if a != b:
            by_effect = own[12 - a] > 0 and own[12 - b] > 0
            by_power = 13 - a < 12 and 13 - b < 12 and own[13 - a] > 0 and own[13 - b] > 0
        else:
            by_effect = own[12 - a] >= 2
            by_power = a > 1 and own[13 - a] >= 2
        if by_power and not by_effect:
            cur = list(own)
            cur[13 - a] -= 1
            cur[13 - b] -= 1
            cur[12] = 2
            key = tuple(cur)
            if key not in results:
                results[key] = ((13 - a, 12), (13 - b, 12))
    used = 2
    if not results:
        used = 1
        for d in ((a,) if a == b else (max(a, b), min(a, b))):
            for s in srcs:
                t = s + d
                if not (land_ok(s, t) if t <= 24 else off_ok(own, s, t)):
                    continue
                cur = list(own)
                cur[s] -= 1
                cur[t if t <= 24 else 25] += 1
                if cur[12] != 1:
                    key = tuple(cur)
                    if key not in results:
                        results[key] = ((s, t if t <= 24 else 0),)
            if results:
                break
        if not results:
            return 0, {own: ()}
    # fill a quarter if possible, keep a filled one if possible
    watch = 0
    for bit, (lo, hi) in zip((PETIT, GRAND, RETOUR), QUARTERS):
        if sum(own[lo:hi]) >= 10:
            watch |= bit
    if watch and len(results) > 1:
        masks = {key: filled_mask(key, watch) for key in results}
        seen = set(masks.values())
        if len(seen) > 1:
            best = [m for m in seen if not any(o != m and o & m == m for o in seen)]
            results = {k: v for k, v in results.items() if masks[k] in best}
    return used, results


def _options(options: RuleOptions | None) -> RuleOptions:
    return DEFAULT_OPTIONS if options is None else options


def _dice(dice: Dice | tuple[int, int]) -> tuple[int, int]:
    if isinstance(dice, Dice):
        return dice.a, dice.b
    return Dice(*dice).a, Dice(*dice).b


def legal_positions(position: Position, dice: Dice | tuple[int, int], *,
                    options: RuleOptions | None = None) -> dict[Position, tuple[CheckerMove, ...]]:
    """Every distinct position the player to move may reach with this throw.

    Args:
        position: the position at the throw.
        dice: the throw.
        options: the agreed rules (default :class:`RuleOptions`).

    Returns:
        Each reachable position (the opponent to throw) with one play that reaches it. When no
        number can be played the only entry is the same men with the turn passed.

    Raises:
        InvalidNotationError: if ``dice`` is not a throw.

    >>> start = Position.start()
    >>> [[str(m) for m in play] for play in legal_positions(start, Dice(6, 5)).values()]
    [['1-7', '1-6']]
    """
    a, b = _dice(dice)
    opts = _options(options)
    own, opp = mover_view(position)
    _, results = generate(own, opp, a, b, provincial=opts.provincial_bearing_off)
    return {result_position(position, key): tuple(CheckerMove(f, t) for f, t in play)
            for key, play in results.items()}


def legal_moves(position: Position, dice: Dice | tuple[int, int], *,
                options: RuleOptions | None = None) -> Iterator[tuple[CheckerMove, ...]]:
    """The legal plays of the player to move, one per distinct resulting position.

    Args:
        position: the position at the throw.
        dice: the throw.
        options: the agreed rules.

    Yields:
        Plays as tuples of :class:`CheckerMove` in the mover's own numbering; the empty play
        when no number can be played.

    Raises:
        InvalidNotationError: if ``dice`` is not a throw.

    >>> len(list(legal_moves(Position.start(), Dice(3, 3))))
    2
    """
    a, b = _dice(dice)
    opts = _options(options)
    own, opp = mover_view(position)
    _, results = generate(own, opp, a, b, provincial=opts.provincial_bearing_off)
    for play in results.values():
        yield tuple(CheckerMove(f, t) for f, t in play)


def apply_play(position: Position, play: Sequence[tuple[int, int]], *,
               dice: Dice | None = None, options: RuleOptions | None = None) -> Position:
    """Apply a play (see :meth:`Position.apply`).

    Args:
        position: the position at the throw.
        play: ``(from_field, to_field)`` pairs in the mover's numbering, 0 = borne off.
        dice: a :class:`Dice` to check every rule, or None to check only the board.
        options: the :class:`RuleOptions` used with ``dice``.

    Returns:
        The position after the play, the opponent to throw.

    Raises:
        IllegalMoveError: if the play is not legal.
    """
    own, opp = mover_view(position)
    cur = list(own)
    for move in play:
        try:
            f, t = move
        except (TypeError, ValueError):
            raise IllegalMoveError(f"not a move (from, to): {move!r} in {position!r}") from None
        if not (isinstance(f, int) and isinstance(t, int) and 1 <= f <= 24 and 0 <= t <= 24):
            raise IllegalMoveError(f"fields are 1..24 (to 0 = off): {move!r} in {position!r}")
        if not cur[f]:
            raise IllegalMoveError(f"no man of the mover on field {f}: {move!r} in "
                                   f"{position!r}")
        if t and t <= f:
            raise IllegalMoveError(f"men move forward only: {move!r} in {position!r}")
        if t and opp[t]:
            raise IllegalMoveError(f"field {t} is held by the opponent: {move!r} in "
                                   f"{position!r}")
        cur[f] -= 1
        cur[t if t else 25] += 1
    key = tuple(cur)
    if dice is not None:
        if not isinstance(dice, Dice):
            raise IllegalMoveError(f"dice must be a Dice, not {dice!r}")
        opts = DEFAULT_OPTIONS if options is None else options
        _, results = generate(own, opp, dice.a, dice.b, provincial=opts.provincial_bearing_off)
        if key not in results:
            shown = ", ".join(f"{f}-{t or 'off'}" for f, t in play) or "no move"
            raise IllegalMoveError(f"{shown} is not a legal play of {dice} in {position!r}")
    return result_position(position, key)


def random_position(rng: random.Random, throws: int, *,
                    options: RuleOptions | None = None) -> Position:
    """A position reached from the start by random legal plays (for tests, renders, benches).

    The first player is drawn at random; play stops early, before the throw that would bear
    off a player's last man (so the result is always a position still in play).

    Args:
        rng: the source of randomness (seeded by the caller).
        throws: how many throws to play.
        options: the agreed rules.

    Returns:
        The position, possible in a real game.

    Raises:
        Nothing.

    >>> random_position(random.Random(1), 0) in (Position.start(), Position.start().mirror())
    True
    """
    opts = _options(options)
    position = Position.start(to_move=Color.WHITE if rng.random() < 0.5 else Color.BLACK)
    for _ in range(throws):
        own, opp = mover_view(position)
        dice = Dice.roll(rng)
        _, results = generate(own, opp, dice.a, dice.b, provincial=opts.provincial_bearing_off)
        keys = list(results)
        key = keys[rng.randrange(len(keys))]
        if not any(key[1:25]):
            break
        position = result_position(position, key)
    return position


__all__ = ["DEFAULT_OPTIONS", "CheckerMove", "RuleOptions", "apply_play", "filled_mask",
           "generate", "legal_moves", "legal_positions", "mover_view", "opponent_can_fill",
           "random_position", "result_position"]
