"""Movement rules, one test per rule, each with the board drawn above its assertion.

Boards are drawn in White's numbering (top row: Black's side, White's fields 13..24; bottom row:
White's side, 12..1). W3 = three white men, B2 = two black men.
"""

from __future__ import annotations

import pytest
from tablier.engine import (
    CheckerMove,
    Dice,
    IllegalMoveError,
    Position,
    RuleOptions,
    legal_moves,
    legal_positions,
)


def results(notation: str, dice: str, **options: bool) -> set[str]:
    """The notations of every legal result (without the turn marker)."""
    position = Position.from_notation(notation)
    found = legal_positions(position, Dice.parse(dice), options=RuleOptions(**options))
    return {p.notation().rsplit(" ", 1)[0] if p.off_white == p.off_black == 0
            else p.notation() for p in found}


def white(notation: str, dice: str, **options: bool) -> set[str]:
    """White's men in every legal result."""
    return {r.split("/")[0] for r in results(notation, dice, **options)}


def test_start_six_five_two_men_and_never_one_man_to_the_empty_corner() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # 1->12 tout d'une would leave one man alone on the empty corner.
    assert white("1x15/1x15 w", "65") == {"1x13,6,7"}


def test_a_doublet_is_two_numbers_never_four() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert white("1x15/1x15 w", "33") == {"1x13,4x2", "1x14,7"}


def test_never_stop_on_a_field_the_opponent_holds() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B14
    #   .   .   .  B1   .   . |  .  W1   .  W1   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # 3->9 (the 6) and 5->9 (the 4) land on Black's lone man: never.
    found = white("1x13,3,5/1x14,16 w", "64")
    assert found == {"1x11,3,5x2,7", "1x12,5,7x2", "1x12,3,5,11", "1x13,7,11"}
    assert not any(",9" in f for f in found)


def test_tout_d_une_needs_an_open_rest_field() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B11
    #   .   .   .   .   .   . | B2  B2   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # 1->6 and 1->5 are held: 5-4 cannot be played tout d'une to 10 either.
    assert white("1x15/1x11,19x2,20x2 w", "54") == {"1x15"}
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B13
    #   .   .   .   .   .   . | B2   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # One rest (5) open: 1->5->10 is the only play that uses both numbers.
    assert white("1x15/1x13,19x2 w", "54") == {"1x14,10"}


def test_an_empty_rest_corner_serves_as_the_rest() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   .  B5
    #   .  B2  B2  B2  B2  B2 | W2  W2  W2  W2  W2  W5
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black can fill neither his petit nor his grand jan (5 men left behind): 6->12->17 by
    # 6 then 5, resting on White's own empty corner, is the only way to play both numbers.
    position = Position.from_notation("1x5,2x2,3x2,4x2,5x2,6x2/1x5,14x2,15x2,16x2,17x2,18x2 w")
    plays = list(legal_moves(position, Dice(6, 5)))
    assert plays == [(CheckerMove(6, 12), CheckerMove(12, 17))]


def test_the_corner_is_taken_by_two_men_at_once_by_effect() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .  W1 | W1   .   .   .   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    found = white("1x13,6,7/1x15 w", "65")
    assert "1x13,12x2" in found
    assert not any("12" in f.split(",")[-1] and "12x" not in f for f in found)


def test_the_corner_by_power_when_not_by_effect() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .  W1  W1 |  .   .   .   .   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # 7+6 and 8+5 would both reach Black's empty corner: the two men go to White's own.
    position = Position.from_notation("1x13,7,8/1x15 w")
    found = legal_positions(position, Dice(6, 5))
    power = Position.from_notation("1x13,12x2/1x15 b")
    assert power in found
    assert set(found[power]) == {CheckerMove(7, 12), CheckerMove(8, 12)}


def test_no_power_when_the_corner_can_be_taken_by_effect() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .  W1  W1 | W1   .   .   .   . W12
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    found = white("1x12,6,7,8/1x15 w", "65")
    assert "1x12,8,12x2" in found          # by effect: 6+6 and 7+5
    assert "1x12,6,12x2" not in found      # by power (7 and 8) is then forbidden


def test_no_power_when_the_opponent_holds_his_corner() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #  B2   .   .   .   .   . |  .   .   .   .   . B13
    #   .   .   .   .  W1  W1 |  .   .   .   .   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert "1x13,12x2" not in white("1x13,7,8/1x13,12x2 w", "65")


def test_the_last_two_men_of_the_corner_leave_together() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #  W2  W1  W1   .   .   . |  .   .   .   .   . W11
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # No result leaves a lone man on the corner (and the opponent's corner 13 is never taken).
    for result in white("1x11,10,11,12x2/1x15 w", "21"):
        men = dict(item.split("x") if "x" in item else (item, "1") for item in result.split(","))
        assert men.get("12", "0") != "1" and "13" not in men


def test_both_numbers_if_possible_else_the_higher() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    # W14   .   .   .   .   . | W1   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # The man on 6 plays the 6 (to the corner) or the 5 (to 11), not both (17 is closed by
    # the passage rule): the higher number must be played.
    assert white("6,12x14/1x15 w", "65") == {"12x15"}


def test_else_the_lower() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    # W14   .   .   .   .  W1 |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # The 6 (7->13) would take Black's corner: only the 5 can be played.
    assert white("7,12x14/1x15 w", "65") == {"12x15"}


