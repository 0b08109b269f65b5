"""MatchScore: points in twos, holes, bredouille, pavillon, winnings; properties over matches."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablier.engine import (
    Color,
    Marks,
    MatchScore,
    Pavillon,
    Score,
    ScoreError,
    WinningsScheme,
)

W, B = Color.WHITE, Color.BLACK


def test_points_in_twos_only() -> None:
    for bad in (-2, 3, 1, True, 2.0):
        with pytest.raises(ScoreError):
            MatchScore().mark(W, bad)  # type: ignore[arg-type]
    assert MatchScore().mark(W, 0) == (MatchScore(), ())


def test_ten_plus_six_is_a_hole_and_four() -> None:
    # White 10 interrupted by Black's 2, then 6 more: one hole, 4 over, Black erased.
    s, _ = MatchScore().mark(W, 10)
    s, _ = s.mark(B, 2)
    assert s.white == Score(10, 0, False) and s.black == Score(2, 0, True)
    s, won = s.mark(W, 6)
    assert won == (False,)
    assert s.white == Score(4, 1, True) and s.black == Score(0, 0, True)


def test_bredouille_jeton_follows_the_second_player() -> None:
    s, _ = MatchScore().mark(W, 4)
    assert not s.marks().white.bredouille_token  # one jeton says it all
    s, _ = s.mark(B, 2)
    assert s.marks().black.bredouille_token and not s.marks().white.bredouille_token
    s, _ = s.mark(W, 2)  # débredouille: back to one jeton each
    assert not s.marks().black.bredouille_token
    assert s.marks() == Marks.from_scores(s.white, s.black, s.pavillon)


def test_retract_takes_points_back_within_the_hole() -> None:
    s, _ = MatchScore().mark(W, 6)
    assert s.retract(W, 4).white == Score(2, 0, True)
    assert s.retract(W, 6).white == Score(0, 0, True)
    with pytest.raises(ScoreError, match="went into a hole"):
        s.retract(W, 8)
    with pytest.raises(ScoreError):
        s.retract(W, 3)


def test_the_match_ends_at_twelve_holes() -> None:
    s, won = MatchScore(white=Score(10, 11, False)).mark(W, 40)
    assert won == (False,) and s.winner is W and s.white.holes == 12
    with pytest.raises(ScoreError, match="over"):
        s.mark(B, 2)


def test_winnings_schemes() -> None:
    def won(loser_holes: int, pavillon: Pavillon) -> MatchScore:
        return MatchScore(white=Score(0, 12), black=Score(0, loser_holes), pavillon=pavillon,
                          winner=W)

    assert won(6, Pavillon.OUT).winnings(WinningsScheme.SIXTH_HOLE) == 1
    assert won(5, Pavillon.OUT).winnings(WinningsScheme.SIXTH_HOLE) == 2
    assert won(7, Pavillon.OUT).winnings(WinningsScheme.BRIDGE) == 1
    assert won(6, Pavillon.OUT).winnings(WinningsScheme.BRIDGE) == Fraction(3, 2)
    assert won(0, Pavillon.OUT).winnings(WinningsScheme.OLDEST) == 1
    assert won(3, Pavillon.WHITE).winnings(WinningsScheme.SIXTH_HOLE) == 3
    assert won(0, Pavillon.MIDDLE).winnings(WinningsScheme.SIXTH_HOLE) == 4
    for scheme in (WinningsScheme.OLDEST, WinningsScheme.BRIDGE):
        assert won(3, Pavillon.WHITE).winnings(scheme) == 2
    assert MatchScore().winnings() == 0


gains = st.integers(min_value=0, max_value=20).map(lambda n: 2 * n)
marks_lists = st.lists(st.tuples(st.sampled_from([W, B]), gains), max_size=40)


def _run(marks: list[tuple[Color, int]]) -> list[MatchScore]:
    scores = [MatchScore()]
    for color, points in marks:
        if scores[-1].winner is not None:
            break
        scores.append(scores[-1].mark(color, points)[0])
    return scores


@settings(max_examples=150, deadline=None)
@given(marks_lists)
def test_points_even_below_twelve_and_holes_never_decrease(
        marks: list[tuple[Color, int]]) -> None:
    scores = _run(marks)
    for before, after in itertools.pairwise(scores):
        for color in (W, B):
            assert after[color].points % 2 == 0 and 0 <= after[color].points < 12
            assert after[color].holes >= before[color].holes
            assert after[color].holes <= 12
    # Both players never hold bredouille with points at once: the later scorer broke the run.
    for s in scores:
        assert not (s.white.points and s.black.points and s.white.bredouille
                    and s.black.bredouille)


@settings(max_examples=150, deadline=None)
@given(marks_lists)
def test_swapping_the_players_mirrors_the_score(marks: list[tuple[Color, int]]) -> None:
    plain = _run(marks)[-1]
    mirrored = _run([(c.other(), p) for c, p in marks])[-1]
    assert mirrored == plain.mirror()
    assert plain.to_json()["white"] == mirrored.to_json()["black"]


@settings(max_examples=100, deadline=None)
@given(marks_lists)
def test_points_are_conserved_modulo_holes(marks: list[tuple[Color, int]]) -> None:
    # With no erasing (one player only), 12 points per hole won and the remainder on the jeton.
    solo = [(W, p) for _, p in marks]
    s = _run(solo)[-1]
    total = sum(p for _, p in solo)
    if s.winner is None:
        singles = s.white.holes  # every hole of a lone runner is double: holes = 2 * (total // 12)
        assert singles == 2 * (total // 12) and s.white.points == total % 12
