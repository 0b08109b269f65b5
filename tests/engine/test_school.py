"""Schools: verdicts from owed jans and marks, false school and raise, the engine's obligations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablier.engine import (
    Color,
    Dice,
    Game,
    JanOwed,
    Mark,
    Position,
    School,
    SchoolKind,
    ScoreError,
    Throw,
    broken_obligations,
    false_school,
    jans,
    judge,
    school_raise,
)

W, B = Color.WHITE, Color.BLACK
HIT = JanOwed("true_hit_petit_jan", W, 4)
FALSE_HIT = JanOwed("false_hit_grand_jan", B, 2)  # White's false hit: Black's points
KEEP = JanOwed("keep_grand_jan", W, 4)


def test_right_marks_no_school() -> None:
    v = judge([HIT, FALSE_HIT], player=W, marked=4)
    assert not v.is_school and v.points == 0 and v.to_event() is None
    assert judge([HIT, FALSE_HIT], player=B, marked=2).kinds == ()


def test_underscoring_gives_the_difference() -> None:
    v = judge([HIT], player=W, marked=0)
    assert v.kinds == (SchoolKind.UNDER,) and v.points == 4 and v.retract == 0
    assert v.to_event() == School(B, 4, 0, "under")


def test_overscoring_gives_the_excess_and_takes_it_back() -> None:
    v = judge([HIT], player=W, marked=8)
    assert v.kinds == (SchoolKind.OVER,) and v.points == 4 and v.retract == 4


def test_the_opponent_is_judged_on_his_own_jans() -> None:
    v = judge([HIT, FALSE_HIT], player=B, marked=0)
    assert v.kinds == (SchoolKind.UNDER,) and v.points == 2 and v.to_event() == School(
        W, 2, 0, "under")


def test_not_preserving_the_opponent_takes_the_points_instead() -> None:
    # Marked the 4 for keeping, then broke the grand jan: they come back off, Black marks 4.
    v = judge([KEEP, HIT], player=W, marked=8, not_preserved=[KEEP])
    assert v.kinds == (SchoolKind.PRESERVE,) and v.points == 4 and v.retract == 4
    assert v.false_move and v.entitled == 4
    # Marked only the hit: Black still takes the keeping points; nothing comes back.
    v = judge([KEEP, HIT], player=W, marked=4, not_preserved=[KEEP])
    assert v.points == 4 and v.retract == 0
    # Marked nothing at all: Black takes the keeping points and the hit left unmarked.
    v = judge([KEEP, HIT], player=W, marked=0, not_preserved=[KEEP])
    assert v.kinds == (SchoolKind.PRESERVE, SchoolKind.UNDER) and v.points == 8


def test_not_filling_is_a_false_move_and_a_school() -> None:
    fill = JanOwed("fill_grand_jan", W, 8, 2)
    v = judge([fill], player=W, marked=8, not_filled=[fill])
    assert v.kinds == (SchoolKind.FILL,) and v.points == 8 and v.retract == 8 and v.false_move


def test_forfeits_must_be_owed_to_the_player() -> None:
    with pytest.raises(ScoreError, match="not a jan owed"):
        judge([HIT], player=W, marked=4, not_preserved=[KEEP])
    with pytest.raises(ScoreError, match="twos"):
        judge([HIT], player=W, marked=3)


def test_overscoring_claim_on_the_jetons() -> None:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 8))  # owed 4: overscoring by 4
    claim = judge([HIT], player=W, marked=8).to_event()
    assert claim == School(B, 4, 4, "over")
    g.push(claim)
    assert (g.score.white.points, g.score.black.points) == (4, 4)


def _wrong_claim() -> tuple[Game, School]:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 6))
    g.push(Throw(B))
    g.push(Mark(B, 2))
    wrong = School(W, 2, 2, "over")  # White claims Black overscored by 2
    g.push(wrong)
    assert (g.score.white.points, g.score.black.points) == (8, 0)
    return g, wrong


def test_false_school_restores_and_pays_the_accused() -> None:
    g, wrong = _wrong_claim()
    answer = false_school(wrong)
    assert answer == School(B, 4, 2, "false_school")
    g.push(answer)  # White's 2 come off, Black's 2 go back, plus 2 for the false school
    assert (g.score.white.points, g.score.black.points) == (6, 4)


def test_school_raise_restores_the_first_school_doubled() -> None:
    g, wrong = _wrong_claim()
    g.push(false_school(wrong))
    g.push(school_raise(wrong))
    assert school_raise(wrong) == School(W, 4, 4, "raise")
    # Against the start (White 6, Black 2): White +4 (the school doubled), Black -2.
    assert (g.score.white.points, g.score.black.points) == (10, 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10), st.integers(0, 10), st.integers(0, 10), st.booleans())
def test_verdict_arithmetic(owed_half: int, marked_half: int, keep_half: int,
                            broke: bool) -> None:
    owed = [JanOwed("true_hit_grand_jan", W, 2 * owed_half)] if owed_half else []
    keep = JanOwed("keep_petit_jan", W, 2 * keep_half)
    if keep_half:
        owed.append(keep)
    broken = [keep] if broke and keep_half else []
    v = judge(owed, player=W, marked=2 * marked_half, not_preserved=broken)
    total = 2 * owed_half + 2 * keep_half
    kept_by_him = 2 * marked_half - v.retract
    # He ends with what he may keep, or less if he under-marked; the opponent gets the rest.
    assert kept_by_him == min(2 * marked_half, v.entitled)
    assert v.points == (total - v.entitled) + abs(v.entitled - 2 * marked_half) - max(
        0, min(2 * marked_half, total) - v.entitled)
    assert v.is_school == (v.points > 0)
    assert v.points % 2 == 0 and v.retract % 2 == 0


def test_broken_obligations_from_the_engine() -> None:
    # White's grand jan is full with three spare men on his talon; 2 and 1 can keep it.
    p = Position.from_notation("1x3,7x2,8x2,9x2,10x2,11x2,12x2/1x15 w")
    owed = jans(p, Dice(2, 1))
    assert [j.jan.value for j in owed] == ["keep_grand_jan"]
    assert broken_obligations(p, ((1, 3), (1, 2)), owed) == ((), ())
    not_filled, not_preserved = broken_obligations(p, ((7, 9), (7, 8)), owed)
    assert not_filled == () and [j.jan.value for j in not_preserved] == ["keep_grand_jan"]
    v = judge(owed, player=W, marked=4, not_preserved=not_preserved)
    assert v.kinds == (SchoolKind.PRESERVE,) and v.points == 4 and v.retract == 4


def test_game_tracks_the_men_and_the_jans() -> None:
    g = Game(track_position=True)
    owed = g.throw(W, Dice(6, 5))
    assert owed == () and g.state.turn is not None and g.state.turn.owed == ()
    g.play(((1, 7), (1, 6)))
    with pytest.raises(Exception, match="white throws but it is black"):
        g.push(Throw(W, Dice(1, 1)))
    with pytest.raises(Exception, match="no dice"):
        g.push(Throw(B))
    g.throw(B, Dice(2, 1))
    g.play(((1, 3), (1, 2)))
    assert g.state.position is not None and g.state.position.to_move is W
    again = Game.replay(g.history, track_position=True)
    assert again.state == g.state


def test_game_verdict_from_the_recorded_throw() -> None:
    # White's grand jan is full with three spare men; 2 and 1 keep it (4 points).
    g = Game(position=Position.from_notation("1x3,7x2,8x2,9x2,10x2,11x2,12x2/1x15 w"))
    g.throw(W, Dice(2, 1))
    g.push(Mark(W, 4))
    assert not g.verdict(W).is_school
    g.play(((7, 9), (7, 8)))  # breaks the grand jan although he could keep it
    v = g.verdict(W)
    assert v.kinds == (SchoolKind.PRESERVE,) and v.points == 4 and v.retract == 4
    g.push(v.to_event())
    assert (g.score.white.points, g.score.black.points) == (0, 4)
    assert not g.verdict(B).is_school


def test_a_forfeit_must_be_a_filling_or_keeping_jan_and_counted_once() -> None:
    # Review: the seeds' filling and preserving errors are about a quarter ("does not fill a
    # quarter when able", "does not preserve a full quarter when able"); one jan forfeited
    # twice made a verdict retract more than was marked.
    fill = JanOwed("fill_grand_jan", W, 4)
    with pytest.raises(ScoreError, match="not_preserved: 'fill_grand_jan' is not a keeping"):
        judge([fill], player=W, marked=4, not_filled=[fill], not_preserved=[fill])
    loose = JanOwed("preserve_grand_jan", W, 4)  # a name the engine does not know
    with pytest.raises(ScoreError, match="twice"):
        judge([loose], player=W, marked=4, not_filled=[loose], not_preserved=[loose])
    with pytest.raises(ScoreError, match="twice"):
        judge([fill], player=W, marked=4, not_filled=[fill, fill])
    with pytest.raises(ScoreError, match="not_preserved"):
        judge([fill], player=W, marked=4, not_preserved=[fill])
    with pytest.raises(ScoreError, match="not_filled"):
        judge([HIT, KEEP], player=W, marked=8, not_filled=[HIT])
    with pytest.raises(ScoreError, match="not_filled"):
        judge([KEEP], player=W, marked=4, not_filled=[KEEP])