def test_no_man_onto_the_return_run_while_the_opponent_can_fill_his_petit_jan() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #  W2  W2  W2   .   .   . |  .   .   .   .   .  W9
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    for result in white("1x9,10x2,11x2,12x2/1x15 w", "65"):
        fields = [int(item.split("x")[0]) for item in result.split(",")]
        assert max(fields) <= 12


def test_third_quarter_closed_while_the_opponent_can_fill_his_grand_jan() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B11
    #  W2  W2  W2   .   .   . | B1  B1  B1  B1   .  W9
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black has 11 men left for his petit jan (no longer fillable) but 11 + ... men before his
    # grand jan: 11 on the talon only, so his grand jan cannot be filled either; give him the
    # grand jan by a second position below.
    open_run = white("1x9,10x2,11x2,12x2/1x11,19,20,21,22 w", "65")
    assert any(int(r.split(",")[-1].split("x")[0]) >= 13 for r in open_run)
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .  B4 B11
    #  W2  W2  W2   .   .   . |  .   .   .   .   .  W9
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black: 11 on his talon and 4 on his 2 -> his petit jan is still fillable: nothing passes.
    closed = white("1x9,10x2,11x2,12x2/1x11,2x4 w", "65")
    assert all(int(r.split(",")[-1].split("x")[0]) <= 12 for r in closed)
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B11
    #  W2  W2  W2  B4   .   . |  .   .   .   .   .  W9
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black: 11 on his talon (petit jan lost), 4 on his 16 (12 men... no: 11 before his grand
    # jan): both lost, every open field of the return run is available except his corner.
    both_lost = white("1x9,10x2,11x2,12x2/1x11,16x4 w", "66")
    assert any("18" in r or "17" in r or "16" in r for r in both_lost)


def test_third_quarter_closed_but_fourth_open() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #  B2  B2  B2   .   .   . |  .   .   .   .   .  B9
    #  W2  W2  W2   .   .   . |  .   .   .   .   .  W9
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black has 9 men left for his petit jan (lost) but 15 before his grand jan (still
    # fillable): White may not stop on 13..18 but may pass them to the last quarter.
    found = white("1x9,10x2,11x2,12x2/1x9,10x2,11x2,12x2 w", "66")
    landed = {int(item.split("x")[0]) for r in found for item in r.split(",")}
    assert not landed & set(range(13, 19))
    assert landed & {22, 23} == {22, 23}       # 10->16->22 and 11->17->23 tout d'une


def test_bearing_off_needs_every_man_in_the_jan_de_retour() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .  W1 |W14   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black's talon (White's 24) is held, so the man on 18 cannot reach 24; but 18->19 by the 1
    # brings him home and the 6 then bears a man off 19 (19+6 = 25).
    found = results("18,19x14/1x15 w", "61")
    assert "19x14/1x15 b 1-0" in found
    assert all("off" not in r for r in found)


def test_paris_overshoot_bears_off_the_furthest_man() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   . B15 |  .  W2   .   .   .   .
    #   .   .   .   .   .   . |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert results("20x2/7x15 w 13-0", "65") == {"-/7x15 b 15-0"}


def test_provincial_bearing_off_by_exact_numbers_only() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   . B15 |  .  W2   .   .   .   .
    #   .   .   .   .   .   . |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert results("20x2/7x15 w 13-0", "65", provincial_bearing_off=True) == {"20/7x15 b 14-0"}


def test_a_quarter_must_be_filled_if_possible() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .  W1   . | W1  W3  W2  W2  W3  W3
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    found = white("1x3,2x3,3x2,4x2,5x3,6,8/1x15 w", "41")
    assert found == {"1x2,2x3,3x2,4x2,5x3,6x2,8", "1x3,2x2,3x2,4x2,5x2,6x3,8",
                     "1x3,2x2,3x2,4x2,5x3,6x2,9"}


def test_a_filled_quarter_must_be_kept_if_possible() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .  W1 | W2  W2  W2  W2  W2  W4
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # 1->7 and 1->6 from the two surcases is the only play that keeps it.
    assert white("1x4,2x2,3x2,4x2,5x2,6x2,7/1x15 w", "65") == {"1x2,2x2,3x2,4x2,5x2,6x3,7x2"}


def test_black_plays_the_same_rules_mirrored() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .  B1  B1 |  .   .   .   .   . B13
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    found = legal_positions(Position.from_notation("1x15/1x13,7,8 b"), Dice(6, 5))
    assert Position.from_notation("1x15/1x13,12x2 w") in found


def test_apply_checks_the_play() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    start = Position.start()
    after = start.apply([CheckerMove(1, 7), CheckerMove(1, 6)], dice=Dice(6, 5))
    assert after == Position.from_notation("1x13,6,7/1x15 b")
    assert start.apply([(1, 12)], dice=None).notation() == "1x14,12/1x15 b"
    with pytest.raises(IllegalMoveError, match="not a legal play"):
        start.apply([(1, 12)], dice=Dice(6, 5))          # one man alone to the corner
    with pytest.raises(IllegalMoveError, match="held by the opponent"):
        start.apply([(1, 24)])
    with pytest.raises(IllegalMoveError, match="no man"):
        start.apply([(2, 4)])
