"""Cross-check of the move generator against a slow, plain re-statement of docs/rules.md.

The reference below is written independently of ``engine/moves.py`` (straight from the rules,
no tables, no shortcuts); both must find exactly the same legal results on positions met in
random play, for both bearing-off methods.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablier.engine import Position
from tablier.engine.moves import generate, mover_view, random_position


def _quarter(field: int) -> int:
    return 0 if field <= 12 else 3 if field <= 18 else 4


def reference(own: tuple[int, ...], opp: tuple[int, ...], a: int, b: int,
              provincial: bool) -> tuple[int, set[tuple[int, ...]]]:
    petit_open = sum(opp[19:25]) >= 12     # the opponent can still fill his petit jan
    grand_open = sum(opp[13:25]) >= 12     # ... his grand jan

    def stop_ok(pos: list[int] | tuple[int, ...], s: int, t: int) -> bool:
        if t > 24:
            if any(pos[f] for f in range(1, 19)):
                return False
            if provincial:
                if t != 25:
                    return False
                privilege = pos[s] >= 3 and all(pos[f] >= 2 for f in range(19, 25))
                d = t - s
                on_board = any(pos[f] and stop_ok(pos, f, f + d) for f in range(19, 25)
                               if f + d <= 24)
                return privilege or not on_board
            return t == 25 or all(pos[f] == 0 for f in range(19, s))
        if opp[t] > 0 or t == 13:
            return False
        if _quarter(t) != _quarter(s):
            if _quarter(t) in (3, 4) and petit_open:
                return False
            if _quarter(t) == 3 and grand_open:
                return False
        return True

    def moved(pos: list[int] | tuple[int, ...], s: int, t: int) -> list[int]:
        out = list(pos)
        out[s] -= 1
        out[min(t, 25)] += 1
        return out

    found: set[tuple[int, ...]] = set()
    orders = [(a, b)] if a == b else [(a, b), (b, a)]
    for d1, d2 in orders:
        for s1 in range(1, 25):
            if not own[s1]:
                continue
            t1 = s1 + d1
            if stop_ok(own, s1, t1):                   # first man stops for good
                p1 = moved(own, s1, t1)
                for s2 in range(1, 25):
                    if p1[s2] and stop_ok(p1, s2, s2 + d2):
                        p2 = moved(p1, s2, s2 + d2)
                        if p2[12] != 1:
                            found.add(tuple(p2))
            if t1 <= 24 and opp[t1] == 0:             # tout d'une through the rest t1
                p1 = moved(own, s1, t1)
                t2 = t1 + d2
                if stop_ok(p1, t1, t2) if t2 > 24 else stop_ok(own, s1, t2):
                    p2 = moved(p1, t1, t2)
                    if p2[12] != 1:
                        found.add(tuple(p2))
    if own[12] == 0 and opp[13] == 0:
        need_effect = [12 - a, 12 - b]
        need_power = [13 - a, 13 - b]

        def has(fields: list[int]) -> bool:
            return all(own[f] >= fields.count(f) for f in set(fields) if f != 12) and 12 not in fields

        if has(need_power) and not has(need_effect):
            p = list(own)
            for f in need_power:
                p[f] -= 1
            p[12] += 2
            found.add(tuple(p))
    used = 2
    if not found:
        used = 1
        for d in sorted({a, b}, reverse=True):
            for s in range(1, 25):
                if own[s] and stop_ok(own, s, s + d):
                    p = moved(own, s, s + d)
                    if p[12] != 1:
                        found.add(tuple(p))
            if found:
                break
    if not found:
        return 0, {own}

    def filled(pos: tuple[int, ...]) -> frozenset[int]:
        return frozenset(q for q, (lo, hi) in enumerate([(1, 7), (7, 13), (19, 25)])
                         if all(pos[f] >= 2 for f in range(lo, hi)))

    sets = {p: filled(p) for p in found}
    return used, {p for p in found if not any(sets[p] < other for other in sets.values())}


def _play(seed: int, throws: int) -> Position:
    return random_position(random.Random(seed), throws)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31), st.integers(0, 200), st.integers(1, 6), st.integers(1, 6),
       st.booleans())
def test_generator_matches_the_reference(seed: int, throws: int, a: int, b: int,
                                         provincial: bool) -> None:
    position = _play(seed, throws)
    own, opp = mover_view(position)
    used, results = generate(own, opp, a, b, provincial=provincial)
    ref_used, ref_results = reference(own, opp, a, b, provincial)
    assert (used, set(results)) == (ref_used, ref_results), (position, a, b, provincial)


def test_reference_agrees_on_the_start() -> None:
    own, opp = mover_view(Position.start())
    for a in range(1, 7):
        for b in range(1, 7):
            assert set(generate(own, opp, a, b)[1]) == reference(own, opp, a, b, False)[1]
