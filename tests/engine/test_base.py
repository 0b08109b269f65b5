from __future__ import annotations

import random

import pytest
from tablier.engine import Color, Dice, InvalidNotationError, Score, ScoreError, mirror_field


def test_mirror_field_is_an_involution() -> None:
    for field in range(25):
        assert mirror_field(mirror_field(field)) == field
    assert mirror_field(12) == 13


def test_dice_checks_range_and_parses() -> None:
    assert Dice.parse("6-4") == Dice(6, 4)
    assert Dice(3, 3).is_double and not Dice(3, 4).is_double
    for bad in ("7 1", "0-3", "1", "abc", "123"):
        with pytest.raises(InvalidNotationError):
            Dice.parse(bad)
    with pytest.raises(ValueError):
        Dice(1, 7)


def test_rolls_cover_one_to_six() -> None:
    rng = random.Random(7)
    seen = set()
    for _ in range(500):
        d = Dice.roll(rng)
        seen.update((d.a, d.b))
    assert seen == {1, 2, 3, 4, 5, 6}


def test_color_other_and_parse() -> None:
    assert Color.WHITE.other() is Color.BLACK and Color.BLACK.other() is Color.WHITE
    with pytest.raises(InvalidNotationError):
        Color.parse("red")


def test_score_token_spots_and_range() -> None:
    assert [Score(points=p).token_spot for p in range(0, 12, 2)] == [0, 2, 4, 6, 7, 12]
    for bad in (1, 12, -2):
        with pytest.raises(ScoreError):
            Score(points=bad)
