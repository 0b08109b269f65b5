"""Jans: every way a throw scores, for whom, how many points and in how many ways.

Jans are judged on the position at the throw, for the player to move; the play he then makes
matters only through the obligations (a quarter that must be filled or kept, numbers that
cannot be played). Each :class:`JanScore` names its scorer: false hits, contre-jans, helpless
men and Margot la fendue score for the opponent. ``docs/rules.md`` gives every rule with its
source and the readings chosen where the seeds are silent.

>>> from tablier.engine.base import Dice
>>> from tablier.engine.position import Position
>>> p = Position.from_notation("1x13,3,5/1x14,16 w")
>>> [(j.jan.value, j.player.value, j.points, j.ways) for j in jans(p, Dice(6, 4))]
[('true_hit_grand_jan', 'white', 4, 2)]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from tablier.engine.base import Color, Dice, InvalidNotationError
from tablier.engine.moves import (
    DEFAULT_OPTIONS,
    GRAND,
    PETIT,
    QUARTERS,
    RETOUR,
    Opp,
    Own,
    RuleOptions,
    filled_mask,
    generate,
    mover_view,
    opponent_can_fill,
)
from tablier.engine.position import Position


class Jan(enum.Enum):
    """Every way of scoring on a throw; the value is the stable identifier of the JSON answer.

    Points per way come from one table, :data:`JAN_POINTS`.
    """

    SIX_TABLES = "six_tables"
    """Jan de six tables (jan de trois coups): on the third throw, one man on each of 2..7."""
    DEUX_TABLES = "deux_tables"
    """Jan de deux tables: two men out, the throw reaches both corners (opponent's empty)."""
    CONTRE_DEUX_TABLES = "contre_deux_tables"
    """Contre-jan de deux tables: the same with the opponent's corner taken; to the opponent."""
    MEZEAS = "mezeas"
    """Jan de mézéas: only the two corner men out, opponent's corner empty, an ace thrown."""
    CONTRE_MEZEAS = "contre_mezeas"
    """Contre-jan de mézéas: the same with the opponent's corner taken; to the opponent."""
    FILL_PETIT_JAN = "fill_petit_jan"
    """Filling the petit jan (fields 1..6), per way."""
    FILL_GRAND_JAN = "fill_grand_jan"
    """Filling the grand jan (fields 7..12), per way."""
    FILL_JAN_DE_RETOUR = "fill_jan_de_retour"
    """Filling the jan de retour (fields 19..24), per way."""
    KEEP_PETIT_JAN = "keep_petit_jan"
    """Keeping a filled petit jan (also by helplessness)."""
    KEEP_GRAND_JAN = "keep_grand_jan"
    """Keeping a filled grand jan (also by helplessness)."""
    KEEP_JAN_DE_RETOUR = "keep_jan_de_retour"
    """Keeping a filled jan de retour (also by helplessness or by bearing off)."""
    TRUE_HIT_PETIT_JAN = "true_hit_petit_jan"
    """True hits on lone men in a petit-jan table (fields 1..6 or 19..24), per way."""
    TRUE_HIT_GRAND_JAN = "true_hit_grand_jan"
    """True hits on lone men in a grand-jan table (fields 7..18), per way."""
    HIT_CORNER = "hit_corner"
    """Hitting the opponent's empty corner from one's own taken corner."""
    FIRST_OFF = "first_off"
    """Being first to bear off all fifteen men."""
    PILE_DE_MISERE = "pile_de_misere"
    """Obsolete: fifteen men on one's own corner (option)."""
    RENCONTRE = "rencontre"
    """Obsolete: the second player's first throw equals the first player's (option)."""
    FALSE_HIT_PETIT_JAN = "false_hit_petit_jan"
    """False hits on lone men in a petit-jan table; to the opponent."""
    FALSE_HIT_GRAND_JAN = "false_hit_grand_jan"
    """False hits on lone men in a grand-jan table; to the opponent."""
    HELPLESS_MAN = "helpless_man"
    """A number that cannot be played (dame impuissante); 2 points each to the opponent."""
    MARGOT = "margot"
    """Obsolete: Margot la fendue, a lone man between two lone opposing men; to the opponent
    (option)."""

    @property
    def to_opponent(self) -> bool:
        """True when the points go to the opponent of the player who threw."""
        return self in _TO_OPPONENT

    def points_per_way(self, doublet: bool) -> int:
        """Points for one way of this jan.

        Args:
            doublet: whether the throw is a doublet.

        Returns:
            The points (from :data:`JAN_POINTS`).

        Raises:
            Nothing.

        >>> Jan.TRUE_HIT_PETIT_JAN.points_per_way(True)
        6
        """
        single, double = JAN_POINTS[self]
        return double if doublet else single

    @classmethod
    def parse(cls, text: str) -> Jan:
        """The jan named by its identifier.

        Args:
            text: e.g. ``"true_hit_petit_jan"``.

        Returns:
            The jan.

        Raises:
            InvalidNotationError: if no jan has that identifier.
        """
        try:
            return cls(text)
        except ValueError:
            raise InvalidNotationError(f"not a jan identifier: {text!r}") from None


JAN_POINTS: dict[Jan, tuple[int, int]] = {
    # jan: (points per way by a singleton, by a doublet); source: the Lalanne table in the
    # seeds (Wikipedia "Scoring summary table"), obsolete jans from their own sections.
    Jan.SIX_TABLES: (4, 4),  # a doublet cannot make it (n/a in the table)
    Jan.DEUX_TABLES: (4, 6),
    Jan.CONTRE_DEUX_TABLES: (4, 6),
    Jan.MEZEAS: (4, 6),
    Jan.CONTRE_MEZEAS: (4, 6),
    Jan.FILL_PETIT_JAN: (4, 6),
    Jan.FILL_GRAND_JAN: (4, 6),
    Jan.FILL_JAN_DE_RETOUR: (4, 6),
    Jan.KEEP_PETIT_JAN: (4, 6),
    Jan.KEEP_GRAND_JAN: (4, 6),
    Jan.KEEP_JAN_DE_RETOUR: (4, 6),
    Jan.TRUE_HIT_PETIT_JAN: (4, 6),
    Jan.TRUE_HIT_GRAND_JAN: (2, 4),
    Jan.HIT_CORNER: (4, 6),
    Jan.FIRST_OFF: (4, 6),
    Jan.PILE_DE_MISERE: (4, 6),
    Jan.RENCONTRE: (4, 6),
    Jan.FALSE_HIT_PETIT_JAN: (4, 6),
    Jan.FALSE_HIT_GRAND_JAN: (2, 4),
    Jan.HELPLESS_MAN: (2, 2),
    Jan.MARGOT: (2, 4),
}

_TO_OPPONENT = frozenset({Jan.CONTRE_DEUX_TABLES, Jan.CONTRE_MEZEAS, Jan.FALSE_HIT_PETIT_JAN,
                          Jan.FALSE_HIT_GRAND_JAN, Jan.HELPLESS_MAN, Jan.MARGOT})

_ORDER = {jan: i for i, jan in enumerate(Jan)}
"""Answer order: the thrower's jans come first in the enum, then the opponent's."""

_FILL = (Jan.FILL_PETIT_JAN, Jan.FILL_GRAND_JAN, Jan.FILL_JAN_DE_RETOUR)
_KEEP = (Jan.KEEP_PETIT_JAN, Jan.KEEP_GRAND_JAN, Jan.KEEP_JAN_DE_RETOUR)
_QUARTER_NAMES = ("petit jan", "grand jan", "jan de retour")


@dataclass(frozen=True)
class JanScore:
    """One jan scored on a throw."""

    jan: Jan
    """Which jan."""
    player: Color
    """Who scores it (the opponent of the thrower for false hits, contre-jans, ...)."""
    points: int
    """All the points it gives (points per way times ways)."""
    ways: int
    """In how many ways it is made (1 for jans counted once)."""
    reason: str = field(default="", compare=False)
    """A human explanation (which man, which numbers, from where); not compared."""

    def to_json(self) -> dict[str, object]:
        """The JSON form of the ``tablier jans`` answer.

        Returns:
            ``{"jan": ..., "scorer": ..., "points": ..., "ways": ...}``.

        Raises:
            Nothing.
        """
        return {"jan": self.jan.value, "scorer": self.player.value, "points": self.points,
                "ways": self.ways}


def totals(scores: tuple[JanScore, ...] | list[JanScore]) -> dict[Color, int]:
    """Points per player over a throw's jans.

    Args:
        scores: the jans of one throw.

    Returns:
        ``{Color.WHITE: points, Color.BLACK: points}``.

    Raises:
        Nothing.
    """
    out = {Color.WHITE: 0, Color.BLACK: 0}
    for s in scores:
        out[s.player] += s.points
    return out


class _Tally:
    """Ways and reasons gathered per jan while judging one throw."""

    __slots__ = ("reasons", "ways")

    def __init__(self) -> None:
        self.ways: dict[Jan, int] = {}
        self.reasons: dict[Jan, list[str]] = {}

    def add(self, jan: Jan, ways: int, reason: str) -> None:
        self.ways[jan] = self.ways.get(jan, 0) + ways
        self.reasons.setdefault(jan, []).append(reason)


def jans(position: Position, dice: Dice | tuple[int, int], *, rolls_so_far: int | None = None,
         options: RuleOptions | None = None,
         opening_dice: Dice | None = None) -> tuple[JanScore, ...]:
    """Every jan of this throw, judged on the position at the throw for the player to move.

    Args:
        position: the position when the dice are thrown.
        dice: the throw.
        rolls_so_far: throws made by the player to move in this relevé, THIS one included
            (the ``throws`` of the JSON request). The jan de six tables is only possible when
            it is 3; None means unknown, and the jan is then judged from the men alone.
        options: the agreed rules (obsolete jans, provincial bearing off).
        opening_dice: for the obsolete jan de rencontre only: the first player's first throw
            of the match, given when this throw is the second player's first.

    Returns:
        The jans, the thrower's first, each in the order of :class:`Jan`.

    Raises:
        InvalidNotationError: if ``dice`` is not a throw.
    """
    if isinstance(dice, Dice):
        a, b = dice.a, dice.b
    else:
        d = Dice(*dice)
        a, b = d.a, d.b
    opts = DEFAULT_OPTIONS if options is None else options
    own, opp = mover_view(position)
    used, results = generate(own, opp, a, b, provincial=opts.provincial_bearing_off)
    return judge(position, own, opp, a, b, used, results, rolls_so_far=rolls_so_far,
                 options=opts, opening_dice=opening_dice)


def judge(position: Position, own: Own, opp: Opp, a: int, b: int, used: int,
          results: dict[Own, tuple[tuple[int, int], ...]], *, rolls_so_far: int | None,
          options: RuleOptions, opening_dice: Dice | None) -> tuple[JanScore, ...]:
    """The jans of a throw once its legal results are known (see :func:`jans`).

    Args:
        position: the position at the throw.
        own: the mover's men (:func:`mover_view`).
        opp: the opponent's men in the mover's numbering.
        a: one die.
        b: the other die.
        used: numbers the legal plays use (from :func:`generate`).
        results: the legal results (from :func:`generate`).
        rolls_so_far: see :func:`jans`.
        options: the agreed rules.
        opening_dice: see :func:`jans`.

    Returns:
        The jans.

    Raises:
        Nothing.
    """
    me = position.to_move
    him = me.other()
    doublet = a == b
    on_board = sum(own[1:25])
    if not on_board:
        return ()  # his men are all off: the relevé is over
    tally = _Tally()
    names = (me.value, him.value)
    _rare_jans(tally, own, opp, a, b, rolls_so_far, names)
    _filling_jans(tally, own, opp, a, b, results)
    _hits(tally, own, opp, a, b, names)
    _corner(tally, own, opp, a, b)
    finished = on_board <= 2 and any(sum(k[1:25]) == 0 for k in results)
    if finished:
        tally.add(Jan.FIRST_OFF, 1, "the throw bears off the last man")
    helpless = 0 if finished else 2 - used
    if helpless:
        tally.add(Jan.HELPLESS_MAN, helpless,
                  "neither number can be played" if helpless == 2 else
                  "only one number can be played")
    if options.pile_de_misere:
        if own[12] >= 15:
            tally.add(Jan.PILE_DE_MISERE, 1, "all fifteen men on the corner (kept)")
        elif any(k[12] >= 15 for k in results):
            tally.add(Jan.PILE_DE_MISERE, 1, "the throw piles all fifteen men on the corner")
    if options.rencontre and opening_dice is not None and sorted(
            (opening_dice.a, opening_dice.b)) == sorted((a, b)):
        tally.add(Jan.RENCONTRE, 1, f"the first throw repeats the opening {opening_dice}")
    if options.margot:
        for f in range(2, 24):
            if own[f] == 1 and opp[f - 1] == 1 and opp[f + 1] == 1:
                tally.add(Jan.MARGOT, 1, f"{me.value}'s lone man on {f} sits between "
                          f"{him.value}'s lone men on {f - 1} and {f + 1}")
    out: list[JanScore] = []
    for jan in sorted(tally.ways, key=_ORDER.__getitem__):
        ways = tally.ways[jan]
        single, double = JAN_POINTS[jan]
        out.append(JanScore(jan, him if jan in _TO_OPPONENT else me,
                            ways * (double if doublet else single), ways,
                            "; ".join(tally.reasons[jan])))
    return tuple(out)


def _rare_jans(tally: _Tally, own: Own, opp: Opp, a: int, b: int, rolls_so_far: int | None,
               names: tuple[str, str]) -> None:
    if own[25] or own[1] < 9:
        return
    out_men = [f for f in range(2, 25) for _ in range(own[f])]
    # jan de six tables (trois coups)
    if a != b and rolls_so_far in (None, 3) and len(out_men) == 4 and max(out_men) <= 7:
        for s1, s2 in ((1, 1), *((1, m) for m in out_men), *((m, 1) for m in out_men),
                       *((m1, m2) for m1 in out_men for m2 in out_men)):
            cur = list(own[:8])
            cur[s1] -= 1
            if s1 + a > 7 or cur[s2] <= 0 and s2 != s1 + a:
                continue
            cur[s1 + a] += 1
            if cur[s2] <= 0 or s2 + b > 7:
                continue
            cur[s2] -= 1
            cur[s2 + b] += 1
            if cur[1] == 9 and all(c == 1 for c in cur[2:8]):
                tally.add(Jan.SIX_TABLES, 1, f"the {a} and the {b} put one man on each of "
                          f"2..7 on the third throw")
                break
    if own[1] != 13 or len(out_men) != 2:
        return
    m1, m2 = out_men
    if own[12] == 2:
        if 1 in (a, b):
            if opp[13]:
                tally.add(Jan.CONTRE_MEZEAS, 1, f"only the two corner men are out and an ace "
                          f"is thrown, but {names[1]} holds his corner")
            else:
                tally.add(Jan.MEZEAS, 1, "only the two corner men are out, the opponent's "
                          "corner is empty and an ace is thrown")
        return
    if {m1 + a, m2 + b} == {12, 13} or {m1 + b, m2 + a} == {12, 13}:
        how = f"the men on {m1} and {m2} would reach both corners with the {a} and the {b}"
        if opp[13]:
            tally.add(Jan.CONTRE_DEUX_TABLES, 1, how + f", but {names[1]} holds his corner")
        else:
            tally.add(Jan.DEUX_TABLES, 1, how + " (the opponent's corner is empty)")


def _filling_jans(tally: _Tally, own: Own, opp: Opp, a: int, b: int,
                  results: dict[Own, tuple[tuple[int, int], ...]]) -> None:
    now = filled_mask(own)
    can_petit, can_grand = opponent_can_fill(opp)
    for i, (bit, (lo, hi)) in enumerate(zip((PETIT, GRAND, RETOUR), QUARTERS)):
        if sum(own[lo:hi]) < 10:
            continue
        reachable = any(filled_mask(k, bit) for k in results)
        name = _QUARTER_NAMES[i]
        if now & bit:
            if reachable:
                tally.add(_KEEP[i], 1, f"the {name} stays filled")
            continue
        if not reachable:
            continue
        halves = [f for f in range(lo, hi) if own[f] < 2]
        found: list[str] = []
        if len(halves) == 1 and own[halves[0]] == 1:
            h = halves[0]

            for d in ((a,) if a == b else (a, b)):
                if _fill_source(own, opp, can_petit, can_grand, lo, hi, h - d, h):
                    found.append(f"by the {d} from {h - d}")
            s = h - a - b
            if (_fill_source(own, opp, can_petit, can_grand, lo, hi, s, h)
                    and (not opp[s + a] or not opp[s + b])):
                found.append(f"by {a}+{b} tout d'une from {s}")
            where = f"covering the half-field {h}"
        else:
            where = "covering " + ", ".join(str(f) for f in halves)
        if found:
            tally.add(_FILL[i], len(found), f"fills the {name} {where}: " + ", ".join(found))
        else:
            tally.add(_FILL[i], 1, f"fills the {name} {where} with both numbers (one way)")


def _fill_source(own: Own, opp: Opp, can_petit: bool, can_grand: bool, lo: int, hi: int,
                 s: int, h: int) -> bool:
    # A man on s may cover the half-field h of the quarter lo..hi-1 without opening another.
    return (s >= 1 and own[s] > 0 and (not lo <= s < hi or own[s] >= 3)
            and _landing_ok(opp, can_petit, can_grand, s, h))


def _landing_ok(opp: Opp, can_petit: bool, can_grand: bool, s: int, t: int) -> bool:
    # Same landing rule as moves.generate, for a man from s stopping on t (1..24).
    if opp[t] or t == 13:
        return False
    if t >= 13:
        if s < 13:
            return not (can_petit or (t <= 18 and can_grand))
        return not (s <= 18 and t >= 19 and can_petit)
    return True


def _hits(tally: _Tally, own: Own, opp: Opp, a: int, b: int, names: tuple[str, str]) -> None:
    me, him = names
    dice = (a,) if a == b else (a, b)
    for t in range(2, 25):
        if opp[t] != 1:
            continue
        petit = t <= 6 or t >= 19
        ways: list[str] = []
        for d in dice:
            s = t - d
            if s >= 1 and own[s]:
                ways.append(f"directly with the {d} from {s}")
        s = t - a - b
        false_reason = ""
        if s >= 1 and own[s]:
            rests = (s + a,) if a == b else (s + a, s + b)
            if any(opp[r] < 2 for r in rests):
                ways.append(f"by {a}+{b} from {s}")
            elif not ways:
                false_reason = (f"{me}'s man on {s} would hit {him}'s lone man on {t} "
                                f"({him}'s {25 - t}) by {a}+{b}, but the rest field"
                                f"{'' if a == b else 's'} "
                                f"{' and '.join(str(r) for r in rests)} "
                                f"{'is' if a == b else 'are'} held by {him}")
        where = f"{him}'s lone man on {t} ({him}'s {25 - t})"
        if ways:
            jan = Jan.TRUE_HIT_PETIT_JAN if petit else Jan.TRUE_HIT_GRAND_JAN
            tally.add(jan, len(ways), f"{me} hits {where} " + ", ".join(ways))
        elif false_reason:
            tally.add(Jan.FALSE_HIT_PETIT_JAN if petit else Jan.FALSE_HIT_GRAND_JAN, 1,
                      false_reason)


def _corner(tally: _Tally, own: Own, opp: Opp, a: int, b: int) -> None:
    if own[12] < 2 or opp[13]:
        return

    def avail(f: int) -> int:
        return own[12] - 2 if f == 12 else own[f]

    if a == b:
        ok = avail(13 - a) >= 2
    else:
        ok = avail(13 - a) >= 1 and avail(13 - b) >= 1
    if ok:
        tally.add(Jan.HIT_CORNER, 1, f"men on {13 - a} and {13 - b} would reach the "
                  f"opponent's empty corner with the {a} and the {b}")


__all__ = ["JAN_POINTS", "Jan", "JanScore", "jans", "judge", "totals"]
