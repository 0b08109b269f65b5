"""Whole matches driven through the rules engine: invariants, replay from JSON, mirror."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablier.engine import (
    CHECKERS_PER_SIDE,
    Choice,
    Color,
    Decision,
    Dice,
    Game,
    Mark,
    MatchError,
    MatchState,
    Play,
    Position,
    Releve,
    Throw,
    event_from_json,
    random_match,
)


def _simulate(seed: int, first: Color, *,
              max_throws: int = 120) -> tuple[Game, list[MatchState]]:
    """Honest players (each marks exactly what is owed), random dice, plays and decisions."""
    g = Game(track_position=True)
    snapshots = [g.state]
    for g in random_match(random.Random(seed), first=first, go_rate=0.4,
                          max_throws=max_throws):
        snapshots.append(g.state)
    return g, snapshots


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([Color.WHITE, Color.BLACK]))
def test_engine_driven_match_invariants_and_replay(seed: int, first: Color) -> None:
    g, snapshots = _simulate(seed, first, max_throws=60)
    for before, after in itertools.pairwise(snapshots):
        for color in (Color.WHITE, Color.BLACK):
            assert after.score[color].points % 2 == 0 and after.score[color].points < 12
            assert after.score[color].holes >= before.score[color].holes
            position = after.position
            assert position is not None and position.total(color) == CHECKERS_PER_SIDE
    lines = [json.dumps(e.to_json()) for e in g.history]
    again = Game.replay((event_from_json(json.loads(x)) for x in lines), track_position=True)
    assert again.state == g.state


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000))
def test_swapping_colours_mirrors_an_engine_driven_match(seed: int) -> None:
    white_first, _ = _simulate(seed, Color.WHITE, max_throws=60)
    black_first, _ = _simulate(seed, Color.BLACK, max_throws=60)
    assert black_first.score == white_first.score.mirror()
    releves = [e.first for e in white_first.history if isinstance(e, Releve)]
    mirrored = [e.first.other() for e in black_first.history if isinstance(e, Releve)]
    assert releves == mirrored


def test_after_going_the_leaver_must_throw_first() -> None:
    g = Game(track_position=True)
    g.push(Throw(Color.BLACK, Dice(6, 5)))  # whoever won the lead opens the match
    g.push(Mark(Color.BLACK, 12))
    g.push(Decision(Color.BLACK, Choice.GO))
    assert g.state.position is not None and g.state.position.notation() == "1x15/1x15 b"
    with pytest.raises(MatchError, match="white throws but it is black's throw"):
        g.push(Throw(Color.WHITE, Dice(2, 1)))


def test_bearing_off_the_last_man_is_found_from_the_position() -> None:
    g = Game(track_position=True)
    g.push(Throw(Color.WHITE, Dice(6, 5)))
    g.play(((1, 7), (1, 6)))
    g.throw(Color.BLACK, Dice(2, 1))
    with pytest.raises(MatchError, match="last_off"):
        g.push(Play(Color.BLACK, ((1, 3), (1, 2)), last_off=True))
    assert g.play(((1, 3), (1, 2))) == ()


def test_bearing_off_the_last_man_starts_a_releve_keeping_the_points() -> None:
    # Black has two men left, on his fields 22 and 24; 3 and 1 bear both off.
    g = Game(position=Position.from_notation("1x15/22,24 b 0-13"))
    g.push(Throw(Color.BLACK, Dice(3, 1)))
    g.push(Mark(Color.BLACK, 4))  # the bear-off jan, marked before touching the men
    assert g.play(((22, 0), (24, 0))) == (Releve("bear_off", Color.BLACK),)
    assert g.score.black.points == 4 and g.state.releve == 2
    assert g.state.position == Position.start(to_move=Color.BLACK)
