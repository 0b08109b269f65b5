"""Ways of filling a quarter, checked against the legal plays themselves.

W21 "Filling jans": with one half-field left a way is each number that covers it with one man
(either die, or the sum played tout d'une), so up to three on a singleton and two on a doublet.
Here a way is derived from the generator's legal results alone: the number ``d`` is a way when
some legal result is reached by a man moving from ``h - d`` to the half-field ``h`` (from outside
the quarter or from a surcase) while the other number is played elsewhere; the sum is a way when
a legal result moves one man from ``h - a - b`` to ``h`` and nothing else. Positions are built
one man short of a filled quarter with the rest of the men scattered at random (seeded).
"""

from __future__ import annotations

import random

from tablier.engine import Color, Dice, Jan, Position, jans
from tablier.engine.moves import GRAND, PETIT, QUARTERS, RETOUR, filled_mask, generate

FILL = {PETIT: Jan.FILL_PETIT_JAN, GRAND: Jan.FILL_GRAND_JAN, RETOUR: Jan.FILL_JAN_DE_RETOUR}


def _near_filled(rng: random.Random) -> tuple[Position, int, int] | None:
    index = rng.randrange(3)
    bit = (PETIT, GRAND, RETOUR)[index]
    lo, hi = QUARTERS[index]
    half = rng.randrange(lo, hi)
    if half == 12:
        return None
    own = [0] * 25
    for f in range(lo, hi):
        own[f] = 1 if f == half else 2
    left = 4
    if bit == RETOUR and rng.random() < 0.7:
        own[12] += 2  # a corner of two: its men may not leave one by one
        left -= 2
    for _ in range(left):
        own[rng.randrange(1, 25)] += 1
    if own[half] != 1 or own[12] == 1:
        return None
    free = [f for f in range(1, 25) if not own[f] and f != 12]
    opp = [0] * 25
    for _ in range(15):
        opp[rng.choice(free)] += 1
    white = {f: n for f, n in enumerate(own) if n}
    black = {25 - f: n for f, n in enumerate(opp) if n}
    position = Position.from_men(white, black, to_move=Color.WHITE)
    return (position, bit, half) if position.is_valid() else None


def _ways_from_the_plays(own: tuple[int, ...], opp: tuple[int, ...], a: int, b: int, lo: int,
                         hi: int, bit: int, half: int) -> int:
    used, results = generate(own, opp, a, b)
    filling = {k for k in results if filled_mask(k, bit)}
    if not filling:
        return 0

    def moved(k: tuple[int, ...] | list[int], s: int, t: int) -> list[int]:
        out = list(k)
        out[s] -= 1
        out[min(t, 25)] += 1
        return out

    ways: set[object] = set()
    for d, other in ((a, b),) if a == b else ((a, b), (b, a)):
        s = half - d
        if s < 1 or not own[s] or (lo <= s < hi and own[s] < 3):
            continue  # a relay from a full field of the quarter is the sum (docs/rules.md)
        first = moved(own, s, half)
        if used == 1 and tuple(first) in filling:
            ways.add(d)
        if any(first[x] and tuple(moved(first, x, x + other)) in filling for x in range(1, 25)):
            ways.add(d)
    s = half - a - b
    if s >= 1 and own[s] and tuple(moved(own, s, half)) in filling:
        ways.add("sum")
    return len(ways) or 1  # two men needed (both numbers): one way


def test_fill_ways_are_the_numbers_the_legal_plays_fill_with() -> None:
    rng = random.Random(20261122)
    checked = 0
    while checked < 3000:
        made = _near_filled(rng)
        if made is None:
            continue
        position, bit, half = made
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        own = (0, *position.white, 0)
        opp = (0, *position.black[::-1])
        lo, hi = QUARTERS[(PETIT, GRAND, RETOUR).index(bit)]
        expected = _ways_from_the_plays(own, opp, a, b, lo, hi, bit, half)
        got = {s.jan: s.ways for s in jans(position, Dice(a, b))}.get(FILL[bit], 0)
        assert got == expected, f"{position!r} {a}{b}"
        checked += 1
