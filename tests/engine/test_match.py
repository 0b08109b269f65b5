"""Game: the match as events; push/pop/history, replay, JSON round trips, turn order rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablier.engine import (
    EVENT_VERSION,
    Choice,
    Color,
    Decision,
    Dice,
    Event,
    EventError,
    Game,
    Hole,
    JanOwed,
    Mark,
    MatchEnd,
    MatchError,
    Pavillon,
    PavillonMoved,
    Play,
    Releve,
    School,
    Score,
    Throw,
    event_from_json,
)

W, B = Color.WHITE, Color.BLACK

SAMPLES: list[Event] = [
    Throw(W, Dice(6, 4)), Throw(B), JanOwed("true_hit_petit_jan", W, 4, 1), Mark(B, 6),
    Decision(W, Choice.GO), Play(W, ((1, 7), (1, 5))), Play(B, (), last_off=True),
    School(B, 4, 2, "over"), Hole(W, True, 2), PavillonMoved(Pavillon.OUT),
    Releve("bear_off", B), MatchEnd(W, True, False),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.kind)
def test_event_json_round_trips(event: Event) -> None:
    data = event.to_json()
    assert data["v"] == EVENT_VERSION and data["kind"] == event.kind
    assert event_from_json(json.loads(json.dumps(data))) == event


@pytest.mark.parametrize("data, field", [
    ({"v": 1, "kind": "mark", "by": "white", "points": 3}, "mark.points"),
    ({"v": 1, "kind": "mark", "by": "red", "points": 2}, "mark.by"),
    ({"v": 1, "kind": "mark", "by": "white", "points": 2, "extra": 1}, "extra"),
    ({"v": 2, "kind": "mark", "by": "white", "points": 2}, "event.v"),
    ({"v": 1, "kind": "dance"}, "event.kind"),
    ({"v": 1, "kind": "throw", "by": "white", "dice": [7, 1]}, "throw.dice"),
    ({"v": 1, "kind": "decision", "by": "white", "choice": "maybe"}, "decision.choice"),
    ({"v": 1, "kind": "play", "by": "white", "moves": [[1, 30]]}, "play.moves"),
    ({"v": 1, "kind": "school", "by": "white", "points": 2, "reason": "bad"}, "school.reason"),
    ([1, 2], "JSON object"),
])
def test_bad_event_json_names_the_field(data: Any, field: str) -> None:
    with pytest.raises(EventError, match=field.replace(".", r"\.")):
        event_from_json(data)


def test_a_turn_in_order() -> None:
    g = Game()
    assert g.push(Throw(W, Dice(5, 3))) == ()
    g.push(JanOwed("true_hit_grand_jan", W, 4, 2))
    assert g.state.turn is not None and g.state.turn.owed[0].points == 4
    g.push(Mark(W, 4))
    g.push(Play(W, ((1, 6), (1, 4))))
    g.push(Mark(B, 2))  # a false hit of White's gives Black 2
    assert g.score.white == Score(4, 0, False) and g.score.black == Score(2, 0, True)
    assert g.state.to_move is B and g.state.throws == (1, 0)


def test_a_decision_only_after_a_hole_by_ones_own_throw() -> None:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 4))
    with pytest.raises(MatchError, match="no decision"):
        g.push(Decision(W, Choice.STAY))
    g.push(Throw(B))
    g.push(Mark(B, 2))
    g.push(Mark(W, 8))  # White's 12 on Black's throw: a hole, but not on his own throw
    assert g.score.white.holes == 1
    with pytest.raises(MatchError, match="no decision"):
        g.push(Decision(W, Choice.GO))


def test_must_decide_before_playing_or_the_next_throw() -> None:
    g = Game()
    g.push(Throw(W))
    derived = g.push(Mark(W, 12))
    assert derived == (Hole(W, True, 2),)
    for event in (Play(W), Mark(B, 2), Throw(B)):
        with pytest.raises(MatchError, match="stay or go"):
            g.push(event)
    with pytest.raises(MatchError, match="no decision"):
        g.push(Decision(B, Choice.GO))  # only the roller decides


def test_going_drops_points_cancels_the_opponents_gains_and_throws_first() -> None:
    g = Game()
    g.push(Throw(B))
    g.push(Mark(B, 6))
    g.push(Throw(W))
    g.push(Mark(W, 14))
    assert g.push(Decision(W, Choice.GO)) == (Releve("go", W),)
    assert g.score.white == Score(0, 2, True) and g.score.black == Score(0, 0, True)
    with pytest.raises(MatchError, match="cancelled"):
        g.push(Mark(B, 4))
    with pytest.raises(MatchError, match="talons"):
        g.push(Play(W))
    assert g.state.to_move is W and g.state.releve == 2 and g.state.throws == (0, 0)


def test_bearing_off_is_a_releve_that_keeps_the_points() -> None:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 6))
    g.push(Throw(B))
    g.push(Mark(B, 4))  # the bear-off jan, marked before touching the men
    assert g.push(Play(B, ((24, 0),), last_off=True)) == (Releve("bear_off", B),)
    assert g.score.black == Score(4, 0, True) and g.score.white.points == 6
    assert g.state.to_move is B and g.state.releve == 2


def test_school_scores_and_takes_back() -> None:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 6))  # owed 4: overscoring by 2
    g.push(School(B, 2, 2, "over"))
    assert g.score.white.points == 4 and g.score.black.points == 2
    with pytest.raises(MatchError, match="into a hole|shows"):
        g.push(School(B, 2, 8, "over"))


def test_pop_undoes_an_event_and_what_it_caused() -> None:
    g = Game()
    g.push(Throw(W))
    before = g.state
    g.push(Mark(W, 12))
    assert len(g.history) == 3
    assert g.pop() == Mark(W, 12)
    assert g.state == before and len(g.history) == 1
    g.pop()
    with pytest.raises(IndexError):
        g.pop()


def test_nothing_after_the_end() -> None:
    g = Game()
    g.push(Throw(W))
    derived = g.push(Mark(W, 72))
    assert derived[-1] == MatchEnd(W, True, False)
    with pytest.raises(MatchError, match="over"):
        g.push(Throw(B))


def test_replay_checks_recorded_derived_events() -> None:
    g = Game()
    g.push(Throw(W))
    g.push(Mark(W, 12))
    g.push(Decision(W, Choice.STAY))
    history = list(g.history)
    assert Game.replay(history).state == g.state
    tampered = [e if not isinstance(e, Hole) else Hole(W, False, 1) for e in history]
    with pytest.raises(MatchError, match="event 2"):
        Game.replay(tampered)
    inputs_only = [e for e in history if not isinstance(e, Hole)]
    assert Game.replay(inputs_only).state == g.state


@st.composite
def matches(draw: st.DrawFn) -> list[tuple[Color, int, int, str | None]]:
    n = draw(st.integers(min_value=0, max_value=30))
    return [(draw(st.sampled_from([W, B])), 2 * draw(st.integers(0, 14)),
             2 * draw(st.integers(0, 8)), draw(st.sampled_from([None, "stay", "go"])))
            for _ in range(n)]


def _play(throws: list[tuple[Color, int, int, str | None]]) -> Game:
    g = Game()
    for by, own, other, choice in throws:
        if g.score.winner is not None:
            break
        g.push(Throw(by))
        g.push(Mark(by, own))
        if g.score.winner is not None:
            break
        assert g.state.turn is not None
        if g.state.turn.won_hole:
            g.push(Decision(by, Choice(choice or "stay")))
            if choice == "go":
                continue
        g.push(Mark(by.other(), other))
    return g


@settings(max_examples=120, deadline=None)
@given(matches())
def test_replaying_the_events_is_deterministic(
        throws: list[tuple[Color, int, int, str | None]]) -> None:
    g = _play(throws)
    lines = [json.dumps(e.to_json()) for e in g.history]
    again = Game.replay(event_from_json(json.loads(line)) for line in lines)
    assert again.state == g.state and again.history == g.history
    while g.history:
        g.pop()
    assert g.state == Game().state


@settings(max_examples=120, deadline=None)
@given(matches())
def test_swapping_the_players_mirrors_the_match(
        throws: list[tuple[Color, int, int, str | None]]) -> None:
    g = _play(throws)
    m = _play([(by.other(), own, other, c) for by, own, other, c in throws])
    assert m.score == g.score.mirror()
    assert m.state.releve == g.state.releve
