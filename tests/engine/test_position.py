"""Positions: construction, notation, drawing, mirror and status, with boards drawn."""

from __future__ import annotations

import random

import pytest
from tablier.engine import (
    Color,
    InvalidNotationError,
    Position,
    Status,
    random_position,
    status_names,
)


def test_start_and_its_notation() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    start = Position.start()
    assert start == Position() == Position("1x15/1x15 w")
    assert start.notation() == "1x15/1x15 w" and repr(start) == "Position('1x15/1x15 w')"
    assert start.counts == (15,) + (0,) * 22 + (-15,)
    assert start.is_valid() and start.total(Color.WHITE) == start.total(Color.BLACK) == 15


def test_each_colour_in_its_own_numbering() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .  B1   .  B1   . B13
    #   .   .   .   .   .   . |  .  W1   .  W1   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    p = Position.from_men({1: 13, 3: 1, 5: 1}, {1: 13, 3: 1, 5: 1})
    assert p.notation() == "1x13,3,5/1x13,3,5 w"
    assert p.counts[2] == 1 and p.counts[21] == -1      # White's 3, Black's 3 = White's 22
    assert p.men(Color.BLACK) == {1: 13, 3: 1, 5: 1}
    assert Position.from_counts(list(p.counts)) == p


def test_notation_with_men_off_and_black_to_move() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   . B15 | W3  W2   .  W3  W2   .
    #   .   .   .   .   .   . |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    p = Position("19x3,20x2,22x3,23x2/7x15 b 5-0")
    assert p.off(Color.WHITE) == 5 and p.to_move is Color.BLACK and p.is_valid()
    assert Position.from_notation("23x2,19x3,22x3,20x2/7x15 black 5-0") == p
    assert "to move: black; off: white 5, black 0" in str(p)


@pytest.mark.parametrize(("text", "quoted"), [
    ("", "''"),
    ("1x15/1x15", "'1x15/1x15'"),
    ("1x15 1x15 w", "'1x15 1x15 w'"),
    ("1x15/1x15 x", "'x'"),
    ("25/1x15 w", "25"),
    ("1x0/1x15 w", "0 men"),
    ("1,1/1x15 w", "listed twice"),
    ("1y3/1x15 w", "'1y3'"),
    ("1x15/1x15 w 3", "'3'"),
    ("/1x15 w", "missing"),
])
def test_bad_notation_names_the_input(text: str, quoted: str) -> None:
    with pytest.raises(InvalidNotationError, match=quoted.replace("(", r"\(")):
        Position.from_notation(text)


def test_impossible_positions_are_flagged_not_raised() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #  W1   .   .   .   .   . |  .   .   .   .   . W14
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert Position("1x14,12/1x15 w").status() == Status.LONE_MAN_ON_CORNER
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B14
    #  B1   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black's man on his 13 stands on White's corner.
    assert Position("1x15/1x14,13 w").status() == Status.MAN_ON_OPPONENT_CORNER
    #  both colours on White's 24 (Black's talon), sixteen white men, nothing for Black
    p = Position("1x15,24/- w")
    assert p.status() == (Status.TOO_MANY_WHITE | Status.TOO_FEW_BLACK)
    assert Position("1x15,24/1 w").status() & Status.SHARED_FIELD
    assert "W?B" in str(Position("1x15,24/1 w"))
    assert status_names(p.status()) == "TOO_MANY_WHITE, TOO_FEW_BLACK"
    assert "IMPOSSIBLE" in str(p)
    #  men off while a man is still outside the jan de retour
    assert Position("18,19x13/8x15 w 1-0").status() == Status.OFF_BEFORE_HOME


def test_malformed_counts_raise() -> None:
    with pytest.raises(InvalidNotationError):
        Position((0,) * 23, (0,) * 24)
    with pytest.raises(InvalidNotationError):
        Position((-1,) + (0,) * 23, (0,) * 24)
    with pytest.raises(InvalidNotationError):
        Position.from_men({0: 15}, {1: 15})


def test_mirror_swaps_the_colours() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .  W1   .  W1   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    p = Position("1x13,3,5/1x15 w 2-0")
    m = p.mirror()
    assert m == Position("1x15/1x13,3,5 b 0-2")
    assert m.mirror() == p
    assert m.counts == tuple(-c for c in reversed(p.counts))


def _grid(drawing: str) -> list[list[str]]:
    """The two rows of men of a drawing, top then bottom, as tokens ('|' dropped)."""
    lines = drawing.splitlines()
    rules = [i for i, line in enumerate(lines) if line.strip().startswith("---")]
    return [[t for t in lines[i].split() if t != "|"] for i in (rules[0] + 1, rules[1] - 1)]


@pytest.mark.parametrize("seed", range(20))
def test_each_seat_sees_the_same_board_turned_round(seed: int) -> None:
    position = random_position(random.Random(seed), 12)
    white, black = position.drawing(side=Color.WHITE), position.drawing(side=Color.BLACK)
    # str() stays the classic drawing in White's numbering, with no legend line
    assert white.splitlines()[1:] == str(position).splitlines()
    assert "seen from" not in str(position) and "Black's numbering" in black
    top, bottom = _grid(white)
    assert _grid(black) == [bottom[::-1], top[::-1]]
    # Black's field f (bottom row left to right, then the top row right to left) holds his men
    # on his f and White's on White's 25 - f
    fields = _grid(black)[1] + _grid(black)[0][::-1]
    for f in range(1, 25):
        b = position.men(Color.BLACK).get(f, 0)
        w = position.men(Color.WHITE).get(25 - f, 0)
        assert fields[f - 1] == ("W?B" if w and b else f"B{b}" if b else f"W{w}" if w else ".")
