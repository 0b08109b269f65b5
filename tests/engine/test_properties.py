"""Property tests (hypothesis) of positions, legal plays and jans."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablier.engine import (
    Color,
    Dice,
    EngineError,
    InvalidNotationError,
    Jan,
    Position,
    Status,
    jans,
    legal_moves,
    legal_positions,
)
from tablier.engine.moves import (
    filled_mask,
    generate,
    mover_view,
    opponent_can_fill,
    random_position,
)

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

dice_st = st.builds(Dice, st.integers(1, 6), st.integers(1, 6))


def _play(seed: int, throws: int) -> Position:
    return random_position(random.Random(seed), throws)


game_positions = st.builds(_play, st.integers(0, 2**31), st.integers(0, 160))
"""Positions met in random legal play (always possible positions)."""

any_positions = st.builds(
    Position,
    st.tuples(*[st.integers(0, 20)] * 24),
    st.tuples(*[st.integers(0, 20)] * 24),
    st.sampled_from(list(Color)),
    st.integers(0, 20),
    st.integers(0, 20),
)
"""Any position the camera might report, impossible ones included."""


@SETTINGS
@given(any_positions)
def test_notation_round_trips(position: Position) -> None:
    assert Position.from_notation(position.notation()) == position
    assert eval(repr(position), {"Position": Position}) == position


@SETTINGS
@given(any_positions)
def test_mirror_is_an_involution(position: Position) -> None:
    assert position.mirror().mirror() == position
    assert position.mirror().men(Color.BLACK) == position.men(Color.WHITE)
    assert bool(position.mirror().status()) == bool(position.status())


@SETTINGS
@given(st.text(max_size=40))
def test_the_parsers_raise_only_their_own_errors(text: str) -> None:
    for parse in (Position.from_notation, Dice.parse, Color.parse):
        try:
            parse(text)
        except InvalidNotationError:
            pass


@SETTINGS
@given(any_positions, dice_st)
def test_impossible_positions_never_crash_the_rules(position: Position, dice: Dice) -> None:
    plays = list(legal_moves(position, dice))
    assert plays
    for score in jans(position, dice):
        assert score.points > 0 and score.ways > 0


@SETTINGS
@given(game_positions, dice_st)
def test_swapping_colours_mirrors_every_play_and_jan(position: Position, dice: Dice) -> None:
    found = legal_positions(position, dice)
    mirrored = legal_positions(position.mirror(), dice)
    assert {p.mirror(): play for p, play in mirrored.items()}.keys() == found.keys()
    assert sorted(mirrored.values()) == sorted(found.values())
    assert sorted((s.jan.value, s.player.other(), s.points, s.ways)
                  for s in jans(position.mirror(), dice)) == sorted(
        (s.jan.value, s.player, s.points, s.ways) for s in jans(position, dice))


@SETTINGS
@given(game_positions, dice_st)
def test_every_legal_play_respects_the_movement_rules(position: Position, dice: Dice) -> None:
    assert position.is_valid(), repr(position)
    me = position.to_move
    own, opp = mover_view(position)
    can_petit, can_grand = opponent_can_fill(opp)
    used, _ = generate(own, opp, dice.a, dice.b)
    for after, play in legal_positions(position, dice).items():
        assert position.apply(play, dice=dice) == after
        assert after.to_move is me.other()
        # 15 men per colour, the opponent untouched, nothing impossible
        assert after.total(Color.WHITE) == after.total(Color.BLACK) == 15
        assert after.men(me.other()) == position.men(me.other())
        assert after.status() == Status.VALID, (position, dice, after)
        new, _ = mover_view(after.with_turn(me))
        # men only move forward, by the dice: every suffix count grows, pips add up
        for f in range(1, 26):
            assert sum(new[f:]) >= sum(own[f:])
        pips = sum(f * (new[f] - own[f]) for f in range(1, 26))
        by_power = own[12] == 0 and new[12] == 2 and set(play) == {(13 - dice.a, 12),
                                                                   (13 - dice.b, 12)}
        if by_power:
            assert pips == dice.a + dice.b - 2 and not opp[13]
        elif new[25] > own[25]:
            assert pips <= dice.a + dice.b
        else:
            assert pips == {2: dice.a + dice.b, 1: pips, 0: 0}[used]
            if used == 1:
                assert pips in (dice.a, dice.b)
                # else the higher: the lower only when the higher cannot be played at all
                assert pips == dice.high or not any(
                    sum(f * (k[f] - own[f]) for f in range(1, 26)) == dice.high
                    for k in generate(own, opp, dice.high, dice.high)[1])
        # corners: never the opponent's, never one man alone on one's own
        assert new[13] == 0 and new[12] != 1
        # passage: no man into a quarter the opponent can still fill
        if can_petit:
            assert sum(new[13:25]) <= sum(own[13:25])
        if can_grand:
            assert sum(new[13:19]) == sum(own[13:19]) == 0


@SETTINGS
@given(game_positions, dice_st)
def test_no_jan_is_credited_that_the_dice_cannot_produce(position: Position,
                                                        dice: Dice) -> None:
    a, b = dice.a, dice.b
    own, opp = mover_view(position)
    used, results = generate(own, opp, a, b)
    dists = {a, b, a + b}
    for s in jans(position, dice):
        assert s.points == s.ways * s.jan.points_per_way(dice.is_double)
        assert s.player is (position.to_move.other() if s.jan.to_opponent else position.to_move)
        jan = s.jan
        if jan in (Jan.TRUE_HIT_PETIT_JAN, Jan.TRUE_HIT_GRAND_JAN):
            table = ((lambda t: t <= 6 or t >= 19) if jan is Jan.TRUE_HIT_PETIT_JAN
                     else (lambda t: 7 <= t <= 18))
            targets = [t for t in range(1, 25) if opp[t] == 1 and table(t)
                       and any(t - d >= 1 and own[t - d] for d in dists)]
            assert targets and s.ways <= len(targets) * (2 if dice.is_double else 3)
        elif jan in (Jan.FALSE_HIT_PETIT_JAN, Jan.FALSE_HIT_GRAND_JAN):
            assert any(opp[t] == 1 and t - a - b >= 1 and own[t - a - b]
                       for t in range(1, 25))
        elif jan is Jan.HIT_CORNER:
            assert own[12] >= 2 and not opp[13] and own[13 - a] and own[13 - b]
        elif jan in (Jan.FILL_PETIT_JAN, Jan.FILL_GRAND_JAN, Jan.FILL_JAN_DE_RETOUR):
            bit = 1 << [Jan.FILL_PETIT_JAN, Jan.FILL_GRAND_JAN, Jan.FILL_JAN_DE_RETOUR].index(jan)
            assert not filled_mask(own, bit) and all(filled_mask(k, bit) for k in results)
            assert s.ways <= (2 if dice.is_double else 3)
        elif jan in (Jan.KEEP_PETIT_JAN, Jan.KEEP_GRAND_JAN, Jan.KEEP_JAN_DE_RETOUR):
            bit = 1 << [Jan.KEEP_PETIT_JAN, Jan.KEEP_GRAND_JAN, Jan.KEEP_JAN_DE_RETOUR].index(jan)
            assert filled_mask(own, bit) and any(filled_mask(k, bit) for k in results)
        elif jan in (Jan.MEZEAS, Jan.CONTRE_MEZEAS):
            assert 1 in (a, b) and own[12] == 2 and own[1] == 13
        elif jan is Jan.SIX_TABLES:
            assert not dice.is_double and own[1] >= 9
        elif jan in (Jan.DEUX_TABLES, Jan.CONTRE_DEUX_TABLES):
            assert own[1] == 13 and not own[12]
        elif jan is Jan.HELPLESS_MAN:
            assert s.ways == 2 - used
        elif jan is Jan.FIRST_OFF:
            assert any(sum(k[1:25]) == 0 for k in results)
        else:
            raise AssertionError(f"unexpected {jan} without options")


@SETTINGS
@given(st.recursive(st.none() | st.booleans() | st.integers(-3, 30) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(
                        ["white", "black", "off", "to_move", "dice", "throws", "1", "24",
                         "x"]), inner, max_size=4),
                    max_leaves=12))
def test_the_json_request_parser_raises_only_usage_errors(data: object) -> None:
    from tablier.cli import UsageError
    from tablier.commands.jans import answer, parse_request

    try:
        answer(parse_request(data))
    except (UsageError, EngineError):
        pass
